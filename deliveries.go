package lettershop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/internal/wakeable"
	"github.com/lettershop/lettershop/storage"
)

// The Service records webhook events and their deliveries in the same
// store write as the change they tell of (webhooks.go); a Deliverer sends
// them through the Service's Deliveries, and how attempts are made is its
// own (package delivery's Open is the one lettershop comes with). The
// rules stay here: what is due, on which clock, and when a failure is
// retried (until WebhookRetryPeriod has passed since the event, or the
// first attempt if later) or has failed.
//
// Once the Service knows of webhooks (it made one, a delivery was taken,
// the store held some at start) it wakes its Deliverer when something may
// have fallen due: a letter write that made deliveries, letters moved, a
// clock moved, a webhook enabled, a retry asked for. On a test clock a
// Service that knows of no webhooks does no webhook work at all.

// A Deliverer sends the webhook events a Service records, through the
// Service's Deliveries (WithDeliverer).
type Deliverer interface {
	// Wake tells the deliverer that deliveries may have fallen due. It
	// must not block.
	Wake()
	// Close stops the deliverer; the deliveries of attempts cut short stay
	// leased, and are taken again when the lease passes.
	Close()
}

// A HostChecker is a Deliverer that posts to some hosts only: a webhook url
// whose host CheckHost refuses is refused when it is given.
type HostChecker interface {
	CheckHost(host string) error
}

// WithDeliverer sets what sends the Service's webhook events: New calls
// open once with the Service's Deliveries, and the Deliverer it returns is
// the Service's until Close (lettershop.WithDeliverer(delivery.Open)).
// Without one a Service records events and their deliveries but sends none,
// until UseDeliverer gives it one (httpadapter.New does).
func WithDeliverer(open func(*Deliveries) Deliverer) Option {
	return func(s *Service) { s.deliveries.open = open }
}

// UseDeliverer gives the Service the Deliverer open makes, as WithDeliverer
// does, unless it has one or is closed; it reports whether it took it.
func (s *Service) UseDeliverer(open func(*Deliveries) Deliverer) bool {
	return s.deliveries.use(open)
}

// Deliveries are a Service's webhook deliveries as its Deliverer works on
// them. Its methods are safe for concurrent use.
type Deliveries struct {
	s    *Service
	open func(*Deliveries) Deliverer
	// deliverer holds the Deliverer, given once; it is activated once this
	// Service knows of webhooks: only then do letter changes and clock
	// moves wake it.
	deliverer wakeable.Slot
	funcs     sync.Map // SubscribeFunc's WebhookFunc, by url
}

func (d *Deliveries) init(s *Service) {
	d.s = s
	if d.open != nil {
		d.use(d.open)
	}
}

func (d *Deliveries) use(open func(*Deliveries) Deliverer) bool {
	return d.deliverer.Give(func() wakeable.Worker {
		e := open(d)
		if d.s.life.mock && d.s.rawStore != nil && d.storedWebhooks(context.Background()) {
			d.deliverer.Activate()
			e.Wake()
		}
		return e
	})
}

// wakeAfterMove wakes the Deliverer after a move of a clock. On a test
// clock, a Deliverer not yet active asks the store again whether it holds
// webhooks: one made through another server sharing the store, since this
// one started, has deliveries that fall due on the clock moved through
// this one, and nothing wakes the other server to attempt them.
func (d *Deliveries) wakeAfterMove(ctx context.Context) {
	if d.s.life.mock && !d.deliverer.Active() && d.deliverer.Worker() != nil && d.storedWebhooks(ctx) {
		d.deliverer.Activate()
	}
	d.deliverer.Wake()
}

// storedWebhooks reports whether the store holds webhooks already (a
// Service started again over a database, or another server on it made
// them), or could not say. A real clock polls and needs not ask; on a
// test clock, which has no poll, it is asked when the Deliverer is given,
// and at each move of a clock until the Deliverer is active.
func (d *Deliveries) storedWebhooks(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	has, err := d.s.store.HasWebhooks(ctx)
	if err != nil {
		d.s.logger.Error("webhooks: look for stored webhooks", "err", err)
	}
	return has || err != nil
}

// activate notes that webhooks exist; a Service without a Deliverer says,
// once, that their events are not sent.
func (d *Deliveries) activate() {
	if d.deliverer.Activate() && d.deliverer.Worker() == nil {
		d.s.logger.Warn("webhooks: this Service has no Deliverer: their events are recorded but not sent (see lettershop.WithDeliverer)")
	}
}

// made is called after a letter write that made n deliveries, due now.
func (d *Deliveries) made(n int) {
	if n > 0 {
		d.activate()
		d.deliverer.Wake()
	}
}

// checkHost asks the Deliverer whether webhooks may post to host.
func (d *Deliveries) checkHost(host string) error {
	if c, ok := d.deliverer.Worker().(HostChecker); ok {
		return c.CheckHost(host)
	}
	return nil
}

