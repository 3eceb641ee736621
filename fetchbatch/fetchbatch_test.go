package fetchbatch_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/fetchbatch"
)

var errDown = errors.New("no answer")

// recorder is a fetch that answers from a table, counting what it was
// asked and how many fetches of each host ran at once.
type recorder struct {
	mu      sync.Mutex
	asked   []string
	running map[string]int
	most    map[string]int
	total   int
	mostAll int
	// gate, when set, holds every fetch until it is closed.
	gate chan struct{}
	// started is told of each fetch as it starts.
	started chan string
	answer  func(url string) ([]byte, string, error)
}

func newRecorder(answer func(string) ([]byte, string, error)) *recorder {
	return &recorder{running: map[string]int{}, most: map[string]int{}, answer: answer}
}

func (r *recorder) fetch(ctx context.Context, url string) ([]byte, string, error) {
	host := url[:len("http://h0")]
	r.mu.Lock()
	r.asked = append(r.asked, url)
	r.running[host]++
	r.total++
	r.most[host] = max(r.most[host], r.running[host])
	r.mostAll = max(r.mostAll, r.total)
	r.mu.Unlock()
	if r.started != nil {
		r.started <- url
	}
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	r.running[host]--
	r.total--
	r.mu.Unlock()
	return r.answer(url)
}

func ok(url string) ([]byte, string, error) { return []byte("body of " + url), "text/html", nil }

func TestEachURLOnce(t *testing.T) {
	r := newRecorder(ok)
	urls := []string{"http://h1/a", "http://h2/b", "http://h1/a", "http://h1/c"}
	got := fetchbatch.Fetch(context.Background(), urls, r.fetch, fetchbatch.Options{})
	want := map[string]fetchbatch.Result{
		"http://h1/a": {Body: []byte("body of http://h1/a"), MediaType: "text/html"},
		"http://h2/b": {Body: []byte("body of http://h2/b"), MediaType: "text/html"},
		"http://h1/c": {Body: []byte("body of http://h1/c"), MediaType: "text/html"},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	slices.Sort(r.asked)
	if diff := gocmp.Diff([]string{"http://h1/a", "http://h1/c", "http://h2/b"}, r.asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	if got := fetchbatch.Fetch(context.Background(), nil, r.fetch, fetchbatch.Options{}); len(got) != 0 {
		t.Errorf("no urls: %v", got)
	}
}

// Fetches run at most Limit at once, and at most PerHost of one host:
// with every fetch held, the batch starts exactly that many.
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name            string
		o               fetchbatch.Options
		hosts, perHost  int
		wantAll, wantPH int
	}{
		{"defaults, one host", fetchbatch.Options{}, 1, 10, fetchbatch.DefaultPerHost, fetchbatch.DefaultPerHost},
		{"defaults, many hosts", fetchbatch.Options{}, 9, 3, fetchbatch.DefaultLimit, 1},
		{"limit 3", fetchbatch.Options{Limit: 3, PerHost: 5}, 2, 5, 3, 2},
		{"per host 3", fetchbatch.Options{Limit: 8, PerHost: 3}, 2, 5, 6, 3},
		{"per host 1", fetchbatch.Options{Limit: 4, PerHost: 1}, 3, 4, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder(ok)
			r.gate = make(chan struct{})
			r.started = make(chan string)
			var urls []string
			for i := range tc.perHost {
				for h := range tc.hosts {
					urls = append(urls, fmt.Sprintf("http://h%d/%d", h, i))
				}
			}
			done := make(chan map[string]fetchbatch.Result)
			go func() { done <- fetchbatch.Fetch(context.Background(), urls, r.fetch, tc.o) }()
			// The fetches that can start do; then none more until one ends.
			for range tc.wantAll {
				<-r.started
			}
			r.mu.Lock()
			running, most := r.total, 0
			for _, n := range r.most {
				most = max(most, n)
			}
			r.mu.Unlock()
			if running != tc.wantAll || most != tc.wantPH {
				t.Errorf("running %d, at most %d of a host; want %d and %d", running, most, tc.wantAll, tc.wantPH)
			}
			close(r.gate)
			go func() {
				for range r.started {
				}
			}()
			res := <-done
			close(r.started)
			if len(res) != len(urls) {
				t.Fatalf("%d results for %d urls", len(res), len(urls))
			}
			for u, x := range res {
				if x.Err != nil {
					t.Errorf("%s: %v", u, x.Err)
				}
			}
			limit, perHost := cmp.Or(tc.o.Limit, fetchbatch.DefaultLimit), cmp.Or(tc.o.PerHost, fetchbatch.DefaultPerHost)
			if r.mostAll > limit {
				t.Errorf("%d ran at once, want at most %d", r.mostAll, limit)
			}
			for h, n := range r.most {
				if n > perHost {
					t.Errorf("%d of %s ran at once, want at most %d", n, h, perHost)
				}
			}
		})
	}
}

