package httpadapter_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

// sameResponse fails unless a replay carries the first response's status,
// body and headers, plus Idempotent-Replayed.
func sameResponse(t testing.TB, first, replay result) {
	t.Helper()
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the first response is marked replayed")
	}
	if replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the replay lacks Idempotent-Replayed: true (status %d: %s)", replay.Status, replay.Body)
	}
	if first.Status != replay.Status || string(first.Body) != string(replay.Body) {
		t.Errorf("replay %d %s, want %d %s", replay.Status, replay.Body, first.Status, first.Body)
	}
	for _, h := range []string{"Content-Type", "Location", "Content-Length"} {
		if first.Header.Get(h) != replay.Header.Get(h) {
			t.Errorf("replay %s %q, want %q", h, replay.Header.Get(h), first.Header.Get(h))
		}
	}
}

func (ts *testServer) letterCount(t testing.TB, key string) int {
	t.Helper()
	var page lettershop.Page[lettershop.Letter]
	ts.do(t, req{Method: "GET", Path: "/letters?pageSize=100", Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusOK).decode(t, &page)
	return len(page.Items)
}

func TestIdempotentReplay(t *testing.T) {
	ts := newTestServer(t)
	assetID, versionID := ts.createAsset(t, keyA)
	ik := hdr("Idempotency-Key", "create-1")
	first := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik}).wantStatus(t, http.StatusCreated)
	replay := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik})
	sameResponse(t, first, replay)
	// The same request under /v1 is the same request.
	sameResponse(t, first, ts.do(t, req{Method: "POST", Path: "/v1/letters", Body: letterBody(assetID), Header: ik}))
	if n := ts.letterCount(t, keyA); n != 1 {
		t.Errorf("%d letters after a replayed create, want 1", n)
	}

	// Each kind of write replays.
	var l lettershop.Letter
	first.decode(t, &l)
	v := "/assets/" + assetID + "/versions/" + versionID
	for _, r := range []req{
		{Method: "PUT", Path: "/letters/" + l.ID, Body: `{"description":"once"}`},
		{Method: "POST", Path: "/letters/" + l.ID + "/cancel"},
		{Method: "POST", Path: "/assets", Body: `{"name":"again"}`},
		{Method: "PUT", Path: "/assets/" + assetID, Body: `{"name":"renamed"}`},
		// Before the new version archives v, which then takes no update.
		{Method: "PUT", Path: v, Body: `{"notes":"n"}`},
		{Method: "POST", Path: "/assets/" + assetID + "/versions", Body: templateBody()},
		{Method: "POST", Path: v + "/clone"},
		{Method: "POST", Path: v + "/archive"},
		{Method: "POST", Path: v + "/publish"},
		{Method: "DELETE", Path: v},
	} {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			r.Header = hdr("Idempotency-Key", "key for "+r.Method+r.Path)
			first := ts.do(t, r)
			if first.Status >= 300 {
				t.Fatalf("status %d: %s", first.Status, first.Body)
			}
			sameResponse(t, first, ts.do(t, r))
		})
	}
	// The deleted version was deleted once: a replay is not a 404, a new request is.
	ts.do(t, req{Method: "DELETE", Path: v, Header: hdr("Idempotency-Key", "key for DELETE"+v)}).wantStatus(t, http.StatusNoContent)
	ts.do(t, req{Method: "DELETE", Path: v}).problem(t, http.StatusNotFound)
}

