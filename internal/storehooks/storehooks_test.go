package storehooks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lettershop/lettershop/internal/storehooks"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// failingStore fails some methods with an error outside the storage
// contract, and GetAsset with one of its sentinels.
type failingStore struct{ storage.Storage }

var errDiskGone = errors.New("disk gone")

func (failingStore) RenewIdempotency(context.Context, string, string, string, string, time.Time, time.Time) error {
	return errDiskGone
}

func (failingStore) TrimIdempotency(context.Context, string, int, int64) (int, error) {
	return 0, errDiskGone
}

func (failingStore) ListLetters(context.Context, storage.LetterQuery) ([]storage.Letter, error) {
	return nil, fmt.Errorf("list: %w", context.Canceled)
}

// record keeps what the hooks were told.
type record struct{ created, statuses, errors []string }

func (r *record) hooks() storehooks.Hooks[string] {
	return storehooks.Hooks[string]{
		Created: func(st string) { r.created = append(r.created, st) },
		Status:  func(st string) { r.statuses = append(r.statuses, st) },
		Error:   func(op string) { r.errors = append(r.errors, op) },
	}
}

func TestWrapReportsFailuresOutsideTheContract(t *testing.T) {
	var r record
	s := storehooks.Wrap(failingStore{memstore.New()}, r.hooks())
	ctx := context.Background()
	now := time.Now()
	if err := s.RenewIdempotency(ctx, "acct", "s", "k", "t", now, now.Add(time.Minute)); !errors.Is(err, errDiskGone) {
		t.Fatalf("RenewIdempotency: %v, want the store's error", err)
	}
	if _, err := s.TrimIdempotency(ctx, "acct", 10, 1<<20); !errors.Is(err, errDiskGone) {
		t.Fatalf("TrimIdempotency: %v, want the store's error", err)
	}
	// Not failures of the store: a sentinel of the contract, a caller that
	// gave up.
	if _, err := s.GetAsset(ctx, "acct", "ast_missing"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("GetAsset: %v, want ErrNotFound", err)
	}
	if _, err := s.ListLetters(ctx, storage.LetterQuery{Account: "acct"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("ListLetters: %v, want context.Canceled", err)
	}
	if want := []string{"RenewIdempotency", "TrimIdempotency"}; !slices.Equal(r.errors, want) {
		t.Errorf("Error reported %q, want %q", r.errors, want)
	}
}

func TestWrapReportsStatuses(t *testing.T) {
	var r record
	s := storehooks.Wrap(memstore.New(), r.hooks())
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l, err := s.CreateLetter(ctx, storage.Letter{ID: "ltr_1", Account: "acct", Status: "queued", CreatedAt: now, ModifiedAt: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// An update without Track's note of the stored status says nothing.
	l.Status = "ready"
	if l, err = s.UpdateLetter(ctx, l, nil); err != nil {
		t.Fatal(err)
	}
	// Under Track, an update after a read reports a change of status...
	tctx := storehooks.Track(ctx, s)
	if l, err = s.GetLetter(tctx, "acct", "ltr_1"); err != nil {
		t.Fatal(err)
	}
	l.Status = "inProduction"
	if l, err = s.UpdateLetter(tctx, l, nil); err != nil {
		t.Fatal(err)
	}
	// ...and not a write in the status read.
	tctx = storehooks.Track(ctx, s)
	if l, err = s.GetLetter(tctx, "acct", "ltr_1"); err != nil {
		t.Fatal(err)
	}
	l.ExternalID = "x"
	if l, err = s.UpdateLetter(tctx, l, nil); err != nil {
		t.Fatal(err)
	}
	// A due letter moved on by ProcessDueLetters.
	l.DueAt = now
	if _, err = s.UpdateLetter(ctx, l, nil); err != nil {
		t.Fatal(err)
	}
	n, err := s.ProcessDueLetters(ctx, storage.DueQuery{Now: now.Add(time.Hour), Limit: 10}, func(d *storage.Letter) error {
		d.Status, d.DueAt = "mailed", time.Time{}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("ProcessDueLetters = %d, %v; want 1 letter", n, err)
	}
	if want := []string{"queued"}; !slices.Equal(r.created, want) {
		t.Errorf("Created reported %q, want %q", r.created, want)
	}
	if want := []string{"queued", "inProduction", "mailed"}; !slices.Equal(r.statuses, want) {
		t.Errorf("Status reported %q, want %q", r.statuses, want)
	}
	if len(r.errors) != 0 {
		t.Errorf("Error reported %q, want nothing", r.errors)
	}
}

func TestWrapWithoutHooks(t *testing.T) {
	inner := failingStore{memstore.New()}
	s := storehooks.Wrap(inner, storehooks.Hooks[string]{})
	if s != storage.Storage(inner) {
		t.Errorf("Wrap without hooks = %T; want the store itself", s)
	}
	if _, err := s.TrimIdempotency(context.Background(), "acct", 1, 1); !errors.Is(err, errDiskGone) {
		t.Errorf("TrimIdempotency: %v, want the store's error", err)
	}
}

// Track costs nothing where no Status hook listens: the context comes back
// as it was, from a store without hooks or with others only.
func TestTrackWithoutStatusHook(t *testing.T) {
	ctx := context.Background()
	for name, s := range map[string]storage.Storage{
		"unwrapped":  memstore.New(),
		"error hook": storehooks.Wrap(memstore.New(), storehooks.Hooks[string]{Error: func(string) {}}),
	} {
		if got := storehooks.Track(ctx, s); got != ctx {
			t.Errorf("%s: Track made a new context", name)
		}
		if n := testing.AllocsPerRun(100, func() { storehooks.Track(ctx, s) }); n != 0 {
			t.Errorf("%s: Track allocates %v times", name, n)
		}
	}
	if got := storehooks.Track(ctx, storehooks.Wrap(memstore.New(), storehooks.Hooks[string]{Status: func(string) {}})); got == ctx {
		t.Error("Track did not mark the context for a Status hook")
	}
}

// brokenRestorer is a memstore whose restores fail outside the contract.
type brokenRestorer struct{ *memstore.Store }

func (brokenRestorer) RestoreRecords(context.Context, storage.AccountRecords) error {
	return errDiskGone
}

// The layer keeps a store's one-step restore: Wrap of a Restorer is one,
// and its RestoreRecords is the store's, its failure reported; Wrap of a
// store without it is none.
func TestWrapKeepsRestorer(t *testing.T) {
	var r record
	w := storehooks.Wrap[string](memstore.New(), r.hooks())
	rs, ok := w.(storage.Restorer)
	if !ok {
		t.Fatal("Wrap of a memstore is no storage.Restorer")
	}
	recs := storage.AccountRecords{Account: "a", Letters: []storage.Letter{{ID: "ltr_1", Account: "a", Status: "mailed"}}}
	if err := rs.RestoreRecords(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if _, err := w.GetLetter(context.Background(), "a", "ltr_1"); err != nil {
		t.Errorf("the restored letter: %v", err)
	}
	if len(r.created) != 0 || len(r.statuses) != 0 || len(r.errors) != 0 {
		t.Errorf("a restore told created %v, statuses %v, errors %v; want nothing", r.created, r.statuses, r.errors)
	}
	broken := storehooks.Wrap[string](brokenRestorer{memstore.New()}, r.hooks())
	if err := broken.(storage.Restorer).RestoreRecords(context.Background(), storage.AccountRecords{Account: "a"}); !errors.Is(err, errDiskGone) {
		t.Errorf("RestoreRecords = %v, want the store's error", err)
	}
	if !slices.Equal(r.errors, []string{"RestoreRecords"}) {
		t.Errorf("errors told %v, want RestoreRecords", r.errors)
	}
	if _, ok := storehooks.Wrap[string](failingStore{memstore.New()}, r.hooks()).(storage.Restorer); ok {
		t.Error("Wrap of a store without RestoreRecords is a storage.Restorer")
	}
}
