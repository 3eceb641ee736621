package lettershop_test

import (
	"fmt"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/testclock"
)

// BenchmarkIdempotentCreateLetter creates letters each under a key of its
// own: the claim, the lease renewer started and stopped around the
// operation, the outcome stored with the letter, the counting towards a
// trim (one in every cap/16 outcomes trims) and the purge spacing. On a
// clock.Mock; on a testclock.Clock, whose tickers cost nothing while they
// do not tick; and on the real clock, whose tickers are the runtime's.
func BenchmarkIdempotentCreateLetter(b *testing.B) {
	for _, c := range []struct {
		name  string
		clock func() clock.Clock
	}{
		{"clock=mock", nil},
		{"clock=testclock", func() clock.Clock { return testclock.New(testStart) }},
		{"clock=real", clock.New},
	} {
		b.Run(c.name, func(b *testing.B) {
			var opts []lettershop.Option
			if c.clock != nil {
				opts = append(opts, lettershop.WithClock(c.clock()))
			}
			e := newEnv(b, opts...)
			a, _ := e.publishedTemplate(b, acct)
			in := letterInput(a.ID)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				ctx := lettershop.WithIdempotencyKey(e.ctx, fmt.Sprintf("key-%d", i))
				if _, err := e.svc.CreateLetter(ctx, acct, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
