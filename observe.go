package lettershop

import (
	"context"
	"errors"
	"time"

	"github.com/lettershop/lettershop/internal/storehooks"
	"github.com/lettershop/lettershop/storage"
)

// Hooks are told what the Service does, for metrics. Every hook is optional;
// each must be quick and safe for concurrent use, since it runs inside the
// operation it reports on.
type Hooks struct {
	// LetterCreated is called once a new letter is stored, with the status
	// it starts in: queued, or issue when its recipient cannot be mailed.
	LetterCreated func(status LetterStatus)
	// LetterStatus is called when this Service writes a letter in a status
	// other than the one it was stored in: created, moved on by the
	// lifecycle, canceled, or moved by Simulate. A lifecycle run that takes
	// a letter through several statuses at once reports the last.
	LetterStatus func(status LetterStatus)
	// Render is called after a letter was rendered for RenderLetter or a
	// download link, with how long that took on the wall clock (a test
	// clock stands still during a render) and whether the bytes came from
	// the render cache.
	Render func(d time.Duration, cached bool)
	// StoreError is called when a store method fails with anything but the
	// sentinel errors of its contract (storage.ErrNotFound and the like) or
	// a cancelled context; op is the method's name (GetLetter).
	StoreError func(op string)
	// WebhookAttempt is called when an attempt to post a webhook event has
	// ended, with its outcome: "succeeded", "retry" (it failed and will be
	// tried again) or "failed" (it failed, and the delivery is given up),
	// and how long it took on the wall clock.
	WebhookAttempt func(outcome string, d time.Duration)
}

// WithHooks sets the hooks the Service reports its work to, for example
// metrics.
func WithHooks(h Hooks) Option { return func(s *Service) { s.hooks = h } }

// ErrNotReady is what Ping returns, wrapped with the cause, when the store
// does not answer.
var ErrNotReady = errors.New("lettershop: the store does not answer")

// Ping checks that the store answers, for a readiness check: the store's
// Ping when it implements storage.Pinger (pgstore pings the database),
// else nothing. The caller sets the deadline on ctx.
func (s *Service) Ping(ctx context.Context) error {
	p, ok := s.rawStore.(storage.Pinger)
	if !ok {
		return nil
	}
	if err := p.Ping(ctx); err != nil {
		return errors.Join(ErrNotReady, err)
	}
	return nil
}

// observeStore keeps the store as given (for Ping) and, when any hook
// reads store traffic, puts an observing layer in front of it.
func (s *Service) observeStore() {
	s.rawStore = s.store
	h := s.hooks
	s.store = storehooks.Wrap(s.store, storehooks.Hooks[LetterStatus]{Error: h.StoreError, Created: h.LetterCreated, Status: h.LetterStatus})
}
