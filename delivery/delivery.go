// Package delivery sends lettershop's webhook events: Open (or OpenWith,
// with options) makes the Deliverer a Service is given with
// lettershop.WithDeliverer, which takes the deliveries due through the
// Service's Deliveries, each leased for the length of its attempt, posts
// each event signed (package webhook) as package wire writes it to the
// hosts it allows, and retries a failed one after RetryDelay on the
// account's clock. The Service decides what is due and keeps the record;
// how attempts are made (timeouts, leases, workers, hosts, the HTTP
// client, backoff) is this package's.
//
// Its Engine runs work that falls due account by account, fairly: it asks
// a Source which accounts have work due, takes each one's, and runs it, at
// most PerAccount tasks of one account at a time, and at most MaxRunning
// in all. An account whose tasks hang (a webhook receiver that never
// answers) fills its own slots and no other's: every other account's work
// goes on as if it were not there. Many such accounts at once (each
// sandbox key is one) fill at most MaxRunning slots, not PerAccount each:
// a slot that comes free goes first to an account with the fewest tasks
// under way, so an account with none waits at most for the first of the
// running tasks to end.
// The Engine knows nothing of what the work is; the webhook deliveries are
// the Source Open gives it.
package delivery

import (
	"context"
	"slices"
	"sync"
	"time"
)

// DefaultPerAccount is how many tasks of one account run at once unless
// Options say otherwise.
const DefaultPerAccount = 4

// DefaultMaxRunning is how many tasks run at once in all, across every
// account, unless Options say otherwise: each webhook attempt holds a
// connection, and without a bound the accounts a sandbox makes at will
// could hold as many as the process may open, its listener's too.
const DefaultMaxRunning = 1024

// Source is where the engine finds work.
type Source interface {
	// Due returns the accounts that have work due now. It is asked on
	// every pass, so its cost should follow the accounts with work, not
	// every account there is. An account it returns may have nothing left
	// to take by the time Take is called.
	Due(ctx context.Context) ([]string, error)
	// Take claims up to n of the account's due tasks, which the engine
	// then runs, each once. The tasks it returns are run even when it
	// returns an error too.
	Take(ctx context.Context, account string, n int) ([]Task, error)
}

// Task is one piece of claimed work. Its ctx ends when the engine is
// closed; the task should return soon after.
type Task func(ctx context.Context)

// Options configure an Engine.
type Options struct {
	// PerAccount is how many tasks of one account run at once; below 1,
	// DefaultPerAccount.
	PerAccount int
	// MaxRunning is how many tasks run at once in all accounts together;
	// below 1, DefaultMaxRunning.
	MaxRunning int
	// Poll, when above zero, makes the engine look for due work that
	// often as well as when woken: for work made where it cannot be woken
	// (another process sharing the store).
	Poll time.Duration
	// OnError is told what Due and Take fail with (account is "" for Due).
	// The engine goes on: the work is looked for again on the next pass.
	OnError func(account string, err error)
}

// Engine runs the tasks of a Source. It makes a pass (Due, then Take for
// each account with a free slot) when woken, when a task ends (a slot came
// free, and what the task did may have made more work due) and every Poll.
// It is safe for concurrent use.
type Engine struct {
	src        Source
	perAccount int
	maxRunning int
	poll       time.Duration
	onError    func(string, error)

	wakeCh chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	started bool
	closed  bool
	// running counts the tasks under way, by account; an account with none
	// has no entry, so the map follows the accounts at work.
	running map[string]int
	// total is the sum of running.
	total int
}

// New returns an Engine over src. Its loop starts on the first Wake, or
// Start.
func New(src Source, o Options) *Engine {
	if o.PerAccount < 1 {
		o.PerAccount = DefaultPerAccount
	}
	if o.MaxRunning < 1 {
		o.MaxRunning = DefaultMaxRunning
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Engine{
		src: src, perAccount: o.PerAccount, maxRunning: o.MaxRunning, poll: o.Poll, onError: o.OnError,
		wakeCh: make(chan struct{}, 1), ctx: ctx, cancel: cancel, running: map[string]int{},
	}
}

// Start starts the engine's loop, if it is not running: with Poll set, it
// then looks for work every Poll without being woken.
func (e *Engine) Start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started || e.closed {
		return
	}
	e.started = true
	e.wg.Add(1)
	go e.loop()
}

// Wake asks for a pass, starting the loop if need be. Wakes that come
// while a pass is waiting to start make one pass.
func (e *Engine) Wake() {
	e.Start()
	select {
	case e.wakeCh <- struct{}{}:
	default:
	}
}

// Woken reports whether a pass was asked for and has not yet begun.
func (e *Engine) Woken() bool { return len(e.wakeCh) > 0 }

// Started reports whether the loop was started.
func (e *Engine) Started() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.started
}

// RunningAll returns how many tasks are under way, of every account.
func (e *Engine) RunningAll() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.total
}

// Running returns how many of the account's tasks are under way.
func (e *Engine) Running(account string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.running[account]
}

// Close stops the loop, ends the ctx of the tasks under way and waits for
// them to return. The engine does nothing more.
func (e *Engine) Close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
}

func (e *Engine) loop() {
	defer e.wg.Done()
	var tick <-chan time.Time
	if e.poll > 0 {
		t := time.NewTicker(e.poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-e.wakeCh:
		case <-tick:
		}
		e.pass()
	}
}

// pass takes the due tasks of every account Due names, as many of each as
// it has slots free and the engine has in all, and starts them: the
// accounts with the fewest tasks under way first, so that when MaxRunning
// is reached the slots that come free go to accounts that have none.
func (e *Engine) pass() {
	accounts, err := e.src.Due(e.ctx)
	if err != nil {
		e.fail("", err)
	}
	e.mu.Lock()
	slices.SortStableFunc(accounts, func(a, b string) int { return e.running[a] - e.running[b] })
	e.mu.Unlock()
	for _, a := range accounts {
		if e.ctx.Err() != nil {
			return
		}
		e.mu.Lock()
		free := min(e.perAccount-e.running[a], e.maxRunning-e.total)
		full := e.total >= e.maxRunning
		e.mu.Unlock()
		if full {
			return // the next task to end makes a pass
		}
		if free <= 0 {
			continue // its tasks hang, or are slow: only its own wait
		}
		tasks, err := e.src.Take(e.ctx, a, free)
		if err != nil {
			e.fail(a, err)
		}
		for _, t := range tasks {
			e.run(a, t)
		}
	}
}

func (e *Engine) fail(account string, err error) {
	if e.onError != nil && e.ctx.Err() == nil {
		e.onError(account, err)
	}
}

// run starts a task of the account.
func (e *Engine) run(account string, t Task) {
	e.mu.Lock()
	e.running[account]++
	e.total++
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer e.done(account)
		t(e.ctx)
	}()
}

// done notes a task of the account ended, and asks for a pass: its slot is
// free, and what it did may have made more work due.
func (e *Engine) done(account string) {
	e.mu.Lock()
	e.total--
	if e.running[account]--; e.running[account] <= 0 {
		delete(e.running, account)
	}
	e.mu.Unlock()
	select {
	case e.wakeCh <- struct{}{}:
	default:
	}
}
