package lettershop

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/internal/clockview"
	"github.com/lettershop/lettershop/storage"
)

// Every account keeps time on the Service's clock until a test moves its
// clock apart: then the account has a clock of its own, where it stands
// against the Service's clock (storage.AccountClock: its time when the
// Service's clock read an anchor), or an instant it is frozen at.
// Everything that reads the time for an account reads that clock: its
// letters' lifecycle, the dates of what it creates, its idempotency keys'
// expiry, its download links' expiry. Accounts whose clocks nobody moved
// cost nothing: while no account has a clock of its own, reading one is
// reading the Service's clock.
//
// The store keeps the clocks (storage.ClockStorage), so every server on one
// store reads the same time for an account: each reads the clock against
// its own clock, so servers whose clocks agree agree on every account's
// time. A Service keeps what it read of them (internal/clockview) and
// reads the store's clock stamp once per operation, at its start (the
// catch-up of a read, the start of a write: readClocks), reading the clocks
// again only when the stamp moved: a clock moved through one server is seen
// by every other on its next request.
//
// Clocks of their own exist on a test clock (WithClock with a TestClock)
// only, which never moves by itself: a real clock keeps one time for all.

// TestClock is a clock that moves only when a test moves it:
// *testclock.Clock, which moves without pausing, or *clock.Mock. On a
// TestClock (WithClock) the Service runs nothing in the background, every
// read catches up first, and accounts may keep clocks of their own.
type TestClock interface {
	clock.Clock
	// Set moves the clock to t.
	Set(t time.Time)
}

// AccountClock is the state of an account's clock.
type AccountClock struct {
	// Now is the time on the account's clock.
	Now time.Time `json:"now"`
	// Frozen reports that the clock stays where it is when the Service's
	// clock moves; it moves only when the account's clock is moved.
	Frozen bool `json:"frozen"`
}

// clocks holds the accounts' own clocks, as this Service last read them.
type clocks struct {
	view clockview.View
	// serverMu makes the moves of the Service's test clock (AdvanceClock,
	// SetClock) take turns: a TestClock's Set, run side by side from two
	// moves, takes the time each move read first, and the later to finish
	// undoes the other's move.
	serverMu sync.Mutex
}

// apart reports whether any account keeps a clock of its own.
func (cs *clocks) apart() bool { return cs.view.Apart() }

// test reports whether the Service runs on a test clock.
func (s *Service) test() bool {
	_, ok := s.clock.(TestClock)
	return ok
}

// syncClocks brings the Service's view of the accounts' clocks up to date
// with the store: one read of the store's clock stamp on a test clock,
// nothing on a real one. An operation calls it once, first, before it
// reads an account's time. A store that does not answer leaves the view as
// it was, logged: the operation's own use of the store will say more.
func (s *Service) syncClocks(ctx context.Context) {
	if !s.test() {
		return
	}
	if err := s.clocks.view.Sync(ctx, s.store); err != nil && ctx.Err() == nil {
		s.logger.Warn("read the accounts' clocks", "err", err)
	}
}

// clocksReadKey marks the context of an operation that has read the
// clocks (readClocks): the calls it makes do not read them again.
type clocksReadKey struct{}

// readClocks reads the clocks for the operation ctx starts (syncClocks),
// unless ctx is of one that has, and returns ctx so marked; on a real clock,
// ctx as it is.
func (s *Service) readClocks(ctx context.Context) context.Context {
	if !s.test() || ctx.Value(clocksReadKey{}) != nil {
		return ctx
	}
	s.syncClocks(ctx)
	return context.WithValue(ctx, clocksReadKey{}, true)
}

// now is the current time on the account's clock, kept to the millisecond
// as every time the Service writes.
func (s *Service) now(account string) time.Time {
	return s.accountTime(account, s.serverNow())
}

// accountTime is the account's time when the Service's clock reads server.
func (s *Service) accountTime(account string, server time.Time) time.Time {
	if c, ok := s.clocks.view.Lookup(account); ok {
		return c.Time(server).Truncate(time.Millisecond)
	}
	return server
}

