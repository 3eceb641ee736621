package lettershop

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// Code classifies an Error. The HTTP layer maps each Code to one status.
// The list is append-only: values keep their meaning forever.
type Code int

// The error codes.
const (
	// CodeInternal: something failed that the caller did not cause.
	CodeInternal Code = iota
	// CodeInvalid: the request is malformed or breaks a rule; Fields says where.
	CodeInvalid
	// CodeNotFound: no such object in the caller's account.
	CodeNotFound
	// CodeConflict: the object's state does not allow the operation.
	CodeConflict
	// CodeIdempotencyMismatch: an idempotency key was reused for a different request.
	CodeIdempotencyMismatch
	// CodeInFlight: a request with the same idempotency key is still running.
	CodeInFlight
	// CodeUnauthenticated: no credentials, or unknown ones.
	CodeUnauthenticated
	// CodeForbidden: the credentials lack a permission the operation needs.
	CodeForbidden
	// CodeRateLimited: too many requests.
	CodeRateLimited
	// CodeUpstream: content the operation fetched from elsewhere (a URL
	// the caller gave) could not be fetched or is not what it should be.
	CodeUpstream
	// CodeCanceled: the caller's context ended before the operation was
	// done (over HTTP, the client closed its connection). Like an internal
	// error, it says nothing of the request: the same request may succeed
	// when tried again, and an idempotency key does not keep it.
	CodeCanceled
)

var codeNames = [...]string{
	CodeInternal:            "internal",
	CodeInvalid:             "invalid",
	CodeNotFound:            "not found",
	CodeConflict:            "conflict",
	CodeIdempotencyMismatch: "idempotency mismatch",
	CodeInFlight:            "request in flight",
	CodeUnauthenticated:     "unauthenticated",
	CodeForbidden:           "forbidden",
	CodeRateLimited:         "rate limited",
	CodeUpstream:            "upstream",
	CodeCanceled:            "canceled",
}

// String returns the code's name.
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error is the one error type of the service. Message is safe to show to
// the caller; Fields maps a field path (recipient.address.addressLine1,
// metadata[2].key, variables[name]) to what is wrong with it; Err is the
// cause, kept for logs and errors.Is, never shown to the caller (but
// Error, the text for logs, ends with it for an internal error).
type Error struct {
	Code    Code
	Message string
	Fields  map[string]string
	Err     error
	// RetryAfter, when set, is how long the caller should wait before
	// trying again (a request still in flight under the same key; with
	// CodeInternal, a store that could not be reached).
	RetryAfter time.Duration
}

// Error returns the message, with the field errors in path order, and for
// CodeInternal and CodeCanceled the cause (Err): a text for logs. What the
// caller is shown is Message and Fields, as the HTTP layer shows them.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	for _, k := range slices.Sorted(maps.Keys(e.Fields)) {
		fmt.Fprintf(&b, "; %s: %s", k, e.Fields[k])
	}
	if e.Err != nil && (e.Code == CodeInternal || e.Code == CodeCanceled) {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the Code of err: the code of the first *Error in its
// chain, CodeInternal for any other error, and -1 for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return -1
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func notFound(kind, id string) *Error {
	return errorf(CodeNotFound, "%s %s not found", kind, id)
}

func internal(op string, err error) *Error {
	e := &Error{Code: CodeInternal, Message: "internal error", Err: fmt.Errorf("%s: %w", op, err)}
	if errors.Is(err, storage.ErrUnavailable) {
		e.RetryAfter = time.Second
	}
	return e
}

// Bounds on what an invalid-input Error says, whatever its input: the
// messages quote input through echo.Quote, and these hold the rest, so an
// error (and the outcome an idempotency key keeps of it) stays small
// however large or numerous the bad values. A path may hold input too (an
// unknown member's name, a variable's).
const (
	// MaxFieldErrors is how many fields an Error names at most; the
	// problems found past them are not reported.
	MaxFieldErrors = 50
	// MaxFieldPath and MaxFieldMessage bound a field's path and its
	// message, in bytes; longer ones are cut, with an ellipsis.
	MaxFieldPath    = 200
	MaxFieldMessage = 500
)

// storeErr maps a storage error to the service's errors: the caller's
// context ended is CodeCanceled, the request's idempotency claim taken over
// CodeInFlight, anything else CodeInternal. None is ever the request's
// fault, so none becomes a field error: an idempotency key keeps none
// (a claim taken over has no outcome kept), and a retry runs again. No
// error is nil.
func storeErr(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrClaimLost):
		// Another request with the idempotency key took it over while
		// this one ran (its lease ran out): it is the one in flight.
		return errorf(CodeInFlight, "a request with this idempotency key took over while this one ran")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeCanceled, Message: "the request was cancelled", Err: fmt.Errorf("%s: %w", op, err)}
	default:
		return internal(op, err)
	}
}

// objectErr is the error of a read or change of the kind's object id
// that failed: an error of the API's as it is, the object gone as not
// found, anything else the store's, in op.
func objectErr(err error, kind, id, op string) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return err
	case errors.Is(err, storage.ErrNotFound):
		return notFound(kind, id)
	}
	return storeErr(op, err)
}

// keepsOutcome reports whether an operation's error is an outcome of the
// request itself, which an idempotency key keeps and replays: not an
// internal error, nor a cancelled one.
func keepsOutcome(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code != CodeInternal && e.Code != CodeCanceled
}
