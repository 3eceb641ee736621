package lettershop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/storage"
)

// The Service records webhook events and their deliveries, in the same
// store write as the change they tell of (webhooks.go); a Deliverer sends
// them. It asks the Service's Deliveries which accounts have deliveries due
// (each account's earliest judged on its own clock) and takes an account's
// due deliveries (pending, due on the account's clock, a letter's in
// order), each leased for the length of an attempt on the wall clock: a
// server that dies mid-attempt leaves the delivery leased, and once the
// lease passes another takes it up, so a receiver may see an event twice
// (its id tells), never none. The Deliverer posts each event, signed, and
// records how the attempt went; a failed one is attempted again after the
// Deliverer's backoff, on the account's clock, until WebhookRetryPeriod
// has passed since the event (or since the first attempt, when that came
// later), and then the delivery has failed.
//
// The Service wakes its Deliverer once it knows of webhooks (it made one,
// took a delivery, or the store held some when it started), when something
// may have fallen due: a letter write that made deliveries, letters moved
// by the lifecycle, a clock moved, a retry asked for. On a test clock a
// Service that knows of no webhooks does no webhook work at all. Package
// delivery holds the Deliverer lettershop comes with.

// Defaults of webhook delivery.
const (
	// DefaultWebhookTimeout is how long an attempt waits for an answer.
	DefaultWebhookTimeout = 10 * time.Second
	// DefaultWebhookWorkers is how many attempts of one account run at
	// once.
	DefaultWebhookWorkers = 4
)

const (
	// leaseMargin is how much longer than an attempt's timeout its lease
	// lasts: the time to record the outcome.
	leaseMargin = 30 * time.Second
	// pollEvery is how often a deliverer on a real clock looks for due
	// deliveries it was not woken for.
	pollEvery = time.Second
	// maxErrorText is how much of an attempt's error a delivery keeps, in
	// bytes.
	maxErrorText = 1000
	// duePage is how many accounts one call for the accounts with due
	// deliveries returns.
	duePage = 500
)

// WithWebhookTimeout sets how long an attempt to post an event waits for
// the answer, and so how long a delivery is leased for an attempt. The
// default is DefaultWebhookTimeout.
func WithWebhookTimeout(d time.Duration) Option { return func(s *Service) { s.deliveries.timeout = d } }

// WithWebhookWorkers sets how many events of one account are posted at
// once: an account whose receiver is slow or hangs has at most that many
// attempts under way, and other accounts' events go out meanwhile. The
// default is DefaultWebhookWorkers.
func WithWebhookWorkers(n int) Option { return func(s *Service) { s.deliveries.workers = n } }

// WithWebhookHosts limits the hosts webhooks may post to: a name (
// "hooks.example.com"), a "*.example.com" for the names under a domain, or
// an IP address. The default is any host: in tests the receiver is often
// on the same machine.
func WithWebhookHosts(hosts ...string) Option {
	return func(s *Service) { s.deliveries.hosts = append([]string(nil), hosts...) }
}

// WithWebhookClient sets the HTTP client events are posted with. An attempt
// still ends at WithWebhookTimeout, which its delivery's lease is measured
// by: a Timeout of the client's cuts attempts shorter, never longer. The
// default is a client of the Service's egress policy (WithEgress), which
// follows no redirects (a 3xx is an answer, and not a success); a client
// given here is trusted to keep whatever policy it needs.
func WithWebhookClient(c *http.Client) Option { return func(s *Service) { s.deliveries.client = c } }

// WebhookFunc receives the events of a webhook made by SubscribeFunc: the
// event, and its JSON as it would be posted. An error is a failed
// attempt, retried as a webhook's.
type WebhookFunc func(ctx context.Context, e *WebhookEvent, body []byte) error

