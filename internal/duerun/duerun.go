// Package duerun drives the runs of what falls due: the letters a store
// hands out by when they fall due, a batch at a time, each taken to the
// time of its account's clock, the runs of one process taking turns. What
// a run does to a letter, and the check of the letters it holds, are the
// caller's (Config.Process, Config.Check); this package knows when runs
// happen, how a run walks what is due and when it stops.
//
// On a clock a test moves (Config.OnDemand) nothing runs in the background
// (a ticker on a clock.Mock would make every Add crawl, the Mock pausing
// after each tick): every read and write first runs whatever is due
// (CatchUp), and Run does the same on demand. On a real clock a waker
// (internal/waker) runs what is due whenever the next due time this
// process knows of comes, and at least every MaxSleep, and reads catch up
// at most once per CatchUpEvery.
package duerun

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/fetchbatch"
	"github.com/lettershop/lettershop/internal/waker"
	"github.com/lettershop/lettershop/storage"
)

const (
	// Batch is how many due letters one ProcessDueLetters call takes.
	Batch = 500
	// CatchUpEvery throttles the catch-up of reads on a real clock: a
	// letter that fell due within it may be a moment late in a list, never
	// in a fetch (a read of one letter takes that letter's steps itself).
	CatchUpEvery = time.Second
	// MaxSleep bounds the background loop's sleep, so letters written by
	// other servers sharing the store are not left waiting long.
	MaxSleep = time.Minute
)

// Store is where a run takes the letters due from (storage.Storage).
type Store interface {
	ProcessDueLetters(ctx context.Context, q storage.DueQuery, fn func(*storage.Letter) error) (int, error)
}

// Clocks are the Service's clock and the accounts' own, as a run reads
// them (internal/acctclock's Clocks).
type Clocks interface {
	// Refresh reads the accounts' clocks from the store again.
	Refresh(ctx context.Context)
	// WasRead reports whether the operation of ctx has read the clocks.
	WasRead(ctx context.Context) bool
	// Apart reports whether any account keeps a clock of its own.
	Apart() bool
	// Lookup returns the account's own clock, and whether it has one.
	Lookup(account string) (storage.AccountClock, bool)
	// ServerNow is the time on the Service's clock.
	ServerNow() time.Time
	// Time is the account's time when the Service's clock reads server.
	Time(account string, server time.Time) time.Time
	// Now is the account's time now.
	Now(account string) time.Time
}

// Held is a letter a batch left due, held for a check of its own.
type Held struct{ Account, ID string }

// Config is what a Runner is given: where letters and times come from,
// and what a run does with the letters it takes.
type Config struct {
	Store  Store
	Clocks Clocks
	// Clock is the Service's clock: the background runs sleep on it, and
	// the catch-up of reads is throttled by it.
	Clock clock.Clock
	// OnDemand runs nothing in the background: every CatchUp runs what is
	// due (a clock a test moves).
	OnDemand bool
	// Process takes every step of a stored letter due up to now, its
	// account's time, in r. A letter it leaves due at now is held: the
	// batch ends the drain, and Check is given it.
	Process func(r *storage.Letter, now time.Time)
	// Check checks the letters held pending, outside the run's turn, notes
	// each in checked, and returns how many of them it moved.
	Check func(ctx context.Context, pending []Held, checked map[string]bool) int
	// Moved is told that a drain moved letters, and, OnDemand, that a
	// catch-up found the Service's clock moved since the last one: what
	// else falls due on the clock (a webhook's retry) may have.
	Moved func()
	// StoreErr is the error a run returns for a failure of the store.
	StoreErr func(err error) error
	// Logger is told of the failures of background runs.
	Logger *slog.Logger
}

