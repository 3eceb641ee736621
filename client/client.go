package client

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// APIVersion is the interface version the client speaks; it is sent as
// X-Api-Version on every request.
const APIVersion = "2024-07-30"

// Defaults of the retry policy.
const (
	DefaultMaxRetries = 3
	DefaultMinBackoff = 500 * time.Millisecond
	DefaultMaxBackoff = 20 * time.Second
)

// Client calls the API at one base URL with one API key. It is safe for
// concurrent use.
type Client struct {
	// Test calls the test routes of a lettershop server run with a test
	// clock (lettershop --test-clock).
	Test *TestClient

	base       string
	apiKey     string
	hc         *http.Client
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	sleep      func(context.Context, time.Duration) error
	// now reads the client's clock; ctx is the call's, for a clock read
	// over the network (WithTestClock).
	now func(ctx context.Context) time.Time
	// virtual: sleep moves a clock of the client's own (WithVirtualClock)
	// and takes no real time, so a context's deadline does not bound it.
	virtual   bool
	jitter    func(time.Duration) time.Duration
	newKey    func() string
	userAgent string
	// clock calls the test clock's routes for the client's waits. Its
	// client attempts each request once and waits on the wall clock, so
	// that a wait's request is not itself retried and waited on the test
	// clock, one level deeper on each 429.
	clock *TestClient
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests through hc (its transport, timeouts,
// cookies). The client never follows redirects itself, whatever hc's
// CheckRedirect: Download follows the one redirect it expects without the
// API key.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithMaxRetries sets how many times a request is attempted again after
// its first attempt: 0 turns retries off. The default is DefaultMaxRetries.
func WithMaxRetries(n int) Option {
	return func(c *Client) { c.maxRetries = max(n, 0) }
}

// WithBackoff sets the wait before the first retry (doubled on each retry
// after it) and the longest wait. The defaults are DefaultMinBackoff and
// DefaultMaxBackoff.
func WithBackoff(minWait, maxWait time.Duration) Option {
	return func(c *Client) { c.minBackoff, c.maxBackoff = minWait, max(minWait, maxWait) }
}

// WithSleep replaces how the client waits between attempts. sleep must
// return early with ctx.Err() when ctx is done. Tests pass one that
// records the wait and returns at once.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.sleep = sleep }
}

// WithClock replaces time.Now where the client reads the time: to wait
// until X-Rate-Limit-Reset (when a 429 carries no Retry-After), and to
// judge whether a wait ends before the context's deadline. For a clock
// that waits move, and that real time does not, use WithVirtualClock.
func WithClock(now func() time.Time) Option {
	return func(c *Client) { c.now = func(context.Context) time.Time { return now() } }
}

// WithVirtualClock makes the client keep time on a clock that is not the
// wall's: it reads the time with now (to wait until X-Rate-Limit-Reset),
// and waits between attempts by calling advance, which moves that clock on
// by d and returns. Such a wait takes no real time, so a context's
// deadline does not stop it being begun. A test of code that uses the
// client passes the virtual clock of the server it tests against: its
// retries then run at once, and the server's time moves as far as they
// waited. WithTestClock does it for a lettershop server's test clock.
// A wait after a 409 request-in-flight is the exception: it is in real
// time (the backoff, at most the Retry-After), as the request holding the
// key runs in real time under a lease on the server's clock, which moving
// that clock would end, letting the retry do the write again.
func WithVirtualClock(now func() time.Time, advance func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) {
		c.now = func(context.Context) time.Time { return now() }
		c.sleep, c.virtual = advance, true
	}
}

