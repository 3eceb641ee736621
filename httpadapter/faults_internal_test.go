package httpadapter

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// An account's faults are matched against a request without the controls'
// lock held, so that costly patterns of one account hold up no other
// account's requests: with it held, 1,000 patterns of "*" against a path
// of 60,000 bytes kept every account's requests waiting for seconds.
func TestFaultsAreMatchedWithoutTheLock(t *testing.T) {
	tc := NewTestControls(1)
	if _, err := tc.AddFault("acct_a", Fault{Path: "/letters/*", Status: 503}); err != nil {
		t.Fatal(err)
	}
	calls, locked := 0, 0
	match := matchPath
	matchPath = func(pattern, name string) (bool, error) {
		calls++
		if !tc.mu.TryLock() {
			locked++
		} else {
			tc.mu.Unlock()
		}
		return match(pattern, name)
	}
	t.Cleanup(func() { matchPath = match })
	f, _ := tc.pick("acct_a", httptest.NewRequest("GET", "/v1/letters/ltr_1", nil))
	if f == nil || f.Status != 503 {
		t.Fatalf("the fault was not met: %+v", f)
	}
	if calls != 1 || locked != 0 {
		t.Errorf("%d matches, %d of them with the lock held; want 1, none", calls, locked)
	}
}

// Matching a request against its account's faults stops at
// MaxFaultMatchWork: a fault reached at the bound exactly is met, and one
// reached a step of work past it (a pattern before it one byte longer)
// is not.
func TestFaultMatchWorkIsBounded(t *testing.T) {
	// A path of 8,191 bytes without /v1: each byte of a pattern with a *
	// costs 8,192, and the bound is 1,024 of them.
	path := "/letters/" + strings.Repeat("b", 8191-len("/letters/"))
	if MaxFaultMatchWork != 1024*(len(path)+1) {
		t.Fatalf("the test's arithmetic assumes MaxFaultMatchWork = %d", 1024*(len(path)+1))
	}
	for _, c := range []struct {
		filler int // the length of the costly pattern before the one that matches
		met    bool
	}{
		{1012, true},  // (1013 + 11) × 8,192: the bound exactly
		{1013, false}, // 8,192 past it
	} {
		tc := NewTestControls(1)
		filler := "/*" + strings.Repeat("q", c.filler-2)
		if _, err := tc.AddFault("acct_a", Fault{Path: filler, Status: 500}); err != nil {
			t.Fatal(err)
		}
		if _, err := tc.AddFault("acct_a", Fault{Path: "/letters/*", Status: 503}); err != nil {
			t.Fatal(err)
		}
		f, _ := tc.pick("acct_a", httptest.NewRequest("GET", "/v1"+path, nil))
		if met := f != nil && f.Status == 503; met != c.met {
			t.Errorf("a pattern of %d bytes before the one that matches: met %v, want %v (%+v)", c.filler, met, c.met, f)
		}
	}
}
