package pgstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// BenchmarkClockStamp is the read each request of a server on a test clock
// makes first (storage.ClockStorage's ClockStamp, the check that no
// account's clock changed), beside what a request to read a letter makes
// anyway (one GetLetter), in turn, on a schema holding 3,000 accounts'
// clocks: stamp/get is the figure.
func BenchmarkClockStamp(b *testing.B) {
	s := openStore(b, newSchema(b))
	ctx := context.Background()
	l := storage.Letter{ID: "ltr_bench", Account: "acct_7", Status: "queued", CreatedAt: epoch, ModifiedAt: epoch, Doc: storage.Encoded(benchDoc)}
	if _, err := s.CreateLetter(ctx, l, nil); err != nil {
		b.Fatal(err)
	}
	for i := range 3000 {
		c := storage.AccountClock{Account: fmt.Sprintf("acct_%d", i), At: epoch.Add(time.Duration(i) * time.Minute), Anchor: epoch}
		if _, err := s.PutAccountClock(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	var inStamp, inGet time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.ClockStamp(ctx); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := s.GetLetter(ctx, "acct_7", l.ID); err != nil {
			b.Fatal(err)
		}
		inStamp += t1.Sub(t0)
		inGet += time.Since(t1)
	}
	b.ReportMetric(float64(inStamp.Microseconds())/float64(b.N), "stamp-µs/op")
	b.ReportMetric(float64(inGet.Microseconds())/float64(b.N), "get-µs/op")
	b.ReportMetric(float64(inStamp)/float64(inGet), "stamp/get")
}
