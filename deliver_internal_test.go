package lettershop

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

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// webhookCalls counts what the deliverer asks the store.
type webhookCalls struct {
	storage.Storage
	accounts, due atomic.Int64
}

func (c *webhookCalls) DeliveryAccounts(ctx context.Context, q storage.DeliveryAccountQuery) ([]storage.DeliveryAccount, error) {
	c.accounts.Add(1)
	return c.Storage.DeliveryAccounts(ctx, q)
}

func (c *webhookCalls) ProcessDueDeliveries(ctx context.Context, q storage.DeliveryDueQuery, fn func(*storage.Delivery) error) ([]storage.Delivery, error) {
	c.due.Add(1)
	return c.Storage.ProcessDueDeliveries(ctx, q, fn)
}

func (c *webhookCalls) reset() { c.accounts.Store(0); c.due.Store(0) }

// wallClock is a wall clock a test moves, without clock.Mock's pause on
// every move (which a benchmark would measure).
type wallClock struct {
	clock.Clock
	now atomic.Int64
}

func newWallClock(t time.Time) *wallClock {
	c := &wallClock{Clock: clock.New()}
	c.now.Store(t.UnixNano())
	return c
}

func (c *wallClock) Now() time.Time      { return time.Unix(0, c.now.Load()).UTC() }
func (c *wallClock) Add(d time.Duration) { c.now.Add(int64(d)) }

