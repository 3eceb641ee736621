package lettershop

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/internal/idem"
	"github.com/lettershop/lettershop/storage"
)

// Idempotency limits, from the specification.
const (
	MaxIdempotencyKeyLen = 255
	// IdempotencyRetention is how long an outcome is kept and replayed,
	// counted from the first request on its account's clock (the
	// Service's, unless a test moved the account's clock apart).
	IdempotencyRetention = 24 * time.Hour
)

// DefaultIdempotencyLease is how long an unfinished idempotent request
// holds its key without renewing it. A running request renews its lease
// every third of it, so a key is held as long as its request runs, and a
// key whose server died mid-request is free again within this time.
const DefaultIdempotencyLease = 10 * time.Second

// DefaultIdempotencyCap is how many stored outcomes an account keeps at
// most. Over it, the oldest failures go first, then the oldest successes:
// an account's successes are kept the full 24 hours unless it makes more
// than this many idempotent requests that succeed within them.
const DefaultIdempotencyCap = 10000

// DefaultIdempotencyBytes is how many bytes of stored outcomes an account
// keeps at most (as each Outcome's OutcomeSize counts them), whatever their
// number. Over it, outcomes go in the same order as over the cap of
// outcomes: the oldest failures first, then the oldest successes. A
// letter's answer counts a few hundred bytes and an error at most some
// tens of kilobytes, so an account's successes are kept the full 24 hours
// unless they take more than this within them.
const DefaultIdempotencyBytes = 16 << 20

// An Outcome is what an idempotent request keeps of its answer to give it
// again: a document the store keeps (a storage.Keeper keeps a form of its
// own), or serializes with EncodeDocument and hands back as
// storage.Encoded.
type Outcome interface {
	storage.Document
	// OutcomeSize is how many bytes the outcome counts against its
	// account's bound (WithIdempotencyBytes): about what it keeps.
	OutcomeSize() int
}

// BytesOutcome is an Outcome kept as the bytes it is.
type BytesOutcome []byte

// CloneDocument implements storage.Document.
func (b BytesOutcome) CloneDocument() storage.Document {
	if b == nil {
		return BytesOutcome(nil)
	}
	return append(BytesOutcome{}, b...)
}

// EncodeDocument implements storage.Document: the bytes themselves.
func (b BytesOutcome) EncodeDocument() ([]byte, error) { return b, nil }

// OutcomeSize implements Outcome: the bytes' length.
func (b BytesOutcome) OutcomeSize() int { return len(b) }

// IdempotentRequest describes one request made with an idempotency key.
type IdempotentRequest struct {
	// Scope is whose key this is, for example an API key's identity: the same
	// Key in another Scope is another request.
	Scope string
	// Account is whose stored outcomes this one counts among, for the cap
	// of WithIdempotencyCap.
	Account string
	// Key is the caller's idempotency key, at most 255 characters. An empty
	// Key runs the operation without idempotency.
	Key string
	// Fingerprint identifies what was asked (method, path, body), so a retry
	// is told apart from a key reused for something else.
	Fingerprint string
	// FormerFingerprint, when set, makes the one an earlier version made of
	// the same request, which outcomes it stored carry: asked only of a
	// stored outcome whose Fingerprint differs.
	FormerFingerprint func() string
	// Encode turns the operation's outcome into the Outcome stored and
	// replayed. When op writes through the Service, Encode is called before
	// that write with what the Service operation returns (a *Letter, *Asset
	// or *AssetVersion; nil for a delete), so the outcome is stored with the
	// write; otherwise with op's own result. keep false means the outcome is
	// not stored (a failure the caller did not cause): the key is freed for
	// a retry. A failure of a request whose context ended, or a
	// CodeCanceled error, is never stored, whatever Encode says. Without a
	// Key, Encode's outcome is returned, never stored.
	Encode func(value any, err error) (out Outcome, keep bool)
}

// IdempotentResult is what an idempotent request produced: its outcome,
// and whether it is a replay of a stored one. A replayed Outcome is as the
// store returns it: the Outcome Encode made, or its kept form, from a
// store that keeps documents; storage.Encoded, the bytes of its
// EncodeDocument, from one that serializes them.
type IdempotentResult struct {
	Outcome  storage.Document
	Replayed bool
}