// WithTestClock makes the client's retries wait on the API key's account's
// clock of a lettershop server run with a test clock (lettershop
// --test-clock): a wait of d is POST /_test/clock/advance by d, and the
// time the client reads is GET /_test/clock, so a retry after a 429 or a
// 5xx costs no real time, and the account's letters move on as far as the
// wait (a wait for a request in flight is in real time, as under
// WithVirtualClock). A failure to read the clock reads the wall clock's
// time instead. The requests made for a wait are attempted once: a wait
// that fails fails the call, but for a 429, the key's rate limit, which a
// --test-clock server keeps on the wall clock and moving the test clock
// does not refill: that wait is made in real time instead. (In Go tests,
// lettershoptest's Account.Client does the same without the round trips.)
func WithTestClock() Option {
	return func(c *Client) {
		c.virtual = true
		c.now = func(ctx context.Context) time.Time {
			if t, err := c.clock.Now(ctx); err == nil {
				return t
			}
			return time.Now()
		}
		c.sleep = func(ctx context.Context, d time.Duration) error {
			if d <= 0 {
				return ctx.Err()
			}
			_, err := c.clock.Advance(ctx, d)
			if errors.Is(err, ErrRateLimited) {
				// The key's rate limit, which the server keeps on the
				// wall clock: moving the test clock would not refill it.
				return sleepContext(ctx, d)
			}
			return err
		}
	}
}

// WithJitter replaces how a backoff wait d is spread. The default waits a
// random time between d/2 and d, so clients that failed together do not
// retry together.
func WithJitter(jitter func(d time.Duration) time.Duration) Option {
	return func(c *Client) { c.jitter = jitter }
}

// WithIdempotencyKeys replaces how an Idempotency-Key is made for a write
// given none. The default is 32 random hexadecimal digits.
func WithIdempotencyKeys(newKey func() string) Option { return func(c *Client) { c.newKey = newKey } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the API at baseURL (for example
// "http://127.0.0.1:8080/v1" or "http://127.0.0.1:8080"; any path is kept
// as a prefix) authenticating with apiKey.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{
		base:       strings.TrimRight(baseURL, "/"),
		apiKey:     apiKey,
		hc:         http.DefaultClient,
		maxRetries: DefaultMaxRetries,
		minBackoff: DefaultMinBackoff,
		maxBackoff: DefaultMaxBackoff,
		sleep:      sleepContext,
		now:        wallNow,
		jitter:     equalJitter,
		newKey:     randomKey,
		userAgent:  "lettershop-go-client/" + APIVersion,
	}
	for _, o := range opts {
		o(c)
	}
	hc := *c.hc
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.hc = &hc
	c.Test = &TestClient{c: c}
	cc := *c
	cc.maxRetries, cc.sleep, cc.now, cc.virtual = 0, sleepContext, wallNow, false
	cc.Test = &TestClient{c: &cc}
	c.clock = cc.Test
	return c
}

func wallNow(context.Context) time.Time { return time.Now() }

// RequestOption adjusts one call.
type RequestOption func(*requestOptions)

type requestOptions struct {
	idempotencyKey string
}

// IdempotencyKey sends key as the write's Idempotency-Key (at most 255
// characters) instead of a random one: the server then answers a repeat of
// the same request with the same key, within 24 hours, with the first
// answer, from this process or another.
func IdempotencyKey(key string) RequestOption {
	return func(o *requestOptions) { o.idempotencyKey = key }
}

// retryMode says which failures a request is attempted again after.
type retryMode int

const (
	// retryAll: network errors, 408, 409 request-in-flight, 429 and 5xx.
	retryAll retryMode = iota
	// retryRateLimited: 429 only, which the server answers before doing
	// anything; for requests that are not idempotent.
	retryRateLimited
)

// request is one call of the API.
type request struct {
	method string
	// path follows the base URL; url, when set, replaces both.
	path  string
	url   string
	query url.Values
	body  any
	// raw, when set, is sent as it is, typed contentType, instead of body.
	raw         []byte
	contentType string
	// write sends an Idempotency-Key.
	write  bool
	retry  retryMode
	public bool
	opts   []RequestOption
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
	// retryAfter is its Retry-After, if hasRetryAfter.
	retryAfter    time.Duration
	hasRetryAfter bool
}

