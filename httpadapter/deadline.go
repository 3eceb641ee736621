package httpadapter

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// DefaultRequestTimeout is how long a request's work with the Service may
// take, counted once its body has arrived, before it is answered 503 with
// Retry-After: a store that hangs (a database host gone silent, a pool
// whose connections are all stuck) then fails requests within a bound,
// answered before the server's write timeout, rather than piling them up.
const DefaultRequestTimeout = 30 * time.Second

// WithRequestTimeout sets how long a request's work with the Service may
// take once its body has arrived (DefaultRequestTimeout unless set); 0
// sets no bound. POST /_test/webhooks/settle, which waits as long as it is
// asked, keeps its own bound.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) { c.requestTimeout = d }
}

// errRequestTimeout is the cause of a request's context ended by its
// WithRequestTimeout bound.
var errRequestTimeout = errors.New("httpadapter: the request took longer than its time allowed")

// withDeadline returns r with the request timeout running from now.
func (h *handler) withDeadline(r *http.Request) (*http.Request, context.CancelFunc) {
	if h.cfg.requestTimeout <= 0 {
		return r, func() {}
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), h.cfg.requestTimeout, errRequestTimeout)
	return r.WithContext(ctx), cancel
}

// timedOut reports whether r's context ended on its request timeout.
func timedOut(r *http.Request) bool {
	return errors.Is(context.Cause(r.Context()), errRequestTimeout)
}
