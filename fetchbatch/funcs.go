package fetchbatch

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// NotFetched reports whether err says a fetch did not happen for a reason
// of the caller's (its context was canceled, a batch did not reach the
// URL), so that nothing is known of the URL.
func NotFetched(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, ErrNotStarted)
}

// Answers returns a Func that answers from a batch's results instead of
// fetching: a URL the batch was not given is ErrNotStarted.
func Answers(results map[string]Result) Func {
	return func(_ context.Context, url string) ([]byte, string, error) {
		r, ok := results[url]
		if !ok {
			return nil, "", ErrNotStarted
		}
		return r.Body, r.MediaType, r.Err
	}
}

// Once returns fetch remembering what it fetched, so that a URL asked for
// again is not fetched again: a request tried again after losing a race
// downloads its content once. A fetch that did not happen (NotFetched) is
// not remembered. The Func it returns is for one caller at a time.
func Once(fetch Func) Func {
	type got struct {
		body []byte
		typ  string
		err  error
	}
	done := map[string]got{}
	return func(ctx context.Context, url string) ([]byte, string, error) {
		if g, ok := done[url]; ok {
			return g.body, g.typ, g.err
		}
		body, typ, err := fetch(ctx, url)
		if !NotFetched(err) {
			done[url] = got{body, typ, err}
		}
		return body, typ, err
	}
}

// Limited fetches url with fetch, within timeout, taking at most maxBytes:
// a longer body is an error, whatever fetch made of the limit. When ctx
// ends first, it returns ctx's error: the end of the caller, not a fault
// of the URL.
func Limited(ctx context.Context, url string, timeout time.Duration, maxBytes int64, fetch func(ctx context.Context, url string, maxBytes int64) ([]byte, string, error)) ([]byte, string, error) {
	fctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, typ, err := fetch(fctx, url, maxBytes)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, "", ctx.Err()
	case err != nil:
		return nil, "", err
	case int64(len(body)) > maxBytes:
		return nil, "", fmt.Errorf("the answer is larger than the %d bytes taken", maxBytes)
	}
	return body, typ, nil
}

// Rounds runs drain, which may hold items back for a check of what they
// fetch (made outside drain's locks), and check on the items each drain
// held, until a drain holds none not yet checked. drain returns how many
// items it moved and the items it held that checked does not hold
// (Unchecked); check checks them, notes them in checked and returns how
// many it moved. Rounds returns how many moved in all, and drain's error,
// which ends the rounds.
func Rounds[T any](drain func(checked map[string]bool) (int, []T, error), check func(pending []T, checked map[string]bool) int) (int, error) {
	var checked map[string]bool
	total := 0
	for {
		n, pending, err := drain(checked)
		total += n
		if err != nil || len(pending) == 0 {
			return total, err
		}
		if checked == nil {
			checked = map[string]bool{}
		}
		total += check(pending, checked)
	}
}

// Unchecked returns the items of held whose key checked does not hold.
func Unchecked[T any](held []T, checked map[string]bool, key func(T) string) []T {
	var out []T
	for _, h := range held {
		if !checked[key(h)] {
			out = append(out, h)
		}
	}
	return out
}
