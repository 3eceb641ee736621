package delivery_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/delivery"
)

// source is a delivery.Source over queues of tasks, by account, that
// counts what it is asked.
type source struct {
	mu     sync.Mutex
	queues map[string][]delivery.Task
	takes  map[string]int
	asked  []int // the n of each Take, in order
	dueErr error
	takeFn func(account string) error
	dues   chan struct{}
}

func newSource() *source {
	return &source{queues: map[string][]delivery.Task{}, takes: map[string]int{}, dues: make(chan struct{}, 100)}
}

func (s *source) add(account string, ts ...delivery.Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[account] = append(s.queues[account], ts...)
}

func (s *source) Due(context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		select {
		case s.dues <- struct{}{}:
		default:
		}
	}()
	var out []string
	for a, q := range s.queues {
		if len(q) > 0 {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out, s.dueErr
}

func (s *source) Take(_ context.Context, account string, n int) ([]delivery.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.takes[account]++
	s.asked = append(s.asked, n)
	q := s.queues[account]
	n = min(n, len(q))
	s.queues[account] = q[n:]
	var err error
	if s.takeFn != nil {
		err = s.takeFn(account)
	}
	return q[:n], err
}

func (s *source) takesOf(account string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takes[account]
}

// gate is a set of tasks that report when they start and hang until let
// go (or until the engine closes).
type gate struct {
	started chan string
	release chan struct{}
	mu      sync.Mutex
	now     map[string]int // running, by account
	most    map[string]int // the most ever running at once, by account
}

func newGate() *gate {
	return &gate{started: make(chan string, 1000), release: make(chan struct{}), now: map[string]int{}, most: map[string]int{}}
}

func (g *gate) task(account string) delivery.Task {
	return func(ctx context.Context) {
		g.mu.Lock()
		g.now[account]++
		g.most[account] = max(g.most[account], g.now[account])
		g.mu.Unlock()
		g.started <- account
		select {
		case <-g.release:
		case <-ctx.Done():
		}
		g.mu.Lock()
		g.now[account]--
		g.mu.Unlock()
	}
}

func (g *gate) mostOf(account string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most[account]
}

// next waits for a task to start and returns its account.
func (g *gate) next(t *testing.T, what string) string {
	t.Helper()
	select {
	case a := <-g.started:
		return a
	case <-time.After(10 * time.Second):
		t.Fatalf("no task started: %s", what)
		return ""
	}
}

// quick is a task that is done at once, and says so.
func quick(done chan<- string, account string) delivery.Task {
	return func(context.Context) { done <- account }
}

// An account whose tasks hang fills its own slots, PerAccount of them and
// no more, and is not asked for more while they are full; another
// account's tasks run meanwhile. Let go, the hanging account's other tasks
// run, still at most PerAccount at once.
func TestHangingAccountHoldsBackOnlyItself(t *testing.T) {
	const per = 3
	src, g := newSource(), newGate()
	for range 10 {
		src.add("a", g.task("a"))
	}
	e := delivery.New(src, delivery.Options{PerAccount: per})
	t.Cleanup(e.Close)
	e.Wake()
	for i := range per {
		if a := g.next(t, "the hanging account's"); a != "a" {
			t.Fatalf("task %d was %s's", i, a)
		}
	}
	done := make(chan string, 10)
	src.add("b", quick(done, "b"), quick(done, "b"))
	takes := src.takesOf("a")
	e.Wake()
	for range 2 {
		select {
		case a := <-done:
			if a != "b" {
				t.Fatalf("a task of %s", a)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the other account's tasks did not run while the first's hang")
		}
	}
	if n := e.Running("a"); n != per {
		t.Errorf("%d of the hanging account's tasks under way, want %d", n, per)
	}
	if n := src.takesOf("a"); n != takes {
		t.Errorf("the hanging account, its slots full, was asked for tasks %d more times", n-takes)
	}
	select {
	case a := <-g.started:
		t.Fatalf("a task of %s started past the limit", a)
	default:
	}

	close(g.release)
	for range 10 - per {
		if a := g.next(t, "the hanging account's, let go"); a != "a" {
			t.Fatalf("a task of %s", a)
		}
	}
	if n := g.mostOf("a"); n != per {
		t.Errorf("at most %d of one account's tasks ran at once, want %d", n, per)
	}
}

// Take is asked for as many tasks as the account has slots free, no more:
// PerAccount when none runs, one when all but one do.
func TestTakeAskedForTheFreeSlots(t *testing.T) {
	src, g := newSource(), newGate()
	src.add("a", g.task("a"), g.task("a"))
	e := delivery.New(src, delivery.Options{PerAccount: 3})
	t.Cleanup(e.Close)
	e.Wake()
	g.next(t, "the first")
	g.next(t, "the second")
	<-src.dues
	src.add("a", g.task("a"), g.task("a"))
	e.Wake()
	g.next(t, "the third")
	src.mu.Lock()
	asked := slices.Clone(src.asked)
	src.mu.Unlock()
	if len(asked) < 2 || asked[0] != 3 || asked[len(asked)-1] != 1 {
		t.Errorf("Take asked for %v, want 3 first and 1 with two running", asked)
	}
	select {
	case <-g.started:
		t.Fatal("a fourth task started at a limit of three")
	default:
	}
	if n := e.Running("a"); n != 3 {
		t.Errorf("%d tasks running, want 3", n)
	}
}

// What Due and Take fail with is told, with the account; tasks a failing
// Take returns still run, and other accounts are still taken.
func TestErrorsAreToldAndPassesGoOn(t *testing.T) {
	src := newSource()
	boom := errors.New("boom")
	src.takeFn = func(a string) error {
		if a == "a" {
			return boom
		}
		return nil
	}
	type told struct {
		account string
		err     error
	}
	errs := make(chan told, 10)
	done := make(chan string, 10)
	src.add("a", quick(done, "a"))
	src.add("b", quick(done, "b"))
	e := delivery.New(src, delivery.Options{OnError: func(a string, err error) { errs <- told{a, err} }})
	t.Cleanup(e.Close)
	e.Wake()
	got := map[string]bool{}
	for range 2 {
		select {
		case a := <-done:
			got[a] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("tasks run: %v, want a's and b's", got)
		}
	}
	if got := <-errs; got.account != "a" || !errors.Is(got.err, boom) {
		t.Errorf("told %q, %v; want a, boom", got.account, got.err)
	}

	src.mu.Lock()
	src.dueErr = boom
	src.mu.Unlock()
	e.Wake()
	select {
	case got := <-errs:
		if got.account != "" || !errors.Is(got.err, boom) {
			t.Errorf("told %q, %v; want \"\", boom", got.account, got.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Due's error was not told")
	}
}

// Close ends the tasks' context, waits for them, and stops the engine:
// a Wake after it does nothing.
func TestCloseEndsTheTasks(t *testing.T) {
	src, g := newSource(), newGate()
	src.add("a", g.task("a"))
	e := delivery.New(src, delivery.Options{})
	e.Wake()
	g.next(t, "the task")
	e.Close() // returns only once the task has: its ctx ended
	if n := e.Running("a"); n != 0 {
		t.Errorf("%d tasks running after Close", n)
	}
	for len(src.dues) > 0 {
		<-src.dues // the passes made before
	}
	src.add("a", g.task("a"))
	e.Wake()
	select {
	case <-g.started:
		t.Error("a task started after Close")
	case <-src.dues:
		t.Error("a pass after Close")
	default:
	}
}

// An engine is idle until woken or started; with Poll it makes passes
// unbidden.
func TestStartAndPoll(t *testing.T) {
	src := newSource()
	e := delivery.New(src, delivery.Options{})
	if e.Started() || e.Woken() {
		t.Error("a new engine is started or woken")
	}
	e.Close()

	polled := delivery.New(src, delivery.Options{Poll: time.Millisecond})
	t.Cleanup(polled.Close)
	polled.Start()
	for range 3 {
		select {
		case <-src.dues:
		case <-time.After(10 * time.Second):
			t.Fatal("no pass without a wake")
		}
	}
}

// Many accounts whose tasks hang fill MaxRunning slots in all, not
// PerAccount each; a slot that comes free goes to an account with no task
// under way before one that has some.
func TestHangingAccountsFillAtMostMaxRunning(t *testing.T) {
	const per, most = 2, 6
	src, g := newSource(), newGate()
	for _, a := range []string{"a", "b", "c", "d"} {
		for range 3 {
			src.add(a, g.task(a))
		}
	}
	e := delivery.New(src, delivery.Options{PerAccount: per, MaxRunning: most})
	t.Cleanup(e.Close)
	e.Wake()
	for range most {
		g.next(t, "the hanging accounts'")
	}
	<-src.dues
	e.Wake()
	<-src.dues
	select {
	case a := <-g.started:
		t.Fatalf("a task of %s started with %d running, at a limit of %d in all", a, most, most)
	default:
	}
	if n := e.RunningAll(); n != most {
		t.Fatalf("%d tasks under way, want %d", n, most)
	}

	// a, b and c fill the slots, d has none under way. One slot comes free:
	// z, with nothing under way either, or d, takes it before the account
	// whose task ended, though that comes first in Due's order.
	if n := e.Running("d"); n != 0 {
		t.Fatalf("d has %d tasks under way, want 0", n)
	}
	src.mu.Lock()
	src.queues["d"] = nil
	src.mu.Unlock()
	done := make(chan string, 1)
	src.add("z", quick(done, "z"))
	g.release <- struct{}{}
	select {
	case a := <-done:
		if a != "z" {
			t.Fatalf("a task of %s", a)
		}
	case a := <-g.started:
		if len(done) == 0 {
			t.Fatalf("the freed slot went to %s, which had tasks under way, before z, which had none", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the account with nothing under way did not get the freed slot")
	}
}

// MaxRunning below 1 is DefaultMaxRunning: a pass starts that many tasks
// and no more.
func TestDefaultMaxRunning(t *testing.T) {
	src, g := newSource(), newGate()
	for i := range delivery.DefaultMaxRunning/delivery.DefaultPerAccount + 1 {
		a := string(rune('A'+i/26/26)) + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
		for range delivery.DefaultPerAccount {
			src.add(a, g.task(a))
		}
	}
	e := delivery.New(src, delivery.Options{})
	t.Cleanup(e.Close)
	e.Wake()
	for range delivery.DefaultMaxRunning {
		g.next(t, "the first pass's")
	}
	<-src.dues
	e.Wake()
	<-src.dues
	select {
	case a := <-g.started:
		t.Fatalf("a task of %s started past DefaultMaxRunning", a)
	default:
	}
	if n := e.RunningAll(); n != delivery.DefaultMaxRunning {
		t.Errorf("%d tasks under way, want %d", n, delivery.DefaultMaxRunning)
	}
}
