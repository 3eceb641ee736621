package httpadapter

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/lettershop/lettershop"
)

// maxRateKeys bounds how many API keys' buckets are kept. A key whose
// bucket was evicted starts again with a full one, which errs on the side of
// the caller.
const maxRateKeys = 10000

// limiter is a token bucket per API key, read at times the caller gives (the
// Service's clock), so a test clock drives it too.
type limiter struct {
	n       int
	per     time.Duration
	limit   rate.Limit
	buckets *lru.Cache[string, *rate.Limiter]
}

func newLimiter(n int, per time.Duration, keys int) *limiter {
	c, err := lru.New[string, *rate.Limiter](keys)
	if err != nil {
		panic("httpadapter: rate limiter cache: " + err.Error())
	}
	return &limiter{n: n, per: per, limit: rate.Limit(float64(n) / per.Seconds()), buckets: c}
}

// allow takes a token from key's bucket at now and sets the rate-limit
// headers: the limit, the whole tokens left, and when the bucket is full
// again. A refused request also gets Retry-After, the seconds until the
// next token.
func (l *limiter) allow(w http.ResponseWriter, key string, now time.Time) bool {
	b, ok := l.buckets.Get(key)
	if !ok {
		b = rate.NewLimiter(l.limit, l.n)
		if prev, found, _ := l.buckets.PeekOrAdd(key, b); found {
			b = prev // another request for the key added it first
		}
	}
	allowed := b.AllowN(now, 1)
	tokens := max(b.TokensAt(now), 0)
	full := now.Add(l.wait(float64(l.n) - tokens))
	h := w.Header()
	setRateHeaders(h, l.n, int(math.Floor(tokens)), ceilSecond(full))
	if !allowed {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(l.wait(1-tokens).Seconds()))))
	}
	return allowed
}

// setRateHeaders sets a key's rate-limit headers under both names the real
// service documents: X-Rate-Limit-* (its rate-limiting guide, on every
// answer) and P-RateLimit-* (its operations' schemas). The reset time is
// ISO 8601 in UTC, to the second.
func setRateHeaders(h http.Header, limit, remaining int, reset time.Time) {
	// One array holds the three values for both names: each header's slice
	// is capped at its one value, so an Add to it copies rather than
	// writing into the next.
	v := &[3]string{strconv.Itoa(limit), strconv.Itoa(remaining), reset.UTC().Format(time.RFC3339)}
	h[headerXLimit], h[headerXRemaining], h[headerXReset] = v[0:1:1], v[1:2:2], v[2:3:3]
	// Set as the real service spells them: some clients match header names
	// by case, and net/http would write P-Ratelimit-Limit.
	h[headerLimit], h[headerRemaining], h[headerReset] = v[0:1:1], v[1:2:2], v[2:3:3]
}

// wait is how long the bucket takes to gain tokens.
func (l *limiter) wait(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(tokens / float64(l.limit) * float64(time.Second)))
}

// ceilSecond rounds t up to a whole second, so a client that waits until
// the (second-precision) reset time finds the bucket full.
func ceilSecond(t time.Time) time.Time {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		return r.Add(time.Second)
	}
	return t
}

// In the sandbox every new key is a new account with a full bucket, so a
// client that sends each request with a fresh key would never meet the
// limit. Two more buckets, per client address, hold across accounts:
// requests, and keys not seen before. Both derive from the per-key limit
// of N per DURATION:
//
//   - requests per address: addressRequestFactor × N per DURATION, in
//     bursts as large (3,000 per 5 s by default: twenty keys at full pace);
//   - new keys per address: bursts of newKeyBurstFactor × N (1,500 by
//     default), refilled at N per DURATION (30 a second by default).
//
// A test suite on one machine, which makes a key per test and runs tests
// in parallel, stays well inside both.
const (
	addressRequestFactor = 20
	newKeyBurstFactor    = 10
	// maxRateAddresses bounds the addresses whose buckets are kept.
	maxRateAddresses = 10000
)

// addressLimits are the sandbox's limits per client address.
type addressLimits struct {
	reqs    *lru.Cache[string, *rate.Limiter]
	newKeys *lru.Cache[string, *rate.Limiter]
	n       int
	per     time.Duration
}

