package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/storage/storagetest"
)

// The schema is ready to be distributed by account (docs/postgres.md):
// every key leads with the account, and every statement the store sends
// names the account it is about, but for the few listed below, which span
// accounts on purpose.

// keyExceptions are the constraints that do not lead with the account, and
// why each may.
var keyExceptions = map[string]string{
	// The schema's history: a row per migration, of no account.
	"pgstore_migrations_pkey": "the migrations applied, of no account",
	// One row per schema: the stamp of the last account clock put, which a
	// server reads once per request to learn whether any clock moved.
	"clock_stamp_pkey": "the stamp of the last account clock put, of no account",
	// The storage contract keeps ids unique across accounts. An exclusion
	// constraint on the id enforces it in one database; sharded by
	// account, it cannot be (docs/postgres.md: the ids' 80 random bits
	// stand in for it there).
	"letters_id_unique":        "ids unique across accounts",
	"assets_id_unique":         "ids unique across accounts",
	"asset_versions_id_unique": "ids unique across accounts",
	"webhooks_id_unique":       "ids unique across accounts",
}

// TestEveryKeyLeadsWithTheAccount reads the catalog: every table has a
// primary key, and every primary key, unique or exclusion constraint and
// unique index leads with the account, as does every foreign key on both
// sides, but for keyExceptions. The schema migrations 1-4 made fails so.
func TestEveryKeyLeadsWithTheAccount(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	openStore(t, schema)
	if bad := keysNotLeading(t, schema); len(bad) > 0 {
		t.Errorf("keys that do not lead with the account:\n%s", strings.Join(bad, "\n"))
	}

	before := newSchema(t)
	s, err := pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema(before), pgstore.WithMigrationsUpTo(4))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	want := []string{
		"asset_versions_pkey (p) on asset_versions[id]",
		"deliveries_webhook_id (p) on deliveries[webhook_id id]",
		"deliveries_webhook_id_fkey (f) on deliveries[webhook_id] refers to [id]",
		"idempotency_pkey (p) on idempotency[scope key]",
		"webhooks_id_unique (u) on webhooks[id]",
	}
	for name := range keyExceptions {
		var n int
		if err := adminConn(t, schema).QueryRow(t.Context(), `SELECT count(*) FROM pg_constraint c
			JOIN pg_namespace s ON s.oid = c.connamespace WHERE s.nspname = $1 AND c.conname = $2`, schema, name).Scan(&n); err != nil || n != 1 {
			t.Errorf("keyExceptions lists %s: %d in the schema, %v", name, n, err)
		}
	}
	got := keysNotLeading(t, before)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the schema of migrations 1-4: keys not leading with the account\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// keysNotLeading returns the keys of schema that do not lead with the
// account, and are not in keyExceptions (or are, and do).
func keysNotLeading(t *testing.T, schema string) []string {
	t.Helper()
	conn := adminConn(t, schema)
	rows, err := conn.Query(t.Context(), `
		SELECT r.relname, c.conname, c.contype,
			(SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i)
				JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
			coalesce((SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i)
				JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n), '{}')
		FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace s ON s.oid = r.relnamespace
		WHERE s.nspname = $1 AND c.contype IN ('p', 'u', 'x', 'f')
		UNION ALL
		SELECT r.relname, i.relname, 'i',
			(SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(n, i)
				JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n), '{}'
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class r ON r.oid = x.indrelid
			JOIN pg_namespace s ON s.oid = r.relnamespace
		WHERE s.nspname = $1 AND x.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`,
		schema)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		table, name, kind string
		cols, refCols     []string
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (key, error) {
		var k key
		err := r.Scan(&k.table, &k.name, &k.kind, &k.cols, &k.refCols)
		return k, err
	})
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	if err := conn.QueryRow(t.Context(), `SELECT array_agg(relname::text ORDER BY relname) FROM pg_class c
		JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = 'r'`, schema).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 10 {
		t.Fatalf("the schema has tables %v: the test reads the wrong catalog", tables)
	}
	var bad []string
	withPrimaryKey := map[string]bool{}
	for _, k := range keys {
		if k.kind == "p" {
			withPrimaryKey[k.table] = true
		}
		leads := len(k.cols) > 0 && k.cols[0] == "account" && (k.kind != "f" || len(k.refCols) > 0 && k.refCols[0] == "account")
		// An id is kept unique across accounts by an exclusion constraint
		// only: a unique constraint would be a key of its own.
		_, excepted := keyExceptions[k.name]
		excepted = excepted && (k.kind == "x" || k.table == "pgstore_migrations" || k.table == "clock_stamp")
		switch {
		case leads && excepted:
			bad = append(bad, fmt.Sprintf("%s leads with the account: take it out of keyExceptions", k.name))
		case !leads && !excepted && k.kind == "f":
			bad = append(bad, fmt.Sprintf("%s (%s) on %s%v refers to %v", k.name, k.kind, k.table, k.cols, k.refCols))
		case !leads && !excepted:
			bad = append(bad, fmt.Sprintf("%s (%s) on %s%v", k.name, k.kind, k.table, k.cols))
		}
	}
	for _, table := range tables {
		if !withPrimaryKey[table] {
			bad = append(bad, "table "+table+" has no primary key")
		}
	}
	return bad
}