// A Deliverer sends the webhook events a Service records: it finds the due
// deliveries through the Service's Deliveries, takes them, attempts each
// and records how it went. Package delivery's Open makes the one lettershop
// comes with; another (a queue shared by several services, say) may take
// its place.
type Deliverer interface {
	// Wake tells the deliverer that deliveries may have fallen due. It
	// must not block.
	Wake()
	// Close stops the deliverer: the attempts under way are cut short and
	// waited for; their deliveries stay leased, and are taken again when
	// the lease passes.
	Close()
}

// WithDeliverer sets what sends the Service's webhook events: New calls
// open once with the Service's Deliveries, and the Deliverer it returns is
// the Service's until Close. lettershop.New(store,
// lettershop.WithDeliverer(delivery.Open)) sends them as lettershop always
// has. Without a Deliverer a Service records events and their deliveries
// but sends none, until UseDeliverer gives it one (httpadapter.New does).
func WithDeliverer(open func(*Deliveries) Deliverer) Option {
	return func(s *Service) { s.deliveries.open = open }
}

// UseDeliverer gives the Service the Deliverer open makes, as WithDeliverer
// does, unless it has one: it reports whether it took this one. A closed
// Service takes none.
func (s *Service) UseDeliverer(open func(*Deliveries) Deliverer) bool {
	return s.deliveries.use(open)
}

// Deliveries are a Service's webhook deliveries as its Deliverer works on
// them. Its methods are safe for concurrent use.
type Deliveries struct {
	s       *Service
	timeout time.Duration
	workers int
	hosts   []string
	client  *http.Client
	open    func(*Deliveries) Deliverer

	// engine is the Deliverer, once the Service has one.
	engine atomic.Pointer[Deliverer]
	// active is set once this Service knows of webhooks: only then do
	// letter changes and clock moves wake the Deliverer.
	active atomic.Bool
	// useMu orders the taking of a Deliverer and Close; closed is set by
	// Close: no Deliverer is taken after.
	useMu  sync.Mutex
	closed bool

	mu sync.Mutex
	// inflight holds the deliveries being attempted, so that a clock moved
	// past a lease does not start a second attempt alongside.
	inflight map[string]bool
	funcs    map[string]WebhookFunc
}

func (d *Deliveries) init(s *Service) {
	d.s = s
	if d.timeout <= 0 {
		d.timeout = DefaultWebhookTimeout
	}
	if d.workers <= 0 {
		d.workers = DefaultWebhookWorkers
	}
	if d.client == nil {
		d.client = s.egressClient(egress.WithTimeout(d.timeout), egress.WithMaxRedirects(0)).HTTP()
	}
	d.inflight = map[string]bool{}
	d.funcs = map[string]WebhookFunc{}
	if d.open != nil {
		d.use(d.open)
	}
}

// use makes open's Deliverer the Service's, unless it has one or is
// closed, and reports whether it did.
func (d *Deliveries) use(open func(*Deliveries) Deliverer) bool {
	d.useMu.Lock()
	defer d.useMu.Unlock()
	if d.closed || d.engine.Load() != nil {
		return false
	}
	e := open(d)
	d.engine.Store(&e)
	if !d.s.life.mock || d.s.rawStore == nil {
		return true // a real clock polls; a Service without a store has nothing to send
	}
	// A test clock has no poll: webhooks the store holds already (a
	// Service started again over a database) are found now, once.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	has, err := d.s.store.HasWebhooks(ctx)
	if err != nil {
		d.s.logger.Error("webhooks: look for stored webhooks", "err", err)
	}
	if has || err != nil {
		d.active.Store(true)
		e.Wake()
	}
	return true
}

// activate notes that webhooks exist, so letter changes and clock moves
// wake the Deliverer. A Service without one says, once, that their events
// are not sent.
func (d *Deliveries) activate() {
	if !d.active.Swap(true) && d.engine.Load() == nil {
		d.s.logger.Warn("webhooks: this Service has no Deliverer: their events are recorded but not sent (see lettershop.WithDeliverer)")
	}
}

