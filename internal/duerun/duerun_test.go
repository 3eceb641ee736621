package duerun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/storage"
)

var start = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// store keeps letters in memory and hands out those due by its own reading
// of the accounts' clocks (ahead), as a store does that another server's
// clock move reached before this one read it.
type store struct {
	letters map[string]*storage.Letter
	// ahead is how far the store reads an account's clock ahead of the
	// server's.
	ahead   map[string]time.Duration
	queries []storage.DueQuery
	// fail, when set, is returned by the next ProcessDueLetters after
	// handing out its letters.
	fail error
}

func newStore(letters ...storage.Letter) *store {
	s := &store{letters: map[string]*storage.Letter{}, ahead: map[string]time.Duration{}}
	for i := range letters {
		l := letters[i]
		s.letters[l.ID] = &l
	}
	return s
}

func (s *store) ProcessDueLetters(_ context.Context, q storage.DueQuery, fn func(*storage.Letter) error) (int, error) {
	s.queries = append(s.queries, q)
	var due []*storage.Letter
	for _, l := range s.letters {
		if q.Account != "" && l.Account != q.Account {
			continue
		}
		at := q.Now
		if q.Account == "" {
			at = at.Add(s.ahead[l.Account])
		}
		if !l.DueAt.IsZero() && !l.DueAt.After(at) {
			due = append(due, l)
		}
	}
	slices.SortFunc(due, func(a, b *storage.Letter) int {
		if c := a.DueAt.Compare(b.DueAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(due) > q.Limit {
		due = due[:q.Limit]
	}
	for _, l := range due {
		c := *l
		if err := fn(&c); err == nil {
			c.Revision++
			*l = c
		}
	}
	if err := s.fail; err != nil {
		s.fail = nil
		return len(due), err
	}
	return len(due), nil
}

// clocks are accounts' clocks as the store has them (stored) and as the
// runner last read them (read): an account's time is the server's plus
// its offset read.
type clocks struct {
	server         clock.Clock
	stored, read   map[string]time.Duration
	refreshes      int
	wasRead, apart bool
}

func newClocks(c clock.Clock) *clocks {
	return &clocks{server: c, stored: map[string]time.Duration{}, read: map[string]time.Duration{}}
}

func (c *clocks) Refresh(context.Context) {
	c.refreshes++
	for a, d := range c.stored {
		c.read[a] = d
	}
}
func (c *clocks) WasRead(context.Context) bool { return c.wasRead }
func (c *clocks) Apart() bool                  { return c.apart }
func (c *clocks) Lookup(account string) (storage.AccountClock, bool) {
	d, ok := c.read[account]
	return storage.AccountClock{Account: account, At: c.ServerNow().Add(d)}, ok
}
func (c *clocks) ServerNow() time.Time { return c.server.Now().UTC() }
func (c *clocks) Time(account string, server time.Time) time.Time {
	return server.Add(c.read[account])
}
func (c *clocks) Now(account string) time.Time { return c.Time(account, c.ServerNow()) }

// rig is a Runner on a store and clocks of the tests', whose Process
// takes a letter due to its end (no due time), but for the letters of
// hold, which it leaves due; Check takes those to their end.
type rig struct {
	*Runner
	store   *store
	clocks  *clocks
	clock   *clock.Mock
	hold    map[string]bool
	checks  [][]Held
	moved   int
	process int
}

func newRig(t *testing.T, onDemand bool, letters ...storage.Letter) *rig {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(start)
	g := &rig{store: newStore(letters...), clocks: newClocks(mc), clock: mc, hold: map[string]bool{}}
	g.Runner = New(Config{
		Store: g.store, Clocks: g.clocks, Clock: mc, OnDemand: onDemand,
		Process: func(r *storage.Letter, now time.Time) {
			g.process++
			if !r.DueAt.After(now) && !g.hold[r.ID] {
				r.DueAt = time.Time{}
			}
		},
		Check: func(_ context.Context, pending []Held, checked map[string]bool) int {
			g.checks = append(g.checks, slices.Clone(pending))
			for _, h := range pending {
				checked[h.ID] = true
				g.store.letters[h.ID].DueAt = time.Time{}
			}
			return len(pending)
		},
		Moved:    func() { g.moved++ },
		StoreErr: func(err error) error { return fmt.Errorf("wrapped: %w", err) },
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	t.Cleanup(g.Stop)
	return g
}

// due are n letters of account, due at at.
func due(account string, n int, at time.Time) []storage.Letter {
	var out []storage.Letter
	for i := range n {
		out = append(out, storage.Letter{ID: fmt.Sprintf("%s-%04d", account, i), Account: account, DueAt: at})
	}
	return out
}

// A run takes every batch until a batch moves nothing: exactly one batch
// of letters, and one letter more, each need one more walk that finds
// nothing.
func TestRunTakesEveryBatch(t *testing.T) {
	for _, n := range []int{Batch - 1, Batch, Batch + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g := newRig(t, true, due("a", n, start)...)
			got, err := g.Run(context.Background())
			if err != nil || got != n {
				t.Fatalf("Run = %d, %v; want %d", got, err, n)
			}
			walks := (n+Batch-1)/Batch + 1
			if len(g.store.queries) != walks {
				t.Errorf("%d walks of the store, want %d", len(g.store.queries), walks)
			}
			if q := g.store.queries[0]; q.Limit != Batch || q.Account != "" || !q.Now.Equal(start) {
				t.Errorf("query %+v, want every account's due at %v, %d at a time", q, start, Batch)
			}
			if g.moved != 1 {
				t.Errorf("Moved told %d times, want once", g.moved)
			}
		})
	}
}

// A run that moves nothing tells nothing, and walks the store once.
func TestRunOfNothing(t *testing.T) {
	g := newRig(t, true, due("a", 3, start.Add(time.Hour))...)
	if got, err := g.Run(context.Background()); err != nil || got != 0 {
		t.Fatalf("Run = %d, %v; want 0", got, err)
	}
	if len(g.store.queries) != 1 || g.moved != 0 || g.process != 0 {
		t.Errorf("%d walks, Moved %d times, %d processed; want 1, 0, 0", len(g.store.queries), g.moved, g.process)
	}
}

// A letter the store hands out that is not due by the runner's reading of
// its account's clock is written back, the clocks read again, and taken at
// the account's time on the next walk.
func TestEarlyLettersReadTheClocksAgain(t *testing.T) {
	g := newRig(t, true, due("a", 2, start.Add(24*time.Hour))...)
	g.store.ahead["a"] = 24 * time.Hour
	g.clocks.stored["a"] = 24 * time.Hour
	got, err := g.RunServer(context.Background())
	if err != nil || got != 2 {
		t.Fatalf("RunServer = %d, %v; want both letters moved once the clocks were read again", got, err)
	}
	if g.clocks.refreshes != 1 {
		t.Errorf("%d reads of the clocks, want 1", g.clocks.refreshes)
	}
	if g.process != 4 {
		t.Errorf("%d letters processed, want 4: each written back once, then moved", g.process)
	}
}

// A batch of nothing but early letters, read again, ends the run, however
// often the store would hand them out.
func TestOnlyEarlyLettersReadAgainEndTheRun(t *testing.T) {
	letters := due("a", 3, start.Add(24*time.Hour))
	g := newRig(t, true, letters...)
	// The store reads a clock the runner never will.
	g.store.ahead["a"] = 24 * time.Hour
	got, err := g.RunServer(context.Background())
	if err != nil || got != 0 {
		t.Fatalf("RunServer = %d, %v; want 0", got, err)
	}
	if len(g.store.queries) != 2 || g.clocks.refreshes != 1 {
		t.Errorf("%d walks, %d reads of the clocks; want 2 walks and the clocks read once between", len(g.store.queries), g.clocks.refreshes)
	}
	for _, l := range g.store.letters {
		if l.Revision != 2 || !l.DueAt.Equal(start.Add(24*time.Hour)) {
			t.Errorf("%s at revision %d due %v; want written back unchanged once per walk", l.ID, l.Revision, l.DueAt)
		}
	}
	if g.moved != 0 {
		t.Errorf("Moved told %d times, want never", g.moved)
	}
}

// A batch of early letters beside one moved is not a batch of nothing but
// early ones: the run walks on, without reading the clocks as an end.
func TestEarlyLettersBesideMovedOnes(t *testing.T) {
	letters := append(due("a", 1, start.Add(24*time.Hour)), due("b", 1, start)...)
	g := newRig(t, true, letters...)
	g.store.ahead["a"] = 24 * time.Hour
	got, err := g.RunServer(context.Background())
	if err != nil || got != 1 {
		t.Fatalf("RunServer = %d, %v; want 1", got, err)
	}
	// Walk 1: a early, b moved (the clocks read again). Walk 2: a early
	// again, read again: the end.
	if len(g.store.queries) != 2 || g.clocks.refreshes != 1 {
		t.Errorf("%d walks, %d reads of the clocks; want 2 and 1", len(g.store.queries), g.clocks.refreshes)
	}
}

// A letter Process leaves due is held: the drain stops after the batch
// that held it, Check is given it outside the run, and the drain goes on
// after; a letter already checked and held again does not stop a drain.
func TestHeldLettersStopTheDrain(t *testing.T) {
	letters := append(due("a", 2, start), due("b", 1, start)...)
	g := newRig(t, true, letters...)
	g.hold["a-0001"] = true
	got, err := g.Run(context.Background())
	if err != nil || got != 3 {
		t.Fatalf("Run = %d, %v; want 3: two moved by the drain, one by its check", got, err)
	}
	want := [][]Held{{{Account: "a", ID: "a-0001"}}}
	if !slices.EqualFunc(g.checks, want, slices.Equal) {
		t.Errorf("checks %v, want %v", g.checks, want)
	}
	// Walk 1 holds a-0001 and stops; after the check, walk 2 finds nothing.
	if len(g.store.queries) != 2 {
		t.Errorf("%d walks, want 2", len(g.store.queries))
	}

	// A letter the check leaves held is held again by the next drain: not
	// checked twice, and the run ends.
	g2 := newRig(t, true, due("c", 1, start)...)
	g2.hold["c-0000"] = true
	checks := 0
	g2.cfg.Check = func(_ context.Context, pending []Held, checked map[string]bool) int {
		checks++
		for _, h := range pending {
			checked[h.ID] = true
		}
		return 0
	}
	if got, err := g2.Run(context.Background()); err != nil || got != 0 {
		t.Fatalf("Run with a letter left held = %d, %v; want 0", got, err)
	}
	if checks != 1 || len(g2.store.queries) != 2 {
		t.Errorf("%d checks, %d walks; want one check and two walks", checks, len(g2.store.queries))
	}
}

// A failure of the store ends the run with the store's error as StoreErr
// words it, the letters moved before it counted.
func TestStoreFailureEndsTheRun(t *testing.T) {
	g := newRig(t, true, due("a", 2, start)...)
	boom := errors.New("boom")
	g.store.fail = boom
	got, err := g.Run(context.Background())
	if !errors.Is(err, boom) || err.Error() != "wrapped: boom" || got != 2 {
		t.Fatalf("Run = %d, %v; want 2 and the wrapped failure", got, err)
	}
	if g.moved != 0 || len(g.store.queries) != 1 {
		t.Errorf("Moved %d times, %d walks; want none and one", g.moved, len(g.store.queries))
	}
}

// On demand, a catch-up reads the clocks unless the operation did, and
// runs an account on a clock of its own at its time, alone; any other
// with every account's due letters.
func TestCatchUpOnDemand(t *testing.T) {
	ctx := context.Background()
	g := newRig(t, true, due("own", 1, start.Add(time.Hour))...)
	g.clocks.stored["own"] = time.Hour
	g.clocks.apart = true
	if err := g.CatchUp(ctx, "own"); err != nil {
		t.Fatal(err)
	}
	if g.clocks.refreshes != 1 {
		t.Errorf("%d reads of the clocks, want 1", g.clocks.refreshes)
	}
	if q := g.store.queries[0]; q.Account != "own" || !q.Now.Equal(start.Add(time.Hour)) {
		t.Errorf("query %+v, want the account's own at its time", q)
	}
	if g.store.letters["own-0000"].DueAt != (time.Time{}) {
		t.Error("the account's letter due at its time was not moved")
	}

	g.clocks.wasRead = true
	g.store.queries = nil
	if err := g.CatchUp(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if g.clocks.refreshes != 1 {
		t.Errorf("%d reads of the clocks, want still 1: the operation read them", g.clocks.refreshes)
	}
	if q := g.store.queries[0]; q.Account != "" || !q.Now.Equal(start) {
		t.Errorf("query %+v, want every account's at the server's time", q)
	}
}

// On demand, a catch-up that finds the Service's clock moved since the
// last one tells Moved, though no letter moved: what else falls due on the
// clock (a webhook's retry) is then looked for. One at the same time tells
// nothing; nor does a real clock's catch-up, whose Deliverer polls.
func TestCatchUpTellsAClockMove(t *testing.T) {
	ctx := context.Background()
	for _, onDemand := range []bool{true, false} {
		g := newRig(t, onDemand)
		var told []int
		for i, move := range []time.Duration{0, 0, time.Nanosecond, 0, 2 * CatchUpEvery, 2 * CatchUpEvery} {
			g.clock.Add(move)
			if err := g.CatchUp(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			if g.moved > len(told) {
				told = append(told, i)
			}
		}
		want := []int{0, 2, 4, 5}
		if !onDemand {
			want = nil
		}
		if !slices.Equal(told, want) {
			t.Errorf("on demand %v: Moved told at catch-ups %v, want %v", onDemand, told, want)
		}
	}
}

// On a real clock a catch-up runs at most once per CatchUpEvery, and again
// once that much time has passed; it never reads the clocks itself.
func TestCatchUpThrottled(t *testing.T) {
	ctx := context.Background()
	g := newRig(t, false)
	for i, step := range []struct {
		move  time.Duration
		walks int
	}{{0, 1}, {CatchUpEvery - time.Nanosecond, 1}, {time.Nanosecond, 2}, {0, 2}} {
		g.clock.Add(step.move)
		if err := g.CatchUp(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if len(g.store.queries) != step.walks {
			t.Fatalf("catch-up %d: %d walks, want %d", i, len(g.store.queries), step.walks)
		}
	}
	if g.clocks.refreshes != 0 {
		t.Errorf("%d reads of the clocks, want none", g.clocks.refreshes)
	}
}

// In the background a Runner runs at once on Start, reading the clocks
// first, and again when a due time noted comes.
func TestBackgroundRuns(t *testing.T) {
	g := newRig(t, false, due("a", 1, start)...)
	runs := make(chan struct{}, 4)
	g.cfg.Moved = func() { runs <- struct{}{} }
	g.Start()
	<-runs
	g.store.letters["b"] = &storage.Letter{ID: "b", Account: "b", DueAt: start.Add(time.Hour)}
	g.NoteDue(start.Add(time.Hour))
	g.clock.Add(time.Hour)
	<-runs
	g.Stop()
	if g.clocks.refreshes < 2 {
		t.Errorf("%d reads of the clocks, want one per run", g.clocks.refreshes)
	}
}

// A read's catch-up waits for the checks of its own account's letters
// alone: another account's letters held for their check (content at a
// host that does not answer) are left to that account and to the runs,
// on demand and on a real clock alike, and the reader's letters due
// behind a batch of them are still taken.
func TestCatchUpChecksItsOwnAccountAlone(t *testing.T) {
	ctx := context.Background()
	for _, onDemand := range []bool{true, false} {
		letters := append(due("a", Batch, start), due("b", 2, start.Add(time.Nanosecond))...)
		g := newRig(t, onDemand, letters...)
		g.clock.Add(time.Second)
		for _, l := range due("a", Batch, start) {
			g.hold[l.ID] = true
		}
		g.hold["b-0001"] = true
		if err := g.CatchUp(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		want := [][]Held{{{Account: "b", ID: "b-0001"}}}
		if !slices.EqualFunc(g.checks, want, slices.Equal) {
			n := 0
			for _, c := range g.checks {
				n += len(c)
			}
			t.Errorf("on demand %v: %d checks of %d letters, want one of b's held letter alone", onDemand, len(g.checks), n)
		}
		for _, id := range []string{"b-0000", "b-0001"} {
			if !g.store.letters[id].DueAt.IsZero() {
				t.Errorf("on demand %v: the reader's letter %s, due behind the other account's held ones, was not taken", onDemand, id)
			}
		}
		if g.store.letters["a-0000"].DueAt.IsZero() {
			t.Errorf("on demand %v: the other account's held letter was checked by the reader's catch-up", onDemand)
		}

		// The other account's own read checks its letters; so does a run.
		g.checks = nil
		g.clock.Add(2 * CatchUpEvery)
		if err := g.CatchUp(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if len(g.checks) != 1 || len(g.checks[0]) != Batch {
			t.Errorf("on demand %v: a's catch-up checked %d batches, want its %d letters in one", onDemand, len(g.checks), Batch)
		}
	}
}