// A key is kept for 24 hours from the first request, then forgotten.
func TestIdempotencyRetention(t *testing.T) {
	ts := newTestServer(t)
	r := req{Method: "POST", Path: "/assets", Body: `{"name":"once a day"}`, Header: hdr("Idempotency-Key", "daily")}
	first := ts.do(t, r).wantStatus(t, http.StatusCreated)
	ts.Clock.Add(24*time.Hour - time.Second)
	sameResponse(t, first, ts.do(t, r))
	ts.Clock.Add(time.Second)
	again := ts.do(t, r).wantStatus(t, http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "" || again.Header.Get("Location") == first.Header.Get("Location") {
		t.Errorf("after 24 hours the key still replays")
	}
}

// Errors the client caused are stored and replayed like successes.
func TestIdempotentReplayOfErrors(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	ik := hdr("Idempotency-Key", "bad-1")

	b := letterBody(assetID)
	b["useType"] = "spam"
	first := ts.do(t, req{Method: "POST", Path: "/letters", Body: b, Header: ik})
	first.problem(t, http.StatusBadRequest)
	sameResponse(t, first, ts.do(t, req{Method: "POST", Path: "/letters", Body: b, Header: ik}))

	malformed := req{Method: "POST", Path: "/letters", Body: `{"useType":`, Header: hdr("Idempotency-Key", "bad-2")}
	first = ts.do(t, malformed)
	first.problem(t, http.StatusBadRequest)
	sameResponse(t, first, ts.do(t, malformed))

	missing := req{Method: "POST", Path: "/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz/cancel", Header: hdr("Idempotency-Key", "bad-3")}
	first = ts.do(t, missing)
	first.problem(t, http.StatusNotFound)
	sameResponse(t, first, ts.do(t, missing))

	badID := req{Method: "DELETE", Path: "/assets/nope", Header: hdr("Idempotency-Key", "bad-4")}
	first = ts.do(t, badID)
	first.problem(t, http.StatusBadRequest).wantFields(t, "id")
	sameResponse(t, first, ts.do(t, badID))

	// The replayed 400 stands even once the request would succeed: the key
	// names one logical request, answered once.
	l := ts.createLetter(t, keyA, assetID)
	ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel", Header: hdr("Idempotency-Key", "c")}).wantStatus(t, http.StatusAccepted)
	conflict := req{Method: "PUT", Path: "/letters/" + l.ID, Body: `{"useType":"marketing"}`, Header: hdr("Idempotency-Key", "bad-5")}
	first = ts.do(t, conflict)
	first.problem(t, http.StatusConflict)
	sameResponse(t, first, ts.do(t, conflict))
}

func TestIdempotencyMismatch(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	ik := hdr("Idempotency-Key", "k")
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik}).wantStatus(t, http.StatusCreated)

	other := letterBody(assetID)
	other["description"] = "another letter"
	for name, r := range map[string]req{
		"another body":   {Method: "POST", Path: "/letters", Body: other, Header: ik},
		"another path":   {Method: "POST", Path: "/assets", Body: `{"name":"x"}`, Header: ik},
		"another method": {Method: "PUT", Path: "/letters", Body: letterBody(assetID), Header: ik},
	} {
		t.Run(name, func(t *testing.T) {
			res := ts.do(t, r)
			if r.Method == "PUT" {
				res.problem(t, http.StatusMethodNotAllowed)
				return
			}
			if p := res.problem(t, http.StatusUnprocessableEntity); p.Code != "idempotency-key-reused" {
				t.Errorf("code %q", p.Code)
			}
			if res.Header.Get("Idempotent-Replayed") != "" {
				t.Errorf("a mismatch is marked replayed")
			}
		})
	}
	if n := ts.letterCount(t, keyA); n != 1 {
		t.Errorf("%d letters, want 1", n)
	}

	// The same key under another API key is another request, even in the
	// same account.
	res := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "k", "X-Api-Key", keyB)})
	res.problem(t, http.StatusBadRequest) // keyB's account has no such asset: proof it ran
	if res.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("another API key got the stored response")
	}
}