// wake asks the Deliverer to look for due deliveries, if this Service
// knows of webhooks.
func (d *Deliveries) wake() {
	if d.active.Load() {
		if e := d.engine.Load(); e != nil {
			(*e).Wake()
		}
	}
}

// made is called after a letter write that made n deliveries: when it made
// any, they are due now. A write in an account without webhooks costs
// nothing more.
func (d *Deliveries) made(n int) {
	if n > 0 {
		d.activate()
		d.wake()
	}
}

// changed is called after a run of due letters moved some: their changes
// may have made deliveries.
func (d *Deliveries) changed() { d.wake() }

// stop closes the Deliverer, which waits for the attempts under way.
func (d *Deliveries) stop() {
	d.useMu.Lock()
	d.closed = true
	d.useMu.Unlock()
	if e := d.engine.Load(); e != nil {
		(*e).Close()
	}
}

// DeliverySettings are what the Service's options say of sending its
// events, for its Deliverer.
type DeliverySettings struct {
	// Timeout is how long an attempt waits for an answer
	// (WithWebhookTimeout); a delivery is leased a little longer.
	Timeout time.Duration
	// PerAccount is how many attempts of one account may be under way at
	// once (WithWebhookWorkers).
	PerAccount int
	// Client posts events (WithWebhookClient, or a client of the Service's
	// egress policy).
	Client *http.Client
	// Poll is how often to look for due deliveries without being woken,
	// for those other servers sharing the store make; 0 on a test clock,
	// where every change that makes some wakes the Deliverer.
	Poll time.Duration
	// Wall is the real time (WithWallClock), which signatures carry.
	Wall clock.Clock
	// Logger is the Service's.
	Logger *slog.Logger
}

// Settings returns the settings of the Service's deliveries.
func (d *Deliveries) Settings() DeliverySettings {
	set := DeliverySettings{Timeout: d.timeout, PerAccount: d.workers, Client: d.client, Wall: d.s.wall, Logger: d.s.logger}
	if !d.s.life.mock {
		set.Poll = pollEvery
	}
	return set
}

// Due returns the accounts whose earliest delivery to take is due on their
// own clock. The store names only accounts with pending deliveries; while
// no account has a clock of its own, only those with one due at the
// Service's time.
func (d *Deliveries) Due(ctx context.Context) ([]string, error) {
	q := storage.DeliveryAccountQuery{Leased: d.s.wall.Now(), Limit: duePage}
	if !d.s.clocks.apart() {
		q.Until = d.s.serverNow()
	}
	var out []string
	for {
		page, err := d.s.store.DeliveryAccounts(ctx, q)
		if err != nil {
			return out, err
		}
		for _, a := range page {
			if !a.Next.After(d.s.now(a.Account)) {
				out = append(out, a.Account)
			}
		}
		if len(page) < q.Limit {
			return out, nil
		}
		q.After = page[len(page)-1].Account
	}
}

// DeliveryAttempt is a delivery taken for one attempt, leased to whoever
// took it. It ends with Record, or Release when the attempt was cut short.
type DeliveryAttempt struct {
	// Account, WebhookID and DeliveryID name the delivery.
	Account    string
	WebhookID  string
	DeliveryID string
	// Attempt counts the delivery's attempts, this one included.
	Attempt int

	d   *Deliveries
	rec storage.Delivery
}

// Take claims up to n of the account's due deliveries, leasing each for an
// attempt, and returns them. The attempts it returns are the caller's to
// end even when it returns an error too.
func (d *Deliveries) Take(ctx context.Context, account string, n int) ([]*DeliveryAttempt, error) {
	return d.take(ctx, storage.DueQuery{Now: d.s.now(account), Account: account, Limit: n})
}