// serverNow is the Service's clock, in UTC, to the millisecond, the
// precision of ids, so a time reads the same from every store (PostgreSQL
// keeps microseconds).
func (s *Service) serverNow() time.Time {
	return s.clock.Now().UTC().Truncate(time.Millisecond)
}

// AccountNow returns the current time on the account's clock, in UTC: the
// Service's clock unless a test moved the account's clock apart. It reads
// the clocks as the Service last read them from the store.
func (s *Service) AccountNow(account string) time.Time { return s.now(account) }

// AccountClock returns the state of the account's clock.
func (s *Service) AccountClock(account string) AccountClock {
	c, _ := s.clocks.view.Lookup(account)
	return AccountClock{Now: s.now(account), Frozen: c.Frozen}
}

// LastClockTime is as far as a test clock goes. JSON writes no year past
// 9999, and letters' schedules run days past the clock, so it stops a year
// short: a clock moved further would make every answer with a time in it
// fail.
var LastClockTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// AdvanceAccountClock moves the account's clock on by d and runs what fell
// due in the account, so the next read sees the letters where they should
// be. Only that account's time moves: other accounts, and the Service's
// clock, stay. A d below zero, or one that takes the clock past
// LastClockTime, is CodeInvalid naming duration; a Service whose clock is
// not a test clock (*clock.Mock) answers CodeConflict.
func (s *Service) AdvanceAccountClock(ctx context.Context, account string, d time.Duration) (AccountClock, error) {
	return s.changeClock(ctx, account, func(c *storage.AccountClock, now time.Time) (err error) {
		c.At, err = advancedBy(now, d)
		return err
	})
}

// advancedBy is the time d after now, for a clock at now: CodeInvalid
// naming duration for a d below zero or a time past LastClockTime.
func advancedBy(now time.Time, d time.Duration) (time.Time, error) {
	if d < 0 {
		return now, invalidField("duration", "the clock only moves forward, got %s", d)
	}
	if now.Add(d).After(LastClockTime) {
		return now, invalidField("duration", "the clock goes no further than %s; it is at %s, and %s would pass that",
			LastClockTime.Format(time.RFC3339), now.UTC().Format(time.RFC3339), d)
	}
	return now.Add(d), nil
}

// setForwardTo is t, for a clock at now: CodeInvalid naming now for a t
// before now (a clock never goes back) or past LastClockTime.
func setForwardTo(now, t time.Time) (time.Time, error) {
	switch {
	case t.Before(now):
		return now, invalidField("now", "the clock only moves forward: it is at %s, got %s", now.UTC().Format(time.RFC3339Nano), t.UTC().Format(time.RFC3339Nano))
	case t.After(LastClockTime):
		return now, invalidField("now", "the clock goes no further than %s, got %s", LastClockTime.Format(time.RFC3339), t.UTC().Format(time.RFC3339))
	}
	return t, nil
}

// SetAccountClock moves the account's clock forward to t, as
// AdvanceAccountClock does. A t before the clock's time is CodeInvalid
// naming now: a clock never goes back.
func (s *Service) SetAccountClock(ctx context.Context, account string, t time.Time) (AccountClock, error) {
	return s.changeClock(ctx, account, func(c *storage.AccountClock, now time.Time) (err error) {
		c.At, err = setForwardTo(now, t.UTC().Truncate(time.Millisecond))
		return err
	})
}

// FreezeAccountClock freezes the account's clock (frozen true): it then
// stays where it is when the Service's clock moves, and moves only by
// AdvanceAccountClock and SetAccountClock. Unfrozen, it follows the
// Service's clock again from where it stands.
func (s *Service) FreezeAccountClock(ctx context.Context, account string, frozen bool) (AccountClock, error) {
	return s.changeClock(ctx, account, func(c *storage.AccountClock, _ time.Time) error {
		c.Frozen = frozen
		return nil
	})
}

