package httpadapter

import (
	"crypto/sha256"
	"errors"
	"math"
	"net/http"
	"time"

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
	buckets *lru.Cache[string, *rate.Limiter]
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
	buckets, err := lru.New[string, *rate.Limiter](maxRateAddresses)
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
// when not, how long until it may.
func (t *AuthThrottle) Allow(addr, key string) (bool, time.Duration) {
	if t == nil {
		return true, 0
	}
	// Peek, not Get: this runs on every request, and Get takes the cache's
	// lock to reorder it; Failed keeps the order of addresses that fail.
	b, ok := t.buckets.Peek(addr)
	if !ok {
		return true, 0
	}
	tokens := b.TokensAt(t.clock.Now())
	if tokens >= 1 || t.known.Contains(knownKey(addr, key)) {
		return true, 0
	}
	return false, time.Duration(math.Ceil((1 - tokens) / float64(t.limit) * float64(time.Second)))
}

// Failed counts a failed authentication from addr, and reports whether it
// used up the address's last one: the moment to log that the address is
// throttled, once.
func (t *AuthThrottle) Failed(addr string) bool {
	if t == nil {
		return false
	}
	b, ok := t.buckets.Get(addr)
	if !ok {
		b = rate.NewLimiter(t.limit, t.n)
		if prev, found, _ := t.buckets.PeekOrAdd(addr, b); found {
			b = prev
		}
	}
	now := t.clock.Now()
	return b.AllowN(now, 1) && b.TokensAt(now) < 1
}

// Succeeded notes that key was accepted from addr, which lets it through
// should the address be throttled later. Only addresses that failed lately
// are noted: for the others there is nothing to let through.
func (t *AuthThrottle) Succeeded(addr, key string) {
	if t == nil || !t.buckets.Contains(addr) {
		return
	}
	t.known.Add(knownKey(addr, key), struct{}{})
}

// knownKey hashes an address and a key: the throttle holds no secret.
func knownKey(addr, key string) [sha256.Size]byte {
	return sha256.Sum256([]byte("lettershop auth throttle\x00" + addr + "\x00" + key))
}

// throttled refuses a request from addr with key while the address is
// throttled, before the key is looked at.
func (h *handler) throttled(w http.ResponseWriter, addr, key string) error {
	ok, wait := h.cfg.authThrottle.Allow(addr, key)
	if ok {
		return nil
	}
	n, per := h.cfg.authThrottle.Limit()
	s := retryAfter(w, wait)
	return errorf(lettershop.CodeRateLimited, "this client address has failed to authenticate %d times per %s, as often as it may; "+
		"no key is checked from it for now: retry after %s s", n, per, s)
}

// authFailed counts a key the Authenticator refused, and logs the address
// when it has used up its failures.
func (h *handler) authFailed(r *http.Request, addr string, err error) {
	if !errors.Is(err, ErrUnknownKey) || !h.cfg.authThrottle.Failed(addr) {
		return
	}
	n, per := h.cfg.authThrottle.Limit()
	h.cfg.logger.WarnContext(r.Context(), "authentication failures throttled", "remote", addr, "failures", n, "per", per,
		"request_id", requestID(r.Context()))
}
