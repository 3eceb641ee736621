package httpadapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/lettershop/lettershop"
)

// The default pace of request bodies; see WithBodyReadRate.
const (
	// DefaultBodyReadRate is the bytes per second a body must arrive at.
	DefaultBodyReadRate = 64 << 10
	// DefaultBodyReadGrace is the time a body gets on top of its length
	// at DefaultBodyReadRate.
	DefaultBodyReadGrace = 5 * time.Second
)

// WithBodyReadRate sets how long a request body may take to arrive: grace,
// plus its length at bytesPerSecond. The length is the Content-Length the
// client announced, or the route's body limit when it announced none, so
// the deadline is proportionate to the most the route reads. A body not in
// by then is a 408 problem, and its connection is closed. bytesPerSecond
// 0 sets no deadline of the handler's own (the server's read timeout still
// holds). The default is 64 KiB/s and 5 s: a 1 KiB body gets about 5 s,
// one of 1 MiB 21 s. Under an http.Server with a WriteTimeout, the
// answer's write timeout then counts from the body's deadline, so a body
// that takes longer than the write timeout to arrive is still answered.
func WithBodyReadRate(bytesPerSecond int, grace time.Duration) Option {
	return func(c *config) { c.bodyRate, c.bodyGrace = bytesPerSecond, grace }
}

// bodyTimeoutError is a request body that did not arrive in its time.
type bodyTimeoutError struct{ allowed time.Duration }

func (e *bodyTimeoutError) Error() string {
	return fmt.Sprintf("the request body did not arrive within %s", e.allowed.Round(time.Millisecond))
}

// bodyDeadline sets the connection's read deadline for r's body, of at
// most limit bytes, and returns the time allowed (0 for none). The deadline
// is on the wall clock: it is the socket's.
func (h *handler) bodyDeadline(w http.ResponseWriter, r *http.Request, limit int64) time.Duration {
	if h.cfg.bodyRate <= 0 {
		return 0
	}
	n := limit
	if r.ContentLength >= 0 && r.ContentLength < limit {
		n = r.ContentLength
	}
	allowed := h.cfg.bodyGrace + time.Duration(float64(n)/float64(h.cfg.bodyRate)*float64(time.Second))
	due := time.Now().Add(allowed)
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(due); err != nil {
		return 0 // a ResponseWriter that cannot: the server's timeouts hold
	}
	// The server's write timeout counts from the request's head: a body
	// allowed longer would arrive, or be answered 408, after the answer
	// could still be written. It counts from the body's deadline instead.
	if srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server); srv != nil && srv.WriteTimeout > 0 {
		_ = rc.SetWriteDeadline(due.Add(srv.WriteTimeout))
	}
	return allowed
}

// isBodyTimeout reports whether a body read failed on its deadline.
func isBodyTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// The default bound on request bodies held at once; see WithBodyBudget.
const (
	// DefaultBodyBudget is the bytes of request bodies the handler holds
	// at once, in all its requests.
	DefaultBodyBudget = 64 << 20
	// DefaultBodyBudgetWait is how long a body that does not fit waits
	// for others to be answered.
	DefaultBodyBudgetWait = 10 * time.Second
)

// WithBodyBudget bounds the bytes of request bodies the handler holds at
// once, in all its requests: a body counts for its Content-Length (the
// route's limit when it announced none; the budget when larger, so a body
// alone always fits) from before it is read until its request is
// answered. A body that does not fit waits up to wait for others to be
// answered, unread, and is then answered 503 with Retry-After: many large
// uploads at once wait their turn rather than take the server's memory.
// With the limits per client address (WithAddressLimits), the bodies of
// one address hold at most half the budget at once, and a body counts at
// most that half: one client cannot take all the room and keep others'
// bodies out (see bodyShares). bytes 0 sets no bound. The default is DefaultBodyBudget and
// DefaultBodyBudgetWait.
func WithBodyBudget(bytes int64, wait time.Duration) Option {
	return func(c *config) { c.bodyBudget, c.bodyBudgetWait = bytes, wait }
}

// bodyBudgetError is a body that did not fit the handler's body budget in
// its wait, or its client address's share of it (share set).
type bodyBudgetError struct {
	budget int64
	waited time.Duration
	share  int64
}

func (e *bodyBudgetError) Error() string {
	if e.share > 0 {
		return fmt.Sprintf("this client address's request bodies held at once take as much of the server's room for bodies as one address may (%d bytes), and none of them was answered within %s to make room for this one; retry after Retry-After seconds", e.share, e.waited)
	}
	return fmt.Sprintf("the server holds as many request bodies as it takes at once (%d bytes in all), and none was answered within %s to make room for this one; retry after Retry-After seconds", e.budget, e.waited)
}

// reserveBody takes room in the body budget for r's body of at most limit
// bytes, waiting its turn, and returns the room taken, which releaseBody
// gives back. With the limits per client address, the room is first taken
// in the address's share (bodyShares), and counts at most the share.
func (h *handler) reserveBody(r *http.Request, limit int64) (bodyRoom, error) {
	n := limit
	if r.ContentLength >= 0 && r.ContentLength < limit {
		n = r.ContentLength
	}
	if h.bodies == nil || n == 0 {
		return bodyRoom{}, nil
	}
	room := bodyRoom{n: min(n, h.cfg.bodyBudget)}
	// The wait, one for the share and the budget together, made only
	// when a body must wait.
	var ctx context.Context
	cancel := context.CancelFunc(func() {})
	defer func() { cancel() }()
	wait := func(sem *semaphore.Weighted, share int64) error {
		if sem.TryAcquire(room.n) {
			return nil
		}
		if ctx == nil {
			ctx, cancel = context.WithTimeout(r.Context(), h.cfg.bodyBudgetWait)
		}
		if err := sem.Acquire(ctx, room.n); err != nil {
			if r.Context().Err() != nil {
				return &lettershop.Error{Code: lettershop.CodeCanceled, Message: "the request was cancelled", Err: r.Context().Err()}
			}
			return &bodyBudgetError{budget: h.cfg.bodyBudget, waited: h.cfg.bodyBudgetWait, share: share}
		}
		return nil
	}
	if h.shares != nil {
		room.n = min(room.n, h.shares.share)
		room.addr = h.shares.enter(ClientAddress(r))
		if err := wait(room.addr.sem, h.shares.share); err != nil {
			h.shares.leave(room.addr)
			return bodyRoom{}, err
		}
	}
	if err := wait(h.bodies, 0); err != nil {
		if room.addr != nil {
			room.addr.sem.Release(room.n)
			h.shares.leave(room.addr)
		}
		return bodyRoom{}, err
	}
	return room, nil
}

// releaseBody gives back room reserveBody took.
func (h *handler) releaseBody(room bodyRoom) {
	if room.n == 0 {
		return
	}
	h.bodies.Release(room.n)
	if room.addr != nil {
		room.addr.sem.Release(room.n)
		h.shares.leave(room.addr)
	}
}
