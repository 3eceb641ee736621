package lettershop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/webhook"
)

// The deliverer posts webhook events. The engine of package delivery runs
// the attempts: on each pass it asks which accounts have deliveries due
// (storage.DeliveryAccounts, each account's earliest judged on its own
// clock) and takes each such account's due deliveries
// (storage.ProcessDueDeliveries: pending, due on the account's clock, a
// letter's in order), as many as the account has attempts free, leasing
// each for the length of an attempt on the wall clock. An account has at
// most WithWebhookWorkers attempts under way: a receiver that hangs holds
// back its own account's events, and no other's. An attempt posts the
// event, signed, and records the outcome: a 2xx answer is success;
// anything else, or none within the timeout, is retried after a backoff on
// the account's clock (1 minute, then four times longer each time, at most
// 12 hours) until WebhookRetryPeriod has passed since the event, or since
// the first attempt when that came later, and then the delivery has
// failed. A server that dies mid-attempt leaves the delivery leased; once
// the lease passes, another takes it up: a receiver may see an event twice
// (its id tells), never none.
//
// A pass is made once this Service knows of webhooks (it made one, took a
// delivery, or the store held some when it started), when something may
// have fallen due: a letter write that made deliveries, letters moved by
// the lifecycle, a clock moved, an attempt ended; and, on a real clock,
// every second, for the deliveries other servers make. On a test clock a
// Service that knows of no webhooks does no webhook work at all.

// Defaults of the deliverer.
const (
	// DefaultWebhookTimeout is how long an attempt waits for an answer.
	DefaultWebhookTimeout = 10 * time.Second
	// DefaultWebhookWorkers is how many attempts of one account run at
	// once.
	DefaultWebhookWorkers = 4
)

// firstRetry and maxRetryDelay bound the backoff between attempts.
const (
	firstRetry    = time.Minute
	maxRetryDelay = 12 * time.Hour
	// leaseMargin is how much longer than an attempt's timeout its lease
	// lasts: the time to record the outcome.
	leaseMargin = 30 * time.Second
	// pollEvery is how often a server on a real clock looks for due
	// deliveries it was not woken for.
	pollEvery = time.Second
	// maxAnswer is how much of an answer is read before it is dropped.
	maxAnswer = 64 << 10
	// maxErrorText is how much of an attempt's error a delivery keeps, in
	// bytes.
	maxErrorText = 1000
)

// RetryDelay is how long after its n-th failed attempt a delivery is tried
// again: 1 minute, 4, 16, 64, ..., at most 12 hours.
func RetryDelay(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	d := firstRetry
	for range n - 1 {
		d *= 4
		if d >= maxRetryDelay {
			return maxRetryDelay
		}
	}
	return d
}

// WithWebhookTimeout sets how long an attempt to post an event waits for
// the answer. The default is DefaultWebhookTimeout.
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

type deliverer struct {
	s       *Service
	timeout time.Duration
	workers int
	hosts   []string
	client  *http.Client

	// engine runs the attempts, at most workers of an account at once.
	engine deliveryEngine
	// active is set once this Service knows of webhooks: only then do
	// letter changes and clock moves wake the engine.
	active atomic.Bool
	// inflight holds the deliveries being attempted, so that a clock moved
	// past a lease does not start a second attempt alongside.
	mu       sync.Mutex
	inflight map[string]bool
	funcs    map[string]WebhookFunc
}

// deliveryEngine runs the attempts of due deliveries: a delivery.Engine
// over the deliverer, which is its delivery.Source. Another engine (a
// queue shared by several services, say) may take its place: it finds the
// work through the Source, and is woken when some may have fallen due.
type deliveryEngine interface {
	// Wake asks for the due deliveries to be looked for.
	Wake()
	// Close stops the engine: the attempts under way are cut short and
	// waited for; their deliveries stay leased, and are attempted again
	// when the lease passes.
	Close()
}

var _ delivery.Source = (*deliverer)(nil)

