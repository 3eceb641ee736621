package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/httpadapter"
)

// keysOf returns the idempotency keys of the attempts.
func keysOf(as []attempt) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.IdempotencyKey)
	}
	return out
}

func statusesOf(as []attempt) []int {
	var out []int
	for _, a := range as {
		out = append(out, a.Status)
	}
	return out
}

func TestRetryServerErrors(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 2, problem(http.StatusServiceUnavailable, "internal"))))
	w := newWaits()
	c := newClient(s, w)

	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"})
	if err != nil {
		t.Fatalf("CreateAsset after two 503s: %v", err)
	}
	seen := rec.all()
	if diff := cmp.Diff([]int{503, 503, 201}, statusesOf(seen)); diff != "" {
		t.Fatalf("attempts (-want +got):\n%s", diff)
	}
	if k := keysOf(seen); k[0] == "" || k[0] != k[1] || k[1] != k[2] {
		t.Errorf("idempotency keys %q: want one key on every attempt", k)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, w.all()); diff != "" {
		t.Errorf("backoff waits (-want +got):\n%s", diff)
	}
	if a.Name != "Welcome" {
		t.Errorf("asset %+v", a)
	}
}

func TestRetryUsesUpItsRetries(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 100, problem(http.StatusInternalServerError, "internal"))))
	w := newWaits()
	c := newClient(s, w, client.WithMaxRetries(3), client.WithBackoff(time.Second, 3*time.Second))

	_, err := c.GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
	if !errors.Is(err, client.ErrServer) {
		t.Fatalf("err %v, want ErrServer", err)
	}
	if n := len(rec.all()); n != 4 {
		t.Errorf("%d attempts, want 1 and 3 retries", n)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, w.all()); diff != "" {
		t.Errorf("waits, doubling up to the maximum (-want +got):\n%s", diff)
	}
}

// TestRetryAfterDroppedConnection: the server does the write, then the
// connection drops before the answer. The retry carries the same key, so the
// server answers from its record and the letter is made once.
func TestRetryAfterDroppedConnection(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 1, dropAfterWrite)))
	w := newWaits()
	c := newClient(s, w)
	svcCtx := context.Background()
	asset, err := s.Svc.CreateAsset(svcCtx, s.Account, lettershop.CreateAssetInput{Name: "Welcome"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Svc.CreateVersion(svcCtx, s.Account, asset.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: "text/html", Content: template},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired}},
		Publish:             true,
	})
	if err != nil {
		t.Fatal(err)
	}

	l, err := c.CreateLetter(ctx, letterRequest(asset.ID))
	if err != nil {
		t.Fatalf("CreateLetter: %v", err)
	}
	seen := rec.all()
	if len(seen) < 2 {
		t.Fatalf("attempts %+v: want the dropped one and a retry", seen)
	}
	last := seen[len(seen)-1]
	if last.Status != http.StatusCreated || !last.Replayed || last.IdempotencyKey != seen[0].IdempotencyKey {
		t.Errorf("the retry %+v: want 201 replayed under the first key %q", last, seen[0].IdempotencyKey)
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, w.all()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	page, err := s.Svc.ListLetters(svcCtx, s.Account, lettershop.ListLettersInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].ID != l.ID {
		t.Errorf("letters in the account: %d, want only %s", len(page.Items), l.ID)
	}
}

func TestRetryInFlight(t *testing.T) {
	for name, answer := range map[string]func(int, string) func(http.ResponseWriter, *http.Request, http.Handler){
		"code": problem, "type of an older server": olderProblem,
	} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			s := newServer(t, wrapped(failing(rec, 1, answer(http.StatusConflict, "request-in-flight"))))
			c := newClient(s, newWaits())
			if _, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"}); err != nil {
				t.Fatalf("CreateAsset after a 409 in flight: %v", err)
			}
			if diff := cmp.Diff([]int{409, 201}, statusesOf(rec.all())); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
		})
	}
	// A conflict of state is not retried, whichever way it is written.
	for _, answer := range []func(int, string) func(http.ResponseWriter, *http.Request, http.Handler){problem, olderProblem} {
		rec := &recorder{}
		s := newServer(t, wrapped(failing(rec, 1, answer(http.StatusConflict, "conflict"))))
		_, err := newClient(s, newWaits()).CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != "conflict" || len(rec.all()) != 1 {
			t.Errorf("a 409 conflict: %v after %d attempts, want one attempt and the error", err, len(rec.all()))
		}
	}
}

