// Package jsonsplice changes a serialized JSON object laid out as
//
//	{"<first>":{...},...,"<last>":[...]}
//
// without decoding it whole: its first member's object is read and
// replaced, the members in between copied as they are, and elements
// appended to its last member's array. A store that serializes a record
// keeps it so, and a change that touches only those two members (a letter's
// life facts and its events) then costs the bytes of what changed, not a
// decoding and encoding of the record.
//
// It matches brackets outside strings and checks nothing else: the caller
// decodes the first member's object, which checks it, and writes the
// object it replaces it with and the elements it appends.
package jsonsplice

import "bytes"

// Object is a serialized object laid out as the package says.
type Object struct {
	data []byte
	// start and end delimit the first member's object.
	start, end int
}

var arrayEnd = []byte(`]}`)

// Split returns data as an Object whose first member is named first, and
// reports false when data is not laid out so.
func Split(data []byte, first string) (Object, bool) {
	start := len(first) + 4 // {"first":
	if len(data) < start || data[0] != '{' || data[1] != '"' || string(data[2:2+len(first)]) != first ||
		data[2+len(first)] != '"' || data[3+len(first)] != ':' {
		return Object{}, false
	}
	n := objectEnd(data[start:])
	if n < 0 {
		return Object{}, false
	}
	rest := data[start+n:]
	if !bytes.HasPrefix(rest, []byte(`,"`)) || !bytes.HasSuffix(rest, arrayEnd) {
		return Object{}, false
	}
	return Object{data: data, start: start, end: start + n}, true
}

// First returns the first member's object, a part of the data split.
func (o Object) First() []byte { return o.data[o.start:o.end] }

// Len returns the length of the data split.
func (o Object) Len() int { return len(o.data) }

// Begin appends to dst the object with first as its first member's object,
// up to the end of its last member's array, where AppendElement appends;
// End closes it.
func (o Object) Begin(dst, first []byte) Appender {
	dst = append(dst, o.data[:o.start]...)
	dst = append(dst, first...)
	rest := o.data[o.end : len(o.data)-len(arrayEnd)]
	dst = append(dst, rest...)
	return Appender{b: dst, sep: !bytes.HasSuffix(rest, []byte(`[`))}
}

// Appender appends elements to the last array of an object Begin began.
type Appender struct {
	b   []byte
	sep bool
}

// Element appends one serialized element.
func (a *Appender) Element(e []byte) {
	if a.sep {
		a.b = append(a.b, ',')
	}
	a.b = append(a.b, e...)
	a.sep = true
}

// End closes the array and the object, and returns the bytes.
func (a *Appender) End() []byte { return append(a.b, arrayEnd...) }

// objectEnd returns the length of the JSON object at the start of b, or -1.
// It only matches brackets outside strings.
func objectEnd(b []byte) int {
	if len(b) == 0 || b[0] != '{' {
		return -1
	}
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}
