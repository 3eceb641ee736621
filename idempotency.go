package lettershop

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lettershop/lettershop/storage"
)

// Idempotency limits, from the specification.
const (
	MaxIdempotencyKeyLen = 255
	// IdempotencyRetention is how long an outcome is kept and replayed,
	// counted from the first request on the Service's clock.
	IdempotencyRetention = 24 * time.Hour
)

// purgeEvery spaces the sweeps that remove expired idempotency records.
const purgeEvery = 10 * time.Minute

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
	// Encode turns the operation's outcome into the bytes stored and
	// replayed. When op writes through the Service, Encode is called before
	// that write with what the Service operation returns (a *Letter, *Asset
	// or *AssetVersion; nil for a delete), so the outcome is stored with the
	// write; otherwise with op's own result. keep false means the outcome is
	// not stored (a failure the caller did not cause): the key is freed for
	// a retry.
	Encode func(value any, err error) (data []byte, keep bool)
}

// IdempotentResult is what an idempotent request produced: the encoded
// outcome, and whether it is a replay of a stored one.
type IdempotentResult struct {
	Data     []byte
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
	ctx = s.readClocks(ctx)
	if req.Key == "" {
		v, err := op(ctx)
		data, keep := req.Encode(v, err)
		if err != nil && !keep {
			return IdempotentResult{}, err
		}
		return IdempotentResult{Data: data}, nil
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
		LeaseExpiresAt: now.Add(s.lease),
	}
	stored, won, err := s.store.ClaimIdempotency(ctx, rec, now)
	if err != nil {
		return IdempotentResult{}, storeErr("claim idempotency key", err)
	}
	if !won {
		switch {
		case stored.Fingerprint != req.Fingerprint:
			return IdempotentResult{}, errorf(CodeIdempotencyMismatch, "the idempotency key was already used for a different request")
		case !stored.Done:
			e := errorf(CodeInFlight, "a request with this idempotency key is still being processed")
			// If its holder died, the key is free once the lease ends.
			e.RetryAfter = max(stored.LeaseExpiresAt.Sub(now), time.Second)
			return IdempotentResult{}, e
		}
		return IdempotentResult{Data: stored.Result, Replayed: true}, nil
	}

	c := &claim{scope: req.Scope, key: req.Key, token: rec.Token, encode: req.Encode}
	stopRenewing := s.renewLease(ctx, req.Account, req.Scope, req.Key, rec.Token)
	v, opErr := op(context.WithValue(ctx, claimKey{}, c))
	stopRenewing()
	if data, ok := c.result(); ok {
		s.trimOutcomes(context.WithoutCancel(ctx), req.Account)
		return IdempotentResult{Data: data}, nil
	}
	data, keep := req.Encode(v, opErr)
	// The outcome is settled; a caller hanging up now must not leave the key
	// stuck in flight.
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if !keep {
		if err := s.store.ReleaseIdempotency(bg, req.Scope, req.Key, rec.Token); err != nil {
			s.logger.Error("release idempotency key", "err", err)
		}
		if opErr == nil {
			opErr = internal("idempotent request", errors.New("outcome not kept"))
		}
		return IdempotentResult{}, opErr
	}
	err = s.store.CompleteIdempotency(bg, storage.Completion{Scope: req.Scope, Key: req.Key, Token: rec.Token, Result: data, Failed: opErr != nil})
	if errors.Is(err, storage.ErrClaimLost) {
		return IdempotentResult{}, errorf(CodeInFlight, "a request with this idempotency key took over while this one ran")
	}
	if err != nil {
		_ = s.store.ReleaseIdempotency(bg, req.Scope, req.Key, rec.Token)
		return IdempotentResult{}, storeErr("complete idempotency key", err)
	}
	s.trimOutcomes(bg, req.Account)
	return IdempotentResult{Data: data}, nil
}