// take claims the due deliveries q selects.
func (d *Deliveries) take(ctx context.Context, q storage.DueQuery) ([]*DeliveryAttempt, error) {
	wall := d.s.wall.Now()
	claimed, err := d.s.store.ProcessDueDeliveries(ctx, storage.DeliveryDueQuery{DueQuery: q, Leased: wall},
		func(r *storage.Delivery) error {
			if d.busy(r) {
				return errBusy
			}
			r.Attempts++
			r.LastAttemptAt = d.s.now(r.Account)
			if until := r.LastAttemptAt.Add(WebhookRetryPeriod); r.Attempts == 1 && until.After(r.RetryUntil) {
				// First attempted long after its event (the clock was
				// moved past it, or it waited behind an earlier event of
				// its letter): it is still retried for the whole period.
				r.RetryUntil = until
			}
			r.LeasedUntil = wall.Add(d.timeout + leaseMargin)
			return nil
		})
	if errors.Is(err, errBusy) {
		err = nil
	}
	if len(claimed) > 0 {
		d.activate() // found by the poll: made by another server
	}
	out := make([]*DeliveryAttempt, 0, len(claimed))
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range claimed {
		d.inflight[inflightKey(&r)] = true
		out = append(out, &DeliveryAttempt{
			Account: r.Account, WebhookID: r.WebhookID, DeliveryID: r.ID, Attempt: r.Attempts, d: d, rec: r,
		})
	}
	return out, err
}

// errBusy stops a take at a delivery this process is attempting already.
var errBusy = errors.New("delivery under way")

func inflightKey(r *storage.Delivery) string { return r.WebhookID + "/" + r.ID }

func (d *Deliveries) busy(r *storage.Delivery) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inflight[inflightKey(r)]
}

// Release ends an attempt cut short, with nothing recorded: the lease
// passes, and the delivery is taken again.
func (a *DeliveryAttempt) Release() {
	a.d.mu.Lock()
	delete(a.d.inflight, inflightKey(&a.rec))
	a.d.mu.Unlock()
}

// WebhookTarget is where an attempt sends its event: the webhook's url and
// the secret that signs what is posted there, or, for a webhook
// SubscribeFunc made, the function of this process it goes to.
type WebhookTarget struct {
	URL    string
	Secret string
	Func   WebhookFunc
}

// Event reads what the attempt sends and where: the event, with the letter
// as it stood right after the change, and the webhook's target. An error
// says why it cannot be sent, for Record: the webhook or the letter could
// not be read, or the url is not one this Service may post to.
func (a *DeliveryAttempt) Event(ctx context.Context) (*WebhookEvent, WebhookTarget, error) {
	d, r := a.d, a.rec
	w, err := d.s.store.GetWebhook(ctx, r.Account, r.WebhookID)
	if err != nil {
		return nil, WebhookTarget{}, fmt.Errorf("the webhook could not be read: %w", err)
	}
	e, err := d.s.webhookEvent(ctx, r)
	if err != nil {
		return nil, WebhookTarget{}, err
	}
	u, err := url.Parse(w.URL)
	if err != nil {
		return nil, WebhookTarget{}, fmt.Errorf("the url %q can not be reached: %w", w.URL, err)
	}
	if u.Scheme == funcScheme {
		d.mu.Lock()
		fn := d.funcs[w.URL]
		d.mu.Unlock()
		if fn == nil {
			return nil, WebhookTarget{}, errors.New("no function of this process is subscribed at this url (it was made by SubscribeFunc in a process that has ended)")
		}
		return e, WebhookTarget{URL: w.URL, Func: fn}, nil
	}
	if !d.hostAllowed(u.Hostname()) {
		return nil, WebhookTarget{}, fmt.Errorf("the host %q is not one webhooks may reach on this server", u.Hostname())
	}
	return e, WebhookTarget{URL: w.URL, Secret: w.Secret}, nil
}

