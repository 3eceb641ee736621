package acctclock_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/internal/acctclock"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/testclock"
)

var (
	t0   = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	last = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
)

func newClocks(c clock.Clock, st storage.ClockStorage) *acctclock.Clocks {
	cs := &acctclock.Clocks{}
	cs.Init(c, st, last, slog.New(slog.DiscardHandler))
	return cs
}

func fieldErr(t *testing.T, err error, field, message string) {
	t.Helper()
	var fe *acctclock.FieldError
	if !errors.As(err, &fe) || fe.Field != field || fe.Message != message {
		t.Errorf("err = %v; want a FieldError %s: %s", err, field, message)
	}
}

// On the real time nothing moves, and reading the clocks reads nothing.
func TestRealClock(t *testing.T) {
	cs := newClocks(clock.New(), memstore.New())
	ctx := context.Background()
	for name, err := range map[string]error{
		"Advance":       cs.Advance(ctx, "acct", time.Hour),
		"Set":           cs.Set(ctx, "acct", time.Now().Add(time.Hour)),
		"Freeze":        cs.Freeze(ctx, "acct", true),
		"AdvanceServer": cs.AdvanceServer(time.Hour),
		"SetServer":     cs.SetServer(time.Now().Add(time.Hour)),
	} {
		if !errors.Is(err, acctclock.ErrRealClock) {
			t.Errorf("%s = %v; want ErrRealClock", name, err)
		}
	}
	if got := cs.Read(ctx); got != ctx || cs.WasRead(got) {
		t.Error("Read marked a context on the real clock")
	}
	if now := cs.Now("acct"); now.Location() != time.UTC || now.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("Now = %v; want UTC, to the millisecond", now)
	}
}

