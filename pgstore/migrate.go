package pgstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The schema's history: NNNN_name.sql files, applied in version order, each
// in the transaction that records it. A file is never edited once released;
// a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name is not NNNN_name.sql", base)
		}
		b, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// migrateLockClass is the first key of the advisory lock that serializes
// migrations; the second is a hash of the schema, so stores of different
// schemas do not wait for each other.
const migrateLockClass = 0x6c7472 // "ltr"

// migrate brings the schema up to date, or up to version upTo when it is
// set. It runs in one transaction holding an advisory lock: a second server
// starting at the same moment waits, then finds nothing left to do; a
// migration that fails leaves no trace.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string, upTo int) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if upTo > 0 {
		ms = slices.DeleteFunc(ms, func(m migration) bool { return m.version > upTo })
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		// After Commit, a no-op; after a failure, it undoes everything.
		_ = tx.Rollback(context.WithoutCancel(ctx))
	}()

	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(coalesce(nullif($2, ''), current_schema(), '')))`,
		migrateLockClass, schema); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	if schema != "" {
		// Looked up before creating it, so a role that may use an existing
		// schema but not create one can still open the store.
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if !exists {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
				return fmt.Errorf("migrate: create schema: %w", err)
			}
		}
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS pgstore_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM pgstore_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if last := ms[len(ms)-1].version; current > last {
		// A newer server has moved the schema on; this one would misread it.
		return fmt.Errorf("migrate: the schema is at version %d, newer than this build knows (%d)", current, last)
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate: %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO pgstore_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return fmt.Errorf("migrate: %s: %w", m.name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
