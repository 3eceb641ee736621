package lettershop

import (
	"crypto/rand"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/internal/acctclock"
	"github.com/lettershop/lettershop/internal/erasemark"
	"github.com/lettershop/lettershop/internal/idem"
	"github.com/lettershop/lettershop/internal/ids"
	"github.com/lettershop/lettershop/internal/pagetoken"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/signedlink"
	"github.com/lettershop/lettershop/storage"
)

// Service is the letter mailing service: letters, assets and their versions,
// idempotency and pagination over a storage.Storage. It is safe for
// concurrent use. Every operation is scoped to one account: objects of
// another account are not found.
type Service struct {
	store    storage.Storage
	rawStore storage.Storage // store as given, without the hooks' layer
	hooks    Hooks
	clock    clock.Clock
	logger   *slog.Logger
	address  AddressProcessor
	postal   Postal
	baseURL  string
	tokenKey []byte
	// idem runs idempotent requests: the lease, the bounds on an
	// account's stored outcomes (idempotency.go).
	idem idem.Requests[Outcome]

	entropy io.Reader
	// ids makes ids and secrets from entropy (package ids).
	ids *ids.Maker
	// wall is the real time, for what must follow it whatever the
	// Service's clock says: the signatures and leases of webhook attempts.
	wall clock.Clock

	life *lifecycle

	// clocks are the Service's clock and the accounts' own (clocks.go).
	clocks acctclock.Clocks

	// deliveries are the webhook deliveries its Deliverer sends
	// (deliveries.go).
	deliveries Deliveries

	// egress is the policy of every request the Service makes itself, and
	// egressOpts the options of its clients (WithEgress). fetch is the
	// client that fetches content and images given by URL: check a url with
	// egress.CheckURL when it is given, fetch it with fetch.Fetch.
	egress     egress.Policy
	egressOpts []egress.Option
	fetch      *egress.Client
	// egressMade are the clients egressClient made, whose idle connections
	// Close closes.
	egressMade []*egress.Client

	// render is the rendering state (render.go), download the download
	// links (download.go), signed with the token key.
	render   renderState
	download signedlink.Links
	// pages signs the tokens that continue lists, with the token key.
	pages pagetoken.Signer
	// erasures marks the accounts EraseAccount erased (Erasures).
	erasures erasemark.Marks
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock every time-based rule reads: lifecycle steps,
// idempotency expiry, signed links. Tests pass a *clock.Mock. The default is
// the wall clock.
//
// clock.NewMock starts at the Unix epoch (1970-01-01T00:00:00Z): Set it to a
// realistic instant before the first call. Ids carry the clock's
// millisecond, and lists sort by them, so ids made on a clock later set back
// sort before older ones; a sendDate is checked against the clock's day, and
// a printed letter is dated by it.
func WithClock(c clock.Clock) Option { return func(s *Service) { s.clock = c } }

// WithEntropy sets the randomness of new ids and secrets. Tests pass a
// seeded reader (for example a math/rand source, which never runs out) to
// make ids repeatable. r must never fail: an id can not be made without it,
// and a read that fails (a bytes.Reader at its end) panics the operation
// that makes the id. The default is crypto/rand.
func WithEntropy(r io.Reader) Option { return func(s *Service) { s.entropy = r } }

// WithWallClock sets the real time, which webhook signatures carry (so a
// receiver's check of their age passes while a test clock stands still)
// and attempts' leases are kept on. The default is the wall clock.
func WithWallClock(c clock.Clock) Option { return func(s *Service) { s.wall = c } }

// WithLogger sets the logger. The default discards.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.logger = l } }

// WithTokenKey sets the key that signs pagination tokens and download links.
// Servers sharing one database share the key so a token from one is good on
// another. The default, also for an empty key, is random, per Service.
func WithTokenKey(key []byte) Option {
	return func(s *Service) { s.tokenKey = append([]byte(nil), key...) }
}

// WithBaseURL sets the address the service is reached at, used in each
// letter's url, each asset version's contentUrl and download links. The
// default is empty: they are paths (/letters/{id}/download). The HTTP handler
// makes a contentUrl and a download's redirect absolute on the address each
// request came to, its mount prefix included; a letter's url stays a path,
// which under a mount prefix misses it: set the base URL, with the prefix.
func WithBaseURL(u string) Option {
	return func(s *Service) { s.baseURL = strings.TrimRight(u, "/") }
}

// BaseURL returns the address WithBaseURL set, without a final slash; ""
// when none was.
func (s *Service) BaseURL() string { return s.baseURL }

// WithAddressProcessor replaces the built-in address processor (CASS, NCOA,
// deliverability), for example with a real postal provider.
func WithAddressProcessor(p AddressProcessor) Option { return func(s *Service) { s.address = p } }

// WithPostal replaces the simulated postal timeline (postal.Timeline) that
// moves letters through production, mailing and tracking, for example with
// a real postal provider.
func WithPostal(p Postal) Option { return func(s *Service) { s.postal = p } }

// WithIdempotencyLease sets how long an unfinished idempotent request holds
// its key without renewing it: a running request renews it every third of
// d, and a retry may take over once it ends (when the server died
// mid-request). The default is DefaultIdempotencyLease, 10 seconds.
func WithIdempotencyLease(d time.Duration) Option { return func(s *Service) { s.idem.Lease = d } }

// WithIdempotencyCap sets how many stored idempotency outcomes an account
// keeps at most; over it the oldest failures go first, then the oldest
// successes. The default is DefaultIdempotencyCap; n <= 0 sets no cap.
func WithIdempotencyCap(n int) Option { return func(s *Service) { s.idem.MaxOutcomes = n } }

// WithEgress sets the policy every request the Service makes itself
// follows (webhook deliveries, content fetched from a URL), and options of
// the clients that make them, such as egress.WithResolver in tests. The
// default, egress.Default(), reaches any host but link-local and cloud
// metadata addresses; see docs/egress.md.
func WithEgress(p egress.Policy, opts ...egress.Option) Option {
	return func(s *Service) { s.egress, s.egressOpts = p, slices.Clone(opts) }
}

// egressClient returns a client of the Service's egress policy, with
// extra after the options WithEgress gave. It is called while New runs,
// and Close closes the client's idle connections.
func (s *Service) egressClient(extra ...egress.Option) *egress.Client {
	c := egress.New(s.egress, append(slices.Clone(s.egressOpts), extra...)...)
	s.egressMade = append(s.egressMade, c)
	return c
}

// WithIdempotencyBytes sets how many bytes of stored idempotency outcomes
// an account keeps at most (see Outcome); over it, as over the cap of
// WithIdempotencyCap, the oldest failures go first, then the oldest
// successes. The default is DefaultIdempotencyBytes; n <= 0 sets no bound.
func WithIdempotencyBytes(n int64) Option { return func(s *Service) { s.idem.MaxBytes = n } }

// New returns a Service over store, which must not be nil (nor a nil
// pointer, as a store whose opening failed is). Call Close when done with it.
func New(store storage.Storage, opts ...Option) *Service {
	if v := reflect.ValueOf(store); store == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		panic("lettershop: New needs a store (memstore.New(), or pgstore.Open's, its error checked)")
	}
	s := &Service{
		store:   store,
		clock:   clock.New(),
		wall:    clock.New(),
		logger:  slog.New(slog.DiscardHandler),
		entropy: rand.Reader,
		idem: idem.Requests[Outcome]{
			Lease: DefaultIdempotencyLease, MaxOutcomes: DefaultIdempotencyCap, MaxBytes: DefaultIdempotencyBytes,
		},
		render: renderState{cacheSize: DefaultRenderCacheSize},
	}
	for _, o := range opts {
		o(s)
	}
	s.ids = ids.NewMaker(s.entropy)
	if len(s.tokenKey) == 0 {
		s.tokenKey = make([]byte, 32)
		if _, err := io.ReadFull(rand.Reader, s.tokenKey); err != nil {
			panic("lettershop: no randomness for the token key: " + err.Error())
		}
	}
	// Servers sharing WithTokenKey share links; signedlink keeps its keys
	// apart from the pagination tokens'. The TTL is WithDownloadTTL's.
	s.download = signedlink.NewLinks(s.tokenKey, s.download.TTL)
	s.pages.Key = s.tokenKey
	s.render.setUp()
	if s.address == nil {
		s.address = newAddressProcessor(store)
	}
	if s.postal == nil {
		s.postal = postal.Timeline{}
	}
	s.fetch = s.egressClient()
	s.observeStore()
	s.idem.Init(s.store, s.clock, s.now, canceled, s.logger)
	s.clocks.Init(s.clock, s.store, LastClockTime, s.logger)
	s.life = newLifecycle(s)
	s.deliveries.init(s)
	return s
}

// Close stops the Service's background work. It does not close the store.
func (s *Service) Close() error {
	s.life.Stop()
	s.deliveries.deliverer.Close()
	for _, c := range s.egressMade {
		c.CloseIdleConnections()
	}
	return nil
}

// Now returns the current time on the Service's clock, in UTC. An account
// whose clock a test moved apart keeps its own time: AccountNow.
func (s *Service) Now() time.Time { return s.clocks.ServerNow() }

// newID returns prefix followed by a lower-case ULID for the time at, the
// current time of the account the object belongs to, so an account's
// objects sort by the time on its clock.
func (s *Service) newID(prefix string, at time.Time) string { return s.ids.New(prefix, at) }

// Id prefixes.
const (
	letterPrefix  = "ltr_"
	assetPrefix   = "ast_"
	versionPrefix = "astv_"
	eventPrefix   = "evt_"
)

// ValidID reports whether id is prefix followed by one or more ASCII letters
// or digits, the form of every id of that kind.
func ValidID(prefix, id string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}
