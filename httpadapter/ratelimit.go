package httpadapter

import (
	"math"
	"net/http"
	"strconv"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
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
	// Set as the real service spells them: some clients match header names
	// by case, and net/http would write P-Ratelimit-Limit.
	h := w.Header()
	h[headerLimit] = []string{strconv.Itoa(l.n)}
	h[headerRemaining] = []string{strconv.Itoa(int(math.Floor(tokens)))}
	h[headerReset] = []string{ceilSecond(full).UTC().Format(time.RFC3339)}
	if !allowed {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(l.wait(1-tokens).Seconds()))))
	}
	return allowed
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
