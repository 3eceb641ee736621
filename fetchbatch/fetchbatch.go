// Package fetchbatch fetches a set of URLs at once, fairly across their
// hosts: each URL once, a few at a time, never many from one host at a
// time, and a host that does not answer is not asked again in the same
// batch. It knows nothing of what it fetches or how: the caller gives the
// fetch, and says which of its errors mean the host is down.
//
// A batch is bounded in time by what the caller's fetch takes (its own
// timeout) and by Options.Budget: no fetch starts once the budget is
// spent, so a batch that meets many slow hosts ends at about the budget
// plus one fetch's time, leaving the URLs it did not reach for a later
// batch. Options.MaxBytes bounds what it holds the same way.
//
// Around a fetch of one URL it keeps the small helpers callers share:
// Limited bounds one fetch in time and size, NotFetched tells a fetch that
// did not happen from one that failed, Once fetches each URL once for a
// request tried again, and Answers serves a batch's results as a fetch.
// Rounds is the plan of a run that holds items for their fetches: drain,
// check what was held (Unchecked), drain again.
package fetchbatch

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	// DefaultLimit is how many fetches run at once.
	DefaultLimit = 8
	// DefaultPerHost is how many fetches of one host run at once.
	DefaultPerHost = 2
)

// ErrNotStarted is the error of a URL whose fetch did not start: the
// budget was spent, or the context ended, first.
var ErrNotStarted = errors.New("fetchbatch: not fetched in this batch")

// Func fetches one URL: its body and media type, or why it could not.
type Func func(ctx context.Context, url string) (body []byte, mediaType string, err error)

// Options bound a batch.
type Options struct {
	// Limit is how many fetches run at once; <= 0 is DefaultLimit.
	Limit int
	// PerHost is how many fetches of one host (and port) run at once;
	// <= 0 is DefaultPerHost.
	PerHost int
	// Budget, when above zero, is how long after the call a fetch may
	// still start.
	Budget time.Duration
	// MaxBytes, when above zero, is how many bytes of bodies the batch
	// may hold before no fetch starts: what a batch returns is held
	// whole until its caller is done with it, and bounding the fetches
	// alone bounds it only by how much its hosts send in the budget.
	MaxBytes int64
	// Down reports whether an error says the URL's host is down (no
	// answer, not found, no answer in time), rather than something about
	// the URL alone (a 404): the host's URLs not yet fetched then fail
	// with that error without being asked for. Nil: no error does.
	Down func(error) bool
}

// Result is what one URL gave.
type Result struct {
	Body      []byte
	MediaType string
	// Err is the fetch's error, the error of the host's earlier fetch
	// when the host was found down, or ErrNotStarted.
	Err error
}

// Fetch fetches each of urls once (a URL listed twice is fetched once)
// and returns what each gave. It returns when every fetch it started has
// ended. URLs of one host are fetched in the order given.
func Fetch(ctx context.Context, urls []string, fetch Func, o Options) map[string]Result {
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	if o.PerHost <= 0 {
		o.PerHost = DefaultPerHost
	}
	b := &batch{fetch: fetch, o: o, results: make(map[string]Result, len(urls)), busy: map[string]int{}, down: map[string]error{}}
	b.wake = sync.NewCond(&b.mu)
	for _, u := range urls {
		if _, seen := b.results[u]; seen {
			continue
		}
		b.results[u] = Result{Err: ErrNotStarted}
		b.queue = append(b.queue, job{url: u, host: hostOf(u)})
	}
	start := ctx
	if o.Budget > 0 {
		var cancel context.CancelFunc
		start, cancel = context.WithTimeout(ctx, o.Budget)
		defer cancel()
	}
	b.start = start
	// The budget ends by a timer, not by a finished fetch: workers
	// waiting for a host's turn must hear of it too.
	stop := context.AfterFunc(start, func() {
		b.mu.Lock()
		b.stopped = true
		b.mu.Unlock()
		b.wake.Broadcast()
	})
	defer stop()
	var wg sync.WaitGroup
	for range min(o.Limit, len(b.queue)) {
		wg.Go(func() { b.work(ctx) })
	}
	wg.Wait()
	return b.results
}

type job struct{ url, host string }

// batch is one call of Fetch.
type batch struct {
	fetch Func
	o     Options
	// start ends when no fetch may start any more.
	start context.Context

	mu      sync.Mutex
	wake    *sync.Cond
	queue   []job
	busy    map[string]int   // fetches running, by host
	down    map[string]error // hosts found down, with the error that said so
	stopped bool             // start ended, as a waiting worker hears
	held    int64            // bytes of the bodies in results
	results map[string]Result
}

// work takes jobs until none is left that may start.
func (b *batch) work(ctx context.Context) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		j, ok := b.next()
		if !ok {
			return
		}
		b.busy[j.host]++
		b.mu.Unlock()
		body, typ, err := b.fetch(ctx, j.url)
		b.mu.Lock()
		b.busy[j.host]--
		b.results[j.url] = Result{Body: body, MediaType: typ, Err: err}
		b.held += int64(len(body))
		if err != nil && b.o.Down != nil && b.o.Down(err) {
			if _, known := b.down[j.host]; !known {
				b.down[j.host] = err
			}
		}
		b.wake.Broadcast()
	}
}

// next takes the first job that may start, settling on the way the jobs
// of hosts found down; it waits while every job left is of a host at its
// limit, and reports false when none is left or none may start. b.mu is
// held.
func (b *batch) next() (job, bool) {
	for {
		if b.stopped || b.start.Err() != nil || b.o.MaxBytes > 0 && b.held >= b.o.MaxBytes {
			return job{}, false
		}
		for i := 0; i < len(b.queue); i++ {
			j := b.queue[i]
			if err, isDown := b.down[j.host]; isDown {
				b.results[j.url] = Result{Err: err}
				b.queue = slices.Delete(b.queue, i, i+1)
				i--
				continue
			}
			if b.busy[j.host] < b.o.PerHost {
				b.queue = slices.Delete(b.queue, i, i+1)
				return j, true
			}
		}
		if len(b.queue) == 0 {
			return job{}, false
		}
		b.wake.Wait()
	}
}

// hostOf is the host and port a URL is fetched from, as a key: a URL that
// does not parse is a host of its own.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return strings.ToLower(u.Host)
}
