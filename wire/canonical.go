package wire

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxCanonicalDepth is the deepest nesting Canonical follows; a deeper
// body keeps its bytes as they are.
const maxCanonicalDepth = 128

// Canonical appends to dst the canonical form of body, one JSON value, and
// reports whether body was one: a body whose canonical form is the same
// says the same thing, written another way. The form has no whitespace
// outside strings, an object's members in the order of their names (the
// members of one name keep their order among themselves, as a decoder
// that takes the last of them reads them), and every string written with
// the fewest escapes (only ", \ and the control characters; \u0041 and A,
// \/ and / are the same). Numbers are kept as written: 1.0 and 1 differ.
// A body that is not one JSON value, holds text that is not UTF-8 or a
// lone surrogate escape, or nests deeper than 128 levels, has no canonical
// form: false, and dst as it was.
func Canonical(dst, body []byte) ([]byte, bool) {
	c := canon{in: body, out: dst}
	c.ws()
	if !c.value(0) {
		return dst, false
	}
	c.ws()
	if c.i != len(c.in) {
		return dst, false
	}
	return c.out, true
}

type canon struct {
	in  []byte
	i   int
	out []byte
	// members holds the members of the objects being read, each object's
	// after those of the objects around it; tmp is scratch for rewriting.
	members []member
	tmp     []byte
}