// webhookEvent is the event of delivery r: the letter as it stood right
// after the change.
func (s *Service) webhookEvent(ctx context.Context, r storage.Delivery) (*WebhookEvent, error) {
	rec, err := s.store.GetLetter(ctx, r.Account, r.LetterID)
	if err != nil {
		return nil, fmt.Errorf("the letter %s could not be read: %w", r.LetterID, err)
	}
	l, err := letterFromRecord(rec)
	if err != nil {
		return nil, fmt.Errorf("the letter %s could not be read: %w", r.LetterID, err)
	}
	s.setURL(l)
	return &WebhookEvent{ID: r.EventID, Type: WebhookEventType(r.Type), CreatedAt: r.EventAt.UTC(), Data: WebhookEventData{Object: letterAt(l, r.Seq)}}, nil
}

// AttemptOutcome is how an attempt went.
type AttemptOutcome struct {
	// StatusCode is the status of the receiver's answer; 0 when there was
	// none.
	StatusCode int
	// Err says what went wrong; nil for a success.
	Err error
	// RetryAfter is, after a failure, how long to wait on the account's
	// clock before the next attempt. When that is past the delivery's
	// retry period, the delivery has failed instead.
	RetryAfter time.Duration
	// Took is how long the attempt took, for Hooks.WebhookAttempt.
	Took time.Duration
}

// Record records how the attempt went, and ends it. A retry asked for
// meanwhile (RetryDelivery) wins over it, as does the webhook's deletion;
// any other error is the store's, and the delivery is taken again when its
// lease passes.
func (a *DeliveryAttempt) Record(ctx context.Context, o AttemptOutcome) error {
	defer a.Release()
	d, r := a.d, a.rec
	now := d.s.now(r.Account)
	outcome := "succeeded"
	r.LeasedUntil = time.Time{}
	r.StatusCode = o.StatusCode
	if o.Err == nil {
		r.Status, r.Error = storage.DeliverySucceeded, ""
	} else {
		r.Error = errorText(o.Err)
		r.NextAttemptAt = now.Add(o.RetryAfter)
		outcome = "retry"
		if r.NextAttemptAt.After(r.RetryUntil) {
			r.Status, outcome = storage.DeliveryFailed, "failed"
		}
	}
	if h := d.s.hooks.WebhookAttempt; h != nil {
		h(outcome, o.Took)
	}
	_, err := d.s.store.UpdateDelivery(ctx, r, nil)
	if errors.Is(err, storage.ErrConflict) || errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

// errorText is what a delivery keeps of an attempt's error: text every
// store can hold, as the receiver's status line or a function's error need
// not be (invalid UTF-8 and NUL bytes are replaced), and at most
// maxErrorText bytes of it.
func errorText(err error) string {
	s := strings.ReplaceAll(strings.ToValidUTF8(err.Error(), "\uFFFD"), "\x00", "\uFFFD")
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// forget drops the function subscribed at target, if any.
func (d *Deliveries) forget(target string) {
	if strings.HasPrefix(target, funcScheme+":") {
		d.mu.Lock()
		delete(d.funcs, target)
		d.mu.Unlock()
	}
}

// SubscribeFunc makes a webhook in the account whose events go to fn in
// this process rather than over HTTP, with the same order, retries and
// deliveries as any webhook's. Its url is go: and the webhook's id. The
// webhook lasts until deleted, but fn only as long as the Service: events
// of a webhook whose function is gone fail, and are retried.
func (s *Service) SubscribeFunc(ctx context.Context, account string, events []WebhookEventType, fn WebhookFunc) (*Webhook, error) {
	if fn == nil {
		return nil, invalidField("fn", "a function is required")
	}
	f := fieldErrors{}
	validateWebhookEvents(f, events)
	if err := f.err(); err != nil {
		return nil, err
	}
	token, err := s.newSecret()
	if err != nil {
		return nil, internal("subscribe", err)
	}
	target := funcScheme + ":" + strings.TrimPrefix(token, secretPrefix)
	d := &s.deliveries
	d.mu.Lock()
	d.funcs[target] = fn
	d.mu.Unlock()
	w, err := s.createWebhook(ctx, account, target, CreateWebhookInput{Events: events, Description: "a function of the process"})
	if err != nil {
		d.forget(target)
		return nil, err
	}
	return w, nil
}