// Idempotent runs op at most once per (Scope, Key) within 24 hours. The
// first outcome is encoded, stored and returned; a repeat returns the stored
// bytes, errors included, without running op. The same key with another
// Fingerprint is a CodeIdempotencyMismatch error; a repeat while the first is
// still running is CodeInFlight. An outcome Encode will not keep is returned
// as op's error and the key is freed.
//
// The write op makes through this Service carries the completion of the
// claim, so the object and its stored outcome are written atomically: a
// request cut off mid-way leaves neither an object without an outcome nor an
// outcome without an object.
func (s *Service) Idempotent(ctx context.Context, req IdempotentRequest, op func(ctx context.Context) (any, error)) (IdempotentResult, error) {
	ctx = s.clocks.Read(ctx)
	if req.Key == "" {
		v, err := op(ctx)
		out, keep := s.idem.Kept(ctx, req.Encode, v, err)
		if err != nil && !keep {
			return IdempotentResult{}, err
		}
		return IdempotentResult{Outcome: out}, nil
	}
	if msg := badText(req.Key); msg != "" {
		return IdempotentResult{}, invalidField("Idempotency-Key", "%s", msg)
	}
	if n := utf8.RuneCountInString(req.Key); n > MaxIdempotencyKeyLen {
		return IdempotentResult{}, invalidField("Idempotency-Key", "must be at most %d characters, got %d", MaxIdempotencyKeyLen, n)
	}
	s.maybePurge(ctx)
	now := s.now(req.Account)
	rec := storage.IdempotencyRecord{
		Scope:          req.Scope,
		Key:            req.Key,
		Fingerprint:    req.Fingerprint,
		Token:          s.newID("claim_", now),
		Account:        req.Account,
		CreatedAt:      now,
		ExpiresAt:      now.Add(IdempotencyRetention),
		LeaseExpiresAt: now.Add(s.idem.Lease),
	}
	stored, won, err := s.store.ClaimIdempotency(ctx, rec, now)
	if err != nil {
		return IdempotentResult{}, storeErr("claim idempotency key", err)
	}
	if !won {
		switch {
		case stored.Fingerprint != req.Fingerprint && (req.FormerFingerprint == nil || stored.Fingerprint != req.FormerFingerprint()):
			return IdempotentResult{}, errorf(CodeIdempotencyMismatch, "the idempotency key %s was already used for a different request in the last 24 hours: send a new request with a new key", echo.Quote(req.Key))
		case !stored.Done:
			e := errorf(CodeInFlight, "a request with this idempotency key is still being processed")
			// If its holder died, the key is free once the lease ends.
			e.RetryAfter = max(stored.LeaseExpiresAt.Sub(now), time.Second)
			return IdempotentResult{}, e
		}
		return IdempotentResult{Outcome: stored.Result, Replayed: true}, nil
	}
	out, err := s.idem.Run(ctx, rec, req.Encode, op)
	if err != nil {
		return IdempotentResult{}, runErr(err)
	}
	return IdempotentResult{Outcome: out}, nil
}

// runErr is the Service's error for a claimed request that did not
// complete (idem.Requests.Run): op's own error, or a claim taken over
// while it ran, CodeInFlight.
func runErr(err error) error {
	var se *idem.StoreError
	switch {
	case errors.As(err, &se):
		return storeErr(se.Op, se.Err)
	case errors.Is(err, idem.ErrNotKept):
		return internal("idempotent request", err)
	}
	return err
}

// canceled reports whether err says its request was cut off: its failure
// is not kept, as the failure of a request whose context ended is not.
func canceled(err error) bool { return ErrorCode(err) == CodeCanceled }

// maybePurge has expired idempotency records removed now and then, so
// stored outcomes do not grow without bound. Records expire on their
// account's clock: an account whose clock stands behind the Service's
// keeps its records until its own time passes their expiry, so the purge
// goes no further than the earliest such clock. (A record of an account
// ahead is purged later than it expires; a claim finds it expired all the
// same.)
func (s *Service) maybePurge(ctx context.Context) {
	now := s.clocks.ServerNow()
	if earliest := s.clocks.EarliestBehind(now); !earliest.IsZero() {
		now = earliest
	}
	s.idem.Purge(ctx, now)
}

// withCompletion runs a store write. When the request holds an idempotency
// claim not yet completed, the write carries the completion, with value (what
// the operation returns) encoded as the stored outcome.
func withCompletion[T any](ctx context.Context, value any, write func(*storage.Completion) (T, error)) (T, error) {
	return idem.Complete[Outcome](ctx, value, write)
}