// A Runner runs what is due, on demand and (unless OnDemand) in the
// background.
type Runner struct {
	cfg Config

	// runMu makes the runs of this process take turns, so a read that
	// catches up never returns while another run still holds letters that
	// are due.
	runMu   sync.Mutex
	lastRun atomic.Int64 // clock time of the latest run's start, UnixNano
	// seen is the Service's time the latest catch-up read, UnixNano,
	// OnDemand: a catch-up that reads another tells Moved.
	seen atomic.Int64
	// held are the letters the batch running left due; runMu guards it.
	held []Held

	// waker runs the background runs, told of every future due time this
	// process writes; nil when OnDemand.
	waker *waker.Waker
}

// New returns a Runner of cfg. Its background runs begin at Start.
func New(cfg Config) *Runner {
	r := &Runner{cfg: cfg}
	if !cfg.OnDemand {
		r.waker = waker.New(cfg.Clock, MaxSleep, func(ctx context.Context) {
			if _, err := r.Run(ctx); err != nil && ctx.Err() == nil {
				r.cfg.Logger.Error("lifecycle: run due letters", "err", err)
			}
		})
	}
	return r
}

// Start begins the background runs, the first at once; it does nothing
// when OnDemand. It is called once, before Stop.
func (r *Runner) Start() {
	if r.waker != nil {
		r.waker.Start()
	}
}

// Stop ends the background work and waits for it. It may be called more
// than once.
func (r *Runner) Stop() { r.waker.Stop() }

// NoteDue tells the background runs that a letter falls due at t.
func (r *Runner) NoteDue(t time.Time) { r.waker.Note(t) }

// CatchUp brings every letter of the account whose next step fell due up
// to now, so a read after a test clock moved sees every letter where it
// should be: an account on a clock of its own at its time, any other with
// every letter due on the Service's clock, of which it waits for the
// checks of its own account's letters alone. It reads the accounts' clocks
// from the store first (Clocks.Refresh), unless the operation it is part of
// has. On a real clock it runs at most once per CatchUpEvery. OnDemand,
// a catch-up that finds the Service's clock moved since the last one tells
// Moved, after its run: a test that moved its clock.Mock itself may have
// made other work due than letters' steps.
func (r *Runner) CatchUp(ctx context.Context, account string) error {
	clocks := r.cfg.Clocks
	if !r.cfg.OnDemand {
		last := r.lastRun.Load()
		if last != 0 && r.cfg.Clock.Now().UnixNano()-last < int64(CatchUpEvery) {
			return nil
		}
	} else {
		if !clocks.WasRead(ctx) {
			clocks.Refresh(ctx)
		}
		if now := clocks.ServerNow().UnixNano(); r.seen.Swap(now) != now && r.cfg.Moved != nil {
			defer r.cfg.Moved()
		}
	}
	if r.cfg.OnDemand && clocks.Apart() {
		if _, own := clocks.Lookup(account); own {
			_, err := r.RunAccount(ctx, account)
			return err
		}
	}
	// The read waits for the checks of its own account's letters alone:
	// another account's held letters (content at a host that does not
	// answer) are left to that account's reads and to the runs, and a
	// drain stopped at them is followed by one of the account's own.
	skipped := false
	_, err := r.runServer(ctx, func(pending []Held, checked map[string]bool) []Held {
		own := pending[:0:0]
		for _, h := range pending {
			if h.Account == account {
				own = append(own, h)
			} else {
				checked[h.ID], skipped = true, true
			}
		}
		return own
	})
	if err == nil && skipped {
		_, err = r.RunAccount(ctx, account)
	}
	return err
}

// Run processes every letter due, each at the time of its account's clock,
// and returns how many it moved.
func (r *Runner) Run(ctx context.Context) (int, error) {
	r.cfg.Clocks.Refresh(ctx)
	return r.RunServer(ctx)
}

// RunServer processes every letter due at the Service's clock's current
// time, each at its account's time: the store orders the letters by when
// they fall due on the Service's clock, each account's by its own clock
// (storage.DueQuery), so one walk of what is due finds them all. Frozen
// clocks stand still while the Service's moves: their accounts' letters
// are left to their own runs.
func (r *Runner) RunServer(ctx context.Context) (int, error) { return r.runServer(ctx, nil) }