func TestIdempotencyKeyLength(t *testing.T) {
	ts := newTestServer(t)
	ok := strings.Repeat("k", 255)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"a"}`, Header: hdr("Idempotency-Key", ok)}).wantStatus(t, http.StatusCreated)
	sameResponse(t,
		ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"b"}`, Header: hdr("Idempotency-Key", ok[1:])}).wantStatus(t, http.StatusCreated),
		ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"b"}`, Header: hdr("Idempotency-Key", ok[1:])}))
	// 255 characters, not bytes.
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"c"}`, Header: hdr("Idempotency-Key", strings.Repeat("é", 255))}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"d"}`, Header: hdr("Idempotency-Key", ok+"k")}).
		problem(t, http.StatusBadRequest).wantFields(t, "Idempotency-Key")
	var page lettershop.Page[lettershop.Asset]
	ts.get(t, "/assets").decode(t, &page)
	if len(page.Items) != 3 {
		t.Errorf("%d assets, want 3", len(page.Items))
	}
}

// gate is an address processor that holds each call until released, or
// fails while failing is set.
type gate struct {
	entered chan struct{}
	release chan struct{}
	failing atomic.Bool
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}, 100), release: make(chan struct{})}
}

func (g *gate) Process(ctx context.Context, r lettershop.AddressRequest) (lettershop.AddressResult, error) {
	if g.failing.Load() {
		return lettershop.AddressResult{}, errors.New("postal database unreachable")
	}
	if r.Role == lettershop.RoleSender {
		g.entered <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
			return lettershop.AddressResult{}, ctx.Err()
		}
	}
	return lettershop.NewAddressProcessor().Process(ctx, r)
}

func TestIdempotencyInFlight(t *testing.T) {
	g := newGate()
	ts := newTestServer(t, withService(lettershop.WithAddressProcessor(g)))
	assetID, _ := ts.createAsset(t, keyA) // assets need no address processing

	ik := hdr("Idempotency-Key", "slow")
	done := make(chan result)
	go func() { done <- ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik}) }()
	<-g.entered // the first request holds the key

	r := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik})
	p := r.problem(t, http.StatusConflict)
	if p.Code != "request-in-flight" {
		t.Errorf("code %q", p.Code)
	}
	// The lease (10 s by default) is what a client waits at most.
	if got := r.Header.Get("Retry-After"); got != "10" {
		t.Errorf("Retry-After %q, want 10", got)
	}
	// A different request under the key is still a mismatch, not in flight.
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"x"}`, Header: ik}).problem(t, http.StatusUnprocessableEntity)

	close(g.release)
	first := (<-done).wantStatus(t, http.StatusCreated)
	sameResponse(t, first, ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik}))
}

func TestConcurrentIdenticalRequests(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	const n = 20
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "same")})
		})
	}
	wg.Wait()
	var fresh []result
	counts := map[string]int{}
	for _, r := range results {
		switch {
		case r.Status == http.StatusCreated && r.Header.Get("Idempotent-Replayed") == "":
			fresh = append(fresh, r)
			counts["fresh"]++
		case r.Status == http.StatusCreated:
			counts["replayed"]++
		case r.Status == http.StatusConflict:
			r.problem(t, http.StatusConflict)
			counts["in flight"]++
		default:
			t.Errorf("unexpected answer %d: %s", r.Status, r.Body)
		}
	}
	if len(fresh) != 1 {
		t.Fatalf("answers %v, want exactly one fresh create", counts)
	}
	for _, r := range results {
		if r.Status == http.StatusCreated && r.Header.Get("Idempotent-Replayed") != "" {
			sameResponse(t, fresh[0], r)
		}
	}
	if n := ts.letterCount(t, keyA); n != 1 {
		t.Errorf("%d letters, want 1", n)
	}
}

// An internal failure is not stored: a retry under the same key runs again.
func TestIdempotencyInternalErrorNotKept(t *testing.T) {
	g := newGate()
	close(g.release)
	ts := newTestServer(t, withService(lettershop.WithAddressProcessor(g)))
	assetID, _ := ts.createAsset(t, keyA)
	ik := hdr("Idempotency-Key", "retry-me")

	g.failing.Store(true)
	res := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik})
	p := res.problem(t, http.StatusInternalServerError)
	if strings.Contains(p.Detail, "postal") {
		t.Errorf("the cause leaked: %q", p.Detail)
	}
	if !strings.Contains(ts.logs.String(), "postal database unreachable") {
		t.Errorf("the cause was not logged:\n%s", ts.logs.String())
	}

	g.failing.Store(false)
	res = ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik}).wantStatus(t, http.StatusCreated)
	if res.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the retry was answered from store")
	}
	sameResponse(t, res, ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: ik}))
}

