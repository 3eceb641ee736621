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
