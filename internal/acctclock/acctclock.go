// Package acctclock keeps a server's clock and the accounts' own clocks
// beside it, as a store holds them (storage.ClockStorage): the time an
// account reads, the moves of an account's clock (a compare-and-swap on
// the store, tried again when another server's move came first), and the
// moves of the server's test clock, which take turns.
//
// An account keeps time on the server's clock until its clock is moved
// apart: then it reads that clock (storage.AccountClock: its time when the
// server's clock read an anchor, or an instant it is frozen at). While no
// account has a clock of its own, reading an account's time is reading the
// server's clock, and one atomic load. The clocks are read from the store
// through internal/clockview, again only when the store's clock stamp
// moved.
//
// Clocks of their own exist on a test clock (a clock.Clock with Set) only,
// which never moves by itself: on a real clock every move is refused with
// ErrRealClock. The package knows the store and the clock, nothing of what
// runs on them.
package acctclock

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/internal/clockview"
	"github.com/lettershop/lettershop/storage"
)

// settable is a test clock: a clock that moves only when Set.
type settable interface {
	clock.Clock
	Set(t time.Time)
}

// ErrRealClock is what a move returns on a server running on the real
// time, whose clock no one moves.
var ErrRealClock = errors.New("acctclock: the clock is the real time")

// FieldError is a move refused for its input: Field names it, Message
// says why.
type FieldError struct {
	Field   string
	Message string
}

// Error says which input was refused, and why.
func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// StoreError is a move the store failed: Op says what was asked of it.
type StoreError struct {
	Op  string
	Err error
}