// call sends r and decodes a 2xx answer's JSON body into out (if not nil);
// any other answer is an *Error.
func (c *Client) call(ctx context.Context, r request, out any) (*response, error) {
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	if resp.status < 200 || resp.status > 299 {
		return resp, resp.problem()
	}
	if out != nil {
		if err := json.Unmarshal(resp.body, out); err != nil {
			return resp, fmt.Errorf("lettershop: %s %s: decode the answer: %w", r.method, r.path, err)
		}
	}
	return resp, nil
}

// send attempts r until it is answered with something that is not worth
// another attempt, the retries are used up, or the context's deadline
// leaves no time for the next wait.
func (c *Client) send(ctx context.Context, r request) (*response, error) {
	body := r.raw
	if r.raw == nil && r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return nil, fmt.Errorf("lettershop: %s %s: encode the request: %w", r.method, r.path, err)
		}
	}
	var o requestOptions
	for _, opt := range r.opts {
		opt(&o)
	}
	key := o.idempotencyKey
	if r.write && key == "" {
		key = c.newKey()
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, r, body, key)
		if ctxErr := ctx.Err(); ctxErr != nil {
			if err == nil {
				return resp, nil
			}
			return nil, fmt.Errorf("lettershop: %s %s: %w", r.method, r.path, ctxErr)
		}
		wait, again := c.retryWait(ctx, r.retry, attempt, resp, err)
		if !again || attempt >= c.maxRetries {
			return resp, err
		}
		sleep, virtual, now := c.sleep, c.virtual, c.now
		if virtual && inFlight(resp) {
			// The request holding the key runs in real time, under a lease
			// on the server's clock: a wait on that clock would end the
			// lease while the request runs, and the retry would take the
			// key over from it and do the write again. The wait is in real
			// time instead, the backoff's at most.
			wait, sleep, virtual, now = min(wait, c.backoff(attempt)), sleepContext, false, wallNow
		}
		if deadline, ok := ctx.Deadline(); ok && !virtual && now(ctx).Add(wait).After(deadline) {
			return resp, err
		}
		if serr := sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("lettershop: %s %s: %w", r.method, r.path, serr)
		}
	}
}

// attempt sends r once. A failure to send or to read the answer is an
// error; any answer, whatever its status, is a response.
func (c *Client) attempt(ctx context.Context, r request, body []byte, key string) (*response, error) {
	u := r.url
	if u == "" {
		u = c.base + r.path
	}
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, r.method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("lettershop: %s %s: %w", r.method, r.path, err)
	}
	if !r.public {
		hr.Header.Set("X-Api-Key", c.apiKey)
		hr.Header.Set("X-Api-Version", APIVersion)
		hr.Header.Set("Accept", "application/json")
	}
	switch {
	case r.contentType != "":
		hr.Header.Set("Content-Type", r.contentType)
	case body != nil:
		hr.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		hr.Header.Set("Idempotency-Key", key)
	}
	hr.Header.Set("User-Agent", c.userAgent)
	hresp, err := c.hc.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("lettershop: %s %s: %w", r.method, r.path, err)
	}
	defer hresp.Body.Close()
	b, err := readAnswer(hresp)
	if err != nil {
		return nil, fmt.Errorf("lettershop: %s %s: read the answer: %w", r.method, r.path, err)
	}
	resp := &response{status: hresp.StatusCode, header: hresp.Header, body: b}
	resp.retryAfter, resp.hasRetryAfter = c.retryAfter(ctx, hresp.Header)
	return resp, nil
}

// maxPresized is the longest answer readAnswer reads into room made at
// once for the length the server gives, so that a length claimed and not
// sent costs no more than this.
const maxPresized = 8 << 20

// readAnswer reads an answer's body into room for the length the server
// gives (Content-Length), with bytes.MinRead more so that the read that
// meets its end does not grow it: io.ReadAll grows its room from 512
// bytes, copying the answer each time, and a letter of 4 KB was read in
// four buffers. An answer of no length given, or one over maxPresized, is
// read as io.ReadAll reads it.
func readAnswer(r *http.Response) ([]byte, error) {
	if r.ContentLength < 0 || r.ContentLength > maxPresized {
		return io.ReadAll(r.Body)
	}
	buf := bytes.NewBuffer(make([]byte, 0, r.ContentLength+bytes.MinRead))
	_, err := buf.ReadFrom(r.Body)
	return buf.Bytes(), err
}

