package storagetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

var dueTests = []test{
	{"hands out the letters due at or before now, earliest DueAt first", testDueOrder},
	{"hands out at most limit letters", testDueLimit},
	{"writes fn's changes with the revision incremented", testDueWrites},
	{"stops at fn's error, returns it and writes nothing more", testDueError},
	{"never hands out a letter with a zero DueAt", testDueZero},
	{"with Account, hands out only that account's letters, earliest first", testDueAccount},
	{"with Except, passes over those accounts' letters", testDueExcept},
	{"follows DueAt through updates", testDueFollowsUpdates},
	{"concurrent callers never process a letter twice at one revision", testDueConcurrent},
}

// dueLetter stores a letter of account due at due and returns it.
func (f *fixture) dueLetter(t testing.TB, account string, due time.Time) storage.Letter {
	t.Helper()
	l := f.letter(account)
	l.DueAt = due
	return f.createLetter(t, l)
}

// process runs ProcessDueLetters with an fn that clears DueAt, and returns
// the ids fn was given, in order.
func (f *fixture) process(t testing.TB, now time.Time, limit int) []string {
	t.Helper()
	return f.processQuery(t, storage.DueQuery{Now: now, Limit: limit})
}

// processQuery is process for any query.
func (f *fixture) processQuery(t testing.TB, q storage.DueQuery) []string {
	t.Helper()
	var got []string
	n, err := f.s.ProcessDueLetters(f.ctx, q, func(l *storage.Letter) error {
		got = append(got, l.ID)
		l.DueAt = time.Time{}
		return nil
	})
	must(t, "ProcessDueLetters", err)
	if n != len(got) {
		t.Errorf("ProcessDueLetters returned %d, fn saw %d letters", n, len(got))
	}
	return got
}

func testDueOrder(t *testing.T, f *fixture) {
	now := at(time.Hour)
	a := f.dueLetter(t, acctA, now.Add(-3*time.Minute))
	b := f.dueLetter(t, acctA, now)
	c := f.dueLetter(t, acctA, now.Add(-10*time.Minute))
	d := f.dueLetter(t, acctA, now.Add(us))
	e := f.dueLetter(t, acctA, time.Time{})
	other := f.dueLetter(t, acctB, now.Add(-time.Minute))
	got := f.process(t, now, 10)
	diff(t, "letters handed out", []string{c.ID, a.ID, other.ID, b.ID}, got)
	f.wantStored(t, d)
	f.wantStored(t, e)
}

func testDueLimit(t *testing.T, f *fixture) {
	now := at(time.Hour)
	var ids []string
	for i := range 5 {
		ids = append(ids, f.dueLetter(t, acctA, now.Add(time.Duration(i-5)*time.Minute)).ID)
	}
	diff(t, "limit 0", []string(nil), f.process(t, now, 0))
	diff(t, "limit -1", []string(nil), f.process(t, now, -1))
	diff(t, "first call, limit 3", ids[:3], f.process(t, now, 3))
	diff(t, "second call, limit 2", ids[3:5], f.process(t, now, 2))
	diff(t, "third call, limit 3", []string(nil), f.process(t, now, 3))

	var more []string
	for i := range 3 {
		more = append(more, f.dueLetter(t, acctA, now.Add(time.Duration(i-5)*time.Minute)).ID)
	}
	diff(t, "limit 4 with 3 due", more, f.process(t, now, 4))
}