// Without a key, every request runs.
func TestNoIdempotencyKey(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	a := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID)}).wantStatus(t, http.StatusCreated)
	b := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "")}).wantStatus(t, http.StatusCreated)
	if a.Header.Get("Location") == b.Header.Get("Location") {
		t.Errorf("two requests without a key made one letter")
	}
	if diff := cmp.Diff(2, ts.letterCount(t, keyA)); diff != "" {
		t.Errorf("letters (-want +got):\n%s", diff)
	}
}

// The same JSON written another way is the same request: a retry whose
// client serialized the body again (members in another order, other
// whitespace, other escapes) is answered the stored response, as the
// reference has it: "Subsequent requests with the same key return the
// identical result". What differs in meaning is still another request.
func TestIdempotencySameJSONWrittenAnotherWay(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	ik := hdr("Idempotency-Key", "123e4567-e89b-12d3-a456-426614174000")
	compact := `{"sender":{"organization":"Veezla, Inc.","address":{"addressLine1":"1900 Reston Metro Plz","addressLine2":"Ste 600","city":"Reston","state":"VA","zipCode":"20190"}},` +
		`"recipient":{"individual":{"firstName":"Jane","lastName":"Doe"},"address":{"addressLine1":"200 Oak Ave","lastLine":"Chicago, IL 60601"}},` +
		`"content":{"type":"asset","assetId":"` + assetID + `"},"useType":"marketing","variables":[{"name":"name","value":"Jane"}],` +
		`"metadata":[{"key":"campaign","value":"winter2024"},{"key":"highPriority","value":""}]}`
	rewritten := "{\n  \"useType\": \"marketing\",\n  \"metadata\": [ { \"value\": \"winter2024\", \"key\": \"campaign\" }, { \"key\": \"highPriority\", \"value\": \"\" } ],\n" +
		"  \"content\": { \"assetId\": \"" + assetID + "\", \"type\": \"asset\" },\n" +
		"  \"recipient\": { \"address\": { \"lastLine\": \"Chicago, IL 60601\", \"addressLine1\": \"200 Oak Ave\" }, \"individual\": { \"lastName\": \"Doe\", \"firstName\": \"J\\u0061ne\" } },\n" +
		"  \"variables\": [ { \"value\": \"Jane\", \"name\": \"name\" } ],\n" +
		"  \"sender\": { \"address\": { \"zipCode\": \"20190\", \"state\": \"VA\", \"city\": \"Reston\", \"addressLine2\": \"Ste 600\", \"addressLine1\": \"1900 Reston Metro Plz\" }, \"organization\": \"Veezla, Inc.\" }\n}\n"

	first := ts.do(t, req{Method: "POST", Path: "/letters", Body: compact, Header: ik}).wantStatus(t, http.StatusCreated)
	sameResponse(t, first, ts.do(t, req{Method: "POST", Path: "/letters", Body: rewritten, Header: ik}))
	sameResponse(t, first, ts.do(t, req{Method: "POST", Path: "/v1/letters", Body: compact + "\n", Header: ik}))
	if n := ts.letterCount(t, keyA); n != 1 {
		t.Errorf("%d letters after retries written another way, want 1", n)
	}
	// Another value, another order of an array, a number written
	// otherwise: another request.
	for _, body := range []string{
		strings.Replace(rewritten, `"Doe"`, `"Doe "`, 1),
		strings.Replace(compact, `{"key":"campaign","value":"winter2024"},{"key":"highPriority","value":""}`, `{"key":"highPriority","value":""},{"key":"campaign","value":"winter2024"}`, 1),
	} {
		ts.do(t, req{Method: "POST", Path: "/letters", Body: body, Header: ik}).problem(t, http.StatusUnprocessableEntity)
	}
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"a","type":"template"}`, Header: hdr("Idempotency-Key", "n")}).
		wantStatus(t, http.StatusCreated).decode(t, &a)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"a","type":"template","metadata":[]}`, Header: hdr("Idempotency-Key", "n")}).
		problem(t, http.StatusUnprocessableEntity)

	// An upload's body is content, not JSON: only the same bytes are the
	// same request, even where the content happens to read as JSON.
	var v lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: `{"content":{"type":"text/html","content":"<p>x</p>"}}`}).
		wantStatus(t, http.StatusCreated).decode(t, &v)
	path := "/assets/" + a.ID + "/versions/" + v.ID + "/content"
	up := hdr("Idempotency-Key", "upload", "Content-Type", "text/html")
	firstUp := ts.do(t, req{Method: "PUT", Path: path, Body: `["<p>x</p>"]`, Header: up}).wantStatus(t, http.StatusOK)
	sameResponse(t, firstUp, ts.do(t, req{Method: "PUT", Path: path, Body: `["<p>x</p>"]`, Header: up}))
	ts.do(t, req{Method: "PUT", Path: path, Body: `[ "<p>x</p>" ]`, Header: up}).problem(t, http.StatusUnprocessableEntity)
}

