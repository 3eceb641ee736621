// Package pack writes values into a compact byte form and reads them back:
// the form a record is kept in for as long as it lives in memory, where a
// string that holds no pointers costs the garbage collector nothing to
// trace and a few bytes a value are worth a slower read.
//
// A value is written by one method of Writer and read back by the method of
// the same name of Reader, in the same order:
//
//   - an unsigned number is a uvarint, a signed one a zigzag varint;
//   - a string is a uvarint n: n/2 bytes of text follow when n is even,
//     and when n is odd it is the common word number n/2 of the Words the
//     form was written with;
//   - a slice is its length plus one, 0 for nil, then its elements;
//   - an optional part is a flag bit in a byte before it (Flags);
//   - a time is its Unix seconds, then its nanoseconds (as milliseconds
//     when whole); only UTC times are written.
//
// The form lives only in memory, never on disk or the wire, so it may
// change from one build to the next. The package knows nothing of what it
// packs: its callers say which values, in which order.
package pack

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// ErrUnpackable is a Writer's error for a value the form does not hold (a
// time outside UTC), or one its caller reports with Fail.
var ErrUnpackable = errors.New("pack: value the packed form does not hold")

// Words are values many records hold, written as a number each. A form is
// read back with the Words it was written with.
type Words struct {
	list  []string
	index map[string]int
}

// NewWords returns the table of the words given, numbered in order.
func NewWords(words ...string) *Words {
	w := &Words{list: words, index: make(map[string]int, len(words))}
	for i, s := range words {
		w.index[s] = i
	}
	return w
}

// Writer writes the packed form into B. Writers are pooled (Get): a record
// is packed into a scratch buffer and then copied once into a string of
// its size (String).
type Writer struct {
	// B is what was written. A caller may append bytes of its own (a part
	// of another packed form, copied as it is) between values.
	B     []byte
	err   error
	words *Words
}

var writers = sync.Pool{New: func() any { return &Writer{B: make([]byte, 0, 1024)} }}

// Get returns an empty Writer from the pool, which writes words as
// numbers. Release it when done.
func Get(words *Words) *Writer {
	w := writers.Get().(*Writer)
	w.words = words
	return w
}

// Release returns w to the pool; w must not be used after.
func (w *Writer) Release() {
	if cap(w.B) > 64<<10 {
		return
	}
	w.B, w.err, w.words = w.B[:0], nil, nil
	writers.Put(w)
}

// Err returns the first value w could not write, wrapping ErrUnpackable.
func (w *Writer) Err() error { return w.err }

// Fail marks what w holds as not packable: Err returns ErrUnpackable.
func (w *Writer) Fail() {
	if w.err == nil {
		w.err = ErrUnpackable
	}
}

// String returns a copy of what was written.
func (w *Writer) String() string { return string(w.B) }

// Reset empties w, keeping its buffer and its error.
func (w *Writer) Reset() { w.B = w.B[:0] }

// Uvarint writes an unsigned number.
func (w *Writer) Uvarint(v uint64) { w.B = appendUvarint(w.B, v) }

// appendUvarint appends v as a uvarint: every number the form holds, and
// the lengths of packed metadata, are written by it.
func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// Varint writes a signed number.
func (w *Writer) Varint(v int64) { w.Uvarint(uint64(v<<1) ^ uint64(v>>63)) }

// Byte writes one byte.
func (w *Writer) Byte(c byte) { w.B = append(w.B, c) }

// Bool writes a condition as a byte.
func (w *Writer) Bool(v bool) {
	if v {
		w.Byte(1)
	} else {
		w.Byte(0)
	}
}

// Str writes a string: the number of a common word, or its length and
// text.
func (w *Writer) Str(s string) {
	if len(s) <= 40 && s != "" && w.words != nil {
		if i, ok := w.words.index[s]; ok {
			w.Uvarint(uint64(i)<<1 | 1)
			return
		}
	}
	w.Uvarint(uint64(len(s)) << 1)
	w.B = append(w.B, s...)
}

// Count writes a slice's length, telling nil from empty: what Reader.Count
// reads. The caller writes the elements after it.
func (w *Writer) Count(n int, isNil bool) {
	if isNil {
		w.Uvarint(0)
		return
	}
	w.Uvarint(uint64(n) + 1)
}

// Float writes a float's bits.
func (w *Writer) Float(f float64) { w.Uvarint(math.Float64bits(f)) }

// Time writes a time in UTC; a time elsewhere makes the form unpackable.
func (w *Writer) Time(t time.Time) {
	if t.Location() != time.UTC {
		w.Fail()
		return
	}
	w.Varint(t.Unix())
	if ns := uint64(t.Nanosecond()); ns%1e6 == 0 {
		w.Uvarint((ns / 1e6) << 1)
	} else {
		w.Uvarint(ns<<1 | 1)
	}
}

