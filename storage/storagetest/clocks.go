package storagetest

import (
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

var clockTests = []test{
	{"an empty store has stamp 0 and no clocks", testClocksEmpty},
	{"a put stores the clock under a stamp above every earlier one", testClocksPut},
	{"a put whose Stamp is not the stored clock's is ErrConflict and changes nothing", testClocksConflict},
	{"a clock keeps its times, frozen or not, ahead or behind, centuries apart", testClocksTimes},
}

// clockDueTests are clauses of ProcessDueLetters about accounts' clocks.
var clockDueTests = []test{
	{"without Account, takes each account's letters due on its own clock, in the server's order", testDueOwnClocks},
	{"a clock moved or frozen moves its account's letters", testDueClockMoves},
	{"with Account, Now is the account's time, whatever its clock", testDueAccountIgnoresClock},
}

// putClock puts c and fails the test on an error.
func (f *fixture) putClock(t testing.TB, c storage.AccountClock) storage.AccountClock {
	t.Helper()
	got, err := f.s.PutAccountClock(f.ctx, c)
	must(t, "PutAccountClock "+c.Account, err)
	return got
}

func (f *fixture) clocksSince(t testing.TB, since int64, limit int) []storage.AccountClock {
	t.Helper()
	got, err := f.s.AccountClocks(f.ctx, since, limit)
	must(t, "AccountClocks", err)
	return got
}

func (f *fixture) stamp(t testing.TB) int64 {
	t.Helper()
	n, err := f.s.ClockStamp(f.ctx)
	must(t, "ClockStamp", err)
	return n
}

// ahead is a clock of account a lead ahead of the server's clock at t0
// (behind, for a lead below zero).
func ahead(account string, lead time.Duration) storage.AccountClock {
	return storage.AccountClock{Account: account, At: t0.Add(lead), Anchor: t0}
}

func testClocksEmpty(t *testing.T, f *fixture) {
	if n := f.stamp(t); n != 0 {
		t.Errorf("ClockStamp of an empty store = %d, want 0", n)
	}
	diff(t, "clocks of an empty store", []storage.AccountClock(nil), f.clocksSince(t, 0, 10))
}

func testClocksPut(t *testing.T, f *fixture) {
	a := f.putClock(t, ahead(acctA, time.Hour))
	if a.Stamp <= 0 {
		t.Fatalf("first put: stamp %d, want above 0", a.Stamp)
	}
	if n := f.stamp(t); n != a.Stamp {
		t.Errorf("ClockStamp = %d, want the put's %d", n, a.Stamp)
	}
	want := ahead(acctA, time.Hour)
	want.Stamp = a.Stamp
	diff(t, "the clock put", want, a)
	diff(t, "clocks since 0", []storage.AccountClock{a}, f.clocksSince(t, 0, 10))

	b := f.putClock(t, ahead(acctB, -time.Minute))
	if b.Stamp <= a.Stamp {
		t.Errorf("second put: stamp %d, not above the first's %d", b.Stamp, a.Stamp)
	}
	diff(t, "clocks since the first", []storage.AccountClock{b}, f.clocksSince(t, a.Stamp, 10))
	diff(t, "clocks since the second", []storage.AccountClock(nil), f.clocksSince(t, b.Stamp, 10))

	// acctA's clock again, frozen: it is listed once, as last put, after
	// acctB's.
	next := ahead(acctA, 2*time.Hour)
	next.Frozen, next.Stamp = true, a.Stamp
	a2 := f.putClock(t, next)
	if a2.Stamp <= b.Stamp || f.stamp(t) != a2.Stamp {
		t.Errorf("third put: stamp %d, ClockStamp %d; want above %d, and equal", a2.Stamp, f.stamp(t), b.Stamp)
	}
	if !a2.Frozen || !a2.At.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("third put returned %+v", a2)
	}
	diff(t, "clocks since 0", []storage.AccountClock{b, a2}, f.clocksSince(t, 0, 10))
	diff(t, "clocks since 0, limit 1", []storage.AccountClock{b}, f.clocksSince(t, 0, 1))
	diff(t, "clocks since acctB's", []storage.AccountClock{a2}, f.clocksSince(t, b.Stamp, 10))
	diff(t, "limit 0", []storage.AccountClock(nil), f.clocksSince(t, 0, 0))

	// Back on the server's clock: still a clock, put like any other.
	back := f.putClock(t, storage.AccountClock{Account: acctB, At: t0, Anchor: t0, Stamp: b.Stamp})
	if !back.OnServerTime() {
		t.Errorf("a clock put back on the server's time reads %+v", back)
	}
	diff(t, "clocks since 0 at the end", []storage.AccountClock{a2, back}, f.clocksSince(t, 0, 10))
}

func testClocksConflict(t *testing.T, f *fixture) {
	a := f.putClock(t, ahead(acctA, time.Hour))
	stale := ahead(acctA, 3*time.Hour) // Stamp 0: as if acctA had no clock
	_, err := f.s.PutAccountClock(f.ctx, stale)
	wantErr(t, "a put as if there were no clock", err, storage.ErrConflict)
	stale.Stamp = a.Stamp + 100
	_, err = f.s.PutAccountClock(f.ctx, stale)
	wantErr(t, "a put at another stamp", err, storage.ErrConflict)
	other := ahead(acctB, time.Hour)
	other.Stamp = a.Stamp
	_, err = f.s.PutAccountClock(f.ctx, other)
	wantErr(t, "a put expecting a clock where there is none", err, storage.ErrConflict)
	if n := f.stamp(t); n != a.Stamp {
		t.Errorf("ClockStamp %d after refused puts, want %d", n, a.Stamp)
	}
	diff(t, "clocks after refused puts", []storage.AccountClock{a}, f.clocksSince(t, 0, 10))
}

