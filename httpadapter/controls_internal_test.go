package httpadapter

import (
	"strconv"
	"testing"
)

// Every valid key of the sandbox is an account of its own, so the controls
// must not keep one journal per account for ever: a client with a fresh
// key per request would grow them without end. The oldest accounts go.
func TestControlsForgetLeastRecentAccounts(t *testing.T) {
	tc := NewTestControls(1)
	tc.record("acct_first", JournalEntry{Method: "GET", Path: "/letters"})
	for i := range 1 << 14 {
		tc.record("acct_"+strconv.Itoa(i), JournalEntry{Method: "GET", Path: "/letters"})
	}
	if got := tc.Requests("acct_first"); len(got) != 0 {
		t.Errorf("the first account's journal after %d other accounts: %d entries, want it forgotten", 1<<14, len(got))
	}
	if got := tc.Requests("acct_" + strconv.Itoa(1<<14-1)); len(got) != 1 {
		t.Errorf("the last account's journal: %d entries, want 1", len(got))
	}
}