func (d *deliverer) init(s *Service) {
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
	o := delivery.Options{PerAccount: d.workers, OnError: func(account string, err error) {
		s.logger.Error("webhooks: take due deliveries", "account", account, "err", err)
	}}
	if !s.life.mock {
		// On a real clock other servers' changes fall due too: poll.
		o.Poll = pollEvery
	}
	e := delivery.New(d, o)
	d.engine = e
	if !s.life.mock {
		e.Start()
		return
	}
	if s.rawStore == nil {
		return // built without a store, for its pure parts
	}
	// A test clock has no poll: webhooks the store holds already (a
	// Service started again over a database) are found now, once.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	has, err := s.store.HasWebhooks(ctx)
	if err != nil {
		s.logger.Error("webhooks: look for stored webhooks", "err", err)
	}
	if has || err != nil {
		d.active.Store(true)
		e.Wake()
	}
}

// activate notes that webhooks exist, so letter changes and clock moves
// wake the engine.
func (d *deliverer) activate() { d.active.Store(true) }

// wake asks the engine to look for due deliveries, if this Service knows
// of webhooks.
func (d *deliverer) wake() {
	if d.active.Load() {
		d.engine.Wake()
	}
}

// made is called after a letter write that made n deliveries: when it made
// any, they are due now. A write in an account without webhooks costs
// nothing more.
func (d *deliverer) made(n int) {
	if n > 0 {
		d.activate()
		d.wake()
	}
}

// changed is called after a run of due letters moved some: their changes
// may have made deliveries.
func (d *deliverer) changed() { d.wake() }

// stop ends the engine and waits for the attempts under way, which are cut
// short: their deliveries stay leased, and are attempted again when the
// lease passes.
func (d *deliverer) stop() { d.engine.Close() }

// duePage is how many accounts one call for the accounts with due
// deliveries returns.
const duePage = 500

// Due implements delivery.Source: the accounts whose earliest delivery to
// take is due on their own clock. The store names only accounts with
// pending deliveries; while no account has a clock of its own, only those
// with one due at the Service's time.
func (d *deliverer) Due(ctx context.Context) ([]string, error) {
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

// Take implements delivery.Source: it claims up to n of the account's due
// deliveries, leasing each for an attempt, and returns their attempts.
func (d *deliverer) Take(ctx context.Context, account string, n int) ([]delivery.Task, error) {
	return d.take(ctx, storage.DueQuery{Now: d.s.now(account), Account: account, Limit: n})
}

// take claims the due deliveries q selects, and returns their attempts.
func (d *deliverer) take(ctx context.Context, q storage.DueQuery) ([]delivery.Task, error) {
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
	tasks := make([]delivery.Task, 0, len(claimed))
	for _, r := range claimed {
		d.mu.Lock()
		d.inflight[r.WebhookID+"/"+r.ID] = true
		d.mu.Unlock()
		tasks = append(tasks, func(ctx context.Context) { d.attempt(ctx, r) })
	}
	return tasks, err
}

// errBusy stops a take at a delivery this process is attempting already.
var errBusy = errors.New("delivery under way")

func (d *deliverer) busy(r *storage.Delivery) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inflight[r.WebhookID+"/"+r.ID]
}