// A host found down is not asked again: its URLs not yet fetched fail
// with the error that said so. An error about one URL only (a 404) does
// not stop the others of its host.
func TestHostDown(t *testing.T) {
	errMissing := errors.New("404")
	r := newRecorder(func(url string) ([]byte, string, error) {
		switch url[:len("http://h0")] {
		case "http://h1":
			return nil, "", errDown
		case "http://h2":
			return nil, "", errMissing
		}
		return ok(url)
	})
	var urls []string
	for i := range 6 {
		urls = append(urls, fmt.Sprintf("http://h1/%d", i), fmt.Sprintf("http://h2/%d", i), fmt.Sprintf("http://h3/%d", i))
	}
	res := fetchbatch.Fetch(context.Background(), urls, r.fetch, fetchbatch.Options{
		PerHost: 1, Down: func(err error) bool { return errors.Is(err, errDown) },
	})
	var h1, h2 int
	for _, u := range r.asked {
		switch u[:len("http://h0")] {
		case "http://h1":
			h1++
		case "http://h2":
			h2++
		}
	}
	if h1 != 1 || h2 != 6 {
		t.Errorf("asked h1 %d times and h2 %d times, want once and 6 times", h1, h2)
	}
	for _, u := range urls {
		var want error
		switch u[:len("http://h0")] {
		case "http://h1":
			want = errDown
		case "http://h2":
			want = errMissing
		}
		if got := res[u].Err; !errors.Is(got, want) && !(got == nil && want == nil) {
			t.Errorf("%s: %v, want %v", u, got, want)
		}
	}
}

// Once the context ends (as when the budget is spent), no fetch starts:
// the URLs not reached are ErrNotStarted, the fetches running finish.
func TestNoStartAfterTheEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := newRecorder(func(url string) ([]byte, string, error) {
		if url == "http://h1/0" {
			cancel()
		}
		return ok(url)
	})
	urls := []string{"http://h1/0", "http://h1/1", "http://h2/0"}
	res := fetchbatch.Fetch(ctx, urls, r.fetch, fetchbatch.Options{Limit: 1})
	if res["http://h1/0"].Err != nil {
		t.Errorf("the fetch that ran: %v", res["http://h1/0"].Err)
	}
	for _, u := range urls[1:] {
		if !errors.Is(res[u].Err, fetchbatch.ErrNotStarted) {
			t.Errorf("%s: %v, want ErrNotStarted", u, res[u].Err)
		}
	}

	r = newRecorder(ok)
	res = fetchbatch.Fetch(ctx, urls, r.fetch, fetchbatch.Options{})
	if len(r.asked) != 0 || !errors.Is(res["http://h2/0"].Err, fetchbatch.ErrNotStarted) {
		t.Errorf("with the context ended: asked %v, results %v", r.asked, res)
	}
}

// The budget bounds when a fetch may start, not how long one runs: a
// fetch running when it is spent finishes, with its context still live,
// and the URLs after it are ErrNotStarted; with budget left, every URL
// is fetched.
func TestBudget(t *testing.T) {
	urls := []string{"http://h1/0", "http://h1/1", "http://h2/0"}
	const budget = 20 * time.Millisecond
	var liveAfterBudget bool
	r := newRecorder(func(url string) ([]byte, string, error) { return ok(url) })
	slow := func(ctx context.Context, url string) ([]byte, string, error) {
		if url == "http://h1/0" {
			time.Sleep(5 * budget) // the budget is spent while this runs
			liveAfterBudget = ctx.Err() == nil
		}
		return r.fetch(ctx, url)
	}
	res := fetchbatch.Fetch(context.Background(), urls, slow, fetchbatch.Options{Limit: 1, Budget: budget})
	if res["http://h1/0"].Err != nil || !liveAfterBudget {
		t.Errorf("the fetch running when the budget was spent: %v, its context live: %v", res["http://h1/0"].Err, liveAfterBudget)
	}
	for _, u := range urls[1:] {
		if !errors.Is(res[u].Err, fetchbatch.ErrNotStarted) {
			t.Errorf("%s after the budget: %v, want ErrNotStarted", u, res[u].Err)
		}
	}

	r = newRecorder(ok)
	res = fetchbatch.Fetch(context.Background(), urls, r.fetch, fetchbatch.Options{Limit: 1, Budget: time.Hour})
	for _, u := range urls {
		if res[u].Err != nil {
			t.Errorf("%s within the budget: %v", u, res[u].Err)
		}
	}
}

// TestMaxBytes: once the bodies fetched come to MaxBytes no fetch starts,
// as once the budget is spent; those running end.
func TestMaxBytes(t *testing.T) {
	urls := []string{"http://h1/0", "http://h2/0", "http://h3/0", "http://h4/0"}
	tenBytes := func(ctx context.Context, url string) ([]byte, string, error) {
		return make([]byte, 10), "text/plain", nil
	}
	res := fetchbatch.Fetch(context.Background(), urls, tenBytes, fetchbatch.Options{Limit: 1, MaxBytes: 20})
	for i, u := range urls {
		if want := i < 2; (res[u].Err == nil) != want {
			t.Errorf("%s: %v, fetched %v, want %v", u, res[u].Err, res[u].Err == nil, want)
		}
		if i >= 2 && !errors.Is(res[u].Err, fetchbatch.ErrNotStarted) {
			t.Errorf("%s past the bytes: %v, want ErrNotStarted", u, res[u].Err)
		}
	}
	res = fetchbatch.Fetch(context.Background(), urls, tenBytes, fetchbatch.Options{Limit: 1, MaxBytes: 40})
	for _, u := range urls {
		if res[u].Err != nil {
			t.Errorf("%s within the bytes: %v", u, res[u].Err)
		}
	}
}
