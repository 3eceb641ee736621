package memstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/storage/storagetest"
)

func TestStorage(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Storage { return memstore.New() })
}

func TestPing(t *testing.T) {
	s := memstore.New()
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Ping(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Ping with a cancelled context: %v", err)
	}
}

// An account's clock may stand anywhere up to the year 9999, past the
// Unix nanoseconds' end in 2262: a key claimed then reads back with its
// times, lives until it expires, and no purge at the server's time takes
// it before.
func TestIdempotencyTimesPast2262(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2300, 1, 2, 3, 4, 5, 6, time.UTC),
		time.Date(9999, 12, 30, 23, 59, 59, 999_999_999, time.UTC),
	} {
		s := memstore.New()
		r := storage.IdempotencyRecord{
			Scope: "sc", Key: "k", Account: "a", Token: "t", Fingerprint: "f",
			CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour / 2), LeaseExpiresAt: at.Add(time.Minute),
		}
		got, claimed, err := s.ClaimIdempotency(t.Context(), r, at)
		if err != nil || !claimed {
			t.Fatalf("%v: claim: %v, %v", at, claimed, err)
		}
		if !got.CreatedAt.Equal(r.CreatedAt) || !got.ExpiresAt.Equal(r.ExpiresAt) || !got.LeaseExpiresAt.Equal(r.LeaseExpiresAt) {
			t.Errorf("%v: times read back as %v %v %v", at, got.CreatedAt, got.ExpiresAt, got.LeaseExpiresAt)
		}
		if n, err := s.PurgeIdempotency(t.Context(), time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)); err != nil || n != 0 {
			t.Errorf("%v: a purge at the server's time removed %d (%v)", at, n, err)
		}
		r.Token = "t2"
		if _, claimed, err := s.ClaimIdempotency(t.Context(), r, at.Add(time.Second)); err != nil || claimed {
			t.Errorf("%v: the key claimed again while its claim lives: %v, %v", at, claimed, err)
		}
		if _, claimed, err := s.ClaimIdempotency(t.Context(), r, r.ExpiresAt); err != nil || !claimed {
			t.Errorf("%v: the key not claimed again once expired: %v, %v", at, claimed, err)
		}
	}
}

// The store's trees of one kind share a free list: an empty store made a
// free list for each of its fifteen trees (69 allocations, 6.2 KB), and
// each account's trees of webhooks, deliveries and completed idempotency
// records made three more.
func TestNewStoreSharesFreeLists(t *testing.T) {
	if n := testing.AllocsPerRun(20, func() { _ = memstore.New() }); n > 53 {
		t.Errorf("New takes %v allocations, want at most 53", n)
	}
}
