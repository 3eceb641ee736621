package client

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// The status classes an *Error matches with errors.Is.
var (
	// ErrInvalid matches a 400: the request broke a rule; Fields names each
	// field at fault. Repeating it fails the same way.
	ErrInvalid = errors.New("invalid request")
	// ErrUnauthorized matches a 401: no API key, or an unknown one.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden matches a 403: the API key lacks the operation's scope.
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound matches a 404: no such object in the key's account.
	ErrNotFound = errors.New("not found")
	// ErrConflict matches a 409: the object's state does not allow the
	// operation, or (Code "request-in-flight") a request with the same
	// idempotency key was still running through every retry.
	ErrConflict = errors.New("conflict")
	// ErrTooLarge matches a 413: the request body is over its limit.
	ErrTooLarge = errors.New("request body too large")
	// ErrIdempotencyKeyReused matches a 422: the idempotency key was used
	// for a different request.
	ErrIdempotencyKeyReused = errors.New("idempotency key reused")
	// ErrRateLimited matches a 429 that outlasted every retry.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer matches any 5xx that outlasted every retry.
	ErrServer = errors.New("server error")
)

// Error is an answer other than a success: the API's problem body
// (application/problem+json) and the response's status.
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code names the kind of problem, one of the Code constants:
	// CodeInvalidRequest, CodeNotFound, CodeConflict, CodeRequestInFlight,
	// CodeRateLimited, ...
	Code string
	// Type is the problem's type: the URI of the section of the RFC that
	// defines the status
	// (https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.1 for
	// 400).
	Type string
	// Title is a short summary of the kind.
	Title string
	// Detail says what went wrong with this request, safe to show.
	Detail string
	// Fields maps each field path at fault (recipient.address.addressLine1,
	// variables[name]) to its message, on validation failures.
	Fields map[string]string
	// RequestID is the response's X-Request-Id, which the server's log
	// holds the cause under.
	RequestID string
	// RetryAfter is the response's Retry-After, how long to wait before
	// trying again (on a 429, a 409 request-in-flight, a 503); 0 when it
	// has none.
	RetryAfter time.Duration
}

// Error describes the problem in one line, with its field errors.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lettershop: %d", e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	switch {
	case e.Detail != "":
		fmt.Fprintf(&b, ": %s", e.Detail)
	case e.Title != "":
		fmt.Fprintf(&b, ": %s", e.Title)
	}
	if len(e.Fields) > 0 && !strings.Contains(e.Detail, ": ") {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "; %s: %s", k, e.Fields[k])
		}
	}
	return b.String()
}

// Is reports whether target is e's status class (ErrNotFound for a 404,
// ErrServer for any 5xx, ...).
func (e *Error) Is(target error) bool {
	return target != nil && classOf(e.StatusCode) == target
}

func classOf(status int) error {
	switch {
	case status == http.StatusBadRequest:
		return ErrInvalid
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusForbidden:
		return ErrForbidden
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusConflict:
		return ErrConflict
	case status == http.StatusRequestEntityTooLarge:
		return ErrTooLarge
	case status == http.StatusUnprocessableEntity:
		return ErrIdempotencyKeyReused
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500 && status <= 599:
		return ErrServer
	}
	return nil
}
