// Package httpadapter serves the lettershop API over HTTP, as the letter
// mailing service's specification describes it, so that a client written
// for the real service works against it unchanged.
//
// New returns an http.Handler; the embedder owns the server:
//
//	svc := lettershop.New(memstore.New())
//	defer svc.Close()
//	http.ListenAndServe("127.0.0.1:8080", httpadapter.New(svc))
//
// Every route is served bare (/letters) and under /v1 (/v1/letters). The
// handler authenticates X-Api-Key, limits the request rate per API key,
// makes POST, PUT and DELETE idempotent under Idempotency-Key, and answers
// every error as application/problem+json.
package httpadapter

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benbjohnson/clock"
	"golang.org/x/sync/semaphore"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/internal/pdftext"
	"github.com/lettershop/lettershop/wire"
)

// APIVersion is the interface version served. A request may name it in
// X-Api-Version; every response carries it.
const APIVersion = "2024-07-30"

// Body limits.
const (
	// MaxJSONBody is the largest JSON request body, in bytes.
	MaxJSONBody = 1 << 20
	// MaxVersionBody is the largest body of a request that carries asset
	// content (creating or updating a version). The largest version the
	// service accepts (102,400 bytes of content, 100 variable definitions
	// with 4,096-character presets, 255 characters of notes) is about
	// 3 MiB when a client writes every character as a JSON escape.
	MaxVersionBody = 4 << 20
)

// Header names.
const (
	headerAPIKey         = "X-Api-Key"
	headerAPIVersion     = "X-Api-Version"
	headerRequestID      = "X-Request-Id"
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotent-Replayed"
	headerLimit          = "P-RateLimit-Limit"
	headerRemaining      = "P-RateLimit-Remaining"
	headerReset          = "P-RateLimit-Reset"
	headerXLimit         = "X-Rate-Limit-Limit"
	headerXRemaining     = "X-Rate-Limit-Remaining"
	headerXReset         = "X-Rate-Limit-Reset"
)

// Option configures the handler New returns.
type Option func(*config)

type config struct {
	requestTimeout time.Duration
	auth           Authenticator
	rateN          int
	ratePer        time.Duration
	testClock      lettershop.TestClock
	// sharedClock makes the clock routes move testClock rather than the
	// caller's account's clock.
	sharedClock bool
	controls    *TestControls
	rateClock   clock.Clock
	logger      *slog.Logger
	bodyRate    int
	bodyGrace   time.Duration
	// bodyBudget bounds the bytes of bodies held at once (WithBodyBudget).
	bodyBudget     int64
	bodyBudgetWait time.Duration
	// observer, when set, is told of every request; metricsHandler is
	// served at metricsPath, when set (observe.go).
	observer       Observer
	metricsPath    string
	metricsHandler http.Handler
	// noAddressLimits turns off the limits per client address.
	noAddressLimits bool
	// authThrottle throttles failed authentications (auththrottle.go);
	// authThrottleSet says WithAuthThrottle chose it, nil included.
	authThrottle    *AuthThrottle
	authThrottleSet bool
}

// WithAuthenticator sets how API keys are checked. The default is
// NewSandboxAuthenticator: any key beginning sk_test_ is accepted, each
// distinct key its own account.
func WithAuthenticator(a Authenticator) Option { return func(c *config) { c.auth = a } }

// WithRateLimit allows n requests per duration per API key, in bursts of up
// to n, measured on the clock of the key's account (the Service's clock
// unless a test moved the account's apart). n = 0 turns rate limiting off.
// The default is the real service's: 150 requests per 5 seconds.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateN, c.ratePer = n, per }
}

// WithRateLimitClock sets the clock rate limits are measured on. The
// default is each key's account's clock, and the Service's for the limits
// per client address, so a test that moves a clock.Mock, or its account's
// clock, moves its buckets too. A server whose Service runs on a stopped test clock for
// its clients passes the wall clock here, so that buckets refill, and the
// reset times it announces come, while the test clock stands still.
func WithRateLimitClock(c clock.Clock) Option { return func(cfg *config) { cfg.rateClock = c } }