// retryWait says whether an attempt's outcome is worth another attempt,
// and how long to wait before it.
func (c *Client) retryWait(ctx context.Context, mode retryMode, attempt int, resp *response, err error) (time.Duration, bool) {
	switch {
	case err != nil:
		return c.backoff(attempt), mode == retryAll
	case resp.status == http.StatusTooManyRequests:
		return c.rateLimitWait(ctx, attempt, resp), true
	case mode != retryAll:
		return 0, false
	case resp.status == http.StatusConflict:
		if resp.hasRetryAfter {
			return resp.retryAfter, inFlight(resp)
		}
		return c.backoff(attempt), inFlight(resp)
	case resp.status == http.StatusRequestTimeout || resp.status >= 500:
		if resp.hasRetryAfter {
			return resp.retryAfter, true
		}
		return c.backoff(attempt), true
	}
	return 0, false
}

// inFlight reports whether an answer is a 409 request-in-flight: a request
// with the same idempotency key is still running.
func inFlight(resp *response) bool {
	if resp == nil || resp.status != http.StatusConflict {
		return false
	}
	var p problemBody
	_ = json.Unmarshal(resp.body, &p)
	return p.code() == CodeRequestInFlight
}

// retryAfter reads an answer's Retry-After: seconds, or an HTTP date, the
// time from the client's clock to it.
func (c *Client) retryAfter(ctx context.Context, h http.Header) (time.Duration, bool) {
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(c.now(ctx)), 0), true
	}
	return 0, false
}

// backoff is the wait before retry attempt+1: the minimum doubled attempt
// times, at most the maximum, jittered.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.minBackoff
	for i := 0; i < attempt && d < c.maxBackoff; i++ {
		d *= 2
	}
	return c.jitter(min(d, c.maxBackoff))
}

// rateLimitWait waits Retry-After, the seconds from now until the key's
// bucket is full again, which holds on any clock; without it, until
// X-Rate-Limit-Reset (or P-RateLimit-Reset, its other name), an instant
// read against the client's clock, which a server on a test clock states
// on its own; without either, the backoff.
func (c *Client) rateLimitWait(ctx context.Context, attempt int, resp *response) time.Duration {
	if resp.hasRetryAfter {
		return resp.retryAfter
	}
	for _, name := range []string{"X-Rate-Limit-Reset", "P-RateLimit-Reset"} {
		if t, err := time.Parse(time.RFC3339, resp.header.Get(name)); err == nil {
			return max(t.Sub(c.now(ctx)), 0)
		}
	}
	return c.backoff(attempt)
}

// problemBody is an application/problem+json body.
type problemBody struct {
	Type   string            `json:"type"`
	Title  string            `json:"title"`
	Status int               `json:"status"`
	Detail string            `json:"detail"`
	Code   string            `json:"code"`
	Errors map[string]string `json:"errors,omitempty"`
}

// code is the problem's short name. A server before problems were typed
// by their RFC section sent it as the type.
func (p *problemBody) code() string {
	if p.Code == "" && !strings.Contains(p.Type, ":") {
		return p.Type
	}
	return p.Code
}

// problem is the *Error an answer that is not a success stands for.
func (r *response) problem() error {
	e := &Error{StatusCode: r.status, RequestID: r.header.Get("X-Request-Id")}
	e.RetryAfter = r.retryAfter
	var p problemBody
	if err := json.Unmarshal(r.body, &p); err == nil {
		e.Code, e.Type, e.Title, e.Detail, e.Fields = p.code(), p.Type, p.Title, p.Detail, p.Errors
	} else {
		e.Title = http.StatusText(r.status)
		e.Detail = strings.TrimSpace(string(r.body[:min(len(r.body), 200)]))
	}
	return e
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func equalJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

func randomKey() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// errNoLocation is a redirect without a Location.
var errNoLocation = errors.New("the answer has no Location")