// statements records every statement a store sends, whitespace folded.
type statements struct{ seen sync.Map }

func (s *statements) add(sql string) { s.seen.Store(fold(sql), true) }

func fold(sql string) string { return strings.Join(strings.Fields(sql), " ") }

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL)
	return ctx
}

func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.add(d.SQL)
}

func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (s *statements) list() []string {
	var out []string
	s.seen.Range(func(k, _ any) bool {
		out = append(out, k.(string))
		return true
	})
	slices.Sort(out)
	return out
}

// spanningStatements are the statements that span accounts on purpose,
// and why (docs/postgres.md says how each runs on a sharded cluster).
var spanningStatements = map[string]string{
	fold(pgstore.PurgeIdempotencySQL):                                             "the expiry sweep of idempotency records",
	fold(pgstore.DueLettersSQL):                                                   "the lifecycle's run over every account",
	fold(pgstore.ExceptDueLettersSQL):                                             "the lifecycle's run over the accounts on the server's clock",
	fold(fmt.Sprintf(pgstore.DueDeliveriesSQL, "", "d.")):                         "the delivery worker's run over every account",
	fold(fmt.Sprintf(pgstore.DueDeliveriesSQL, "AND d.account <> ALL($4)", "d.")): "the delivery worker's run over the accounts on the server's clock",
	fold(pgstore.DeliveryAccountsSQL):                                             "the accounts with deliveries to take, which the delivery pass asks for before it takes any",
	fold(pgstore.AccountClocksSQL):                                                "the account clocks put since a stamp, which a server reads again when the stamp moved",
	fold(pgstore.HasWebhooksSQL):                                                  "whether any webhook exists, asked when a Service starts on a test clock and at its clock moves until it knows of webhooks",
}

// storeTables are the tables of the accounts' records.
var storeTables = []string{"letters", "letter_metadata", "assets", "asset_metadata", "asset_versions", "contents",
	"idempotency", "webhooks", "deliveries", "account_clocks"}

var (
	tableRef = regexp.MustCompile(`\b(FROM|JOIN|UPDATE|INTO|USING)\s+(` + strings.Join(storeTables, "|") +
		`)\b(?:\s+(?:AS\s+)?([a-z]\w*))?`)
	notAlias = map[string]bool{"where": true, "set": true, "on": true, "values": true, "select": true, "order": true}
)

// unnamedTables returns the tables a statement reads or writes without
// naming the account of their rows: an INSERT's columns must hold the
// account; any other reference must compare its account column
// (alias.account, or account unqualified for a table without an alias)
// with a value.
func unnamedTables(sql string) []string {
	var bad []string
	for _, m := range tableRef.FindAllStringSubmatchIndex(sql, -1) {
		verb, table := sql[m[2]:m[3]], sql[m[4]:m[5]]
		alias := ""
		if m[6] >= 0 && !notAlias[strings.ToLower(sql[m[6]:m[7]])] {
			alias = sql[m[6]:m[7]]
		}
		if verb == "INTO" {
			cols, _, _ := strings.Cut(sql[m[1]:], ")")
			if !regexp.MustCompile(`^\s*\([^)]*\baccount\b`).MatchString(cols + ")") {
				bad = append(bad, table)
			}
			continue
		}
		var named *regexp.Regexp
		if alias != "" {
			a := regexp.QuoteMeta(alias)
			named = regexp.MustCompile(`\b` + a + `\.account\s*=|=\s*` + a + `\.account\b`)
		} else {
			named = regexp.MustCompile(`(^|[^.\w])account\s*=`)
		}
		if !named.MatchString(sql) {
			bad = append(bad, table)
		}
	}
	return bad
}

