package pgstore_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// sameReply fails unless replay is first, byte for byte, with its headers,
// and marked replayed.
func sameReply(t *testing.T, what string, first, replay reply) {
	t.Helper()
	if replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("%s: the replay is not marked replayed: %d %s", what, replay.status, replay.body)
	}
	if first.status != replay.status || !bytes.Equal(first.body, replay.body) {
		t.Errorf("%s: replay %d %s\nwant %d %s", what, replay.status, replay.body, first.status, first.body)
	}
	for _, h := range []string{"Content-Type", "Location", "Content-Length"} {
		if first.header.Get(h) != replay.header.Get(h) {
			t.Errorf("%s: replay %s %q, want %q", what, h, replay.header.Get(h), first.header.Get(h))
		}
	}
}

// TestHTTPReplayFromTheDatabase: what one server stores of an answer,
// another replays byte for byte: a letter's create and update after the
// letter has moved on to mailed, an asset's create, an error. A webhook's
// create is replayed without its secret, which the database keeps in the
// webhook's row only.
func TestHTTPReplayFromTheDatabase(t *testing.T) {
	schema, a, b := twoHTTPServers(t)
	assetID := httpAsset(t, a, b)
	key := func(k string) []string { return []string{"Idempotency-Key", k} }

	create := a.do(t, "POST", "/v1/letters", httpLetterBody(assetID), key("letter")...).want(t, "create letter", http.StatusCreated)
	var l struct{ ID string }
	create.decode(t, &l)
	update := b.do(t, "PUT", "/v1/letters/"+l.ID, `{"description":"once"}`, key("update")...).want(t, "update letter", http.StatusOK)
	asset := a.do(t, "POST", "/v1/assets", `{"name":"Again","type":"template"}`, key("asset")...).want(t, "create asset", http.StatusCreated)
	bad := a.do(t, "POST", "/v1/assets", `{"name":"Again","type":"nonsense"}`, key("bad")...).want(t, "bad asset", http.StatusBadRequest)
	if _, err := a.svc.Simulate(t.Context(), httpadapter.SandboxAccount(apiKey), l.ID, lettershop.SimulateTarget{Status: lettershop.StatusMailed}); err != nil {
		t.Fatal(err)
	}
	sameReply(t, "create letter", create, b.do(t, "POST", "/v1/letters", httpLetterBody(assetID), key("letter")...))
	sameReply(t, "update letter", update, a.do(t, "PUT", "/v1/letters/"+l.ID, `{"description":"once"}`, key("update")...))
	sameReply(t, "create asset", asset, b.do(t, "POST", "/v1/assets", `{"name":"Again","type":"template"}`, key("asset")...))
	sameReply(t, "bad asset", bad, b.do(t, "POST", "/v1/assets", `{"name":"Again","type":"nonsense"}`, key("bad")...))

	hook := a.do(t, "POST", "/v1/webhooks", `{"url":"https://example.com/hook"}`, key("hook")...).want(t, "create webhook", http.StatusCreated)
	var w struct{ ID, Secret string }
	hook.decode(t, &w)
	replay := b.do(t, "POST", "/v1/webhooks", `{"url":"https://example.com/hook"}`, key("hook")...).want(t, "replay webhook", http.StatusCreated)
	if w.Secret == "" || bytes.Contains(replay.body, []byte(w.Secret)) {
		t.Errorf("the replay shows the secret %q: %s", w.Secret, replay.body)
	}
	conn := adminConn(t, schema)
	var inOutcomes, inWebhooks int
	if err := conn.QueryRow(t.Context(), `SELECT
		(SELECT count(*) FROM idempotency WHERE position(convert_to($1, 'UTF8') IN result) > 0),
		(SELECT count(*) FROM webhooks WHERE secret = $1)`, w.Secret).Scan(&inOutcomes, &inWebhooks); err != nil {
		t.Fatal(err)
	}
	if inOutcomes != 0 || inWebhooks != 1 {
		t.Errorf("the secret is in %d stored outcomes and %d webhooks, want 0 and 1", inOutcomes, inWebhooks)
	}
	// The letter's row: its stored outcome is what the answer was made
	// from, compressed, not the answer.
	var row, result int
	if err := conn.QueryRow(t.Context(), `SELECT pg_column_size(i.*), octet_length(result) FROM idempotency i WHERE key = 'letter'`).
		Scan(&row, &result); err != nil {
		t.Fatal(err)
	}
	t.Logf("a letter's outcome: a row of %d bytes, of which the outcome %d; the answer is %d bytes", row, result, len(create.body))
	if result >= len(create.body)/2 {
		t.Errorf("the stored outcome takes %d bytes, the answer %d", result, len(create.body))
	}
}
