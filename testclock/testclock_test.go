package testclock_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/testclock"
)

var start = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

func TestNowSetAdd(t *testing.T) {
	c := testclock.New(start)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("Now = %s, want %s", got, start)
	}
	c.Add(90 * time.Minute)
	if got, want := c.Now(), start.Add(90*time.Minute); !got.Equal(want) {
		t.Errorf("after Add: %s, want %s", got, want)
	}
	if got := c.Since(start); got != 90*time.Minute {
		t.Errorf("Since = %s", got)
	}
	if got := c.Until(start.Add(2 * time.Hour)); got != 30*time.Minute {
		t.Errorf("Until = %s", got)
	}
	// Set goes back too, as a clock.Mock's does.
	c.Set(start.Add(-time.Hour))
	if got, want := c.Now(), start.Add(-time.Hour); !got.Equal(want) {
		t.Errorf("after Set: %s, want %s", got, want)
	}
	far := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Set(far)
	if got := c.Now(); !got.Equal(far) {
		t.Errorf("a clock set to %s reads %s", far, got)
	}
}

// Moves from many goroutines at once all count: none is undone by
// another's.
func TestConcurrentAddsAllCount(t *testing.T) {
	for _, tc := range []struct {
		name string
		mock bool
	}{{"own", false}, {"following its Mock", true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := testclock.New(start)
			if tc.mock {
				c.Mock()
			}
			n := 50
			if tc.mock {
				n = 10 // each move of a Mock sleeps
			}
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() { c.Add(time.Minute) })
			}
			wg.Wait()
			if got, want := c.Now(), start.Add(time.Duration(n)*time.Minute); !got.Equal(want) {
				t.Errorf("after %d concurrent moves of a minute: %s, want %s", n, got, want)
			}
		})
	}
}

func TestTicks(t *testing.T) {
	c := testclock.New(start)
	ch, stop := c.Ticks(10 * time.Second)
	defer stop()
	c.Add(10*time.Second - time.Millisecond)
	select {
	case tk := <-ch:
		t.Fatalf("ticked at %s, before its period", tk)
	default:
	}
	c.Add(time.Millisecond)
	select {
	case tk := <-ch:
		if want := start.Add(10 * time.Second); !tk.Equal(want) {
			t.Errorf("tick at %s, want %s", tk, want)
		}
	default:
		t.Fatal("no tick once the period passed")
	}
	// A move of many periods gives one tick, and the next period counts
	// from the move.
	c.Add(time.Hour)
	<-ch
	c.Add(9 * time.Second)
	select {
	case tk := <-ch:
		t.Fatalf("second tick %s after one long move, want one", tk)
	default:
	}
	c.Add(time.Second)
	select {
	case <-ch:
	default:
		t.Fatal("no tick a period after the long move")
	}
	// A receiver that falls behind finds one tick waiting.
	c.Add(10 * time.Second)
	c.Add(10 * time.Second)
	<-ch
	select {
	case <-ch:
		t.Fatal("ticks queued up for a slow receiver")
	default:
	}
	stop()
	c.Add(time.Hour)
	select {
	case <-ch:
		t.Fatal("ticked after stop")
	default:
	}
	stop() // a second stop does nothing
}

func TestTicksRefusesNoPeriod(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Ticks(0) did not panic")
		}
	}()
	testclock.New(start).Ticks(0)
}

// A receiver woken by a tick runs before the mover goes on: a move and the
// work it sets off read in order, as on a clock.Mock.
func TestTicksWakeTheReceiver(t *testing.T) {
	c := testclock.New(start)
	ch, stop := c.Ticks(time.Second)
	defer stop()
	got := make(chan time.Time)
	go func() {
		for tk := range ch {
			got <- tk
		}
	}()
	for i := range 5 {
		c.Add(time.Second)
		if tk := <-got; !tk.Equal(start.Add(time.Duration(i+1) * time.Second)) {
			t.Fatalf("tick %d at %s", i, tk)
		}
	}
}

// Mock hands out a clock.Mock at the clock's time, and from then on the two
// are one clock: a move of either is seen by both.
func TestMockFollows(t *testing.T) {
	c := testclock.New(start)
	c.Add(time.Hour)
	m := c.Mock()
	if m != c.Mock() {
		t.Fatal("a second Mock call made another Mock")
	}
	if got, want := m.Now(), start.Add(time.Hour); !got.Equal(want) {
		t.Fatalf("Mock at %s, want the clock's %s", got, want)
	}
	m.Add(time.Hour)
	if got, want := c.Now(), start.Add(2*time.Hour); !got.Equal(want) {
		t.Errorf("after the Mock moved: clock at %s, want %s", got, want)
	}
	c.Add(time.Hour)
	if got, want := m.Now(), start.Add(3*time.Hour); !got.Equal(want) {
		t.Errorf("after the clock moved: Mock at %s, want %s", got, want)
	}
	c.Set(start)
	if got := m.Now(); !got.Equal(start) {
		t.Errorf("after Set: Mock at %s, want %s", got, start)
	}
}

// The timers of the clock.Clock interface fire as the clock moves.
func TestTimers(t *testing.T) {
	c := testclock.New(start)
	var cl clock.Clock = c
	timer := cl.Timer(time.Minute)
	fired := make(chan struct{})
	cl.AfterFunc(2*time.Minute, func() { close(fired) })
	ctx, cancel := cl.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ticker := cl.Ticker(time.Minute)
	defer ticker.Stop()

	c.Add(time.Minute)
	select {
	case tm := <-timer.C:
		if want := start.Add(time.Minute); !tm.Equal(want) {
			t.Errorf("timer fired at %s, want %s", tm, want)
		}
	default:
		t.Error("the timer did not fire at its time")
	}
	<-ticker.C
	select {
	case <-fired:
		t.Error("AfterFunc ran early")
	default:
	}
	c.Add(time.Minute)
	<-fired
	if ctx.Err() != nil {
		t.Error("the context ended early")
	}
	c.Add(time.Minute)
	<-ctx.Done()
	if got, want := c.Now(), start.Add(3*time.Minute); !got.Equal(want) {
		t.Errorf("clock at %s, want %s", got, want)
	}
}

// Ticks made before the clock follows a Mock keep ticking on the clock's
// moves; those made after are the Mock's tickers.
func TestTicksAcrossMock(t *testing.T) {
	c := testclock.New(start)
	before, stop1 := c.Ticks(time.Minute)
	defer stop1()
	c.Mock()
	after, stop2 := c.Ticks(time.Minute)
	defer stop2()
	c.Add(time.Minute)
	<-before
	<-after
}

// BenchmarkMove is a move of the clock: this package's beside clock.Mock's
// (which pauses a millisecond on every move), in the same run.
func BenchmarkMove(b *testing.B) {
	b.Run("testclock", func(b *testing.B) {
		c := testclock.New(start)
		for b.Loop() {
			c.Add(time.Second)
		}
	})
	b.Run("testclock-with-ticks", func(b *testing.B) {
		c := testclock.New(start)
		_, stop := c.Ticks(time.Hour)
		defer stop()
		for b.Loop() {
			c.Add(time.Second)
		}
	})
	b.Run("clock.Mock", func(b *testing.B) {
		m := clock.NewMock()
		m.Set(start)
		for b.Loop() {
			m.Add(time.Second)
		}
	})
}
