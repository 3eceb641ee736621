package httpadapter

import (
	"context"
	"errors"
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
