// Package pgstore is a storage.Storage on PostgreSQL, for several lettershop
// servers sharing one database.
//
// Open connects through a pgx pool and brings the schema up to date: the
// migrations embedded in this package are applied in order, each once,
// under an advisory lock, so servers starting together do not race.
//
// What the contract asks to be atomic is made so by the database, not by
// this process: a write and the completion of the idempotency claim it
// carries commit together; expected revisions are checked in the UPDATE's
// WHERE clause; an idempotency key is claimed with INSERT ... ON CONFLICT on
// its primary key; due letters are taken with FOR UPDATE SKIP LOCKED, so two
// servers never work on the same letter at once. A cancelled context cancels
// the statement on the server, and a transaction that does not commit leaves
// nothing behind.
//
// Strings go into text columns, which cannot hold a NUL byte or invalid
// UTF-8: a write carrying such a string fails with an error that says so,
// and a lookup by one finds nothing. Times are kept to the microsecond.
package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.Storage = (*Store)(nil)

// Store is a storage.Storage on PostgreSQL. It is safe for concurrent use,
// and any number of Stores, in any number of processes, may share one
// database schema.
type Store struct {
	pool *pgxpool.Pool
}

// Option configures Open.
type Option func(*options)

type options struct {
	schema string
	// upTo, when set, stops the migrations after that version: for tests
	// that make a database of an earlier schema.
	upTo int
	// tracer, when set, sees every statement the pool sends.
	tracer pgx.QueryTracer
}

// WithSchema keeps the store's tables in the named schema, creating it if it
// does not exist: every connection of the pool gets it as its search_path.
// Without it the tables go to the first schema of the connection's
// search_path (public, unless the DSN says otherwise).
func WithSchema(name string) Option {
	return func(o *options) { o.schema = name }
}

// cancelGrace is how long a statement whose context ended may take to stop
// on the server after the cancel request before the connection is closed.
const cancelGrace = 5 * time.Second

// Open connects to the database at dsn (a postgres:// URL or key=value
// string, as pgx accepts; pool settings such as pool_max_conns go in it
// too), applies any migrations the schema lacks and returns the Store.
// Close it when done.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, &parseError{dsn: dsn, err: err}
	}
	if o.schema != "" {
		if !storable(o.schema) {
			return nil, errors.New("pgstore: open: schema name is not valid UTF-8 or holds a NUL byte")
		}
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{o.schema}.Sanitize()
	}
	// On a cancelled context pgx by default drops the connection at once
	// and asks the server to cancel in the background: the call returns
	// while the statement may still hold its locks, and the next request
	// pays for a new connection. Asking first and waiting for the server's
	// answer (up to cancelGrace) means that when a write returns the
	// context's error, the server has already stopped it.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelGrace}
	}
	if o.tracer != nil {
		cfg.ConnConfig.Tracer = o.tracer
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	if err := migrate(ctx, pool, o.schema, o.upTo); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Close closes the Store's connections, waiting for those in use.
func (s *Store) Close() {
	s.pool.Close()
}

// rollbackTimeout bounds the rollback of a transaction whose context has
// ended.
const rollbackTimeout = 5 * time.Second

// inTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise, also when fn panics.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		// The rollback must reach the server even when ctx has ended, so the
		// locks go at once and the connection returns to the pool clean.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()
	if err := fn(tx); err != nil {
		return err
	}
	committed = true
	// A failed commit (a cancelled context among the causes) closes the
	// connection, and the server rolls back.
	return tx.Commit(ctx)
}