func (c *canon) ws() {
	for c.i < len(c.in) {
		switch c.in[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *canon) value(depth int) bool {
	if c.i >= len(c.in) || depth >= maxCanonicalDepth {
		return false
	}
	switch c.in[c.i] {
	case '{':
		return c.object(depth)
	case '[':
		return c.array(depth)
	case '"':
		return c.str()
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	default:
		return c.number()
	}
}

func (c *canon) literal(s string) bool {
	if !bytes.HasPrefix(c.in[c.i:], []byte(s)) {
		return false
	}
	c.i += len(s)
	c.out = append(c.out, s...)
	return true
}

// member is where one member of an object was written in out: the span
// of "name":value, and where its name's closing quote is.
type member struct {
	start, nameEnd, end int
}

// open writes the opening bracket at c.i and reports whether its object
// or array is empty: then its closing bracket is read and written too.
func (c *canon) open(closing byte) bool {
	c.out = append(c.out, c.in[c.i])
	c.i++
	c.ws()
	if c.i < len(c.in) && c.in[c.i] == closing {
		c.i++
		c.out = append(c.out, closing)
		return true
	}
	return false
}

func (c *canon) object(depth int) bool {
	start := len(c.out)
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	if c.open('}') {
		return true
	}
	for {
		c.ws()
		if c.i >= len(c.in) || c.in[c.i] != '"' {
			return false
		}
		m := member{start: len(c.out)}
		if !c.str() {
			return false
		}
		m.nameEnd = len(c.out) - 1
		c.ws()
		if c.i >= len(c.in) || c.in[c.i] != ':' {
			return false
		}
		c.i++
		c.out = append(c.out, ':')
		c.ws()
		if !c.value(depth + 1) {
			return false
		}
		m.end = len(c.out)
		c.members = append(c.members, m)
		more, ok := c.next('}')
		if !ok {
			return false
		}
		if !more {
			break
		}
	}
	// Names are ordered as written canonically, which is one way of
	// writing each: the order is that of the names, however they came.
	members, out := c.members[base:], c.out
	byName := func(a, b member) int {
		return bytes.Compare(out[a.start+1:a.nameEnd], out[b.start+1:b.nameEnd])
	}
	if slices.IsSortedFunc(members, byName) {
		return true
	}
	// Write the members again in the order of their names.
	slices.SortStableFunc(members, byName)
	c.tmp = append(c.tmp[:0], c.out[start:]...)
	c.out = append(c.out[:start], '{')
	for i, m := range members {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, c.tmp[m.start-start:m.end-start]...)
	}
	c.out = append(c.out, '}')
	return true
}

func (c *canon) array(depth int) bool {
	if c.open(']') {
		return true
	}
	for {
		c.ws()
		if !c.value(depth + 1) {
			return false
		}
		if more, ok := c.next(']'); !ok || !more {
			return ok
		}
	}
}

// next reads what follows a member or an element: a comma, written, when
// another follows (more), or the closing bracket, written; ok is false for
// anything else.
func (c *canon) next(closing byte) (more, ok bool) {
	c.ws()
	if c.i >= len(c.in) {
		return false, false
	}
	switch b := c.in[c.i]; b {
	case ',', closing:
		c.i++
		c.out = append(c.out, b)
		return b == ',', true
	}
	return false, false
}

// str reads a string at c.i and writes it with the fewest escapes.
func (c *canon) str() bool {
	c.i++ // "
	c.out = append(c.out, '"')
	for c.i < len(c.in) {
		b := c.in[c.i]
		switch {
		case b == '"':
			c.i++
			c.out = append(c.out, '"')
			return true
		case b == '\\':
			r, ok := c.escape()
			if !ok {
				return false
			}
			c.out = appendRune(c.out, r)
		case b < 0x20:
			return false
		case b < utf8.RuneSelf:
			c.i++
			c.out = appendRune(c.out, rune(b))
		default:
			r, n := utf8.DecodeRune(c.in[c.i:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			c.out = append(c.out, c.in[c.i:c.i+n]...)
			c.i += n
		}
	}
	return false
}

// escape reads the escape at c.i and returns the rune it stands for; a
// surrogate pair stands for one rune, a lone surrogate for none.
func (c *canon) escape() (rune, bool) {
	if c.i+1 >= len(c.in) {
		return 0, false
	}
	e := c.in[c.i+1]
	c.i += 2
	switch e {
	case '"', '\\', '/':
		return rune(e), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := c.hex4()
		if !ok {
			return 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, true
		}
		if c.i+1 >= len(c.in) || c.in[c.i] != '\\' || c.in[c.i+1] != 'u' {
			return 0, false
		}
		c.i += 2
		r2, ok := c.hex4()
		if !ok {
			return 0, false
		}
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			return d, true
		}
	}
	return 0, false
}

func (c *canon) hex4() (rune, bool) {
	if c.i+4 > len(c.in) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(c.in[c.i:c.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	c.i += 4
	return rune(v), true
}

// appendRune appends r as it is written in a canonical string.
func appendRune(out []byte, r rune) []byte {
	switch r {
	case '"':
		return append(out, '\\', '"')
	case '\\':
		return append(out, '\\', '\\')
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	if r < 0x20 {
		const hex = "0123456789abcdef"
		return append(out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
	}
	return utf8.AppendRune(out, r)
}

// number reads a number as JSON's grammar has it, and writes it as written.
func (c *canon) number() bool {
	start := c.i
	if c.i < len(c.in) && c.in[c.i] == '-' {
		c.i++
	}
	switch {
	case c.i < len(c.in) && c.in[c.i] == '0':
		c.i++
	case c.i < len(c.in) && c.in[c.i] >= '1' && c.in[c.i] <= '9':
		c.digits()
	default:
		return false
	}
	if c.i < len(c.in) && c.in[c.i] == '.' {
		c.i++
		if !c.digits() {
			return false
		}
	}
	if c.i < len(c.in) && (c.in[c.i] == 'e' || c.in[c.i] == 'E') {
		c.i++
		if c.i < len(c.in) && (c.in[c.i] == '+' || c.in[c.i] == '-') {
			c.i++
		}
		if !c.digits() {
			return false
		}
	}
	c.out = append(c.out, c.in[start:c.i]...)
	return true
}

// digits reads one or more digits.
func (c *canon) digits() bool {
	start := c.i
	for c.i < len(c.in) && c.in[c.i] >= '0' && c.in[c.i] <= '9' {
		c.i++
	}
	return c.i > start
}
