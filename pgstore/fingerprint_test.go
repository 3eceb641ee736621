package pgstore_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// An outcome stored by a version that fingerprinted a JSON body by its
// bytes, before bodies were compared as JSON, is still answered to a
// retry of those bytes after the upgrade, not refused as another request.
func TestHTTPReplayOfAnOutcomeFingerprintedByItsBytes(t *testing.T) {
	t.Parallel()
	schema, a, b := twoHTTPServers(t)
	body := httpLetterBody(httpAsset(t, a, b))
	first := a.do(t, "POST", "/v1/letters", body, "Idempotency-Key", "before-upgrade").want(t, "create", http.StatusCreated)
	// As the earlier version stored it.
	tag, err := adminConn(t, schema).Exec(t.Context(), `UPDATE idempotency SET fingerprint = $1 WHERE key = $2`,
		lettershop.Fingerprint([]byte("POST"), []byte("/letters"), []byte(body)), "before-upgrade")
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("rewrite the fingerprint: %v, %d rows", err, tag.RowsAffected())
	}
	again := b.do(t, "POST", "/v1/letters", body, "Idempotency-Key", "before-upgrade").want(t, "retry", http.StatusCreated)
	if !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry answered %s (replayed %q), want the first answer %s", again.body, again.header.Get("Idempotent-Replayed"), first.body)
	}
	// Another request under the key is still refused.
	b.do(t, "POST", "/v1/letters", strings.Replace(body, `"b1"`, `"b2"`, 1), "Idempotency-Key", "before-upgrade").
		want(t, "another request under the key", http.StatusUnprocessableEntity)
}
