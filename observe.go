package lettershop

import (
	"context"
	"errors"
	"time"

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
	if h.StoreError != nil || h.LetterCreated != nil || h.LetterStatus != nil {
		s.store = &observedStore{Storage: s.store, hooks: h}
	}
}

// renderObserved is renderLetter, timed and reported to the Render hook.
func (s *Service) renderObserved(ctx context.Context, account string, l *Letter) ([]byte, error) {
	if s.hooks.Render == nil {
		return s.renderLetter(ctx, account, l)
	}
	note := &renderNote{}
	start := time.Now()
	b, err := s.renderLetter(context.WithValue(ctx, renderNoteKey{}, note), account, l)
	if err == nil {
		s.hooks.Render(time.Since(start), note.cached)
	}
	return b, err
}

// renderNoteKey carries a *renderNote from renderObserved to the cache.
type renderNoteKey struct{}

// renderNote is what renderLetter tells renderObserved.
type renderNote struct{ cached bool }

// noteCacheHit records on ctx that a render was served from the cache.
func noteCacheHit(ctx context.Context) {
	if n, ok := ctx.Value(renderNoteKey{}).(*renderNote); ok {
		n.cached = true
	}
}

// observedStore reports store failures and letters' statuses to the hooks.
// It overrides every method of storage.Storage, so a failure of any is
// reported.
type observedStore struct {
	storage.Storage
	hooks Hooks
}

// failed reports err to the StoreError hook unless it is part of the
// method's contract or the caller gave up.
func (o *observedStore) failed(op string, err error) {
	if err == nil || o.hooks.StoreError == nil {
		return
	}
	for _, ok := range []error{storage.ErrNotFound, storage.ErrAlreadyExists, storage.ErrConflict, storage.ErrClaimLost, context.Canceled} {
		if errors.Is(err, ok) {
			return
		}
	}
	o.hooks.StoreError(op)
}

func (o *observedStore) status(st string) {
	if o.hooks.LetterStatus != nil {
		o.hooks.LetterStatus(LetterStatus(st))
	}
}

func (o *observedStore) CreateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	out, err := o.Storage.CreateLetter(ctx, l, c)
	o.failed("CreateLetter", err)
	if err == nil {
		if o.hooks.LetterCreated != nil {
			o.hooks.LetterCreated(LetterStatus(out.Status))
		}
		o.status(out.Status)
	}
	return out, err
}

func (o *observedStore) GetLetter(ctx context.Context, account, id string) (storage.Letter, error) {
	out, err := o.Storage.GetLetter(ctx, account, id)
	o.failed("GetLetter", err)
	if n, ok := ctx.Value(storedStatusKey{}).(*storedStatus); ok && err == nil {
		n.read, n.status = true, out.Status
	}
	return out, err
}

func (o *observedStore) ListLetters(ctx context.Context, q storage.LetterQuery) ([]storage.Letter, error) {
	out, err := o.Storage.ListLetters(ctx, q)
	o.failed("ListLetters", err)
	return out, err
}

// UpdateLetter reports a new status when the letter was stored in another
// one: GetLetter noted that status on the context (trackStoredStatus).
func (o *observedStore) UpdateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	out, err := o.Storage.UpdateLetter(ctx, l, c)
	o.failed("UpdateLetter", err)
	if n, ok := ctx.Value(storedStatusKey{}).(*storedStatus); ok && err == nil && n.read && n.status != out.Status {
		o.status(out.Status)
	}
	return out, err
}

func (o *observedStore) ProcessDueLetters(ctx context.Context, q storage.DueQuery, fn func(*storage.Letter) error) (int, error) {
	n, err := o.Storage.ProcessDueLetters(ctx, q, func(r *storage.Letter) error {
		before := r.Status
		err := fn(r)
		if err == nil && r.Status != before {
			o.status(r.Status)
		}
		return err
	})
	o.failed("ProcessDueLetters", err)
	return n, err
}

