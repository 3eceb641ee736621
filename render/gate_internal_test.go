package render

import (
	"context"
	"errors"
	"testing"
	"time"
)

// CheckContent and CheckPDF check no more content at once than checking
// has slots: with every slot taken, a check waits, and runs once a slot is
// free.
func TestChecksWaitForASlot(t *testing.T) {
	for name, check := range map[string]func() string{
		"CheckContent": func() string {
			msg, _ := CheckContent(context.Background(), "image/png", []byte("not a PNG"), nil)
			return msg
		},
		"CheckPDF": func() string {
			info, _ := CheckPDF(context.Background(), []byte("not a PDF"))
			return info.Problem
		},
	} {
		for range cap(checking.slots) {
			if err := checking.Enter(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan string, 1)
		go func() { done <- check() }()
		select {
		case problem := <-done:
			t.Errorf("%s ran with every slot taken: %q", name, problem)
			done <- problem
		case <-time.After(time.Second):
		}
		for range cap(checking.slots) {
			checking.Leave()
		}
		if problem := <-done; problem == "" {
			t.Errorf("%s of bytes that are not what they claim: no problem", name)
		}
	}
}

// A check waiting for a slot of checking gives up when its context ends:
// it returns the context's error at once, having checked nothing and taken
// no slot, so the slots held are those of the checks that run.
func TestChecksWaitAsLongAsTheirContext(t *testing.T) {
	for name, check := range map[string]func(context.Context) error{
		"CheckContent": func(ctx context.Context) error {
			_, err := CheckContent(ctx, "image/png", []byte("not a PNG"), nil)
			return err
		},
		"CheckPDF": func(ctx context.Context) error {
			_, err := CheckPDF(ctx, []byte("not a PDF"))
			return err
		},
		"FetchedProblem": func(ctx context.Context) error {
			_, err := FetchedProblem(ctx, "image/png", "image/png", []byte("not a PNG"), nil)
			return err
		},
	} {
		n := cap(checking.slots)
		for range n {
			if err := checking.Enter(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		waiting, done := make(chan struct{}), make(chan error, 1)
		go func() {
			close(waiting)
			done <- check(ctx)
		}()
		<-waiting
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("%s with every slot taken and its context canceled = %v, want context.Canceled", name, err)
		}
		if got := len(checking.slots); got != n {
			t.Errorf("%s gave up: %d slots taken, want the %d held", name, got, n)
		}
		for range n {
			checking.Leave()
		}
		if got := len(checking.slots); got != 0 {
			t.Errorf("%s gave up, and every holder left: %d slots taken, want 0", name, got)
		}
		if _, err := CheckContent(context.Background(), "image/png", []byte("not a PNG"), nil); err != nil {
			t.Errorf("CheckContent after %s gave up: %v", name, err)
		}
	}
}

// A Gate of n lets n in at once, at least one; Enter gives up, taking no
// slot, when its context ends first.
func TestGate(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 2} {
		g := NewGate(n)
		want := max(n, 1)
		for range want {
			if err := g.Enter(context.Background()); err != nil {
				t.Fatalf("NewGate(%d): Enter with a slot free: %v", n, err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := g.Enter(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("NewGate(%d): Enter past %d slots with its context ended = %v, want context.Canceled", n, want, err)
		}
		g.Leave()
		if err := g.Enter(context.Background()); err != nil {
			t.Errorf("NewGate(%d): Enter after a Leave: %v", n, err)
		}
	}
}
