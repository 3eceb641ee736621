package erasemark

import (
	"fmt"
	"testing"
)

// TestMarks: an account's erase moves its mark and those of its stripe
// only, and marks of accounts of different stripes never meet, whatever
// their counts.
func TestMarks(t *testing.T) {
	var m Marks
	byStripe := map[uint64][]string{}
	for i := range 4 * stripes {
		a := fmt.Sprint("acct_", i)
		byStripe[stripe(a)] = append(byStripe[stripe(a)], a)
	}
	a := "acct_0"
	var other string
	for s, as := range byStripe {
		if s != stripe(a) {
			other = as[0]
			break
		}
	}
	before, otherBefore := m.Of(a), m.Of(other)
	m.Erased(a)
	if m.Of(a) == before {
		t.Error("the erase left the account's mark")
	}
	if m.Of(other) != otherBefore {
		t.Error("the erase moved the mark of an account of another stripe")
	}
	if same := byStripe[stripe(a)]; len(same) > 1 && m.Of(same[1]) != m.Of(a) {
		t.Error("accounts of one stripe have different marks")
	}
	// other's stripe at count 1 and a's at 0 (then 1): their marks differ.
	m.Erased(other)
	if m.Of(a) == m.Of(other) {
		t.Errorf("accounts of two stripes at one count share the mark %d", m.Of(a))
	}
}

// TestWithStamp: a joined mark moves when either part moves, and the
// marks of two accounts with the stamps of their own clocks never meet,
// where a sum of the parts (count 1 and stamp 16, count 0 and stamp 17)
// would.
func TestWithStamp(t *testing.T) {
	var m Marks
	a := "acct_a"
	base := WithStamp(m.Of(a), 17)
	if WithStamp(m.Of(a), 17) != base {
		t.Fatal("one mark and one stamp join to two values")
	}
	if WithStamp(m.Of(a), 18) == base {
		t.Error("a new stamp left the joined mark")
	}
	m.Erased(a)
	if WithStamp(m.Of(a), 17) == base {
		t.Error("an erase left the joined mark")
	}
	if WithStamp(m.Of(a), 16) == base {
		t.Errorf("another account's stamp, one less, with the count one more, meets the mark %d", base)
	}
}
