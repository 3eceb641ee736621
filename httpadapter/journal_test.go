package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lettershop/lettershop/httpadapter"
)

type journalBody struct {
	Items []struct {
		Time           string `json:"time"`
		Method         string `json:"method"`
		Path           string `json:"path"`
		Status         int    `json:"status"`
		IdempotencyKey string `json:"idempotencyKey"`
		Replayed       bool   `json:"replayed"`
		RequestBytes   int64  `json:"requestBytes"`
		ResponseBytes  int64  `json:"responseBytes"`
		RequestID      string `json:"requestId"`
		Fault          string `json:"fault"`
	} `json:"items"`
}

func (ts *testServer) journal(t testing.TB, key string) journalBody {
	t.Helper()
	var j journalBody
	ts.do(t, req{Method: "GET", Path: "/_test/requests", Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusOK).decode(t, &j)
	return j
}

// TestJournalRetry: a test can see that its client retried with the same
// Idempotency-Key after a lost answer.
func TestJournalRetry(t *testing.T) {
	ts := newTestServer(t)
	f := ts.addFault(t, keyA, `{"method":"POST","path":"/assets","afterWrite":true,"times":1}`)
	keyed := req{Method: "POST", Path: "/v1/assets", Body: `{"name":"Invoice"}`, Header: hdr("Idempotency-Key", "inv-1")}
	ts.do(t, keyed)
	created := ts.do(t, keyed)
	ts.clockAdvance(t)
	ts.do(t, req{Method: "GET", Path: "/assets", Header: hdr("X-Api-Key", keyB)})

	j := ts.journal(t, keyA)
	if len(j.Items) != 2 {
		t.Fatalf("journal %+v, want the two POSTs and not the test routes", j.Items)
	}
	first, retry := j.Items[0], j.Items[1]
	if first.Method != "POST" || first.Path != "/v1/assets" || first.Status != 500 || first.Fault != f.ID ||
		first.IdempotencyKey != "inv-1" || first.RequestBytes != int64(len(`{"name":"Invoice"}`)) || first.Time != "2026-03-02T15:00:00Z" {
		t.Errorf("first %+v", first)
	}
	if retry.Status != 201 || !retry.Replayed || retry.IdempotencyKey != first.IdempotencyKey || retry.Fault != "" ||
		retry.ResponseBytes != int64(len(created.Body)) || retry.RequestID != created.Header.Get("X-Request-Id") {
		t.Errorf("retry %+v", retry)
	}
	if b := ts.journal(t, keyB); len(b.Items) != 1 || b.Items[0].Method != "GET" {
		t.Errorf("B's journal %+v", b.Items)
	}

	ts.do(t, req{Method: "DELETE", Path: "/_test/requests"}).wantStatus(t, http.StatusNoContent)
	if j := ts.journal(t, keyA); len(j.Items) != 0 {
		t.Errorf("journal after DELETE: %+v", j.Items)
	}
}

func (ts *testServer) clockAdvance(t testing.TB) {
	t.Helper()
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`}).wantStatus(t, http.StatusOK)
}

// TestJournalKeepsTheLast: the journal is a ring of JournalSize, oldest first.
func TestJournalKeepsTheLast(t *testing.T) {
	tc := httpadapter.NewTestControls(1)
	ts := newTestServer(t, withAdapter(httpadapter.WithTestControls(tc)))
	for range httpadapter.JournalSize + 3 {
		ts.get(t, "/assets")
	}
	ts.get(t, "/letters")
	got := tc.Requests(httpadapter.SandboxAccount(keyA))
	if len(got) != httpadapter.JournalSize || got[len(got)-1].Path != "/letters" || got[0].Path != "/assets" {
		t.Errorf("%d entries, last %+v", len(got), got[len(got)-1])
	}
}

// TestJournalWithoutAKey: requests without a valid key are in no journal.
func TestJournalWithoutAKey(t *testing.T) {
	tc := httpadapter.NewTestControls(1)
	ts := newTestServer(t, withAdapter(httpadapter.WithTestControls(tc)))
	ts.do(t, req{Method: "GET", Path: "/assets", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusUnauthorized)
	ts.do(t, req{Method: "GET", Path: "/assets", Header: hdr("X-Api-Key", "nope")}).problem(t, http.StatusUnauthorized)
	if got := tc.Requests(httpadapter.SandboxAccount(keyA)); len(got) != 0 {
		t.Errorf("journal %+v", got)
	}
}

func TestTestListsTakeNoQuery(t *testing.T) {
	ts := newTestServer(t, unchecked())
	ts.get(t, "/_test/requests?limit=5").problem(t, http.StatusBadRequest).wantFields(t, "limit")
	ts.get(t, "/_test/faults?b=1&a=2").problem(t, http.StatusBadRequest).wantFields(t, "a")
	ts.get(t, "/_test/faults?%zz").problem(t, http.StatusBadRequest).wantFields(t, "query")
}

// TestJournalTakesEveryReadScope: the journal names the account's letters,
// assets and webhooks, so reading it takes a key that may read all three;
// a key short of any of them is a 403, whatever else it may do.
func TestJournalTakesEveryReadScope(t *testing.T) {
	ts := newTestServer(t)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"Invoice"}`}).wantStatus(t, http.StatusCreated)
	for _, key := range []string{
		keyA + "@letters:read,letters:write,assets:read,assets:write,webhooks:write",
		keyA + "@letters:read,webhooks:read",
		keyA + "@assets:read,webhooks:read,webhooks:write",
		keyA + "@webhooks:read",
	} {
		r := ts.do(t, req{Method: "GET", Path: "/_test/requests", Header: hdr("X-Api-Key", key)})
		if r.Status != http.StatusForbidden {
			t.Errorf("GET /_test/requests with %q: %d, want 403; body: %.300s", key, r.Status, r.Body)
		}
	}
	if j := ts.journal(t, keyA+"@letters:read,assets:read,webhooks:read"); len(j.Items) == 0 || j.Items[0].Path != "/assets" {
		t.Errorf("journal with the three read scopes: %+v, want the POST /assets", j.Items)
	}
}

// TestFaultListTakesEveryReadScope: the faults, like the journal, name
// requests to any route, so listing them takes the three read scopes; a
// key short of any of them is a 403, even one that may add faults.
func TestFaultListTakesEveryReadScope(t *testing.T) {
	ts := newTestServer(t)
	ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: `{"path":"/letters/*","status":503}`}).wantStatus(t, http.StatusCreated)
	for _, key := range []string{
		keyA + "@letters:read,letters:write,assets:read,assets:write,webhooks:write",
		keyA + "@letters:read,webhooks:read",
		keyA + "@assets:read,webhooks:read,webhooks:write",
		keyA + "@letters:write",
	} {
		r := ts.do(t, req{Method: "GET", Path: "/_test/faults", Header: hdr("X-Api-Key", key)})
		if r.Status != http.StatusForbidden {
			t.Errorf("GET /_test/faults with %q: %d, want 403; body: %.300s", key, r.Status, r.Body)
		}
	}
	r := ts.do(t, req{Method: "GET", Path: "/_test/faults", Header: hdr("X-Api-Key", keyA+"@letters:read,assets:read,webhooks:read")})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"/letters/*"`) {
		t.Errorf("GET /_test/faults with the three read scopes: %d %.300s, want 200 with the fault", r.Status, r.Body)
	}
}
