package idem

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/internal/upkeep"
	"github.com/lettershop/lettershop/storage"
)

// purgeEvery spaces the sweeps that remove expired idempotency records.
const purgeEvery = 10 * time.Minute

// maxTrimCounters bounds the accounts whose stored outcomes Requests
// counts between trims; an account it cannot count is trimmed at each
// outcome.
const maxTrimCounters = 10000

// ErrNotKept is what Run returns for an operation that succeeded with an
// outcome its encode would not keep.
var ErrNotKept = errors.New("outcome not kept")

// StoreError is a store's failure to complete a claim: Err is
// storage.ErrClaimLost when another request took the claim over.
type StoreError struct {
	Op  string
	Err error
}

func (e *StoreError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// Store is what Requests needs of a store: storage.Storage's idempotency
// methods but the claim, which the caller makes and decides on.
type Store interface {
	CompleteIdempotency(ctx context.Context, c storage.Completion) error
	ReleaseIdempotency(ctx context.Context, account, scope, key, token string) error
	RenewIdempotency(ctx context.Context, account, scope, key, token string, now, leaseExpiresAt time.Time) error
	TrimIdempotency(ctx context.Context, account string, keep int, keepBytes int64) (int, error)
	PurgeIdempotency(ctx context.Context, now time.Time) (int, error)
}

// Requests runs idempotent requests whose claims were won: it renews a
// claim's lease while its operation runs, completes the claim with the
// outcome kept (or releases it), trims an account's stored outcomes to
// their bounds, and purges expired ones now and then. What is kept, for
// how long, and what a claim lost means are the caller's. Set the bounds,
// then Init it before use; it is safe for concurrent use after.
type Requests[O Outcome] struct {
	// Lease is how long a claim holds its key without renewing it; a
	// running request renews it every third of it.
	Lease time.Duration
	// MaxOutcomes and MaxBytes bound an account's stored outcomes, in
	// number and in bytes (TrimDue); zero or less is no bound.
	MaxOutcomes int
	MaxBytes    int64

	store    Store
	clock    clock.Clock
	now      func(account string) time.Time
	canceled func(error) bool
	logger   *slog.Logger
	trims    *upkeep.Counters
	purges   upkeep.Spacing
}

// Init readies r to run requests on store. The leases are renewed on c's
// ticks and run on now, the time on an account's clock; canceled reports
// whether an operation's error says it was cut off, whose outcome is never
// kept (Kept).
func (r *Requests[O]) Init(store Store, c clock.Clock, now func(account string) time.Time, canceled func(error) bool, logger *slog.Logger) {
	r.store, r.clock, r.now, r.canceled, r.logger = store, c, now, canceled, logger
	r.trims = upkeep.NewCounters(maxTrimCounters)
}

// Forget drops what r counts of the account's stored outcomes since their
// last trim, for an account whose outcomes were all removed.
func (r *Requests[O]) Forget(account string) { r.trims.Forget(account) }

// Kept is encode's outcome of an operation that returned v and err, and
// whether it is kept: never a failure of a request that was cut off (its
// context ended, or its error says it was cancelled), whatever encode
// says. What such a request failed with may come of the cut (a read that
// did not finish, taken for what it read), not of the request: a retry
// must run again.
func (r *Requests[O]) Kept(ctx context.Context, encode func(any, error) (O, bool), v any, err error) (O, bool) {
	out, keep := encode(v, err)
	if err != nil && (ctx.Err() != nil || r.canceled(err)) {
		var none O
		return none, false
	}
	return out, keep
}

// Run runs op under the claim rec won (its Account, Scope, Key and Token),
// renewing the claim's lease while op runs, and returns the outcome the
// claim is completed with: the one a write op made under the claim carried
// (Complete), else the outcome Kept makes of what op returned, stored now.
// An outcome not kept releases the claim, and Run returns op's error, or
// ErrNotKept when op succeeded. A completion the store refuses is a
// *StoreError, and a failed one releases the claim. Once the claim is
// completed, the account's outcomes are trimmed when due (TrimDue).
func (r *Requests[O]) Run(ctx context.Context, rec storage.IdempotencyRecord, encode func(any, error) (O, bool), op func(context.Context) (any, error)) (O, error) {
	var none O
	c := NewClaim(rec.Account, rec.Scope, rec.Key, rec.Token, encode)
	renewing := r.renew(ctx, rec.Account, rec.Scope, rec.Key, rec.Token)
	v, opErr := op(WithClaim(ctx, c))
	renewing.Stop()
	if out, ok := c.Result(); ok {
		r.trim(context.WithoutCancel(ctx), rec.Account, out.OutcomeSize())
		return out, nil
	}
	out, keep := r.Kept(ctx, encode, v, opErr)
	// The outcome is settled; a caller hanging up now must not leave the
	// key stuck in flight.
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if !keep {
		if err := r.release(bg, rec); err != nil {
			r.logger.Error("release idempotency key", "err", err)
		}
		if opErr == nil {
			opErr = ErrNotKept
		}
		return none, opErr
	}
	err := r.store.CompleteIdempotency(bg, storage.Completion{
		Account: rec.Account, Scope: rec.Scope, Key: rec.Key, Token: rec.Token,
		Result: out, Size: int64(out.OutcomeSize()), Failed: opErr != nil,
	})
	if err != nil {
		if !errors.Is(err, storage.ErrClaimLost) {
			_ = r.release(bg, rec)
		}
		return none, &StoreError{Op: "complete idempotency key", Err: err}
	}
	r.trim(bg, rec.Account, out.OutcomeSize())
	return out, nil
}

// releaseTries bounds the tries of a release that finds the store
// unavailable. A connection the database dropped (its backend terminated,
// the database restarted) fails the statement it is given, and the pool
// hands out the next, which may have been dropped too, until it dials
// afresh; a release that gave up would leave the key claimed, every retry
// of the request a 409 until the lease ran out.
const releaseTries = 10

// release releases the claim rec won, trying again while the store is
// unavailable, at most releaseTries times in all.
func (r *Requests[O]) release(ctx context.Context, rec storage.IdempotencyRecord) error {
	var err error
	for range releaseTries {
		err = r.store.ReleaseIdempotency(ctx, rec.Account, rec.Scope, rec.Key, rec.Token)
		if !errors.Is(err, storage.ErrUnavailable) || ctx.Err() != nil {
			break
		}
	}
	return err
}

// renew renews the lease of a claim every third of the lease, on r's
// clock (the lease runs on the account's), until the returned Repeater is
// stopped; its Stop returns once renewing has stopped. A renewal refused
// (the claim was taken over) or failing stops the renewing: the request's
// own write then finds whether it still holds the claim.
func (r *Requests[O]) renew(ctx context.Context, account, scope, key, token string) *upkeep.Repeater {
	return upkeep.Repeat(r.clock, r.Lease/3, func() bool {
		now := r.now(account)
		if err := r.store.RenewIdempotency(ctx, account, scope, key, token, now, now.Add(r.Lease)); err != nil {
			if ctx.Err() == nil {
				r.logger.Warn("renew idempotency lease", "key", key, "err", err)
			}
			return false
		}
		return true
	})
}

// trim keeps the account's stored outcomes within the bounds, size being
// the one just stored; TrimDue paces the trims.
func (r *Requests[O]) trim(ctx context.Context, account string, size int) {
	keep, keepBytes, due := TrimDue(r.trims, account, size, r.MaxOutcomes, r.MaxBytes)
	if !due {
		return
	}
	if _, err := r.store.TrimIdempotency(ctx, account, keep, keepBytes); err != nil {
		r.logger.Warn("trim idempotency records", "account", account, "err", err)
	}
}

// Purge removes the records expired by now, at most once per ten minutes
// of the times it is given, so stored outcomes do not grow without bound.
func (r *Requests[O]) Purge(ctx context.Context, now time.Time) {
	if !r.purges.Due(now, purgeEvery) {
		return
	}
	if _, err := r.store.PurgeIdempotency(ctx, now); err != nil {
		r.logger.Warn("purge idempotency records", "err", err)
	}
}
