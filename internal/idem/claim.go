package idem

import (
	"context"
	"sync"

	"github.com/lettershop/lettershop/storage"
)

// Outcome is what completes a claim: a document the store keeps with the
// claim, and how many bytes it counts against its account's bound.
type Outcome interface {
	storage.Document
	OutcomeSize() int
}

// A Claim is an idempotency claim a running request holds, carried in its
// context (WithClaim) to the store write that completes it (Complete): the
// first write that carries the completion makes it, with the outcome
// encode makes of what the operation returns, so the object and the
// outcome are written together. It is safe for concurrent use.
type Claim[O Outcome] struct {
	account, scope, key, token string
	encode                     func(any, error) (O, bool)

	mu   sync.Mutex
	done bool
	out  O
}

// NewClaim returns the claim of token on (scope, key), in account, whose
// outcome encode makes.
func NewClaim[O Outcome](account, scope, key, token string, encode func(any, error) (O, bool)) *Claim[O] {
	return &Claim[O]{account: account, scope: scope, key: key, token: token, encode: encode}
}

// Result returns the outcome a write completed the claim with, and
// whether one did.
func (c *Claim[O]) Result() (O, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out, c.done
}

// claimKey carries the running request's claim.
type claimKey struct{}

// WithClaim returns a context that carries c to the writes made under it.
func WithClaim[O Outcome](ctx context.Context, c *Claim[O]) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

// Claimed reports whether ctx carries a claim.
func Claimed(ctx context.Context) bool { return ctx.Value(claimKey{}) != nil }

// Complete runs a store write. When ctx carries a Claim[O] not yet
// completed, and its encode keeps value (what the operation returns) as an
// outcome, the write carries the completion with that outcome; once the
// write succeeds, the claim is completed with it. Otherwise the write
// carries none.
func Complete[O Outcome, T any](ctx context.Context, value any, write func(*storage.Completion) (T, error)) (T, error) {
	c, _ := ctx.Value(claimKey{}).(*Claim[O])
	if c == nil {
		return write(nil)
	}
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done {
		return write(nil)
	}
	outcome, keep := c.encode(value, nil)
	if !keep {
		// Completed, or released, once the operation returns.
		return write(nil)
	}
	out, err := write(&storage.Completion{
		Account: c.account, Scope: c.scope, Key: c.key, Token: c.token,
		Result: outcome, Size: int64(outcome.OutcomeSize()),
	})
	if err == nil {
		c.mu.Lock()
		c.done, c.out = true, outcome
		c.mu.Unlock()
	}
	return out, err
}
