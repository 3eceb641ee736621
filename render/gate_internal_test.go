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
		"CheckContent": func() string { return CheckContent("image/png", []byte("not a PNG"), nil) },
		"CheckPDF":     func() string { return CheckPDF([]byte("not a PDF")).Problem },
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
