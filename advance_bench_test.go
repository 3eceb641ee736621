package lettershop_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/testclock"
)

// queuedLetters are n letters of one account, just made and queued at
// testStart, as stored records; benchmarks share them.
func queuedLetters(b *testing.B, n int) []storage.Letter {
	b.Helper()
	if recs, ok := queuedRecs[n]; ok {
		return recs
	}
	e := newEnv(b)
	a, _ := e.publishedTemplate(b, acct)
	routes := []func(*lettershop.CreateLetterInput){
		withRoute("Springfield, IL 62701", "Chicago, IL 60601"),
		withRoute("New York NY 10001", "San Francisco, CA 94103"),
		withRoute("Chicago, IL 60601", "Chicago, IL 60614"),
	}
	for i := range n {
		in := letterInput(a.ID)
		routes[i%len(routes)](&in)
		if _, err := e.svc.CreateLetter(e.ctx, acct, in); err != nil {
			b.Fatal(err)
		}
	}
	var recs []storage.Letter
	before := ""
	for {
		page, err := e.store.ListLetters(e.ctx, storage.LetterQuery{Account: acct, Before: before, Limit: 1000})
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, page...)
		if len(page) < 1000 {
			break
		}
		before = page[len(page)-1].ID
	}
	if len(recs) != n {
		b.Fatalf("%d letters stored, want %d", len(recs), n)
	}
	queuedRecs[n] = recs
	return recs
}

var queuedRecs = map[int][]storage.Letter{}

// BenchmarkAdvanceToDelivered moves an account's clock 30 days on, which
// takes each of its letters, queued, through every step to delivered
// (eight events each), with 1,000, 10,000 and 100,000 letters: what a
// letter moved costs, in CPU (the collector's included), bytes and
// allocations, is reported per letter. The goal is the same cost per
// letter at every size.
func BenchmarkAdvanceToDelivered(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("letters=%d", n), func(b *testing.B) {
			recs := queuedLetters(b, n)
			var (
				cpu           time.Duration
				bytes, allocs uint64
				moved         int
			)
			for b.Loop() {
				b.StopTimer()
				st := memstore.New()
				for _, r := range recs {
					if _, err := st.CreateLetter(context.Background(), r, nil); err != nil {
						b.Fatal(err)
					}
				}
				svc := lettershop.New(st, lettershop.WithClock(testclock.New(testStart)))
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				c0 := processCPU()
				b.StartTimer()
				if _, err := svc.AdvanceAccountClock(context.Background(), acct, 30*24*time.Hour); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += processCPU() - c0
				runtime.ReadMemStats(&m1)
				bytes += m1.TotalAlloc - m0.TotalAlloc
				allocs += m1.Mallocs - m0.Mallocs
				page, err := st.ListLetters(context.Background(), storage.LetterQuery{Account: acct, Status: "mailed", Limit: n + 1, Brief: true})
				if err != nil {
					b.Fatal(err)
				}
				moved = len(page)
				svc.Close()
				b.StartTimer()
			}
			if moved != n {
				b.Fatalf("%d of %d letters mailed", moved, n)
			}
			per := float64(b.N) * float64(n)
			b.ReportMetric(float64(cpu.Nanoseconds())/per, "cpu-ns/letter")
			b.ReportMetric(float64(bytes)/per, "B/letter")
			b.ReportMetric(float64(allocs)/per, "allocs/letter")
		})
	}
}
