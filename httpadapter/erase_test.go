package httpadapter_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// items is a list's answer, its items undecoded.
type items struct {
	Items []map[string]any `json:"items"`
}

func (ts *testServer) count(t *testing.T, key, path string) int {
	t.Helper()
	var l items
	ts.do(t, req{Method: "GET", Path: path, Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusOK).decode(t, &l)
	return len(l.Items)
}

// TestEraseAccountRoute: DELETE /_test/account empties the key's account
// (records, idempotency keys, moves, faults, journal), leaves another
// account as it was, and a snapshot then restores into it where it was
// refused before.
func TestEraseAccountRoute(t *testing.T) {
	ts := newTestServer(t)
	type made struct{ asset, version, letter, webhook string }
	fill := func(key string) made {
		var m made
		m.asset, m.version = ts.createAsset(t, key)
		var l lettershop.Letter
		ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(m.asset), Header: hdr("X-Api-Key", key, "Idempotency-Key", "welcome-1")}).
			wantStatus(t, http.StatusCreated).decode(t, &l)
		m.letter = l.ID
		var w struct{ ID string }
		ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": "https://example.com/hook"}, Header: hdr("X-Api-Key", key)}).
			wantStatus(t, http.StatusCreated).decode(t, &w)
		m.webhook = w.ID
		ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: `{"path":"/nothing/*","status":503}`, Header: hdr("X-Api-Key", key)}).
			wantStatus(t, http.StatusCreated)
		move := `{"from":{"addressLine1":"200 Oak Ave","lastLine":"Chicago, IL 60601"},"to":{"addressLine1":"9 Elm St","lastLine":"Evanston, IL 60201"}}`
		ts.do(t, req{Method: "POST", Path: "/_test/moves", Body: move, Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusNoContent)
		return m
	}
	a, b := fill(keyA), fill(keyB)
	var snap map[string]any
	ts.get(t, "/_test/snapshot").wantStatus(t, http.StatusOK).decode(t, &snap)
	// The account has records: a restore is refused, as before.
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap}).problem(t, http.StatusConflict)
	clockBefore := ts.clockOf(t, keyA)
	journalB := ts.count(t, keyB, "/_test/requests")

	ts.do(t, req{Method: "DELETE", Path: "/_test/account?all=true"}).problem(t, http.StatusBadRequest)
	ts.do(t, req{Method: "DELETE", Path: "/_test/account"}).wantStatus(t, http.StatusNoContent)

	// The journal and faults first: the reads below go into the journal.
	if n := ts.count(t, keyA, "/_test/requests"); n != 0 {
		t.Errorf("the journal holds %d entries after the erase, want none", n)
	}
	if n := ts.count(t, keyA, "/_test/faults"); n != 0 {
		t.Errorf("%d faults after the erase, want none", n)
	}
	for _, path := range []string{
		"/letters/" + a.letter, "/assets/" + a.asset, "/assets/" + a.asset + "/versions/" + a.version,
		"/webhooks/" + a.webhook, "/webhooks/" + a.webhook + "/deliveries", "/letters/" + a.letter + "/download",
	} {
		ts.do(t, req{Method: "GET", Path: path}).problem(t, http.StatusNotFound)
	}
	for _, path := range []string{"/letters", "/assets", "/webhooks"} {
		if n := ts.count(t, keyA, path); n != 0 {
			t.Errorf("GET %s: %d items after the erase, want none", path, n)
		}
	}
	if c := ts.clockOf(t, keyA); c != clockBefore {
		t.Errorf("the clock after the erase %+v, want %+v", c, clockBefore)
	}
	// The idempotency key is free: the same request makes a letter anew,
	// and the move is gone: the recipient stays where it was.
	asset, _ := ts.createAsset(t, keyA)
	var again lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(asset), Header: hdr("Idempotency-Key", "welcome-1")}).
		wantStatus(t, http.StatusCreated).decode(t, &again)
	if again.ID == a.letter {
		t.Errorf("the request after the erase replayed the letter made before it")
	}
	body := letterBody(asset)
	body["options"] = map[string]any{"addressProcessing": map[string]any{"ncoaRecipient": "newAddress"}}
	var forwarded lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/letters", Body: body}).wantStatus(t, http.StatusCreated).decode(t, &forwarded)
	if forwarded.Recipient.Address.AddressLine1 != "200 Oak Ave" {
		t.Errorf("a move registered before the erase forwarded the recipient: %+v", forwarded.Recipient.Address)
	}

	// The other account has everything still.
	for _, path := range []string{"/letters/" + b.letter, "/assets/" + b.asset, "/webhooks/" + b.webhook} {
		ts.do(t, req{Method: "GET", Path: path, Header: hdr("X-Api-Key", keyB)}).wantStatus(t, http.StatusOK)
	}
	if n := ts.count(t, keyB, "/_test/faults"); n != 1 {
		t.Errorf("the other account has %d faults, want 1", n)
	}
	if n := ts.count(t, keyB, "/_test/requests"); n < journalB {
		t.Errorf("the other account's journal holds %d entries, had %d", n, journalB)
	}

	// Emptied again, the account takes the snapshot of itself, its ids
	// kept, and serves the letter as it was.
	ts.do(t, req{Method: "DELETE", Path: "/_test/account"}).wantStatus(t, http.StatusNoContent)
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot?keepIds=true", Body: snap}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: "/letters/" + a.letter}).wantStatus(t, http.StatusOK)
	if n := ts.count(t, keyA, "/letters"); n != 1 {
		t.Errorf("%d letters restored, want 1", n)
	}
}

// A server whose store can not erase an account answers 409, not 500,
// and forgets nothing of the account.
func TestEraseAccountRouteWithoutEraser(t *testing.T) {
	mc := clock.NewMock()
	mc.Set(testStart)
	svc := lettershop.New(plainStore{memstore.New()}, lettershop.WithClock(mc))
	srv := httptest.NewServer(httpadapter.New(svc, httpadapter.WithTestClock(mc)))
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	ts := &testServer{Server: srv, Svc: svc, Clock: mc}
	ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: `{"path":"/nothing/*","status":503}`}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "DELETE", Path: "/_test/account"}).problem(t, http.StatusConflict)
	if n := ts.count(t, keyA, "/_test/faults"); n != 1 {
		t.Errorf("%d faults after a refused erase, want 1", n)
	}
}

// plainStore is a store with storage.Storage's methods only.
type plainStore struct{ storage.Storage }
