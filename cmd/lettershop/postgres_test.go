package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// These tests run the server on PostgreSQL when LETTERSHOP_TEST_POSTGRES
// holds a connection string (a postgres:// URL), and skip otherwise.

func testDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("LETTERSHOP_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("LETTERSHOP_TEST_POSTGRES is not set; skipping PostgreSQL tests")
	}
	return dsn
}

// newSchema returns a schema name no other test uses; the server creates
// it, and it is dropped with everything in it when t ends.
func newSchema(t *testing.T, dsn string) string {
	t.Helper()
	name := "lettershop_cmd_test_" + strings.ToLower(rand.Text()[:16])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// downloadLink asks the server at base for a letter's signed link and
// returns its path and query.
func downloadLink(t *testing.T, base, key, id string) string {
	t.Helper()
	resp, _ := call(t, "GET", base+"/letters/"+id+"/download", key, "")
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("download: status %d, want 302", resp.StatusCode)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || u.Query().Get("signature") == "" {
		t.Fatalf("download: Location %q is not a signed link", resp.Header.Get("Location"))
	}
	return u.RequestURI()
}

// What one server made is there, whole, for the next one started on the
// same database with the same token key: letters, idempotent outcomes,
// pagination tokens and download links. A server with another key reads the
// same records but refuses the tokens and links.
func TestServerOnPostgresAcrossRestart(t *testing.T) {
	dsn := testDSN(t)
	schema := newSchema(t, dsn)
	// A fixed base URL: the port changes on restart, and letters' urls
	// begin with it.
	withKey := func(tokenKey string) []string {
		return []string{"--store", dsn, "--schema", schema, "--token-key", tokenKey,
			"--base-url", "http://lettershop.test", "--rate-limit", "0"}
	}
	args := withKey(key32)
	const key = "sk_test_restart"

	base, logs, stop := launch(t, args...)
	var letter struct{ ID string }
	letterBody := letterJSON(createTemplate(t, base, key))
	createOnce := func(base string) (*http.Response, []byte) {
		return call(t, "POST", base+"/v1/letters", key, letterBody, "Idempotency-Key", "restart-1")
	}
	resp, created := createOnce(base)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create letter: %d %s", resp.StatusCode, created)
	}
	json.Unmarshal(created, &letter)
	if resp, body := call(t, "POST", base+"/v1/letters", key, letterBody); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create second letter: %d %s", resp.StatusCode, body)
	}
	_, fetched := call(t, "GET", base+"/v1/letters/"+letter.ID, key, "")
	var page struct {
		Items     []struct{ ID string }
		NextToken string
	}
	_, body := call(t, "GET", base+"/v1/letters?pageSize=1", key, "")
	json.Unmarshal(body, &page)
	if len(page.Items) != 1 || page.NextToken == "" {
		t.Fatalf("first page of two letters: %s", body)
	}
	token := page.NextToken
	link := downloadLink(t, base, key, letter.ID)
	if !strings.Contains(logs.String(), "status=201") {
		t.Errorf("log lacks the creates:\n%s", logs)
	}
	stop()

	base, _, stop = launch(t, args...)
	if resp, body := call(t, "GET", base+"/v1/letters/"+letter.ID, key, ""); resp.StatusCode != http.StatusOK || string(body) != string(fetched) {
		t.Errorf("letter after restart: %d\n%s\nwant\n%s", resp.StatusCode, body, fetched)
	}
	resp, replay := createOnce(base)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Idempotent-Replayed") != "true" || string(replay) != string(created) {
		t.Errorf("idempotent retry after restart: %d replayed %q\n%s\nwant\n%s", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), replay, created)
	}
	resp, body = call(t, "GET", base+"/v1/letters?pageSize=1&nextToken="+url.QueryEscape(token), key, "")
	var next struct{ Items []struct{ ID string } }
	json.Unmarshal(body, &next)
	if resp.StatusCode != http.StatusOK || len(next.Items) != 1 || next.Items[0].ID != letter.ID {
		t.Errorf("second page with the token of the first server: %d %s, want letter %s", resp.StatusCode, body, letter.ID)
	}
	if resp, body := call(t, "GET", base+link, "", ""); resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "%PDF-") {
		t.Errorf("download link of the first server: %d %.40q", resp.StatusCode, body)
	}
	stop()

	// Another key: the records are the same, the signatures are not.
	base, _, _ = launch(t, withKey(strings.Repeat("x", minTokenKeyLen))...)
	if resp, body := call(t, "GET", base+"/v1/letters/"+letter.ID, key, ""); resp.StatusCode != http.StatusOK || string(body) != string(fetched) {
		t.Errorf("letter on a server with another key: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, "GET", base+"/v1/letters?pageSize=1&nextToken="+url.QueryEscape(token), key, ""); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "nextToken") {
		t.Errorf("token on a server with another key: %d %s, want a 400 naming nextToken", resp.StatusCode, body)
	}
	if resp, body := call(t, "GET", base+link, "", ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("download link on a server with another key: %d %.80q, want 403", resp.StatusCode, body)
	}
}
