package render

import (
	"context"
	"testing"
	"time"
)

// CheckPDF checks no more documents at once than checking has slots: with
// every slot taken, a check waits, and runs once a slot is free.
func TestCheckPDFWaitsForASlot(t *testing.T) {
	for range cap(checking.slots) {
		if err := checking.Enter(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan DocumentInfo, 1)
	go func() { done <- CheckPDF([]byte("not a PDF")) }()
	select {
	case info := <-done:
		t.Errorf("CheckPDF ran with every slot taken: %+v", info)
		done <- info
	case <-time.After(time.Second):
	}
	for range cap(checking.slots) {
		checking.Leave()
	}
	if info := <-done; info.Problem == "" {
		t.Error("CheckPDF of bytes that are no PDF: no problem")
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
		if err := g.Enter(ctx); err != context.Canceled {
			t.Errorf("NewGate(%d): Enter past %d slots with its context ended = %v, want context.Canceled", n, want, err)
		}
		g.Leave()
		if err := g.Enter(context.Background()); err != nil {
			t.Errorf("NewGate(%d): Enter after a Leave: %v", n, err)
		}
	}
}
