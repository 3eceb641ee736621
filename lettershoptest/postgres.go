package lettershoptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/pgstore"
)

// openPostgres opens a pgstore.Store on a schema of its own, closed and
// dropped with everything in it when t ends.
func openPostgres(t testing.TB, dsn string) *pgstore.Store {
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
			t.Errorf("lettershoptest: drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("lettershoptest: drop schema %s: %v", schema, err)
		}
	})
	st, err := pgstore.Open(context.Background(), dsn, pgstore.WithSchema(schema))
	if err != nil {
		t.Fatalf("lettershoptest: open PostgreSQL: %v", err)
	}
	t.Cleanup(st.Close)
	return st
}
