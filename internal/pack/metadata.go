package pack

import (
	"unique"

	"github.com/lettershop/lettershop/storage"
)

// A record's metadata is packed on its own, so that it can be interned
// (unique.Make of the packed string) and shared by every record holding
// the same pairs: memstore keeps a letter's metadata so, and a letter
// snapshot (package lettersnap) the same way, sharing the store's copy.
// The form is the number of pairs, then each key and value as a uvarint
// length and the text; no pairs is the empty string.

// MetadataLen returns the length of m packed.
func MetadataLen(m []storage.Metadata) int {
	if len(m) == 0 {
		return 0
	}
	n := uvarintLen(uint64(len(m)))
	for _, p := range m {
		n += len(p.Key) + len(p.Value) + uvarintLen(uint64(len(p.Key))) + uvarintLen(uint64(len(p.Value)))
	}
	return n
}

// AppendMetadata appends m packed to b.
func AppendMetadata(b []byte, m []storage.Metadata) []byte {
	if len(m) == 0 {
		return b
	}
	b = appendUvarint(b, uint64(len(m)))
	for _, p := range m {
		b = appendUvarint(b, uint64(len(p.Key)))
		b = append(b, p.Key...)
		b = appendUvarint(b, uint64(len(p.Value)))
		b = append(b, p.Value...)
	}
	return b
}

// NextMetadata reads the number of pairs packed at the start of s, and
// returns it and the pairs after it, which NextString reads: a key, then
// its value.
func NextMetadata(s string) (int, string) {
	if s == "" {
		return 0, ""
	}
	n, rest := NextUvarint(s)
	return int(n), rest
}

// NextString reads a uvarint length and that many bytes from s, as
// AppendMetadata writes them, and returns them and the rest of s. It
// does not check s: a length past its end takes what is left.
func NextString(s string) (string, string) {
	n, s := NextUvarint(s)
	n = min(n, uint64(len(s)))
	return s[:n], s[n:]
}

// NextUvarint reads a uvarint from s and returns it and the rest of s.
func NextUvarint(s string) (uint64, string) {
	if len(s) > 0 && s[0] < 0x80 {
		return uint64(s[0]), s[1:] // the common case: below 128
	}
	var n uint64
	for shift := uint(0); len(s) > 0; shift += 7 {
		c := s[0]
		s = s[1:]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return n, s
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Interned is a list of metadata pairs packed as AppendMetadata packs
// them and interned (unique.Make), so that every holder of the same pairs
// shares one copy: memstore's letters, and a letter snapshot shares the
// store's. The zero Interned has no pairs.
type Interned struct {
	h unique.Handle[string]
}

// Intern packs m and interns it.
func Intern(m []storage.Metadata) Interned {
	if len(m) == 0 {
		return Interned{}
	}
	return Interned{unique.Make(string(AppendMetadata(make([]byte, 0, MetadataLen(m)), m)))}
}

// Packed returns the pairs as AppendMetadata packs them.
func (m Interned) Packed() string {
	if m == (Interned{}) {
		return ""
	}
	return m.h.Value()
}

// Len returns the number of pairs.
func (m Interned) Len() int {
	n, _ := NextMetadata(m.Packed())
	return n
}

// Each calls fn with every pair, in order, until fn returns false. The
// strings are parts of the interned string.
func (m Interned) Each(fn func(key, value string) bool) {
	_, s := NextMetadata(m.Packed())
	for len(s) > 0 {
		var k, v string
		k, s = NextString(s)
		v, s = NextString(s)
		if !fn(k, v) {
			return
		}
	}
}

// Equal reports whether m holds exactly the pairs of l, in order.
func (m Interned) Equal(l []storage.Metadata) bool {
	i := 0
	same := true
	m.Each(func(k, v string) bool {
		same = i < len(l) && l[i].Key == k && l[i].Value == v
		i++
		return same
	})
	return same && i == len(l)
}

// Pairs returns the pairs as a new slice; nil for none.
func (m Interned) Pairs() []storage.Metadata {
	if m == (Interned{}) {
		return nil
	}
	return m.AppendPairs(make([]storage.Metadata, 0, m.Len()))
}

// AppendPairs appends the pairs to dst: one pass, no callback, as every
// listed letter's pairs are copied here.
func (m Interned) AppendPairs(dst []storage.Metadata) []storage.Metadata {
	n, s := NextMetadata(m.Packed())
	for range n {
		var p storage.Metadata
		p.Key, s = NextString(s)
		p.Value, s = NextString(s)
		dst = append(dst, p)
	}
	return dst
}

// Has reports whether every pair of want is among m's.
func (m Interned) Has(want []storage.Metadata) bool {
	for _, w := range want {
		found := false
		m.Each(func(k, v string) bool {
			found = k == w.Key && v == w.Value
			return !found
		})
		if !found {
			return false
		}
	}
	return true
}
