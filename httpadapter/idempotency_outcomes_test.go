package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
)

// TestReplayOfALetterThatMovedOn: a create's replay is the first answer,
// byte for byte (status, headers, body), after the letter has moved on to
// mailed; so is an update's, after the letter changed again.
func TestReplayOfALetterThatMovedOn(t *testing.T) {
	for _, prefix := range []string{"", "/v1"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			ts := newTestServer(t)
			assetID, _ := ts.createAsset(t, keyA)
			create := req{Method: "POST", Path: prefix + "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "moves-on")}
			first := ts.do(t, create).wantStatus(t, http.StatusCreated)
			var l lettershop.Letter
			first.decode(t, &l)
			update := req{Method: "PUT", Path: prefix + "/letters/" + l.ID, Body: `{"description":"first"}`, Header: hdr("Idempotency-Key", "update-once")}
			updated := ts.do(t, update).wantStatus(t, http.StatusOK)

			ts.Clock.Add(3 * 24 * time.Hour / 4) // 18 h: within the day the keys are kept
			ts.do(t, req{Method: "POST", Path: "/_test/letters/" + l.ID + "/advance", Body: `{"status":"mailed"}`}).wantStatus(t, http.StatusOK)
			var now lettershop.Letter
			ts.do(t, req{Method: "GET", Path: "/letters/" + l.ID}).wantStatus(t, http.StatusOK).decode(t, &now)
			if now.Status != lettershop.StatusMailed || len(now.Events) <= len(l.Events) {
				t.Fatalf("the letter did not move on: %s, %d events", now.Status, len(now.Events))
			}
			sameResponse(t, first, ts.do(t, create))
			sameResponse(t, updated, ts.do(t, update))
			if !strings.Contains(string(first.Body), `"status":"queued"`) {
				t.Errorf("the first answer shows no queued letter: %.200s", first.Body)
			}
		})
	}
}

// TestWebhookSecretIsShownOnce: the create's answer shows the secret; its
// replay answers as the first did but without it, as a read does.
func TestWebhookSecretIsShownOnce(t *testing.T) {
	ts := newTestServer(t)
	create := req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": "https://example.com/hook"}, Header: hdr("Idempotency-Key", "hook-1")}
	first := ts.do(t, create).wantStatus(t, http.StatusCreated)
	replay := ts.do(t, create).wantStatus(t, http.StatusCreated)
	var a, b map[string]any
	first.decode(t, &a)
	replay.decode(t, &b)
	secret, _ := a["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the first answer shows no secret: %s", first.Body)
	}
	if strings.Contains(string(replay.Body), secret) || b["secret"] != nil {
		t.Errorf("the replay shows the secret: %s", replay.Body)
	}
	if replay.Header.Get("Idempotent-Replayed") != "true" || replay.Header.Get("Location") != first.Header.Get("Location") {
		t.Errorf("replay headers %v, want those of the first answer, replayed", replay.Header)
	}
	delete(a, "secret")
	wantJSON, _ := json.Marshal(a)
	gotJSON, _ := json.Marshal(b)
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("replay %s, want the first answer without its secret %s", gotJSON, wantJSON)
	}
	var fetched map[string]any
	loc, err := url.Parse(first.Header.Get("Location"))
	if err != nil || !loc.IsAbs() {
		t.Fatalf("Location %q: want an absolute URL (%v)", first.Header.Get("Location"), err)
	}
	ts.do(t, req{Method: "GET", Path: loc.Path}).wantStatus(t, http.StatusOK).decode(t, &fetched)
	fetchedJSON, _ := json.Marshal(fetched)
	if string(fetchedJSON) != string(gotJSON) {
		t.Errorf("replay %s, want it as GET shows the webhook %s", gotJSON, fetchedJSON)
	}
}

// TestIdempotencyBytesBound: an account's stored outcomes are bounded in
// bytes. At the bound every key replays; one byte under what they take,
// the oldest failure goes (its key runs again, and is kept as the newest),
// and the success stays.
func TestIdempotencyBytesBound(t *testing.T) {
	fail := func(ts *testServer, key string) result {
		ts.Clock.Add(time.Second) // each outcome older than the next
		return ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"x","type":"nonsense"}`, Header: hdr("Idempotency-Key", key)})
	}
	succeed := func(ts *testServer, key string) result {
		ts.Clock.Add(time.Second)
		return ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"kept","type":"template"}`, Header: hdr("Idempotency-Key", key)})
	}
	replayed := func(r result) bool { return r.Header.Get("Idempotent-Replayed") == "true" }
	// What three failures and one success take, as the store counts them:
	// each answer's bytes and a fixed part.
	measure := newTestServer(t)
	size := func(r result) int64 {
		return int64(len(r.Body) + len(r.Header.Get("Location")) + len(r.Header.Get("Content-Type")) + 64)
	}
	total := 3*size(fail(measure, "f0").wantStatus(t, http.StatusBadRequest)) + size(succeed(measure, "s0").wantStatus(t, http.StatusCreated))

	t.Run("at the bound", func(t *testing.T) {
		ts := newTestServer(t, withService(lettershop.WithIdempotencyBytes(total)))
		s0 := succeed(ts, "s0").wantStatus(t, http.StatusCreated)
		for _, k := range []string{"f0", "f1", "f2"} {
			fail(ts, k).wantStatus(t, http.StatusBadRequest)
		}
		for _, k := range []string{"f0", "f1", "f2"} {
			if !replayed(fail(ts, k)) {
				t.Errorf("%s was not kept", k)
			}
		}
		sameResponse(t, s0, succeed(ts, "s0"))
	})
	t.Run("a byte under", func(t *testing.T) {
		ts := newTestServer(t, withService(lettershop.WithIdempotencyBytes(total-1)))
		s0 := succeed(ts, "s0").wantStatus(t, http.StatusCreated)
		for _, k := range []string{"f0", "f1", "f2"} {
			fail(ts, k).wantStatus(t, http.StatusBadRequest)
		}
		if replayed(fail(ts, "f0")) {
			t.Errorf("the oldest failure was kept")
		}
		// f0, run again, is the newest: f1 made room for it.
		if !replayed(fail(ts, "f2")) || !replayed(fail(ts, "f0")) {
			t.Errorf("the newer failures were not kept")
		}
		if replayed(fail(ts, "f1")) {
			t.Errorf("f1, then the oldest failure, was kept")
		}
		sameResponse(t, s0, succeed(ts, "s0"))
	})
}
