package client

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"
)

// TestClient calls the test routes of a lettershop server run with a test
// clock (lettershop --test-clock, or httpadapter.WithTestClock). They act
// in the API key's account, take any valid key, and are served at the
// server's root: a base URL ending in /v1 has it dropped for them. Without
// a test clock the server answers them with ErrNotFound. They are not
// idempotent, so they are retried only on 429.
type TestClient struct {
	c *Client
}

func (t *TestClient) request(method, path string, body any) request {
	return request{
		method: method, path: path, body: body, retry: retryRateLimited,
		url: strings.TrimSuffix(t.c.base, "/v1") + path,
	}
}

// Now reads the time on the account's clock (GET /_test/clock). Each
// account keeps a clock of its own unless the server shares one.
func (t *TestClient) Now(ctx context.Context) (time.Time, error) {
	s, err := t.Clock(ctx)
	return s.Now, err
}

// Clock reads the account's clock (GET /_test/clock).
func (t *TestClient) Clock(ctx context.Context) (ClockState, error) {
	return t.clock(ctx, "GET", "/_test/clock", nil)
}

// Advance moves the account's clock forward by d and returns its new time,
// once every letter step that fell due has run (POST /_test/clock/advance).
// Other accounts' clocks stay where they are.
func (t *TestClient) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	s, err := t.clock(ctx, "POST", "/_test/clock/advance", advanceClockRequest{Duration: d.String()})
	return s.Now, err
}

// SetClock moves the account's clock forward to at, as Advance does
// (POST /_test/clock/set); a time before the clock's is an error.
func (t *TestClient) SetClock(ctx context.Context, at time.Time) (time.Time, error) {
	s, err := t.clock(ctx, "POST", "/_test/clock/set", setClockRequest{Now: at})
	return s.Now, err
}

// Freeze freezes the account's clock, so that it stays put when the
// server's clock moves (POST /_test/clock/freeze), or lets it follow the
// server's clock again from where it stands (POST /_test/clock/unfreeze).
func (t *TestClient) Freeze(ctx context.Context, frozen bool) (ClockState, error) {
	path := "/_test/clock/unfreeze"
	if frozen {
		path = "/_test/clock/freeze"
	}
	return t.clock(ctx, "POST", path, nil)
}

func (t *TestClient) clock(ctx context.Context, method, path string, body any) (ClockState, error) {
	var s ClockState
	if _, err := t.c.call(ctx, t.request(method, path, body), &s); err != nil {
		return ClockState{}, err
	}
	return s, nil
}

