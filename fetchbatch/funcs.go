package fetchbatch

import (
	"context"
	"errors"
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
