package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Every answer shows times as the real service's reference writes them, to
// the second (2023-06-07T12:34:56Z), whatever their milliseconds: a fresh
// answer, a fetch, a page and a replay alike.
func TestAnswersShowTimesToTheSecond(t *testing.T) {
	ts := newTestServer(t)
	ts.Clock.Add(1834 * time.Millisecond)
	assetID, versionID := ts.createAsset(t, keyA)
	created := ts.do(t, req{Method: "POST", Path: "/v1/letters", Body: letterBody(assetID),
		Header: hdr("Idempotency-Key", "k1")}).wantStatus(t, http.StatusCreated)
	replayed := ts.do(t, req{Method: "POST", Path: "/v1/letters", Body: letterBody(assetID),
		Header: hdr("Idempotency-Key", "k1")}).wantStatus(t, http.StatusCreated)
	sink := newHookSink(t)
	var w webhookBody
	madeHook := ts.do(t, req{Method: "POST", Path: "/v1/webhooks", Body: map[string]any{"url": sink.URL, "events": []string{"letter.created"}}}).
		wantStatus(t, http.StatusCreated)
	madeHook.decode(t, &w)
	ts.createLetter(t, keyA, assetID)
	sink.wait(t, 1)
	var deliveries struct {
		Items []deliveryBody `json:"items"`
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		ts.get(t, "/webhooks/"+w.ID+"/deliveries").wantStatus(t, http.StatusOK).decode(t, &deliveries)
		if len(deliveries.Items) == 1 && deliveries.Items[0].Status == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery did not succeed: %+v", deliveries.Items)
		}
		time.Sleep(2 * time.Millisecond)
	}
	dlv := deliveries.Items[0].ID
	for name, body := range map[string][]byte{
		"asset":            ts.get(t, "/v1/assets/"+assetID).wantStatus(t, http.StatusOK).Body,
		"assets":           ts.get(t, "/v1/assets").wantStatus(t, http.StatusOK).Body,
		"version":          ts.get(t, "/v1/assets/"+assetID+"/versions/"+versionID).wantStatus(t, http.StatusOK).Body,
		"versions":         ts.get(t, "/v1/assets/"+assetID+"/versions").wantStatus(t, http.StatusOK).Body,
		"letter created":   created.Body,
		"letter replay":    replayed.Body,
		"letters":          ts.get(t, "/v1/letters").wantStatus(t, http.StatusOK).Body,
		"webhook made":     madeHook.Body,
		"webhook":          ts.get(t, "/v1/webhooks/"+w.ID).wantStatus(t, http.StatusOK).Body,
		"webhooks":         ts.get(t, "/v1/webhooks").wantStatus(t, http.StatusOK).Body,
		"delivery retried": ts.do(t, req{Method: "POST", Path: "/v1/webhooks/" + w.ID + "/deliveries/" + dlv + "/retry"}).wantStatus(t, http.StatusAccepted).Body,
		"deliveries":       ts.get(t, "/v1/webhooks/"+w.ID+"/deliveries").wantStatus(t, http.StatusOK).Body,
	} {
		got := string(body)
		if !strings.Contains(got, `"createdAt":"2026-03-02T15:00:01Z"`) || strings.Contains(got, ".834") {
			t.Errorf("%s: times not to the second: %s", name, got)
		}
	}
}