// InsertLength inserts, at position at of B, the length of what was
// written since: a part a reader can then skip or copy without reading it.
func (w *Writer) InsertLength(at int) { w.insertUvarint(at, uint64(len(w.B)-at)) }

// StrAt makes what was appended to B since position at a string, as Str
// writes one (its length goes in before it), for text a caller appends
// in place; it returns where the text begins now.
func (w *Writer) StrAt(at int) int {
	n := len(w.B) - at
	w.insertUvarint(at, uint64(n)<<1)
	return len(w.B) - n
}

// insertUvarint inserts v as a uvarint at position at of B.
func (w *Writer) insertUvarint(at int, v uint64) {
	var buf [10]byte
	n := appendUvarint(buf[:0], v)
	w.B = append(w.B, n...)
	copy(w.B[at+len(n):], w.B[at:len(w.B)-len(n)])
	copy(w.B[at:], n)
}

// Flags packs up to eight conditions into one byte, the first the lowest
// bit.
func Flags(conds ...bool) byte {
	var f byte
	for i, c := range conds {
		if c {
			f |= 1 << i
		}
	}
	return f
}

// Reader reads the packed form from a string. Its strings are parts of
// that string. A form that ends early, or holds a number out of range, sets
// its error; the values read after that are zero.
type Reader struct {
	s     string
	i     int
	err   error
	words *Words
}

// NewReader returns a Reader of s, written with words.
func NewReader(s string, words *Words) Reader { return Reader{s: s, words: words} }

// Err returns what went wrong, if anything did.
func (u *Reader) Err() error { return u.err }

// Pos returns how many bytes were read.
func (u *Reader) Pos() int { return u.i }

// Rest returns what is left to read.
func (u *Reader) Rest() string { return u.s[u.i:] }

// Skip passes over n bytes, and reports false, setting the error, when
// fewer are left.
func (u *Reader) Skip(n uint64) bool {
	if n > uint64(len(u.s)-u.i) {
		u.Fail("length")
		return false
	}
	u.i += int(n)
	return true
}

// End sets the error if bytes are left over: what was packed was not all
// read back.
func (u *Reader) End() {
	if u.i != len(u.s) && u.err == nil {
		u.err = fmt.Errorf("%d bytes left over", len(u.s)-u.i)
	}
}

// Fail sets the error, naming what could not be read, and stops reading.
func (u *Reader) Fail(what string) {
	if u.err == nil {
		u.err = fmt.Errorf("bad %s at byte %d of %d", what, u.i, len(u.s))
	}
	u.i = len(u.s)
}

// Uvarint reads an unsigned number.
func (u *Reader) Uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if u.i >= len(u.s) {
			u.Fail("number")
			return 0
		}
		c := u.s[u.i]
		u.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	u.Fail("number")
	return 0
}

// Varint reads a signed number.
func (u *Reader) Varint() int64 {
	v := u.Uvarint()
	return int64(v>>1) ^ -int64(v&1)
}

// Byte reads one byte.
func (u *Reader) Byte() byte {
	if u.i >= len(u.s) {
		u.Fail("byte")
		return 0
	}
	c := u.s[u.i]
	u.i++
	return c
}

// Bool reads a condition.
func (u *Reader) Bool() bool { return u.Byte() != 0 }

// Str reads a string.
func (u *Reader) Str() string {
	n := u.Uvarint()
	if n&1 == 1 {
		if u.words == nil || n>>1 >= uint64(len(u.words.list)) {
			u.Fail("word")
			return ""
		}
		return u.words.list[n>>1]
	}
	n >>= 1
	if n > uint64(len(u.s)-u.i) {
		u.Fail("string")
		return ""
	}
	s := u.s[u.i : u.i+int(n)]
	u.i += int(n)
	return s
}

// Count reads a slice's length, and reports false for nil.
func (u *Reader) Count() (int, bool) {
	n := u.Uvarint()
	if n == 0 {
		return 0, false
	}
	// Every element takes a byte at least.
	if n-1 > uint64(len(u.s)-u.i) {
		u.Fail("length")
		return 0, false
	}
	return int(n - 1), true
}

// Float reads a float.
func (u *Reader) Float() float64 { return math.Float64frombits(u.Uvarint()) }

// Time reads a time, in UTC.
func (u *Reader) Time() time.Time {
	sec := u.Varint()
	ns := u.Uvarint()
	if ns&1 == 0 {
		ns = (ns >> 1) * 1e6
	} else {
		ns >>= 1
	}
	if ns >= 1e9 {
		u.Fail("time")
		return time.Time{}
	}
	return time.Unix(sec, int64(ns)).UTC()
}
