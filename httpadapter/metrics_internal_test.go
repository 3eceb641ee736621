package httpadapter

import (
	"testing"
	"time"
)

// BenchmarkObserve records a request in the metrics as served, and by
// looking the series up by their label values, as before, in one run.
func BenchmarkObserve(b *testing.B) {
	m := NewMetrics()
	const pattern = "GET /v1/letters/{id}"
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.observe(pattern, "GET", 200, time.Millisecond)
		}
	})
	b.Run("labels", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			route, method := routeLabel(pattern, "GET")
			m.requests.WithLabelValues(route, method, statusClass(200)).Inc()
			m.duration.WithLabelValues(route, method).Observe(time.Millisecond.Seconds())
		}
	})
}
