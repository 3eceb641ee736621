package httpadapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

// Every valid key of the sandbox is an account of its own, so a client
// with a fresh key per request makes accounts without end; they must not
// push out a fault another account set. Ten thousand fresh accounts, each
// with a request in its journal, are well within the bound.
func TestFreshAccountsKeepAnotherAccountsFaults(t *testing.T) {
	tc := NewTestControls(1)
	f, err := tc.AddFault("acct_test", Fault{Path: "/letters", Status: 503, Times: 2})
	if err != nil {
		t.Fatal(err)
	}
	tc.record("acct_test", JournalEntry{Method: "GET", Path: "/letters"})
	for i := range 10000 {
		tc.record("acct_"+strconv.Itoa(i), JournalEntry{Method: "GET", Path: "/letters"})
	}
	if got := tc.Faults("acct_test"); len(got) != 1 || got[0].ID != f.ID || got[0].Times != 2 {
		t.Errorf("the fault after 10,000 fresh accounts: %+v, want %+v", got, f)
	}
	if got := tc.Requests("acct_test"); len(got) != 1 {
		t.Errorf("the journal after 10,000 fresh accounts: %d entries, want 1", len(got))
	}
}

// The controls keep at most their bound in bytes, whatever the number of
// accounts. Over it whole accounts go, least recently used first, and
// accounts without faults before any with them.
func TestControlsBoundedInBytes(t *testing.T) {
	tc := NewTestControls(1)
	tc.limit = 64 << 10
	if _, err := tc.AddFault("acct_faulted", Fault{Status: 500}); err != nil {
		t.Fatal(err)
	}
	tc.record("acct_old", JournalEntry{Method: "GET", Path: "/letters"})
	for i := range 2000 {
		tc.record("acct_"+strconv.Itoa(i), JournalEntry{Method: "GET", Path: "/letters"})
		if tc.bytes > tc.limit {
			t.Fatalf("after %d accounts the controls hold %d bytes, over their bound of %d", i+1, tc.bytes, tc.limit)
		}
	}
	if got := tc.Requests("acct_old"); len(got) != 0 {
		t.Errorf("the least recently used account's journal: %d entries, want it dropped", len(got))
	}
	if got := tc.Faults("acct_faulted"); len(got) != 1 {
		t.Errorf("an account with a fault went before accounts without: %+v", got)
	}
	if got := tc.Requests("acct_1999"); len(got) != 1 {
		t.Errorf("the latest account's journal: %d entries, want 1", len(got))
	}
	if _, gone := tc.dropped.Get("acct_old"); gone {
		t.Error("an account without faults left a notice of dropped faults")
	}
	// Once only accounts with faults are left, they go too, least recently
	// used first, and each leaves a notice.
	for i := range 2000 {
		if _, err := tc.AddFault("acct_f"+strconv.Itoa(i), Fault{Status: 500}); err != nil {
			t.Fatal(err)
		}
		if tc.bytes > tc.limit {
			t.Fatalf("after %d faulted accounts the controls hold %d bytes, over their bound of %d", i+1, tc.bytes, tc.limit)
		}
	}
	if got := tc.Faults("acct_faulted"); len(got) != 0 {
		t.Errorf("the least recently used faulted account kept its faults: %+v", got)
	}
	if _, gone := tc.dropped.Get("acct_faulted"); !gone {
		t.Error("faults with uses left were dropped without a notice")
	}
	if got := tc.Faults("acct_f1999"); len(got) != 1 {
		t.Errorf("the latest account's faults: %+v", got)
	}
	checkBytes(t, tc)
	// Faults used up, cleared, and journals cleared give their bytes back.
	if _, err := tc.AddFault("acct_pick", Fault{Status: 500, Times: 1}); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/letters", nil)
	if f, _ := tc.pick("acct_pick", r); f == nil {
		t.Fatal("the fault did not meet its request")
	}
	if f, _ := tc.pick("acct_pick", r); f != nil || len(tc.Faults("acct_pick")) != 0 {
		t.Fatal("a fault used up is still there")
	}
	checkBytes(t, tc)
	tc.ClearFaults("acct_f1998")
	tc.ClearRequests("acct_1999")
	checkBytes(t, tc)
}