// deliveryBench is a Service whose accounts acct_0000 and on have clocks of
// their own, each a minute further on than the last, and a webhook in
// acct_0000; it has no Deliverer, so passes are made by hand.
func deliveryBench(tb testing.TB, store storage.Storage, accounts int) (*Service, *webhookCalls, *wallClock) {
	tb.Helper()
	mc, wall := clock.NewMock(), newWallClock(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	st := &webhookCalls{Storage: store}
	s := New(st, WithClock(mc), WithWallClock(wall))
	tb.Cleanup(func() { s.Close() })
	ctx := context.Background()
	for i := range accounts {
		if _, err := s.AdvanceAccountClock(ctx, benchAccount(i), time.Duration(i+1)*time.Minute); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.CreateWebhook(ctx, benchAccount(0), CreateWebhookInput{URL: "https://example.com/hooks"}); err != nil {
		tb.Fatal(err)
	}
	st.reset()
	return s, st, wall
}

// benchTake and benchLease are what a take of package delivery's asks by
// default: 4 deliveries, leased for the 10 s of an attempt and 30 s more.
const (
	benchTake  = 4
	benchLease = 40 * time.Second
)

func benchAccount(i int) string { return fmt.Sprintf("acct_%04d", i) }

// newDelivery stores a new letter of the account, made at its time plus
// ahead, whose letter.created event is a delivery to each of the account's
// webhooks: due once the account's clock reaches that time.
func newDelivery(tb testing.TB, s *Service, account string, ahead time.Duration) {
	tb.Helper()
	at := s.now(account).Add(ahead)
	l := &Letter{ID: s.newID(letterPrefix, at), Status: StatusQueued, CreatedAt: at, ModifiedAt: at,
		Sender:    Party{Organization: "Acme Corp", Address: Address{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}, AddressComponents: &AddressComponents{CassType: "none"}},
		Recipient: Party{Individual: &Individual{FullName: "Jane Doe", FirstName: "Jane", LastName: "Doe"}, Address: Address{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}, AddressComponents: &AddressComponents{CassType: "none"}},
		Options:   normalizeOptions(nil, fieldErrors{}),
	}
	s.life.begin(l, at)
	rec, err := letterRecord(account, l)
	if err != nil {
		tb.Fatal(err)
	}
	stored, err := s.store.CreateLetter(context.Background(), rec, nil)
	if err != nil || stored.Deliveries == 0 {
		tb.Fatalf("CreateLetter: %d deliveries, %v; want some", stored.Deliveries, err)
	}
}

// pass makes one pass as the engine does (the accounts with due
// deliveries, then each one's take), and returns the accounts it took
// deliveries of. The attempts are not made: the deliveries are let go.
func pass(tb testing.TB, d *Deliveries) []string {
	tb.Helper()
	ctx := context.Background()
	accounts, err := due(ctx, d, 500)
	if err != nil {
		tb.Fatal(err)
	}
	var took []string
	for _, a := range accounts {
		attempts, err := d.Take(ctx, TakeRequest{Account: a, Limit: benchTake, Lease: benchLease})
		if err != nil {
			tb.Fatal(err)
		}
		if len(attempts) > 0 {
			took = append(took, a)
		}
	}
	return took
}

// due reads every page of d.DueAccounts, as package delivery's Due does.
func due(ctx context.Context, d *Deliveries, page int) ([]string, error) {
	var out []string
	after := ""
	for {
		due, next, err := d.DueAccounts(ctx, after, page)
		if out == nil {
			out = due
		} else {
			out = append(out, due...)
		}
		if err != nil || next == "" {
			return out, err
		}
		after = next
	}
}

// scanPass is a pass as it was made before the store named the accounts
// with deliveries to take: a take at the Service's time for the accounts
// on its clock, then one for each account with a clock of its own, each
// until it takes nothing. It is the baseline BenchmarkDeliveryPass
// measures the pass against.
func scanPass(tb testing.TB, d *Deliveries) []string {
	tb.Helper()
	ctx := context.Background()
	server := d.s.clocks.ServerNow()
	except, _ := clocksBehind(&d.s.clocks, server)
	queries := []storage.DueQuery{{Now: server, Except: except}}
	for _, a := range clockAccounts(&d.s.clocks) {
		queries = append(queries, storage.DueQuery{Now: d.s.now(a), Account: a})
	}
	var took []string
	for _, q := range queries {
		for {
			q.Limit = benchTake
			attempts, err := d.take(ctx, q, TakeRequest{Lease: benchLease})
			if err != nil {
				tb.Fatal(err)
			}
			if len(attempts) == 0 {
				break
			}
			took = append(took, q.Account)
		}
	}
	return took
}

// A pass asks the store once for the accounts with deliveries to take,
// whatever the number of accounts with clocks of their own, and takes
// only from those whose earliest is due on their own clock.
func TestDeliveryPassAsksOnlyForDueAccounts(t *testing.T) {
	s, st, wall := deliveryBench(t, memstore.New(), 300)
	d := &s.deliveries
	calls := func(what string, accounts, due int64) {
		t.Helper()
		if a, p := st.accounts.Load(), st.due.Load(); a != accounts || p != due {
			t.Errorf("%s: %d calls for the accounts and %d takes, want %d and %d", what, a, p, accounts, due)
		}
		st.reset()
	}
	if got := pass(t, d); len(got) != 0 {
		t.Errorf("nothing due: took from %v", got)
	}
	calls("nothing due among 300 accounts", 1, 0)

	// acct_0001's webhook gets a delivery due now; acct_0002's, one due a
	// minute after its clock's time.
	for _, a := range []string{benchAccount(1), benchAccount(2)} {
		if _, err := s.CreateWebhook(context.Background(), a, CreateWebhookInput{URL: "https://example.com/hooks"}); err != nil {
			t.Fatal(err)
		}
	}
	newDelivery(t, s, benchAccount(1), 0)
	newDelivery(t, s, benchAccount(2), time.Minute)
	st.reset()
	if got := pass(t, d); !slices.Equal(got, []string{benchAccount(1)}) {
		t.Errorf("took from %v, want only %s: %s's is not due on its clock", got, benchAccount(1), benchAccount(2))
	}
	calls("one due among 300 accounts", 1, 1)

	// Under way (leased), acct_0001's is not taken again; its lease passed,
	// it is. A minute on acct_0002's clock, its is due.
	if got := pass(t, d); len(got) != 0 {
		t.Errorf("took from %v while the lease holds", got)
	}
	calls("one under way", 1, 0)
	if _, err := s.AdvanceAccountClock(context.Background(), benchAccount(2), time.Minute); err != nil {
		t.Fatal(err)
	}
	wall.Add(benchLease)
	st.reset()
	if got := pass(t, d); !slices.Equal(got, []string{benchAccount(1), benchAccount(2)}) {
		t.Errorf("took from %v, want %s and %s", got, benchAccount(1), benchAccount(2))
	}
	calls("two due", 1, 2)
}

// BenchmarkDeliveryPass is one pass of the deliverer over 1,000 accounts
// with clocks of their own, none or one of them with a delivery due:
// "each account" is the pass as it was (a take per account with a clock of
// its own), "due accounts" the pass as it is (the store names the accounts
// with deliveries to take). With LETTERSHOP_TEST_POSTGRES set it runs on
// pgstore too, in a schema of its own.
func BenchmarkDeliveryPass(b *testing.B) {
	for _, st := range benchStores(b) {
		for _, due := range []int{0, 1} {
			b.Run(fmt.Sprintf("store=%s/accounts=1000/due=%d", st.name, due), func(b *testing.B) {
				s, _, wall := deliveryBench(b, st.open(b), 1000)
				if due > 0 {
					newDelivery(b, s, benchAccount(0), 0)
				}
				for _, p := range []struct {
					name string
					pass func(testing.TB, *Deliveries) []string
				}{{"each account", scanPass}, {"due accounts", pass}} {
					b.Run(p.name, func(b *testing.B) {
						for b.Loop() {
							if got := p.pass(b, &s.deliveries); len(got) != due {
								b.Fatalf("took from %d accounts, want %d", len(got), due)
							}
							// The lease passes: the delivery is due again.
							wall.Add(time.Hour)
						}
					})
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
func benchStores(tb testing.TB) []benchStore {
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