// WithIdempotencyKey returns a context under which the Service's operations
// with side effects are idempotent under key: a repeat of the same operation
// with the same input in the same account within 24 hours returns the first
// outcome, errors included, without doing anything again. The key used for
// another operation, or other input, is a CodeIdempotencyMismatch; in
// another account it is another key. The operations that take it are those
// the API's writes are: creating and updating assets, versions, letters
// and webhooks; deleting assets, versions and webhooks; publishing,
// archiving, cloning and uploading versions; canceling letters and
// retrying deliveries. SubscribeFunc, whose
// function can not be kept with an outcome, and the controls for tests
// (Simulate, RegisterMove, the clocks, RestoreAccount) ignore it.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return idem.WithKey(ctx, key)
}

// encodeOutcome keeps values and errors the caller caused; internal and
// cancelled errors are not kept, so a retry can succeed. A letter is kept
// as a snapshot; other values, and errors, in idem's stored form (their
// JSON). A webhook is kept without its secret, which only the first answer
// shows.
func encodeOutcome(v any, err error) (Outcome, bool) {
	var b []byte
	if err != nil {
		var e *Error
		if !keepsOutcome(err) || !errors.As(err, &e) {
			return nil, false
		}
		b, err = idem.EncodeFailure(idem.Failure{Code: int(e.Code), Message: e.Message, Fields: e.Fields})
	} else {
		switch w := v.(type) {
		case *Letter:
			snap, sErr := w.Snapshot()
			return snap, sErr == nil
		case *Webhook:
			cp := *w
			cp.Secret = ""
			v = &cp
		}
		b, err = idem.EncodeValue(v)
	}
	if err != nil {
		return nil, false
	}
	return BytesOutcome(b), true
}

// decodeOutcome returns the value or error a stored outcome of an
// idempotent Go call holds: a letter's snapshot, or idem's stored form.
func decodeOutcome[T any](op string, stored storage.Document) (T, error) {
	var zero T
	v, failure, err := idem.Replay[T](stored, snapshotLetter)
	switch {
	case err != nil:
		return zero, internal(op+": stored outcome", err)
	case failure != nil:
		return zero, &Error{Code: Code(failure.Code), Message: failure.Message, Fields: failure.Fields}
	}
	return v, nil
}

// idempotent runs an operation of the Service under the key set by
// WithIdempotencyKey, if any. Within a request that already holds a claim
// (the HTTP layer's), it just runs. No account ("") is refused.
func idempotent[T any](ctx context.Context, s *Service, account, op string, input any, run func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := accountErr(account); err != nil {
		return zero, err
	}
	key := idem.Key(ctx)
	if claimed := idem.Claimed(ctx); key == "" || claimed {
		if !claimed {
			ctx = s.clocks.Read(ctx) // Idempotent did, for a claimed write
		}
		return run(ctx)
	}
	fingerprint, err := idem.CallFingerprint(op, input)
	if err != nil {
		return zero, internal(op, err)
	}
	var (
		first    T
		firstErr error
	)
	res, err := s.Idempotent(ctx, IdempotentRequest{
		Scope:       "account:" + account,
		Account:     account,
		Key:         key,
		Fingerprint: fingerprint,
		Encode:      encodeOutcome,
	}, func(ctx context.Context) (any, error) {
		first, firstErr = run(ctx)
		return first, firstErr
	})
	switch {
	case err != nil:
		return zero, err
	case !res.Replayed:
		// What the operation returned, as it returned it: the stored
		// outcome may leave out what only the first answer shows.
		return first, firstErr
	}
	return decodeOutcome[T](op, res.Outcome)
}

// Fingerprint hashes the parts of a request into a fingerprint for
// IdempotentRequest (idem.Fingerprint).
func Fingerprint(parts ...[]byte) string { return idem.Fingerprint(parts...) }

// APIKeyDigest returns a keyed hash of apiKey (HMAC-SHA256 under the
// Service's token key), in hex, to identify an API key without keeping it:
// the scope of its idempotency keys, say. Servers with the same token key
// derive the same digest; without the key, a stored digest is of no use
// for testing guesses of API keys.
func (s *Service) APIKeyDigest(apiKey string) string { return idem.KeyDigest(s.tokenKey, apiKey) }
