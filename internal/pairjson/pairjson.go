// Package pairjson reads the JSON of a metadata pair, {"key": string,
// "value": string}, as a request carries it: a pair of another form (a
// value that is a number or an object, an unknown member, not an object
// at all) is read with a problem that says what is wrong, rather than
// failing the decoding it is part of, so the caller hears about it
// together with the rest. The plain form, nearly every pair, is read in
// one pass. It knows std and internal/echo only.
package pairjson

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/lettershop/lettershop/internal/echo"
)

// Pair is a metadata pair as read: its key and value, and Problem, what
// makes it a pair that cannot be kept ("" when nothing does).
type Pair struct {
	Key, Value, Problem string
}

// Read reads the JSON value b, a pair. A pair of a form that cannot be
// kept is read with a Problem, never refused: when b is an object, p is
// what it holds, its members of the wrong type left empty; when b is not
// an object, only p.Problem is set, and p's key and value are left as
// they were.
func (p *Pair) Read(b []byte) {
	// Nearly every pair comes in the plain form, which is read in one
	// pass; decoding every pair through a map of raw members was a seventh
	// of what creating a letter cost.
	if !p.readPlain(b) {
		p.readAny(b)
	}
}

// readPlain reads the plain form of a pair, {"key":"k","value":"v"}: each
// member at most once, in either order, with JSON whitespace about them,
// and strings of valid UTF-8 without escapes. It reports false, changing
// nothing, for anything else, which readAny reads as it always has; for
// what it reads, the two agree (FuzzMetadataPairPlain).
func (p *Pair) readPlain(b []byte) bool {
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
	*p = Pair{Key: key, Value: value}
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

// readAny reads a pair of any form, as Read describes.
func (p *Pair) readAny(b []byte) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		p.Problem = "must be an object with string key and value"
		return
	}
	*p = Pair{}
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
			if p.Problem == "" {
				p.Problem = name + " must be a string; nested values are not supported"
			}
		}
	}
	if unknown != "" {
		p.Problem = unknown
	}
}