func testDueWrites(t *testing.T, f *fixture) {
	now := at(time.Hour)
	l := f.dueLetter(t, acctA, now.Add(-time.Minute))
	var given storage.Letter
	n, err := f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: now, Limit: 10}, func(p *storage.Letter) error {
		given = cloneLetter(*p)
		p.Status = "ready"
		p.Metadata = md("stage", "ready")
		p.ModifiedAt = now
		p.DueAt = now.Add(time.Hour)
		p.Doc = newDoc("ready")
		return nil
	})
	must(t, "ProcessDueLetters", err)
	if n != 1 {
		t.Errorf("ProcessDueLetters returned %d, want 1", n)
	}
	diff(t, "letter given to fn", l, given)
	want := l
	want.Status = "ready"
	want.Metadata = md("stage", "ready")
	want.ModifiedAt = now
	want.DueAt = now.Add(time.Hour)
	want.Doc = newDoc("ready")
	want.Revision = 2
	f.wantStored(t, want)

	// Not yet due again a microsecond early; due at the new DueAt, and
	// then written at the next revision.
	diff(t, "before the new DueAt", []string(nil), f.process(t, now.Add(time.Hour-us), 10))
	diff(t, "at the new DueAt", []string{l.ID}, f.process(t, now.Add(time.Hour), 10))
	want.DueAt = time.Time{}
	want.Revision = 3
	f.wantStored(t, want)
}

var errFn = errors.New("fn failed")

func testDueError(t *testing.T, f *fixture) {
	now := at(time.Hour)
	var ls []storage.Letter
	for i := range 3 {
		ls = append(ls, f.dueLetter(t, acctA, now.Add(time.Duration(i-3)*time.Minute)))
	}
	calls := 0
	n, err := f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: now, Limit: 10}, func(l *storage.Letter) error {
		calls++
		l.Status = "ready"
		l.DueAt = time.Time{}
		if calls == 2 {
			// Changes made in place before failing are not written either.
			markDoc(l.Doc)
			return fmt.Errorf("step: %w", errFn)
		}
		return nil
	})
	wantErr(t, "ProcessDueLetters", err, errFn)
	if n != 1 || calls != 2 {
		t.Errorf("ProcessDueLetters wrote %d letters with %d calls of fn; want 1 and 2", n, calls)
	}
	first := ls[0]
	first.Status = "ready"
	first.DueAt = time.Time{}
	first.Revision = 2
	f.wantStored(t, first)
	f.wantStored(t, ls[1])
	f.wantStored(t, ls[2])
}

func testDueAccount(t *testing.T, f *fixture) {
	now := at(time.Hour)
	a1 := f.dueLetter(t, acctA, now.Add(-time.Minute))
	b1 := f.dueLetter(t, acctB, now.Add(-3*time.Minute))
	a2 := f.dueLetter(t, acctA, now.Add(-2*time.Minute))
	b2 := f.dueLetter(t, acctB, now.Add(-time.Minute))
	// acctA's clock is a day ahead: its letters due by then, not acctB's.
	aLate := f.dueLetter(t, acctA, now.Add(23*time.Hour))
	bLate := f.dueLetter(t, acctB, now.Add(time.Hour))
	aNever := f.dueLetter(t, acctA, now.Add(25*time.Hour))
	ahead := now.Add(24 * time.Hour)
	diff(t, "acctA, limit 1", []string{a2.ID}, f.processQuery(t, storage.DueQuery{Now: ahead, Limit: 1, Account: acctA}))
	diff(t, "acctA, the rest", []string{a1.ID, aLate.ID}, f.processQuery(t, storage.DueQuery{Now: ahead, Limit: 10, Account: acctA}))
	diff(t, "an account with no letters", []string(nil), f.processQuery(t, storage.DueQuery{Now: ahead, Limit: 10, Account: "acct-none"}))
	f.wantStored(t, b1)
	f.wantStored(t, b2)
	f.wantStored(t, bLate)
	f.wantStored(t, aNever)
	diff(t, "every account afterwards", []string{b1.ID, b2.ID}, f.process(t, now, 10))
}

