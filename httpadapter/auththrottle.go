package httpadapter

import (
	"crypto/sha256"
	"errors"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/benbjohnson/clock"
	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/lettershop/lettershop"
)

// The default throttle of failed authentications: see NewAuthThrottle.
const (
	DefaultAuthFailures    = 100
	DefaultAuthFailuresPer = time.Minute
)

// AuthThrottle limits the failed authentications of each client address,
// so that nobody can try API keys as fast as the server answers: a bucket
// per address of N failures, refilled evenly over DURATION. A failure is a
// key the Authenticator refused (ErrUnknownKey, a key that is not UTF-8);
// a request without a key tries none and is not counted, nor is one the
// Authenticator could not check.
//
// While an address's bucket is empty, a request of it that carries a key is
// answered 429, with Retry-After, before its key is looked at: the answer
// is the same whatever the key, so going on guessing teaches nothing, and a
// guess that would have been right is not let through. The one exception is
// a key the Authenticator accepted from that address after it first failed
// and before its bucket ran out: its holder knew it already, and goes on
// working while someone else at the address guesses. (Keys are noted only
// from addresses that failed lately, so that the requests of all others
// cost nothing more.) A person who finally types the right key gets in
// once a failure's worth of time has passed: DURATION/N, 0.6 s by default.
//
// One AuthThrottle may serve several handlers (the API and the inbox), so
// that failures at either count together. Its methods are safe for
// concurrent use; a nil *AuthThrottle throttles nothing.
type AuthThrottle struct {
	n     int
	per   time.Duration
	limit rate.Limit
	clock clock.Clock
	// buckets are the addresses that failed lately.
	buckets *lru.Cache[string, *authBucket]
	// known holds, for addresses that failed lately, the keys accepted from
	// them, as hashes of address and key.
	known *lru.Cache[[sha256.Size]byte, struct{}]
}

// maxKnownKeys bounds the keys remembered as accepted from an address.
const maxKnownKeys = 10000

// NewAuthThrottle returns a throttle of n failed authentications per
// duration for each client address, in bursts of n, measured on c (the
// wall clock, clock.New(), in a server; a clock.Mock in a test). n or per
// of 0 or less is no throttle: nil.
func NewAuthThrottle(n int, per time.Duration, c clock.Clock) *AuthThrottle {
	if n <= 0 || per <= 0 {
		return nil
	}
	buckets, err := lru.New[string, *authBucket](maxRateAddresses)
	if err != nil {
		panic("httpadapter: auth throttle: " + err.Error()) // only for a size below 1
	}
	known, err := lru.New[[sha256.Size]byte, struct{}](maxKnownKeys)
	if err != nil {
		panic("httpadapter: auth throttle: " + err.Error())
	}
	return &AuthThrottle{n: n, per: per, limit: rate.Limit(float64(n) / per.Seconds()), clock: c, buckets: buckets, known: known}
}

// WithAuthThrottle sets how failed authentications are throttled per
// client address; nil turns the throttle off. The default is
// NewAuthThrottle(DefaultAuthFailures, DefaultAuthFailuresPer, clock.New()):
// 100 failures a minute on the wall clock, one of its own for each
// handler. Pass the same throttle to the inbox (inbox.WithAuthThrottle) so
// that failures at either count together.
func WithAuthThrottle(t *AuthThrottle) Option {
	return func(c *config) { c.authThrottle, c.authThrottleSet = t, true }
}

// Limit returns the failures allowed per duration; 0 for a nil throttle.
func (t *AuthThrottle) Limit() (n int, per time.Duration) {
	if t == nil {
		return 0, 0
	}
	return t.n, t.per
}

// Allow reports whether a request from addr may have key checked, and
// when not, how long until it may. It takes nothing: Authenticate is what
// counts; Allow is for a look before the request is served.
func (t *AuthThrottle) Allow(addr, key string) (bool, time.Duration) {
	if t == nil {
		return true, 0
	}
	// Peek, not Get: this runs on every request, and Get takes the cache's
	// lock to reorder it; Authenticate keeps the order of addresses that fail.
	b, ok := t.buckets.Peek(addr)
	if !ok {
		return true, 0
	}
	tokens := b.lim.TokensAt(t.clock.Now())
	if tokens >= 1 || t.known.Contains(knownKey(addr, key)) {
		return true, 0
	}
	return false, t.wait(tokens)
}

// wait is how long a bucket holding tokens takes to hold one.
func (t *AuthThrottle) wait(tokens float64) time.Duration {
	return time.Duration(math.Ceil((1 - tokens) / float64(t.limit) * float64(time.Second)))
}

