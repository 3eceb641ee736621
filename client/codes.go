package client

// The problem codes a server answers with, in Error.Code: a short name for
// programs to branch on, finer than the status (a 409 is CodeConflict or
// CodeRequestInFlight). They are untyped constants, to compare with
// Error.Code as it is:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.Code == client.CodeRequestInFlight { ... }
//
// The list is the server's: a code it does not hold is not answered.
const (
	// CodeInvalidRequest is a 400: the request broke a rule (Error.Fields
	// names each field at fault), or could not be parsed.
	CodeInvalidRequest = "invalid-request"
	// CodeUnauthorized is a 401: no API key, or an unknown one.
	CodeUnauthorized = "unauthorized"
	// CodeForbidden is a 403: the API key lacks the operation's scope, or
	// a download link is expired or altered.
	CodeForbidden = "forbidden"
	// CodeNotFound is a 404: no such object in the key's account, or no
	// such route.
	CodeNotFound = "not-found"
	// CodeMethodNotAllowed is a 405: the path is served for other methods.
	CodeMethodNotAllowed = "method-not-allowed"
	// CodeRequestTimeout is a 408: the request body did not arrive in its
	// time. The client tries again.
	CodeRequestTimeout = "request-timeout"
	// CodeConflict is a 409: the object's state does not allow the
	// operation (updating a mailed letter, an archived version).
	CodeConflict = "conflict"
	// CodeRequestInFlight is a 409: a request with the same idempotency key
	// is still running. The client tries again after its Retry-After.
	CodeRequestInFlight = "request-in-flight"
	// CodeFaultsDropped is a 410 of a server run with test routes: faults
	// set with uses left were dropped to keep the server's bound.
	CodeFaultsDropped = "faults-dropped"
	// CodeBodyTooLarge is a 413: the request body is over its limit.
	CodeBodyTooLarge = "body-too-large"
	// CodeExpectationFailed is a 417: the request's Expect header is not
	// 100-continue.
	CodeExpectationFailed = "expectation-failed"
	// CodeIdempotencyKeyReused is a 422: the idempotency key was used for a
	// different request.
	CodeIdempotencyKeyReused = "idempotency-key-reused"
	// CodeRateLimited is a 429: a rate limit is used up. The client tries
	// again once it is reset.
	CodeRateLimited = "rate-limited"
	// CodeHeadersTooLarge is a 431: the request line and headers are over
	// their limit.
	CodeHeadersTooLarge = "headers-too-large"
	// CodeClientClosedRequest is a 499, which a client never reads: the
	// server's name, in its log and metrics, for a request whose client
	// went away (or whose context ended) before it was answered.
	CodeClientClosedRequest = "client-closed-request"
	// CodeInternal is a 500: a fault of the server; Error.Detail quotes the
	// request id its log holds the cause under.
	CodeInternal = "internal"
	// CodeNotImplemented is a 501: a request the server does not
	// implement.
	CodeNotImplemented = "not-implemented"
	// CodeBadGateway is a 502: content the server fetched from a URL the
	// request gave could not be fetched, or is not what it should be.
	CodeBadGateway = "bad-gateway"
	// CodeUnavailable is a 503: the server is busy (too many request
	// bodies at once) or its store out of reach; with Retry-After.
	CodeUnavailable = "unavailable"
	// CodeNotReady is a 503 of GET /readyz: the store did not answer in
	// time.
	CodeNotReady = "not-ready"
	// CodeTooManyConnections is a 503: the server is at its cap of open
	// connections, in all or for the client's address; with Retry-After.
	CodeTooManyConnections = "too-many-connections"
	// CodeHTTPVersionNotSupported is a 505: the request is not HTTP/1.x.
	CodeHTTPVersionNotSupported = "http-version-not-supported"
	// CodeHTTPError is any other status the server's connection handling
	// answers on its own.
	CodeHTTPError = "http-error"
)
