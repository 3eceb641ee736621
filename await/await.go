// Package await moves a clock until a letter gets somewhere: to the
// letter's next lifecycle step, then the next, until it is at a status or
// has a tracking event (Letter); and waits until the webhook deliveries due
// have been attempted and recorded (Deliveries). It drives a Service
// through its operations alone, and is what lettershoptest's
// WaitForStatus, WaitForEvent and SettleWebhooks and the test routes POST
// /_test/letters/{id}/await and POST /_test/webhooks/settle run.
package await

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lettershop/lettershop"
)

// Options say how far Letter may move the clock, and which.
type Options struct {
	// Within is how much time may pass on the clock; it must be positive.
	Within time.Duration
	// SharedClock moves the Service's clock, which every account follows,
	// instead of the account's own.
	SharedClock bool
}

// Letter moves the account's clock on, to each next lifecycle step of the
// letter in turn, until the letter has reached target, and returns it: a
// letter status it is at or passed through (an event of its history says
// so), or a tracking event it has. Only as much time passes as the letter
// needs. Where the letter will not get there (canceled, at issue, nothing
// more to come) or not within o.Within, it is a CodeConflict saying where
// the letter stands, the clock left at the step it reached (or at
// o.Within, when the next step is later). An unknown target, or no
// positive o.Within, is CodeInvalid naming status, event or within.
func Letter(ctx context.Context, svc *lettershop.Service, account, id string, target lettershop.SimulateTarget, o Options) (*lettershop.Letter, error) {
	if err := check(target, o); err != nil {
		return nil, err
	}
	want := string(target.Status) + string(target.Event)
	set := func(at time.Time) (err error) {
		if o.SharedClock {
			_, err = svc.SetClock(ctx, at)
		} else {
			_, err = svc.SetAccountClock(ctx, account, at)
		}
		if err != nil && !svc.AccountNow(account).Before(at) {
			// Moved there or past meanwhile (another wait, or a test's own
			// advance, in the same account): where this wait wanted it.
			return nil
		}
		return err
	}
	// From the clock as the store has it: another server may have moved it.
	deadline := svc.ReadAccountClock(ctx, account).Now.Add(o.Within)
	for stalled := 0; ; {
		l, err := svc.GetLetter(ctx, account, id)
		if err != nil || reached(l, target) {
			return l, err
		}
		now, next := svc.AccountNow(account), l.NextStepAt()
		switch {
		case l.Status == lettershop.StatusIssue:
			return nil, conflict("letter %s is at issue (%s) and will not reach %s unless an update fixes it (it is then queued again)", id, l.IssueMessage, want)
		case l.Status == lettershop.StatusCanceled:
			return nil, conflict("letter %s is %s and will never reach %s", id, l.Status, want)
		case next.IsZero():
			return nil, conflict("letter %s is %s with nothing more to come (its last event: %s), and never reached %s", id, l.Status, lastEvent(l), want)
		case !now.Before(deadline) || next.After(deadline):
			if now.Before(deadline) {
				if err := set(deadline); err != nil {
					return nil, err
				}
			}
			return nil, conflict("letter %s is %s at %s, not at %s after %s on the clock (its next step is at %s)",
				id, l.Status, deadline.UTC().Format(time.RFC3339), want, o.Within, next.UTC().Format(time.RFC3339))
		case next.After(now):
			stalled = 0
			if err := set(next); err != nil {
				return nil, err
			}
		default:
			// Due already, which the next read runs; twice in a row means
			// the step does not run.
			if stalled++; stalled > 2 {
				return nil, &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error",
					Err: fmt.Errorf("await: letter %s is %s with a step due at %s that does not run", id, l.Status, next.UTC().Format(time.RFC3339))}
			}
		}
	}
}

// check returns every problem of target and o at once.
func check(target lettershop.SimulateTarget, o Options) error {
	err := target.Check()
	if o.Within > 0 {
		return err
	}
	var e *lettershop.Error
	if !errors.As(err, &e) {
		e = &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the request is invalid", Fields: map[string]string{}}
	}
	e.Fields["within"] = `how long the clock may move is required, and positive, such as "720h"`
	return e
}

func conflict(format string, args ...any) *lettershop.Error {
	return &lettershop.Error{Code: lettershop.CodeConflict, Message: fmt.Sprintf(format, args...)}
}

// reached reports whether l has reached target: a status it is at or an
// event of its history names, or a tracking event it has.
func reached(l *lettershop.Letter, target lettershop.SimulateTarget) bool {
	if target.Status != "" && l.Status == target.Status {
		return true
	}
	return slices.ContainsFunc(l.Events, func(e lettershop.Event) bool {
		if target.Status != "" {
			return e.Type == lettershop.EventTypeStatus && e.Status == lettershop.EventStatus(target.Status)
		}
		return e.Type == lettershop.EventTypeTracking && e.Status == target.Event
	})
}

// lastEvent says what the letter's last event was, for a message.
func lastEvent(l *lettershop.Letter) string {
	if len(l.Events) == 0 {
		return "none"
	}
	e := l.Events[len(l.Events)-1]
	return fmt.Sprintf("%s %s at %s", e.Type, e.Status, e.Timestamp.UTC().Format(time.RFC3339))
}
