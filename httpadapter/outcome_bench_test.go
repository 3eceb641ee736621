package httpadapter_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
)

// BenchmarkStoredOutcomeBytes measures the heap a stored idempotency
// outcome holds in memstore: requests with unique keys that fail
// validation (the outcome the issue measured), and creates that succeed.
//
//	go test ./httpadapter -run '^$' -bench StoredOutcomeBytes -benchtime 1x
func BenchmarkStoredOutcomeBytes(b *testing.B) {
	for _, tt := range []struct{ name, path, body string }{
		{"failure", "/v1/letters", `{"useType":"marketing","recipient":{"address":{"zip":1}}}`},
		{"success", "/v1/assets", `{"name":"Welcome letter","type":"template","description":"a template"}`},
	} {
		b.Run(tt.name, func(b *testing.B) {
			const n = 4000
			for range b.N {
				mc := clock.NewMock()
				svc := lettershop.New(memstore.New(), lettershop.WithClock(mc), lettershop.WithIdempotencyCap(0))
				h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0))
				send := func(i int) {
					r := httptest.NewRequest("POST", tt.path, strings.NewReader(tt.body))
					r.Header.Set("X-Api-Key", "sk_test_bench")
					r.Header.Set("Idempotency-Key", fmt.Sprintf("key-%08d", i))
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code >= 500 || w.Code == http.StatusConflict {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
				send(-1) // the account's first request makes its state
				before := heapInUse()
				for i := range n {
					send(i)
				}
				after := heapInUse()
				b.ReportMetric(float64(after-before)/n, "B/outcome")
				runtime.KeepAlive(h)
				svc.Close()
			}
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
