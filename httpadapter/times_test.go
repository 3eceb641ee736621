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
	for name, body := range map[string][]byte{
		"asset":          ts.get(t, "/v1/assets/"+assetID).wantStatus(t, http.StatusOK).Body,
		"assets":         ts.get(t, "/v1/assets").wantStatus(t, http.StatusOK).Body,
		"version":        ts.get(t, "/v1/assets/"+assetID+"/versions/"+versionID).wantStatus(t, http.StatusOK).Body,
		"versions":       ts.get(t, "/v1/assets/"+assetID+"/versions").wantStatus(t, http.StatusOK).Body,
		"letter created": created.Body,
		"letter replay":  replayed.Body,
		"letters":        ts.get(t, "/v1/letters").wantStatus(t, http.StatusOK).Body,
	} {
		got := string(body)
		if !strings.Contains(got, `"createdAt":"2026-03-02T15:00:01Z"`) || strings.Contains(got, ".834") {
			t.Errorf("%s: times not to the second: %s", name, got)
		}
	}
}
