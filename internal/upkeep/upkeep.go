// Package upkeep holds the small mechanisms that pace upkeep work on a
// clock.Clock, knowing nothing of the work: a function repeated on the
// clock's ticks until stopped (Repeat, over Ticks), counts per key that
// say when work done once per so many items is due (Counters), and a
// spacing that lets work run at most once per period (Spacing). It knows
// the clock and std only.
package upkeep

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
)

// ticks returns a channel that receives c's time every d, and a function
// that stops it: a ticker of c, or the ticks of a clock that offers
// tickers of its own with a method Ticks(d) (<-chan time.Time, func()),
// such as a testclock.Clock, whose ticks cost nothing while they do not
// tick. d must be above zero.
func ticks(c clock.Clock, d time.Duration) (<-chan time.Time, func()) {
	if c, ok := c.(interface {
		Ticks(d time.Duration) (<-chan time.Time, func())
	}); ok {
		return c.Ticks(d)
	}
	t := c.Ticker(d)
	return t.C, t.Stop
}

// Repeat calls f in a goroutine of its own every period on c's ticks,
// until f returns false or the Repeater is stopped. A period of zero or
// less calls nothing, and returns a nil *Repeater, whose Stop does
// nothing. Like a ticker's, a tick that comes while f runs is taken once f
// returns, and ticks missed meanwhile are dropped.
func Repeat(c clock.Clock, period time.Duration, f func() bool) *Repeater {
	if period <= 0 {
		return nil
	}
	r := &Repeater{f: f, done: make(chan struct{})}
	r.ticks, r.stopTicks = ticks(c, period)
	r.running.Add(1)
	go r.run()
	return r
}

// A Repeater is a function Repeat calls on a clock's ticks.
type Repeater struct {
	f         func() bool
	ticks     <-chan time.Time
	stopTicks func()
	done      chan struct{} // closed by the first Stop
	stopped   atomic.Bool
	running   sync.WaitGroup
}

func (r *Repeater) run() {
	defer r.running.Done()
	defer r.stopTicks()
	for {
		select {
		case <-r.done:
			return
		case <-r.ticks:
			if !r.f() {
				return
			}
		}
	}
}

// Stop stops the calls and returns once the goroutine has ended, so f is
// not running then nor called after. It may be called more than once.
func (r *Repeater) Stop() {
	if r == nil {
		return
	}
	if r.stopped.CompareAndSwap(false, true) {
		close(r.done)
	}
	r.running.Wait()
}

// Counters counts, per key, the items and their sizes added since the
// key's work was last due, for work done once per so many items or bytes
// of each key (a trim of what the key holds, say). It keeps the counts of
// at most a bounded number of keys: a key it has no room to count is due
// at every item. It is safe for concurrent use; make one with NewCounters.
type Counters struct {
	limit int

	mu     sync.Mutex
	counts map[string]count
}

// count is what a key added since its work was last due.
type count struct {
	items int
	size  int64
}

// NewCounters returns Counters that count at most limit keys.
func NewCounters(limit int) *Counters {
	return &Counters{limit: limit, counts: map[string]count{}}
}

// Add counts one item of key, of itemSize bytes, and reports whether the
// key's work is due: once the key has added every items, or everySize
// bytes, since its work was last due (each taken as at least 1), and at
// once for a key the Counters have no room to count. A key whose work is
// due counts again from nothing.
func (c *Counters) Add(key string, itemSize int64, every int, everySize int64) (due bool) {
	every, everySize = max(every, 1), max(everySize, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	n, counted := c.counts[key]
	if !counted && len(c.counts) >= c.limit {
		return true
	}
	n.items++
	n.size += itemSize
	if due = n.items >= every || n.size >= everySize; due {
		n = count{}
	}
	c.counts[key] = n
	return due
}

// Forget drops key's count: its next item counts from nothing.
func (c *Counters) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.counts, key)
}

// Spacing lets work run at most once per period of the times it is asked
// at: the first time, then once the time asked at is period or more past
// the last time the work was due, or before it (a clock set back). Its
// zero value is ready to use; it is safe for concurrent use.
type Spacing struct {
	mu   sync.Mutex
	last time.Time
}

// Due reports whether the work is due at now, at most once per period,
// and if so notes now as the time it last was.
func (s *Spacing) Due(now time.Time, period time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	due := s.last.IsZero() || now.Sub(s.last) >= period || now.Before(s.last)
	if due {
		s.last = now
	}
	return due
}
