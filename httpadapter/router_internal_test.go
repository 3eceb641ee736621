package httpadapter

import (
	"testing"
	"time"
	"unsafe"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/testclock"
)

// newTestHandler makes a handler with the test routes, as
// lettershoptest.New does for every test.
func newTestHandler() *handler {
	c := testclock.New(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(c))
	return New(svc, WithTestClock(c), WithTestControls(NewTestControls(1))).(*controlled).h
}

// A handler made after another of the same options makes room for its
// routes and no more: a suite makes one per test, and made room for 128
// entries of 152 bytes for the 79 it has.
func TestRouterRoomFitsTheRoutes(t *testing.T) {
	newTestHandler()
	h := newTestHandler()
	if n, c := len(h.mux.entries), cap(h.mux.entries); c != n {
		t.Errorf("%d routes in room for %d", n, c)
	}
}

// An entry holds its pattern's parts once, in its route: it held them
// twice, in a key beside the route, 152 bytes an entry where 120 do.
func TestRouterEntryHoldsThePatternOnce(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n > 120 {
		t.Errorf("an entry is %d bytes, want 120", n)
	}
	h := newTestHandler()
	for i := range h.mux.entries {
		if k := h.mux.entries[i].key(); k != h.mux.shared.keys[i] {
			t.Errorf("entry %d is %v, its slot %v", i, k, h.mux.shared.keys[i])
		}
	}
}

// BenchmarkNewHandler is what httpadapter.New costs a test server, with
// the test routes and controls, as lettershoptest.New makes it.
//
//	go test ./httpadapter -run '^$' -bench NewHandler -benchmem
func BenchmarkNewHandler(b *testing.B) {
	c := testclock.New(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(c))
	b.ReportAllocs()
	for b.Loop() {
		_ = New(svc, WithTestClock(c), WithTestControls(NewTestControls(1)))
	}
}