// WithAddressLimits turns the limits per client address on (the default,
// with the rate limit) or off: in the sandbox, on requests and on new keys
// across all keys, and on signed download links; and, with or without the
// sandbox, the share of the body budget one address's bodies may hold
// (WithBodyBudget). Each API key's own limit
// stays. They hold across accounts, on the Service's clock; a server for
// one test suite, whose clients all share one address and whose accounts
// keep clocks of their own, turns them off, as lettershoptest does, so
// that one test's requests never use up another's and every limit a test
// meets follows its own account's clock.
func WithAddressLimits(on bool) Option { return func(c *config) { c.noAddressLimits = !on } }

// WithLogger sets where internal errors are logged, each with the request
// id its response shows. The default is slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// handler serves the API for one Service.
type handler struct {
	svc     *lettershop.Service
	cfg     config
	mux     *router
	limiter *limiter
	// byAddress holds the limits per client address, in the sandbox only.
	byAddress *addressLimits
	// links limits the signed download links per client address.
	links *linkLimits
	// digests remembers the digests of recently authenticated API keys.
	digests *keyDigests
	// letters serves letters and pages of them as the API's JSON, keeping
	// the encodings it made.
	letters *wire.Letters
	// bodies holds the body budget's room (WithBodyBudget); nil for none.
	bodies *semaphore.Weighted
	// shares bounds each client address's part of it, with the limits
	// per client address; nil without them or without a budget.
	shares *bodyShares
	// texts keeps the letters' texts GET /_test/letters/{id}/text read
	// last, by their PDFs' content.
	texts *pdftext.Cache
	// snaps keeps the snapshots PUT /_test/snapshot decoded last
	// (snapshotcache.go).
	snaps snapshotCache
}