// TestRetryRateLimitedOnEitherHeader waits until X-Rate-Limit-Reset, or
// P-RateLimit-Reset when that is all a server sends.
func TestRetryRateLimitedOnEitherHeader(t *testing.T) {
	for _, header := range []string{"X-Rate-Limit-Reset", "P-RateLimit-Reset"} {
		t.Run(header, func(t *testing.T) {
			w := newWaits()
			rec := &recorder{}
			s := newServer(t, wrapped(failing(rec, 1, func(rw http.ResponseWriter, r *http.Request, next http.Handler) {
				rw.Header()[header] = []string{w.clock().Add(7 * time.Second).UTC().Format(time.RFC3339)}
				problem(http.StatusTooManyRequests, "rate-limited")(rw, r, next)
			})))
			if _, err := newClient(s, w).GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz"); !errors.Is(err, client.ErrNotFound) {
				t.Fatalf("after the wait: %v, want the server's own answer", err)
			}
			if diff := cmp.Diff([]time.Duration{7 * time.Second}, w.all()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryRateLimited runs against the server's own rate limiter, on a
// clock that the client's waits move: the client waits Retry-After, until
// the bucket holds a request again (not until it is full, which
// X-Rate-Limit-Reset says).
func TestRetryRateLimited(t *testing.T) {
	w := newWaits()
	rateClock := clock.NewMock()
	rateClock.Set(w.clock())
	w.onSleep = rateClock.Add
	rec := &recorder{}
	s := newServer(t,
		withAdapter(httpadapter.WithRateLimit(2, 10*time.Second), httpadapter.WithRateLimitClock(rateClock)),
		wrapped(failing(rec, 0, nil)))
	c := newClient(s, w)

	for i := range 3 {
		if _, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"}); err != nil {
			t.Fatalf("CreateAsset %d: %v", i, err)
		}
	}
	if diff := cmp.Diff([]int{201, 201, 429, 201}, statusesOf(rec.all())); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	// A bucket of 2 refilled over 10s: a request's worth in 5s.
	if diff := cmp.Diff([]time.Duration{5 * time.Second}, w.all()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestNoRetryOnClientErrors(t *testing.T) {
	for _, c := range []struct {
		status int
		typ    string
		class  error
	}{
		{400, "invalid-request", client.ErrInvalid},
		{401, "unauthorized", client.ErrUnauthorized},
		{403, "forbidden", client.ErrForbidden},
		{404, "not-found", client.ErrNotFound},
		{409, "conflict", client.ErrConflict},
		{413, "body-too-large", client.ErrTooLarge},
		{422, "idempotency-key-reused", client.ErrIdempotencyKeyReused},
	} {
		rec := &recorder{}
		s := newServer(t, wrapped(failing(rec, 1, problem(c.status, c.typ))))
		w := newWaits()
		_, err := newClient(s, w).CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"})
		if !errors.Is(err, c.class) {
			t.Errorf("%d: err %v, want %v", c.status, err, c.class)
		}
		if n := len(rec.all()); n != 1 || len(w.all()) != 0 {
			t.Errorf("%d: %d attempts and waits %v, want 1 attempt and no wait", c.status, n, w.all())
		}
	}
}

// TestTestRoutesNotRetried: moving the clock is not idempotent, so a 5xx
// is not retried (a 429 would be: nothing was done).
func TestTestRoutesNotRetried(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 1, problem(http.StatusBadGateway, "internal"))))
	c := newClient(s, newWaits())
	if _, err := c.Test.Advance(ctx, time.Hour); !errors.Is(err, client.ErrServer) {
		t.Fatalf("err %v, want ErrServer", err)
	}
	if n := len(rec.all()); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

// TestDeadline: retries stop when the next wait would end after the
// context's deadline, and the last error is returned.
func TestDeadline(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 100, problem(http.StatusServiceUnavailable, "internal"))))
	w := newWaits()
	c := newClient(s, w, client.WithMaxRetries(100))
	dctx, cancel := context.WithDeadline(ctx, w.clock().Add(10*time.Second))
	defer cancel()

	_, err := c.CreateAsset(dctx, &client.CreateAssetRequest{Name: "Welcome"})
	if !errors.Is(err, client.ErrServer) {
		t.Fatalf("err %v, want the last answer, ErrServer", err)
	}
	// Waits of 1s, 2s and 4s fit in 10s; 8s more would not.
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, w.all()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if n := len(rec.all()); n != 4 {
		t.Errorf("%d attempts, want 4", n)
	}
}