// TestUnnamedTablesFindsWhatSpansAccounts holds the check below to what it
// should find.
func TestUnnamedTablesFindsWhatSpansAccounts(t *testing.T) {
	for sql, want := range map[string]string{
		`SELECT data FROM letters WHERE id = $1`:                                                                           "letters",
		`DELETE FROM idempotency WHERE scope = $1 AND key = $2`:                                                            "idempotency",
		`INSERT INTO deliveries (webhook_id, id) VALUES ($1, $2)`:                                                          "deliveries",
		`SELECT 1 FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.account = $1`:                           "webhooks",
		`SELECT 1 FROM letters l WHERE l.status = $1 AND account_x = $2`:                                                   "letters",
		`SELECT data FROM letters WHERE id = $1 AND account = $2`:                                                          "",
		`INSERT INTO deliveries (webhook_id, id, account) VALUES ($1, $2, $3)`:                                             "",
		`SELECT 1 FROM deliveries d JOIN webhooks w ON w.account = d.account AND w.id = d.webhook_id WHERE d.account = $1`: "",
	} {
		if got := strings.Join(unnamedTables(sql), ","); got != want {
			t.Errorf("%s: unnamed %q, want %q", sql, got, want)
		}
	}
}

// TestEveryQueryNamesTheAccount runs the storage conformance suite on
// stores that record every statement they send, and checks that each
// names the account of every table it touches, but for spanningStatements.
func TestEveryQueryNamesTheAccount(t *testing.T) {
	testDSN(t)
	var sent statements
	t.Run("suite", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			s, err := pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema(newSchema(t)), pgstore.WithQueryTracer(&sent))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		})
	})
	checked, spanning := 0, map[string]bool{}
	for _, sql := range sent.list() {
		if strings.HasPrefix(sql, "-- ") || strings.HasPrefix(sql, "CREATE ") || strings.Contains(sql, "pgstore_migrations") {
			continue // the migrations and their bookkeeping
		}
		if _, ok := spanningStatements[sql]; ok {
			spanning[sql] = true
			continue
		}
		if bad := unnamedTables(sql); len(bad) > 0 {
			t.Errorf("a statement reaches %v without naming the account:\n%s", bad, sql)
		}
		if tableRef.MatchString(sql) {
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("only %d statements checked: the suite did not run, or the check finds no tables", checked)
	}
	for sql, why := range spanningStatements {
		if !spanning[sql] {
			t.Errorf("spanningStatements lists %s (%s), which the suite never sent", sql, why)
		}
	}
}

