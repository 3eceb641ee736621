package httpadapter_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// A body that stops arriving is answered 408 once its time is up, well
// before the server's own read timeout; a body sent whole is served.
func TestSlowBodyTimesOut(t *testing.T) {
	ts := newTestServer(t, unchecked(), withAdapter(httpadapter.WithBodyReadRate(1<<20, 200*time.Millisecond)))
	send := func(head, body string) (*http.Response, []byte) {
		c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, head+body); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	body := `{"name":"slow"}`
	head := func(n int) string {
		return "POST /v1/assets HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + keyA + "\r\nContent-Length: " + strconv.Itoa(n) + "\r\n\r\n"
	}
	resp, b := send(head(len(body)), body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("whole body: %d %s", resp.StatusCode, b)
	}
	resp, b = send(head(len(body)+10), body)
	var p struct {
		Code   string
		Status int
	}
	if resp.StatusCode != http.StatusRequestTimeout || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(b, &p) != nil || p.Code != "request-timeout" {
		t.Fatalf("stalled body: %d %s %s, want a 408 problem", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if !resp.Close {
		t.Error("the connection of a stalled body is kept open")
	}
	var page struct{ Items []json.RawMessage }
	ts.get(t, "/assets").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 1 {
		t.Errorf("%d assets, want the one sent whole", len(page.Items))
	}
}

// slowAssetStore takes its time writing an asset, and fails the write if
// the request's context ended meanwhile, as a store over a network does.
type slowAssetStore struct {
	storage.Storage
	delay time.Duration
}

func (s slowAssetStore) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return storage.Asset{}, ctx.Err()
	}
	return s.Storage.WriteAsset(ctx, w)
}

// The time a body has to arrive bounds the reading of the body, not the
// work done with it: a request whose body came in time keeps its context
// however long the handler then takes. (net/http clears the connection's
// read deadline when it starts watching for the client going away, once
// the body is read; were the body's deadline left standing, that watch
// would end the request's context when it passed.)
func TestBodyDeadlineEndsWithTheBody(t *testing.T) {
	svc := lettershop.New(slowAssetStore{Storage: memstore.New(), delay: 400 * time.Millisecond})
	t.Cleanup(func() { _ = svc.Close() })
	ts := newTestServerFor(t, svc, httpadapter.WithBodyReadRate(1<<20, 100*time.Millisecond))
	// httptest's server sets no read timeout of its own, so only the body's
	// deadline could end the request's context.
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "slow", "type": "template"}}).
		wantStatus(t, http.StatusCreated)
}

// A body may take longer than the server's write timeout to arrive, as
// long as it comes within its own time (WithBodyReadRate): the answer, and
// the 408 of a body that did not come, still reach the client. The write
// timeout counts from the body's deadline, not from the request's head,
// or a slow upload in its time would be made and never answered.
func TestSlowBodyAnsweredPastWriteTimeout(t *testing.T) {
	svc := lettershop.New(memstore.New())
	t.Cleanup(func() { _ = svc.Close() })
	const writeTimeout = 100 * time.Millisecond
	srv := httptest.NewUnstartedServer(httpadapter.New(svc, httpadapter.WithBodyReadRate(1<<20, 3*writeTimeout)))
	srv.Config.WriteTimeout = writeTimeout
	srv.Start()
	t.Cleanup(srv.Close)
	body := `{"name":"slow","type":"template"}`
	send := func(first, rest string, pause time.Duration) (*http.Response, []byte, error) {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		head := "POST /v1/assets HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + keyA + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
		if _, err := io.WriteString(c, head+first); err != nil {
			t.Fatal(err)
		}
		if rest != "" {
			time.Sleep(pause) // a slow client: past the write timeout, within the body's time
			if _, err := io.WriteString(c, rest); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b, nil
	}
	resp, b, err := send(body[:5], body[5:], 2*writeTimeout)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Errorf("a body that came in its time, after the write timeout: %v %v %s; want 201", resp, err, b)
	}
	resp, b, err = send(body[:5], "", 0)
	if err != nil || resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("a body that stalled past the write timeout: %v %v %s; want 408", resp, err, b)
	}
}

