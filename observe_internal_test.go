package lettershop

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// failingIdemStore fails the idempotency upkeep calls with an error outside
// the storage contract.
type failingIdemStore struct{ storage.Storage }

var errDiskGone = errors.New("disk gone")

func (failingIdemStore) RenewIdempotency(context.Context, string, string, string, string, time.Time, time.Time) error {
	return errDiskGone
}

func (failingIdemStore) TrimIdempotency(context.Context, string, int, int64) (int, error) {
	return 0, errDiskGone
}

func TestObservedStoreReportsEveryMethodsFailure(t *testing.T) {
	var ops []string
	o := &observedStore{
		Storage: failingIdemStore{memstore.New()},
		hooks:   Hooks{StoreError: func(op string) { ops = append(ops, op) }},
	}
	ctx := context.Background()
	now := time.Now()
	if err := o.RenewIdempotency(ctx, "acct", "s", "k", "t", now, now.Add(time.Minute)); !errors.Is(err, errDiskGone) {
		t.Fatalf("RenewIdempotency: %v, want the store's error", err)
	}
	if _, err := o.TrimIdempotency(ctx, "acct", 10, 1<<20); !errors.Is(err, errDiskGone) {
		t.Fatalf("TrimIdempotency: %v, want the store's error", err)
	}
	if want := []string{"RenewIdempotency", "TrimIdempotency"}; !slices.Equal(ops, want) {
		t.Errorf("StoreError reported %q, want %q", ops, want)
	}
}
