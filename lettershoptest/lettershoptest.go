// Package lettershoptest runs lettershop inside a Go test: a Service on an
// in-memory store (or PostgreSQL) with a virtual clock, served over HTTP by
// httpadapter on an httptest.Server, and the accounts, clock moves, forced
// letter moves, faults and request journal a test reaches for.
//
//	func TestSendWelcome(t *testing.T) {
//		srv := lettershoptest.New(t)
//		acct := srv.NewAccount()
//		m, err := welcome.NewMailer(t.Context(), acct.Client())
//		if err != nil {
//			t.Fatal(err)
//		}
//		id, err := m.SendWelcome(t.Context(), "Jane")
//		if err != nil {
//			t.Fatal(err)
//		}
//		acct.WaitForStatus(id, client.StatusMailed, 7*24*time.Hour)
//	}
//
// That application and its tests are examples/welcome, whole.
//
// Account.Client is the application's client of the server: its retries
// wait on the account's clock and take no real time. Code that makes its
// own client from the server's URL and the account's key
// (client.New(srv.URL, acct.APIKey)) works the same, but waits out its
// retries on the wall clock.
//
// New starts a server and stops it when the test ends; NewService does the
// same without HTTP, for tests that use the library directly.
//
// Webhooks: Account.NewReceiver starts a local receiver with a webhook of
// the account posting to it, which checks every signature; its WaitFor
// waits for an event, moving the account's clock to retries.
//
// Time: every Server (and every Service from NewService) has a virtual
// clock, a testclock.Clock that starts at DefaultStart, moves only when the
// test moves it and never sleeps to move, and every account has a clock of
// its own on top of it:
// Account.Advance and Account.Set move that account's time only (its
// letters, idempotency keys, rate-limit window and download links), so
// subtests that run in parallel on one server, an account each, never see
// each other's time, letters, faults or journal. Server.Advance moves the
// server's clock, and every account with it but those frozen
// (Account.Freeze). WithSharedClock gives every account the server's one
// clock instead.
package lettershoptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/testclock"
)

// DefaultStart is where every virtual clock starts unless WithStart says
// otherwise: a Monday morning, a business day, so letters made at once are
// printed and mailed on schedule.
var DefaultStart = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// discard is where the Service and the handler log: a test server's logs
// are no test's business (WithServiceOptions and WithAdapterOptions can
// pass a logger on).
var discard = slog.New(slog.DiscardHandler)

// Option configures New and NewService.
type Option func(*config)

type config struct {
	start     time.Time
	store     func(testing.TB) storage.Storage
	rateN     int
	ratePer   time.Duration
	service   []lettershop.Option
	adapter   []httpadapter.Option
	faultSeed int64
	sleep     func(context.Context, time.Duration) error
	shared    bool
	fixture   string
	snapshots []*snapshot.Snapshot
}

// WithSharedClock gives every account the server's one clock: an account's
// Advance and Set, and POST /_test/clock/advance, move every account's
// letters, as on a single-tenant server (lettershop --shared-test-clock).
func WithSharedClock() Option { return func(c *config) { c.shared = true } }

// WithStart sets the instant the virtual clock starts at.
func WithStart(t time.Time) Option { return func(c *config) { c.start = t } }

// WithStore keeps the records in the store open returns for the test,
// instead of memstore: package lettershoptest/pgtest's WithPostgres uses
// it, so that a test binary that does not ask for PostgreSQL does not
// carry its driver. open runs once per New or NewService, and what it
// opens is the test's to close (t.Cleanup).
func WithStore(open func(t testing.TB) storage.Storage) Option {
	return func(c *config) { c.store = open }
}

// WithRateLimit limits each API key to n requests per duration, as
// httpadapter.WithRateLimit does, measured on its account's clock. Without
// it a test server has no rate limit. There are no limits per client
// address (httpadapter.WithAddressLimits): every test's requests come from
// one, and one test's requests never use up another's.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateN, c.ratePer = n, per }
}

// WithServiceOptions passes options to lettershop.New, after the helper's
// own (a later WithClock would take the helper's clock away: do not).
func WithServiceOptions(opts ...lettershop.Option) Option {
	return func(c *config) { c.service = append(c.service, opts...) }
}

// WithAdapterOptions passes options to httpadapter.New, after the
// helper's own.
func WithAdapterOptions(opts ...httpadapter.Option) Option {
	return func(c *config) { c.adapter = append(c.adapter, opts...) }
}

// WithFaultSeed seeds the source that decides faults given a probability,
// so a run that failed can be replayed with the same decisions. The
// default seed is 1.
func WithFaultSeed(seed int64) Option { return func(c *config) { c.faultSeed = seed } }