// runServer is RunServer, checking of the letters held those that only
// returns, when only is not nil (it notes the others in checked).
func (r *Runner) runServer(ctx context.Context, only func(pending []Held, checked map[string]bool) []Held) (int, error) {
	return r.runChecked(ctx, only, func(checked map[string]bool) (int, []Held, error) {
		r.runMu.Lock()
		defer r.runMu.Unlock()
		now := r.cfg.Clocks.ServerNow()
		r.lastRun.Store(now.UnixNano())
		r.waker.Reached(now)
		return r.drain(ctx, storage.DueQuery{Now: now}, func(account string) time.Time { return r.cfg.Clocks.Time(account, now) }, checked)
	})
}

// RunAccount processes the account's letters due at the time of its clock.
func (r *Runner) RunAccount(ctx context.Context, account string) (int, error) {
	return r.runChecked(ctx, nil, func(checked map[string]bool) (int, []Held, error) {
		r.runMu.Lock()
		defer r.runMu.Unlock()
		now := r.cfg.Clocks.Now(account)
		return r.drain(ctx, storage.DueQuery{Now: now, Account: account}, func(string) time.Time { return now }, checked)
	})
}

// runChecked runs drain, which holds letters for their check, checking
// those it held after each drain (those only returns, when only is not
// nil), until a drain holds none it has not checked (fetchbatch.Rounds).
// It returns how many letters moved.
func (r *Runner) runChecked(ctx context.Context, only func(pending []Held, checked map[string]bool) []Held, drain func(checked map[string]bool) (int, []Held, error)) (int, error) {
	return fetchbatch.Rounds(drain, func(pending []Held, checked map[string]bool) int {
		if only != nil {
			if pending = only(pending, checked); len(pending) == 0 {
				return 0
			}
		}
		return r.cfg.Check(ctx, pending, checked)
	})
}

// drain processes the letters q selects, a batch at a time, until none is
// left due, and returns how many it moved. at is the time of a letter's
// account, which its steps are taken up to.
//
// A store hands out letters by its own clocks. A clock another Service
// moved since this one read the clocks can make a letter due by the
// store's reading and not by this Service's: such a letter is written
// back unchanged (which also sets its place in the store's order again),
// the clocks are read again, and a batch of nothing but such letters, read
// again, ends the run.
//
// A letter held for its check (one Process leaves due) is not one moved
// either; drain stops after a batch that held letters not yet checked, and
// returns them, for its caller to check outside the run's lock.
func (r *Runner) drain(ctx context.Context, q storage.DueQuery, at func(account string) time.Time, checked map[string]bool) (int, []Held, error) {
	q.Limit = Batch
	total, reread := 0, false
	for {
		early := 0
		n, err := r.cfg.Store.ProcessDueLetters(ctx, q, func(l *storage.Letter) error {
			t := at(l.Account)
			if l.DueAt.After(t) {
				early++
			}
			r.cfg.Process(l, t)
			if !l.DueAt.IsZero() && !l.DueAt.After(t) {
				r.held = append(r.held, Held{l.Account, l.ID})
			}
			return nil
		})
		held, pending := len(r.held), toCheck(r.held, checked)
		r.held = r.held[:0]
		total += n - min(early+held, n)
		if err != nil {
			return total, nil, r.cfg.StoreErr(err)
		}
		// Stop only when nothing moved: a short batch may have passed over
		// letters changed while it ran, which are due still.
		if n == 0 || len(pending) > 0 || n == early+held && (early == 0 || reread) {
			if total > 0 {
				r.cfg.Moved()
			}
			return total, pending, nil
		}
		reread = early > 0
		if reread {
			r.cfg.Clocks.Refresh(ctx)
		}
	}
}

// toCheck are the letters of held not yet checked.
func toCheck(held []Held, checked map[string]bool) []Held {
	return fetchbatch.Unchecked(held, checked, func(h Held) string { return h.ID })
}
