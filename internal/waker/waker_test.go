package waker

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

var start0 = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// harness is a Waker on a clock.Mock whose runs and sleeps the test
// receives, one at a time: the Waker waits for the test at each.
type harness struct {
	clock *clock.Mock
	w     *Waker
	runs  chan time.Time     // the clock's time at each run
	waits chan time.Duration // each sleep, once its timer is set
}

func newHarness(t *testing.T, longest time.Duration, run func(w *Waker, ctx context.Context)) *harness {
	t.Helper()
	h := &harness{clock: clock.NewMock(), runs: make(chan time.Time), waits: make(chan time.Duration)}
	h.clock.Set(start0)
	h.w = New(h.clock, longest, func(ctx context.Context) {
		if run != nil {
			run(h.w, ctx)
		}
		select {
		case h.runs <- h.clock.Now():
		case <-ctx.Done():
		}
	})
	h.w.waiting = func(d time.Duration) { h.waits <- d }
	h.w.Start()
	t.Cleanup(func() {
		go func() { // let a Waker stopping while it sleeps go
			for range h.waits {
			}
		}()
		h.w.Stop()
		close(h.waits)
	})
	return h
}

func (h *harness) run(t *testing.T) time.Time {
	t.Helper()
	return <-h.runs
}

func (h *harness) wait(t *testing.T, want time.Duration) {
	t.Helper()
	if got := <-h.waits; got != want {
		t.Fatalf("sleeps %v, want %v", got, want)
	}
}

func TestRunsAtOnceThenEveryLongest(t *testing.T) {
	h := newHarness(t, time.Minute, nil)
	if got := h.run(t); !got.Equal(start0) {
		t.Fatalf("first run at %v, want at once (%v)", got, start0)
	}
	for i := 1; i <= 3; i++ {
		h.wait(t, time.Minute)
		h.clock.Add(time.Minute)
		if got, want := h.run(t), start0.Add(time.Duration(i)*time.Minute); !got.Equal(want) {
			t.Fatalf("run %d at %v, want %v", i, got, want)
		}
	}
}

func TestNoteEarlierWakesTheSleep(t *testing.T) {
	h := newHarness(t, time.Minute, func(w *Waker, ctx context.Context) { w.Reached(w.clock.Now()) })
	h.run(t)
	h.wait(t, time.Minute)
	h.w.Note(start0.Add(5 * time.Second))
	h.wait(t, 5*time.Second) // woken, it sleeps to the new due time
	h.w.Note(start0.Add(10 * time.Second))
	h.clock.Add(5 * time.Second)
	if got := h.run(t); !got.Equal(start0.Add(5 * time.Second)) {
		t.Fatalf("run at %v, want at the due time noted", got)
	}
	// The run reached the due time noted: it sleeps the longest again.
	h.wait(t, time.Minute)
}

func TestNoteLaterKeepsTheEarlier(t *testing.T) {
	w := &Waker{clock: clock.NewMock(), longest: time.Minute, wake: make(chan struct{}, 1)}
	w.clock.(*clock.Mock).Set(start0)
	w.Note(start0.Add(5 * time.Second))
	<-w.wake
	w.Note(start0.Add(10 * time.Second))
	w.Note(time.Time{})
	if got := w.sleep(); got != 5*time.Second {
		t.Fatalf("sleeps %v, want 5s", got)
	}
	select {
	case <-w.wake:
		t.Fatal("a later due time woke the Waker")
	default:
	}
	if w.Reached(start0.Add(4 * time.Second)); w.sleep() != 5*time.Second {
		t.Fatal("a due time not reached yet was forgotten")
	}
	if w.Reached(start0.Add(5 * time.Second)); w.sleep() != time.Minute {
		t.Fatalf("sleeps %v once the due time is reached, want the longest", w.sleep())
	}
	w.Note(start0.Add(2 * time.Hour))
	if got := w.sleep(); got != time.Minute {
		t.Fatalf("sleeps %v for a due time past the longest sleep, want the longest", got)
	}
	w.Note(start0.Add(-time.Second))
	if got := w.sleep(); got != 0 {
		t.Fatalf("sleeps %v for a due time passed, want 0", got)
	}
}

func TestDueTimePassedRunsAgainAtOnce(t *testing.T) {
	noted := false
	h := newHarness(t, time.Minute, func(w *Waker, ctx context.Context) {
		w.Reached(w.clock.Now())
		if !noted {
			noted = true
			w.Note(w.clock.Now()) // due again already
		}
	})
	h.run(t)
	if got := h.run(t); !got.Equal(start0) {
		t.Fatalf("second run at %v, want at once", got)
	}
	h.wait(t, time.Minute)
}

func TestStopEndsTheRunAndWaits(t *testing.T) {
	started, ended := make(chan struct{}), make(chan struct{})
	w := New(clock.NewMock(), time.Minute, func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		close(ended)
	})
	w.Start()
	<-started
	w.Stop()
	select {
	case <-ended:
	default:
		t.Fatal("Stop returned before the run did")
	}
	w.Stop() // again: nothing
}

func TestStopNotStarted(t *testing.T) {
	w := New(clock.NewMock(), time.Minute, func(context.Context) { t.Error("ran") })
	w.Note(start0)
	w.Stop()
}

func TestNilWaker(t *testing.T) {
	var w *Waker
	w.Note(start0)
	w.Reached(start0)
	w.Stop()
}
