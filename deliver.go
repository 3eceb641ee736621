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

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/webhook"
)

// The deliverer posts webhook events. A loop takes the deliveries that are
// due (storage.ProcessDueDeliveries: pending, due on their account's clock,
// a letter's in order) as workers come free, leasing each for the length
// of an attempt on the wall clock, and hands them to a bounded pool of
// workers. A worker posts the event, signed, and records the outcome: a
// 2xx answer is success; anything else, or none within the timeout, is
// retried after a backoff on the account's clock (1 minute, then four
// times longer each time, at most 12 hours) until WebhookRetryPeriod has
// passed since the event, or since the first attempt when that came later,
// and then the delivery has failed. A server that
// dies mid-attempt leaves the delivery leased; once the lease passes,
// another takes it up: a receiver may see an event twice (its id tells),
// never none.
//
// The loop runs when something may have fallen due: a letter write that
// made deliveries, letters moved by the lifecycle (on a real clock once
// this Service knows of webhooks), a clock moved, an outcome recorded; and,
// on a real clock, every second, for the changes other servers make.

// Defaults of the deliverer.
const (
	// DefaultWebhookTimeout is how long an attempt waits for an answer.
	DefaultWebhookTimeout = 10 * time.Second
	// DefaultWebhookWorkers is how many attempts run at once.
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

// WithWebhookWorkers sets how many events are posted at once. The default
// is DefaultWebhookWorkers.
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

	// active is set once this Service knows of webhooks: a letter change
	// then wakes the loop.
	active atomic.Bool
	wakeCh chan struct{}
	// free counts the workers not busy.
	free  chan struct{}
	start sync.Once
	// inflight holds the deliveries being attempted, so that a clock moved
	// past a lease does not start a second attempt alongside.
	mu       sync.Mutex
	inflight map[string]bool
	funcs    map[string]WebhookFunc

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

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
	d.wakeCh = make(chan struct{}, 1)
	d.free = make(chan struct{}, d.workers)
	for range d.workers {
		d.free <- struct{}{}
	}
	d.inflight = map[string]bool{}
	d.funcs = map[string]WebhookFunc{}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	if !s.life.mock {
		// On a real clock other servers' changes fall due too: poll.
		d.run()
	}
}

// run starts the loop, once.
func (d *deliverer) run() {
	d.start.Do(func() {
		d.wg.Add(1)
		go d.loop()
	})
}

// activate notes that webhooks exist, so letter changes wake the loop.
func (d *deliverer) activate() {
	d.active.Store(true)
	d.run()
}

// wake asks the loop to look for due deliveries.
func (d *deliverer) wake() {
	d.run()
	select {
	case d.wakeCh <- struct{}{}:
	default:
	}
}

// made is called after a letter write that made n deliveries: when it made
// any, they are due now. A write in an account without webhooks costs
// nothing more.
func (d *deliverer) made(n int) {
	if n > 0 {
		d.wake()
	}
}

// changed is called after a run of due letters moved some. On a test clock
// it always wakes the loop: a Service started over a store that holds
// webhooks has no poll to find them by.
func (d *deliverer) changed() {
	if d.active.Load() || d.s.life.mock {
		d.wake()
	}
}

// stop ends the loop and waits for the attempts under way, which are cut
// short: their deliveries stay leased, and are attempted again when the
// lease passes.
func (d *deliverer) stop() {
	d.cancel()
	d.wg.Wait()
}

func (d *deliverer) loop() {
	defer d.wg.Done()
	var tick <-chan time.Time
	if !d.s.life.mock {
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-d.wakeCh:
		case <-tick:
		}
		if err := d.dispatch(); err != nil && d.ctx.Err() == nil {
			d.s.logger.Error("webhooks: take due deliveries", "err", err)
		}
	}
}

// dispatch hands due deliveries to free workers: those of accounts on the
// Service's clock at its time, then each account on a clock of its own at
// its time, until no worker is free or nothing is due.
func (d *deliverer) dispatch() error {
	server := d.s.serverNow()
	except, _ := d.s.clocks.behind(server)
	queries := []storage.DueQuery{{Now: server, Except: except}}
	for _, a := range d.s.clocks.accounts() {
		queries = append(queries, storage.DueQuery{Now: d.s.now(a), Account: a})
	}
	for _, q := range queries {
		for {
			n, err := d.take(q)
			if err != nil || n == 0 {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// take claims as many due deliveries of q as there are free workers, and
// starts them. It reports how many it started.
func (d *deliverer) take(q storage.DueQuery) (int, error) {
	var slots int
	for slots < d.workers {
		select {
		case <-d.free:
			slots++
			continue
		default:
		}
		break
	}
	if slots == 0 {
		return 0, nil
	}
	release := func(n int) {
		for range n {
			d.free <- struct{}{}
		}
	}
	q.Limit = slots
	wall := d.s.wall.Now()
	claimed, err := d.s.store.ProcessDueDeliveries(d.ctx, storage.DeliveryDueQuery{DueQuery: q, Leased: wall},
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
	release(slots - len(claimed))
	if err != nil {
		return 0, err
	}
	for _, r := range claimed {
		d.active.Store(true)
		d.mu.Lock()
		d.inflight[r.WebhookID+"/"+r.ID] = true
		d.mu.Unlock()
		d.wg.Add(1)
		go d.attempt(r)
	}
	return len(claimed), nil
}

// errBusy stops a take at a delivery this process is attempting already.
var errBusy = errors.New("delivery under way")

func (d *deliverer) busy(r *storage.Delivery) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inflight[r.WebhookID+"/"+r.ID]
}

// attempt posts one delivery's event and records the outcome.
func (d *deliverer) attempt(r storage.Delivery) {
	defer d.wg.Done()
	defer func() {
		d.mu.Lock()
		delete(d.inflight, r.WebhookID+"/"+r.ID)
		d.mu.Unlock()
		d.free <- struct{}{}
		d.wake()
	}()
	began := time.Now()
	code, err := d.post(r)
	if d.ctx.Err() != nil {
		return // shut down: the lease passes, and the delivery is taken again
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
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), 10*time.Second)
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
func (d *deliverer) post(r storage.Delivery) (int, error) {
	ctx := d.ctx
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
