package httpadapter

import (
	"bytes"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// The fast path of decodeJSON. Nearly every body a client sends is well
// formed and fits its type; for those, one strict pass over the bytes
// (syntax, text, shape) and the typed decoding are all the work. The pass
// is conservative: it accepts a body only when the full check (a generic
// decoding, checkBodyText, checkShape) would find nothing, and anything it
// is unsure of (an escaped member name, a surrogate escape, very deep
// nesting) sends the body through the full check, which writes every
// message. So the messages stay those of the full check by construction.

// maxFastDepth is the deepest nesting the fast path follows.
const maxFastDepth = 64

// fastCheck reports whether body is one JSON value, with only valid text in
// its strings, that decodes into a value of type t without a problem
// checkShape would report.
func fastCheck(body []byte, t reflect.Type) bool {
	s := fastScanner{b: body}
	s.ws()
	if !s.value(t, 0) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

type fastScanner struct {
	b []byte
	i int
}

func (s *fastScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// shapeOf is the type whose shape the value is checked against: t with
// pointers taken off, or nil when nothing is checked (types that decode
// themselves, and no type at all).
func shapeOf(t reflect.Type) reflect.Type {
	for t != nil && t != timeType {
		if t.Kind() != reflect.Pointer && (t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)) {
			return nil
		}
		if t.Kind() != reflect.Pointer {
			return t
		}
		t = t.Elem()
	}
	return t
}

// value reads one value at s.i, checked against t (nil: syntax and text
// only).
func (s *fastScanner) value(t reflect.Type, depth int) bool {
	if s.i >= len(s.b) || depth > maxFastDepth {
		return false
	}
	t = shapeOf(t)
	switch c := s.b[s.i]; {
	case c == 'n':
		return s.literal("null") // null fits any type
	case c == '{':
		return s.object(t, depth)
	case c == '[':
		if t != nil && t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			if t.Kind() != reflect.Interface {
				return false
			}
			t = nil
		}
		return s.array(t, depth)
	case c == '"':
		start := s.i
		plain, ok := s.str()
		if !ok {
			return false
		}
		if t == timeType {
			if !plain {
				return false
			}
			_, err := time.Parse(time.RFC3339, string(s.b[start+1:s.i-1]))
			return err == nil
		}
		if s.i-start == 2 && isEnum(t) {
			return false // "" for an enumeration: the full check names it
		}
		return s.fits(t, reflect.String)
	case c == 't':
		return s.literal("true") && s.fits(t, reflect.Bool)
	case c == 'f':
		return s.literal("false") && s.fits(t, reflect.Bool)
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.i
		if !s.number() {
			return false
		}
		if t == nil {
			return true
		}
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			_, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
			return err == nil
		case reflect.Float32, reflect.Float64, reflect.Interface:
			return true
		}
		return false
	}
	return false
}

// fits reports whether a value of kind k may go where t is checked: t is
// nil, of kind k, or an interface.
func (s *fastScanner) fits(t reflect.Type, k reflect.Kind) bool {
	return t == nil || t.Kind() == k || t.Kind() == reflect.Interface
}

func (s *fastScanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

func (s *fastScanner) object(t reflect.Type, depth int) bool {
	var known map[string]reflect.Type
	switch {
	case t == nil || t.Kind() == reflect.Interface:
		t = nil
	case t.Kind() == reflect.Struct:
		known = structFields(t)
	case t.Kind() != reflect.Map:
		return false
	}
	s.i++ // {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	// A name given twice is left to the full check, which refuses it;
	// so is a name with an escape, which only a decoding compares.
	var seenBuf [32][]byte
	seen := seenBuf[:0]
	var many map[string]struct{}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		start := s.i
		plain, ok := s.str()
		if !ok || !plain {
			return false
		}
		// The first names are compared in seen, on the stack; an object
		// of more has them in many, where it costs no walk of them all
		// for each.
		name := s.b[start+1 : s.i-1]
		switch {
		case many == nil && len(seen) < cap(seen):
			if slices.ContainsFunc(seen, func(n []byte) bool { return bytes.Equal(n, name) }) {
				return false
			}
			seen = append(seen, name)
		default:
			if many == nil {
				many = make(map[string]struct{}, 2*len(seen))
				for _, n := range seen {
					many[string(n)] = struct{}{}
				}
			}
			if _, ok := many[string(name)]; ok {
				return false
			}
			many[string(name)] = struct{}{}
		}
		var ft reflect.Type
		switch {
		case known != nil:
			if ft, ok = known[string(s.b[start+1:s.i-1])]; !ok {
				return false
			}
		case t != nil:
			ft = t.Elem()
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if !s.value(ft, depth+1) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *fastScanner) array(t reflect.Type, depth int) bool {
	var et reflect.Type
	if t != nil {
		et = t.Elem()
	}
	s.i++ // [
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(et, depth+1) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string at s.i. ok is false for what is not a valid JSON
// string of valid text, and for any \u escape of a surrogate, which the
// full check judges; plain is true when the string has no escape at all,
// so that its bytes are its text.
func (s *fastScanner) str() (plain, ok bool) {
	s.i++ // the opening quote
	plain = true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return plain, true
		case c < 0x20:
			return false, false
		case c == '\\':
			plain = false
			if s.i+1 >= len(s.b) {
				return false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false, false
				}
				r, err := strconv.ParseUint(string(s.b[s.i+2:s.i+6]), 16, 32)
				if err != nil || (r >= 0xD800 && r < 0xE000) {
					return false, false
				}
				s.i += 6
			default:
				return false, false
			}
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n == 1 {
				return false, false
			}
			s.i += n
		}
	}
	return false, false
}

// number reads a number as JSON's grammar has it.
func (s *fastScanner) number() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