// renewLease renews the lease of a claim every third of the lease, on the
// Service's clock (the lease runs on the account's), until the returned function is called; that function
// returns once renewing has stopped. A renewal refused (the claim was
// taken over) or failing stops the renewing: the request's own write then
// finds whether it still holds the claim.
func (s *Service) renewLease(ctx context.Context, account, scope, key, token string) (stop func()) {
	every := s.lease / 3
	if every <= 0 {
		return func() {}
	}
	ticks, stopTicks := s.ticks(every)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		defer stopTicks()
		for {
			select {
			case <-done:
				return
			case <-ticks:
				now := s.now(account)
				if err := s.store.RenewIdempotency(ctx, scope, key, token, now, now.Add(s.lease)); err != nil {
					if ctx.Err() == nil {
						s.logger.Warn("renew idempotency lease", "key", key, "err", err)
					}
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// maxTrimCounters bounds the accounts whose stored outcomes trimOutcomes
// counts; an account it cannot count is trimmed at each outcome.
const maxTrimCounters = 10000

// trimOutcomes keeps the account's stored outcomes within the cap. A trim
// walks the account's outcomes the cap keeps, so it runs once per
// cap/16 outcomes the account stores through this Service: an account holds
// at most that many more than the cap per server between trims.
func (s *Service) trimOutcomes(ctx context.Context, account string) {
	if s.idemCap <= 0 {
		return
	}
	every := max(1, s.idemCap/16)
	s.trimMu.Lock()
	n, counted := s.trimCount[account]
	due := !counted && len(s.trimCount) >= maxTrimCounters
	if !due {
		n++
		if due = n >= every; due {
			n = 0
		}
		s.trimCount[account] = n
	}
	s.trimMu.Unlock()
	if !due {
		return
	}
	if _, err := s.store.TrimIdempotency(ctx, account, s.idemCap); err != nil {
		s.logger.Warn("trim idempotency records", "account", account, "err", err)
	}
}

// maybePurge removes expired idempotency records now and then, so stored
// outcomes do not grow without bound. Records expire on their account's
// clock: an account whose clock stands behind the Service's keeps its
// records until its own time passes their expiry, so the purge goes no
// further than the earliest such clock. (A record of an account ahead is
// purged later than it expires; a claim finds it expired all the same.)
func (s *Service) maybePurge(ctx context.Context) {
	now := s.serverNow()
	if earliest := s.clocks.earliestBehind(now); !earliest.IsZero() {
		now = earliest
	}
	s.purgeMu.Lock()
	due := s.lastPurge.IsZero() || now.Sub(s.lastPurge) >= purgeEvery || now.Before(s.lastPurge)
	if due {
		s.lastPurge = now
	}
	s.purgeMu.Unlock()
	if !due {
		return
	}
	if _, err := s.store.PurgeIdempotency(ctx, now); err != nil {
		s.logger.Warn("purge idempotency records", "err", err)
	}
}

// claimKey carries the running request's claim to the write that completes it.
type claimKey struct{}

// claim is an idempotency claim held by a running request.
type claim struct {
	scope, key, token string
	encode            func(any, error) ([]byte, bool)

	mu   sync.Mutex
	done bool
	data []byte
}

func (c *claim) result() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.data, c.done
}

// withCompletion runs a store write. When the request holds an idempotency
// claim not yet completed, the write carries the completion, with value (what
// the operation returns) encoded as the stored outcome.
func withCompletion[T any](ctx context.Context, value any, write func(*storage.Completion) (T, error)) (T, error) {
	c, _ := ctx.Value(claimKey{}).(*claim)
	if c == nil {
		return write(nil)
	}
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done {
		return write(nil)
	}
	data, _ := c.encode(value, nil)
	out, err := write(&storage.Completion{Scope: c.scope, Key: c.key, Token: c.token, Result: data})
	if err == nil {
		c.mu.Lock()
		c.done, c.data = true, data
		c.mu.Unlock()
	}
	return out, err
}

// idempotencyKeyKey carries a key set by WithIdempotencyKey.
type idempotencyKeyKey struct{}

// WithIdempotencyKey returns a context under which the Service's operations
// with side effects are idempotent under key: a repeat of the same operation
// with the same input in the same account within 24 hours returns the first
// outcome, errors included, without doing anything again.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKeyKey{}, key)
}

// storedOutcome is how idempotent Go calls keep their outcome.
type storedOutcome struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error *storedError    `json:"error,omitempty"`
}

type storedError struct {
	Code    Code              `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// encodeOutcome keeps values and errors the caller caused; internal errors
// are not kept, so a retry can succeed.
func encodeOutcome(v any, err error) ([]byte, bool) {
	var out storedOutcome
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Code == CodeInternal {
			return nil, false
		}
		out.Error = &storedError{Code: e.Code, Message: e.Message, Fields: e.Fields}
	} else {
		b, mErr := json.Marshal(v)
		if mErr != nil {
			return nil, false
		}
		out.Value = b
	}
	b, mErr := json.Marshal(out)
	return b, mErr == nil
}

// idempotent runs an operation of the Service under the key set by
// WithIdempotencyKey, if any. Within a request that already holds a claim
// (the HTTP layer's), it just runs.
func idempotent[T any](ctx context.Context, s *Service, account, op string, input any, run func(context.Context) (T, error)) (T, error) {
	key, _ := ctx.Value(idempotencyKeyKey{}).(string)
	if claimed := ctx.Value(claimKey{}) != nil; key == "" || claimed {
		if !claimed {
			ctx = s.readClocks(ctx) // Idempotent did, for a claimed write
		}
		return run(ctx)
	}
	var zero T
	in, err := json.Marshal(input)
	if err != nil {
		return zero, internal(op, err)
	}
	res, err := s.Idempotent(ctx, IdempotentRequest{
		Scope:       "account:" + account,
		Account:     account,
		Key:         key,
		Fingerprint: Fingerprint([]byte(op), in),
		Encode:      encodeOutcome,
	}, func(ctx context.Context) (any, error) { return run(ctx) })
	if err != nil {
		return zero, err
	}
	var out storedOutcome
	if err := json.Unmarshal(res.Data, &out); err != nil {
		return zero, internal(op+": stored outcome", err)
	}
	if out.Error != nil {
		return zero, &Error{Code: out.Error.Code, Message: out.Error.Message, Fields: out.Error.Fields}
	}
	var v T
	if len(out.Value) > 0 {
		if err := json.Unmarshal(out.Value, &v); err != nil {
			return zero, internal(op+": stored outcome", err)
		}
	}
	return v, nil
}

// Fingerprint hashes the parts of a request into a fingerprint for
// IdempotentRequest.
func Fingerprint(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(p))))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// APIKeyDigest returns a keyed hash of apiKey (HMAC-SHA256 under the
// Service's token key), in hex, to identify an API key without keeping it:
// the scope of its idempotency keys, say. Servers with the same token key
// derive the same digest; without the key, a stored digest is of no use
// for testing guesses of API keys.
func (s *Service) APIKeyDigest(apiKey string) string {
	m := hmac.New(sha256.New, s.tokenKey)
	m.Write([]byte("lettershop api key\x00"))
	m.Write([]byte(apiKey))
	return hex.EncodeToString(m.Sum(nil))
}