// inClaimTx runs fn in a transaction that first completes the idempotency
// claim c, when there is one, so that both commit or neither does.
func (s *Store) inClaimTx(ctx context.Context, c *storage.Completion, fn func(tx pgx.Tx) error) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if c != nil {
			if err := complete(ctx, tx, c); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// deleteAtRevision deletes the row id of account from table (a table of
// records with a revision: assets, webhooks) if it is at revision, with the
// claim c's completion; what goes with the row goes by ON DELETE CASCADE.
// op names the call in its error.
func (s *Store) deleteAtRevision(ctx context.Context, op, table, account, id string, revision int64, c *storage.Completion) error {
	if !storable(account, id) {
		return fail(ctx, op, storage.ErrNotFound)
	}
	if c != nil && !storable(c.Account, c.Scope, c.Key, c.Token) {
		return fail(ctx, op, storage.ErrClaimLost)
	}
	err := s.inClaimTx(ctx, c, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE id = $1 AND account = $2 AND revision = $3`, id, account, revision)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return revisionMissing(ctx, tx, table, account, id)
		}
		return nil
	})
	if err != nil {
		return fail(ctx, op, err)
	}
	return nil
}

// fail wraps err for op. When ctx has ended, the context's error is the one
// that counts (errors.Is finds it), whatever the driver made of the
// interrupted exchange.
func fail(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		// Only the context's error is wrapped: it is the one that counts.
		return fmt.Errorf("pgstore: %s: %w (%v)", op, ctxErr, err) //nolint:errorlint // the driver's error is shown, not matched
	}
	if unreachable(err) {
		return fmt.Errorf("pgstore: %s: %w: %w", op, storage.ErrUnavailable, err)
	}
	return fmt.Errorf("pgstore: %s: %w", op, err)
}

// unreachable reports whether err says the database could not be reached
// or the connection was lost (storage.ErrUnavailable), rather than that
// it refused the statement: no connection could be made, whatever the
// server said of why (it takes no connections, the database is gone, it
// refuses the user), the connection broke, or the server is shutting
// down, starting up or out of connections.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", "57P02", "57P03", "53300": // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
			return true
		}
		return strings.HasPrefix(pe.Code, "08") // connection_exception
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// isUniqueViolation reports whether err is a unique_violation or an
// exclusion_violation, the error of the constraints that keep ids unique.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "23P01")
}

// storable reports whether every s can be kept in a text column: valid
// UTF-8 without NUL bytes.
func storable(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return false
		}
	}
	return true
}

// errText is returned for a write with a string a text column cannot hold.
func errText(field string) error {
	return fmt.Errorf("%s is not valid UTF-8 or holds a NUL byte, which PostgreSQL text cannot store", field)
}

func metadataStorable(m []storage.Metadata) bool {
	for _, p := range m {
		if !storable(p.Key, p.Value) {
			return false
		}
	}
	return true
}

// nullTime maps the zero time, "not set", to NULL.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// storedTime returns t as a timestamptz keeps it: to the microsecond,
// truncated, as pgx sends it.
func storedTime(t time.Time) time.Time {
	return t.Truncate(time.Microsecond)
}

func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// prefixed returns the comma-separated columns qualified by table.
func prefixed(table, columns string) string {
	cols := strings.Split(columns, ", ")
	for i, c := range cols {
		cols[i] = table + "." + c
	}
	return strings.Join(cols, ", ")
}

// querier is what a pool and a transaction both offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// revisionMissing says why a write at an expected revision changed no row
// of table (letters or assets): ErrNotFound, or ErrConflict.
func revisionMissing(ctx context.Context, q querier, table, account, id string) error {
	var rev int64
	err := q.QueryRow(ctx, `SELECT revision FROM `+table+` WHERE id = $1 AND account = $2`, id, account).Scan(&rev)
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.ErrNotFound
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("stored revision %d: %w", rev, storage.ErrConflict)
}

// complete finishes the claim c names, or fails with storage.ErrClaimLost.
// Run in the transaction of the write c travels with, it takes the claim's
// row lock, so a takeover waits for the write and then finds it done.
func complete(ctx context.Context, q querier, c *storage.Completion) error {
	args, err := completionArgs(c)
	if err != nil {
		return err
	}
	tag, err := q.Exec(ctx, completeSQL, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrClaimLost
	}
	return nil
}

// completionArgs are the arguments of completeSQL for c: its account,
// scope, key and token, its result serialized, its size and whether it is
// a failure.
func completionArgs(c *storage.Completion) ([]any, error) {
	result, err := storage.EncodeDocument(c.Result)
	if err != nil {
		return nil, fmt.Errorf("idempotency result: %w", err)
	}
	return []any{c.Account, c.Scope, c.Key, c.Token, result, c.Size, c.Failed}, nil
}

// encodeMetadata returns m as jsonb text: an array of {"key", "value"}
// objects, in order. Objects rather than [key, value] arrays, because
// jsonb containment ignores the order of array elements.
func encodeMetadata(m []storage.Metadata) (string, error) {
	if m == nil {
		m = []storage.Metadata{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("metadata: %w", err)
	}
	return string(b), nil
}

func decodeMetadata(b []byte) ([]storage.Metadata, error) {
	var m []storage.Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func cloneMetadata(m []storage.Metadata) []storage.Metadata {
	if m == nil {
		return nil
	}
	return append(make([]storage.Metadata, 0, len(m)), m...)
}

// encodeDoc returns what a data column keeps of d: its serialized form,
// never nil.
func encodeDoc(d storage.Document) ([]byte, error) {
	b, err := storage.EncodeDocument(d)
	if err != nil {
		return nil, fmt.Errorf("encode document: %w", err)
	}
	return bytesOrEmpty(b), nil
}

// docOf returns the document a data column holds: nil when it is empty.
func docOf(b []byte) storage.Document {
	if len(b) == 0 {
		return nil
	}
	return storage.Encoded(b)
}

// bytesOrEmpty keeps nil out of NOT NULL bytea columns: pgx sends a nil
// slice as NULL.
func bytesOrEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