// WithSleep sets how a fault's latency is waited out. The default waits on
// the wall clock, which is what a test of a client's timeouts needs; a test
// that only checks that the latency was asked for passes a function that
// records it and returns at once.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) { c.sleep = sleep }
}

// core is what a Server and a Service share: the lettershop.Service, its
// clock and the account counter.
type core struct {
	t   testing.TB
	svc *lettershop.Service
	// url and hc reach the server, when there is one.
	url      string
	hc       *http.Client
	clock    *testclock.Clock
	shared   bool
	controls *httpadapter.TestControls
	accounts atomic.Int64
	// receivers holds the URL of every Receiver started (a bool each);
	// restored, the Receiver of each webhook a Restore pointed at one of
	// its own, by the webhook's id.
	receivers, restored sync.Map
	// deliverer posts the Service's webhook events, unless the options
	// gave another (then nil).
	deliverer lettershop.Deliverer
}

// closeDeliveryConns closes the idle connections the Service's webhook
// events were posted on, before a Receiver closes: as closeClientsFirst
// says of the server, the side that closes first holds the connection in
// TIME_WAIT, and a Receiver per test would hold a port each.
func (c *core) closeDeliveryConns() {
	if d, ok := c.deliverer.(interface{ CloseIdleConnections() }); ok {
		d.CloseIdleConnections()
	}
}

func newCore(t testing.TB, opts []Option) (*core, config) {
	t.Helper()
	cfg := config{start: DefaultStart, faultSeed: 1}
	for _, o := range opts {
		o(&cfg)
	}
	var store storage.Storage = memstore.New()
	if cfg.store != nil {
		store = cfg.store(t)
	}
	mc := testclock.New(cfg.start)
	var dl lettershop.Deliverer
	svc := lettershop.New(store, append([]lettershop.Option{
		lettershop.WithClock(mc),
		lettershop.WithLogger(discard),
		lettershop.WithDeliverer(func(d *lettershop.Deliveries) lettershop.Deliverer { dl = delivery.Open(d); return dl }),
	}, cfg.service...)...)
	cleanup(t, func() { _ = svc.Close() })
	c := &core{t: t, svc: svc, clock: mc, shared: cfg.shared, deliverer: dl}
	c.seed(cfg.fixture, cfg.snapshots)
	return c, cfg
}

// cleanup has f run when t ends, and lets go of f once it ran: package
// testing keeps a finished parallel subtest, and every function given to
// its Cleanup, until the parent test ends, and a function holding a server
// would keep the server, its store and every record in it as long.
func cleanup(t testing.TB, f func()) {
	p := &f
	t.Cleanup(func() { g := *p; *p = nil; g() })
}

// advance moves the server's clock on by d and runs what fell due.
func (c *core) advance(d time.Duration) {
	c.t.Helper()
	if _, err := c.svc.AdvanceClock(context.Background(), d); err != nil {
		c.t.Fatalf("lettershoptest: advance the clock: %v", err)
	}
}

// set moves the server's clock forward to at and runs what fell due.
func (c *core) set(at time.Time) {
	c.t.Helper()
	if _, err := c.svc.SetClock(context.Background(), at); err != nil {
		c.t.Fatalf("lettershoptest: set the clock: %v", err)
	}
}

// newAccount makes a fresh sandbox key and its account.
func (c *core) newAccount() *Account {
	n := c.accounts.Add(1)
	b := make([]byte, 6+16)
	_, _ = rand.Read(b)
	key := fmt.Sprintf("%s%d_%s", httpadapter.SandboxKeyPrefix, n, hex.EncodeToString(b[:6]))
	return &Account{APIKey: key, ID: httpadapter.SandboxAccount(key), WebhookSecret: "whsec_test_" + hex.EncodeToString(b[6:]), c: c, t: c.t}
}

// Server is a lettershop server for one test: the API on an
// httptest.Server, in front of a Service on a virtual clock.
type Server struct {
	// URL is the server's base URL, such as http://127.0.0.1:54321; the
	// routes are served under it bare (/letters) and under /v1.
	URL string
	c   *core
	hs  *httptest.Server
}

