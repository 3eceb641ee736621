package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
)

// BenchmarkHeapPerIdempotentLetter creates n letters through the handler
// twice, each time in a fresh memstore-backed Service: first without
// Idempotency-Keys (the baseline), then each with a key of its own, as the
// Go client sends them; and reports the live heap each letter adds after a
// collection, both ways, and their ratio. Every outcome is kept (no cap in
// number or bytes; by default an account keeps 10,000, which would hide
// the cost of the other 90,000). Two bodies: the tests' letter (small:
// two short metadata pairs), and the side-by-side benchmark's
// (testdata/letter-create.json: longer addresses, eight metadata pairs),
// both from a template.
//
//	go test ./httpadapter -run '^$' -bench HeapPerIdempotentLetter -benchtime 1x -count 3
func BenchmarkHeapPerIdempotentLetter(b *testing.B) {
	const n = 100_000
	for _, body := range []string{"small", "sbs"} {
		b.Run("body="+body, func(b *testing.B) {
			for range b.N {
				plain := heapPerHTTPLetter(b, n, body, false)
				keyed := heapPerHTTPLetter(b, n, body, true)
				b.ReportMetric(plain, "heapB/letter-nokey")
				b.ReportMetric(keyed, "heapB/letter-key")
				b.ReportMetric(keyed/plain, "key/nokey")
			}
		})
	}
}

func heapPerHTTPLetter(b *testing.B, n int, bodyName string, keyed bool) float64 {
	b.Helper()
	mc := clock.NewMock()
	mc.Set(testStart)
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc), lettershop.WithBaseURL(testBaseURL),
		lettershop.WithIdempotencyCap(0), lettershop.WithIdempotencyBytes(0))
	defer svc.Close()
	h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0))
	send := func(method, path string, body []byte, key string) []byte {
		r := httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("X-Api-Key", keyA)
		if key != "" {
			r.Header.Set("Idempotency-Key", key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 300 {
			b.Fatalf("%s %s: status %d: %s", method, path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	var asset, version struct{ ID string }
	mustUnmarshal(b, send("POST", "/assets", []byte(`{"name":"Welcome","type":"template"}`), ""), &asset)
	tb, err := json.Marshal(templateBody())
	if err != nil {
		b.Fatal(err)
	}
	mustUnmarshal(b, send("POST", "/assets/"+asset.ID+"/versions", tb, ""), &version)
	in := letterBody(asset.ID)
	if bodyName == "sbs" {
		raw, err := os.ReadFile("../testdata/letter-create.json")
		if err != nil {
			b.Fatal(err)
		}
		in = nil
		mustUnmarshal(b, raw, &in)
		in["content"] = map[string]any{"type": "asset", "assetId": asset.ID}
		in["useType"] = "marketing"
		in["variables"] = []map[string]any{{"name": "name", "value": "Marge"}}
	}
	body, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	send("POST", "/letters", body, fmt.Sprintf("%032x", n)) // the account's first request makes its state
	before := heapInUse()
	for i := range n {
		key := ""
		if keyed {
			key = fmt.Sprintf("%032x", i)
		}
		send("POST", "/letters", body, key)
	}
	after := heapInUse()
	if path := os.Getenv("LETTERSHOP_HEAP_PROFILE"); path != "" && keyed {
		// What the letters and outcomes hold: go tool pprof -sample_index=inuse_space.
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	runtime.KeepAlive(h)
	return float64(int64(after)-int64(before)) / float64(n)
}

func mustUnmarshal(b *testing.B, data []byte, v any) {
	b.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		b.Fatalf("%v: %s", err, data)
	}
}
