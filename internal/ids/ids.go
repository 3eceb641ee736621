// Package ids makes the service's ids: a kind's prefix and a ULID of a
// time, in lower case. A Maker draws their random part from the entropy it
// was given as one sequence that only grows, by a random step, from each id
// it makes to the next, whatever their instants: so ids made at one instant
// (a stopped test clock) sort in the order they were made, also when ids of
// other instants (accounts whose clocks stand elsewhere) are made between
// them. An event's id (AppendEvent) draws it from its letter and position
// instead, so the same history always has the same ids, and a letter's
// events of one instant sort in the order they happened.
package ids

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Maker makes ids and random secrets from one source of entropy. It is safe
// for concurrent use.
type Maker struct {
	mu sync.Mutex
	// random is the entropy as given, for secrets; entropy reads it
	// monotonically, for ids.
	random, entropy io.Reader
	// id is where New makes an id, under mu: an id made in a variable of
	// its own is read into through an interface, and so costs an
	// allocation.
	id ulid.ULID
}

// NewMaker returns a Maker drawing on r.
func NewMaker(r io.Reader) *Maker {
	return &Maker{random: r, entropy: ulid.Monotonic(r, 0)}
}

// New returns prefix followed by a lower-case ULID for the time at.
func (m *Maker) New(prefix string, at time.Time) string {
	m.mu.Lock()
	err := m.id.SetTime(ulid.Timestamp(at))
	if err == nil {
		if mr, ok := m.entropy.(ulid.MonotonicReader); ok {
			// One sequence for every instant: read as if every id were
			// of one millisecond, the entropy is never drawn afresh,
			// which would let an instant's next id sort before its
			// earlier ones. Past the top (some 2^48 ids on) it wraps
			// round; its ids are still unique.
			if err = mr.MonotonicRead(0, m.id[6:]); errors.Is(err, ulid.ErrMonotonicOverflow) {
				err = nil
			}
		} else {
			_, err = io.ReadFull(m.entropy, m.id[6:])
		}
	}
	id := m.id
	m.mu.Unlock()
	if err != nil {
		// Only a failing entropy source or a time past the year 10889
		// gets here; ids are not optional.
		panic("lettershop: cannot make an id: " + err.Error() +
			" (the entropy, crypto/rand or the reader given to WithEntropy, must never fail or run out)")
	}
	// The prefix and the id in lower case, made in one buffer and copied
	// once into the string.
	var b [16 + ulid.EncodedSize]byte
	n := copy(b[:16], prefix)
	if n < len(prefix) {
		return prefix + strings.ToLower(id.String())
	}
	_ = id.MarshalTextTo(b[n : n+ulid.EncodedSize])
	lower(b[n : n+ulid.EncodedSize])
	return string(b[:n+ulid.EncodedSize])
}

// Fork returns a Maker of a monotonic sequence of its own, drawing its
// randomness from m: for ids made one after another in one goroutine
// (a restore of many records) whose order the ids other goroutines make
// meanwhile, at other instants, must not break. Its ids are as unique as
// m's: 80 random bits within a millisecond.
func (m *Maker) Fork() *Maker { return NewMaker(source{m}) }

// source reads a Maker's entropy as given.
type source struct{ m *Maker }

func (s source) Read(b []byte) (int, error) {
	if err := s.m.Read(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Read fills b from the entropy as given, for a secret.
func (m *Maker) Read(b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := io.ReadFull(m.random, b)
	return err
}

// EventLen is the length of an event id with prefix p: len(p) + EventLen.
const EventLen = ulid.EncodedSize

// AppendEvent appends to dst the id of a letter's n-th event, happening at
// at: prefix and a ULID of the time whose random part is n (two bytes,
// so that a letter's events of one instant sort in the order they
// happened) and then eight bytes drawn from the letter id and n.
func AppendEvent(dst []byte, prefix, letterID string, n int, at time.Time) []byte {
	// Room on the stack for the ids the service makes (30 bytes).
	var in [64]byte
	seed := sha256.Sum256(binary.BigEndian.AppendUint64(append(in[:0], letterID...), uint64(n)))
	binary.BigEndian.PutUint16(seed[:2], uint16(n))
	var id ulid.ULID
	if id.SetTime(ulid.Timestamp(at)) != nil || id.SetEntropy(seed[:10]) != nil {
		// Only a time past the year 10889 gets here.
		panic("ids: no event id for time " + at.String())
	}
	dst = append(dst, prefix...)
	start := len(dst)
	dst = append(dst, make([]byte, ulid.EncodedSize)...)
	_ = id.MarshalTextTo(dst[start:]) // cannot fail: the room is there
	lower(dst[start:])
	return dst
}

// lower makes the ASCII letters of b lower case.
func lower(b []byte) {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
}