// New starts a server for t, stopped when t ends: a Service on memstore (or
// PostgreSQL, WithPostgres) with a virtual clock at DefaultStart, served by
// httpadapter in sandbox mode (any sk_test_ key, each its own account) with
// the test routes, faults and journal on and no rate limit unless
// WithRateLimit asks. On memstore a request's work has no time bound
// (httpadapter.WithRequestTimeout(0)); with WithStore it has the adapter's
// default.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	c, cfg := newCore(t, opts)
	c.controls = httpadapter.NewTestControls(cfg.faultSeed)
	if cfg.sleep != nil {
		c.controls.SetSleep(cfg.sleep)
	}
	aopts := []httpadapter.Option{
		httpadapter.WithTestClock(c.clock),
		httpadapter.WithTestControls(c.controls),
		httpadapter.WithRateLimit(cfg.rateN, cfg.ratePer),
		// Every test's requests come from one address: limits per address
		// would let one test use up the others', on a clock none of them
		// moves.
		httpadapter.WithAddressLimits(false),
		// A test of a client's handling of a wrong key may send many: the
		// failures of one test must not throttle the others' keys.
		httpadapter.WithAuthThrottle(nil),
		httpadapter.WithLogger(discard),
	}
	if cfg.store == nil {
		// A store in memory never hangs: the bound on a request's work
		// would only cost every request a timer (cmd/lettershop sets
		// none in memory either).
		aopts = append(aopts, httpadapter.WithRequestTimeout(0))
	}
	if cfg.shared {
		aopts = append(aopts, httpadapter.WithSharedTestClock())
	}
	hs := httptest.NewServer(httpadapter.New(c.svc, append(aopts, cfg.adapter...)...))
	cleanup(t, func() { closeClientsFirst(hs) })
	c.url, c.hc = hs.URL, hs.Client()
	return &Server{URL: hs.URL, c: c, hs: hs}
}

// Service returns the Service behind the server, for reaching past HTTP:
// its methods take the account's id (Account.ID).
func (s *Server) Service() *lettershop.Service { return s.c.svc }

// Clock returns the server's virtual clock as a clock.Mock, for code that
// takes one: moving either moves both. Prefer Advance and Now: Advance
// also runs what fell due and takes turns with every other move of the
// clock (the clock.Mock's own Add, called from parallel tests, can undo
// another test's move), and once the server's clock follows a clock.Mock,
// every move of it pauses a millisecond, as a Mock's moves do.
func (s *Server) Clock() *clock.Mock { return s.c.clock.Mock() }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.hs.Client() }

// Advance moves the server's clock on by d, and with it every account's
// clock but those frozen, and runs what fell due. d must not be negative.
func (s *Server) Advance(d time.Duration) { s.c.t.Helper(); s.c.advance(d) }

// Now returns the time on the server's clock.
func (s *Server) Now() time.Time { return s.c.svc.Now() }

// NewAccount returns a fresh account with a sandbox API key of its own.
// Its methods fail the test New was given; a subtest takes
// NewAccount().For(t), so that they fail the subtest.
func (s *Server) NewAccount() *Account { return s.c.newAccount() }

// Service is a lettershop.Service for one test, without HTTP: on memstore
// (or PostgreSQL) with a virtual clock. It embeds the lettershop.Service,
// whose methods take an account's id (Account.ID).
type Service struct {
	*lettershop.Service
	c *core
}

// NewService returns a Service for t, closed when t ends, with a virtual
// clock at DefaultStart. Options about HTTP (WithRateLimit,
// WithAdapterOptions, WithFaultSeed, WithSleep) are ignored.
func NewService(t testing.TB, opts ...Option) *Service {
	t.Helper()
	c, _ := newCore(t, opts)
	return &Service{Service: c.svc, c: c}
}

// Clock returns the Service's virtual clock as a clock.Mock, as
// Server.Clock does. Prefer Advance, which also runs what fell due and
// takes turns with every other move of the clock, and leaves the clock as
// cheap to move as it was.
func (s *Service) Clock() *clock.Mock { return s.c.clock.Mock() }

// Advance moves the Service's clock on by d, and with it every account's
// clock but those frozen, and runs what fell due. d must not be negative.
func (s *Service) Advance(d time.Duration) { s.c.t.Helper(); s.c.advance(d) }

// NewAccount returns a fresh account. Its APIKey is of no use without a
// server; its ID is what the Service's methods take.
func (s *Service) NewAccount() *Account { return s.c.newAccount() }

// closeClientsFirst closes hs once the clients the helper handed out (and
// those on http.DefaultTransport) have closed their idle connections to
// it. The side that closes a TCP connection first keeps it in TIME_WAIT
// for a minute: closed by the server, each connection would hold the
// server's port, and every port so held is one more that the kernel's
// search for a free port (each New's listen) has to pass over, so that
// a suite's setup slowed as it ran, and from one run to the next. Closed
// by the client, the connection holds the client's port, among those
// the kernel gives to connections, which a listen's search does not pass
// over.
func closeClientsFirst(hs *httptest.Server) {
	if t, ok := hs.Client().Transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	if t, ok := http.DefaultTransport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	hs.Close()
}
