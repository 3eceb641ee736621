// Package wakeable holds a worker that is given once, woken only after it
// is activated, and closed once: a Slot. Its user decides when to activate
// and when to wake; the slot keeps the order of giving and closing, so a
// worker is never given to a closed slot, and wakes cost two atomic loads.
package wakeable

import (
	"sync"
	"sync/atomic"
)

// A Worker is what a Slot holds: it is woken when there may be work, and
// closed when the slot is.
type Worker interface {
	// Wake tells the worker there may be work. It must not block.
	Wake()
	// Close stops the worker.
	Close()
}

// A Slot holds at most one Worker for its whole life. The zero Slot is
// empty, inactive and open. Its methods are safe for concurrent use.
type Slot struct {
	worker atomic.Pointer[Worker]
	active atomic.Bool
	mu     sync.Mutex // orders Give and Close
	closed bool
}

// Give makes the slot's worker with open, under the slot's lock, unless the
// slot has one already or is closed; it reports whether open was called.
// open may call Activate and wake the worker it makes itself: Wake does
// not reach it before Give returns.
func (s *Slot) Give(open func() Worker) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.worker.Load() != nil {
		return false
	}
	w := open()
	s.worker.Store(&w)
	return true
}

// Activate lets Wake reach the worker from now on. It reports whether this
// call activated the slot (false when it was active already).
func (s *Slot) Activate() bool { return !s.active.Swap(true) }

// Active reports whether the slot was activated.
func (s *Slot) Active() bool { return s.active.Load() }

// Worker returns the slot's worker, or nil when none was given.
func (s *Slot) Worker() Worker {
	if w := s.worker.Load(); w != nil {
		return *w
	}
	return nil
}

// Wake wakes the worker, if one was given and the slot is active.
func (s *Slot) Wake() {
	if w := s.worker.Load(); w != nil && s.active.Load() {
		(*w).Wake()
	}
}

// Close closes the slot: no worker is given to it any more, and the one it
// holds, if any, is closed. Close closes a worker once however often it is
// called.
func (s *Slot) Close() {
	s.mu.Lock()
	first := !s.closed
	s.closed = true
	s.mu.Unlock()
	if w := s.worker.Load(); w != nil && first {
		(*w).Close()
	}
}
