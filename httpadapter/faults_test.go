package httpadapter_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/httpadapter"
)

type faultBody struct {
	ID              string  `json:"id"`
	Method          string  `json:"method"`
	Path            string  `json:"path"`
	Status          int     `json:"status"`
	Latency         string  `json:"latency"`
	CloseConnection bool    `json:"closeConnection"`
	AfterWrite      bool    `json:"afterWrite"`
	Times           int     `json:"times"`
	Probability     float64 `json:"probability"`
}

func (ts *testServer) addFault(t testing.TB, key, body string) faultBody {
	t.Helper()
	var f faultBody
	ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: body, Header: hdr("X-Api-Key", key)}).
		wantStatus(t, http.StatusCreated).decode(t, &f)
	return f
}

func TestFaultStatus(t *testing.T) {
	ts := newTestServer(t)
	f := ts.addFault(t, keyA, `{"method":"POST","path":"/assets","status":500,"times":1}`)
	if f.ID == "" || f.Times != 1 || f.Probability != 1 {
		t.Errorf("fault %+v", f)
	}
	body := `{"name":"Invoice"}`
	p := ts.do(t, req{Method: "POST", Path: "/v1/assets", Body: body}).problem(t, http.StatusInternalServerError)
	if p.Code != "internal" || !strings.Contains(p.Detail, "quote request id req_") || !strings.Contains(p.Detail, "a 500 injected by the test's fault "+f.ID) {
		t.Errorf("injected 500: %+v", p)
	}
	// Only once, and only for the account that asked.
	ts.do(t, req{Method: "POST", Path: "/v1/assets", Body: body}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/v1/assets", Body: body, Header: hdr("X-Api-Key", keyB)}).wantStatus(t, http.StatusCreated)
	// Another method or path does not match.
	ts.addFault(t, keyA, `{"method":"POST","path":"/assets","status":409}`)
	ts.get(t, "/v1/assets").wantStatus(t, http.StatusOK)
	ts.get(t, "/_test/clock").wantStatus(t, http.StatusOK)
	r := ts.do(t, req{Method: "POST", Path: "/assets", Body: body})
	p = r.problem(t, http.StatusConflict)
	// The 409 a client retries, after Retry-After.
	if p.Code != "request-in-flight" || r.Header.Get("Retry-After") != "1" || !strings.Contains(p.Detail, "injected by the test's fault flt_2") {
		t.Errorf("injected 409: %+v, Retry-After %q", p, r.Header.Get("Retry-After"))
	}
}

// A pattern written with /v1 matches the path as one without it does, bare
// and under /v1: it is no pattern that silently never meets a request.
func TestFaultPathWithV1(t *testing.T) {
	ts := newTestServer(t)
	ts.addFault(t, keyA, `{"method":"POST","path":"/v1/assets","status":500,"times":2}`)
	body := `{"name":"Invoice"}`
	ts.do(t, req{Method: "POST", Path: "/v1/assets", Body: body}).problem(t, http.StatusInternalServerError)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: body}).problem(t, http.StatusInternalServerError)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: body}).wantStatus(t, http.StatusCreated)
	ts.addFault(t, keyA, `{"method":"GET","path":"/v1/assets/*","status":500,"times":1}`)
	ts.get(t, "/assets/ast_01kjqh0cc03dss8kcatrectqcz").problem(t, http.StatusInternalServerError)
	// "/" is the one pattern with a trailing slash that is taken: the root.
	ts.addFault(t, keyA, `{"path":"/","status":500,"times":1}`)
}

