// Package testclock is a clock for tests: it reads the time a test set and
// moves only when the test moves it, and a move costs what setting a
// variable costs.
//
// A Clock is a clock.Clock (github.com/benbjohnson/clock), so it goes
// wherever a clock.Clock does: lettershop.WithClock, and the code under
// test. clock.Mock serves the same purpose, but every Set and Add of a Mock
// sleeps a millisecond on the wall clock, to let the goroutines its timers
// woke run; a suite that makes a server per test, and moves its clock a
// few times in each, spends most of its time asleep. A Clock sleeps only
// where a Mock's timers are at work:
//
//   - Now, Since, Until, Set and Add never wait. Moves from several
//     goroutines take turns, so none undoes another's.
//   - Ticks is a ticker of its own kind: it costs nothing while it does not
//     tick, and a move that makes it tick yields the processor once
//     (runtime.Gosched), not a millisecond.
//   - The timers of the clock.Clock interface (After, AfterFunc, Sleep,
//     Tick, Ticker, Timer, WithDeadline, WithTimeout) are a clock.Mock's,
//     as their types (clock.Timer, clock.Ticker) can only be: the first of
//     them makes the Clock follow a Mock at its time, and from then on
//     every move is that Mock's move, with its pause. Mock returns that
//     Mock, for code that needs one.
package testclock

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
)

var _ clock.Clock = (*Clock)(nil)

// Clock is a clock that moves only when told. Its zero value is not
// usable; call New. It is safe for concurrent use.
type Clock struct {
	// mu makes moves, the making of the Mock and the changes to ticks
	// take turns; reads of the time take none.
	mu sync.Mutex
	st atomic.Pointer[state]
	// ticks are the live tickers of Ticks, while there is no Mock.
	ticks []*ticker
}

// state is the clock's time, or the Mock it follows.
type state struct {
	now  time.Time
	mock *clock.Mock
}

// ticker is one ticker of Ticks.
type ticker struct {
	c      chan time.Time
	period time.Duration
	next   time.Time
}

// New returns a Clock reading t.
func New(t time.Time) *Clock {
	c := &Clock{}
	c.st.Store(&state{now: t})
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	st := c.st.Load()
	if st.mock != nil {
		return st.mock.Now()
	}
	return st.now
}

// Since returns the time on the clock since t.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Until returns the time on the clock until t.
func (c *Clock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// Set moves the clock to t, forward or back, as clock.Mock's Set does.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.moveLocked(t)
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.moveLocked(c.Now().Add(d))
}

// moveLocked moves the clock to t and unlocks c.mu: a Mock's move runs
// its timers, which may call back into the clock, so it runs unlocked.
func (c *Clock) moveLocked(t time.Time) {
	st := c.st.Load()
	if st.mock == nil {
		c.st.Store(&state{now: t})
	}
	var fired []*ticker
	for _, tk := range c.ticks {
		if !tk.next.After(t) {
			fired = append(fired, tk)
			tk.next = t.Add(tk.period)
		}
	}
	if st.mock != nil {
		// The Mock's Set runs with c.mu held, so that moves still take
		// turns; its timers' functions run in goroutines of their own.
		st.mock.Set(t)
	}
	c.mu.Unlock()
	for _, tk := range fired {
		select {
		case tk.c <- t:
		default: // one tick waits already, as with a time.Ticker
		}
	}
	if len(fired) > 0 {
		// Let the receivers run before the mover goes on, as a Mock
		// would, without sleeping.
		runtime.Gosched()
	}
}

// Ticks returns a channel that receives the clock's time when a move takes
// it d or more past the last tick (or the call), and a function that stops
// the ticks. Like a time.Ticker's, the channel holds one tick: a receiver
// that falls behind misses ticks rather than queueing them. Unlike Ticker,
// it leaves the clock as cheap to move as before. d must be above zero.
func (c *Clock) Ticks(d time.Duration) (<-chan time.Time, func()) {
	if d <= 0 {
		panic("testclock: Ticks with a period of " + d.String())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.st.Load().mock; m != nil {
		t := m.Ticker(d)
		return t.C, t.Stop
	}
	tk := &ticker{c: make(chan time.Time, 1), period: d, next: c.Now().Add(d)}
	c.ticks = append(c.ticks, tk)
	return tk.c, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if i := slices.Index(c.ticks, tk); i >= 0 {
			c.ticks = slices.Delete(c.ticks, i, i+1)
		}
	}
}

// Mock returns the clock.Mock the clock follows from now on, made at the
// clock's time on the first call: a move of either moves both. Every move
// then pauses as a Mock's does (a millisecond on the wall clock).
func (c *Clock) Mock() *clock.Mock {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.st.Load()
	if st.mock == nil {
		m := clock.NewMock()
		m.Set(st.now)
		st = &state{mock: m}
		c.st.Store(st)
	}
	return st.mock
}

// After waits for the duration to elapse on the clock, then sends the
// clock's time on the returned channel. Like every timer of the
// clock.Clock interface, it makes the clock follow its Mock (see Mock).
func (c *Clock) After(d time.Duration) <-chan time.Time { return c.Mock().After(d) }

// AfterFunc calls f in a goroutine of its own once the clock has moved d
// on. It makes the clock follow its Mock (see Mock).
func (c *Clock) AfterFunc(d time.Duration, f func()) *clock.Timer { return c.Mock().AfterFunc(d, f) }

// Sleep blocks until the clock has moved d on. It makes the clock follow
// its Mock (see Mock).
func (c *Clock) Sleep(d time.Duration) { c.Mock().Sleep(d) }

// Tick is Ticker's channel. It makes the clock follow its Mock (see Mock);
// Ticks does not.
func (c *Clock) Tick(d time.Duration) <-chan time.Time { return c.Mock().Tick(d) }

// Ticker returns a ticker on the clock. It makes the clock follow its Mock
// (see Mock); Ticks does not.
func (c *Clock) Ticker(d time.Duration) *clock.Ticker { return c.Mock().Ticker(d) }

// Timer returns a timer on the clock. It makes the clock follow its Mock
// (see Mock).
func (c *Clock) Timer(d time.Duration) *clock.Timer { return c.Mock().Timer(d) }

// WithDeadline returns a copy of parent that is done when the clock
// reaches d. It makes the clock follow its Mock (see Mock).
func (c *Clock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return c.Mock().WithDeadline(parent, d)
}

// WithTimeout returns a copy of parent that is done when the clock has
// moved t on. It makes the clock follow its Mock (see Mock).
func (c *Clock) WithTimeout(parent context.Context, t time.Duration) (context.Context, context.CancelFunc) {
	return c.Mock().WithTimeout(parent, t)
}