// AdvanceLetter moves one letter now to a status or tracking event, through
// every step before it, without moving the clock
// (POST /_test/letters/{id}/advance).
func (t *TestClient) AdvanceLetter(ctx context.Context, id string, in *AdvanceLetterRequest) (*Letter, error) {
	var l Letter
	if _, err := t.c.call(ctx, t.request("POST", "/_test/letters/"+url.PathEscape(id)+"/advance", in), &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// AwaitLetter moves the clock to each next step of the letter in turn
// until it is at (or passed) a status, or has a tracking event, and
// returns it (POST /_test/letters/{id}/await): only as much time passes as
// the letter needs. A letter that will not get there, or not within the
// time asked, is ErrConflict.
func (t *TestClient) AwaitLetter(ctx context.Context, id string, in *AwaitLetterRequest) (*Letter, error) {
	var l Letter
	if _, err := t.c.call(ctx, t.request("POST", "/_test/letters/"+url.PathEscape(id)+"/await", in), &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// LetterText returns the text the letter prints, page after page, each
// row of text on a line of its own (GET /_test/letters/{id}/text): what a
// test checks was printed, without reading the PDF.
func (t *TestClient) LetterText(ctx context.Context, id string) (string, error) {
	resp, err := t.c.call(ctx, t.request("GET", "/_test/letters/"+url.PathEscape(id)+"/text", nil), nil)
	if err != nil {
		return "", err
	}
	return string(resp.body), nil
}

// SettleWebhooks waits, in real time, until every webhook delivery of the
// account that is due on its clock has been attempted and how it went
// recorded (POST /_test/webhooks/settle): a receiver then has every event
// due, so what it did not get was not sent. within is how long to wait (0
// for the server's 30 s, at most 50 s); deliveries still due then are
// ErrConflict.
func (t *TestClient) SettleWebhooks(ctx context.Context, within time.Duration) error {
	var body any
	if within > 0 {
		body = &settleWebhooksRequest{Within: within.String()}
	}
	_, err := t.c.call(ctx, t.request("POST", "/_test/webhooks/settle", body), nil)
	return err
}

// RegisterMove files a change of address for NCOA (POST /_test/moves).
func (t *TestClient) RegisterMove(ctx context.Context, m *Move) error {
	_, err := t.c.call(ctx, t.request("POST", "/_test/moves", m), nil)
	return err
}

// AddFault adds a fault to the account's requests and returns it with its
// id (POST /_test/faults).
func (t *TestClient) AddFault(ctx context.Context, f *Fault) (*Fault, error) {
	var out Fault
	if _, err := t.c.call(ctx, t.request("POST", "/_test/faults", f), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Faults returns the account's faults in force (GET /_test/faults).
func (t *TestClient) Faults(ctx context.Context) ([]Fault, error) {
	var out FaultList
	if _, err := t.c.call(ctx, t.request("GET", "/_test/faults", nil), &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// ClearFaults removes the account's faults (DELETE /_test/faults).
func (t *TestClient) ClearFaults(ctx context.Context) error {
	_, err := t.c.call(ctx, t.request("DELETE", "/_test/faults", nil), nil)
	return err
}

// Requests returns the account's journal, oldest first: its last requests
// other than to the test routes (GET /_test/requests).
func (t *TestClient) Requests(ctx context.Context) ([]JournalEntry, error) {
	var out RequestJournal
	if _, err := t.c.call(ctx, t.request("GET", "/_test/requests", nil), &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// ClearRequests empties the account's journal (DELETE /_test/requests).
func (t *TestClient) ClearRequests(ctx context.Context) error {
	_, err := t.c.call(ctx, t.request("DELETE", "/_test/requests", nil), nil)
	return err
}

// Snapshot returns the account's records (assets, versions and their
// content, letters, webhooks with their secrets) and its clock, as the
// server keeps them (GET /_test/snapshot): a document of format
// lettershop-snapshot/1 to keep as it is (a fixture for lettershop --seed)
// and give to RestoreSnapshot, not to read or write by hand. Take it while
// nothing else writes to the account; it takes a key with every scope.
func (t *TestClient) Snapshot(ctx context.Context) (json.RawMessage, error) {
	resp, err := t.c.call(ctx, t.request("GET", "/_test/snapshot", nil), nil)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(resp.body), nil
}

// ResetAccount empties the account (DELETE /_test/account): its letters,
// assets, webhooks, idempotency keys, moves, faults and journal go, and
// their ids are ErrNotFound after; its clock stays where it stands. A
// suite whose tests share one key resets the account, then restores its
// fixture (RestoreSnapshot), before each test. It takes a key with every
// scope; a server whose store can not erase an account answers
// ErrConflict.
func (t *TestClient) ResetAccount(ctx context.Context) error {
	_, err := t.c.call(ctx, t.request("DELETE", "/_test/account", nil), nil)
	return err
}

// RestoreSnapshot writes a snapshot into the account, which must have no
// records (ErrConflict otherwise: ResetAccount empties it), and moves its clock forward to the
// snapshot's (PUT /_test/snapshot). Every id is replaced by a fresh one,
// so one snapshot restores into any number of accounts, unless keepIDs
// (ErrConflict when the store holds them already). It returns each id of
// the snapshot mapped to the id it was restored with.
func (t *TestClient) RestoreSnapshot(ctx context.Context, snapshot []byte, keepIDs bool) (map[string]string, error) {
	r := t.request("PUT", "/_test/snapshot", nil)
	r.raw, r.contentType = snapshot, "application/json"
	if keepIDs {
		r.query = url.Values{"keepIds": {"true"}}
	}
	var out struct {
		IDs map[string]string `json:"ids"`
	}
	if _, err := t.c.call(ctx, r, &out); err != nil {
		return nil, err
	}
	return out.IDs, nil
}
