// Package pgtest runs lettershoptest's servers on PostgreSQL. It is a
// package of its own so that a test binary that imports lettershoptest
// and never asks for PostgreSQL does not carry its driver.
//
//	dsn := os.Getenv("LETTERSHOP_TEST_POSTGRES")
//	if dsn == "" {
//		t.Skip("no PostgreSQL")
//	}
//	srv := lettershoptest.New(t, pgtest.WithPostgres(dsn))
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/lettershoptest"
	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// WithPostgres keeps the records in PostgreSQL at dsn (a postgres:// URL),
// in a schema of their own made for the server and dropped, with
// everything in it, when the test ends; for teams that test against the
// backend they run.
func WithPostgres(dsn string) lettershoptest.Option {
	return lettershoptest.WithStore(func(t testing.TB) storage.Storage { return Open(t, dsn) })
}

// Open opens a pgstore.Store on a schema of its own, closed and dropped
// with everything in it when t ends.
func Open(t testing.TB, dsn string) *pgstore.Store {
	t.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "lettershoptest_" + hex.EncodeToString(b)
	// Registered first, so it runs last: after the Service and the store
	// are closed.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
	})
	st, err := pgstore.Open(context.Background(), dsn, pgstore.WithSchema(schema))
	if err != nil {
		t.Fatalf("pgtest: open PostgreSQL: %v", err)
	}
	// Let go of the store once closed: package testing keeps a finished
	// parallel subtest's cleanups until its parent ends.
	t.Cleanup(func() { s := st; st = nil; s.Close() })
	return st
}
