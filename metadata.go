package lettershop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/lettershop/lettershop/internal/echo"
)

// Metadata limits, from the specification.
const (
	MaxMetadataPairs = 20
	// Keys are shorter than 64 characters, values shorter than 512.
	MaxMetadataKeyLen   = 63
	MaxMetadataValueLen = 511
)

// Metadata is a list of caller-defined key-value pairs kept on an object.
// Values are strings (an empty value is a flag); nested values are refused.
// An update replaces the whole list.
type Metadata []MetadataPair

// MetadataPair is one metadata entry.
type MetadataPair struct {
	Key   string `json:"key"`
	Value string `json:"value"`

	// problem is set when the pair arrived in a form that cannot be kept
	// (a number, an object); validate reports it with every other problem.
	problem string
}

// UnmarshalJSON accepts {"key": string, "value": string}. Values of another
// JSON type are remembered as invalid rather than failing the whole
// decoding, so the caller hears about them together with the rest.
func (p *MetadataPair) UnmarshalJSON(b []byte) error {
	// Nearly every pair comes in the plain form, which is read in one
	// pass; decoding every pair through a map of raw members was a seventh
	// of what creating a letter cost.
	if !p.unmarshalPlain(b) {
		p.unmarshalAny(b)
	}
	return nil
}

// unmarshalPlain reads the plain form of a pair, {"key":"k","value":"v"}:
// each member at most once, in either order, with JSON whitespace about
// them, and strings of valid UTF-8 without escapes. It reports false,
// changing nothing, for anything else, which unmarshalAny reads as it
// always has; for what it reads, the two agree (FuzzMetadataPairPlain).
func (p *MetadataPair) unmarshalPlain(b []byte) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	var key, value string
	var haveKey, haveValue bool
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			name, j, ok := plainString(b, i)
			if !ok {
				return false
			}
			i = skipSpace(b, j)
			if i >= len(b) || b[i] != ':' {
				return false
			}
			v, j, ok := plainString(b, skipSpace(b, i+1))
			if !ok {
				return false
			}
			switch {
			case string(name) == "key" && !haveKey:
				key, haveKey = string(v), true
			case string(name) == "value" && !haveValue:
				value, haveValue = string(v), true
			default:
				return false
			}
			i = skipSpace(b, j)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return false
		}
	}
	if skipSpace(b, i) != len(b) {
		return false
	}
	*p = MetadataPair{Key: key, Value: value}
	return true
}

// plainString returns the text of the JSON string at b[i:] and the index
// after it, when the string holds no escape, no control character and only
// valid UTF-8 (which a decoder would otherwise replace).
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s := b[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// unmarshalAny reads a pair of any form, as UnmarshalJSON describes.
func (p *MetadataPair) unmarshalAny(b []byte) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		p.problem = "must be an object with string key and value"
		return
	}
	*p = MetadataPair{}
	// The members in order of name, so that a pair with several wrong ones
	// is told the same problem every time: an unknown member first, the
	// first by name, over a member of the wrong type.
	unknown := ""
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		v := raw[name]
		var dst *string
		switch name {
		case "key":
			dst = &p.Key
		case "value":
			dst = &p.Value
		default:
			if unknown == "" {
				unknown = "unknown field " + echo.Quote(name)
			}
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			if p.problem == "" {
				p.problem = name + " must be a string; nested values are not supported"
			}
		}
	}
	if unknown != "" {
		p.problem = unknown
	}
}

// validate adds every problem with m under the field name path.
func (m Metadata) validate(path string, f fieldErrors) {
	if len(m) > MaxMetadataPairs {
		f.add(path, "at most %d pairs are allowed, got %d", MaxMetadataPairs, len(m))
	}
	// The path of a pair (metadata[3]) is made only for a problem: a
	// letter's pairs are checked on every create, and nearly always fine.
	at := func(i int) string { return fmt.Sprintf("%s[%d]", path, i) }
	// A list over the limit may still be long: its duplicates are found
	// through a map, a short list's by a scan, cheaper than the map.
	var seen map[string]int
	if len(m) > 2*MaxMetadataPairs {
		seen = make(map[string]int, len(m))
	}
	for i, p := range m {
		if p.problem != "" {
			f.add(at(i), "%s", p.problem)
			continue
		}
		switch n := utf8.RuneCountInString(p.Key); {
		case badText(p.Key) != "":
			f.add(at(i)+".key", "%s", badText(p.Key))
		case n == 0:
			f.add(at(i)+".key", "key can not be empty")
		case n > MaxMetadataKeyLen:
			f.add(at(i)+".key", "key must be shorter than %d characters, got %d", MaxMetadataKeyLen+1, n)
		}
		if msg := badText(p.Value); msg != "" {
			f.add(at(i)+".value", "%s", msg)
		} else if n := utf8.RuneCountInString(p.Value); n > MaxMetadataValueLen {
			f.add(at(i)+".value", "value must be shorter than %d characters, got %d", MaxMetadataValueLen+1, n)
		}
		if j, dup := firstWithKey(m, i, seen); dup {
			f.add(at(i)+".key", "key %s is already used by %s[%d]", echo.Quote(p.Key), path, j)
		}
	}
}

// firstWithKey returns the first pair before m[i] without a problem that
// has m[i]'s key, looked up in seen when there is one, which it then
// keeps up to date.
func firstWithKey(m Metadata, i int, seen map[string]int) (int, bool) {
	if seen != nil {
		j, dup := seen[m[i].Key]
		if !dup {
			seen[m[i].Key] = i
		}
		return j, dup
	}
	for j, q := range m[:i] {
		if q.Key == m[i].Key && q.problem == "" {
			return j, true
		}
	}
	return 0, false
}

// clone returns a copy that shares nothing with m; never nil, so an object
// without metadata shows an empty list.
func (m Metadata) clone() Metadata {
	out := make(Metadata, len(m))
	for i, p := range m {
		out[i] = MetadataPair{Key: p.Key, Value: p.Value}
	}
	return out
}