// New returns an http.Handler serving svc's API. Mount it at the root, or
// under a prefix with http.StripPrefix; there, give svc the prefix in its
// base URL (lettershop.WithBaseURL), which letters' urls take theirs from.
//
// Rate limit: by default every API key may make 150 requests per 5 seconds,
// as on the real service, in the sandbox and with WithTestClock too; the
// 151st request within 5 seconds is a 429. A test suite that sends more
// passes WithRateLimit(0, 0) to turn limiting off. With WithTestClock a
// key's bucket refills on its account's clock, which stands still until the
// test moves it: add WithRateLimitClock(clock.New()) to refill them on the wall
// clock instead, as cmd/lettershop --test-clock does.
//
// The handler also serves GET /healthz and GET /readyz (health.go), and with
// WithMetricsHandler, GET /metrics.
//
// A Service without a Deliverer (lettershop.WithDeliverer) is given package
// delivery's, so that the webhooks made through the API are sent.
func New(svc *lettershop.Service, opts ...Option) http.Handler {
	cfg := config{requestTimeout: DefaultRequestTimeout, rateN: 150, ratePer: 5 * time.Second, bodyRate: DefaultBodyReadRate, bodyGrace: DefaultBodyReadGrace,
		bodyBudget: DefaultBodyBudget, bodyBudgetWait: DefaultBodyBudgetWait}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.auth == nil {
		cfg.auth = NewSandboxAuthenticator()
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	if !cfg.authThrottleSet {
		cfg.authThrottle = NewAuthThrottle(DefaultAuthFailures, DefaultAuthFailuresPer, clock.New())
	}
	svc.UseDeliverer(delivery.Open)
	h := &handler{svc: svc, cfg: cfg, mux: &router{}, digests: newKeyDigests(svc), letters: wire.NewLetters(svc),
		texts: pdftext.NewCache(pdftext.DefaultCacheBytes, func(b []byte) (string, error) { return readLetterText(b) })}
	if cfg.bodyBudget > 0 {
		h.bodies = semaphore.NewWeighted(cfg.bodyBudget)
		if !cfg.noAddressLimits {
			h.shares = newBodyShares(cfg.bodyBudget)
		}
	}
	h.mux.serve = h.serveRoute
	if cfg.rateN > 0 && cfg.ratePer > 0 {
		h.limiter = newLimiter(cfg.rateN, cfg.ratePer, maxRateKeys)
		if !cfg.noAddressLimits {
			h.links = newLinkLimits(cfg.rateN, cfg.ratePer)
			if _, sandbox := cfg.auth.(SandboxAuthenticator); sandbox {
				h.byAddress = newAddressLimits(cfg.rateN, cfg.ratePer)
			}
		}
	}
	h.letterRoutes()
	h.assetRoutes()
	h.versionRoutes()
	h.uploadRoutes()
	h.webhookRoutes()
	h.fileRoutes()
	h.healthRoutes()
	h.docRoutes()
	if cfg.testClock != nil {
		h.testRoutes()
	}
	h.mux.seal()
	return h.withControls()
}

// ServeHTTP answers requests the routes do not know with a problem, not the
// mux's plain text.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cfg.observer != nil {
		h.serveObserved(w, r)
		return
	}
	h.serve(w, r)
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	reqID := newRequestID()
	everyAnswer(w.Header(), reqID)
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, reqID))
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler { //nolint:errorlint // a recovered panic value, panicked as it is, not an error chain
				panic(v)
			}
			h.cfg.logger.Error("panic serving request", "request_id", reqID, "method", r.Method, "path", r.URL.Path, "panic", v)
			writeProblem(w, problemFor(r.Context(), &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error"}))
		}
	}()
	if uncleanPath(r.URL.Path) {
		keyedAnswer(w, r)
		notCleanPath(w, r)
		return
	}
	inner, pattern := h.mux.Handler(r)
	notePattern(w, pattern)
	if pattern == "" {
		keyedAnswer(w, r)
		h.unrouted(w, r, inner)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// unrouted answers a request no route takes: 404, or 405 when the path is
// served for other methods. inner is the mux's own plain-text answer, run
// only to learn which of the two it is.
func (h *handler) unrouted(w http.ResponseWriter, r *http.Request, inner http.Handler) {
	rec := &statusRecorder{header: http.Header{}}
	inner.ServeHTTP(rec, r)
	if rec.status == http.StatusMethodNotAllowed {
		WriteMethodNotAllowed(w, r, rec.header.Get("Allow"))
		return
	}
	writeProblem(w, problem{
		Code: "not-found", Title: "Not found", Status: http.StatusNotFound,
		Detail: fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path) + h.slashHint(r),
	})
}

// slashHint says, for a path that a route takes without its trailing
// slash (/v1/letters/), that it is served without it; "" for any other.
// The path is not redirected: a client that added the slash learns why.
func (h *handler) slashHint(r *http.Request) string {
	p := r.URL.Path
	if len(p) < 2 || !strings.HasSuffix(p, "/") {
		return ""
	}
	bare := r.Clone(r.Context())
	bare.URL.Path, bare.URL.RawPath = strings.TrimSuffix(p, "/"), ""
	if _, pattern := h.mux.Handler(bare); pattern == "" {
		return ""
	}
	return "; routes take no trailing slash: " + bare.URL.Path
}

// statusRecorder takes an answer that is thrown away, keeping its headers
// and status: what the mux would answer for an unknown route, and the
// answer a fault with AfterWrite replaces (faults.go).
type statusRecorder struct {
	header http.Header
	status int
}