// An account's journal is bounded in bytes as well as in entries: its own
// oldest entries go first, never another account's.
func TestJournalBoundedInBytesPerAccount(t *testing.T) {
	tc := NewTestControls(1)
	tc.record("acct_b", JournalEntry{Method: "GET", Path: "/letters"})
	long := "/" + strings.Repeat("a", 60<<10)
	for i := range 10 {
		tc.record("acct_a", JournalEntry{Method: "GET", Path: long + strconv.Itoa(i)})
	}
	got := tc.Requests("acct_a")
	size := 0
	for _, e := range got {
		size += entrySize(e)
	}
	// Exactly as many of the newest as fit: one more would pass the bound.
	if len(got) == 0 || len(got) == 10 || size > maxJournalBytes || size+entrySize(got[0]) <= maxJournalBytes {
		t.Fatalf("journal of %d entries and %d bytes, want as many as fit within %d", len(got), size, maxJournalBytes)
	}
	if last := got[len(got)-1].Path; last != long+"9" {
		t.Errorf("the newest entry went: last is ...%s", last[len(last)-5:])
	}
	if first := got[0].Path; first != long+strconv.Itoa(10-len(got)) {
		t.Errorf("not the oldest entries went: first is ...%s", first[len(first)-5:])
	}
	if len(tc.Requests("acct_b")) != 1 {
		t.Error("another account's journal lost an entry")
	}
	checkBytes(t, tc)
	// A single entry over the bound is kept: the newest always is.
	tc.record("acct_a", JournalEntry{Method: "GET", Path: "/" + strings.Repeat("b", maxJournalBytes)})
	if got := tc.Requests("acct_a"); len(got) != 1 {
		t.Errorf("after an entry over the bound: %d entries, want the newest alone", len(got))
	}
	checkBytes(t, tc)
}

// checkBytes fails unless the controls' count of bytes is what their
// accounts hold, and each account is in the list its faults put it in.
func checkBytes(t *testing.T, tc *TestControls) {
	t.Helper()
	tc.mu.Lock()
	defer tc.mu.Unlock()
	sum := 0
	for _, a := range tc.accounts {
		fb, jb := 0, 0
		for _, f := range a.faults {
			fb += faultSize(f)
		}
		for _, e := range a.journal[a.head:] {
			jb += entrySize(e)
		}
		if fb != a.faultBytes || jb != a.journalBytes {
			t.Fatalf("%s counts %d and %d bytes, holds %d and %d", a.id, a.faultBytes, a.journalBytes, fb, jb)
		}
		if a.inFaulted != (len(a.faults) > 0) {
			t.Fatalf("%s with %d faults is in the wrong list", a.id, len(a.faults))
		}
		sum += a.size()
	}
	if sum != tc.bytes || tc.plain.Len()+tc.faulted.Len() != len(tc.accounts) {
		t.Fatalf("the controls count %d bytes and %d+%d listed accounts, hold %d bytes in %d accounts",
			tc.bytes, tc.plain.Len(), tc.faulted.Len(), sum, len(tc.accounts))
	}
}

// faultsDroppedServer is a server on tc, with a bound small enough to
// drop an account's faults by making others.
func faultsDroppedServer(t *testing.T, tc *TestControls) *httptest.Server {
	t.Helper()
	mc := clock.NewMock()
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc))
	t.Cleanup(func() { svc.Close() })
	srv := httptest.NewServer(New(svc, WithTestClock(mc), WithTestControls(tc), WithRateLimit(0, 0), WithLogger(slog.New(slog.DiscardHandler))))
	t.Cleanup(srv.Close)
	return srv
}

// dropFaults makes faulted accounts until account's faults are dropped.
func dropFaults(t *testing.T, tc *TestControls, account string) {
	t.Helper()
	// Faults would make the account the most recently used: peek instead.
	held := func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		a, ok := tc.accounts[account]
		return ok && len(a.faults) > 0
	}
	for i := 0; held(); i++ {
		if i > 10000 {
			t.Fatal("the faults were never dropped")
		}
		tc.mu.Lock()
		tc.seq++
		other := "acct_other" + strconv.Itoa(tc.seq)
		tc.mu.Unlock()
		if _, err := tc.AddFault(other, Fault{Status: 500}); err != nil {
			t.Fatal(err)
		}
	}
}

