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

// Read reads the JSON value b, a pair, into key, value and problem,
// what makes it a pair that cannot be kept ("" when nothing does), and at,
// the member of the pair the problem is about (".value" or ".key"; "" for
// the pair as a whole: not an object, or an unknown member). A pair
// of a form that cannot be kept is read with a problem, never refused:
// when b is an object, key and value are what it holds, a member of the
// wrong type left empty; when b is not an object, only problem is set, and
// key and value are left as they were. They point into the pair being
// decoded, which a reading of the general form decodes into directly.
func Read(b []byte, key, value, at, problem *string) {
	// Nearly every pair comes in the plain form, which is read in one
	// pass; decoding every pair through a map of raw members was a seventh
	// of what creating a letter cost.
	if k, v, ok := readPlain(b); ok {
		*key, *value, *at, *problem = k, v, "", ""
		return
	}
	readAny(b, key, value, at, problem)
}

// readPlain reads the plain form of a pair, {"key":"k","value":"v"}: each
// member at most once, in either order, with JSON whitespace about them,
// and strings of valid UTF-8 without escapes. It reports false for
// anything else, which readAny reads as it always has; for what it reads,
// the two agree (FuzzMetadataPairPlain).
func readPlain(b []byte) (key, value string, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", "", false
	}
	i = skipSpace(b, i+1)
	var haveKey, haveValue bool
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			name, j, isPlain := plainString(b, i)
			if !isPlain {
				return "", "", false
			}
			i = skipSpace(b, j)
			if i >= len(b) || b[i] != ':' {
				return "", "", false
			}
			v, j, isPlain := plainString(b, skipSpace(b, i+1))
			if !isPlain {
				return "", "", false
			}
			switch {
			case string(name) == "key" && !haveKey:
				key, haveKey = string(v), true
			case string(name) == "value" && !haveValue:
				value, haveValue = string(v), true
			default:
				return "", "", false
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
			return "", "", false
		}
	}
	if skipSpace(b, i) != len(b) {
		return "", "", false
	}
	return key, value, true
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
func readAny(b []byte, key, value, at, problem *string) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		*at, *problem = "", "must be an object with string key and value"
		return
	}
	*key, *value, *at, *problem = "", "", "", ""
	// The members in order of name, so that a pair with several wrong ones
	// is told the same problem every time: an unknown member first, the
	// first by name, over a member of the wrong type.
	unknown := ""
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		v := raw[name]
		var dst *string
		switch name {
		case "key":
			dst = key
		case "value":
			dst = value
		default:
			if unknown == "" {
				unknown = "unknown field " + echo.Quote(name)
			}
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			if *problem == "" {
				*at, *problem = "."+name, "must be a string, got "+kind(v)
			}
		}
	}
	if unknown != "" {
		*at, *problem = "", unknown
	}
}

// kind names the JSON type of the value v, as a problem says it.
func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '"':
		return "a string"
	}
	return "a number"
}
