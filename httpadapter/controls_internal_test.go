package httpadapter

import (
	"errors"
	"strconv"
	"testing"

	"github.com/lettershop/lettershop"
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

// An account's faults are tried in turn on each of its requests: they are
// bounded, and the one past the bound is refused naming why.
func TestAddFaultBounded(t *testing.T) {
	tc := NewTestControls(1)
	f := Fault{Path: "/letters", Status: 500}
	for i := range 1000 {
		if _, err := tc.AddFault("acct_a", f); err != nil {
			t.Fatalf("fault %d: %v", i+1, err)
		}
	}
	_, err := tc.AddFault("acct_a", f)
	var e *lettershop.Error
	if !errors.As(err, &e) || e.Code != lettershop.CodeInvalid || e.Fields["body"] == "" {
		t.Fatalf("a fault past 1000: error %v, want an invalid-request error naming body", err)
	}
	if n := len(tc.Faults("acct_a")); n != 1000 {
		t.Errorf("faults kept: %d, want 1000", n)
	}
	if _, err := tc.AddFault("acct_b", f); err != nil {
		t.Errorf("another account's fault: %v", err)
	}
}
