package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// The benchmarks run against a schema of their own holding benchRows
// letters, loaded with COPY the first time and kept for later runs (drop
// the schema to reload it). Creates go to another account of the same
// table, so the table and its indexes are at full size, and are deleted
// after each benchmark.
//
//	LETTERSHOP_TEST_POSTGRES=postgres://... go test -run '^$' -bench . -benchtime 5s ./pgstore
const (
	benchSchema  = "pgstore_bench_1m"
	benchRows    = 1_000_000
	benchAccount = "acct_bench"
	// benchVersion changes when the generated rows do, to reload them.
	benchVersion = 1
	// createAccount receives the letters the create benchmarks make.
	createAccount = "acct_bench_create"
)

var benchEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// benchDoc is a letter's Data as the service writes it, about 1.3 kB: the
// parties with CASS results, content, options, two events and the snapshot.
var benchDoc = []byte(`{"sender":{"address":{"addressLine1":"1 Market St","addressLine2":"Suite 300","lastLine":"San Francisco CA 94105-1420"},"individual":{"firstName":"Ada","lastName":"Lovelace"},"organization":"Analytical Engines","addressComponents":{"cassType":"basic","city":"San Francisco","state":"CA","zipCode":"94105","plus4Code":"1420"}},"recipient":{"address":{"addressLine1":"350 5th Ave","lastLine":"New York NY 10118-0110"},"individual":{"firstName":"Grace","lastName":"Hopper"},"addressComponents":{"cassType":"basic","city":"New York","state":"NY","zipCode":"10118","plus4Code":"0110"},"addressAnalysis":{"dpvMatchCode":"Y","dpvFootnotes":["AA","BB"],"dpvCmra":"N","dpvVacant":"N","dpvActive":"Y","ewsIndicator":false},"addressMetadata":{"recordType":"H","addressType":"street","county":"New York","countyFips":"36061","carrierRoute":"C001","latitude":40.7484,"longitude":-73.9857,"timeZone":"America/New_York"}},"content":{"type":"asset","assetId":"ast_01hqzj6w5v8x7t9yq2m3n4p5r6","assetVersionId":"astv_01hqzj6w5v8x7t9yq2m3n4p5r7"},"useType":"marketing","events":[{"id":"evt_01hqzj6w5v8x7t9yq2m3n4p5r8","createdAt":"2024-01-01T00:00:00Z","modifiedAt":"2024-01-01T00:00:00Z","timestamp":"2024-01-01T00:00:00Z","type":"status","status":"queued","description":"Letter received"},{"id":"evt_01hqzj6w5v8x7t9yq2m3n4p5r9","createdAt":"2024-01-01T01:00:00Z","modifiedAt":"2024-01-01T01:00:00Z","timestamp":"2024-01-01T01:00:00Z","type":"status","status":"ready","description":"Processed"}],"options":{"print":{"color":false},"mail":{"service":"firstClass","extraServices":["acs"]},"addressProcessing":{"cassSender":{"type":"basic","casing":"proper"},"cassRecipient":{"type":"basic","casing":"proper"}},"deliverabilityThreshold":"normal"},"snapshot":{"hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","type":"text/html"}}`)

var benchStatuses = []string{"mailed", "mailed", "mailed", "mailed", "mailed", "mailed", "mailed", "queued", "ready", "canceled"}

// benchLetter is the i-th letter of the data set, or of a create benchmark
// when account is createAccount. Ids sort in i order.
func benchLetter(account string, i int, id string) storage.Letter {
	status := benchStatuses[i%len(benchStatuses)]
	l := storage.Letter{
		ID: id, Account: account, Status: status,
		Metadata: []storage.Metadata{
			{Key: "batch", Value: fmt.Sprintf("b%d", i/1000)},
			{Key: "customer", Value: fmt.Sprintf("c%d", i)},
		},
		CreatedAt:  benchEpoch.Add(time.Duration(i) * 10 * time.Millisecond),
		ModifiedAt: benchEpoch.Add(time.Duration(i) * 10 * time.Millisecond),
		Revision:   1,
		Doc:        storage.Encoded(benchDoc),
	}
	if i%2 == 0 {
		l.ExternalID = fmt.Sprintf("ext-%d", i)
	}
	if status == "queued" || status == "ready" {
		l.DueAt = l.CreatedAt.Add(time.Hour)
	}
	return l
}