func TestMovesRefused(t *testing.T) {
	tc := testclock.New(t0)
	cs := newClocks(tc, memstore.New())
	ctx := context.Background()
	fieldErr(t, cs.Advance(ctx, "", time.Hour), "account", "an account is required")
	fieldErr(t, cs.Advance(ctx, "acct", -time.Second), "duration", "the clock only moves forward, got -1s")
	if err := cs.Set(ctx, "late", last.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	fieldErr(t, cs.Advance(ctx, "late", 2*time.Hour), "duration",
		"the clock goes no further than 9999-01-01T00:00:00Z; it is at 9998-12-31T23:00:00Z, and 2h0m0s would pass that")
	fieldErr(t, cs.Set(ctx, "acct", t0.Add(-time.Millisecond)), "now",
		"the clock only moves forward: it is at 2026-03-02T15:00:00Z, got 2026-03-02T14:59:59.999Z")
	fieldErr(t, cs.Set(ctx, "acct", last.Add(time.Second)), "now", "the clock goes no further than 9999-01-01T00:00:00Z, got 9999-01-01T00:00:01Z")
	fieldErr(t, cs.AdvanceServer(-time.Second), "duration", "the clock only moves forward, got -1s")
	fieldErr(t, cs.SetServer(t0.Add(-time.Second)), "now",
		"the clock only moves forward: it is at 2026-03-02T15:00:00Z, got 2026-03-02T14:59:59Z")
	// The last time itself is reached, by an advance and by a set, and a
	// clock may be checked for a restore at its own time or the last.
	if err := cs.Advance(ctx, "late", time.Hour); err != nil {
		t.Errorf("an advance to exactly the last time: %v", err)
	}
	if err := cs.Set(ctx, "acct", last); err != nil {
		t.Errorf("a set to exactly the last time: %v", err)
	}
	for _, at := range []time.Time{t0, last} {
		if err := cs.CheckSet("fresh", at, false, "clock.now"); err != nil {
			t.Errorf("CheckSet at %v: %v", at, err)
		}
	}
	if err := cs.Set(ctx, "acct", last); err != nil {
		t.Errorf("Set to the last time: %v", err)
	}
	if !tc.Now().Equal(t0) {
		t.Errorf("the server's clock moved to %v on refused moves", tc.Now())
	}
}

// An account's clock moves apart, freezes, and comes back to the server's
// time; a move that leaves it on the server's time stores nothing.
func TestAccountClock(t *testing.T) {
	tc := testclock.New(t0)
	st := memstore.New()
	cs := newClocks(tc, st)
	ctx := context.Background()
	if err := cs.Advance(ctx, "acct", 0); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.ClockStamp(ctx); n != 0 || cs.Apart() {
		t.Fatalf("stamp %d, apart %v after a move of nothing; want nothing stored", n, cs.Apart())
	}
	if err := cs.Advance(ctx, "acct", time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := cs.Now("acct"); !got.Equal(t0.Add(time.Hour)) || !cs.Now("other").Equal(t0) {
		t.Errorf("acct at %v, other at %v; want an hour apart", got, cs.Now("other"))
	}
	if err := cs.Freeze(ctx, "acct", true); err != nil {
		t.Fatal(err)
	}
	tc.Add(2 * time.Hour)
	if got := cs.Now("acct"); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("frozen clock at %v; want it where it was", got)
	}
	if got := cs.EarliestBehind(cs.ServerNow()); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("EarliestBehind = %v; want the frozen clock's time", got)
	}
	if err := cs.Set(ctx, "acct", t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := cs.Freeze(ctx, "acct", false); err != nil {
		t.Fatal(err)
	}
	if cs.Apart() {
		t.Errorf("clock apart at %v, back on the server's time", cs.Now("acct"))
	}
	if _, ok := cs.Lookup("acct"); ok {
		t.Error("Lookup found a clock on the server's time")
	}
}

// A move made through a server that has not read another's move of the
// same clock reads it again: both count.
func TestMoveAfterAnotherServers(t *testing.T) {
	tc := testclock.New(t0)
	st := memstore.New()
	a, b := newClocks(tc, st), newClocks(tc, st)
	ctx := context.Background()
	if err := a.Advance(ctx, "acct", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := b.Advance(ctx, "acct", time.Hour); err != nil {
		t.Fatal(err)
	}
	a.Refresh(ctx)
	for name, cs := range map[string]*acctclock.Clocks{"a": a, "b": b} {
		if got := cs.Now("acct"); !got.Equal(t0.Add(2 * time.Hour)) {
			t.Errorf("%s reads %v; want both moves", name, got)
		}
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := newClocks(tc, st).Advance(ctx, "acct", time.Minute); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	a.Refresh(ctx)
	if got := a.Now("acct"); !got.Equal(t0.Add(2*time.Hour + 8*time.Minute)) {
		t.Errorf("after 8 moves side by side: %v", got)
	}
}

// Moves of the server's clock take turns: none undoes another.
func TestServerMovesTakeTurns(t *testing.T) {
	tc := testclock.New(t0)
	cs := newClocks(tc, memstore.New())
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cs.AdvanceServer(time.Second); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := cs.ServerNow(); !got.Equal(t0.Add(50 * time.Second)) {
		t.Errorf("server at %v; want 50 moves of a second", got)
	}
	if err := cs.SetServer(t0.Add(time.Hour)); err != nil || !tc.Now().Equal(t0.Add(time.Hour)) {
		t.Errorf("SetServer: %v, clock at %v", err, tc.Now())
	}
}

// Read reads the clocks once per operation.
func TestRead(t *testing.T) {
	tc := testclock.New(t0)
	st := memstore.New()
	a, b := newClocks(tc, st), newClocks(tc, st)
	ctx := context.Background()
	if err := b.Advance(ctx, "acct", time.Hour); err != nil {
		t.Fatal(err)
	}
	op := a.Read(ctx)
	if !a.WasRead(op) || a.WasRead(ctx) {
		t.Fatal("Read did not mark the operation's context")
	}
	if !a.Now("acct").Equal(t0.Add(time.Hour)) {
		t.Errorf("a reads %v after Read; want b's move", a.Now("acct"))
	}
	if err := b.Advance(ctx, "acct", time.Hour); err != nil {
		t.Fatal(err)
	}
	if again := a.Read(op); again != op || !a.Now("acct").Equal(t0.Add(time.Hour)) {
		t.Errorf("a read again within one operation: %v", a.Now("acct"))
	}
}

// failing is a store whose clock stamp cannot be read.
type failing struct{ storage.ClockStorage }

var errDown = errors.New("down")

func (failing) ClockStamp(context.Context) (int64, error) { return 0, errDown }

func TestStoreError(t *testing.T) {
	cs := newClocks(testclock.New(t0), failing{memstore.New()})
	err := cs.Advance(context.Background(), "acct", time.Hour)
	var se *acctclock.StoreError
	if !errors.As(err, &se) || se.Op != "read the accounts' clocks" || !errors.Is(err, errDown) {
		t.Errorf("err = %v; want a StoreError reading the clocks, wrapping the store's", err)
	}
	cs.Refresh(context.Background()) // logged, not fatal
}

// CheckSet says, before any move, whether a clock can be set forward to a
// time; SetFrozen sets and freezes it in one move.
func TestCheckSetAndSetFrozen(t *testing.T) {
	tc := testclock.New(t0)
	st := memstore.New()
	cs := newClocks(tc, st)
	ctx := context.Background()
	if err := cs.Advance(ctx, "ahead", time.Hour); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(30 * time.Minute)
	var b *acctclock.BehindError
	if err := cs.CheckSet("ahead", at, false, "clock.now"); !errors.As(err, &b) || !b.Now.Equal(t0.Add(time.Hour)) || !b.At.Equal(at) {
		t.Errorf("CheckSet of a clock past the time = %v; want a BehindError", err)
	}
	for name, server := range map[string]bool{"account": false, "server": true} {
		if err := cs.CheckSet("other", at, server, "clock.now"); err != nil {
			t.Errorf("%s: CheckSet = %v", name, err)
		}
	}
	if err := cs.CheckSet("ahead", at, true, "clock.now"); err != nil {
		t.Errorf("CheckSet of the server's clock, behind the time: %v", err)
	}
	fieldErr(t, cs.CheckSet("other", last.Add(time.Second), false, "clock.now"), "clock.now",
		"the clock goes no further than 9999-01-01T00:00:00Z, got 9999-01-01T00:00:01Z")
	if err := newClocks(clock.New(), st).CheckSet("other", at, false, "clock.now"); !errors.Is(err, acctclock.ErrRealClock) {
		t.Errorf("CheckSet on the real clock = %v; want ErrRealClock", err)
	}
	before, _ := st.ClockStamp(ctx)
	if err := cs.SetFrozen(ctx, "other", at, true); err != nil {
		t.Fatal(err)
	}
	after, _ := st.ClockStamp(ctx)
	c, ok := cs.Lookup("other")
	if !ok || !c.Frozen || !c.At.Equal(at) || after != before+1 {
		t.Errorf("SetFrozen: clock %+v, %d puts; want frozen at %v in one put", c, after-before, at)
	}
	tc.Add(time.Hour)
	if err := cs.SetFrozen(ctx, "other", at.Add(time.Minute), false); err != nil {
		t.Fatal(err)
	}
	if c, _ := cs.Lookup("other"); !c.Frozen {
		t.Error("SetFrozen without frozen unfroze the clock")
	}
}
