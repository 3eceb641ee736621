package wakeable_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lettershop/lettershop/internal/wakeable"
)

// counter is a Worker that counts its wakes and closes.
type counter struct{ wakes, closes atomic.Int32 }

func (c *counter) Wake()  { c.wakes.Add(1) }
func (c *counter) Close() { c.closes.Add(1) }

func (c *counter) want(t *testing.T, what string, wakes, closes int32) {
	t.Helper()
	if w, cl := c.wakes.Load(), c.closes.Load(); w != wakes || cl != closes {
		t.Errorf("%s: %d wakes and %d closes, want %d and %d", what, w, cl, wakes, closes)
	}
}

// A worker is woken only once the slot is activated; before, wakes are
// dropped, not kept for later.
func TestWakeOnlyOnceActive(t *testing.T) {
	var s wakeable.Slot
	s.Wake() // no worker, not active: nothing to reach
	c := &counter{}
	if !s.Give(func() wakeable.Worker { return c }) {
		t.Fatal("an empty slot refused a worker")
	}
	s.Wake()
	c.want(t, "woken before Activate", 0, 0)
	if !s.Activate() {
		t.Error("the first Activate reported the slot active already")
	}
	c.want(t, "activated, not woken", 0, 0)
	s.Wake()
	s.Wake()
	c.want(t, "woken twice when active", 2, 0)
	if s.Activate() {
		t.Error("a second Activate reported that it activated the slot")
	}
}

// An active slot with no worker wakes nothing; a worker given later is
// woken at once by the next Wake.
func TestActiveBeforeGiven(t *testing.T) {
	var s wakeable.Slot
	if !s.Activate() {
		t.Error("the first Activate reported the slot active already")
	}
	if s.Worker() != nil {
		t.Errorf("an empty slot's worker: %v", s.Worker())
	}
	s.Wake()
	c := &counter{}
	s.Give(func() wakeable.Worker { return c })
	if s.Worker() != c {
		t.Errorf("Worker() = %v, want the one given", s.Worker())
	}
	s.Wake()
	c.want(t, "given to an active slot, woken", 1, 0)
}

// A slot takes one worker: a second Give does not call its open, and the
// first worker stays.
func TestGivenOnce(t *testing.T) {
	var s wakeable.Slot
	first, second := &counter{}, &counter{}
	s.Give(func() wakeable.Worker { return first })
	called := false
	if s.Give(func() wakeable.Worker { called = true; return second }) || called {
		t.Errorf("a second worker was taken (open called: %v)", called)
	}
	if s.Worker() != first {
		t.Error("the second Give replaced the first worker")
	}
}

// Close closes the worker once however often it is called, and a closed
// slot takes no worker; a slot closed empty closes nothing.
func TestCloseOnce(t *testing.T) {
	var s wakeable.Slot
	c := &counter{}
	s.Give(func() wakeable.Worker { return c })
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); s.Close() }()
	}
	wg.Wait()
	c.want(t, "closed four times at once", 0, 1)

	var empty wakeable.Slot
	empty.Close()
	called := false
	if empty.Give(func() wakeable.Worker { called = true; return &counter{} }) || called {
		t.Errorf("a closed slot took a worker (open called: %v)", called)
	}
	if empty.Worker() != nil {
		t.Error("a closed slot holds a worker")
	}
}

// Give calls open under the slot's lock: a Close at the same time waits
// for it, and then closes the worker it made.
func TestCloseWaitsForGive(t *testing.T) {
	var s wakeable.Slot
	c := &counter{}
	opening, release := make(chan struct{}), make(chan struct{})
	go s.Give(func() wakeable.Worker { close(opening); <-release; return c })
	<-opening
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a worker was being made")
	default:
	}
	close(release)
	<-closed
	c.want(t, "closed after it was given", 0, 1)
}
