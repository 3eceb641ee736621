package upkeep_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/internal/upkeep"
	"github.com/lettershop/lettershop/testclock"
)

var start = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// mover is a test clock a test moves: a testclock.Clock, whose Ticks
// Repeat uses, or a clock.Mock, whose Ticker it uses.
type mover interface {
	clock.Clock
	Add(d time.Duration)
}

func clocks() map[string]func() mover {
	return map[string]func() mover{
		"testclock": func() mover { return testclock.New(start) },
		"mock": func() mover {
			m := clock.NewMock()
			m.Set(start)
			return m
		},
	}
}

func TestRepeatCallsEveryPeriodUntilStopped(t *testing.T) {
	for name, newClock := range clocks() {
		t.Run(name, func(t *testing.T) {
			c := newClock()
			calls := make(chan time.Time)
			var n atomic.Int32
			r := upkeep.Repeat(c, 10*time.Second, func() bool {
				n.Add(1)
				calls <- c.Now()
				return true
			})
			for i := 1; i <= 3; i++ {
				c.Add(10 * time.Second)
				if got, want := <-calls, start.Add(time.Duration(i)*10*time.Second); !got.Equal(want) {
					t.Fatalf("call %d at %v, want %v", i, got, want)
				}
			}
			r.Stop()
			r.Stop() // again: nothing
			c.Add(time.Minute)
			if got := n.Load(); got != 3 {
				t.Fatalf("%d calls, want 3: called after stop", got)
			}
		})
	}
}

func TestRepeatEndsWhenToldTo(t *testing.T) {
	for name, newClock := range clocks() {
		t.Run(name, func(t *testing.T) {
			c := newClock()
			var n atomic.Int32
			called := make(chan struct{})
			r := upkeep.Repeat(c, time.Second, func() bool {
				n.Add(1)
				close(called)
				return false
			})
			c.Add(time.Second)
			<-called
			c.Add(time.Second)
			c.Add(time.Second)
			r.Stop()
			if got := n.Load(); got != 1 {
				t.Fatalf("%d calls, want 1: called after it said to end", got)
			}
		})
	}
}

func TestRepeatWithoutPeriodCallsNothing(t *testing.T) {
	c := testclock.New(start)
	r := upkeep.Repeat(c, 0, func() bool {
		t.Error("called")
		return true
	})
	c.Add(time.Hour)
	r.Stop()
}

func TestTicksOfATestClockMakeNoMock(t *testing.T) {
	c := testclock.New(start)
	ticks, stop := upkeep.Ticks(c, time.Second)
	c.Add(time.Second)
	if got := <-ticks; !got.Equal(start.Add(time.Second)) {
		t.Fatalf("tick at %v", got)
	}
	stop()
	// A Mock made now starts where the clock stands: Ticks made none before.
	if got := c.Mock().Now(); !got.Equal(start.Add(time.Second)) {
		t.Fatalf("Mock at %v", got)
	}
}

func TestCountersDueEveryNItemsOrBytes(t *testing.T) {
	c := upkeep.NewCounters(10)
	var due []int
	for i := 1; i <= 10; i++ {
		if c.Add("a", 1, 4, 1000) {
			due = append(due, i)
		}
	}
	if want := []int{4, 8}; !slices.Equal(due, want) {
		t.Fatalf("due at items %v, want %v", due, want)
	}
	// Bytes: 300 each, due at 1000 or more; the count starts again after.
	c = upkeep.NewCounters(10)
	due = due[:0]
	for i := 1; i <= 8; i++ {
		if c.Add("a", 300, 100, 1000) {
			due = append(due, i)
		}
	}
	if want := []int{4, 8}; !slices.Equal(due, want) {
		t.Fatalf("due at items %v, want %v", due, want)
	}
	// Keys count apart; an every of zero is one.
	c = upkeep.NewCounters(10)
	if c.Add("a", 1, 2, 100) || c.Add("b", 1, 2, 100) || !c.Add("a", 1, 2, 100) {
		t.Fatal("keys counted together")
	}
	if !c.Add("c", 0, 0, 0) {
		t.Fatal("every of zero: not due at the first item")
	}
}

func TestCountersBoundTheKeys(t *testing.T) {
	c := upkeep.NewCounters(2)
	c.Add("a", 1, 100, 100)
	c.Add("b", 1, 100, 100)
	for range 3 {
		if !c.Add("c", 1, 100, 100) {
			t.Fatal("a key past the bound was not due at its item")
		}
	}
	if c.Add("a", 1, 100, 100) {
		t.Fatal("a key counted was due early")
	}
}

func TestCountersConcurrent(t *testing.T) {
	c := upkeep.NewCounters(100)
	var wg sync.WaitGroup
	var due atomic.Int32
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if c.Add("a", 1, 10, 1<<20) {
					due.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if got := due.Load(); got != 80 {
		t.Fatalf("due %d times for 800 items every 10, want 80", got)
	}
}

func TestSpacing(t *testing.T) {
	var s upkeep.Spacing
	const every = 10 * time.Minute
	for _, c := range []struct {
		at   time.Duration
		want bool
	}{
		{0, true},                 // the first time
		{time.Minute, false},      // too soon
		{9 * time.Minute, false},  // still
		{10 * time.Minute, true},  // a period on
		{15 * time.Minute, false}, // counted from the last time it was due
		{20 * time.Minute, true},
		{5 * time.Minute, true}, // a clock set back
		{6 * time.Minute, false},
	} {
		if got := s.Due(start.Add(c.at), every); got != c.want {
			t.Fatalf("Due at +%v = %v, want %v", c.at, got, c.want)
		}
	}
}

// TestCountersForget: a key forgotten counts from nothing, and makes room
// for another key.
func TestCountersForget(t *testing.T) {
	c := upkeep.NewCounters(1)
	for range 2 {
		if c.Add("a", 1, 3, 100) {
			t.Fatal("due before 3 items")
		}
	}
	c.Forget("a")
	for i := range 3 {
		if due := c.Add("b", 1, 3, 100); due != (i == 2) {
			t.Errorf("item %d of a key counted in the room forgotten: due %v", i+1, due)
		}
	}
	c.Forget("b")
	for i := range 3 {
		if due := c.Add("a", 1, 3, 100); due != (i == 2) {
			t.Errorf("item %d of a key forgotten: due %v, want at the third", i+1, due)
		}
	}
}
