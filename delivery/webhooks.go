package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/egress"
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
	// outlives the attempt's own context.
	recordTimeout = 10 * time.Second
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

// Open returns the Deliverer lettershop comes with, for a Service's
// deliveries: an Engine that takes each account's due deliveries, at most
// DeliverySettings.PerAccount of an account's at once, and posts each
// event, signed (package webhook), to its webhook with the Service's
// client; a 2xx answer is a success, anything else, or none within the
// timeout, is retried after RetryDelay on the account's clock. Pass it to
// lettershop.WithDeliverer:
//
//	svc := lettershop.New(store, lettershop.WithDeliverer(delivery.Open))
func Open(d *lettershop.Deliveries) lettershop.Deliverer {
	set := d.Settings()
	w := &webhooks{d: d, set: set}
	e := New(w, Options{PerAccount: set.PerAccount, Poll: set.Poll, OnError: func(account string, err error) {
		set.Logger.Error("webhooks: take due deliveries", "account", account, "err", err)
	}})
	if set.Poll > 0 {
		e.Start()
	}
	return e
}

// webhooks is a Service's deliveries as a Source: an account's tasks are
// the attempts of its due deliveries.
type webhooks struct {
	d   *lettershop.Deliveries
	set lettershop.DeliverySettings
}

// Due implements Source.
func (w *webhooks) Due(ctx context.Context) ([]string, error) { return w.d.Due(ctx) }

// Take implements Source: it takes up to n of the account's due
// deliveries, and returns their attempts.
func (w *webhooks) Take(ctx context.Context, account string, n int) ([]Task, error) {
	attempts, err := w.d.Take(ctx, account, n)
	tasks := make([]Task, len(attempts))
	for i, a := range attempts {
		tasks[i] = func(ctx context.Context) { w.attempt(ctx, a) }
	}
	return tasks, err
}

// attempt sends one delivery's event and records the outcome. A ctx ended
// (the Service closed) cuts it short, with nothing recorded: the lease
// passes, and the delivery is taken again.
func (w *webhooks) attempt(ctx context.Context, a *lettershop.DeliveryAttempt) {
	began := time.Now()
	code, err := w.send(ctx, a)
	if ctx.Err() != nil {
		a.Release()
		return
	}
	o := lettershop.AttemptOutcome{StatusCode: code, Err: err, Took: time.Since(began)}
	if err != nil {
		o.RetryAfter = RetryDelay(a.Attempt)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := a.Record(rctx, o); err != nil {
		w.set.Logger.Error("webhooks: record an attempt", "delivery", a.DeliveryID, "webhook", a.WebhookID, "err", err)
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
	return w.post(ctx, target, body)
}

// post posts body to the target, signed.
func (w *webhooks) post(ctx context.Context, target lettershop.WebhookTarget, body []byte) (int, error) {
	actx, cancel := context.WithTimeout(ctx, w.set.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, target.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("the request could not be made: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "lettershop-webhooks/1")
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(target.Secret, w.set.Wall.Now(), body))
	resp, err := w.set.Client.Do(req)
	if err != nil {
		var refused *egress.Error
		if errors.As(err, &refused) && refused.Kind == egress.KindRefused {
			return 0, fmt.Errorf("not sent: %w", refused)
		}
		if errors.Is(actx.Err(), context.DeadlineExceeded) {
			return 0, fmt.Errorf("no answer within %s", w.set.Timeout)
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

// describeNetError is a network error without the request it was for,
// which the delivery shows already.
func describeNetError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// call hands an event to a function of this process, within the timeout;
// a panic is a failed attempt.
func (w *webhooks) call(ctx context.Context, fn lettershop.WebhookFunc, e *lettershop.WebhookEvent, body []byte) (err error) {
	ctx, cancel := context.WithTimeout(ctx, w.set.Timeout)
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
