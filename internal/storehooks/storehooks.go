// Package storehooks puts a layer in front of a storage.Storage that tells
// callbacks what passes through it, for metrics: the failures of its
// methods and the statuses letters are written in. It knows only package
// storage; a status is the stored string, handed to the hooks in a string
// type of the caller's.
package storehooks

import (
	"context"
	"errors"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// Hooks are the callbacks a wrapped store reports to, a letter's status
// given as S. Every one is optional; each must be quick and safe for
// concurrent use, since it runs inside the store call it reports on.
type Hooks[S ~string] struct {
	// Created is called once a new letter is stored, with its status.
	Created func(status S)
	// Status is called when a letter is written in a status other than
	// the one it was stored in: created, or updated after a read under a
	// context of Track, or moved by ProcessDueLetters.
	Status func(status S)
	// Error is called when a method fails with anything but the sentinel
	// errors of the storage contract or a cancelled context; op is the
	// method's name (GetLetter).
	Error func(op string)
}

// Wrap returns s behind a layer that reports to h. It reports the
// failures of the methods of the letters, assets, versions, content and
// idempotency; those of webhooks and clocks pass through unobserved. The
// layer is a storage.Restorer when s is, so a restore through it takes s's
// one step; its failure is reported, and the letters it writes are not
// told as created. With no hook set it returns s itself.
func Wrap[S ~string](s storage.Storage, h Hooks[S]) storage.Storage {
	if h.Created == nil && h.Status == nil && h.Error == nil {
		return s
	}
	w := &store[S]{Storage: s, hooks: h}
	if r, ok := s.(storage.Restorer); ok {
		return &restorer[S]{store: w, r: r}
	}
	return w
}

// restorer is the layer of a store that is a storage.Restorer: embedding
// the Storage alone would drop RestoreRecords, and a restore would write
// record by record.
type restorer[S ~string] struct {
	*store[S]
	r storage.Restorer
}

// RestoreRecords implements storage.Restorer.
func (o *restorer[S]) RestoreRecords(ctx context.Context, r storage.AccountRecords) error {
	err := o.r.RestoreRecords(ctx, r)
	o.failed("RestoreRecords", err)
	return err
}

// Track returns a context under which a read of a letter (GetLetter)
// through s notes the status it is stored in for the update that follows,
// so the Status hook hears of a change of status the update makes: the
// read may settle the letter further along (steps due but not yet
// stored), and the write that stores them is the one that changes its
// status. When s is not a store of Wrap with a Status hook, it returns ctx
// as it is, at no cost.
func Track(ctx context.Context, s storage.Storage) context.Context {
	if t, ok := s.(tracker); !ok || !t.tracksStatus() {
		return ctx
	}
	return context.WithValue(ctx, storedStatusKey{}, &storedStatus{})
}

// tracker is a store of Wrap, whatever its status type.
type tracker interface{ tracksStatus() bool }

func (o *store[S]) tracksStatus() bool { return o.hooks.Status != nil }

// storedStatusKey carries a *storedStatus from a read of a letter to the
// write that follows it.
type storedStatusKey struct{}

// storedStatus is the status a letter was stored in when last read.
type storedStatus struct {
	read   bool
	status string
}

// store reports store failures and letters' statuses to the hooks.
type store[S ~string] struct {
	storage.Storage
	hooks Hooks[S]
}

// contract are the errors a method may return as part of its contract, or
// because its caller gave up: they are no failure of the store.
var contract = []error{storage.ErrNotFound, storage.ErrAlreadyExists, storage.ErrConflict, storage.ErrClaimLost, context.Canceled}

// failed reports err to the Error hook unless it is part of the method's
// contract or the caller gave up.
func (o *store[S]) failed(op string, err error) {
	if err == nil || o.hooks.Error == nil {
		return
	}
	for _, ok := range contract {
		if errors.Is(err, ok) {
			return
		}
	}
	o.hooks.Error(op)
}

func (o *store[S]) status(st string) {
	if o.hooks.Status != nil {
		o.hooks.Status(S(st))
	}
}

func (o *store[S]) CreateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	out, err := o.Storage.CreateLetter(ctx, l, c)
	o.failed("CreateLetter", err)
	if err == nil {
		if o.hooks.Created != nil {
			o.hooks.Created(S(out.Status))
		}
		o.status(out.Status)
	}
	return out, err
}

