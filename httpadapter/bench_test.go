package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/prom"
)

// BenchmarkLoad drives the handler over loopback HTTP with concurrent
// keep-alive clients, and a bare net/http JSON server doing the same three
// things (fetch one, create one, list 100) in the same run as the baseline:
// what the adapter costs beyond encoding JSON over HTTP.
//
//	go test -run '^$' -bench Load -benchtime 5s ./httpadapter
//
// Each result reports requests per second and the median and 99th
// percentile latency as seen by the client.
func BenchmarkLoad(b *testing.B) {
	targets := []struct {
		name  string
		start func(b *testing.B) loadTarget
	}{
		{"adapter", startAdapter},
		{"adapter-metrics", startAdapterMetrics},
		{"baseline", startBaseline},
	}
	for _, op := range []string{"get-letter", "post-letter", "list-100"} {
		for _, tg := range targets {
			b.Run(op+"/"+tg.name, func(b *testing.B) {
				target := tg.start(b)
				runLoad(b, target, op)
			})
		}
	}
}

// loadTarget is a server ready for the three operations.
type loadTarget struct {
	url      string
	letterID string
	body     []byte
	client   *http.Client
}

func newLoadClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512}}
}

// startAdapter serves the handler with rate limiting off and 200 letters in
// the account.
func startAdapter(b *testing.B) loadTarget {
	return startAdapterWith(b, withAdapter(httpadapter.WithRateLimit(0, 0)))
}

// startAdapterMetrics is startAdapter recording Prometheus metrics.
func startAdapterMetrics(b *testing.B) loadTarget {
	m := prom.New()
	return startAdapterWith(b, withAdapter(httpadapter.WithRateLimit(0, 0), httpadapter.WithObserver(m), httpadapter.WithMetricsHandler("/metrics", m.Handler())),
		withService(lettershop.WithHooks(m.Hooks())))
}

func startAdapterWith(b *testing.B, opts ...testOption) loadTarget {
	ts := newTestServer(b, opts...)
	assetID, _ := ts.createAsset(b, keyA)
	var first lettershop.Letter
	for i := range 200 {
		l := ts.createLetter(b, keyA, assetID)
		if i == 0 {
			first = l
		}
	}
	body, err := json.Marshal(letterBody(assetID))
	if err != nil {
		b.Fatal(err)
	}
	return loadTarget{url: ts.URL, letterID: first.ID, body: body, client: newLoadClient()}
}

// baselineServer is a bare net/http JSON server over a map: no
// authentication, validation, idempotency or pagination tokens.
type baselineServer struct {
	mu      sync.RWMutex
	letters map[string]json.RawMessage
	order   []string
	next    int
}

func (s *baselineServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == "GET" && r.URL.Path == "/letters":
		n, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
		s.mu.RLock()
		page := struct {
			Items     []json.RawMessage `json:"items"`
			NextToken string            `json:"nextToken,omitempty"`
		}{}
		for i := len(s.order) - 1; i >= 0 && len(page.Items) < n; i-- {
			page.Items = append(page.Items, s.letters[s.order[i]])
		}
		s.mu.RUnlock()
		writeBaseline(w, http.StatusOK, page)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/letters/"):
		s.mu.RLock()
		l, ok := s.letters[strings.TrimPrefix(r.URL.Path, "/letters/")]
		s.mu.RUnlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeBaseline(w, http.StatusOK, l)
	case r.Method == "POST" && r.URL.Path == "/letters":
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.next++
		id := fmt.Sprintf("ltr_%026d", s.next)
		in["id"], in["status"], in["createdAt"] = id, "queued", time.Now().UTC()
		raw, _ := json.Marshal(in)
		s.letters[id] = raw
		s.order = append(s.order, id)
		s.mu.Unlock()
		w.Header().Set("Location", "/letters/"+id)
		writeBaseline(w, http.StatusCreated, json.RawMessage(raw))
	default:
		http.NotFound(w, r)
	}
}