// ThrottledError is what Authenticate returns for a request it refused
// unchecked: its address has used up its failures for now.
type ThrottledError struct {
	// Wait is how long until a key from the address is checked again.
	Wait time.Duration
	// Failures per Per is the throttle's limit.
	Failures int
	Per      time.Duration
}

// asThrottled is err's *ThrottledError, or nil. Apart, so that the target
// errors.As takes is made only for a request that failed.
func asThrottled(err error) *ThrottledError {
	var te *ThrottledError
	if errors.As(err, &te) {
		return te
	}
	return nil
}

// Error says that the address used up its failed authentications, and the
// limit it met.
func (e *ThrottledError) Error() string {
	return "this client address has failed to authenticate " + strconv.Itoa(e.Failures) + " times per " + e.Per.String() +
		", as often as it may; no key is checked from it for now"
}

// Authenticate checks key, from addr, with check, unless the address is
// throttled: then it returns a *ThrottledError without calling check. A
// request from an address that failed lately takes a failure's worth of
// its bucket before its key is checked and gives it back when the key is
// accepted (or could not be checked), so that requests in flight at once
// cannot fail more often than the limit. exhausted reports that this
// failure used the bucket up after it was full: the moment to log that the
// address is throttled, once per attack. A key that is not valid UTF-8 is
// unknown, whatever check would say. A nil throttle just checks.
func (t *AuthThrottle) Authenticate(addr, key string, check func(key string) (Principal, error)) (p Principal, exhausted bool, err error) {
	ask := func() (Principal, error) {
		if !utf8.ValidString(key) {
			return Principal{}, ErrUnknownKey
		}
		return check(key)
	}
	if t == nil {
		p, err = ask()
		return p, false, err
	}
	now := t.clock.Now()
	var r *rate.Reservation
	// Peek, not Get: this runs on every request, and Get takes the cache's
	// lock to reorder it; a failure (bucket) keeps the order of addresses
	// that fail.
	b, ok := t.buckets.Peek(addr)
	if ok && !t.known.Contains(knownKey(addr, key)) {
		if r = b.lim.ReserveN(now, 1); !r.OK() || r.DelayFrom(now) > 0 {
			r.CancelAt(now)
			return Principal{}, false, &ThrottledError{Wait: t.wait(b.lim.TokensAt(now)), Failures: t.n, Per: t.per}
		}
	}
	p, err = ask()
	switch {
	case err == nil:
		if r != nil {
			r.CancelAt(now)
		}
		if ok {
			t.known.Add(knownKey(addr, key), struct{}{})
		}
	case errors.Is(err, ErrUnknownKey):
		b = t.bucket(addr)
		if r == nil && !b.lim.AllowN(now, 1) {
			return p, false, err
		}
		// The bucket was full when this attack began: say so once, when
		// the attack has used it up; a refill to full starts another.
		tokens := b.lim.TokensAt(now)
		if tokens >= float64(t.n)-1 {
			b.announced.Store(false)
		}
		exhausted = tokens < 1 && b.announced.CompareAndSwap(false, true)
	default:
		if r != nil {
			r.CancelAt(now)
		}
	}
	return p, exhausted, err
}

// bucket is addr's bucket, made full when it has none, and made the
// newest address to fail.
func (t *AuthThrottle) bucket(addr string) *authBucket {
	if b, ok := t.buckets.Get(addr); ok {
		return b
	}
	b := &authBucket{lim: rate.NewLimiter(t.limit, t.n)}
	if prev, found, _ := t.buckets.PeekOrAdd(addr, b); found {
		return prev
	}
	return b
}

// authBucket is the failures an address has left, and whether its being
// used up has been told.
type authBucket struct {
	lim       *rate.Limiter
	announced atomic.Bool
}

// knownKey hashes an address and a key: the throttle holds no secret.
func knownKey(addr, key string) [sha256.Size]byte {
	return sha256.Sum256([]byte("lettershop auth throttle\x00" + addr + "\x00" + key))
}

// authenticateThrottled checks key from addr through the throttle,
// answering a throttled address 429 with Retry-After, and logs an address
// when it has used up its failures.
func (h *handler) authenticateThrottled(w http.ResponseWriter, r *http.Request, addr, key string) (Principal, error) {
	p, exhausted, err := h.cfg.authThrottle.Authenticate(addr, key, func(key string) (Principal, error) { return h.authenticate(r, key) })
	if err != nil {
		if te := asThrottled(err); te != nil {
			return p, errorf(lettershop.CodeRateLimited, "%s: retry after %s s", te.Error(), RetryAfter(w, te.Wait))
		}
	}
	if exhausted {
		h.cfg.logger.WarnContext(r.Context(), "authentication failures throttled", "remote", addr, "failures", h.cfg.authThrottle.n,
			"per", h.cfg.authThrottle.per, "request_id", requestID(r.Context()))
	}
	return p, err
}