func newAddressLimits(n int, per time.Duration) *addressLimits {
	reqs, err := lru.New[string, *rate.Limiter](maxRateAddresses)
	if err != nil {
		panic("httpadapter: rate limiter cache: " + err.Error())
	}
	newKeys, err := lru.New[string, *rate.Limiter](maxRateAddresses)
	if err != nil {
		panic("httpadapter: rate limiter cache: " + err.Error())
	}
	return &addressLimits{reqs: reqs, newKeys: newKeys, n: n, per: per}
}

// take takes one token from addr's bucket in c, made with limit and burst
// when missing, and returns whether it was there and, if not, how long
// until it is.
func take(c *lru.Cache[string, *rate.Limiter], addr string, limit rate.Limit, burst int, now time.Time) (bool, time.Duration) {
	b, ok := c.Get(addr)
	if !ok {
		b = rate.NewLimiter(limit, burst)
		if prev, found, _ := c.PeekOrAdd(addr, b); found {
			b = prev
		}
	}
	if b.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.TokensAt(now)
	return false, time.Duration(math.Ceil(missing / float64(limit) * float64(time.Second)))
}

// allowRequest takes a request from addr's bucket.
func (a *addressLimits) allowRequest(addr string, now time.Time) (bool, time.Duration) {
	n := addressRequestFactor * a.n
	return take(a.reqs, addr, rate.Limit(float64(n)/a.per.Seconds()), n, now)
}

// allowNewKey takes a new key from addr's bucket.
func (a *addressLimits) allowNewKey(addr string, now time.Time) (bool, time.Duration) {
	return take(a.newKeys, addr, rate.Limit(float64(a.n)/a.per.Seconds()), newKeyBurstFactor*a.n, now)
}

// known reports whether key has a bucket, that is, was seen lately.
func (l *limiter) known(key string) bool { return l.buckets.Contains(key) }

// RetryAfter sets Retry-After to d in whole seconds, rounded up and at
// least 1, and returns the seconds it set.
func RetryAfter(w http.ResponseWriter, d time.Duration) string {
	s := strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
	w.Header().Set("Retry-After", s)
	return s
}

// limitAddress applies the sandbox's limits per client address to a
// request made with the key whose hash is keyHash.
func (h *handler) limitAddress(w http.ResponseWriter, r *http.Request, keyHash string) error {
	if h.byAddress == nil {
		return nil
	}
	addr := ClientAddress(r)
	now := h.rateNow("")
	if ok, wait := h.byAddress.allowRequest(addr, now); !ok {
		s := RetryAfter(w, wait)
		return errorf(lettershop.CodeRateLimited, "this client address has used up its limit of %d requests per %s across all sandbox keys; retry after %s s",
			addressRequestFactor*h.cfg.rateN, h.cfg.ratePer, s)
	}
	if !h.limiter.known(keyHash) {
		if ok, wait := h.byAddress.allowNewKey(addr, now); !ok {
			s := RetryAfter(w, wait)
			return errorf(lettershop.CodeRateLimited, "this client address has started too many new sandbox keys (%d at once, then %d per %s); reuse a key, or retry after %s s",
				newKeyBurstFactor*h.cfg.rateN, h.cfg.rateN, h.cfg.ratePer, s)
		}
	}
	return nil
}

// ClientAddress is the IP address r comes from, without the port: what
// the limits per client address and the failed-authentication throttle
// count by.
func ClientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// linkLimits limit the signed download links, which take no API key, per
// client address: N per DURATION, in bursts of N, like an API key. A link
// costs a render; without it one client could make the server draw PDFs
// as fast as it can ask.
type linkLimits struct {
	buckets *lru.Cache[string, *rate.Limiter]
	n       int
	per     time.Duration
}

func newLinkLimits(n int, per time.Duration) *linkLimits {
	c, err := lru.New[string, *rate.Limiter](maxRateAddresses)
	if err != nil {
		panic("httpadapter: rate limiter cache: " + err.Error())
	}
	return &linkLimits{buckets: c, n: n, per: per}
}

// limitLink applies the limit on download links to r. The P-RateLimit-*
// headers stay those of API keys: a link answer carries none.
func (h *handler) limitLink(w http.ResponseWriter, r *http.Request) error {
	if h.links == nil {
		return nil
	}
	l := h.links
	ok, wait := take(l.buckets, ClientAddress(r), rate.Limit(float64(l.n)/l.per.Seconds()), l.n, h.rateNow(""))
	if ok {
		return nil
	}
	s := RetryAfter(w, wait)
	return errorf(lettershop.CodeRateLimited, "this client address has used up its limit of %d download links per %s; retry after %s s", l.n, l.per, s)
}