// A body sent with a Content-Encoding is a 400 naming Content-Encoding,
// where a gzip body was read as malformed JSON and an upload would have
// stored the compressed bytes as its content; "identity" is no encoding.
func TestContentEncodingRefused(t *testing.T) {
	ts := newTestServer(t, unchecked())
	assetID, _ := ts.createAsset(t, keyA)
	body := `{"name":"Welcome","type":"template"}`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, body)
	_ = zw.Close()
	for _, c := range []struct {
		enc, body string
	}{
		{"gzip", gz.String()},
		{"GZIP", gz.String()},
		{"deflate", body},
		{"identity, gzip", gz.String()},
	} {
		p := ts.do(t, req{Method: "POST", Path: "/assets", Body: c.body, Header: hdr("Content-Encoding", c.enc)}).problem(t, http.StatusBadRequest)
		p.wantFields(t, "Content-Encoding")
	}
	ts.do(t, req{Method: "POST", Path: "/assets", Body: body, Header: hdr("Content-Encoding", "identity")}).wantStatus(t, http.StatusCreated)

	var v lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/assets/" + assetID + "/versions", Body: `{}`}).wantStatus(t, http.StatusCreated).decode(t, &v)
	path := "/assets/" + assetID + "/versions/" + v.ID + "/content"
	ts.do(t, req{Method: "PUT", Path: path, Body: gz.String(), Header: hdr("Content-Type", "text/html", "Content-Encoding", "gzip")}).
		problem(t, http.StatusBadRequest).wantFields(t, "Content-Encoding")
	var got lettershop.AssetVersion
	ts.do(t, req{Method: "GET", Path: "/assets/" + assetID + "/versions/" + v.ID}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.ContentLength != 0 {
		t.Errorf("a refused upload left content of %d bytes", got.ContentLength)
	}
}

