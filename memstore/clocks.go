package memstore

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

// clocks holds the accounts' own clocks, by account and in the order they
// were put, which is their stamps' order.
type clocks struct {
	byAccount map[string]storage.AccountClock
	byStamp   *btree.BTreeG[storage.AccountClock]
	// stamp is the stamp of the clock put last; read without the store's
	// lock, as every request of a server on a test clock reads it.
	stamp atomic.Int64
}

func newClocks() clocks {
	return clocks{
		byAccount: map[string]storage.AccountClock{},
		byStamp:   btree.NewG(8, func(a, b storage.AccountClock) bool { return a.Stamp < b.Stamp }),
	}
}

// PutAccountClock implements storage.Storage.
func (s *Store) PutAccountClock(ctx context.Context, c storage.AccountClock) (storage.AccountClock, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "put account clock"); err != nil {
		return storage.AccountClock{}, err
	}
	cs := &s.clocks
	old, had := cs.byAccount[c.Account]
	if old.Stamp != c.Stamp {
		return storage.AccountClock{}, fmt.Errorf("memstore: put the clock of %q at stamp %d, stored at %d: %w", c.Account, c.Stamp, old.Stamp, storage.ErrConflict)
	}
	if had {
		cs.byStamp.Delete(old)
	}
	c.Stamp = cs.stamp.Load() + 1
	cs.byAccount[c.Account] = c
	cs.byStamp.ReplaceOrInsert(c)
	cs.stamp.Store(c.Stamp)
	s.lettersDue.setLead(s.names.id(c.Account), leadOf(c))
	return c, nil
}

// ClockStamp implements storage.Storage.
func (s *Store) ClockStamp(ctx context.Context) (int64, error) {
	if err := checkContext(ctx, "read the clock stamp"); err != nil {
		return 0, err
	}
	return s.clocks.stamp.Load(), nil
}

// AccountClocks implements storage.Storage.
func (s *Store) AccountClocks(ctx context.Context, since int64, limit int) ([]storage.AccountClock, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "read account clocks"); err != nil {
		return nil, err
	}
	var out []storage.AccountClock
	if limit <= 0 {
		return out, nil
	}
	s.clocks.byStamp.AscendGreaterOrEqual(storage.AccountClock{Stamp: since + 1}, func(c storage.AccountClock) bool {
		out = append(out, c)
		return len(out) < limit
	})
	return out, nil
}