func send(t *testing.T, srv *httptest.Server, method, path, key string) (*http.Response, string) {
	t.Helper()
	r, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set(headerAPIKey, key)
	resp, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// An injected answer is the service's own for a request with an API key:
// it carries Cache-Control: no-store and X-Content-Type-Options: nosniff
// as every such answer does (the 410 of dropped faults too), and a status
// without a problem of its own (503, 418, 504) has the code the document
// lists for any other status, http-error, never a name made up from the
// status text.
func TestInjectedAnswersAreTheServices(t *testing.T) {
	tc := NewTestControls(1)
	tc.limit = 32 << 10
	srv := faultsDroppedServer(t, tc)
	const key = "sk_test_injected"
	account := SandboxAccount(key)
	check := func(what string, resp *http.Response, body, code string) {
		t.Helper()
		var p struct{ Code string }
		if err := json.Unmarshal([]byte(body), &p); err != nil || p.Code != code {
			t.Errorf("%s: code %q (%v), want %q: %s", what, p.Code, err, code, body)
		}
		if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: Cache-Control %q, X-Content-Type-Options %q, want no-store and nosniff",
				what, resp.Header.Get("Cache-Control"), resp.Header.Get("X-Content-Type-Options"))
		}
	}
	for _, c := range []struct {
		status int
		code   string
	}{
		{500, "internal"}, {429, "rate-limited"}, {409, "request-in-flight"}, {404, "not-found"}, {400, "invalid-request"},
		{503, "http-error"}, {418, "http-error"}, {504, "http-error"}, {599, "http-error"},
	} {
		if _, err := tc.AddFault(account, Fault{Path: "/letters", Status: c.status, Times: 1}); err != nil {
			t.Fatal(err)
		}
		resp, body := send(t, srv, "GET", "/letters", key)
		if resp.StatusCode != c.status {
			t.Fatalf("injected %d: answered %d %s", c.status, resp.StatusCode, body)
		}
		check(fmt.Sprintf("injected %d", c.status), resp, body, c.code)
	}
	if _, err := tc.AddFault(account, Fault{Path: "/letters", Status: 503, Times: 5}); err != nil {
		t.Fatal(err)
	}
	dropFaults(t, tc, account)
	resp, body := send(t, srv, "GET", "/letters", key)
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("after the faults were dropped: %d %s", resp.StatusCode, body)
	}
	check("faults dropped", resp, body, "faults-dropped")
}

// Faults dropped while they had uses left are not dropped in silence: the
// account's next request is a 410 naming them, once. Clearing the faults
// says the test no longer counts on them.
func TestDroppedFaultsAnswer410(t *testing.T) {
	tc := NewTestControls(1)
	tc.limit = 32 << 10
	srv := faultsDroppedServer(t, tc)
	const key = "sk_test_dropped"
	account := SandboxAccount(key)
	f, err := tc.AddFault(account, Fault{Path: "/letters", Status: 503, Times: 5})
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := send(t, srv, "GET", "/letters", key); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the fault before it was dropped: %d", resp.StatusCode)
	}
	dropFaults(t, tc, account)

	resp, body := send(t, srv, "GET", "/v1/assets", key)
	if resp.StatusCode != http.StatusGone || resp.Header.Get("Content-Type") != problemContentType ||
		!strings.Contains(body, `"code":"faults-dropped"`) || !strings.Contains(body, f.ID) {
		t.Fatalf("the next request after its faults were dropped: %d %s", resp.StatusCode, body)
	}
	if j := tc.Requests(account); len(j) == 0 || j[len(j)-1].Status != http.StatusGone {
		t.Errorf("the 410 is not in the journal: %+v", j)
	}
	if resp, body := send(t, srv, "GET", "/letters", key); resp.StatusCode != http.StatusOK {
		t.Errorf("the request after the 410: %d %s, want 200 (told once)", resp.StatusCode, body)
	}

	// The test routes are told too, but for clearing the faults.
	if _, err := tc.AddFault(account, Fault{Path: "/letters", Status: 503}); err != nil {
		t.Fatal(err)
	}
	dropFaults(t, tc, account)
	if resp, body := send(t, srv, "GET", "/_test/faults", key); resp.StatusCode != http.StatusGone {
		t.Errorf("listing the faults after they were dropped: %d %s, want 410", resp.StatusCode, body)
	}
	if _, err := tc.AddFault(account, Fault{Path: "/letters", Status: 503}); err != nil {
		t.Fatal(err)
	}
	dropFaults(t, tc, account)
	if resp, body := send(t, srv, "POST", "/_test/faults", key); resp.StatusCode != http.StatusGone {
		t.Errorf("adding a fault after they were dropped: %d %s, want 410", resp.StatusCode, body)
	}
	if _, err := tc.AddFault(account, Fault{Path: "/letters", Status: 503}); err != nil {
		t.Fatal(err)
	}
	dropFaults(t, tc, account)
	if resp, body := send(t, srv, "DELETE", "/_test/faults", key); resp.StatusCode != http.StatusNoContent {
		t.Errorf("clearing the faults after they were dropped: %d %s, want 204", resp.StatusCode, body)
	}
	if resp, body := send(t, srv, "GET", "/letters", key); resp.StatusCode != http.StatusOK {
		t.Errorf("a request after clearing: %d %s, want 200", resp.StatusCode, body)
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

// The source of the faults' draws is made by the first fault given a
// probability, not with the controls: most test servers never meet one.
func TestControlsDrawSourceMadeOnFirstUse(t *testing.T) {
	tc := NewTestControls(7)
	if tc.rnd != nil {
		t.Fatal("NewTestControls made the draw source")
	}
	if first := tc.random(); tc.random() != first {
		t.Error("random made a second source")
	}
	if got, want := tc.random().Int63(), rand.New(rand.NewSource(7)).Int63(); got != want {
		t.Errorf("first draw %d, want seed 7's %d", got, want)
	}
}