func testDueExcept(t *testing.T, f *fixture) {
	now := at(time.Hour)
	a := f.dueLetter(t, acctA, now.Add(-3*time.Minute))
	b := f.dueLetter(t, acctB, now.Add(-2*time.Minute))
	a2 := f.dueLetter(t, acctA, now.Add(-time.Minute))
	// Letters of an excluded account do not count against the limit.
	diff(t, "all but acctA, limit 1", []string{b.ID}, f.processQuery(t, storage.DueQuery{Now: now, Limit: 1, Except: []string{acctA}}))
	diff(t, "all but acctA and acctB", []string(nil), f.processQuery(t, storage.DueQuery{Now: now, Limit: 10, Except: []string{acctB, acctA}}))
	f.wantStored(t, a)
	f.wantStored(t, a2)
	diff(t, "acctA alone, except acctA", []string(nil), f.processQuery(t, storage.DueQuery{Now: now, Limit: 10, Account: acctA, Except: []string{acctA}}))
	diff(t, "all but another account", []string{a.ID, a2.ID}, f.processQuery(t, storage.DueQuery{Now: now, Limit: 10, Except: []string{"acct-none"}}))
}

func testDueZero(t *testing.T, f *fixture) {
	l := f.dueLetter(t, acctA, time.Time{})
	for _, now := range []time.Time{at(0), at(100 * 365 * 24 * time.Hour), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)} {
		diff(t, "letters handed out at "+now.String(), []string(nil), f.process(t, now, 10))
	}
	f.wantStored(t, l)
}

func testDueFollowsUpdates(t *testing.T, f *fixture) {
	now := at(time.Hour)
	early := f.dueLetter(t, acctA, now.Add(-time.Minute))
	late := f.dueLetter(t, acctA, now.Add(time.Minute))
	cleared := f.dueLetter(t, acctA, now.Add(-time.Minute))
	// A letter without a due time (at issue) that gains one (queued again).
	restored := f.dueLetter(t, acctA, time.Time{})

	u := early
	u.DueAt = now.Add(time.Hour)
	_, err := f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	u = late
	u.DueAt = now.Add(-time.Hour)
	_, err = f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	u = cleared
	u.DueAt = time.Time{}
	_, err = f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)

	u = restored
	u.DueAt = now.Add(-2 * time.Hour)
	_, err = f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)

	diff(t, "letters handed out", []string{restored.ID, late.ID}, f.process(t, now, 10))
}

func testDueConcurrent(t *testing.T, f *fixture) {
	const (
		letters = 60
		callers = 8
	)
	now := at(time.Hour)
	var ids []string
	for i := range letters {
		ids = append(ids, f.dueLetter(t, acctA, now.Add(-time.Duration(i%7)*time.Minute)).ID)
	}
	type idRev struct {
		id  string
		rev int64
	}
	var mu sync.Mutex
	seen := make(map[idRev]int)
	// Each letter takes two steps, and stays due after the first, so it is
	// handed out again, at its next revision.
	fn := func(l *storage.Letter) error {
		mu.Lock()
		seen[idRev{l.ID, l.Revision}]++
		mu.Unlock()
		switch l.Status {
		case "queued":
			l.Status = "ready"
		case "ready":
			l.Status = "mailed"
			l.DueAt = time.Time{}
		default:
			return fmt.Errorf("letter %s handed out in status %s", l.ID, l.Status)
		}
		return nil
	}
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for {
				n, err := f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: now, Limit: 5}, fn)
				if err != nil {
					t.Errorf("ProcessDueLetters: %v", err)
					return
				}
				if n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	// A caller gives up when it finds nothing; one that stopped while the
	// others still held letters may leave some behind.
	for {
		n, err := f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: now, Limit: 5}, fn)
		must(t, "ProcessDueLetters", err)
		if n == 0 {
			break
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("letter %s handed out %d times at revision %d", k.id, n, k.rev)
		}
	}
	for _, id := range ids {
		l := f.getLetter(t, acctA, id)
		if l.Status != "mailed" || l.Revision != 3 || seen[idRev{id, 1}] != 1 || seen[idRev{id, 2}] != 1 {
			t.Errorf("letter %s: status %s, revision %d; want mailed at revision 3, each step once", id, l.Status, l.Revision)
		}
	}
}
