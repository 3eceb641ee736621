// Package waker runs a function in the background whenever the earliest
// time it was told of comes, or when poked, on a clock.Clock: a scheduler
// that knows nothing of what it runs. It knows the clock and std only.
//
// A Waker runs its function once when it starts, then sleeps until the
// earliest time noted (Note) and runs it again, and sleeps no longer than
// its longest sleep however little is noted, until Stop. A time noted while
// it sleeps that is earlier than what it sleeps to wakes it, to sleep to the
// new one.
package waker

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// A Waker runs a function on a clock when the earliest due time it knows
// of comes. A nil *Waker ignores Note, Reached and Stop, so code that runs
// nothing in the background (on a test clock, say) need not ask.
type Waker struct {
	clock   clock.Clock
	longest time.Duration
	run     func(ctx context.Context)
	// waiting, when set (in tests), is told how long each sleep is, once its
	// timer is set.
	waiting func(d time.Duration)

	mu   sync.Mutex
	next time.Time // earliest due time noted and not yet reached
	wake chan struct{}

	cancel   context.CancelFunc // ends the goroutine's context; nil until Start
	done     chan struct{}
	stopOnce sync.Once
}

// New returns a Waker that, once started, runs run: at once, then
// whenever the earliest time noted comes, and at least every longest,
// until Stop. run gets a context that ends when Stop is called. longest
// must be above zero. Due times may be noted before Start.
func New(c clock.Clock, longest time.Duration, run func(ctx context.Context)) *Waker {
	if longest <= 0 {
		panic("waker: a longest sleep of " + longest.String())
	}
	return &Waker{clock: c, longest: longest, run: run, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Start starts the Waker's goroutine. It is called once, before Stop.
func (w *Waker) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	go w.loop(ctx)
}

// Stop ends the background work and waits for it: for the run under way,
// if any, to return. It may be called more than once.
func (w *Waker) Stop() {
	if w == nil {
		return
	}
	w.stopOnce.Do(func() {
		if w.cancel != nil {
			w.cancel()
			<-w.done
		}
	})
}

// Note tells the Waker that its function is due at t, waking it when that
// is earlier than any due time it knows of. A zero t is nothing due.
func (w *Waker) Note(t time.Time) {
	if w == nil || t.IsZero() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next.IsZero() || t.Before(w.next) {
		w.next = t
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// Reached forgets the due time noted when now reaches it: a run starting
// at now takes what is due then, and calls it first, so that the Waker
// sleeps the longest time again unless something later is noted. A due
// time noted during the run is kept.
func (w *Waker) Reached(now time.Time) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.next.After(now) {
		w.next = time.Time{}
	}
}

// loop runs the function until ctx ends: at once, then whenever the
// earliest known due time comes, and at least every longest.
func (w *Waker) loop(ctx context.Context) {
	defer close(w.done)
	for ctx.Err() == nil {
		w.run(ctx)
		if !w.wait(ctx) {
			return
		}
	}
}

// wait sleeps until the earliest known due time, or longest, following earlier
// due times as they are noted; it reports false when ctx ended.
func (w *Waker) wait(ctx context.Context) bool {
	for {
		d := w.sleep()
		if d <= 0 {
			return true
		}
		t := w.clock.Timer(d)
		if w.waiting != nil {
			w.waiting(d)
		}
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
			return true
		case <-w.wake:
			t.Stop()
		}
	}
}

// sleep is how long the loop may sleep.
func (w *Waker) sleep() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.longest
	if !w.next.IsZero() {
		d = min(d, w.next.Sub(w.clock.Now()))
	}
	return max(d, 0)
}
