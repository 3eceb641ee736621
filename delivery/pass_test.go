package delivery_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// calls counts what a pass asks the store.
type calls struct {
	storage.Storage
	accounts, due atomic.Int64
}

func (c *calls) DeliveryAccounts(ctx context.Context, q storage.DeliveryAccountQuery) ([]storage.DeliveryAccount, error) {
	c.accounts.Add(1)
	return c.Storage.DeliveryAccounts(ctx, q)
}

func (c *calls) ProcessDueDeliveries(ctx context.Context, q storage.DeliveryDueQuery, fn func(*storage.Delivery) error) ([]storage.Delivery, error) {
	c.due.Add(1)
	return c.Storage.ProcessDueDeliveries(ctx, q, fn)
}

func (c *calls) reset() { c.accounts.Store(0); c.due.Store(0) }

// wallClock is a wall clock a test moves, without clock.Mock's pause on
// every move (which a benchmark would measure).
type wallClock struct {
	clock.Clock
	now atomic.Int64
}

func (c *wallClock) Now() time.Time      { return time.Unix(0, c.now.Load()).UTC() }
func (c *wallClock) Add(d time.Duration) { c.now.Add(int64(d)) }

// passLease is how long a pass leases what it takes: the pass makes no
// attempt, so a delivery is due again once the wall clock moves past it.
const passLease = time.Minute

// passBench is a Service on store whose accounts acct_0000 and on have
// clocks of their own, each a minute further on than the last, and a
// webhook in acct_0000; its Deliverer does nothing, so passes are made by
// hand on the Deliveries it returns.
func passBench(tb testing.TB, store storage.Storage, accounts int) (*lettershop.Service, *lettershop.Deliveries, *calls, *wallClock) {
	tb.Helper()
	mc, wall := clock.NewMock(), &wallClock{Clock: clock.New()}
	mc.Set(start)
	wall.now.Store(start.UnixNano())
	st := &calls{Storage: store}
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithWallClock(wall))
	tb.Cleanup(func() { svc.Close() })
	var d *lettershop.Deliveries
	svc.UseDeliverer(func(ds *lettershop.Deliveries) lettershop.Deliverer { d = ds; return idle{} })
	ctx := context.Background()
	for i := range accounts {
		if _, err := svc.AdvanceAccountClock(ctx, benchAccount(i), time.Duration(i+1)*time.Minute); err != nil {
			tb.Fatal(err)
		}
	}
	createWebhook(tb, svc, benchAccount(0), "https://example.com/hooks")
	st.reset()
	return svc, d, st, wall
}

func benchAccount(i int) string { return fmt.Sprintf("acct_%04d", i) }

// pass makes one pass as a Deliverer of Open does (the accounts Due names,
// then each one's take), and returns the accounts it took deliveries of.
// The attempts are not made: their leases pass.
func pass(tb testing.TB, d *lettershop.Deliveries) []string {
	tb.Helper()
	ctx := context.Background()
	accounts, err := delivery.Due(ctx, d)
	if err != nil {
		tb.Fatal(err)
	}
	var took []string
	for _, a := range accounts {
		attempts, err := d.Take(ctx, lettershop.TakeRequest{Account: a, Limit: delivery.DefaultPerAccount, Lease: passLease})
		if err != nil {
			tb.Fatal(err)
		}
		if len(attempts) > 0 {
			took = append(took, a)
		}
	}
	return took
}