func (o *store[S]) GetLetter(ctx context.Context, account, id string) (storage.Letter, error) {
	out, err := o.Storage.GetLetter(ctx, account, id)
	o.failed("GetLetter", err)
	if n, ok := ctx.Value(storedStatusKey{}).(*storedStatus); ok && err == nil {
		n.read, n.status = true, out.Status
	}
	return out, err
}

func (o *store[S]) ListLetters(ctx context.Context, q storage.LetterQuery) ([]storage.Letter, error) {
	out, err := o.Storage.ListLetters(ctx, q)
	o.failed("ListLetters", err)
	return out, err
}

// UpdateLetter reports a new status when the letter was stored in another
// one: GetLetter noted that status on the context (Track).
func (o *store[S]) UpdateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	out, err := o.Storage.UpdateLetter(ctx, l, c)
	o.failed("UpdateLetter", err)
	if n, ok := ctx.Value(storedStatusKey{}).(*storedStatus); ok && err == nil && n.read && n.status != out.Status {
		o.status(out.Status)
	}
	return out, err
}

func (o *store[S]) ProcessDueLetters(ctx context.Context, q storage.DueQuery, fn func(*storage.Letter) error) (int, error) {
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

func (o *store[S]) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	out, err := o.Storage.WriteAsset(ctx, w)
	o.failed("WriteAsset", err)
	return out, err
}

func (o *store[S]) GetAsset(ctx context.Context, account, id string) (storage.Asset, error) {
	out, err := o.Storage.GetAsset(ctx, account, id)
	o.failed("GetAsset", err)
	return out, err
}

func (o *store[S]) ListAssets(ctx context.Context, q storage.AssetQuery) ([]storage.Asset, error) {
	out, err := o.Storage.ListAssets(ctx, q)
	o.failed("ListAssets", err)
	return out, err
}

func (o *store[S]) DeleteAsset(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	err := o.Storage.DeleteAsset(ctx, account, id, revision, c)
	o.failed("DeleteAsset", err)
	return err
}

func (o *store[S]) GetAssetVersion(ctx context.Context, account, assetID, versionID string) (storage.AssetVersion, error) {
	out, err := o.Storage.GetAssetVersion(ctx, account, assetID, versionID)
	o.failed("GetAssetVersion", err)
	return out, err
}

func (o *store[S]) ListAssetVersions(ctx context.Context, q storage.VersionQuery) ([]storage.AssetVersion, error) {
	out, err := o.Storage.ListAssetVersions(ctx, q)
	o.failed("ListAssetVersions", err)
	return out, err
}

func (o *store[S]) GetContent(ctx context.Context, account, hash string) ([]byte, error) {
	out, err := o.Storage.GetContent(ctx, account, hash)
	o.failed("GetContent", err)
	return out, err
}

func (o *store[S]) ClaimIdempotency(ctx context.Context, r storage.IdempotencyRecord, now time.Time) (storage.IdempotencyRecord, bool, error) {
	out, won, err := o.Storage.ClaimIdempotency(ctx, r, now)
	o.failed("ClaimIdempotency", err)
	return out, won, err
}

func (o *store[S]) CompleteIdempotency(ctx context.Context, c storage.Completion) error {
	err := o.Storage.CompleteIdempotency(ctx, c)
	o.failed("CompleteIdempotency", err)
	return err
}

func (o *store[S]) ReleaseIdempotency(ctx context.Context, account, scope, key, token string) error {
	err := o.Storage.ReleaseIdempotency(ctx, account, scope, key, token)
	o.failed("ReleaseIdempotency", err)
	return err
}

func (o *store[S]) PurgeIdempotency(ctx context.Context, now time.Time) (int, error) {
	n, err := o.Storage.PurgeIdempotency(ctx, now)
	o.failed("PurgeIdempotency", err)
	return n, err
}

func (o *store[S]) RenewIdempotency(ctx context.Context, account, scope, key, token string, now, leaseExpiresAt time.Time) error {
	err := o.Storage.RenewIdempotency(ctx, account, scope, key, token, now, leaseExpiresAt)
	o.failed("RenewIdempotency", err)
	return err
}

func (o *store[S]) TrimIdempotency(ctx context.Context, account string, keep int, keepBytes int64) (int, error) {
	n, err := o.Storage.TrimIdempotency(ctx, account, keep, keepBytes)
	o.failed("TrimIdempotency", err)
	return n, err
}
