package pgstore_test

import (
	"context"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// embeddedVersions lists the versions of the migration files.
func embeddedVersions(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	var vs []int
	for _, e := range entries {
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			t.Fatalf("migration %s: %v", e.Name(), err)
		}
		vs = append(vs, v)
	}
	return vs
}

// appliedVersions lists the versions recorded in schema.
func appliedVersions(t *testing.T, schema string) []int {
	t.Helper()
	rows, err := adminConn(t, schema).Query(t.Context(), `SELECT version FROM pgstore_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	var vs []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestOpenAppliesEachMigrationOnce(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	openStore(t, schema)
	want := embeddedVersions(t)
	if d := cmp.Diff(want, appliedVersions(t, schema)); d != "" {
		t.Fatalf("migrations applied by the first Open (-want +got):\n%s", d)
	}
	// Opening again, with the first store still open, applies nothing and
	// sees what the first wrote.
	s1 := openStore(t, schema)
	if d := cmp.Diff(want, appliedVersions(t, schema)); d != "" {
		t.Errorf("migrations after the second Open (-want +got):\n%s", d)
	}
	l := storage.Letter{ID: "ltr_1", Account: "a", Status: "queued", CreatedAt: epoch, ModifiedAt: epoch, Doc: storage.Encoded("{}")}
	if _, err := s1.CreateLetter(t.Context(), l, nil); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, schema)
	if _, err := s2.GetLetter(t.Context(), "a", "ltr_1"); err != nil {
		t.Errorf("GetLetter through a store opened after the write: %v", err)
	}
}

func TestOpenConcurrently(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	const n = 8
	stores := make([]*pgstore.Store, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema(schema))
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
			continue
		}
		t.Cleanup(stores[i].Close)
	}
	if d := cmp.Diff(embeddedVersions(t), appliedVersions(t, schema)); d != "" {
		t.Errorf("migrations after concurrent Opens (-want +got):\n%s", d)
	}
}

func TestOpenRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	openStore(t, schema)
	vs := embeddedVersions(t)
	next := vs[len(vs)-1] + 1
	if _, err := adminConn(t, schema).Exec(t.Context(),
		`INSERT INTO pgstore_migrations (version, name) VALUES ($1, 'from a newer build')`, next); err != nil {
		t.Fatal(err)
	}
	s, err := pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema(schema))
	if err == nil {
		s.Close()
		t.Fatal("Open of a schema a newer build migrated succeeded")
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open error %q does not say the schema is newer", err)
	}
}

func TestOpenBadDSN(t *testing.T) {
	t.Parallel()
	s, err := pgstore.Open(t.Context(), "postgres://%zz")
	if err == nil {
		s.Close()
		t.Fatal("Open with a malformed DSN succeeded")
	}
}

func TestOpenBadSchemaName(t *testing.T) {
	t.Parallel()
	testDSN(t)
	s, err := pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema("bad\x00name"))
	if err == nil {
		s.Close()
		t.Fatal("Open with a schema name holding a NUL succeeded")
	}
}

// TestOpenSearchPathFromDSN: without WithSchema, the tables go to the
// schema the connection string's search_path names.
func TestOpenSearchPathFromDSN(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	conn := adminConn(t, "public")
	if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	dsn := testDSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	s, err := pgstore.Open(t.Context(), dsn+sep+"search_path="+url.QueryEscape(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d := cmp.Diff(embeddedVersions(t), appliedVersions(t, schema)); d != "" {
		t.Errorf("migrations in the DSN's schema (-want +got):\n%s", d)
	}
}

// TestOpenQuotedSchemaName: a schema name that needs quoting works.
func TestOpenQuotedSchemaName(t *testing.T) {
	t.Parallel()
	schema := newSchema(t) + ` "Odd" name`
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), testDSN(t))
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	s := openStore(t, schema)
	l := storage.Letter{ID: "ltr_1", Account: "a", Status: "queued", CreatedAt: epoch, ModifiedAt: epoch,
		Metadata: []storage.Metadata{{Key: "k", Value: "v"}}}
	if _, err := s.CreateLetter(t.Context(), l, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListLetters(t.Context(), storage.LetterQuery{Account: "a", Metadata: l.Metadata, Limit: 10})
	if err != nil || len(got) != 1 {
		t.Errorf("ListLetters by metadata in schema %q: %d letters, %v", schema, len(got), err)
	}
}