// A pass asks the store once for the accounts with deliveries to take,
// whatever the number of accounts with clocks of their own, and takes
// only from those whose earliest is due on their own clock.
func TestPassAsksOnlyForDueAccounts(t *testing.T) {
	svc, d, st, wall := passBench(t, memstore.New(), 300)
	ctx := context.Background()
	asked := func(what string, accounts, due int64) {
		t.Helper()
		if a, p := st.accounts.Load(), st.due.Load(); a != accounts || p != due {
			t.Errorf("%s: %d calls for the accounts and %d takes, want %d and %d", what, a, p, accounts, due)
		}
		st.reset()
	}
	if got := pass(t, d); len(got) != 0 {
		t.Errorf("nothing due: took from %v", got)
	}
	asked("nothing due among 300 accounts", 1, 0)

	// acct_0001's webhook gets a delivery due now; acct_0002's, one due a
	// minute after its clock's time (its first attempt failed, to be
	// tried again a minute on).
	for _, a := range []string{benchAccount(1), benchAccount(2)} {
		createWebhook(t, svc, a, "https://example.com/hooks")
		createLetters(t, svc, a, 1)
	}
	attempts, err := d.Take(ctx, lettershop.TakeRequest{Account: benchAccount(2), Limit: 1, Lease: passLease})
	if err != nil || len(attempts) != 1 {
		t.Fatalf("take of %s: %d attempts, %v", benchAccount(2), len(attempts), err)
	}
	if err := attempts[0].Record(ctx, lettershop.AttemptOutcome{Err: fmt.Errorf("refused"), RetryAfter: time.Minute}); err != nil {
		t.Fatal(err)
	}
	st.reset()
	if got := pass(t, d); !slices.Equal(got, []string{benchAccount(1)}) {
		t.Errorf("took from %v, want only %s: %s's is not due on its clock", got, benchAccount(1), benchAccount(2))
	}
	asked("one due among 300 accounts", 1, 1)

	// Under way (leased), acct_0001's is not taken again; its lease passed,
	// it is. A minute on acct_0002's clock, its is due.
	if got := pass(t, d); len(got) != 0 {
		t.Errorf("took from %v while the lease holds", got)
	}
	asked("one under way", 1, 0)
	if _, err := svc.AdvanceAccountClock(ctx, benchAccount(2), time.Minute); err != nil {
		t.Fatal(err)
	}
	wall.Add(passLease)
	st.reset()
	if got := pass(t, d); !slices.Equal(got, []string{benchAccount(1), benchAccount(2)}) {
		t.Errorf("took from %v, want %s and %s", got, benchAccount(1), benchAccount(2))
	}
	asked("two due", 1, 2)
}

// BenchmarkDeliveryPass is one pass over 1,000 accounts with clocks of
// their own, none or one of them with a delivery due: the store names the
// accounts with deliveries to take. With LETTERSHOP_TEST_POSTGRES set it
// runs on pgstore too, in a schema of its own.
func BenchmarkDeliveryPass(b *testing.B) {
	for _, st := range benchStores() {
		for _, due := range []int{0, 1} {
			b.Run(fmt.Sprintf("store=%s/accounts=1000/due=%d", st.name, due), func(b *testing.B) {
				svc, d, _, wall := passBench(b, st.open(b), 1000)
				if due > 0 {
					createLetters(b, svc, benchAccount(0), 1)
				}
				for b.Loop() {
					if got := pass(b, d); len(got) != due {
						b.Fatalf("took from %d accounts, want %d", len(got), due)
					}
					// The lease passes: the delivery is due again.
					wall.Add(time.Hour)
				}
			})
		}
	}
}

// benchStore opens an empty store for a benchmark.
type benchStore struct {
	name string
	open func(testing.TB) storage.Storage
}

// benchStores are memstore, and pgstore when LETTERSHOP_TEST_POSTGRES
// names a database: each benchmark's in a schema of its own, dropped after.
func benchStores() []benchStore {
	stores := []benchStore{{"memstore", func(testing.TB) storage.Storage { return memstore.New() }}}
	dsn := os.Getenv("LETTERSHOP_TEST_POSTGRES")
	if dsn == "" {
		return stores
	}
	return append(stores, benchStore{"pgstore", func(tb testing.TB) storage.Storage {
		schema := fmt.Sprintf("lettershop_bench_%d", time.Now().UnixNano())
		ctx := context.Background()
		st, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() {
			st.Close()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				tb.Errorf("drop schema %s: %v", schema, err)
				return
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
				tb.Errorf("drop schema %s: %v", schema, err)
			}
		})
		return st
	}})
}
