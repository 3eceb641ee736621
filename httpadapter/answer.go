package httpadapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/lettershop/lettershop"
)

// WriteError answers err as the API answers its errors, for a handler
// beside it (the inbox) whose answers to programs must look the same: an
// application/problem+json body with an X-Request-Id. A *lettershop.Error
// is answered with its Code's status (and Retry-After when it sets
// RetryAfter); an *http.MaxBytesError with a 413 body-too-large problem;
// an error of a request its client cut off (its context ended) with
// StatusClientClosedRequest; anything else with a 500 whose detail shows
// nothing of err but the request id (the caller logs err).
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = &bodyTooLargeError{limit: mbe.Limit}
	}
	err = answerable(r, err)
	reqID := w.Header().Get(headerRequestID)
	if reqID == "" {
		reqID = newRequestID()
		w.Header().Set(headerRequestID, reqID)
	}
	var e *lettershop.Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		RetryAfter(w, e.RetryAfter)
	}
	problemResponse(context.WithValue(r.Context(), requestIDKey{}, reqID), err).write(w)
}

// WriteMethodNotAllowed answers r, whose path is served for the methods in
// allow ("GET, HEAD, POST") but not for r's, as the API answers such a
// request, for a handler beside it (the inbox): a 405 method-not-allowed
// problem with the Allow header and an X-Request-Id.
func WriteMethodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	h := w.Header()
	if h.Get(headerRequestID) == "" {
		h.Set(headerRequestID, newRequestID())
	}
	h.Set("Allow", allow)
	writeProblem(w, problem{
		Code: "method-not-allowed", Title: "Method not allowed", Status: http.StatusMethodNotAllowed,
		Detail: fmt.Sprintf("%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, allow),
	})
}
