package lettershop

import (
	"context"
	"errors"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/internal/acctclock"
)

// Every account keeps time on the Service's clock until a test moves its
// clock apart: then the account has a clock of its own, where it stands
// against the Service's clock, or an instant it is frozen at. Everything
// that reads the time for an account reads that clock: its letters'
// lifecycle, the dates of what it creates, its idempotency keys' expiry,
// its download links' expiry.
//
// The store keeps the clocks, so every server on one store reads the same
// time for an account; an operation reads them at its start
// (internal/acctclock). Clocks of their own exist on a test clock only.

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

// now is the current time on the account's clock, kept to the millisecond
// as every time the Service writes.
func (s *Service) now(account string) time.Time { return s.clocks.Now(account) }

// AccountNow returns the current time on the account's clock, in UTC: the
// Service's clock unless a test moved the account's clock apart. It reads
// the clocks as the Service last read them from the store.
func (s *Service) AccountNow(account string) time.Time { return s.now(account) }

// AccountClock returns the state of the account's clock.
func (s *Service) AccountClock(account string) AccountClock {
	c, _ := s.clocks.Lookup(account)
	return AccountClock{Now: s.now(account), Frozen: c.Frozen}
}

// ReadAccountClock reads the accounts' clocks from the store again and
// returns the account's: a move another server on the same store made is
// seen, where AccountClock answers as the Service last read them.
func (s *Service) ReadAccountClock(ctx context.Context, account string) AccountClock {
	s.clocks.Refresh(ctx)
	return s.AccountClock(account)
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
	return s.accountClockMoved(ctx, account, s.clocks.Advance(ctx, account, d))
}

// SetAccountClock moves the account's clock forward to t, as
// AdvanceAccountClock does. A t before the clock's time is CodeInvalid
// naming now: a clock never goes back.
func (s *Service) SetAccountClock(ctx context.Context, account string, t time.Time) (AccountClock, error) {
	return s.accountClockMoved(ctx, account, s.clocks.Set(ctx, account, t))
}

// FreezeAccountClock freezes the account's clock (frozen true): it then
// stays where it is when the Service's clock moves, and moves only by
// AdvanceAccountClock and SetAccountClock. Unfrozen, it follows the
// Service's clock again from where it stands.
func (s *Service) FreezeAccountClock(ctx context.Context, account string, frozen bool) (AccountClock, error) {
	return s.accountClockMoved(ctx, account, s.clocks.Freeze(ctx, account, frozen))
}

// accountClockMoved runs what fell due in the account after a move of its
// clock, and returns the clock; or the move's error.
func (s *Service) accountClockMoved(ctx context.Context, account string, err error) (AccountClock, error) {
	if err != nil {
		return AccountClock{}, clockErr(err, "accounts keep clocks of their own only on a test clock; this service runs on the real time")
	}
	if _, err := s.life.RunAccount(ctx, account); err != nil {
		return AccountClock{}, err
	}
	s.deliveries.wakeAfterMove(ctx)
	return s.AccountClock(account), nil
}

// AdvanceClock moves the Service's test clock on by d, and with it every
// account's clock but those frozen, runs what fell due, and returns the
// clock's new time. Moves made through AdvanceClock and SetClock take
// turns, so the clock never goes back however many goroutines move it
// (clock.Mock's own Add and Set, called side by side, may). A d below
// zero, or one that takes the clock past LastClockTime, is CodeInvalid
// naming duration; a Service whose clock is not a TestClock answers
// CodeConflict.
func (s *Service) AdvanceClock(ctx context.Context, d time.Duration) (time.Time, error) {
	return s.clockMoved(ctx, s.clocks.AdvanceServer(d))
}

// SetClock moves the Service's test clock forward to t, as AdvanceClock
// does. A t before the clock's time is CodeInvalid naming now: a clock
// never goes back.
func (s *Service) SetClock(ctx context.Context, t time.Time) (time.Time, error) {
	return s.clockMoved(ctx, s.clocks.SetServer(t))
}

// clockMoved runs what fell due after a move of the Service's clock, and
// returns its time; or the move's error.
func (s *Service) clockMoved(ctx context.Context, err error) (time.Time, error) {
	if err != nil {
		return time.Time{}, clockErr(err, "only a test clock can be moved; this service runs on the real time")
	}
	if _, err := s.RunDue(ctx); err != nil {
		return time.Time{}, err
	}
	return s.Now(), nil
}

// clockErr is the Service's error for a move of a clock that failed:
// CodeConflict saying real on a real clock.
func clockErr(err error, real string) error {
	var fe *acctclock.FieldError
	var se *acctclock.StoreError
	switch {
	case errors.Is(err, acctclock.ErrRealClock):
		return errorf(CodeConflict, "%s", real)
	case errors.As(err, &fe):
		return invalidField(fe.Field, "%s", fe.Message)
	case errors.As(err, &se):
		return storeErr(se.Op, se.Err)
	}
	return err
}
