package delivery

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
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/webhook"
	"github.com/lettershop/lettershop/wire"
)

// Bounds of the attempts.
const (
	// firstRetry and maxRetryDelay bound the backoff between attempts.
	firstRetry    = time.Minute
	maxRetryDelay = 12 * time.Hour
	// maxAnswer is how much of an answer is read before it is dropped.
	maxAnswer = 64 << 10
	// recordTimeout bounds the recording of an attempt's outcome, which
	// outlives the attempt's own context: within the lease's margin.
	recordTimeout = 20 * time.Second
	// recordRetry is the first wait before an outcome the store failed to
	// record is tried again; each wait doubles, up to a second.
	recordRetry = 50 * time.Millisecond
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

// Defaults of Open.
const (
	// DefaultTimeout is how long an attempt waits for an answer.
	DefaultTimeout = 10 * time.Second
	// leaseMargin is how much longer than an attempt's timeout its lease
	// lasts: the time to record the outcome.
	leaseMargin = 30 * time.Second
	// pollEvery is how often a deliverer on a real clock looks for due
	// deliveries it was not woken for.
	pollEvery = time.Second
)

// OpenOption configures the Deliverer OpenWith makes.
type OpenOption func(*settings)

type settings struct {
	timeout    time.Duration
	perAccount int
	maxRunning int
	hosts      egress.HostList
	// restricted says WithHosts was given entries: then only hosts the
	// list matches, none when its entries were all blank.
	restricted bool
	// badHosts is what was wrong with WithHosts' entries: then no host.
	badHosts error
	client   *http.Client
}

// WithTimeout sets how long an attempt to post an event waits for the
// answer, and so how long a delivery is leased for an attempt. The default
// is DefaultTimeout.
func WithTimeout(d time.Duration) OpenOption { return func(s *settings) { s.timeout = d } }

// WithPerAccount sets how many events of one account are posted at once:
// an account whose receiver is slow or hangs has at most that many
// attempts under way, and other accounts' events go out meanwhile. The
// default is DefaultPerAccount.
func WithPerAccount(n int) OpenOption { return func(s *settings) { s.perAccount = n } }

// WithMaxRunning sets how many events are posted at once in all, across
// the accounts: however many accounts have receivers that are slow or
// hang, their attempts hold at most that many connections, and a slot that
// comes free goes first to an account with the fewest attempts under way.
// The default is DefaultMaxRunning.
func WithMaxRunning(n int) OpenOption { return func(s *settings) { s.maxRunning = n } }

// WithHosts limits the hosts webhooks may post to: a name
// ("hooks.example.com"), a "*.example.com" for the names under a domain,
// an IP address or a network, read, checked and matched as the egress
// policy's list is (egress.ListHosts; empty entries are skipped, and a list
// of nothing but empty entries allows no host). A webhook url of another
// host is refused when it is given, and an event to one is not sent. The
// default, and WithHosts with no entry, is any host: in tests the receiver
// is often on the same machine. A list with a malformed entry allows no
// host, and the refusal names the entry; check a list read from a setting
// with egress.ListHosts first, as the server does.
func WithHosts(hosts ...string) OpenOption {
	l, err := egress.ListHosts(hosts...)
	return func(s *settings) { s.hosts, s.restricted, s.badHosts = l, len(hosts) > 0, err }
}

// WithClient sets the HTTP client events are posted with. An attempt still
// ends at WithTimeout, which its delivery's lease is measured by: a Timeout
// of the client's cuts attempts shorter, never longer. The default is a
// client of the Service's egress policy (lettershop.WithEgress), which
// follows no redirects (a 3xx is an answer, and not a success); a client
// given here is trusted to keep whatever policy it needs.
func WithClient(c *http.Client) OpenOption { return func(s *settings) { s.client = c } }

// Open returns the Deliverer lettershop comes with, as OpenWith() does.
// Pass it to lettershop.WithDeliverer:
//
//	svc := lettershop.New(store, lettershop.WithDeliverer(delivery.Open))
func Open(d *lettershop.Deliveries) lettershop.Deliverer { return OpenWith()(d) }

// OpenWith returns what makes the Deliverer lettershop comes with, set by
// opts, for lettershop.WithDeliverer: an Engine that takes each account's
// due deliveries, at most WithPerAccount of an account's at once, and
// posts each event, signed (package webhook), to its webhook; a 2xx answer
// is a success, anything else, or none within the timeout, is retried
// after RetryDelay on the account's clock.
//
//	lettershop.WithDeliverer(delivery.OpenWith(delivery.WithTimeout(5*time.Second)))
func OpenWith(opts ...OpenOption) func(*lettershop.Deliveries) lettershop.Deliverer {
	set := settings{timeout: DefaultTimeout, perAccount: DefaultPerAccount}
	for _, o := range opts {
		o(&set)
	}
	if set.timeout <= 0 {
		set.timeout = DefaultTimeout
	}
	return func(d *lettershop.Deliveries) lettershop.Deliverer {
		svc := d.Settings()
		w := &webhooks{d: d, svc: svc, settings: set, inflight: map[string]bool{}}
		if w.client == nil {
			c := egress.New(svc.Egress, append(svc.EgressOptions, egress.WithTimeout(set.timeout), egress.WithMaxRedirects(0))...)
			w.client, w.made = c.HTTP(), c
		}
		o := Options{PerAccount: set.perAccount, MaxRunning: set.maxRunning, OnError: func(account string, err error) {
			svc.Logger.Error("webhooks: take due deliveries", "account", account, "err", err)
		}}
		if svc.Poll {
			o.Poll = pollEvery
		}
		w.Engine = New(w, o)
		if svc.Poll {
			w.Start()
		}
		return w
	}
}

// webhooks is a Service's deliveries as a Source, and the Deliverer that
// runs them: an account's tasks are the attempts of its due deliveries.
type webhooks struct {
	*Engine
	settings
	d   *lettershop.Deliveries
	svc lettershop.DeliverySettings
	// made is the client OpenWith made, whose idle connections Close closes.
	made *egress.Client

	mu sync.Mutex
	// inflight holds the deliveries being attempted, so that a wall clock
	// moved past a lease does not start a second attempt alongside.
	inflight map[string]bool
}

// CloseIdleConnections closes the idle connections events were posted
// on, as http.Client's method does: a caller about to close a server
// that received events (a test's receiver) closes them first, so that
// the connections' TIME_WAIT is on this client's ports and not on the
// server's.
func (w *webhooks) CloseIdleConnections() {
	if w.made != nil {
		w.made.CloseIdleConnections()
		return
	}
	w.client.CloseIdleConnections()
}

// Close implements lettershop.Deliverer.
func (w *webhooks) Close() {
	w.Engine.Close()
	if w.made != nil {
		w.made.CloseIdleConnections()
	}
}

// CheckHost implements lettershop.HostChecker: webhooks may reach any host
// when no list is set, else a host the list matches (egress.HostList).
func (w *webhooks) CheckHost(host string) error {
	if w.badHosts != nil {
		return fmt.Errorf("webhooks may reach no host on this server: its list of hosts is malformed: %w", w.badHosts)
	}
	if !w.restricted || w.hosts.Match(host) {
		return nil
	}
	return fmt.Errorf("the host %s is not one webhooks may reach on this server (%s)", echo.Quote(host), strings.ReplaceAll(w.hosts.String(), ",", ", "))
}

// Due implements Source.
func (w *webhooks) Due(ctx context.Context) ([]string, error) { return Due(ctx, w.d) }

// duePage is how many accounts one call of DueAccounts names at most.
const duePage = 500

// Due returns the accounts whose earliest delivery to take is due on their
// own clock, from every page of d.DueAccounts: where a pass of a
// Deliverer begins.
func Due(ctx context.Context, d *lettershop.Deliveries) ([]string, error) {
	var out []string
	after := ""
	for {
		due, next, err := d.DueAccounts(ctx, after, duePage)
		if out == nil {
			out = due
		} else {
			out = append(out, due...)
		}
		if err != nil || next == "" {
			return out, err
		}
		after = next
	}
}

// Take implements Source: it takes up to n of the account's due
// deliveries, each leased for an attempt, and returns their attempts.
func (w *webhooks) Take(ctx context.Context, account string, n int) ([]Task, error) {
	attempts, err := w.d.Take(ctx, lettershop.TakeRequest{Account: account, Limit: n, Lease: w.timeout + leaseMargin, Busy: w.busy})
	tasks := make([]Task, len(attempts))
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, a := range attempts {
		w.inflight[inflightKey(a.WebhookID, a.DeliveryID)] = true
		tasks[i] = func(ctx context.Context) {
			defer w.done(a)
			w.attempt(ctx, a)
		}
	}
	return tasks, err
}

func inflightKey(webhookID, deliveryID string) string { return webhookID + "/" + deliveryID }

func (w *webhooks) busy(webhookID, deliveryID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inflight[inflightKey(webhookID, deliveryID)]
}

func (w *webhooks) done(a *lettershop.DeliveryAttempt) {
	w.mu.Lock()
	delete(w.inflight, inflightKey(a.WebhookID, a.DeliveryID))
	w.mu.Unlock()
}

// attempt sends one delivery's event and records the outcome. A ctx ended
// (the Service closed) cuts it short, with nothing recorded: the lease
// passes, and the delivery is taken again.
func (w *webhooks) attempt(ctx context.Context, a *lettershop.DeliveryAttempt) {
	began := time.Now()
	code, err := w.send(ctx, a)
	if ctx.Err() != nil {
		return // the lease passes, and the delivery is taken again
	}
	o := lettershop.AttemptOutcome{StatusCode: code, Err: err, Took: time.Since(began)}
	if err != nil {
		o.RetryAfter = RetryDelay(a.Attempt)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	// A store out of reach for a moment (a database restarting, a lost
	// connection) is tried again while the lease holds: the event was sent,
	// and an outcome not recorded sends it again once the lease passes.
	for wait := recordRetry; ; wait = min(2*wait, time.Second) {
		err := a.Record(rctx, o)
		if err == nil {
			return
		}
		select {
		case <-time.After(wait):
			continue
		case <-rctx.Done():
		case <-ctx.Done():
		}
		w.svc.Logger.Error("webhooks: record an attempt", "delivery", a.DeliveryID, "webhook", a.WebhookID, "err", err)
		return
	}
}

// send sends the attempt's event and returns the answer's status (0 when
// there was none) and what was wrong, nil for a 2xx answer.
func (w *webhooks) send(ctx context.Context, a *lettershop.DeliveryAttempt) (int, error) {
	e, target, err := a.Event(ctx)
	if err != nil {
		return 0, err
	}
	body, err := wire.AppendWebhookEvent(make([]byte, 0, 4<<10), e)
	if err != nil {
		return 0, fmt.Errorf("the event could not be encoded: %w", err)
	}
	if target.Func != nil {
		return 0, w.call(ctx, target.Func, e, body)
	}
	u, err := url.Parse(target.URL)
	if err != nil {
		return 0, fmt.Errorf("the url %q can not be reached: %w", target.URL, err)
	}
	if err := w.CheckHost(u.Hostname()); err != nil {
		return 0, err
	}
	return w.post(ctx, target, body)
}

// post posts body to the target, signed.
func (w *webhooks) post(ctx context.Context, target lettershop.WebhookTarget, body []byte) (int, error) {
	actx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, target.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("the request could not be made: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "lettershop-webhooks/1")
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(target.Secret, w.svc.Wall.Now(), body))
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, w.failure(ctx, req.URL, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return resp.StatusCode, nil
}

// failure says why a post got no answer, as the egress client sorts what
// a request returns (egress.Classify): a refusal is not sent, no answer
// within the attempt's time (or the client's own Timeout, when shorter)
// says so, and anything else is egress's reason.
func (w *webhooks) failure(ctx context.Context, u *url.URL, err error) error {
	timeout := w.timeout
	if t := w.client.Timeout; t > 0 && t < timeout {
		timeout = t
	}
	var e *egress.Error
	if !errors.As(egress.Classify(ctx, u, err, timeout), &e) {
		return err // ctx ended: nothing is recorded
	}
	switch e.Kind {
	case egress.KindRefused:
		return fmt.Errorf("not sent: %w", e)
	case egress.KindTimeout:
		return fmt.Errorf("no answer within %s", timeout)
	}
	return e
}

// call hands an event to a function of this process, within the timeout;
// a panic is a failed attempt.
func (w *webhooks) call(ctx context.Context, fn lettershop.WebhookFunc, e *lettershop.WebhookEvent, body []byte) (err error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the function panicked: %v", p)
		}
	}()
	if err := fn(ctx, e, body); err != nil {
		return fmt.Errorf("the function failed: %w", err)
	}
	return nil
}
