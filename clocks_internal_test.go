package lettershop

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lettershop/lettershop/internal/acctclock"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/testclock"
)

// clockAccounts returns the accounts with clocks of their own.
func clockAccounts(cs *acctclock.Clocks) []string {
	var out []string
	cs.Each(func(c storage.AccountClock) bool {
		out = append(out, c.Account)
		return true
	})
	slices.Sort(out)
	return out
}

// An account's clock costs a lookup only while it stands apart from the
// Service's: back on the Service's time (unfrozen where it was frozen, or
// never moved), reading any account's time is again reading the Service's
// clock.
func TestAccountClockKeptOnlyWhileApart(t *testing.T) {
	tc := testclock.New(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	st := memstore.New()
	s := New(st, WithClock(tc))
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	apart := func(want bool, stamp int64) {
		t.Helper()
		_, own := s.clocks.Lookup("acct")
		n, err := st.ClockStamp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.clocks.Apart() != want || own != want || n != stamp {
			t.Errorf("apart %v, own clock %v, store stamp %d; want %v, %v, %d", s.clocks.Apart(), own, n, want, want, stamp)
		}
	}
	apart(false, 0)
	if _, err := s.AdvanceAccountClock(ctx, "acct", 0); err != nil {
		t.Fatal(err)
	}
	apart(false, 0) // nothing stored for a move that leaves it on the Service's time
	if _, err := s.FreezeAccountClock(ctx, "acct", true); err != nil {
		t.Fatal(err)
	}
	apart(true, 1)
	if _, err := s.FreezeAccountClock(ctx, "acct", false); err != nil {
		t.Fatal(err)
	}
	apart(false, 2)
	if _, err := s.AdvanceAccountClock(ctx, "acct", time.Hour); err != nil {
		t.Fatal(err)
	}
	apart(true, 3)
	if got := clockAccounts(&s.clocks); !slices.Equal(got, []string{"acct"}) {
		t.Errorf("accounts with clocks of their own: %v", got)
	}
}

// BenchmarkAccountTime is what reading an account's time costs a request
// on a test clock: the read of the store's clock stamp at the start of the
// operation, and the account's clock looked up, with one account's clock
// apart and with 3,000 (the account's among them, acct_0, or not). Nothing
// changed since the last read, as between most requests.
func BenchmarkAccountTime(b *testing.B) {
	for _, n := range []int{1, 3000} {
		st := memstore.New()
		s := New(st, WithClock(testclock.New(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))))
		ctx := context.Background()
		for i := range n {
			if _, err := s.AdvanceAccountClock(ctx, fmt.Sprintf("acct_%d", i), time.Duration(i+1)*time.Minute); err != nil {
				b.Fatal(err)
			}
		}
		for _, account := range []string{"acct_0", "acct_none"} {
			b.Run(fmt.Sprintf("clocks=%d/%s", n, account), func(b *testing.B) {
				for b.Loop() {
					s.clocks.Refresh(ctx)
					_ = s.now(account)
				}
			})
		}
		s.Close()
	}
}