// attempt posts one delivery's event and records the outcome. A ctx ended
// (the Service closed) cuts it short, with nothing recorded: the lease
// passes, and the delivery is taken again.
func (d *deliverer) attempt(ctx context.Context, r storage.Delivery) {
	defer func() {
		d.mu.Lock()
		delete(d.inflight, r.WebhookID+"/"+r.ID)
		d.mu.Unlock()
	}()
	began := time.Now()
	code, err := d.post(ctx, r)
	if ctx.Err() != nil {
		return
	}
	outcome := "succeeded"
	now := d.s.now(r.Account)
	r.LeasedUntil = time.Time{}
	r.StatusCode = code
	if err == nil {
		r.Status, r.Error = storage.DeliverySucceeded, ""
	} else {
		r.Error = errorText(err)
		r.NextAttemptAt = now.Add(RetryDelay(r.Attempts))
		outcome = "retry"
		if r.NextAttemptAt.After(r.RetryUntil) {
			r.Status, outcome = storage.DeliveryFailed, "failed"
		}
	}
	if h := d.s.hooks.WebhookAttempt; h != nil {
		h(outcome, time.Since(began))
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := d.s.store.UpdateDelivery(ctx, r, nil); err != nil {
		// A retry asked for meanwhile wins; anything else is logged, and the
		// delivery is attempted again when its lease passes.
		if !errors.Is(err, storage.ErrConflict) && !errors.Is(err, storage.ErrNotFound) {
			d.s.logger.Error("webhooks: record an attempt", "delivery", r.ID, "webhook", r.WebhookID, "err", err)
		}
	}
}

// post sends the event of r to its webhook and returns the answer's status
// (0 when there was none) and what was wrong, nil for a 2xx answer.
func (d *deliverer) post(ctx context.Context, r storage.Delivery) (int, error) {
	w, err := d.s.store.GetWebhook(ctx, r.Account, r.WebhookID)
	if err != nil {
		return 0, fmt.Errorf("the webhook could not be read: %w", err)
	}
	e, body, err := d.s.webhookEvent(ctx, r)
	if err != nil {
		return 0, err
	}
	u, err := url.Parse(w.URL)
	if err != nil {
		return 0, fmt.Errorf("the url %q can not be reached: %w", w.URL, err)
	}
	if u.Scheme == funcScheme {
		return d.call(ctx, w.URL, e, body)
	}
	if !d.hostAllowed(u.Hostname()) {
		return 0, fmt.Errorf("the host %q is not one webhooks may reach on this server", u.Hostname())
	}
	actx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("the request could not be made: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "lettershop-webhooks/1")
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(w.Secret, d.s.wall.Now(), body))
	resp, err := d.client.Do(req)
	if err != nil {
		var refused *egress.Error
		if errors.As(err, &refused) && refused.Kind == egress.KindRefused {
			return 0, fmt.Errorf("not sent: %w", refused)
		}
		if errors.Is(actx.Err(), context.DeadlineExceeded) {
			return 0, fmt.Errorf("no answer within %s", d.timeout)
		}
		return 0, fmt.Errorf("no answer: %s", describeNetError(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return resp.StatusCode, nil
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

// describeNetError is a network error without the request it was for,
// which the delivery shows already.
func describeNetError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// call hands an event to the function subscribed at target.
func (d *deliverer) call(ctx context.Context, target string, e *WebhookEvent, body []byte) (code int, err error) {
	d.mu.Lock()
	fn := d.funcs[target]
	d.mu.Unlock()
	if fn == nil {
		return 0, errors.New("no function of this process is subscribed at this url (it was made by SubscribeFunc in a process that has ended)")
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the function panicked: %v", p)
		}
	}()
	if err := fn(ctx, e, body); err != nil {
		return 0, fmt.Errorf("the function failed: %w", err)
	}
	return 0, nil
}

// forget drops the function subscribed at target, if any.
func (d *deliverer) forget(target string) {
	if strings.HasPrefix(target, funcScheme+":") {
		d.mu.Lock()
		delete(d.funcs, target)
		d.mu.Unlock()
	}
}

// webhookEvent is the event of delivery r, and its JSON: the letter as it
// stood right after the change.
func (s *Service) webhookEvent(ctx context.Context, r storage.Delivery) (*WebhookEvent, []byte, error) {
	rec, err := s.store.GetLetter(ctx, r.Account, r.LetterID)
	if err != nil {
		return nil, nil, fmt.Errorf("the letter %s could not be read: %w", r.LetterID, err)
	}
	l, err := letterFromRecord(rec)
	if err != nil {
		return nil, nil, fmt.Errorf("the letter %s could not be read: %w", r.LetterID, err)
	}
	s.setURL(l)
	e := &WebhookEvent{ID: r.EventID, Type: WebhookEventType(r.Type), CreatedAt: r.EventAt.UTC(), Data: WebhookEventData{Object: letterAt(l, r.Seq)}}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, nil, fmt.Errorf("the event could not be encoded: %w", err)
	}
	return e, body, nil
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