// TestCanceledWhileWaiting: a context canceled during a wait ends the call
// with the context's error.
func TestCanceledWhileWaiting(t *testing.T) {
	s := newServer(t, wrapped(failing(&recorder{}, 100, problem(http.StatusServiceUnavailable, "internal"))))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := client.New(s.URL, testKey, client.WithSleep(func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}))
	_, err := c.GetAsset(cctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// TestDeadlineOfAHangingServer: a server that never answers is given up
// on at the context's deadline.
func TestDeadlineOfAHangingServer(t *testing.T) {
	s := newServer(t, wrapped(func(http.Handler) http.Handler {
		return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	}))
	dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err := client.New(s.URL, testKey).GetLetter(dctx, "ltr_01kjqh0cc0abyzr1s1gch2evrn")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want context.DeadlineExceeded", err)
	}
}

func TestRetryInFlightAfterRetryAfter(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 1, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		w.Header().Set("Retry-After", "3")
		problem(http.StatusConflict, "request-in-flight")(w, r, next)
	})))
	w := newWaits()
	if _, err := newClient(s, w).CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second}, w.all()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestRetryAfterBeforeReset: a 429 with both waits Retry-After, which
// holds on any clock; a reset instant is on the server's clock, which a
// server on a test clock may have days away from the client's.
func TestRetryAfterBeforeReset(t *testing.T) {
	w := newWaits()
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 1, func(rw http.ResponseWriter, r *http.Request, next http.Handler) {
		rw.Header().Set("X-Rate-Limit-Reset", w.clock().Add(24*time.Hour).UTC().Format(time.RFC3339))
		rw.Header().Set("Retry-After", "2")
		problem(http.StatusTooManyRequests, "rate-limited")(rw, r, next)
	})))
	if _, err := newClient(s, w).GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("after the wait: %v, want the server's own answer", err)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, w.all()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestVirtualClock: waits go to the virtual clock's advance, are read
// against its time, and are begun whatever the context's deadline, since
// they take no real time.
func TestVirtualClock(t *testing.T) {
	rec := &recorder{}
	virtual := testStart.Add(24 * time.Hour)
	var mu sync.Mutex
	var advanced []time.Duration
	s := newServer(t, wrapped(failing(rec, 2, func(rw http.ResponseWriter, r *http.Request, next http.Handler) {
		mu.Lock()
		rw.Header().Set("X-Rate-Limit-Reset", virtual.Add(30*time.Second).UTC().Format(time.RFC3339))
		mu.Unlock()
		problem(http.StatusTooManyRequests, "rate-limited")(rw, r, next)
	})))
	c := client.New(s.URL, testKey, client.WithVirtualClock(
		func() time.Time { mu.Lock(); defer mu.Unlock(); return virtual },
		func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			advanced = append(advanced, d)
			virtual = virtual.Add(d)
			return ctx.Err()
		}))
	// A deadline 10s away: a real wait of 30s would not be begun.
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.GetAsset(dctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("after the waits: %v, want the server's own answer", err)
	}
	if diff := cmp.Diff([]time.Duration{30 * time.Second, 30 * time.Second}, advanced); diff != "" {
		t.Errorf("virtual waits (-want +got):\n%s", diff)
	}
	if n := len(rec.all()); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}

// TestWithTestClock: against a lettershop server on a test clock, a wait
// moves the key's account's clock through the test routes.
func TestWithTestClock(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(func(next http.Handler) http.Handler {
		f := failing(rec, 1, problem(http.StatusServiceUnavailable, "internal"))(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/_test/") {
				next.ServeHTTP(w, r)
				return
			}
			f.ServeHTTP(w, r)
		})
	}))
	c := client.New(s.URL, testKey, client.WithTestClock(), client.WithBackoff(time.Hour, time.Hour),
		client.WithJitter(func(d time.Duration) time.Duration { return d }))
	if _, err := c.GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("after the wait: %v, want the server's own answer", err)
	}
	if got, want := s.Svc.AccountNow(s.Account), testStart.Add(time.Hour); !got.Equal(want) {
		t.Errorf("the account's clock is at %s after a wait of an hour, want %s", got, want)
	}
	if now := s.Svc.Now(); !now.Equal(testStart) {
		t.Errorf("the server's clock moved to %s; only the account's should", now)
	}
}

