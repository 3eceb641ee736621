package pgstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/httpadapter"
)

// These tests run the servers of service_test.go behind the HTTP handler,
// as cmd/lettershop serves them, each on an httptest server of its own.

// apiKey is the sandbox key of every request; its account is the same on
// both servers, as the sandbox derives it from the key.
const apiKey = "sk_test_pgstore"

// httpServer is a server's Service behind httpadapter.
type httpServer struct {
	server
	url string
}

// serveHTTP serves srv's Service until the test ends. Rate limiting is off:
// the tests count answers, not buckets.
func serveHTTP(t *testing.T, srv server) httpServer {
	t.Helper()
	ts := httptest.NewServer(httpadapter.New(srv.svc, httpadapter.WithRateLimit(0, 0)))
	t.Cleanup(ts.Close)
	return httpServer{server: srv, url: ts.URL}
}

// twoHTTPServers is twoServers served over HTTP.
func twoHTTPServers(t *testing.T) (schema string, a, b httpServer) {
	t.Helper()
	schema, sa, sb := twoServers(t)
	return schema, serveHTTP(t, sa), serveHTTP(t, sb)
}

// reply is a response read in full.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// noRedirect shows a 302 rather than following it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends a request to h with apiKey and the headers given as name-value
// pairs; a header with an empty value is left out (X-Api-Key "" sends no
// key).
func (h httpServer) do(t *testing.T, method, path, body string, header ...string) reply {
	t.Helper()
	r, err := h.send(t.Context(), method, path, body, header...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// send is do for goroutines other than the test's, which must not stop
// the test.
func (h httpServer) send(ctx context.Context, method, path, body string, header ...string) (reply, error) {
	req, err := http.NewRequestWithContext(ctx, method, h.url+path, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("X-Api-Key", apiKey)
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// want fails the test unless r has the status, and returns r.
func (r reply) want(t *testing.T, what string, status int) reply {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d; body %s", what, r.status, status, r.body)
	}
	return r
}

// decode reads r's JSON body into v.
func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// problemCode is the code of the problem r carries, or "" when r is no
// problem.
func (r reply) problemCode() string {
	if r.header.Get("Content-Type") != "application/problem+json" {
		return ""
	}
	var p struct{ Code string }
	if json.Unmarshal(r.body, &p) != nil {
		return ""
	}
	return p.Code
}

// httpAsset makes an asset on a and its published version on b, through
// the API, and returns the asset's id.
func httpAsset(t *testing.T, a, b httpServer) string {
	t.Helper()
	var asset struct{ ID string }
	a.do(t, "POST", "/v1/assets", `{"name":"Welcome","type":"template"}`).want(t, "create asset", http.StatusCreated).decode(t, &asset)
	b.do(t, "POST", "/v1/assets/"+asset.ID+"/versions",
		`{"content":{"type":"text/html","content":"<p>Dear {{name}},</p>"},"variableDefinitions":[{"name":"name","behavior":"required"}],"publish":true}`).
		want(t, "create version", http.StatusCreated)
	return asset.ID
}

// httpLetterBody is a request for a letter made from asset.
func httpLetterBody(assetID string) string {
	return `{
		"sender": {"organization": "Acme Corp", "address": {"addressLine1": "100 Main St", "lastLine": "Springfield, IL 62701"}},
		"recipient": {"individual": {"firstName": "Jane", "lastName": "Doe"}, "address": {"addressLine1": "200 Oak Ave", "lastLine": "Chicago, IL 60601"}},
		"content": {"type": "asset", "assetId": "` + assetID + `"},
		"useType": "transactional",
		"variables": [{"name": "name", "value": "Jane"}],
		"metadata": [{"key": "batch", "value": "b1"}]}`
}

// httpLetter makes a letter on h and returns its id.
func httpLetter(t *testing.T, h httpServer, assetID string) string {
	t.Helper()
	var l struct{ ID string }
	h.do(t, "POST", "/v1/letters", httpLetterBody(assetID)).want(t, "create letter", http.StatusCreated).decode(t, &l)
	return l.ID
}

// httpLetterIDs lists every letter of the key's account on h.
func httpLetterIDs(t *testing.T, h httpServer) []string {
	t.Helper()
	var page struct {
		Items     []struct{ ID string }
		NextToken string
	}
	h.do(t, "GET", "/v1/letters?pageSize=100", "").want(t, "list letters", http.StatusOK).decode(t, &page)
	if page.NextToken != "" {
		t.Fatalf("more than 100 letters")
	}
	ids := []string{}
	for _, l := range page.Items {
		ids = append(ids, l.ID)
	}
	return ids
}

// Thirty-two identical requests under one idempotency key, spread over
// two servers at once, make one letter: each answer is that letter, a
// replay of it, or a 409 saying the first is still running.
func TestTwoHTTPServersConcurrentIdempotentCreate(t *testing.T) {
	t.Parallel()
	_, a, b := twoHTTPServers(t)
	body := httpLetterBody(httpAsset(t, a, b))
	post := func(h httpServer) (reply, error) {
		return h.send(t.Context(), "POST", "/v1/letters", body, "Idempotency-Key", "create-once")
	}

	const n = 32
	replies := make([]reply, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		h := []httpServer{a, b}[i%2]
		wg.Go(func() {
			<-start
			replies[i], errs[i] = post(h)
		})
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	var fresh []reply
	counts := map[string]int{}
	for i, r := range replies {
		switch {
		case r.status == http.StatusCreated && r.header.Get("Idempotent-Replayed") == "":
			fresh = append(fresh, r)
		case r.status == http.StatusCreated && r.header.Get("Idempotent-Replayed") == "true":
			counts["replayed"]++
		case r.status == http.StatusConflict && r.problemCode() == "request-in-flight":
			counts["in flight"]++
		default:
			t.Errorf("request %d (server %s): %d %q %s, want 201 or a 409 request-in-flight problem",
				i, "ab"[i%2:i%2+1], r.status, r.header.Get("Idempotent-Replayed"), r.body)
		}
	}
	if len(fresh) != 1 {
		t.Fatalf("%d requests made a letter (others: %v), want exactly one", len(fresh), counts)
	}
	made := fresh[0]
	for i, r := range replies {
		if r.status/100 == 2 && (!bytes.Equal(r.body, made.body) || r.header.Get("Location") != made.header.Get("Location")) {
			t.Errorf("request %d answered another letter:\n%s\nLocation %s\nwant\n%s\nLocation %s",
				i, r.body, r.header.Get("Location"), made.body, made.header.Get("Location"))
		}
	}
	var letter struct{ ID string }
	made.decode(t, &letter)

	// Once all is settled, a retry on either server replays the letter.
	for i, h := range []httpServer{a, b} {
		name := "ab"[i : i+1]
		if d := cmp.Diff([]string{letter.ID}, httpLetterIDs(t, h)); d != "" {
			t.Errorf("letters listed on %s (-want +got):\n%s", name, d)
		}
		r, err := post(h)
		if err != nil {
			t.Fatal(err)
		}
		r.want(t, "retry on "+name, http.StatusCreated)
		if r.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(r.body, made.body) || r.header.Get("Location") != made.header.Get("Location") {
			t.Errorf("retry on %s: Idempotent-Replayed %q, Location %q, body\n%s\nwant a replay of\n%s",
				name, r.header.Get("Idempotent-Replayed"), r.header.Get("Location"), r.body, made.body)
		}
	}
}

// A letter made on one server is fetched, listed and canceled on the
// other; a list's pages are walked across both, each token made by one
// server and taken by the other.
func TestTwoHTTPServersShareLetters(t *testing.T) {
	t.Parallel()
	_, a, b := twoHTTPServers(t)
	assetID := httpAsset(t, a, b)
	// Off the whole second, finer than any store keeps: what a create
	// answers must still be what a read on the other server finds.
	for _, h := range []httpServer{a, b} {
		h.clock.Add(123456789 * time.Nanosecond)
	}
	var made []string
	for i := range 5 {
		h := []httpServer{a, b}[i%2]
		r := h.do(t, "POST", "/v1/letters", httpLetterBody(assetID)).want(t, "create letter", http.StatusCreated)
		var l struct{ ID string }
		r.decode(t, &l)
		made = append(made, l.ID)
		other := []httpServer{b, a}[i%2]
		got := other.do(t, "GET", "/v1/letters/"+l.ID, "").want(t, "get on the other server", http.StatusOK)
		if d := cmp.Diff(string(r.body), string(got.body)); d != "" {
			t.Errorf("letter %s as created on %s and read on the other (-created +read):\n%s", l.ID, "ab"[i%2:i%2+1], d)
		}
	}

	all := httpLetterIDs(t, a)
	if d := cmp.Diff(all, httpLetterIDs(t, b)); d != "" {
		t.Errorf("lists on a and b (-a +b):\n%s", d)
	}
	if len(all) != len(made) {
		t.Fatalf("listed %v, want the %d letters made", all, len(made))
	}
	// Pages of two with the metadata filter, asked of a and b in turn: each
	// token goes to the server that did not make it.
	var walked []string
	token := ""
	for i := 0; ; i++ {
		h := []httpServer{a, b}[i%2]
		q := url.Values{"pageSize": {"2"}, "metadata[batch]": {"b1"}}
		if token != "" {
			q.Set("nextToken", token)
		}
		var page struct {
			Items     []struct{ ID string }
			NextToken string
		}
		h.do(t, "GET", "/v1/letters?"+q.Encode(), "").want(t, fmt.Sprintf("page %d", i), http.StatusOK).decode(t, &page)
		for _, l := range page.Items {
			walked = append(walked, l.ID)
		}
		if page.NextToken == "" {
			break
		}
		token = page.NextToken
	}
	if d := cmp.Diff(all, walked); d != "" {
		t.Errorf("pages walked across a and b (-one page +walked):\n%s", d)
	}

	// Made on a, canceled on b.
	id := made[0]
	r := b.do(t, "POST", "/v1/letters/"+id+"/cancel", "").want(t, "cancel on b", http.StatusAccepted)
	if len(r.body) != 0 {
		t.Errorf("cancel answered a body: %s", r.body)
	}
	var got struct{ Status string }
	a.do(t, "GET", "/v1/letters/"+id, "").want(t, "get on a after cancel", http.StatusOK).decode(t, &got)
	if got.Status != "canceled" {
		t.Errorf("status on a after cancel on b = %q, want canceled", got.Status)
	}
	// Updating it is refused on either server now.
	for i, h := range []httpServer{a, b} {
		name := "ab"[i : i+1]
		if r := h.do(t, "PUT", "/v1/letters/"+id, `{"useType":"marketing"}`); r.status != http.StatusConflict || r.problemCode() != "conflict" {
			t.Errorf("update of the canceled letter on %s: %d %s, want a 409 conflict", name, r.status, r.body)
		}
	}
}

// A download link made by one server is served by the other, without an
// API key.
func TestTwoHTTPServersShareDownloadLinks(t *testing.T) {
	t.Parallel()
	_, a, b := twoHTTPServers(t)
	id := httpLetter(t, a, httpAsset(t, a, b))

	r := a.do(t, "GET", "/v1/letters/"+id+"/download", "").want(t, "download on a", http.StatusFound)
	link, err := url.Parse(r.header.Get("Location"))
	if err != nil || link.Path != "/files/letters/"+id+".pdf" || link.Query().Get("signature") == "" {
		t.Fatalf("download Location %q, want a signed link to /files/letters/%s.pdf", r.header.Get("Location"), id)
	}
	fromA := a.do(t, "GET", link.RequestURI(), "", "X-Api-Key", "").want(t, "link on a", http.StatusOK)
	fromB := b.do(t, "GET", link.RequestURI(), "", "X-Api-Key", "").want(t, "link of a on b", http.StatusOK)
	if ct := fromB.header.Get("Content-Type"); ct != "application/pdf" || !bytes.HasPrefix(fromB.body, []byte("%PDF-")) {
		t.Errorf("b served %q starting %q, want a PDF", ct, fromB.body[:min(8, len(fromB.body))])
	}
	if !bytes.Equal(fromA.body, fromB.body) {
		t.Errorf("a and b serve the letter differently: %d and %d bytes", len(fromA.body), len(fromB.body))
	}
	// An altered link is refused there too.
	q := link.Query()
	q.Set("signature", strings.Repeat("0", len(q.Get("signature"))))
	if r := b.do(t, "GET", link.Path+"?"+q.Encode(), "", "X-Api-Key", ""); r.status != http.StatusForbidden {
		t.Errorf("altered link on b: %d %s, want 403", r.status, r.body)
	}
}

// The shared token key is what lets the servers take each other's tokens
// and links: a server of the same database with another key reads the same
// letters but refuses both.
func TestHTTPServerWithAnotherTokenKey(t *testing.T) {
	t.Parallel()
	schema, a, b := twoHTTPServers(t)
	assetID := httpAsset(t, a, b)
	id := httpLetter(t, a, assetID)
	httpLetter(t, b, assetID)
	other := serveHTTP(t, newServer(t, schema, 3, []byte("another token key")))

	if d := cmp.Diff(httpLetterIDs(t, a), httpLetterIDs(t, other)); d != "" {
		t.Errorf("lists on a and on the server with another key (-a +other):\n%s", d)
	}
	var page struct{ NextToken string }
	a.do(t, "GET", "/v1/letters?pageSize=1", "").want(t, "first page on a", http.StatusOK).decode(t, &page)
	if page.NextToken == "" {
		t.Fatal("no nextToken on a page of one of two letters")
	}
	next := "/v1/letters?pageSize=1&nextToken=" + url.QueryEscape(page.NextToken)
	b.do(t, "GET", next, "").want(t, "a's token on b", http.StatusOK)
	if r := other.do(t, "GET", next, ""); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `"nextToken"`) {
		t.Errorf("a's token on a server with another key: %d %s, want a 400 naming nextToken", r.status, r.body)
	}

	r := a.do(t, "GET", "/v1/letters/"+id+"/download", "").want(t, "download on a", http.StatusFound)
	link, err := url.Parse(r.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, "GET", link.RequestURI(), "", "X-Api-Key", "").want(t, "a's link on b", http.StatusOK)
	if r := other.do(t, "GET", link.RequestURI(), "", "X-Api-Key", ""); r.status != http.StatusForbidden {
		t.Errorf("a's link on a server with another key: %d %s, want 403", r.status, r.body)
	}
}
