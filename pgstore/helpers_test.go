package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// envDSN names the variable that holds the test database's DSN, for example
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable. Without it the
// tests skip.
const envDSN = "LETTERSHOP_TEST_POSTGRES"

func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(envDSN)
	if dsn == "" {
		t.Skipf("%s is not set; skipping PostgreSQL tests", envDSN)
	}
	return dsn
}

// newSchema returns the name of a schema no other test uses, dropped with
// everything in it when t ends. Open creates it.
func newSchema(t testing.TB) string {
	t.Helper()
	dsn := testDSN(t)
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	name := "pgstore_test_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// openStore opens a Store, with a pool of its own, on schema; it is closed
// when t ends.
func openStore(t testing.TB, schema string) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// adminConn is a plain connection to schema, for looking behind the
// store's back; it is closed when t ends.
func adminConn(t testing.TB, schema string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// md returns metadata of key-value pairs.
func md(kv ...string) []storage.Metadata {
	var m []storage.Metadata
	for i := 0; i+1 < len(kv); i += 2 {
		m = append(m, storage.Metadata{Key: kv[i], Value: kv[i+1]})
	}
	return m
}
