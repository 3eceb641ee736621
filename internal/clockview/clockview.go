// Package clockview keeps a server's view of the accounts' own clocks as a
// store holds them (storage.ClockStorage), read again only when the store's
// clock stamp says one changed: reading an account's time is then a map
// lookup, and keeping up with the store one cheap lookup of the stamp.
//
// The view holds every clock the store gave it, and counts those apart from
// the server's clock: while there are none, a lookup takes no lock. It also
// orders the clocks that stand behind the server's clock, frozen or
// unfrozen since, so that the earliest of their times is found without a
// walk over every account.
package clockview

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

// page is how many clocks one read of the store asks for.
const page = 1000

// View is a server's view of the accounts' clocks. Its zero value is an
// empty view, ready to use. It is safe for concurrent use.
type View struct {
	// apart counts the clocks apart from the server's clock: while it is
	// zero, every account reads the server's time.
	apart atomic.Int64
	// synced is the store's stamp the view has read up to.
	synced atomic.Int64

	// syncMu makes reads of the store take turns, so a burst of requests
	// after a change reads the changes once.
	syncMu sync.Mutex

	mu sync.RWMutex
	m  map[string]storage.AccountClock
	// frozen orders the frozen clocks by their time; lagging the others
	// behind the server's clock, furthest behind first.
	frozen  *btree.BTreeG[storage.AccountClock]
	lagging *btree.BTreeG[storage.AccountClock]
}

// Apart reports whether any account keeps a clock apart from the server's.
func (v *View) Apart() bool { return v.apart.Load() > 0 }

// Lookup returns the account's clock, if it has one apart from the
// server's.
func (v *View) Lookup(account string) (storage.AccountClock, bool) {
	if v.apart.Load() == 0 {
		return storage.AccountClock{}, false
	}
	v.mu.RLock()
	c, ok := v.m[account]
	v.mu.RUnlock()
	if !ok || c.OnServerTime() {
		return storage.AccountClock{}, false
	}
	return c, true
}

// Stored returns the account's clock as last read from the store, with its
// Stamp, apart from the server's or not: what a put of a new clock for the
// account expects to find.
func (v *View) Stored(account string) (storage.AccountClock, bool) {
	v.mu.RLock()
	c, ok := v.m[account]
	v.mu.RUnlock()
	return c, ok
}

// Each calls fn with every clock apart from the server's, in no order,
// until fn returns false: a walk over every account, for tests and
// diagnostics, never for serving a request.
func (v *View) Each(fn func(storage.AccountClock) bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, c := range v.m {
		if !c.OnServerTime() && !fn(c) {
			return
		}
	}
}

// Time is the account's time when the server's clock reads server.
func (v *View) Time(account string, server time.Time) time.Time {
	if c, ok := v.Lookup(account); ok {
		return c.Time(server)
	}
	return server
}

// Sync brings the view up to date with store: one read of the stamp, and
// the clocks put since, if any were.
func (v *View) Sync(ctx context.Context, store storage.ClockStorage) error {
	stamp, err := store.ClockStamp(ctx)
	if err != nil {
		return err
	}
	if stamp <= v.synced.Load() {
		return nil
	}
	v.syncMu.Lock()
	defer v.syncMu.Unlock()
	for since := v.synced.Load(); since < stamp; {
		cs, err := store.AccountClocks(ctx, since, page)
		if err != nil {
			return err
		}
		for _, c := range cs {
			v.Apply(c)
			since = max(since, c.Stamp)
		}
		if len(cs) < page {
			since = max(since, stamp)
		}
		v.synced.Store(since)
	}
	return nil
}

// Apply takes c, as the store returned it, into the view, unless the view
// holds a later put of the account's clock. A server applies the clocks it
// puts itself at once; the next Sync reads them again, with every other
// put since.
func (v *View) Apply(c storage.AccountClock) {
	v.mu.Lock()
	defer v.mu.Unlock()
	old, had := v.m[c.Account]
	if had && old.Stamp >= c.Stamp {
		return
	}
	if v.m == nil {
		v.m = map[string]storage.AccountClock{}
		v.frozen = btree.NewG(8, frozenLess)
		v.lagging = btree.NewG(8, laggingLess)
	}
	if had {
		v.unorder(old)
	}
	v.m[c.Account] = c
	v.order(c)
	var d int64
	if had && !old.OnServerTime() {
		d--
	}
	if !c.OnServerTime() {
		d++
	}
	v.apart.Add(d)
}

func (v *View) order(c storage.AccountClock) {
	switch {
	case c.Frozen:
		v.frozen.ReplaceOrInsert(c)
	case c.At.Before(c.Anchor):
		v.lagging.ReplaceOrInsert(c)
	}
}

func (v *View) unorder(c storage.AccountClock) {
	v.frozen.Delete(c)
	v.lagging.Delete(c)
}

func frozenLess(a, b storage.AccountClock) bool {
	if !a.At.Equal(b.At) {
		return a.At.Before(b.At)
	}
	return a.Account < b.Account
}

// laggingLess orders unfrozen clocks behind the server's by how far behind
// they are, furthest first: each reads the server's time less a fixed
// span, so that order holds whatever the server's clock reads.
func laggingLess(a, b storage.AccountClock) bool {
	// a is further behind than b when At - Anchor is smaller: compare
	// a.At + b.Anchor with b.At + a.Anchor, exactly.
	as, an := a.At.Unix()+b.Anchor.Unix(), a.At.Nanosecond()+b.Anchor.Nanosecond()
	bs, bn := b.At.Unix()+a.Anchor.Unix(), b.At.Nanosecond()+a.Anchor.Nanosecond()
	if an >= 1e9 {
		as, an = as+1, an-1e9
	}
	if bn >= 1e9 {
		bs, bn = bs+1, bn-1e9
	}
	switch {
	case as != bs:
		return as < bs
	case an != bn:
		return an < bn
	}
	return a.Account < b.Account
}

// EarliestBehind returns the earliest time an account's clock reads when
// the server's clock reads server, among the clocks that stand behind it
// (frozen, or unfrozen after it passed them); the zero time when none does.
func (v *View) EarliestBehind(server time.Time) time.Time {
	if v.apart.Load() == 0 {
		return time.Time{}
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	var earliest time.Time
	if c, ok := v.frozen.Min(); ok && c.At.Before(server) {
		earliest = c.At
	}
	if c, ok := v.lagging.Min(); ok {
		if t := c.Time(server); earliest.IsZero() || t.Before(earliest) {
			earliest = t
		}
	}
	return earliest
}