// Error says what the store failed, and how.
func (e *StoreError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// maxTries bounds how often a move of an account's clock is tried again
// when other moves of it keep coming first.
const maxTries = 100

// Clocks are a server's clock and the accounts' clocks beside it, as the
// server last read them from the store. Set it up with Init before use;
// it is safe for concurrent use after.
type Clocks struct {
	view clockview.View
	// server is the server's clock, test the same when it is a test clock
	// (nil on a real one).
	server clock.Clock
	test   settable
	store  storage.ClockStorage
	logger *slog.Logger
	last   time.Time
	// serverMu makes the moves of the server's test clock take turns: a
	// test clock's Set, run side by side from two moves, takes the time
	// each move read first, and the later to finish undoes the other's.
	serverMu sync.Mutex
}

// Init sets up c on the server's clock and store: clocks move no further
// than last, and a store that does not answer a Refresh is logged to
// logger.
func (c *Clocks) Init(server clock.Clock, store storage.ClockStorage, last time.Time, logger *slog.Logger) {
	c.server, c.store, c.last, c.logger = server, store, last, logger
	c.test, _ = server.(settable)
}

// Apart reports whether any account keeps a clock of its own.
func (c *Clocks) Apart() bool { return c.view.Apart() }

// Lookup returns the account's clock, if it has one of its own.
func (c *Clocks) Lookup(account string) (storage.AccountClock, bool) { return c.view.Lookup(account) }

// Each calls fn with every clock of its own, in no order, until fn returns
// false: for tests and diagnostics, never for serving a request.
func (c *Clocks) Each(fn func(storage.AccountClock) bool) { c.view.Each(fn) }

// EarliestBehind is the earliest time of the accounts whose clocks stand
// behind the server's clock when it reads server (frozen, or unfrozen after
// it passed them); the zero time when none does.
func (c *Clocks) EarliestBehind(server time.Time) time.Time { return c.view.EarliestBehind(server) }

// ServerNow is the server's clock, in UTC, to the millisecond, the
// precision of ids, so a time reads the same from every store (PostgreSQL
// keeps microseconds).
func (c *Clocks) ServerNow() time.Time { return c.server.Now().UTC().Truncate(time.Millisecond) }

// Now is the current time on the account's clock, to the millisecond.
func (c *Clocks) Now(account string) time.Time { return c.Time(account, c.ServerNow()) }

// Time is the account's time when the server's clock reads server.
func (c *Clocks) Time(account string, server time.Time) time.Time {
	if ac, ok := c.view.Lookup(account); ok {
		return ac.Time(server).Truncate(time.Millisecond)
	}
	return server
}

// Refresh brings the view of the accounts' clocks up to date with the
// store: one read of the store's clock stamp on a test clock, nothing on a
// real one. An operation calls it once, first, before it reads an
// account's time. A store that does not answer leaves the view as it was,
// logged: the operation's own use of the store will say more.
func (c *Clocks) Refresh(ctx context.Context) {
	if c.test == nil {
		return
	}
	if err := c.view.Sync(ctx, c.store); err != nil && ctx.Err() == nil {
		c.logger.Warn("read the accounts' clocks", "err", err)
	}
}

// readKey marks the context of an operation that has read the clocks
// (Read): the calls it makes do not read them again.
type readKey struct{}

// Read refreshes the clocks for the operation ctx starts, unless ctx is of
// one that has, and returns ctx so marked; on a real clock, ctx as it is.
func (c *Clocks) Read(ctx context.Context) context.Context {
	if c.test == nil || ctx.Value(readKey{}) != nil {
		return ctx
	}
	c.Refresh(ctx)
	return context.WithValue(ctx, readKey{}, true)
}

// WasRead reports whether ctx is of an operation that has read the clocks
// (Read).
func (c *Clocks) WasRead(ctx context.Context) bool { return ctx.Value(readKey{}) != nil }

// Advance moves the account's clock on by d: a FieldError naming duration
// for a d below zero or one that takes it past the last time.
func (c *Clocks) Advance(ctx context.Context, account string, d time.Duration) error {
	return c.change(ctx, account, func(ac *storage.AccountClock, now time.Time) (err error) {
		ac.At, err = c.advancedBy(now, d)
		return err
	})
}

// Set moves the account's clock forward to t: a FieldError naming now for
// a t before its time (a clock never goes back) or past the last time.
func (c *Clocks) Set(ctx context.Context, account string, t time.Time) error {
	return c.SetFrozen(ctx, account, t, false)
}

// SetFrozen moves the account's clock forward to t, as Set does, and with
// frozen freezes it there, in one move. A clock frozen already stays so.
func (c *Clocks) SetFrozen(ctx context.Context, account string, t time.Time, frozen bool) error {
	return c.change(ctx, account, func(ac *storage.AccountClock, now time.Time) (err error) {
		ac.At, err = c.setForwardTo(now, t.UTC().Truncate(time.Millisecond))
		ac.Frozen = ac.Frozen || frozen
		return err
	})
}

// BehindError is a clock past the time it was to be set forward to.
type BehindError struct {
	// Now is the clock's time, At the time it was to be set to.
	Now, At time.Time
}

// Error says where the clock is, and where it was to be set.
func (e *BehindError) Error() string {
	return "acctclock: the clock is at " + e.Now.Format(time.RFC3339Nano) + ", past " + e.At.Format(time.RFC3339Nano)
}

// CheckSet checks, before anything else is written, that the account's
// clock, or with server the server's, can be set forward to at:
// ErrRealClock on a real clock, a FieldError naming field for an at past
// the last time, and a *BehindError for a clock past at.
func (c *Clocks) CheckSet(account string, at time.Time, server bool, field string) error {
	if c.test == nil {
		return ErrRealClock
	}
	if at.After(c.last) {
		return fieldErr(field, "the clock goes no further than %s, got %s", c.last.Format(time.RFC3339), at.UTC().Format(time.RFC3339))
	}
	now := c.Now(account)
	if server {
		now = c.ServerNow()
	}
	if now.After(at) {
		return &BehindError{Now: now, At: at}
	}
	return nil
}

// Freeze freezes the account's clock where it is, or lets it follow the
// server's clock again from there.
func (c *Clocks) Freeze(ctx context.Context, account string, frozen bool) error {
	return c.change(ctx, account, func(ac *storage.AccountClock, _ time.Time) error {
		ac.Frozen = frozen
		return nil
	})
}

// Stamp returns the Stamp of the account's clock as the server last read
// it from the store (0 when it read none), on a test clock; 0 on a real
// one. It moves with every put of the account's clock, Touch's included.
func (c *Clocks) Stamp(account string) int64 {
	if c.test == nil {
		return 0
	}
	st, _ := c.view.Stored(account)
	return st.Stamp
}

// Touch puts the account's clock again as it stands, on a test clock, so
// that its Stamp moves: every server on the store then learns from its
// next Refresh that the account changed as a move of its clock does not
// tell (its records erased). Nothing on a real clock, where no server
// reads the clocks.
func (c *Clocks) Touch(ctx context.Context, account string) error {
	if c.test == nil {
		return nil
	}
	return c.put(ctx, account, true, func(*storage.AccountClock, time.Time) error { return nil })
}

// change applies fn to the account's clock, anchored at the server's
// current time, and stores it. A clock another server moved meanwhile is
// read again and the change applied to it: both moves count.
func (c *Clocks) change(ctx context.Context, account string, fn func(ac *storage.AccountClock, now time.Time) error) error {
	return c.put(ctx, account, false, fn)
}

// put is change, which with always stores the clock even when it reads
// as the server's and the store holds none for the account.
func (c *Clocks) put(ctx context.Context, account string, always bool, fn func(ac *storage.AccountClock, now time.Time) error) error {
	if c.test == nil {
		return ErrRealClock
	}
	if account == "" {
		return fieldErr("account", "an account is required")
	}
	_, err := storage.RetryConflicts(maxTries, func() (struct{}, error) {
		if err := c.view.Sync(ctx, c.store); err != nil {
			return struct{}{}, &StoreError{"read the accounts' clocks", err}
		}
		stored, had := c.view.Stored(account)
		server := c.ServerNow()
		now := server
		if had {
			now = stored.Time(server).Truncate(time.Millisecond)
		}
		next := storage.AccountClock{Account: account, At: now, Anchor: server, Frozen: stored.Frozen, Stamp: stored.Stamp}
		if err := fn(&next, now); err != nil {
			return struct{}{}, err
		}
		if !had && next.OnServerTime() && !always {
			return struct{}{}, nil // nothing to keep
		}
		put, err := c.store.PutAccountClock(ctx, next)
		if err != nil {
			return struct{}{}, &StoreError{"put the account's clock", err}
		}
		c.view.Apply(put)
		return struct{}{}, nil
	})
	return err
}

// AdvanceServer moves the server's test clock on by d, as Advance moves an
// account's.
func (c *Clocks) AdvanceServer(d time.Duration) error {
	return c.moveServer(func(now time.Time) (time.Time, error) { return c.advancedBy(now, d) })
}

// SetServer moves the server's test clock forward to t, as Set moves an
// account's.
func (c *Clocks) SetServer(t time.Time) error {
	return c.moveServer(func(now time.Time) (time.Time, error) { return c.setForwardTo(now, t) })
}

// moveServer moves the server's test clock to the time to gives for its
// current one; the moves take turns, so the clock never goes back however
// many goroutines move it.
func (c *Clocks) moveServer(to func(now time.Time) (time.Time, error)) error {
	if c.test == nil {
		return ErrRealClock
	}
	c.serverMu.Lock()
	defer c.serverMu.Unlock()
	t, err := to(c.test.Now())
	if err == nil {
		c.test.Set(t)
	}
	return err
}

// advancedBy is the time d after now, for a clock at now: a FieldError
// naming duration for a d below zero or a time past the last.
func (c *Clocks) advancedBy(now time.Time, d time.Duration) (time.Time, error) {
	if d < 0 {
		return now, fieldErr("duration", "the clock only moves forward, got %s", d)
	}
	if now.Add(d).After(c.last) {
		return now, fieldErr("duration", "the clock goes no further than %s; it is at %s, and %s would pass that",
			c.last.Format(time.RFC3339), now.UTC().Format(time.RFC3339), d)
	}
	return now.Add(d), nil
}

// setForwardTo is t, for a clock at now: a FieldError naming now for a t
// before now (a clock never goes back) or past the last time.
func (c *Clocks) setForwardTo(now, t time.Time) (time.Time, error) {
	switch {
	case t.Before(now):
		return now, fieldErr("now", "the clock only moves forward: it is at %s, got %s", now.UTC().Format(time.RFC3339Nano), t.UTC().Format(time.RFC3339Nano))
	case t.After(c.last):
		return now, fieldErr("now", "the clock goes no further than %s, got %s", c.last.Format(time.RFC3339), t.UTC().Format(time.RFC3339))
	}
	return t, nil
}