func (o *observedStore) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	out, err := o.Storage.WriteAsset(ctx, w)
	o.failed("WriteAsset", err)
	return out, err
}

func (o *observedStore) GetAsset(ctx context.Context, account, id string) (storage.Asset, error) {
	out, err := o.Storage.GetAsset(ctx, account, id)
	o.failed("GetAsset", err)
	return out, err
}

func (o *observedStore) ListAssets(ctx context.Context, q storage.AssetQuery) ([]storage.Asset, error) {
	out, err := o.Storage.ListAssets(ctx, q)
	o.failed("ListAssets", err)
	return out, err
}

func (o *observedStore) DeleteAsset(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	err := o.Storage.DeleteAsset(ctx, account, id, revision, c)
	o.failed("DeleteAsset", err)
	return err
}

func (o *observedStore) GetAssetVersion(ctx context.Context, account, assetID, versionID string) (storage.AssetVersion, error) {
	out, err := o.Storage.GetAssetVersion(ctx, account, assetID, versionID)
	o.failed("GetAssetVersion", err)
	return out, err
}

func (o *observedStore) ListAssetVersions(ctx context.Context, q storage.VersionQuery) ([]storage.AssetVersion, error) {
	out, err := o.Storage.ListAssetVersions(ctx, q)
	o.failed("ListAssetVersions", err)
	return out, err
}

func (o *observedStore) GetContent(ctx context.Context, account, hash string) ([]byte, error) {
	out, err := o.Storage.GetContent(ctx, account, hash)
	o.failed("GetContent", err)
	return out, err
}

func (o *observedStore) ClaimIdempotency(ctx context.Context, r storage.IdempotencyRecord, now time.Time) (storage.IdempotencyRecord, bool, error) {
	out, won, err := o.Storage.ClaimIdempotency(ctx, r, now)
	o.failed("ClaimIdempotency", err)
	return out, won, err
}

func (o *observedStore) CompleteIdempotency(ctx context.Context, c storage.Completion) error {
	err := o.Storage.CompleteIdempotency(ctx, c)
	o.failed("CompleteIdempotency", err)
	return err
}

func (o *observedStore) ReleaseIdempotency(ctx context.Context, account, scope, key, token string) error {
	err := o.Storage.ReleaseIdempotency(ctx, account, scope, key, token)
	o.failed("ReleaseIdempotency", err)
	return err
}

func (o *observedStore) PurgeIdempotency(ctx context.Context, now time.Time) (int, error) {
	n, err := o.Storage.PurgeIdempotency(ctx, now)
	o.failed("PurgeIdempotency", err)
	return n, err
}

func (o *observedStore) RenewIdempotency(ctx context.Context, account, scope, key, token string, now, leaseExpiresAt time.Time) error {
	err := o.Storage.RenewIdempotency(ctx, account, scope, key, token, now, leaseExpiresAt)
	o.failed("RenewIdempotency", err)
	return err
}

func (o *observedStore) TrimIdempotency(ctx context.Context, account string, keep int, keepBytes int64) (int, error) {
	n, err := o.Storage.TrimIdempotency(ctx, account, keep, keepBytes)
	o.failed("TrimIdempotency", err)
	return n, err
}

// storedStatusKey carries a *storedStatus from a read of a letter to the
// write that follows it.
type storedStatusKey struct{}

// storedStatus is the status a letter was stored in when last read: the
// read may settle it further along (lifecycle steps due but not yet run),
// and the write that stores those steps is the one that changes it.
type storedStatus struct {
	read   bool
	status string
}

// trackStoredStatus returns a context under which a read of a letter notes
// its stored status for the update that follows, so the LetterStatus hook
// hears of a change of status the update makes.
func trackStoredStatus(ctx context.Context) context.Context {
	return context.WithValue(ctx, storedStatusKey{}, &storedStatus{})
}
