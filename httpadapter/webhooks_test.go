package httpadapter_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/webhook"
)

type webhookBody struct {
	ID     string   `json:"id"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Status string   `json:"status"`
	Secret string   `json:"secret"`
}

type deliveryBody struct {
	ID            string  `json:"id"`
	Type          string  `json:"type"`
	Status        string  `json:"status"`
	Attempt       int     `json:"attempt"`
	StatusCode    *int    `json:"statusCode"`
	Error         *string `json:"error"`
	NextAttemptAt *string `json:"nextAttemptAt"`
}

// hookSink is a receiver that keeps every event body it is sent.
type hookSink struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	sigs   []string
	fail   bool
}

func newHookSink(t *testing.T) *hookSink {
	s := &hookSink{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.bodies = append(s.bodies, b)
		s.sigs = append(s.sigs, r.Header.Get(webhook.SignatureHeader))
		if s.fail {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hookSink) wait(t *testing.T, n int) ([][]byte, []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		if len(s.bodies) >= n {
			defer s.mu.Unlock()
			return s.bodies, s.sigs
		}
		s.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %d events", n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// The webhook routes over HTTP, end to end: made, used, listed, changed,
// their deliveries read and retried, deleted.
func TestWebhookRoutes(t *testing.T) {
	ts := newTestServer(t)
	sink := newHookSink(t)
	var w webhookBody
	res := ts.do(t, req{Method: "POST", Path: "/v1/webhooks", Body: map[string]any{"url": sink.URL, "events": []string{"letter.created", "letter.mailed"}}})
	res.wantStatus(t, http.StatusCreated).decode(t, &w)
	if !strings.HasPrefix(w.ID, "wh_") || !strings.HasPrefix(w.Secret, "whsec_") || w.Status != "enabled" {
		t.Fatalf("created %+v", w)
	}
	if loc := res.Header.Get("Location"); loc != testBaseURL+"/v1/webhooks/"+w.ID {
		t.Errorf("Location %q", loc)
	}
	var got webhookBody
	ts.get(t, "/webhooks/"+w.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Secret != "" || got.URL != sink.URL {
		t.Errorf("fetched %+v, want it without the secret", got)
	}
	// Another account does not see it.
	ts.do(t, req{Method: "GET", Path: "/webhooks/" + w.ID, Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "DELETE", Path: "/webhooks/" + w.ID, Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "GET", Path: "/webhooks/" + w.ID + "/deliveries", Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)

	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	ts.do(t, req{Method: "POST", Path: "/_test/letters/" + l.ID + "/advance", Body: `{"status":"mailed"}`}).wantStatus(t, http.StatusOK)
	bodies, sigs := sink.wait(t, 2)
	for i, b := range bodies {
		if err := webhook.Verify(w.Secret, sigs[i], b, time.Minute); err != nil {
			t.Errorf("event %d: %v", i, err)
		}
	}
	var ev struct {
		Type string `json:"type"`
		Data struct {
			Object lettershop.Letter `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(bodies[1], &ev); err != nil || ev.Type != "letter.mailed" || ev.Data.Object.Status != lettershop.StatusMailed {
		t.Errorf("second event %s: %v", bodies[1], err)
	}

	var page struct {
		Items []deliveryBody `json:"items"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ts.get(t, "/webhooks/"+w.ID+"/deliveries").wantStatus(t, http.StatusOK).decode(t, &page)
		if len(page.Items) == 2 && page.Items[0].Status == "succeeded" && page.Items[1].Status == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries %+v", page.Items)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if d := page.Items[0]; d.Type != "letter.mailed" || d.Attempt != 1 || *d.StatusCode != 200 || d.Error != nil || d.NextAttemptAt != nil {
		t.Errorf("newest delivery %+v", d)
	}
	var retried deliveryBody
	ts.do(t, req{Method: "POST", Path: "/webhooks/" + w.ID + "/deliveries/" + page.Items[1].ID + "/retry"}).
		wantStatus(t, http.StatusAccepted).decode(t, &retried)
	if retried.Status != "pending" || retried.NextAttemptAt == nil {
		t.Errorf("retried %+v", retried)
	}
	sink.wait(t, 3)
	ts.do(t, req{Method: "POST", Path: "/webhooks/" + w.ID + "/deliveries/dlv_none/retry"}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "POST", Path: "/webhooks/" + w.ID + "/deliveries/evt_1/retry"}).problem(t, http.StatusBadRequest).wantFields(t, "deliveryId")

	var updated webhookBody
	ts.do(t, req{Method: "PUT", Path: "/webhooks/" + w.ID, Body: map[string]any{"id": w.ID, "status": "disabled", "url": sink.URL}}).
		wantStatus(t, http.StatusOK).decode(t, &updated)
	if updated.Status != "disabled" {
		t.Errorf("updated %+v", updated)
	}
	var list struct {
		Items []webhookBody `json:"items"`
	}
	ts.get(t, "/webhooks?pageSize=5").wantStatus(t, http.StatusOK).decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].ID != w.ID || list.Items[0].Secret != "" {
		t.Errorf("list %+v", list.Items)
	}
	ts.do(t, req{Method: "DELETE", Path: "/webhooks/" + w.ID}).wantStatus(t, http.StatusNoContent)
	ts.get(t, "/webhooks/"+w.ID).problem(t, http.StatusNotFound)
}

func TestWebhookRouteProblems(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "url"},
		{map[string]any{"url": "ftp://example.com"}, "url"},
		{map[string]any{"url": "https://example.com", "events": []string{"letter.lost"}}, "events[0]"},
		{map[string]any{"url": "https://example.com", "secret": "whsec_mine"}, "secret"},
		{map[string]any{"url": "https://example.com", "secret": "whsec_" + strings.Repeat("a", 15)}, "secret"},
		{map[string]any{"url": "https://example.com", "secret": "whsec_" + strings.Repeat("a", 101)}, "secret"},
		{map[string]any{"url": "https://example.com", "secret": "whsec_" + strings.Repeat("a", 15) + "!"}, "secret"},
		{map[string]any{"url": "https://example.com", "secret": strings.Repeat("a", 22)}, "secret"},
		{map[string]any{"url": 7}, "url"},
	} {
		ts.do(t, req{Method: "POST", Path: "/webhooks", Body: tc.body}).problem(t, http.StatusBadRequest).wantFields(t, tc.field)
	}
	ts.get(t, "/webhooks/ast_1").problem(t, http.StatusBadRequest).wantFields(t, "id")
	ts.get(t, "/webhooks?limit=3").problem(t, http.StatusBadRequest).wantFields(t, "limit")
	ts.get(t, "/webhooks/wh_1/deliveries?status=failed").problem(t, http.StatusBadRequest).wantFields(t, "status")
	var w webhookBody
	ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": "https://example.com/in"}}).wantStatus(t, http.StatusCreated).decode(t, &w)
	ts.do(t, req{Method: "PUT", Path: "/webhooks/" + w.ID, Body: map[string]any{"secret": "whsec_guess"}}).
		problem(t, http.StatusBadRequest).wantFields(t, "secret")
	ts.do(t, req{Method: "PUT", Path: "/webhooks/" + w.ID, Body: map[string]any{"status": "paused"}}).
		problem(t, http.StatusBadRequest).wantFields(t, "status")
	// Sent back with its secret, as made: no change.
	ts.do(t, req{Method: "PUT", Path: "/webhooks/" + w.ID, Body: map[string]any{"secret": w.Secret, "id": w.ID}}).wantStatus(t, http.StatusOK)
}

// A test key chooses its webhook's secret, at both bounds of its length;
// a live key may not, whatever the secret.
func TestWebhookChosenSecret(t *testing.T) {
	ts := newTestServer(t)
	for _, secret := range []string{"whsec_" + strings.Repeat("a", 16), "whsec_" + strings.Repeat("Z9-_", 25)} {
		var w webhookBody
		ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": "https://example.com/in", "secret": secret}}).
			wantStatus(t, http.StatusCreated).decode(t, &w)
		if w.Secret != secret {
			t.Errorf("secret %q, want the one chosen, %q", w.Secret, secret)
		}
	}
	live := scopedServer(t)
	live.do(t, req{Method: "POST", Path: "/webhooks", Header: hdr("X-Api-Key", "full"),
		Body: map[string]any{"url": "https://example.com/in", "secret": "whsec_" + strings.Repeat("a", 16)}}).
		problem(t, http.StatusBadRequest).wantFields(t, "secret")
	var page struct{ Items []webhookBody }
	live.do(t, req{Method: "GET", Path: "/webhooks", Header: hdr("X-Api-Key", "full")}).wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 0 {
		t.Errorf("a refused webhook was made: %+v", page.Items)
	}
}

// Whether a key may choose a secret is the authenticator's answer
// (Principal.Test), not the key's spelling: a key an authenticator calls a
// test key may, whatever it looks like; a key that looks like a test key
// but is not called one may not.
func TestWebhookChosenSecretByPrincipal(t *testing.T) {
	auth := authFunc(func(_ context.Context, key string) (httpadapter.Principal, error) {
		switch key {
		case "ci-key":
			return httpadapter.Principal{Account: "a", Scopes: httpadapter.AllScopes, Test: true}, nil
		case "sk_test_but_live":
			return httpadapter.Principal{Account: "b", Scopes: httpadapter.AllScopes}, nil
		}
		return httpadapter.Principal{}, httpadapter.ErrUnknownKey
	})
	ts := newTestServer(t, withAdapter(httpadapter.WithAuthenticator(auth)))
	body := map[string]any{"url": "https://example.com/in", "secret": "whsec_" + strings.Repeat("a", 16)}
	ts.do(t, req{Method: "POST", Path: "/webhooks", Header: hdr("X-Api-Key", "ci-key"), Body: body}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/webhooks", Header: hdr("X-Api-Key", "sk_test_but_live"), Body: body}).
		problem(t, http.StatusBadRequest).wantFields(t, "secret")
	// A configured key is a test key when it says so, or is spelled as one.
	keys, err := httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "c", Secret: "plain", Test: true},
		httpadapter.APIKey{Account: "d", Secret: "sk_test_configured"}, httpadapter.APIKey{Account: "e", Secret: "live"})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{"plain": true, "sk_test_configured": true, "live": false} {
		if p, err := keys.Authenticate(context.Background(), key); err != nil || p.Test != want {
			t.Errorf("key %s: test %v, err %v; want test %v", key, p.Test, err, want)
		}
	}
}

type authFunc func(ctx context.Context, key string) (httpadapter.Principal, error)

func (f authFunc) Authenticate(ctx context.Context, key string) (httpadapter.Principal, error) {
	return f(ctx, key)
}

// The webhook routes take the webhooks scopes.
func TestWebhookScopes(t *testing.T) {
	ts := scopedServer(t)
	for _, r := range []req{
		{Method: "GET", Path: "/webhooks"},
		{Method: "POST", Path: "/webhooks", Body: `{"url":"https://example.com"}`},
	} {
		r.Header = hdr("X-Api-Key", "letters")
		ts.do(t, r).problem(t, http.StatusForbidden)
	}
	ts.do(t, req{Method: "POST", Path: "/webhooks", Body: `{"url":"https://example.com"}`, Header: hdr("X-Api-Key", "full")}).
		wantStatus(t, http.StatusCreated)
}

// Webhook attempts are counted by outcome.
func TestWebhookMetrics(t *testing.T) {
	ts, _ := newMetricsServer(t)
	sink := newHookSink(t)
	sink.fail = true
	ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": sink.URL, "events": []string{"letter.created"}}}).
		wantStatus(t, http.StatusCreated)
	assetID, _ := ts.createAsset(t, keyA)
	ts.createLetter(t, keyA, assetID)
	sink.wait(t, 1)
	deadline := time.Now().Add(10 * time.Second)
	for value(ts.scrape(t), "lettershop_webhook_attempt_duration_seconds", "outcome", "retry") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the failed attempt was not counted")
		}
		time.Sleep(2 * time.Millisecond)
	}
	fams := ts.scrape(t)
	if got := value(fams, "lettershop_webhook_attempt_duration_seconds", "outcome", "succeeded"); got != 0 {
		t.Errorf("succeeded %v, want 0", got)
	}
}

// POST /_test/webhooks/settle answers once every delivery due has been
// attempted and recorded: the receiver has the letter's event with no
// wait of the test's own, and the delivery shows how it went.
func TestSettleWebhooks(t *testing.T) {
	ts := newTestServer(t)
	sink := newHookSink(t)
	var w webhookBody
	ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": sink.URL, "events": []string{"letter.created"}}}).
		wantStatus(t, http.StatusCreated).decode(t, &w)
	for _, tt := range []struct{ body, field string }{
		{`{"within":"soon"}`, "within"},
		{`{"within":"0s"}`, "within"},
		{`{"within":"51s"}`, "within"},
		{`{"until":"now"}`, "until"},
	} {
		ts.do(t, req{Method: "POST", Path: "/_test/webhooks/settle", Body: tt.body}).problem(t, http.StatusBadRequest).wantFields(t, tt.field)
	}
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	ts.do(t, req{Method: "POST", Path: "/_test/webhooks/settle"}).wantStatus(t, http.StatusNoContent)
	sink.mu.Lock()
	n := len(sink.bodies)
	sink.mu.Unlock()
	if n != 1 {
		t.Fatalf("after the settle the receiver has %d events, want the letter's created event", n)
	}
	var page struct{ Items []lettershop.WebhookDelivery }
	ts.get(t, "/webhooks/"+w.ID+"/deliveries").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Status != lettershop.DeliverySucceeded || page.Items[0].LetterID != l.ID {
		t.Errorf("deliveries after the settle: %+v", page.Items)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/webhooks/settle", Body: `{"within":"50s"}`}).wantStatus(t, http.StatusNoContent)
}