// changeClock applies change to the account's clock, anchored at the
// Service's current time, stores it, and runs what fell due in the
// account. A clock another server moved meanwhile is read again and the
// change applied to it: both moves count.
func (s *Service) changeClock(ctx context.Context, account string, change func(c *storage.AccountClock, now time.Time) error) (AccountClock, error) {
	if !s.test() {
		return AccountClock{}, errorf(CodeConflict, "accounts keep clocks of their own only on a test clock; this service runs on the real time")
	}
	if account == "" {
		return AccountClock{}, invalidField("account", "an account is required")
	}
	for tries := 0; ; tries++ {
		if err := s.clocks.view.Sync(ctx, s.store); err != nil {
			return AccountClock{}, storeErr("read the accounts' clocks", err)
		}
		stored, had := s.clocks.view.Stored(account)
		server := s.serverNow()
		now := server
		if had {
			now = stored.Time(server).Truncate(time.Millisecond)
		}
		next := storage.AccountClock{Account: account, At: now, Anchor: server, Frozen: stored.Frozen, Stamp: stored.Stamp}
		if err := change(&next, now); err != nil {
			return AccountClock{}, err
		}
		if !had && next.OnServerTime() {
			break // nothing to keep
		}
		put, err := s.store.PutAccountClock(ctx, next)
		if errors.Is(err, storage.ErrConflict) && tries < maxClockTries {
			continue
		}
		if err != nil {
			return AccountClock{}, storeErr("put the account's clock", err)
		}
		s.clocks.view.Apply(put)
		break
	}
	if _, err := s.life.runAccount(ctx, account); err != nil {
		return AccountClock{}, err
	}
	s.deliveries.wake()
	return s.AccountClock(account), nil
}

// maxClockTries bounds how often a move of an account's clock is tried
// again when other moves of it keep coming first.
const maxClockTries = 100

// AdvanceClock moves the Service's test clock on by d, and with it every
// account's clock but those frozen, runs what fell due, and returns the
// clock's new time. Moves made through AdvanceClock and SetClock take
// turns, so the clock never goes back however many goroutines move it
// (clock.Mock's own Add and Set, called side by side, may). A d below
// zero, or one that takes the clock past LastClockTime, is CodeInvalid
// naming duration; a Service whose clock is not a TestClock answers
// CodeConflict.
func (s *Service) AdvanceClock(ctx context.Context, d time.Duration) (time.Time, error) {
	return s.moveClock(ctx, func(now time.Time) (time.Time, error) { return advancedBy(now, d) })
}

// SetClock moves the Service's test clock forward to t, as AdvanceClock
// does. A t before the clock's time is CodeInvalid naming now: a clock
// never goes back.
func (s *Service) SetClock(ctx context.Context, t time.Time) (time.Time, error) {
	return s.moveClock(ctx, func(now time.Time) (time.Time, error) { return setForwardTo(now, t) })
}

// moveClock moves the Service's test clock to the time to gives for its
// current one, then runs what fell due.
func (s *Service) moveClock(ctx context.Context, to func(now time.Time) (time.Time, error)) (time.Time, error) {
	m, ok := s.clock.(TestClock)
	if !ok {
		return time.Time{}, errorf(CodeConflict, "only a test clock can be moved; this service runs on the real time")
	}
	s.clocks.serverMu.Lock()
	t, err := to(m.Now())
	if err == nil {
		m.Set(t)
	}
	s.clocks.serverMu.Unlock()
	if err != nil {
		return time.Time{}, err
	}
	if _, err := s.RunDue(ctx); err != nil {
		return time.Time{}, err
	}
	return s.Now(), nil
}

// earliestBehind is the earliest time of the accounts whose clocks stand
// behind the Service's clock, when it reads server (frozen, or unfrozen
// after it passed them); the zero time when none does.
func (cs *clocks) earliestBehind(server time.Time) time.Time {
	return cs.view.EarliestBehind(server)
}
