package storage

import (
	"context"
	"time"
)

// Accounts keep time on the server's clock until a test moves an account's
// clock apart (on a test clock only). The store keeps those clocks, so that
// every server on one store reads the same time for an account: a clock is
// kept as where it stands against the server's clock (At when the server's
// clock read Anchor), and each server reads it against its own. Servers
// whose own clocks agree (the real time, or test clocks moved together)
// then agree on every account's time.
//
// A server keeps what it read of the clocks and reads them again only when
// ClockStamp changed, which is one cheap lookup; AccountClocks then gives
// only the clocks put since.

// ClockStorage is the part of Storage that keeps the accounts' own clocks.
type ClockStorage interface {
	// PutAccountClock stores c as its account's clock, if the clock stored
	// for the account has the Stamp c carries (0: the account has none),
	// and returns it with its new Stamp. A clock that reads as the
	// server's (OnServerTime) may be put, to put an account back on the
	// server's clock. A store that orders letters by when they fall due
	// orders the account's letters by its new clock (see DueQuery).
	// Errors: ErrConflict when the stored clock's Stamp is another.
	PutAccountClock(ctx context.Context, c AccountClock) (AccountClock, error)
	// ClockStamp returns the stamp of the clock put last, 0 when none was:
	// it grows with every put, so a caller that read the clocks at one
	// stamp knows from it whether any changed since.
	ClockStamp(ctx context.Context) (int64, error)
	// AccountClocks returns up to limit clocks whose Stamp is above since,
	// lowest Stamp first: the clocks put since a caller read them at
	// since, each as last put.
	AccountClocks(ctx context.Context, since int64, limit int) ([]AccountClock, error)
}

// AccountClock is an account's own clock.
type AccountClock struct {
	Account string
	// At is the account's time when the server's clock read Anchor.
	At, Anchor time.Time
	// Frozen clocks stay at At when the server's clock moves.
	Frozen bool
	// Stamp is set by the store: the ClockStamp of the put that stored
	// the clock.
	Stamp int64
}

// Time is the time on the clock when the server's clock reads server:
// At, frozen; else At moved on as far as server is past Anchor.
func (c AccountClock) Time(server time.Time) time.Time {
	if c.Frozen {
		return c.At
	}
	return Shift(c.At, c.Anchor, server)
}

// OnServerTime reports whether the clock reads what the server's clock
// reads, always: not frozen, and not apart from it.
func (c AccountClock) OnServerTime() bool { return !c.Frozen && c.At.Equal(c.Anchor) }

// Shift returns t moved by to - from: the time t becomes when the clock it
// was read on moves from from to to. Unlike t.Add(to.Sub(from)), it holds
// for any span, centuries included, which a time.Duration does not.
func Shift(t, from, to time.Time) time.Time {
	if d := to.Sub(from); d > minShift && d < maxShift {
		return t.Add(d)
	}
	secs := t.Unix() + to.Unix() - from.Unix()
	nsecs := int64(t.Nanosecond()) + int64(to.Nanosecond()) - int64(from.Nanosecond())
	return time.Unix(secs, nsecs).In(t.Location())
}

// Spans a time.Duration holds with room to spare.
const (
	maxShift = 100 * 365 * 24 * time.Hour
	minShift = -maxShift
)
