package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop"
)

// writeBlocker makes every write to the letters table of a schema wait,
// inside its statement and after the statement's other work, until the
// test lets it go: a trigger takes an advisory lock the test holds. So a
// test can cut a write off at a known point, deterministically.
type writeBlocker struct {
	admin  *pgx.Conn // the schema's tables, seen from outside the store
	holder *pgx.Conn // holds the lock the trigger waits for
	key    int64
}

func blockLetterWrites(t *testing.T, schema string) *writeBlocker {
	t.Helper()
	ctx := t.Context()
	w := &writeBlocker{admin: adminConn(t, schema), holder: adminConn(t, schema)}
	if err := w.admin.QueryRow(ctx, `SELECT hashtext(current_schema())::bigint`).Scan(&w.key); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE FUNCTION block_letter_writes() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			PERFORM pg_advisory_xact_lock(hashtext(current_schema())::bigint);
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER block_letter_writes BEFORE INSERT OR UPDATE ON letters
		FOR EACH ROW EXECUTE FUNCTION block_letter_writes()`,
	} {
		if _, err := w.admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.holder.Exec(ctx, `SELECT pg_advisory_lock($1)`, w.key); err != nil {
		t.Fatal(err)
	}
	return w
}

// waitBlocked waits until a backend is waiting for the lock and returns its
// process id.
func (w *writeBlocker) waitBlocked(t *testing.T) uint32 {
	t.Helper()
	holder := w.holder.PgConn().PID()
	deadline := time.Now().Add(time.Minute)
	for {
		var pid uint32
		err := w.admin.QueryRow(t.Context(),
			`SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))`, holder).Scan(&pid)
		if err == nil {
			return pid
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no write came to wait for the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// release lets blocked writes go, and later ones through.
func (w *writeBlocker) release(t *testing.T) {
	t.Helper()
	if _, err := w.holder.Exec(t.Context(), `SELECT pg_advisory_unlock($1)`, w.key); err != nil {
		t.Fatal(err)
	}
	// Dropping the trigger waits for the table locks of writes still blocked:
	// hence after the unlock.
	if _, err := w.admin.Exec(t.Context(), `DROP TRIGGER block_letter_writes ON letters`); err != nil {
		t.Fatal(err)
	}
}

// count returns the number of rows query finds.
func (w *writeBlocker) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := w.admin.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// cut is how a test cuts a blocked write off.
type cut struct {
	name string
	// do cuts off the write of backend pid; cancel cancels its context.
	do func(t *testing.T, w *writeBlocker, pid uint32, cancel context.CancelFunc)
	// wantCanceled: the call's error says its context was cancelled.
	wantCanceled bool
}

var cuts = []cut{
	{"cancelled context", func(t *testing.T, w *writeBlocker, pid uint32, cancel context.CancelFunc) {
		cancel()
	}, true},
	{"dropped connection", func(t *testing.T, w *writeBlocker, pid uint32, cancel context.CancelFunc) {
		var ok bool
		if err := w.admin.QueryRow(t.Context(), `SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil || !ok {
			t.Fatalf("terminate backend %d: %v, %v", pid, ok, err)
		}
	}, false},
}

// TestCreateLetterCutOffMidWrite: an idempotent create cut off while its
// INSERT runs, after its statement has completed the idempotency claim,
// leaves no letter and frees the key; a retry on the other server makes the
// letter once.
func TestCreateLetterCutOffMidWrite(t *testing.T) {
	t.Parallel()
	for _, c := range cuts {
		t.Run(c.name, func(t *testing.T) {
			schema, a, b := twoServers(t)
			asset := publishedAsset(t, a)
			in := letterInput(asset.ID)
			w := blockLetterWrites(t, schema)

			ctx, cancel := context.WithCancel(lettershop.WithIdempotencyKey(t.Context(), "create-1"))
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := a.svc.CreateLetter(ctx, acct, in)
				done <- err
			}()
			pid := w.waitBlocked(t)
			c.do(t, w, pid, cancel)
			// The call returns while the lock is still held: the write was
			// stopped on the server, not left to finish later.
			err := <-done
			if err == nil {
				t.Fatal("CreateLetter cut off mid-write succeeded")
			}
			if got := isCanceled(err); got != c.wantCanceled {
				t.Errorf("CreateLetter error %v: cancelled %v, want %v", err, got, c.wantCanceled)
			}
			if n := w.count(t, `SELECT count(*) FROM letters`); n != 0 {
				t.Errorf("%d letters stored after the cut-off create, want 0", n)
			}
			if n := w.count(t, `SELECT count(*) FROM idempotency`); n != 0 {
				t.Errorf("%d idempotency records after the cut-off create, want 0", n)
			}
			w.release(t)

			l, err := b.svc.CreateLetter(lettershop.WithIdempotencyKey(t.Context(), "create-1"), acct, in)
			if err != nil {
				t.Fatalf("retry on the other server: %v", err)
			}
			again, err := a.svc.CreateLetter(lettershop.WithIdempotencyKey(t.Context(), "create-1"), acct, in)
			if err != nil {
				t.Fatalf("second retry: %v", err)
			}
			wantSame(t, "replayed letter", l, again)
			if n := w.count(t, `SELECT count(*) FROM letters`); n != 1 {
				t.Errorf("%d letters stored after the retries, want 1", n)
			}
		})
	}
}

// TestCancelLetterCutOffMidWrite: an idempotent cancel cut off while its
// UPDATE runs, after its transaction has completed the claim, leaves the
// letter as it was and frees the key.
func TestCancelLetterCutOffMidWrite(t *testing.T) {
	t.Parallel()
	for _, c := range cuts {
		t.Run(c.name, func(t *testing.T) {
			schema, a, b := twoServers(t)
			asset := publishedAsset(t, a)
			made, err := a.svc.CreateLetter(t.Context(), acct, letterInput(asset.ID))
			if err != nil {
				t.Fatal(err)
			}
			w := blockLetterWrites(t, schema)

			ctx, cancel := context.WithCancel(lettershop.WithIdempotencyKey(t.Context(), "cancel-1"))
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := a.svc.CancelLetter(ctx, acct, made.ID)
				done <- err
			}()
			pid := w.waitBlocked(t)
			c.do(t, w, pid, cancel)
			err = <-done
			if err == nil {
				t.Fatal("CancelLetter cut off mid-write succeeded")
			}
			if got := isCanceled(err); got != c.wantCanceled {
				t.Errorf("CancelLetter error %v: cancelled %v, want %v", err, got, c.wantCanceled)
			}
			if n := w.count(t, `SELECT count(*) FROM idempotency`); n != 0 {
				t.Errorf("%d idempotency records after the cut-off cancel, want 0", n)
			}
			got, err := b.svc.GetLetter(t.Context(), acct, made.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantSame(t, "letter after the cut-off cancel", made, got)
			w.release(t)

			canceled, err := b.svc.CancelLetter(lettershop.WithIdempotencyKey(t.Context(), "cancel-1"), acct, made.ID)
			if err != nil {
				t.Fatalf("retry on the other server: %v", err)
			}
			if canceled.Status != lettershop.StatusCanceled {
				t.Errorf("status after the retry = %q, want %q", canceled.Status, lettershop.StatusCanceled)
			}
		})
	}
}