func writeBaseline(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// startBaseline fills the baseline with the adapter's own letter bodies, so
// both serve the same bytes.
func startBaseline(b *testing.B) loadTarget {
	ref := startAdapter(b)
	hr, _ := http.NewRequest("GET", ref.url+"/letters/"+ref.letterID, nil)
	hr.Header.Set("X-Api-Key", keyA)
	res, err := ref.client.Do(hr)
	if err != nil {
		b.Fatal(err)
	}
	letter, _ := io.ReadAll(res.Body)
	res.Body.Close()

	s := &baselineServer{letters: map[string]json.RawMessage{}}
	for i := range 200 {
		id := fmt.Sprintf("ltr_%026d", i)
		s.letters[id] = bytes.TrimSpace(letter)
		s.order = append(s.order, id)
	}
	s.next = 200
	srv := httptest.NewServer(s)
	b.Cleanup(srv.Close)
	return loadTarget{url: srv.URL, letterID: s.order[0], body: ref.body, client: newLoadClient()}
}

// runLoad sends op from 4 clients per CPU and reports throughput and
// latency.
func runLoad(b *testing.B, t loadTarget, op string) {
	var mu sync.Mutex
	var all []time.Duration
	b.SetParallelism(loadParallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var lat []time.Duration
		for pb.Next() {
			var hr *http.Request
			want := http.StatusOK
			switch op {
			case "get-letter":
				hr, _ = http.NewRequest("GET", t.url+"/letters/"+t.letterID, nil)
			case "post-letter":
				hr, _ = http.NewRequest("POST", t.url+"/letters", bytes.NewReader(t.body))
				want = http.StatusCreated
			case "list-100":
				hr, _ = http.NewRequest("GET", t.url+"/letters?pageSize=100", nil)
			}
			hr.Header.Set("X-Api-Key", keyA)
			start := time.Now()
			res, err := t.client.Do(hr)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			lat = append(lat, time.Since(start))
			if res.StatusCode != want {
				b.Errorf("%s: status %d", op, res.StatusCode)
				return
			}
		}
		mu.Lock()
		all = append(all, lat...)
		mu.Unlock()
	})
	b.StopTimer()
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}

var loadParallelism = 4

// benchServe returns a function that sends *h a request, with keyA's API
// key when key, and fails the benchmark on an answer of 400 or more. *h
// is read at each request: a benchmark may swap its handler.
func benchServe(b *testing.B, h *http.Handler) func(method, path string, body []byte, key bool) *httptest.ResponseRecorder {
	return func(method, path string, body []byte, key bool) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, bytes.NewReader(body))
		if key {
			r.Header.Set("X-Api-Key", keyA)
		}
		w := httptest.NewRecorder()
		(*h).ServeHTTP(w, r)
		if w.Code >= 400 {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		return w
	}
}

// benchTemplate makes, through serve, the side-by-side benchmark's
// template: an asset whose published version greets {{name}}. It returns
// the asset's id.
func benchTemplate(serve func(method, path string, body []byte, key bool) *httptest.ResponseRecorder) string {
	var asset struct{ ID string }
	_ = json.Unmarshal(serve("POST", "/v1/assets", []byte(`{"name":"Bench","type":"template"}`), true).Body.Bytes(), &asset)
	serve("POST", "/v1/assets/"+asset.ID+"/versions", []byte(`{"content":{"type":"text/html","content":"<p>Dear {{name}},</p><p>Your renewal is due.</p>"},"variableDefinitions":[{"name":"name","behavior":"required"}],"publish":true}`), true)
	return asset.ID
}

// BenchmarkServe runs the side-by-side benchmark's three requests through
// the handler alone, on a Service with the wall clock as a server has it:
// what one request costs the server's CPU, without a network or a client.
//
//	go test ./httpadapter -run '^$' -bench Serve -benchmem
func BenchmarkServe(b *testing.B) {
	svc := lettershop.New(memstore.New())
	b.Cleanup(func() { svc.Close() })
	h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0))
	serve := benchServe(b, &h)
	assetID := benchTemplate(serve)
	raw, err := os.ReadFile("../testdata/letter-create.json")
	if err != nil {
		b.Fatal(err)
	}
	var in map[string]any
	_ = json.Unmarshal(raw, &in)
	in["content"] = map[string]any{"type": "asset", "assetId": assetID}
	in["useType"] = "marketing"
	in["variables"] = []map[string]any{{"name": "name", "value": "Marge"}}
	body, _ := json.Marshal(in)
	var first struct{ ID string }
	for i := range 1000 {
		w := serve("POST", "/v1/letters", body, true)
		if i == 0 {
			_ = json.Unmarshal(w.Body.Bytes(), &first)
		}
	}
	for _, c := range []struct{ name, method, path string }{
		{"get", "GET", "/v1/letters/" + first.ID},
		{"post", "POST", "/v1/letters"},
		{"list", "GET", "/v1/letters?pageSize=100"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var send []byte
			if c.method == "POST" {
				send = body
			}
			b.ReportAllocs()
			for b.Loop() {
				serve(c.method, c.path, send, true)
			}
		})
	}
	// The same fetch through a handler that counts it against the key's
	// limit (one too high to meet) and writes the rate-limit headers under
	// both their names: what a counted request costs beyond "get".
	h = httpadapter.New(svc, httpadapter.WithRateLimit(1<<30, time.Second), httpadapter.WithAddressLimits(false))
	b.Run("get-rate-limited", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if w := serve("GET", "/v1/letters/"+first.ID, nil, true); w.Header().Get("X-Rate-Limit-Limit") == "" {
				b.Fatal("no rate-limit headers")
			}
		}
	})
}
