package lettershop

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/memstore"
)

// An account's clock costs a lookup only while it stands apart from the
// Service's: back on the Service's time (unfrozen where it was frozen, or
// never moved), it keeps nothing, and reading any account's time is again
// reading the Service's clock.
func TestAccountClockKeptOnlyWhileApart(t *testing.T) {
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	s := New(memstore.New(), WithClock(mc))
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	kept := func(want int64) {
		t.Helper()
		s.clocks.mu.RLock()
		n := len(s.clocks.m)
		s.clocks.mu.RUnlock()
		if got := s.clocks.own.Load(); got != want || int64(n) != want {
			t.Errorf("%d clocks counted, %d kept; want %d", got, n, want)
		}
	}
	kept(0)
	if _, err := s.AdvanceAccountClock(ctx, "acct", 0); err != nil {
		t.Fatal(err)
	}
	kept(0)
	if _, err := s.FreezeAccountClock(ctx, "acct", true); err != nil {
		t.Fatal(err)
	}
	kept(1)
	if _, err := s.FreezeAccountClock(ctx, "acct", false); err != nil {
		t.Fatal(err)
	}
	kept(0)
	if _, err := s.AdvanceAccountClock(ctx, "acct", time.Hour); err != nil {
		t.Fatal(err)
	}
	kept(1)
}