// An empty Idempotency-Key (blanks alone too, which net/http trims away) is
// a 400 naming it, on every write, and nothing is made: its client meant
// the request to be safe to repeat, and a retry run again would mail a
// second letter. A key of one character, the shortest, is a key; a GET
// ignores the header as it ignores any key.
func TestEmptyIdempotencyKeyIsRefused(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	for _, key := range []string{"", "   ", "\t"} {
		// Repeated, since Header drops a header of no value.
		empty := http.Header{"Idempotency-Key": {key}}
		ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Repeated: empty}).
			problem(t, http.StatusBadRequest).wantFields(t, "Idempotency-Key")
		ts.do(t, req{Method: "PUT", Path: "/assets/" + assetID, Body: `{"name":"renamed"}`, Repeated: empty}).
			problem(t, http.StatusBadRequest).wantFields(t, "Idempotency-Key")
		ts.do(t, req{Method: "DELETE", Path: "/assets/" + assetID, Repeated: empty}).
			problem(t, http.StatusBadRequest).wantFields(t, "Idempotency-Key")
		ts.do(t, req{Method: "GET", Path: "/assets/" + assetID, Repeated: empty}).wantStatus(t, http.StatusOK)
	}
	if n := ts.letterCount(t, keyA); n != 0 {
		t.Errorf("%d letters made under an empty key, want none", n)
	}
	first := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "k")}).wantStatus(t, http.StatusCreated)
	sameResponse(t, first, ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "k")}))
	if n := ts.letterCount(t, keyA); n != 1 {
		t.Errorf("%d letters made under the key k twice, want 1", n)
	}
}

// Two Idempotency-Key headers are refused, as two X-Api-Key are: the server
// never picks one (a proxy or a retrying client in front may pick the
// other), and nothing is made. One, even repeated with its value, is one.
func TestTwoIdempotencyKeysAreRefused(t *testing.T) {
	ts := newTestServer(t)
	post := func(keys []string, name string) result {
		return ts.do(t, req{Method: "POST", Path: "/v1/assets", Body: `{"name":"` + name + `"}`, Repeated: http.Header{"Idempotency-Key": keys}})
	}
	for _, keys := range [][]string{{"k1", "k2"}, {"k1", "k1"}, {"k1", ""}} {
		post(keys, "two").problem(t, http.StatusBadRequest).wantFields(t, "Idempotency-Key")
	}
	post([]string{"k1"}, "one").wantStatus(t, http.StatusCreated)
	if r := post([]string{"k1"}, "one"); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the same key again: %d, replayed %q; want the first answer replayed", r.Status, r.Header.Get("Idempotent-Replayed"))
	}
	var page lettershop.Page[lettershop.Asset]
	ts.get(t, "/assets").decode(t, &page)
	if len(page.Items) != 1 {
		t.Errorf("%d assets, want the one made under a single key", len(page.Items))
	}
}