func (s *statusRecorder) Header() http.Header         { return s.header }
func (s *statusRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (s *statusRecorder) WriteHeader(code int)        { s.status = code }

// access says what a route requires of the caller.
type access uint8

const (
	// public routes take no API key (signed download links).
	public access = iota
	// anyKey routes take any valid API key, whatever its scopes.
	anyKey
	// scoped routes take a key with the route's scope.
	scoped
)

// route is one registered operation.
type route struct {
	method, path string
	access       access
	// ownTime says the route bounds its own time (a settle waits as long
	// as it is asked, in real time), so the request timeout is not set.
	ownTime bool
	scope   Scope
	// also are the scopes a scoped route requires beside scope.
	also  []Scope
	serve func(http.ResponseWriter, *http.Request, *call)
}

// call is what a route handler knows about the request beyond *http.Request.
type call struct {
	account string
	// test says the key is a test key (Principal.Test).
	test bool
	// keyHash identifies the API key without holding the secret (a keyed
	// hash under the Service's token key): the scope of its idempotency keys
	// and of its rate limit.
	keyHash string
	// path is the request path without /v1, the same for both forms of a route.
	path string
	// origin is the absolute URL the handler is reached at: the Service's
	// base URL, or else the scheme and host the request came to with the
	// mount prefix. prefix is /v1 or "", as the request used.
	origin, prefix string
}

// url is the absolute URL of path (/letters/ltr_...) under the prefix the
// request used: what a Location header names.
func (c *call) url(path string) string { return c.origin + c.prefix + path }

// absolute makes a URL the Service made without a base URL (a path)
// absolute, on the request's origin.
func (c *call) absolute(u string) string {
	if strings.HasPrefix(u, "/") {
		return c.origin + u
	}
	return u
}

// handle registers a route bare and under /v1.
func (h *handler) handle(rt route) {
	h.mux.route(rt, "")
	h.mux.route(rt, "/v1")
}

// authenticated is what the Authenticator said of a request's key, when
// the test controls (faults.go) asked it before the route ran.
type authenticated struct {
	key string
	p   Principal
	err error
}

type authenticatedKey struct{}

// authenticate checks r's API key, once per request: by the answer already
// in r's context for that key, if any, or else by the Authenticator.
// missingKey is the 401 of a request without a key: in the sandbox it says
// which keys the sandbox takes, as the 401 of an unknown key does, so that a
// client that forgot the header learns what to send.
func (h *handler) missingKey() error {
	if _, ok := h.cfg.auth.(SandboxAuthenticator); ok {
		return errorf(lettershop.CodeUnauthenticated, "the %s header is missing: %s", headerAPIKey, errSandboxKey.hint)
	}
	return errorf(lettershop.CodeUnauthenticated, "the %s header is missing", headerAPIKey)
}

func (h *handler) authenticate(r *http.Request, key string) (Principal, error) {
	if a, ok := r.Context().Value(authenticatedKey{}).(*authenticated); ok && a.key == key {
		return a.p, a.err
	}
	return h.askAuthenticator(r.Context(), key)
}

// askAuthenticator checks key with the Authenticator; a key that is not
// valid UTF-8 is unknown whatever the Authenticator would say.
func (h *handler) askAuthenticator(ctx context.Context, key string) (Principal, error) {
	if !utf8.ValidString(key) {
		return Principal{}, ErrUnknownKey
	}
	return h.cfg.auth.Authenticate(ctx, key)
}

// serveRoute runs the checks every route shares, in order: the API key, the
// rate limit, the API version, the scope.
func (h *handler) serveRoute(w http.ResponseWriter, r *http.Request, rt route, prefix string) {
	if !rt.ownTime && (r.Body == nil || r.Body == http.NoBody) {
		// A request with a body has its time counted once the body is in.
		var cancel context.CancelFunc
		r, cancel = h.withDeadline(r)
		defer cancel()
	}
	c := &call{path: strings.TrimPrefix(r.URL.Path, prefix), prefix: prefix}
	c.origin = h.origin(r)
	if rt.access != public {
		keptByNone(w.Header())
		key, err := apiKeyOf(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if key == "" {
			h.fail(w, r, h.missingKey())
			return
		}
		p, err := h.authenticateThrottled(w, r, ClientAddress(r), key)
		if err != nil {
			h.fail(w, r, authError(err))
			return
		}
		c.account, c.test = p.Account, p.Test
		c.keyHash = h.digests.digest(key)
		if err := h.limitAddress(w, r, c.keyHash); err != nil {
			h.fail(w, r, err)
			return
		}
		if h.limiter != nil && !h.limiter.allow(w, c.keyHash, h.rateNow(c.account)) {
			//lint:ignore SA1008 the limiter sets the header under the real service's spelling, not the canonical key
			h.fail(w, r, errorf(lettershop.CodeRateLimited, "the rate limit of %d requests per %s for this API key is used up; retry after %s", h.cfg.rateN, h.cfg.ratePer, w.Header()[headerReset][0]))
			return
		}
		if err := checkVersion(r); err != nil {
			h.fail(w, r, err)
			return
		}
		if rt.access == scoped {
			if s, ok := lacking(p, rt); !ok {
				h.fail(w, r, errorf(lettershop.CodeForbidden, "this API key lacks the %s scope", s))
				return
			}
		}
	} else {
		if err := h.limitLink(w, r); err != nil {
			h.fail(w, r, err)
			return
		}
		if err := checkVersion(r); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	rt.serve(w, r, c)
}

// noStore and noSniff are the values of Cache-Control on every answer to a
// request with an API key and of X-Content-Type-Options on every answer.
// Set replaces them, and a slice of one grows into a copy of its own, so
// the answers may share them.
var (
	noStore = []string{"no-store"}
	noSniff = []string{"nosniff"}
)

// everyAnswer sets the headers every answer of the handler carries, whatever
// the route (the API's JSON, a PDF, a version's content, the OpenAPI
// document, health, metrics) or the lack of one (404, 405): its request id,
// the API version, and that no browser is to read it as another type.
func everyAnswer(h http.Header, reqID string) {
	h.Set(headerRequestID, reqID)
	h.Set(headerAPIVersion, APIVersion)
	h["X-Content-Type-Options"] = noSniff
}

// keyedAnswer gives the answer to r, when r carries an API key, the header
// every such answer carries, for the answers no route gives (404, 405).
func keyedAnswer(w http.ResponseWriter, r *http.Request) {
	if _, ok := r.Header[headerAPIKey]; ok {
		keptByNone(w.Header())
	}
}

// keptByNone sets the header of an answer to a request with an API key,
// which is the account's: no cache keeps it.
func keptByNone(h http.Header) {
	h["Cache-Control"] = noStore
}

// lacking returns the first scope of rt that p does not hold, and false,
// or true when p holds them all.
func lacking(p Principal, rt route) (Scope, bool) {
	if !p.Has(rt.scope) {
		return rt.scope, false
	}
	for _, s := range rt.also {
		if !p.Has(s) {
			return s, false
		}
	}
	return "", true
}

// rateNow is the time rate limits are measured at: the rate-limit clock,
// or the clock of the account, "" for limits per client address, which
// read the Service's clock.
func (h *handler) rateNow(account string) time.Time {
	if h.cfg.rateClock != nil {
		return h.cfg.rateClock.Now()
	}
	if account == "" {
		return h.svc.Now()
	}
	return h.svc.AccountNow(account)
}

// origin is the absolute URL the handler is reached at for r: the
// Service's base URL when it has one (set it behind a proxy), or else the
// scheme and Host of r followed by the prefix the handler is mounted under.
func (h *handler) origin(r *http.Request) string {
	if b := h.svc.BaseURL(); b != "" {
		return b
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if r.Host == "" {
		return mountPrefix(r)
	}
	return scheme + "://" + r.Host + mountPrefix(r)
}

// mountPrefix is the part of the path the client sent that a mounting
// server stripped (http.StripPrefix) before the request got here.
func mountPrefix(r *http.Request) string {
	uri := r.RequestURI
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		uri = uri[:i]
	}
	if strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://") {
		return "" // absolute-form request target; not worth unpicking
	}
	p := r.URL.EscapedPath()
	if before, ok := strings.CutSuffix(uri, p); ok && (before == "" || strings.HasPrefix(before, "/")) {
		return before
	}
	return ""
}

func checkVersion(r *http.Request) error {
	v, ok := r.Header[http.CanonicalHeaderKey(headerAPIVersion)]
	if !ok || (len(v) == 1 && v[0] == APIVersion) {
		return nil
	}
	return invalid(headerAPIVersion, "must be %s, the only version served, got %s", APIVersion, echo.Quote(strings.Join(v, ", ")))
}

// requestIDKey carries the request id to error logs.
type requestIDKey struct{}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