// rateLimitedClock is a server on a test clock whose API routes answer 429
// with apiHeader, and whose clock routes answer 429 (Retry-After: 1) where
// limited says so; it counts the requests to each path. A clock route
// asked more than 20 times answers 404, so that a client that nests its
// waits' requests stops.
type rateLimitedClock struct {
	mu     sync.Mutex
	counts map[string]int
}

func (s *rateLimitedClock) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

func newRateLimitedClock(t *testing.T, apiHeader http.Header, limited func(path string) bool) (*rateLimitedClock, string) {
	s := &rateLimitedClock{counts: map[string]int{}}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.counts[r.URL.Path]++
		n := s.counts[r.URL.Path]
		s.mu.Unlock()
		if !strings.HasPrefix(r.URL.Path, "/_test/") {
			for k, v := range apiHeader {
				w.Header()[k] = v
			}
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		if n > 20 {
			http.NotFound(w, r)
			return
		}
		if limited(r.URL.Path) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"now":%q}`, testStart.Format(time.RFC3339))
	}))
	t.Cleanup(hs.Close)
	return s, hs.URL + "/v1"
}

// TestWithTestClockRateLimited: the test clock's own requests for a wait
// are attempted once, not retried with a wait on the same clock, which
// would nest one request deeper on each 429 without end; an advance
// refused with a 429 is waited out in real time.
func TestWithTestClockRateLimited(t *testing.T) {
	const asset = "/v1/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz"
	t.Run("advance", func(t *testing.T) {
		s, base := newRateLimitedClock(t, http.Header{"Retry-After": {"1"}},
			func(string) bool { return true })
		c := client.New(base, testKey, client.WithTestClock(), client.WithMaxRetries(1))
		_, err := c.GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusTooManyRequests {
			t.Errorf("got %v, want the asset's 429", err)
		}
		if n := s.count(asset); n != 2 {
			t.Errorf("%d requests of the asset, want 2: the wait, its advance refused, made in real time", n)
		}
		if n := s.count("/_test/clock/advance"); n != 1 {
			t.Errorf("%d requests to advance the clock, want 1", n)
		}
	})

	t.Run("now", func(t *testing.T) {
		reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		s, base := newRateLimitedClock(t, http.Header{"X-Rate-Limit-Reset": {reset}},
			func(path string) bool { return path == "/_test/clock" })
		c := client.New(base, testKey, client.WithTestClock())
		_, err := c.GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("got %v, want the asset's 429", err)
		}
		// Four attempts of the asset, each 429 reading the clock once (a
		// 429 there reads the wall clock instead), and three waits between.
		for path, want := range map[string]int{asset: 4, "/_test/clock": 4, "/_test/clock/advance": 3} {
			if n := s.count(path); n != want {
				t.Errorf("%d requests of %s, want %d", n, path, want)
			}
		}
	})
}

// TestChosenKeysAndUserAgent: a write given no key takes one from
// WithIdempotencyKeys, the same on every attempt, and every request carries
// WithUserAgent's User-Agent; without the options, a random key and the
// client's own User-Agent.
func TestChosenKeysAndUserAgent(t *testing.T) {
	type seen struct{ key, agent string }
	var mu sync.Mutex
	var got []seen
	s := newServer(t, wrapped(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, seen{r.Header.Get("Idempotency-Key"), r.Header.Get("User-Agent")})
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}))
	take := func() []seen {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
	n := 0
	c := newClient(s, newWaits(), client.WithUserAgent("letters-app/2.1"),
		client.WithIdempotencyKeys(func() string { n++; return fmt.Sprintf("app-key-%d", n) }))
	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetAsset(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Reminder"}); err != nil {
		t.Fatal(err)
	}
	want := []seen{{"app-key-1", "letters-app/2.1"}, {"", "letters-app/2.1"}, {"app-key-2", "letters-app/2.1"}}
	if diff := cmp.Diff(want, take(), cmp.AllowUnexported(seen{})); diff != "" {
		t.Errorf("requests with the options (-want +got):\n%s", diff)
	}

	plain := newClient(s, newWaits())
	if _, err := plain.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Plain"}); err != nil {
		t.Fatal(err)
	}
	g := take()
	if len(g) != 1 || len(g[0].key) != 32 || !strings.HasPrefix(g[0].agent, "lettershop-go-client/") {
		t.Errorf("requests without the options: %+v; want a 32-digit key and the client's own User-Agent", g)
	}
}

// TestRetryServerErrorAfterRetryAfter: a 503 that says when to come back
// (as a server at its connection limit does) is retried after its
// Retry-After, not after the shorter backoff; a 5xx without it after the
// backoff.
func TestRetryServerErrorAfterRetryAfter(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 2, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if len(rec.all()) == 0 {
			w.Header().Set("Retry-After", "7")
		}
		problem(http.StatusServiceUnavailable, "too-many-connections")(w, r, next)
	})))
	w := newWaits()
	if _, err := newClient(s, w).CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second, 2 * time.Second}, w.all()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestErrorRetryAfter: an error that outlasted the retries carries its
// answer's Retry-After, for a caller that schedules the call again.
func TestErrorRetryAfter(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 10, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		w.Header().Set("Retry-After", "30")
		problem(http.StatusTooManyRequests, "rate-limited")(w, r, next)
	})))
	w := newWaits()
	_, err := newClient(s, w, client.WithMaxRetries(1)).GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
	var e *client.Error
	if !errors.As(err, &e) || !errors.Is(err, client.ErrRateLimited) {
		t.Fatalf("err %v, want a 429 *client.Error", err)
	}
	if e.RetryAfter != 30*time.Second {
		t.Errorf("RetryAfter %v, want 30s", e.RetryAfter)
	}
	_, err = newClient(s, w, client.WithMaxRetries(0)).GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
	if e = nil; !errors.As(err, &e) || e.RetryAfter != 30*time.Second {
		t.Errorf("without retries: %v, want a *client.Error with RetryAfter 30s", err)
	}
}

// TestRetryAfterAsADate: Retry-After may be an HTTP date (RFC 9110); the
// wait is from the client's clock to it, and an error that outlasted the
// retries carries it so.
func TestRetryAfterAsADate(t *testing.T) {
	w := newWaits()
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 2, func(rw http.ResponseWriter, r *http.Request, next http.Handler) {
		rw.Header().Set("Retry-After", w.clock().Add(5*time.Second).UTC().Format(http.TimeFormat))
		problem(http.StatusServiceUnavailable, "unavailable")(rw, r, next)
	})))
	_, err := newClient(s, w, client.WithMaxRetries(1)).GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("err %v, want the second 503", err)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second}, w.all()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if e.RetryAfter != 5*time.Second {
		t.Errorf("RetryAfter %v, want 5s", e.RetryAfter)
	}
}

// TestWithTestClockWallRateLimit: a lettershop server run with
// --test-clock keeps rate limits on the wall clock. When the key's bucket
// is empty, the advance a wait on the test clock asks for is refused with
// the same 429, and moving the test clock would not refill the bucket
// anyway: the wait is then made in real time, and the call goes on.
func TestWithTestClockWallRateLimit(t *testing.T) {
	var mu sync.Mutex
	counts := map[string]int{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		counts[r.URL.Path]++
		n := counts[r.URL.Path]
		mu.Unlock()
		switch {
		case r.URL.Path == "/_test/clock":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"now":%q}`, testStart.Format(time.RFC3339))
		case r.URL.Path == "/_test/clock/advance" || n == 1:
			w.Header().Set("Retry-After", "1")
			problem(http.StatusTooManyRequests, "rate-limited")(w, r, nil)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"ast_01kjqh0cc0abyzr1s1g9jmy5hz","name":"Welcome"}`)
		}
	}))
	t.Cleanup(hs.Close)
	c := client.New(hs.URL+"/v1", testKey, client.WithTestClock())
	a, err := c.GetAsset(ctx, "ast_01kjqh0cc0abyzr1s1g9jmy5hz")
	if err != nil || a.Name != "Welcome" {
		t.Fatalf("GetAsset after a 429 of the key's wall-clock limit: %+v, %v", a, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := counts["/v1/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz"]; n != 2 {
		t.Errorf("%d requests of the asset, want 2", n)
	}
	if n := counts["/_test/clock/advance"]; n != 1 {
		t.Errorf("%d requests to advance the clock, want 1 (attempted once)", n)
	}
}