func testClocksTimes(t *testing.T, f *fixture) {
	far := time.Date(9998, 12, 31, 23, 59, 59, 999999000, time.UTC)
	past := time.Date(1971, 1, 1, 0, 0, 0, 1000, time.UTC)
	for _, c := range []storage.AccountClock{
		{Account: "far", At: far, Anchor: t0.Add(us)},
		{Account: "past", At: past, Anchor: t0, Frozen: true},
		{Account: "frozen", At: t0.Add(time.Hour), Anchor: t0.Add(-time.Hour), Frozen: true},
		{Account: "server", At: t0, Anchor: t0},
	} {
		got := f.putClock(t, c)
		c.Stamp = got.Stamp
		diff(t, "clock put "+c.Account, c, got)
		diff(t, "clock read back "+c.Account, []storage.AccountClock{c}, f.clocksSince(t, got.Stamp-1, 1))
	}
}

func testDueOwnClocks(t *testing.T, f *fixture) {
	now := at(time.Hour)
	// acctA a day ahead, "behind" an hour behind (not frozen), "frozen"
	// frozen two days ahead, acctB on the server's clock.
	f.putClock(t, storage.AccountClock{Account: acctA, At: t0.Add(24 * time.Hour), Anchor: t0})
	f.putClock(t, storage.AccountClock{Account: "behind", At: t0.Add(-time.Hour), Anchor: t0})
	f.putClock(t, storage.AccountClock{Account: "frozen", At: t0.Add(48 * time.Hour), Anchor: t0, Frozen: true})

	a1 := f.dueLetter(t, acctA, now.Add(23*time.Hour))            // due on acctA's clock at now-1h
	a2 := f.dueLetter(t, acctA, now.Add(24*time.Hour+us))         // not yet
	behind1 := f.dueLetter(t, "behind", now.Add(-90*time.Minute)) // at now-30m
	behind2 := f.dueLetter(t, "behind", now.Add(-30*time.Minute)) // at now+30m: not yet
	frozen := f.dueLetter(t, "frozen", now.Add(-time.Hour))       // never by the server's clock
	b1 := f.dueLetter(t, acctB, now.Add(-10*time.Minute))
	b2 := f.dueLetter(t, acctB, now)

	diff(t, "first two", []string{a1.ID, behind1.ID}, f.process(t, now, 2))
	diff(t, "the rest", []string{b1.ID, b2.ID}, f.process(t, now, 10))
	f.wantStored(t, a2)
	f.wantStored(t, behind2)
	f.wantStored(t, frozen)
	diff(t, "at the edges of acctA's and behind's", []string{a2.ID, behind2.ID}, f.process(t, now.Add(30*time.Minute+us), 10))
	diff(t, "a century on", []string(nil), f.process(t, now.Add(100*365*24*time.Hour), 10))
	f.wantStored(t, frozen)
	diff(t, "the frozen account by itself", []string{frozen.ID}, f.processQuery(t, storage.DueQuery{Now: t0.Add(48 * time.Hour), Limit: 10, Account: "frozen"}))
}

func testDueClockMoves(t *testing.T, f *fixture) {
	now := at(time.Hour)
	c := f.putClock(t, storage.AccountClock{Account: acctA, At: t0, Anchor: t0})
	late := f.dueLetter(t, acctA, now.Add(2*time.Hour))
	b := f.dueLetter(t, acctB, now.Add(time.Hour))
	diff(t, "before any move", []string(nil), f.process(t, now, 10))

	// acctA's clock moves two hours ahead: its letter is due now.
	c.At = c.At.Add(2 * time.Hour)
	c = f.putClock(t, c)
	diff(t, "after acctA's clock moved on", []string{late.ID}, f.process(t, now, 10))

	// Letters written while the clock stands apart follow it too.
	next := f.dueLetter(t, acctA, now.Add(3*time.Hour)) // at now+1h on the server's clock
	diff(t, "a letter made since, before it is due", []string(nil), f.process(t, now.Add(time.Hour-us), 10))

	// Frozen, acctA's letters are left to its own runs; unfrozen behind
	// the server's clock, they follow it from there.
	c.Frozen = true
	c = f.putClock(t, c)
	diff(t, "frozen", []string{b.ID}, f.process(t, now.Add(5*time.Hour), 10))
	c.Frozen, c.Anchor = false, t0.Add(10*time.Hour) // unfrozen when the server's clock read t0+10h; acctA still reads t0+2h
	f.putClock(t, c)
	diff(t, "unfrozen, still behind", []string(nil), f.process(t, t0.Add(10*time.Hour), 10))
	diff(t, "unfrozen, caught up with", []string{next.ID}, f.process(t, t0.Add(10*time.Hour+2*time.Hour), 10))
}

func testDueAccountIgnoresClock(t *testing.T, f *fixture) {
	now := at(time.Hour)
	f.putClock(t, storage.AccountClock{Account: acctA, At: t0.Add(24 * time.Hour), Anchor: t0, Frozen: true})
	l := f.dueLetter(t, acctA, now)
	diff(t, "before its DueAt", []string(nil), f.processQuery(t, storage.DueQuery{Now: now.Add(-us), Limit: 10, Account: acctA}))
	diff(t, "at its DueAt", []string{l.ID}, f.processQuery(t, storage.DueQuery{Now: now, Limit: 10, Account: acctA}))
}