// A body whose Content-Length is over the route's limit is a 413 before
// any of it is read: a client that sent Expect: 100-continue is told so at
// once and sends none of it, where it was told to go on and sent the
// limit's worth first. A body of exactly the limit is asked for.
func TestBodyOverLimitRefusedBeforeItIsSent(t *testing.T) {
	ts := newTestServer(t, unchecked())
	first := func(n int) *http.Response {
		t.Helper()
		c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		head := "POST /v1/assets HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + keyA + "\r\nContent-Length: " + strconv.Itoa(n) +
			"\r\nExpect: 100-continue\r\n\r\n"
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp
	}
	if resp := first(httpadapter.MaxJSONBody + 1); resp.StatusCode != http.StatusRequestEntityTooLarge ||
		resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("Content-Length one over the limit: first answer %d %s, want a 413 problem", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp := first(httpadapter.MaxJSONBody); resp.StatusCode != http.StatusContinue {
		t.Errorf("Content-Length at the limit: first answer %d, want 100 Continue", resp.StatusCode)
	}
}

// Bodies held at once are bounded by the body budget: one that does not
// fit waits its turn, unread, and is a 503 with Retry-After when none was
// answered in the wait; one that fits beside the others exactly is served,
// and so is a body larger than the whole budget when it is alone. Every
// request here comes from one address, whose share (TestBodyBudgetShares)
// is turned off with the limits per address.
func TestBodyBudget(t *testing.T) {
	svc := lettershop.New(memstore.New())
	t.Cleanup(func() { _ = svc.Close() })
	h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0), httpadapter.WithAddressLimits(false),
		httpadapter.WithBodyBudget(1000, 50*time.Millisecond))
	// asset is an asset's body of n bytes: its JSON, then blanks.
	asset := func(n int) string {
		b := `{"name": "Budget", "type": "template"}`
		return b + strings.Repeat(" ", n-len(b))
	}
	post := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/v1/assets", strings.NewReader(body))
		r.Header.Set("X-Api-Key", keyA)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	// The first request holds 800 bytes while its body arrives.
	finish := heldBody(t, h, keyA, "", asset(800))

	if w := post(asset(201)); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" ||
		!strings.Contains(w.Body.String(), `"code":"unavailable"`) || !strings.Contains(w.Body.String(), "1000 bytes") {
		t.Errorf("a body that does not fit: %d, Retry-After %q, %s; want 503 unavailable, Retry-After 1", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := post(asset(200)); w.Code != http.StatusCreated {
		t.Errorf("a body that fits exactly beside the first: %d %s, want 201", w.Code, w.Body)
	}

	if w := finish(); w.Code != http.StatusCreated {
		t.Errorf("the first request: %d %s, want 201", w.Code, w.Body)
	}
	if w := post(asset(201)); w.Code != http.StatusCreated {
		t.Errorf("the body that did not fit, once the first was answered: %d %s, want 201", w.Code, w.Body)
	}
	if w := post(asset(5000)); w.Code != http.StatusCreated {
		t.Errorf("a body larger than the budget, alone: %d %s, want 201", w.Code, w.Body)
	}
}

// One client address's bodies hold at most half the body budget: a body
// announced as large as the whole budget and never sent counts half, and
// leaves the other half to other addresses, whose bodies are served at
// once, up to the budget exactly; the address's own next body, which takes
// it past its share, waits and is a 503 naming the share. Once the
// address's bodies are answered, a body of its whole share fits.
func TestBodyBudgetShares(t *testing.T) {
	svc := lettershop.New(memstore.New())
	t.Cleanup(func() { _ = svc.Close() })
	h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0), httpadapter.WithBodyBudget(1000, 50*time.Millisecond))
	asset := func(n int) string {
		b := `{"name": "Share", "type": "template"}`
		return b + strings.Repeat(" ", n-len(b))
	}
	post := func(from, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/v1/assets", strings.NewReader(body))
		r.RemoteAddr = from + ":40000"
		r.Header.Set("X-Api-Key", keyA)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	// 192.0.2.1 announces a body as large as the budget and sends one byte.
	finish := heldBody(t, h, keyA, "192.0.2.1:40000", asset(1000))

	if w := post("192.0.2.2", asset(500)); w.Code != http.StatusCreated {
		t.Errorf("another address's body, the half left: %d %s, want 201", w.Code, w.Body)
	}
	if w := post("192.0.2.1", asset(501)); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" ||
		!strings.Contains(w.Body.String(), "this client address") || !strings.Contains(w.Body.String(), "500 bytes") {
		t.Errorf("the address's body past its share: %d, Retry-After %q, %s; want 503 naming the share of 500 bytes", w.Code, w.Header().Get("Retry-After"), w.Body)
	}

	if w := finish(); w.Code != http.StatusCreated {
		t.Errorf("the body as large as the budget: %d %s, want 201", w.Code, w.Body)
	}
	if w := post("192.0.2.1", asset(500)); w.Code != http.StatusCreated {
		t.Errorf("the address's body at its share, once its others were answered: %d %s, want 201", w.Code, w.Body)
	}
}

// heldBody starts a POST /v1/assets of body with key (from remoteAddr,
// when given) on h, sends its first byte, which h reads once the body has
// its room, and holds the rest; finish sends the rest and returns the
// answer.
func heldBody(t *testing.T, h http.Handler, key, remoteAddr, body string) (finish func() *httptest.ResponseRecorder) {
	t.Helper()
	pr, pw := io.Pipe()
	r := httptest.NewRequest("POST", "/v1/assets", pr)
	if remoteAddr != "" {
		r.RemoteAddr = remoteAddr
	}
	r.ContentLength = int64(len(body))
	r.Header.Set("X-Api-Key", key)
	done := make(chan *httptest.ResponseRecorder)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		done <- w
	}()
	if _, err := pw.Write([]byte(body[:1])); err != nil {
		t.Fatal(err)
	}
	return func() *httptest.ResponseRecorder {
		t.Helper()
		if _, err := pw.Write([]byte(body[1:])); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		return <-done
	}
}