// DeliverySettings are what the Service's options say that its Deliverer
// needs.
type DeliverySettings struct {
	// Poll is set when deliveries may fall due without a wake (a real
	// clock; other servers sharing the store): look for them now and then.
	Poll bool
	// Wall is the real time (WithWallClock), which signatures carry.
	Wall   clock.Clock
	Logger *slog.Logger
	// Egress and EgressOptions are the policy the Service's own requests
	// keep, and its clients' options (WithEgress).
	Egress        egress.Policy
	EgressOptions []egress.Option
}

// Settings returns the settings of the Service's deliveries.
func (d *Deliveries) Settings() DeliverySettings {
	return DeliverySettings{Poll: !d.s.life.mock, Wall: d.s.wall, Logger: d.s.logger, Egress: d.s.egress,
		EgressOptions: append([]egress.Option(nil), d.s.egressOpts...)}
}

// DueAccounts returns a page of the accounts whose earliest delivery to
// take is due on their own clock: of the next limit accounts with
// deliveries to take, in account order after the account after ("" for
// the first page), those due; and the account the next page starts after,
// "" after the last page (delivery.Due reads every page). The store names
// only accounts with pending deliveries; while no account has a clock of
// its own, only those with one due at the Service's time.
func (d *Deliveries) DueAccounts(ctx context.Context, after string, limit int) (due []string, next string, err error) {
	q := storage.DeliveryAccountQuery{Leased: d.s.wall.Now(), After: after, Limit: limit}
	if !d.s.clocks.Apart() {
		q.Until = d.s.clocks.ServerNow()
	}
	page, err := d.s.store.DeliveryAccounts(ctx, q)
	for _, a := range page {
		if !a.Next.After(d.s.now(a.Account)) {
			due = append(due, a.Account)
		}
	}
	if err == nil && len(page) == limit && limit > 0 {
		next = page[len(page)-1].Account
	}
	return due, next, err
}

// TakeRequest says which due deliveries Take claims, and for how long.
type TakeRequest struct {
	Account string
	// Limit is how many to take at most.
	Limit int
	// Lease is how long, on the wall clock, each is held for its attempt
	// (the attempt's timeout and the time to record it): no one takes it
	// again before. It must be positive.
	Lease time.Duration
	// Busy, when set, tells the deliveries the caller still attempts (whose
	// lease passed): the take stops at the first.
	Busy func(webhookID, deliveryID string) bool
}

// DeliveryAttempt is a delivery taken for one attempt. It ends with Record,
// or is let go when the attempt was cut short: the lease passes, and the
// delivery is taken again.
type DeliveryAttempt struct {
	// Account, WebhookID and DeliveryID name the delivery.
	Account    string
	WebhookID  string
	DeliveryID string
	// Attempt counts the delivery's attempts, this one included.
	Attempt int

	s   *Service
	rec storage.Delivery
}

// Take claims the account's due deliveries r selects, leasing each for an
// attempt. The attempts it returns are the caller's even when it returns an
// error too.
func (d *Deliveries) Take(ctx context.Context, r TakeRequest) ([]*DeliveryAttempt, error) {
	if r.Lease <= 0 {
		return nil, errors.New("lettershop: a take needs a positive lease")
	}
	wall := d.s.wall.Now()
	q := storage.DeliveryDueQuery{DueQuery: storage.DueQuery{Now: d.s.now(r.Account), Account: r.Account, Limit: r.Limit}, Leased: wall}
	claimed, err := d.s.store.ProcessDueDeliveries(ctx, q,
		func(rec *storage.Delivery) error {
			if r.Busy != nil && r.Busy(rec.WebhookID, rec.ID) {
				return errBusy
			}
			rec.Attempts++
			rec.LastAttemptAt = d.s.now(rec.Account)
			if until := rec.LastAttemptAt.Add(WebhookRetryPeriod); rec.Attempts == 1 && until.After(rec.RetryUntil) {
				// First attempted long after its event (a clock moved past
				// it, or it waited behind an earlier event of its letter):
				// still retried for the whole period.
				rec.RetryUntil = until
			}
			rec.LeasedUntil = wall.Add(r.Lease)
			return nil
		})
	if errors.Is(err, errBusy) {
		err = nil
	}
	if len(claimed) > 0 {
		d.activate() // found by a poll: made by another server
	}
	out := make([]*DeliveryAttempt, len(claimed))
	for i, rec := range claimed {
		out[i] = &DeliveryAttempt{Account: rec.Account, WebhookID: rec.WebhookID, DeliveryID: rec.ID, Attempt: rec.Attempts, s: d.s, rec: rec}
	}
	return out, err
}