// benchIDs makes the data set's ids: ULIDs of increasing time, as the
// service makes them, from a fixed seed.
func benchIDs(n int) []string {
	entropy := ulid.Monotonic(rand.New(rand.NewSource(1)), 0)
	ids := make([]string, n)
	for i := range ids {
		ms := ulid.Timestamp(benchEpoch.Add(time.Duration(i) * 10 * time.Millisecond))
		ids[i] = "ltr_" + strings.ToLower(ulid.MustNew(ms, entropy).String())
	}
	return ids
}

// benchDataSet opens a store on the benchmark schema, loading the data set
// if it is not there, and returns it with a raw pool on the same schema
// configured alike, and the data set's ids.
func benchDataSet(b *testing.B) (*pgstore.Store, *pgxpool.Pool, []string) {
	b.Helper()
	return benchDataSetOf(b, benchRows)
}

// benchDataSetOf is benchDataSet with benchRows rows of its own: the
// 1,000,000 rows in benchSchema, another count in a schema named after it.
func benchDataSetOf(b *testing.B, benchRows int) (*pgstore.Store, *pgxpool.Pool, []string) {
	b.Helper()
	dsn := testDSN(b)
	ctx := context.Background()
	schema := benchSchema
	if benchRows != 1_000_000 {
		schema = fmt.Sprintf("pgstore_bench_%d", benchRows)
	}
	s, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	raw, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(raw.Close)

	ids := benchIDs(benchRows)
	if _, err := raw.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_data_set (version int NOT NULL, rows int NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	var version, rows int
	err = raw.QueryRow(ctx, `SELECT version, rows FROM bench_data_set`).Scan(&version, &rows)
	if err == nil && version == benchVersion && rows == benchRows {
		return s, raw, ids
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		b.Fatal(err)
	}
	b.Logf("loading %d letters into schema %s", benchRows, schema)
	start := time.Now()
	if _, err := raw.Exec(ctx, `TRUNCATE letters, bench_data_set`); err != nil {
		b.Fatal(err)
	}
	i := 0
	n, err := raw.CopyFrom(ctx, pgx.Identifier{"letters"},
		[]string{"id", "account", "status", "external_id", "metadata", "created_at", "modified_at", "due_at", "revision", "data"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == benchRows {
				return nil, nil
			}
			l := benchLetter(benchAccount, i, ids[i])
			i++
			var due any
			if !l.DueAt.IsZero() {
				due = l.DueAt
			}
			meta := fmt.Sprintf(`[{"key":"batch","value":%q},{"key":"customer","value":%q}]`, l.Metadata[0].Value, l.Metadata[1].Value)
			return []any{l.ID, l.Account, l.Status, l.ExternalID, meta, l.CreatedAt, l.ModifiedAt, due, l.Revision, []byte(l.Doc.(storage.Encoded))}, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := raw.Exec(ctx, `VACUUM ANALYZE letters`); err != nil {
		b.Fatal(err)
	}
	if _, err := raw.Exec(ctx, `INSERT INTO bench_data_set (version, rows) VALUES ($1, $2)`, benchVersion, n); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d letters in %v", n, time.Since(start).Round(time.Second))
	return s, raw, ids
}

// newID returns a fresh id for a created letter, later than any in the
// data set and increasing, as the service makes them; safe for concurrent
// use.
func newID() string {
	return "ltr_" + strings.ToLower(ulid.Make().String())
}

const rawInsertSQL = `INSERT INTO letters (id, account, status, external_id, metadata, created_at, modified_at, due_at, revision, data)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9)`

func rawInsert(ctx context.Context, pool *pgxpool.Pool, l storage.Letter) error {
	var due any
	if !l.DueAt.IsZero() {
		due = l.DueAt
	}
	meta := fmt.Sprintf(`[{"key":"batch","value":%q},{"key":"customer","value":%q}]`, l.Metadata[0].Value, l.Metadata[1].Value)
	_, err := pool.Exec(ctx, rawInsertSQL, l.ID, l.Account, l.Status, l.ExternalID, meta, l.CreatedAt, l.ModifiedAt, due, []byte(l.Doc.(storage.Encoded)))
	return err
}

func deleteCreated(b *testing.B, pool *pgxpool.Pool) {
	b.Helper()
	if _, err := pool.Exec(context.Background(), `DELETE FROM letters WHERE account = $1`, createAccount); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `DELETE FROM idempotency`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCreateLetter compares Store.CreateLetter with a plain pgx INSERT
// of the same rows into the same table, one at a time and from many
// goroutines at once.
func BenchmarkCreateLetter(b *testing.B) {
	s, raw, _ := benchDataSet(b)
	ctx := context.Background()
	create := map[string]func(l storage.Letter) error{
		"store": func(l storage.Letter) error {
			_, err := s.CreateLetter(ctx, l, nil)
			return err
		},
		"raw-insert": func(l storage.Letter) error { return rawInsert(ctx, raw, l) },
		// As an idempotent request makes it: the claim, then the create
		// that completes it.
		"store-idempotent": func(l storage.Letter) error {
			r := storage.IdempotencyRecord{
				Account: l.Account, Scope: "bench", Key: l.ID, Fingerprint: "f", Token: "t" + l.ID,
				CreatedAt: benchEpoch, ExpiresAt: benchEpoch.Add(24 * time.Hour), LeaseExpiresAt: benchEpoch.Add(time.Minute),
			}
			if _, _, err := s.ClaimIdempotency(ctx, r, benchEpoch); err != nil {
				return err
			}
			_, err := s.CreateLetter(ctx, l, &storage.Completion{Account: l.Account, Scope: "bench", Key: l.ID, Token: r.Token, Result: storage.Encoded(`{}`), Size: 2})
			return err
		},
	}
	for _, name := range []string{"raw-insert", "store", "store-idempotent"} {
		fn := create[name]
		b.Run(name+"/serial", func(b *testing.B) {
			deleteCreated(b, raw)
			b.Cleanup(func() { deleteCreated(b, raw) })
			i := 0
			for b.Loop() {
				if err := fn(benchLetter(createAccount, i, newID())); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
		})
		b.Run(name+"/parallel", func(b *testing.B) {
			deleteCreated(b, raw)
			b.Cleanup(func() { deleteCreated(b, raw) })
			var seq atomic.Int64
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := fn(benchLetter(createAccount, int(seq.Add(1)), newID())); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}

// BenchmarkCreateLetterVsRaw makes each letter twice, through the store and
// with a plain INSERT, in turn (the order alternating), and reports the
// median time of each and the median of their ratios: on a busy machine
// these hold when the mean of either does not.
//
// Each side runs on a connection of its own, and on a machine of few cores
// where a connection's server process runs decides its times by up to a
// tenth, the same from one pair of connections to the next. So both sides
// take new connections every pairsPerRound pairs, and the same raw INSERT
// is also measured against itself on two connections (raw/raw): what that
// control is off 1 by is what placement alone does to store/raw.
func BenchmarkCreateLetterVsRaw(b *testing.B) {
	_, setup, _ := benchDataSet(b)
	ctx := context.Background()
	deleteCreated(b, setup)
	b.Cleanup(func() { deleteCreated(b, setup) })
	const pairsPerRound = 250
	var (
		s            *pgstore.Store
		raw, control *pgxpool.Pool
		closeRound   = func() {}
		storeTimes   []float64
		rawTimes     []float64
		ratios, aa   []float64
		st, rt, ct   time.Duration
	)
	b.Cleanup(func() { closeRound() })
	timed := func(d *time.Duration, fn func() error) {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		*d = time.Since(start)
	}
	i := 0
	for b.Loop() {
		if i%pairsPerRound == 0 {
			b.StopTimer()
			closeRound()
			s, raw, control = benchConnections(b)
			closeRound = func() { s.Close(); raw.Close(); control.Close() }
			b.StartTimer()
		}
		// As the service writes it: with the notice of its creation, which
		// makes a delivery to each of the account's webhooks (none here) in
		// the same statement.
		l := benchLetter(createAccount, i, newID())
		l.Notices = []storage.Notice{{EventID: "evt_" + l.ID[len("ltr_"):], Type: "letter.created", At: l.CreatedAt, RetryUntil: l.CreatedAt.Add(72 * time.Hour)}}
		viaStore := func() {
			timed(&st, func() error { _, err := s.CreateLetter(ctx, l, nil); return err })
		}
		viaRaw := func() {
			timed(&rt, func() error { return rawInsert(ctx, raw, benchLetter(createAccount, i, newID())) })
		}
		viaControl := func() {
			timed(&ct, func() error { return rawInsert(ctx, control, benchLetter(createAccount, i, newID())) })
		}
		steps := []func(){viaStore, viaRaw, viaControl}
		for k := range steps {
			steps[(i+k)%len(steps)]()
		}
		storeTimes = append(storeTimes, float64(st.Nanoseconds()))
		rawTimes = append(rawTimes, float64(rt.Nanoseconds()))
		ratios = append(ratios, float64(st)/float64(rt))
		aa = append(aa, float64(ct)/float64(rt))
		i++
	}
	b.ReportMetric(median(storeTimes), "store-ns/create")
	b.ReportMetric(median(rawTimes), "raw-ns/create")
	b.ReportMetric(median(ratios), "store/raw")
	b.ReportMetric(median(aa), "raw/raw")
}

// benchConnections opens a store and two plain pools on the data set's
// schema, each with connections of its own.
func benchConnections(b *testing.B) (*pgstore.Store, *pgxpool.Pool, *pgxpool.Pool) {
	b.Helper()
	ctx := context.Background()
	s, err := pgstore.Open(ctx, testDSN(b), pgstore.WithSchema(benchSchema))
	if err != nil {
		b.Fatal(err)
	}
	pools := make([]*pgxpool.Pool, 2)
	for i := range pools {
		cfg, err := pgxpool.ParseConfig(testDSN(b))
		if err != nil {
			b.Fatal(err)
		}
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{benchSchema}.Sanitize()
		if pools[i], err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
			b.Fatal(err)
		}
	}
	return s, pools[0], pools[1]
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkListLetters reads one page of 100 letters (the service asks for
// 101, to know whether there is more) of the account holding all the
// letters, 1,000 or 1,000,000, at the start of the list and deep in it,
// with each kind of filter: a page should cost about the same at either
// size.
func BenchmarkListLetters(b *testing.B) {
	for _, rows := range []int{1_000, benchRows} {
		b.Run(fmt.Sprintf("stored=%d", rows), func(b *testing.B) { benchListLetters(b, rows) })
	}
}

func benchListLetters(b *testing.B, rows int) {
	s, raw, ids := benchDataSetOf(b, rows)
	ctx := context.Background()
	const page = 101
	mid := ids[rows/2]
	half := rows / 2
	cases := []struct {
		name string
		q    storage.LetterQuery
		want int
	}{
		{"first-page", storage.LetterQuery{Account: benchAccount}, page},
		{"middle-page", storage.LetterQuery{Account: benchAccount, Before: mid}, page},
		{"last-page", storage.LetterQuery{Account: benchAccount, Before: ids[50]}, 50},
		{"status", storage.LetterQuery{Account: benchAccount, Status: "queued", Before: ids[rows-1]}, min(page, rows/10)},
		{"external-id", storage.LetterQuery{Account: benchAccount, ExternalID: fmt.Sprintf("ext-%d", half)}, 1},
		{"metadata-common", storage.LetterQuery{Account: benchAccount, Metadata: []storage.Metadata{{Key: "batch", Value: fmt.Sprintf("b%d", half/1000)}}}, page},
		{"metadata-rare", storage.LetterQuery{Account: benchAccount, Metadata: []storage.Metadata{{Key: "customer", Value: fmt.Sprintf("c%d", half)}}}, 1},
		{"metadata-absent", storage.LetterQuery{Account: benchAccount, Metadata: []storage.Metadata{{Key: "customer", Value: "nobody"}}}, 0},
		// What the Service reads to check a page it keeps encoded.
		{"first-page-brief", storage.LetterQuery{Account: benchAccount, Brief: true}, page},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			tc.q.Limit = page
			for b.Loop() {
				got, err := s.ListLetters(ctx, tc.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != tc.want {
					b.Fatalf("got %d letters, want %d", len(got), tc.want)
				}
			}
		})
	}
	// The same first page read with a plain query into plain values, for
	// what the store adds.
	b.Run("raw-first-page", func(b *testing.B) {
		for b.Loop() {
			rows, err := raw.Query(ctx, `SELECT id, account, status, external_id, metadata, created_at, modified_at, due_at, revision, data
				FROM letters WHERE account = $1 ORDER BY id DESC LIMIT $2`, benchAccount, page)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var (
					id, account, status, ext string
					meta, data               []byte
					created, modified        time.Time
					due                      *time.Time
					rev                      int64
				)
				if err := rows.Scan(&id, &account, &status, &ext, &meta, &created, &modified, &due, &rev, &data); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if err := rows.Err(); err != nil || n != page {
				b.Fatalf("got %d rows, %v", n, err)
			}
		}
	})
}