func TestFaultRateLimited(t *testing.T) {
	ts := newTestServer(t)
	ts.addFault(t, keyA, `{"path":"/letters","status":429}`)
	r := ts.get(t, "/letters")
	p := r.problem(t, http.StatusTooManyRequests)
	if p.Code != "rate-limited" {
		t.Errorf("code %q", p.Code)
	}
	for _, h := range []string{"P-RateLimit-Limit", "P-RateLimit-Remaining", "P-RateLimit-Reset", "Retry-After", "X-Request-Id"} {
		if r.Header.Get(h) == "" {
			t.Errorf("injected 429 lacks %s: %v", h, r.Header)
		}
	}
	if h := rateOf(r); h.mismatch != "" {
		t.Errorf("injected 429: %s", h.mismatch)
	}
	if r.Header.Get("P-RateLimit-Remaining") != "0" || r.Header.Get("Retry-After") != "1" {
		t.Errorf("remaining %q, retry after %q", r.Header.Get("P-RateLimit-Remaining"), r.Header.Get("Retry-After"))
	}
	if !strings.Contains(p.Detail, "injected by the test's fault flt_1 (not a rate limit); retry after 1s (Retry-After)") {
		t.Errorf("the detail does not say the 429 was injected: %q", p.Detail)
	}
	// The reset is Retry-After on from the time on the account's clock,
	// and Retry-After is seconds from now however far that clock is ahead.
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"24h"}`}).wantStatus(t, http.StatusOK)
	r = ts.get(t, "/letters")
	if got := r.Header.Get("P-RateLimit-Reset"); got != "2026-03-03T15:00:01Z" || r.Header.Get("Retry-After") != "1" {
		t.Errorf("reset %q a day on the account's clock, want 2026-03-03T15:00:01Z; Retry-After %q, want 1", got, r.Header.Get("Retry-After"))
	}
}

// An injected 429 on a server without a rate limit quotes none: it has no
// X-Rate-Limit-* headers, only Retry-After, the fault's when it sets one.
func TestFaultRateLimitedWithoutLimit(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(0, 0)))
	ts.addFault(t, keyA, `{"path":"/letters","status":429,"retryAfter":"90s","times":1}`)
	ts.addFault(t, keyA, `{"path":"/letters","status":429,"retryAfter":"24h","times":1}`)
	r := ts.get(t, "/letters")
	p := r.problem(t, http.StatusTooManyRequests)
	for _, h := range []string{"X-Rate-Limit-Limit", "X-Rate-Limit-Reset", "P-RateLimit-Limit", "P-RateLimit-Reset"} {
		if v := r.Header.Get(h); v != "" {
			t.Errorf("%s: %q on a server with no rate limit", h, v)
		}
	}
	if r.Header.Get("Retry-After") != "90" || strings.Contains(p.Detail, "requests per") {
		t.Errorf("Retry-After %q, detail %q", r.Header.Get("Retry-After"), p.Detail)
	}
	r = ts.get(t, "/letters")
	r.problem(t, http.StatusTooManyRequests)
	if got := r.Header.Get("Retry-After"); got != "86400" {
		t.Errorf("Retry-After %q, want a day's seconds", got)
	}
	ts.get(t, "/letters").wantStatus(t, http.StatusOK)
}

// TestFaultAfterWrite: the write happens, the answer is lost, and a retry
// with the same Idempotency-Key gets the stored outcome.
func TestFaultAfterWrite(t *testing.T) {
	ts := newTestServer(t)
	ts.addFault(t, keyA, `{"method":"POST","path":"/assets","afterWrite":true,"times":1}`)
	keyed := req{Method: "POST", Path: "/assets", Body: `{"name":"Invoice"}`, Header: hdr("Idempotency-Key", "inv-1")}
	ts.do(t, keyed).problem(t, http.StatusInternalServerError)
	r := ts.do(t, keyed).wantStatus(t, http.StatusCreated)
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("the retry was not a replay: the first write did not happen")
	}
	var list struct{ Items []any }
	ts.get(t, "/assets").decode(t, &list)
	if len(list.Items) != 1 {
		t.Errorf("%d assets, want the one", len(list.Items))
	}
}

func TestFaultCloseConnection(t *testing.T) {
	ts := newTestServer(t, unchecked())
	ts.addFault(t, keyA, `{"method":"POST","path":"/assets","closeConnection":true,"afterWrite":true,"times":1}`)
	ts.addFault(t, keyA, `{"method":"GET","path":"/assets","closeConnection":true,"times":1}`)
	for _, method := range []string{"POST", "GET"} {
		hr, _ := http.NewRequest(method, ts.URL+"/assets", strings.NewReader(`{"name":"Invoice"}`))
		hr.Header.Set("X-Api-Key", keyA)
		if resp, err := ts.Client().Do(hr); err == nil {
			resp.Body.Close()
			t.Errorf("%s: answered %d, want the connection closed", method, resp.StatusCode)
		}
	}
	var list struct{ Items []any }
	ts.get(t, "/assets").decode(t, &list)
	if len(list.Items) != 1 {
		t.Errorf("%d assets: the write before the close did not happen", len(list.Items))
	}
	j := ts.journal(t, keyA)
	if len(j.Items) < 3 || j.Items[0].Status != 0 || j.Items[1].Status != 0 || j.Items[0].Fault == "" {
		t.Errorf("journal of closed connections: %+v", j.Items)
	}
}

// recordingSleep records the latencies asked for and returns at once.
type recordingSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *recordingSleep) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return nil
}

func TestFaultLatency(t *testing.T) {
	tc := httpadapter.NewTestControls(1)
	rec := &recordingSleep{}
	tc.SetSleep(rec.sleep)
	ts := newTestServer(t, withAdapter(httpadapter.WithTestControls(tc)))
	f := ts.addFault(t, keyA, `{"path":"/assets","latency":"2s","times":2}`)
	if f.Latency != "2s" {
		t.Errorf("latency %q", f.Latency)
	}
	ts.get(t, "/assets").wantStatus(t, http.StatusOK)
	ts.get(t, "/assets").wantStatus(t, http.StatusOK)
	ts.get(t, "/assets").wantStatus(t, http.StatusOK)
	if len(rec.waits) != 2 || rec.waits[0] != 2*time.Second {
		t.Errorf("waits %v, want two of 2s", rec.waits)
	}
	// From Go, the same controls.
	if got := tc.Faults(httpadapter.SandboxAccount(keyA)); len(got) != 0 {
		t.Errorf("faults left after their times: %+v", got)
	}
}

// TestFaultProbabilityReplays: the same seed makes the same decisions.
func TestFaultProbabilityReplays(t *testing.T) {
	run := func(seed int64) string {
		ts := newTestServer(t, withAdapter(httpadapter.WithTestControls(httpadapter.NewTestControls(seed))))
		ts.addFault(t, keyA, `{"path":"/assets","status":500,"probability":0.5}`)
		var b strings.Builder
		for range 40 {
			if ts.get(t, "/assets").Status == http.StatusOK {
				b.WriteByte('.')
			} else {
				b.WriteByte('x')
			}
		}
		return b.String()
	}
	first := run(42)
	if again := run(42); again != first {
		t.Errorf("seed 42 decided %s, then %s", first, again)
	}
	if !strings.Contains(first, ".") || !strings.Contains(first, "x") {
		t.Errorf("probability 0.5 decided %s", first)
	}
}

func TestFaultRoutes(t *testing.T) {
	ts := newTestServer(t)
	ts.addFault(t, keyA, `{"path":"/letters/*","status":404}`)
	ts.addFault(t, keyA, `{"latency":"1ms","times":3}`)
	var list struct{ Items []faultBody }
	ts.get(t, "/_test/faults").wantStatus(t, http.StatusOK).decode(t, &list)
	if len(list.Items) != 2 || list.Items[0].Path != "/letters/*" || list.Items[1].Times != 3 {
		t.Errorf("faults %+v", list.Items)
	}
	ts.do(t, req{Method: "GET", Path: "/_test/faults", Header: hdr("X-Api-Key", keyB)}).decode(t, &list)
	if len(list.Items) != 0 {
		t.Errorf("B sees A's faults: %+v", list.Items)
	}
	ts.do(t, req{Method: "DELETE", Path: "/_test/faults"}).wantStatus(t, http.StatusNoContent)
	ts.get(t, "/_test/faults").decode(t, &list)
	if len(list.Items) != 0 {
		t.Errorf("faults after DELETE: %+v", list.Items)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: `{"status":500}`, Header: hdr("X-Api-Key", "")}).problem(t, http.StatusUnauthorized)
}

func TestFaultBadInput(t *testing.T) {
	ts := newTestServer(t)
	for _, tt := range []struct{ body, field string }{
		{`{}`, "status"},
		{`{"status":200}`, "status"},
		{`{"status":600}`, "status"},
		{`{"status":500,"closeConnection":true}`, "status"},
		{`{"status":"500"}`, "status"},
		{`{"status":500,"method":"post"}`, "method"},
		{`{"status":500,"path":"letters"}`, "path"},
		{`{"status":500,"path":"/letters/["}`, "path"},
		{`{"status":500,"path":"/letters/"}`, "path"},
		{`{"status":500,"path":"//letters"}`, "path"},
		{`{"status":500,"path":"/letters//cancel"}`, "path"},
		{`{"latency":"soon"}`, "latency"},
		{`{"latency":"-1s"}`, "latency"},
		{`{"latency":"2h"}`, "latency"},
		{`{"status":500,"times":-1}`, "times"},
		{`{"status":500,"probability":1.5}`, "probability"},
		{`{"status":500,"probability":-0.1}`, "probability"},
		{`{"status":500,"probability":0}`, "probability"},
		{`{"status":500,"probability":0.0}`, "probability"},
		{`{"status":500,"times":0}`, "times"},
		{`{"status":500,"id":"flt_9"}`, "id"},
		{`{"status":429,"retryAfter":"24h0m1s"}`, "retryAfter"},
		{`{"status":429,"retryAfter":"-1s"}`, "retryAfter"},
		{`{"status":429,"retryAfter":"later"}`, "retryAfter"},
		{`{"status":500,"retryAfter":"1s"}`, "retryAfter"},
		{`{"status":500,"colour":"red"}`, "colour"},
		{``, "body"},
	} {
		t.Run(tt.body, func(t *testing.T) {
			ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: tt.body}).
				problem(t, http.StatusBadRequest).wantFields(t, tt.field)
		})
	}
}

func TestFaultRoutesOff(t *testing.T) {
	ts := newTestServer(t, withoutTestRoutes())
	ts.get(t, "/_test/faults").problem(t, http.StatusNotFound)
	ts.get(t, "/_test/requests").problem(t, http.StatusNotFound)
}

// Every string a fault takes has a bound, tested on both sides, and a
// refusal names the field without quoting more than the start of what was
// sent.
func TestFaultStringsBounded(t *testing.T) {
	ts := newTestServer(t)
	long := func(prefix string, n int, fill string) string { return prefix + strings.Repeat(fill, n-len(prefix)) }
	for _, tt := range []struct {
		field, under, over string
	}{
		{"path", long("/", httpadapter.MaxFaultPath, "a"), long("/", httpadapter.MaxFaultPath+1, "a")},
		{"method", long("", 32, "A"), long("", 33, "A")},
		{"latency", long("", 61, "0") + "1", long("", 62, "0") + "1"}, // with "ms": 64 and 65 bytes
	} {
		t.Run(tt.field, func(t *testing.T) {
			body := func(v string) string {
				if tt.field == "latency" {
					return `{"latency":"` + v + `ms","times":1}`
				}
				return `{"` + tt.field + `":"` + v + `","status":503,"times":1}`
			}
			ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: body(tt.under)}).wantStatus(t, http.StatusCreated)
			res := ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: body(tt.over)})
			p := res.problem(t, http.StatusBadRequest)
			p.wantFields(t, tt.field)
			if len(res.Body) > 600 || len(tt.over) > 50 && strings.Contains(string(res.Body), tt.over[:50]) {
				t.Errorf("the refusal quotes the input: %d bytes: %s", len(res.Body), res.Body)
			}
		})
		ts.do(t, req{Method: "DELETE", Path: "/_test/faults"}).wantStatus(t, http.StatusNoContent)
	}
	// A malformed value is quoted only in part too.
	for field, v := range map[string]string{"path": "no-slash" + strings.Repeat("b", 500), "method": "get" + strings.Repeat("x", 20),
		"latency": "soon" + strings.Repeat("c", 2000)} {
		res := ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: `{"` + field + `":"` + v + `","status":503}`})
		res.problem(t, http.StatusBadRequest).wantFields(t, field)
		if len(v) > 100 && strings.Contains(string(res.Body), v[:100]) {
			t.Errorf("%s: the refusal quotes the input: %s", field, res.Body)
		}
	}
	// So is a query on a route that takes none.
	res := ts.do(t, req{Method: "GET", Path: "/_test/faults?%zz" + strings.Repeat("q", 3000)})
	res.problem(t, http.StatusBadRequest)
	if len(res.Body) > 600 {
		t.Errorf("the refusal of a query quotes it: %d bytes", len(res.Body))
	}
}
