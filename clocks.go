package lettershop

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
)

// Every account keeps time on the Service's clock until a test moves its
// clock apart: then the account has a clock of its own, an offset from the
// Service's clock, or an instant it is frozen at. Everything that reads the
// time for an account reads that clock: its letters' lifecycle, the dates of
// what it creates, its idempotency keys' expiry, its download links'
// expiry. Accounts whose clocks nobody moved cost nothing: while no account
// has a clock of its own, reading one is reading the Service's clock.
//
// Clocks of their own exist on a test clock (WithClock with a *clock.Mock)
// only, which never moves by itself: a real clock keeps one time for all.

// AccountClock is the state of an account's clock.
type AccountClock struct {
	// Now is the time on the account's clock.
	Now time.Time `json:"now"`
	// Frozen reports that the clock stays where it is when the Service's
	// clock moves; it moves only when the account's clock is moved.
	Frozen bool `json:"frozen"`
}

// clocks holds the accounts' own clocks.
type clocks struct {
	// own counts the accounts with a clock of their own: while it is zero
	// no lookup is made.
	own atomic.Int64
	mu  sync.RWMutex
	m   map[string]accountClock
	// serverMu makes the moves of the Service's test clock (AdvanceClock,
	// SetClock) take turns: clock.Mock's Add and Set, run side by side,
	// each move from the time they first read, and the later to finish
	// undoes the other's move.
	serverMu sync.Mutex
}

// accountClock is one account's own clock: it read at when the Service's
// clock read anchor, and has moved as the Service's since, unless frozen.
// (Not an offset: an account may be set centuries ahead, past what a
// time.Duration holds.)
type accountClock struct {
	at, anchor time.Time
	frozen     bool
}

// time is the account's time when the Service's clock reads server.
func (c accountClock) time(server time.Time) time.Time {
	if c.frozen {
		return c.at
	}
	return c.at.Add(server.Sub(c.anchor))
}

// lookup returns the account's own clock, if it has one.
func (cs *clocks) lookup(account string) (accountClock, bool) {
	if cs.own.Load() == 0 {
		return accountClock{}, false
	}
	cs.mu.RLock()
	c, ok := cs.m[account]
	cs.mu.RUnlock()
	return c, ok
}

// now is the current time on the account's clock, kept to the millisecond
// as every time the Service writes.
func (s *Service) now(account string) time.Time {
	server := s.serverNow()
	if c, ok := s.clocks.lookup(account); ok {
		return c.time(server).Truncate(time.Millisecond)
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
// Service's clock unless a test moved the account's clock apart.
func (s *Service) AccountNow(account string) time.Time { return s.now(account) }

// AccountClock returns the state of the account's clock.
func (s *Service) AccountClock(account string) AccountClock {
	c, _ := s.clocks.lookup(account)
	return AccountClock{Now: s.now(account), Frozen: c.frozen}
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
	return s.changeClock(ctx, account, func(c *accountClock, now time.Time) (err error) {
		c.at, err = advancedBy(now, d)
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
	return s.changeClock(ctx, account, func(c *accountClock, now time.Time) (err error) {
		c.at, err = setForwardTo(now, t.UTC().Truncate(time.Millisecond))
		return err
	})
}

// FreezeAccountClock freezes the account's clock (frozen true): it then
// stays where it is when the Service's clock moves, and moves only by
// AdvanceAccountClock and SetAccountClock. Unfrozen, it follows the
// Service's clock again from where it stands.
func (s *Service) FreezeAccountClock(ctx context.Context, account string, frozen bool) (AccountClock, error) {
	return s.changeClock(ctx, account, func(c *accountClock, now time.Time) error {
		c.frozen = frozen
		return nil
	})
}

// changeClock applies change to the account's clock, anchored at the
// Service's current time, and runs what fell due in the account.
func (s *Service) changeClock(ctx context.Context, account string, change func(c *accountClock, now time.Time) error) (AccountClock, error) {
	if _, ok := s.clock.(*clock.Mock); !ok {
		return AccountClock{}, errorf(CodeConflict, "accounts keep clocks of their own only on a test clock; this service runs on the real time")
	}
	if account == "" {
		return AccountClock{}, invalidField("account", "an account is required")
	}
	cs := &s.clocks
	cs.mu.Lock()
	server := s.serverNow()
	c, had := cs.m[account]
	now := c.time(server).Truncate(time.Millisecond)
	if !had {
		now = server
	}
	next := accountClock{at: now, anchor: server, frozen: c.frozen}
	if err := change(&next, now); err != nil {
		cs.mu.Unlock()
		return AccountClock{}, err
	}
	if !next.at.Equal(next.anchor) || next.frozen {
		if cs.m == nil {
			cs.m = map[string]accountClock{}
		}
		cs.m[account] = next
		if !had {
			cs.own.Add(1)
		}
	} else if had {
		// Back on the Service's clock: nothing to keep.
		delete(cs.m, account)
		cs.own.Add(-1)
	}
	cs.mu.Unlock()
	if _, err := s.life.runAccount(ctx, account); err != nil {
		return AccountClock{}, err
	}
	s.deliveries.wake()
	return s.AccountClock(account), nil
}

// AdvanceClock moves the Service's test clock on by d, and with it every
// account's clock but those frozen, runs what fell due, and returns the
// clock's new time. Moves made through AdvanceClock and SetClock take
// turns, so the clock never goes back however many goroutines move it
// (clock.Mock's own Add and Set, called side by side, may). A d below
// zero, or one that takes the clock past LastClockTime, is CodeInvalid
// naming duration; a Service whose clock is not a test clock
// (*clock.Mock) answers CodeConflict.
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
	m, ok := s.clock.(*clock.Mock)
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

// behind returns the accounts whose clocks stand behind the Service's
// clock (frozen, or unfrozen after the Service's clock passed them), whose
// letters a run at the Service's time must pass over, and the earliest of
// their times.
func (cs *clocks) behind(server time.Time) (accounts []string, earliest time.Time) {
	if cs.own.Load() == 0 {
		return nil, time.Time{}
	}
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	for a, c := range cs.m {
		if t := c.time(server); t.Before(server) {
			accounts = append(accounts, a)
			if earliest.IsZero() || t.Before(earliest) {
				earliest = t
			}
		}
	}
	slices.Sort(accounts)
	return accounts, earliest
}

// accounts returns the accounts with clocks of their own.
func (cs *clocks) accounts() []string {
	if cs.own.Load() == 0 {
		return nil
	}
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	out := make([]string, 0, len(cs.m))
	for a := range cs.m {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}
