package await

import (
	"context"
	"time"

	"github.com/lettershop/lettershop"
)

// settlePoll is how often Deliveries reads the deliveries again while some
// are due.
const settlePoll = 2 * time.Millisecond

// Deliveries waits, in real time, until every webhook delivery of the
// account that is due on the account's clock has been attempted and how
// the attempt went recorded: each then succeeded, failed, or waits for a
// retry the clock has not reached. A delivery waiting behind an earlier
// event of its letter, whose retry is not due, is not due either (it is
// sent after that one), nor is one of a disabled webhook. Nothing moves
// the clock. After it, a receiver has had every event due: what it did
// not get was not sent, and the deliveries show how each went.
//
// It first runs what is due (svc.RunDue): a test that moved a clock.Mock
// itself, and has called nothing of the Service since, has letters whose
// steps (and so their events) are not stored yet, and retries due that
// nothing has told the Service's Deliverer of; RunDue stores the one and
// wakes the Deliverer for the other.
//
// Where deliveries are still due after within (a receiver that takes
// longer than the attempt's timeout to answer, a Service that sends
// none, having no Deliverer), it is a CodeConflict naming one and saying
// which of these it looks like. A within that is not positive
// is CodeInvalid naming within.
func Deliveries(ctx context.Context, svc *lettershop.Service, account string, within time.Duration) error {
	if within <= 0 {
		return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the request is invalid",
			Fields: map[string]string{"within": `how long to wait is required, and positive, such as "10s"`}}
	}
	deadline := time.Now().Add(within)
	if _, err := svc.RunDue(ctx); err != nil {
		return err
	}
	for {
		d, err := due(ctx, svc, account)
		if err != nil || d == nil {
			return err
		}
		if time.Now().After(deadline) {
			if d.Attempt == 0 {
				// Taking a delivery counts its attempt: nothing took this one.
				return conflict("delivery %s of webhook %s (the %s event of letter %s) is still due after %s, never taken for an attempt: "+
					"a Service sends webhook events only with a Deliverer (lettershop.WithDeliverer(delivery.Open)); one it has may be "+
					"busy with as many of the account's attempts as it runs at once",
					d.ID, d.WebhookID, d.Type, d.LetterID, within)
			}
			last := "no attempt recorded yet: one may be under way, its receiver not yet answered"
			if d.Error != nil {
				last = "its last attempt: " + *d.Error
			}
			return conflict("delivery %s of webhook %s (the %s event of letter %s) is still due after %s (%s): is the receiver answering, within the attempt's timeout?",
				d.ID, d.WebhookID, d.Type, d.LetterID, within, last)
		}
		t := time.NewTimer(settlePoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// due returns a delivery of the account that is due and not yet recorded,
// or nil when there is none: of each enabled webhook, each letter's first
// pending delivery (the one its deliveries wait behind), when its next
// attempt is not after the account's time. A delivery being attempted is
// due until its attempt is recorded.
func due(ctx context.Context, svc *lettershop.Service, account string) (*lettershop.WebhookDelivery, error) {
	now := svc.ReadAccountClock(ctx, account).Now // another server may have moved it
	for hooks := (lettershop.ListWebhooksInput{PageRequest: lettershop.PageRequest{PageSize: 100}}); ; {
		page, err := svc.ListWebhooks(ctx, account, hooks)
		if err != nil {
			return nil, err
		}
		for _, w := range page.Items {
			if w.Status != lettershop.WebhookEnabled {
				continue
			}
			// Newest first: the last pending one seen of a letter is its
			// first.
			first := map[string]*lettershop.WebhookDelivery{}
			for in := (lettershop.ListDeliveriesInput{PageRequest: lettershop.PageRequest{PageSize: 100}}); ; {
				p, err := svc.ListDeliveries(ctx, account, w.ID, in)
				if err != nil {
					return nil, err
				}
				for _, d := range p.Items {
					if d.Status == lettershop.DeliveryPending {
						first[d.LetterID] = d
					}
				}
				if in.NextToken = p.NextToken; in.NextToken == "" {
					break
				}
			}
			for _, d := range first {
				if d.NextAttemptAt != nil && !d.NextAttemptAt.After(now) {
					return d, nil
				}
			}
		}
		if hooks.NextToken = page.NextToken; hooks.NextToken == "" {
			return nil, nil
		}
	}
}