// errBusy stops a take at a delivery its caller is attempting already.
var errBusy = errors.New("delivery under way")

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
// says why it cannot be sent, for Record.
func (a *DeliveryAttempt) Event(ctx context.Context) (*WebhookEvent, WebhookTarget, error) {
	s, r := a.s, a.rec
	w, err := s.store.GetWebhook(ctx, r.Account, r.WebhookID)
	if err != nil {
		return nil, WebhookTarget{}, fmt.Errorf("the webhook could not be read: %w", err)
	}
	rec, err := s.store.GetLetter(ctx, r.Account, r.LetterID)
	var l *Letter
	if err == nil {
		l, err = letterFromRecord(rec)
	}
	if err != nil {
		return nil, WebhookTarget{}, fmt.Errorf("the letter %s could not be read: %w", r.LetterID, err)
	}
	s.setURL(l)
	e := &WebhookEvent{ID: r.EventID, Type: WebhookEventType(r.Type), CreatedAt: r.EventAt.UTC(), Data: WebhookEventData{Object: letterAt(l, r.Seq)}}
	if !strings.HasPrefix(w.URL, funcScheme+":") {
		return e, WebhookTarget{URL: w.URL, Secret: w.Secret}, nil
	}
	fn, _ := s.deliveries.funcs.Load(w.URL)
	if fn == nil {
		return nil, WebhookTarget{}, errors.New("no function of this Service is subscribed at this url: SubscribeFunc made it in another Service, one sharing the store or one that has ended, which alone can take its events")
	}
	return e, WebhookTarget{URL: w.URL, Func: fn.(WebhookFunc)}, nil
}

// AttemptOutcome is how an attempt went.
type AttemptOutcome struct {
	// StatusCode is the status of the receiver's answer; 0 when none.
	StatusCode int
	// Err says what went wrong; nil for a success.
	Err error
	// RetryAfter is, after a failure, how long to wait on the account's
	// clock before the next attempt, counted from when the attempt was
	// taken (its LastAttemptAt), not from when it is recorded; past the
	// delivery's retry period, the delivery has failed instead.
	RetryAfter time.Duration
	// Took is how long the attempt took, for Hooks.WebhookAttempt.
	Took time.Duration
}

// Record records how the attempt went. A retry asked for meanwhile
// (RetryDelivery) wins over it, as does the webhook's deletion; any other
// error is the store's, and the delivery is taken again when its lease
// passes.
func (a *DeliveryAttempt) Record(ctx context.Context, o AttemptOutcome) error {
	s, r := a.s, a.rec
	outcome := "succeeded"
	r.LeasedUntil, r.StatusCode = time.Time{}, o.StatusCode
	if o.Err == nil {
		r.Status, r.Error = storage.DeliverySucceeded, ""
	} else {
		// From the attempt: a clock moved while the receiver answered
		// (a test moving it by the backoff once it saw the request) then
		// finds the retry due, and nextAttemptAt is lastAttemptAt plus
		// the backoff, as the deliveries show it.
		r.Error, r.NextAttemptAt, outcome = storage.ErrorText(o.Err), r.LastAttemptAt.Add(o.RetryAfter), "retry"
		if r.NextAttemptAt.After(r.RetryUntil) {
			r.Status, outcome = storage.DeliveryFailed, "failed"
		}
	}
	if h := s.hooks.WebhookAttempt; h != nil {
		h(outcome, o.Took)
	}
	_, err := s.store.UpdateDelivery(ctx, r, nil)
	if errors.Is(err, storage.ErrConflict) || errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

// WebhookFunc receives the events of a webhook made by SubscribeFunc: the
// event, and its JSON as it would be posted. An error is a failed attempt,
// retried as a webhook's.
type WebhookFunc func(ctx context.Context, e *WebhookEvent, body []byte) error

// SubscribeFunc makes a webhook in the account whose events go to fn in
// this process rather than over HTTP, with the same order, retries and
// deliveries as any webhook's. Its url is go: and a random token, which
// names fn in this Service. The webhook lasts until deleted, but fn only
// as long as the Service: events of a webhook whose function is gone fail,
// and are retried. A Service started again over the same store (pgstore)
// can not give that webhook a function again: delete it and subscribe
// anew, or use a webhook posting over HTTP, whose events outlive a
// restart. On a store several Services share, the Deliverer of any of them
// may take the webhook's events, and an attempt made by one without fn
// fails and waits for its retry: there, use a webhook posting over HTTP.
func (s *Service) SubscribeFunc(ctx context.Context, account string, events []WebhookEventType, fn WebhookFunc) (*Webhook, error) {
	if fn == nil {
		return nil, invalidField("fn", "a function is required")
	}
	if err := accountErr(account); err != nil {
		return nil, err
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
	s.deliveries.funcs.Store(target, fn)
	w, err := s.createWebhook(ctx, account, target, CreateWebhookInput{Events: events, Description: "a function of the process"})
	if err != nil {
		s.deliveries.funcs.Delete(target)
		return nil, err
	}
	return w, nil
}
