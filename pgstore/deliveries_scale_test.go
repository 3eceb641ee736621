package pgstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// What a delivery pass asks of the store, and what that costs, beside an
// account whose receiver hangs: its letters' changes pile up pending, the
// first of each letter attempted and retried later, or leased while an
// attempt hangs, and the rest waiting behind them.

// backlog is how acct_hanging's pending deliveries stand: letters
// of eight changes each; the first change of the first retried letters
// failed and is retried a day later, that of the next leased ones is under
// way (leased until two hours in); the other letters' first changes are
// due and free to take.
type backlog struct{ letters, retried, leased int }

const (
	fastAccount = "acct_fast"
	hangingAcct = "acct_hanging"
)

// scaleNow is when the pass runs: deliveries are due by it and leases
// judged at it.
var scaleNow = epoch.Add(time.Hour)

// fillDeliveries writes the webhooks of acct_fast and acct_hanging and
// their pending deliveries straight into the schema: three letters' first
// change for acct_fast, due 5, 15 and 25 seconds after epoch, and for
// acct_hanging h's letters, letter l's change s made l*10+s seconds after
// epoch. No ANALYZE: the planner has no statistics, as on a database
// without autovacuum.
func fillDeliveries(t testing.TB, conn *pgx.Conn, h backlog) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `INSERT INTO webhooks (account, id, url, events, description, metadata, status, secret, created_at, modified_at, revision)
		VALUES ($1, 'wh_fast', 'https://example.com/fast', '{}', '', '[]', 'enabled', 'whsec_f', $3, $3, 1),
			($2, 'wh_hanging', 'https://example.com/hanging', '{}', '', '[]', 'enabled', 'whsec_h', $3, $3, 1)`,
		fastAccount, hangingAcct, epoch); err != nil {
		t.Fatal(err)
	}
	const cols = `webhook_id, id, account, event_id, type, letter_id, seq, event_at, status, attempts,
		next_attempt_at, retry_until, leased_until, last_attempt_at, status_code, error, revision`
	if _, err := conn.Exec(ctx, `INSERT INTO deliveries (`+cols+`)
		SELECT 'wh_fast', 'dlv_f' || i, $1, 'evt_f' || i, 'letter.created', 'ltr_f' || i, 0,
			$2::timestamptz + (i * 10 + 5) * interval '1 second', 'pending', 0,
			$2::timestamptz + (i * 10 + 5) * interval '1 second', $2::timestamptz + interval '3 days', NULL, NULL, 0, '', 1
		FROM generate_series(0, 2) i`, fastAccount, epoch); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO deliveries (`+cols+`)
		SELECT 'wh_hanging', format('dlv_h%s_%s', l, s), $1, format('evt_h%s_%s', l, s), 'letter.created', 'ltr_h' || l, s,
			$2::timestamptz + (l * 10 + s) * interval '1 second', 'pending', CASE WHEN s = 0 AND l <= $4::integer + $5::integer THEN 1 ELSE 0 END,
			CASE WHEN s = 0 AND l <= $4::integer THEN $2::timestamptz + interval '1 day' ELSE $2::timestamptz + (l * 10 + s) * interval '1 second' END,
			$2::timestamptz + interval '3 days',
			CASE WHEN s = 0 AND l > $4::integer AND l <= $4::integer + $5::integer THEN $2::timestamptz + interval '2 hours' END, NULL, 0, '', 1
		FROM generate_series(1, $3::integer) l, generate_series(0, 7) s`, hangingAcct, epoch, h.letters, h.retried, h.leased); err != nil {
		t.Fatal(err)
	}
}

// seconds is epoch and n seconds.
func seconds(n int) time.Time { return epoch.Add(time.Duration(n) * time.Second) }

// DeliveryAccounts names each account with its earliest delivery to take,
// looking past those it can not take (waiting behind their letter's
// first, under way) among an account's first 64 pending; past them, it
// names the account with the 64th's time, no later than its earliest to
// take. What the take then finds is exact.
func TestDeliveryAccountsLookAhead(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tc := range []struct {
		name   string
		h      backlog
		leased time.Time // leases judged at
		next   time.Time // acct_hanging's
		taken  []string  // what a take of 4 finds in acct_hanging
	}{
		// 2*7 waiting behind retries, 4*8 under way or behind them: 46.
		{"46 ahead", backlog{letters: 20, retried: 2, leased: 4}, scaleNow, seconds(70),
			[]string{"dlv_h7_0", "dlv_h8_0", "dlv_h9_0", "dlv_h10_0"}},
		// The leases passed: their first changes are to take again.
		{"leases passed", backlog{letters: 20, retried: 2, leased: 4}, epoch.Add(3 * time.Hour), seconds(30),
			[]string{"dlv_h3_0", "dlv_h4_0", "dlv_h5_0", "dlv_h6_0"}},
		// 63 ahead: the 64th pending is the first to take.
		{"63 ahead", backlog{letters: 20, retried: 9}, scaleNow, seconds(100),
			[]string{"dlv_h10_0", "dlv_h11_0", "dlv_h12_0", "dlv_h13_0"}},
		// 70 ahead: named with the 64th's time, letter 10's second change.
		{"70 ahead", backlog{letters: 20, retried: 10}, scaleNow, seconds(101),
			[]string{"dlv_h11_0", "dlv_h12_0", "dlv_h13_0", "dlv_h14_0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := newSchema(t)
			st := openStore(t, schema)
			fillDeliveries(t, adminConn(t, schema), tc.h)
			got, err := st.DeliveryAccounts(ctx, storage.DeliveryAccountQuery{Leased: tc.leased, Until: scaleNow, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			want := []storage.DeliveryAccount{{Account: fastAccount, Next: seconds(5)}, {Account: hangingAcct, Next: tc.next}}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("DeliveryAccounts: %v, want %v", got, want)
			}
			taken, err := st.ProcessDueDeliveries(ctx, storage.DeliveryDueQuery{
				DueQuery: storage.DueQuery{Now: scaleNow, Account: hangingAcct, Limit: 4}, Leased: tc.leased,
			}, func(d *storage.Delivery) error { d.LeasedUntil = tc.leased.Add(time.Minute); return nil })
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range taken {
				ids = append(ids, d.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.taken) {
				t.Errorf("taken: %v, want %v", ids, tc.taken)
			}
		})
	}
}

// touched counts the rows the plan's scans read: those they returned and
// those their filters removed, over all their loops.
func touched(n planNode) float64 {
	var rows float64
	n.walk(func(n planNode) {
		switch n.NodeType {
		case "Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Index Scan":
			rows += (n.ActualRows + n.Removed) * max(n.ActualLoops, 1)
		}
	})
	return rows
}

// passQueries are the statements of one delivery pass, as the Service
// sends them: the accounts with deliveries to take, then a take from each.
func passQueries() []struct {
	name, sql string
	args      []any
} {
	take := fmt.Sprintf(pgstore.DueDeliveriesSQL, "AND d.account = $4", "d.account, d.")
	return []struct {
		name, sql string
		args      []any
	}{
		{"accounts", pgstore.DeliveryAccountsSQL, []any{"", scaleNow, scaleNow, 500}},
		{"accounts, every time", pgstore.DeliveryAccountsSQL, []any{"", scaleNow, nil, 500}},
		{"take acct_fast", take, []any{scaleNow, 4, scaleNow, fastAccount}},
		{"take acct_hanging", take, []any{scaleNow, 4, scaleNow, hangingAcct}},
	}
}

// The cost of a delivery pass follows the accounts with deliveries, not
// the deliveries: with 100 or 10,000 of a hanging receiver's deliveries
// pending, on a table without statistics, each statement of the pass reads
// the same rows, in the plan a server first makes and in the generic one
// it makes after repeated runs. (A query that read every pending delivery
// took 18.5 s a pass at 6,568 of them, the planner probing for each one
// the account's every pending delivery.)
func TestDeliveryPassCostFollowsAccounts(t *testing.T) {
	t.Parallel()
	sizes := []int{100, 10_000}
	read := map[string][]float64{}
	plans := map[string]string{}
	for _, pending := range sizes {
		schema := newSchema(t)
		openStore(t, schema)
		conn := adminConn(t, schema)
		fillDeliveries(t, conn, backlog{letters: pending / 8, retried: 2, leased: 4})
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			for _, q := range passQueries() {
				plan := explain(t, conn, mode, q.sql, q.args)
				key := mode + "/" + q.name
				read[key] = append(read[key], touched(plan))
				plans[fmt.Sprintf("%s at %d", key, pending)] = plan.String()
			}
		}
	}
	for key, rows := range read {
		small, large := rows[0], rows[1]
		t.Logf("%s: %v rows read at %d pending, %v at %d", key, small, sizes[0], large, sizes[1])
		// The same head of deliveries, whatever the tail: the same rows,
		// give or take a webhook row.
		if large > small+2 || large > 200 {
			t.Errorf("%s reads %v rows at %d pending deliveries, %v at %d; want as many:\n%s\n%s", key, small, sizes[0], large, sizes[1],
				plans[fmt.Sprintf("%s at %d", key, sizes[0])], plans[fmt.Sprintf("%s at %d", key, sizes[1])])
		}
	}
}

// A pass over a Service on PostgreSQL: with thousands of a hanging
// receiver's deliveries pending, another account's delivery is taken on
// the next pass, and so is each of the hanging account's that is free.
func TestHangingAccountDoesNotHoldUpAnother(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	st := openStore(t, schema)
	fillDeliveries(t, adminConn(t, schema), backlog{letters: 1000, retried: 2, leased: 4})
	mc := clock.NewMock()
	mc.Set(scaleNow)
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithWallClock(mc), lettershop.WithTokenKey([]byte("test token key")))
	t.Cleanup(func() { svc.Close() })
	var d *lettershop.Deliveries
	svc.UseDeliverer(func(ds *lettershop.Deliveries) lettershop.Deliverer { d = ds; return idle{} })
	ctx := t.Context()
	due, err := delivery.Due(ctx, d)
	if err != nil || fmt.Sprint(due) != fmt.Sprint([]string{fastAccount, hangingAcct}) {
		t.Fatalf("Due: %v %v, want both accounts", due, err)
	}
	fast, err := d.Take(ctx, lettershop.TakeRequest{Account: fastAccount, Limit: 4, Lease: time.Minute})
	if err != nil || len(fast) != 3 {
		t.Fatalf("Take from %s: %d deliveries, %v; want its 3", fastAccount, len(fast), err)
	}
	hanging, err := d.Take(ctx, lettershop.TakeRequest{Account: hangingAcct, Limit: 4, Lease: time.Minute})
	if err != nil || len(hanging) != 4 || hanging[0].DeliveryID != "dlv_h7_0" {
		t.Fatalf("Take from %s: %d deliveries, %v; want 4 from letter 7's", hangingAcct, len(hanging), err)
	}
}

// idle is a Deliverer that does nothing: the test makes the passes.
type idle struct{}

func (idle) Wake()  {}
func (idle) Close() {}

// The statements of a pass before: the accounts' query read every pending
// delivery of every account, and a take probed for each delivery whether
// an earlier one of its letter was pending with NOT EXISTS, which a table
// without statistics planned as a scan of the account's every pending
// delivery. A baseline for the benchmark.
const (
	oldDeliveryAccountsSQL = `SELECT DISTINCT ON (d.account) d.account, d.next_attempt_at FROM deliveries d
	WHERE d.status = 'pending' AND ($1 = '' OR d.account > $1)
		AND (d.leased_until IS NULL OR d.leased_until <= $2)
		AND ($3::timestamptz IS NULL OR d.next_attempt_at <= $3)
		AND EXISTS (SELECT 1 FROM webhooks w WHERE w.account = d.account AND w.id = d.webhook_id AND w.status = 'enabled')
		AND NOT EXISTS (SELECT 1 FROM deliveries e
			WHERE e.account = d.account AND e.webhook_id = d.webhook_id AND e.letter_id = d.letter_id AND e.status = 'pending' AND e.seq < d.seq)
	ORDER BY d.account, d.next_attempt_at
	LIMIT $4`
	oldTakeSQL = `SELECT d.id FROM deliveries d
	WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.leased_until IS NULL OR d.leased_until <= $3) AND d.account = $4
		AND EXISTS (SELECT 1 FROM webhooks w WHERE w.account = d.account AND w.id = d.webhook_id AND w.status = 'enabled')
		AND NOT EXISTS (SELECT 1 FROM deliveries e
			WHERE e.account = d.account AND e.webhook_id = d.webhook_id AND e.letter_id = d.letter_id
				AND e.status = 'pending' AND e.seq < d.seq)
	ORDER BY d.account, d.next_attempt_at, d.webhook_id, d.id LIMIT $2
	FOR UPDATE OF d SKIP LOCKED`
)

// pass runs the statements of one delivery pass in a transaction it rolls
// back, so that every pass finds the deliveries as they were: the
// accounts with deliveries to take, then a take of up to 4 from each.
func pass(b *testing.B, conn *pgx.Conn, accountsSQL, takeSQL string) {
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	rows, err := tx.Query(ctx, accountsSQL, "", scaleNow, scaleNow, 500)
	if err != nil {
		b.Fatal(err)
	}
	accounts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var a string
		var next time.Time
		err := r.Scan(&a, &next)
		return a, err
	})
	if err != nil || len(accounts) != 2 {
		b.Fatalf("accounts: %v %v", accounts, err)
	}
	for _, a := range accounts {
		rows, err := tx.Query(ctx, takeSQL, scaleNow, 4, scaleNow, a)
		if err != nil {
			b.Fatal(err)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeliveryPass measures the statements of a delivery pass (the
// accounts with deliveries to take, then a take from each, rolled back)
// with 100 and 10,000 of a hanging receiver's deliveries pending beside
// another account's three, on a table without statistics; and, as a
// baseline in the same run, the statements sent before:
//
//	LETTERSHOP_TEST_POSTGRES=... go test -run '^$' -bench DeliveryPass ./pgstore
func BenchmarkDeliveryPass(b *testing.B) {
	take := fmt.Sprintf(pgstore.DueDeliveriesSQL, "AND d.account = $4", "d.account, d.")
	for _, pending := range []int{100, 10_000} {
		schema := newSchema(b)
		openStore(b, schema)
		conn := adminConn(b, schema)
		fillDeliveries(b, conn, backlog{letters: pending / 8, retried: 2, leased: 4})
		b.Run(fmt.Sprintf("pending=%d/now", pending), func(b *testing.B) {
			for b.Loop() {
				pass(b, conn, pgstore.DeliveryAccountsSQL, take)
			}
		})
		b.Run(fmt.Sprintf("pending=%d/before", pending), func(b *testing.B) {
			for b.Loop() {
				pass(b, conn, oldDeliveryAccountsSQL, oldTakeSQL)
			}
		})
	}
}