// TestMigrationKeysByAccountKeepsData makes a database as migrations 1-4
// left it, with a row in every table, then opens it with this build: the
// migration rekeys the tables and every row reads back as it was.
func TestMigrationKeysByAccountKeepsData(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	old, err := pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema(schema), pgstore.WithMigrationsUpTo(4))
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	conn := adminConn(t, schema)
	at := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	result := []byte("lettershop-response/1 201\nContent-Type: application/json\n\n{}")
	for _, sql := range []string{
		`INSERT INTO letters (account, id, status, external_id, metadata, created_at, modified_at, due_at, revision, data)
			VALUES ('acct_a', 'ltr_1', 'queued', '', '[{"key": "k", "value": "v"}]', $1, $1, NULL, 1, '{}')`,
		`INSERT INTO assets (account, id, metadata, created_at, modified_at, revision, data) VALUES ('acct_a', 'ast_1', '[]', $1, $1, 1, '{}')`,
		`INSERT INTO asset_versions (id, account, asset_id, status, created_at, modified_at, data)
			VALUES ('astv_1', 'acct_a', 'ast_1', 'draft', $1, $1, '{"v": 1}')`,
		`INSERT INTO contents (account, hash, data) SELECT 'acct_a', 'h1', 'content' WHERE $1::timestamptz IS NOT NULL`,
		`INSERT INTO webhooks (account, id, url, events, description, metadata, status, secret, created_at, modified_at, revision)
			VALUES ('acct_a', 'wh_1', 'https://example.com', '{}', '', '[]', 'enabled', 'whsec_x', $1, $1, 1)`,
		`INSERT INTO deliveries (webhook_id, id, account, event_id, type, letter_id, seq, event_at, status, attempts,
				next_attempt_at, retry_until, status_code, error, revision)
			VALUES ('wh_1', 'dlv_1', 'acct_a', 'evt_1', 'letter.created', 'ltr_1', 1, $1, 'pending', 0, $1, $1, 0, '', 1)`,
	} {
		if _, err := conn.Exec(t.Context(), sql, at); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// An outcome stored by the first release (account '') and one by the
	// second (with its account), and a claim in flight.
	for _, r := range []struct{ account, key, token string }{{"", "old", "t0"}, {"acct_a", "done", "t1"}, {"acct_a", "running", "t2"}} {
		done := r.key != "running"
		var res []byte
		if done {
			res = result
		}
		if _, err := conn.Exec(t.Context(), `INSERT INTO idempotency (scope, key, fingerprint, token, done, result, created_at,
				expires_at, lease_expires_at, account, failed) VALUES ('apikey:x', $1, 'fp', $2, $3, $4, $5, $6, $7, $8, false)`,
			r.key, r.token, done, res, at, at.Add(24*time.Hour), at.Add(time.Minute), r.account); err != nil {
			t.Fatal(err)
		}
	}

	s := openStore(t, schema)
	if got := appliedVersions(t, schema); !slices.Equal(got, embeddedVersions(t)) {
		t.Fatalf("versions applied %v, want %v", got, embeddedVersions(t))
	}
	ctx := t.Context()
	if l, err := s.GetLetter(ctx, "acct_a", "ltr_1"); err != nil || l.Status != "queued" || len(l.Metadata) != 1 {
		t.Errorf("letter: %+v, %v", l, err)
	}
	if v, err := s.GetAssetVersion(ctx, "acct_a", "ast_1", "astv_1"); err != nil || v.Status != "draft" {
		t.Errorf("version: %+v, %v", v, err)
	}
	if c, err := s.GetContent(ctx, "acct_a", "h1"); err != nil || string(c) != "content" {
		t.Errorf("content: %q, %v", c, err)
	}
	if d, err := s.GetDelivery(ctx, "acct_a", "wh_1", "dlv_1"); err != nil || d.Status != "pending" || d.LetterID != "ltr_1" {
		t.Errorf("delivery: %+v, %v", d, err)
	}
	now := at.Add(time.Second)
	for _, r := range []struct {
		account, key string
		done         bool
	}{{"", "old", true}, {"acct_a", "done", true}, {"acct_a", "running", false}} {
		got, won, err := s.ClaimIdempotency(ctx, storage.IdempotencyRecord{Account: r.account, Scope: "apikey:x", Key: r.key,
			Fingerprint: "fp", Token: "probe", CreatedAt: now, ExpiresAt: now.Add(time.Hour), LeaseExpiresAt: now.Add(time.Minute)}, now)
		if err != nil || won || got.Done != r.done {
			t.Errorf("idempotency %s: won %v, %+v, %v", r.key, won, got, err)
			continue
		}
		if r.done {
			b, _ := storage.EncodeDocument(got.Result)
			if string(b) != string(result) || got.Size != int64(len(result)) {
				t.Errorf("idempotency %s: result %q of size %d, want %q of %d", r.key, b, got.Size, result, len(result))
			}
		}
	}
	// The rekeyed constraints hold: an id stays unique across accounts,
	// and a webhook's deliveries go with it.
	_, err = s.WriteAsset(ctx, storage.AssetWrite{
		Asset:       storage.Asset{ID: "ast_2", Account: "acct_b", CreatedAt: at, ModifiedAt: at, Doc: storage.Encoded(`{}`)},
		PutVersions: []storage.AssetVersion{{ID: "astv_1", Account: "acct_b", AssetID: "ast_2", Status: "draft", CreatedAt: at, ModifiedAt: at, Doc: storage.Encoded(`{}`)}},
	})
	if !errors.Is(err, storage.ErrAlreadyExists) {
		t.Errorf("a version id of another account: %v, want ErrAlreadyExists", err)
	}
	if err := s.DeleteWebhook(ctx, "acct_a", "wh_1", 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetDelivery(ctx, "acct_a", "wh_1", "dlv_1"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a deleted webhook's delivery: %v, want ErrNotFound", err)
	}
}
