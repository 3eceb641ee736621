package httpadapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/wire"
)

// problemContentType is the media type of every error response (RFC 9457,
// formerly RFC 7807).
const problemContentType = "application/problem+json"

// problemKind is how one Code is answered: its status, the problem's code
// (a short name for machines) and title.
type problemKind struct {
	status int
	code   string
	title  string
}

// codeKinds is the one table from error Code to HTTP status.
var codeKinds = map[lettershop.Code]problemKind{
	lettershop.CodeInvalid:             {http.StatusBadRequest, "invalid-request", "Invalid request"},
	lettershop.CodeUnauthenticated:     {http.StatusUnauthorized, "unauthorized", "Unauthorized"},
	lettershop.CodeForbidden:           {http.StatusForbidden, "forbidden", "Forbidden"},
	lettershop.CodeNotFound:            {http.StatusNotFound, "not-found", "Not found"},
	lettershop.CodeConflict:            {http.StatusConflict, "conflict", "Conflict"},
	lettershop.CodeIdempotencyMismatch: {http.StatusUnprocessableEntity, "idempotency-key-reused", "Idempotency key reused"},
	lettershop.CodeInFlight:            {http.StatusConflict, "request-in-flight", "Request in flight"},
	lettershop.CodeRateLimited:         {http.StatusTooManyRequests, "rate-limited", "Too many requests"},
	lettershop.CodeUpstream:            {http.StatusBadGateway, "bad-gateway", "Bad gateway"},
	lettershop.CodeInternal:            {http.StatusInternalServerError, "internal", "Internal server error"},
	lettershop.CodeCanceled:            {StatusClientClosedRequest, "client-closed-request", "Client closed request"},
}

// StatusClientClosedRequest is the status of a request its client gave up
// on before it was answered (the connection closed, or its context ended):
// nginx's 499. No client reads it; it is what the request log, metrics
// and observers are told, so that a request cut off is counted as the
// client's doing, among the 4xx, and never as a 500.
const StatusClientClosedRequest = 499

// tooLarge is the kind of a body over its limit; the core has no Code for
// it because only the HTTP layer reads bodies.
var tooLarge = problemKind{http.StatusRequestEntityTooLarge, "body-too-large", "Request body too large"}

// StatusOf returns the HTTP status an error of code is answered with.
func StatusOf(code lettershop.Code) int {
	if k, ok := codeKinds[code]; ok {
		return k.status
	}
	return http.StatusInternalServerError
}

// statusSections are the sections of the RFCs that define each status a
// problem is answered with: RFC 9110 (HTTP Semantics), and RFC 6585 for
// 429 and 431, which RFC 9110 does not define.
var statusSections = map[int]string{
	http.StatusBadRequest:                  "rfc9110#section-15.5.1",
	http.StatusUnauthorized:                "rfc9110#section-15.5.2",
	http.StatusForbidden:                   "rfc9110#section-15.5.4",
	http.StatusNotFound:                    "rfc9110#section-15.5.5",
	http.StatusMethodNotAllowed:            "rfc9110#section-15.5.6",
	http.StatusRequestTimeout:              "rfc9110#section-15.5.9",
	http.StatusConflict:                    "rfc9110#section-15.5.10",
	http.StatusGone:                        "rfc9110#section-15.5.11",
	http.StatusRequestEntityTooLarge:       "rfc9110#section-15.5.14",
	http.StatusExpectationFailed:           "rfc9110#section-15.5.18",
	http.StatusUnprocessableEntity:         "rfc9110#section-15.5.21",
	http.StatusTooManyRequests:             "rfc6585#section-4",
	http.StatusRequestHeaderFieldsTooLarge: "rfc6585#section-5",
	http.StatusInternalServerError:         "rfc9110#section-15.6.1",
	http.StatusNotImplemented:              "rfc9110#section-15.6.2",
	http.StatusBadGateway:                  "rfc9110#section-15.6.3",
	http.StatusServiceUnavailable:          "rfc9110#section-15.6.4",
	http.StatusGatewayTimeout:              "rfc9110#section-15.6.5",
	http.StatusHTTPVersionNotSupported:     "rfc9110#section-15.6.6",
}

// ProblemType returns the type of a problem answered with status, as the
// real service writes it: the URI of the section of the RFC that defines
// the status (https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.1
// for 400). A status without a section of its own gets its class's (RFC
// 9110 section 15.5 for 4xx, 15.6 for 5xx). Problems carry their short
// name for machines (invalid-request, not-found, ...) in the code member.
func ProblemType(status int) string {
	const base = "https://datatracker.ietf.org/doc/html/"
	if s, ok := statusSections[status]; ok {
		return base + s
	}
	if status >= 500 {
		return base + "rfc9110#section-15.6"
	}
	return base + "rfc9110#section-15.5"
}

// problem is an application/problem+json body (RFC 9457): Type is set from
// Status when it is written; Code is the problem's short name, an extension
// member.
type problem struct {
	Type   string            `json:"type"`
	Title  string            `json:"title"`
	Status int               `json:"status"`
	Detail string            `json:"detail"`
	Code   string            `json:"code"`
	Errors map[string]string `json:"errors,omitempty"`
}

// bodyTooLargeError is a request body over its route's limit.
type bodyTooLargeError struct{ limit int64 }

func (e *bodyTooLargeError) Error() string {
	return fmt.Sprintf("the request body is larger than %d bytes", e.limit)
}

// problemFor describes err to the client. An internal error shows only a
// generic message and the request id; its cause goes to the log.
func problemFor(ctx context.Context, err error) problem {
	var big *bodyTooLargeError
	if errors.As(err, &big) {
		return problem{Code: tooLarge.code, Title: tooLarge.title, Status: tooLarge.status, Detail: big.Error()}
	}
	var slow *bodyTimeoutError
	if errors.As(err, &slow) {
		return problem{Code: "request-timeout", Title: "Request timeout", Status: http.StatusRequestTimeout, Detail: slow.Error()}
	}
	var busy *bodyBudgetError
	if errors.As(err, &busy) {
		return problem{Code: "unavailable", Title: "Service unavailable", Status: http.StatusServiceUnavailable, Detail: busy.Error()}
	}
	var e *lettershop.Error
	if !errors.As(err, &e) {
		e = &lettershop.Error{Code: lettershop.CodeInternal}
	}
	k, ok := codeKinds[e.Code]
	switch {
	case e.Code == lettershop.CodeInternal && e.RetryAfter > 0:
		// The store could not be reached: the server's state, not a fault
		// of the request's, and likely to pass.
		return problem{Code: "unavailable", Title: "Service unavailable", Status: http.StatusServiceUnavailable,
			Detail: "the server's store could not be reached, or did not answer in time; try again after Retry-After seconds, or quote request id " + requestID(ctx) + " when reporting it"}
	case !ok || e.Code == lettershop.CodeInternal:
		k = codeKinds[lettershop.CodeInternal]
		return problem{Code: k.code, Title: k.title, Status: k.status,
			Detail: "an internal error occurred; quote request id " + requestID(ctx) + " when reporting it"}
	case e.Code == lettershop.CodeCanceled:
		// Its cause is the service's to log, as an internal error's.
		return problem{Code: k.code, Title: k.title, Status: k.status, Detail: "the request was cancelled before it was answered"}
	}
	e = boundedError(e)
	// The detail repeats the field errors so a person reading a terminal
	// sees everything; programs read errors.
	p := problem{Code: k.code, Title: k.title, Status: k.status, Detail: e.Error(), Errors: e.Fields}
	if p.Detail == "" {
		p.Detail = k.title
	}
	return p
}

// isInternal reports whether err is answered with 500, or 503 for a store
// that could not be reached: an error of the server's, logged in full.
func isInternal(err error) bool {
	var big *bodyTooLargeError
	if errors.As(err, &big) || errors.As(err, new(*bodyTimeoutError)) || errors.As(err, new(*bodyBudgetError)) {
		return false
	}
	_, ok := codeKinds[lettershop.ErrorCode(err)]
	return !ok || lettershop.ErrorCode(err) == lettershop.CodeInternal
}

// problemResponse is the full response for err.
func problemResponse(ctx context.Context, err error) response {
	return problemFor(ctx, err).response()
}

func writeProblem(w http.ResponseWriter, p problem) { p.response().write(w) }

// ProblemBody is the application/problem+json body the handler writes for
// a problem of status named code, with detail and the fields at fault: for
// the answers a server makes before the handler runs.
func ProblemBody(status int, code, detail string, fields map[string]string) []byte {
	return problem{Title: http.StatusText(status), Status: status, Detail: detail, Code: code, Errors: fields}.response().body
}

// response is the full response for p, its type set from its status.
func (p problem) response() response {
	p.Type = ProblemType(p.Status)
	return response{status: p.Status, contentType: problemContentType, body: marshalJSON(p)}
}

// cutOff reports whether err is what r failed with because its client
// went away: r's context ended, and err says it was cancelled.
func cutOff(r *http.Request, err error) bool {
	return r.Context().Err() != nil && (lettershop.ErrorCode(err) == lettershop.CodeCanceled ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// answerable is err as r is answered: a CodeCanceled error when r was cut
// off by its client, whatever err's code; an internal error when err says
// it was cancelled but r's context is live (another context ended: the
// service's failure, not the client's), to retry after a second when a
// deadline ended it.
func answerable(r *http.Request, err error) error {
	switch {
	case timedOut(r) && (lettershop.ErrorCode(err) == lettershop.CodeCanceled || errors.Is(err, context.DeadlineExceeded)):
		// The store did not answer in the time allowed: as a store out of
		// reach, to retry.
		err = &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error", Err: err, RetryAfter: time.Second}
	case cutOff(r, err):
		if lettershop.ErrorCode(err) != lettershop.CodeCanceled {
			err = &lettershop.Error{Code: lettershop.CodeCanceled, Message: "the request was cancelled", Err: err}
		}
	case lettershop.ErrorCode(err) == lettershop.CodeCanceled:
		e := &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error", Err: err}
		if errors.Is(err, context.DeadlineExceeded) {
			// A time limit of the service's own ran out: the store did
			// not answer in time.
			e.RetryAfter = time.Second
		}
		err = e
	}
	return err
}

// fail answers err as a problem, logging internal errors in full. A
// request its client gave up on is answered 499 and logged at info.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	err = answerable(r, err)
	if lettershop.ErrorCode(err) == lettershop.CodeCanceled {
		h.cfg.logger.InfoContext(r.Context(), "request cancelled by its client", "request_id", requestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "err", err)
	}
	h.logIfInternal(r, err)
	var e *lettershop.Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		RetryAfter(w, e.RetryAfter)
	}
	if errors.As(err, new(*bodyBudgetError)) {
		RetryAfter(w, time.Second)
	}
	problemResponse(r.Context(), err).write(w)
}

func (h *handler) logIfInternal(r *http.Request, err error) {
	if err != nil && isInternal(err) {
		h.cfg.logger.ErrorContext(r.Context(), "internal error", "request_id", requestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "err", err)
	}
}

func errorf(code lettershop.Code, format string, args ...any) *lettershop.Error {
	return &lettershop.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// invalid is an invalid-request error about one field or parameter.
func invalid(field, format string, args ...any) *lettershop.Error {
	return &lettershop.Error{
		Code:    lettershop.CodeInvalid,
		Message: "the request is invalid",
		Fields:  map[string]string{field: fmt.Sprintf(format, args...)},
	}
}

// invalidFields is an invalid-request error about several, or nil for none.
func invalidFields(fields map[string]string) error {
	if len(fields) == 0 {
		return nil
	}
	return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the request is invalid", Fields: fields}
}

// marshalJSON encodes v as the body of a response: compact, a final
// newline, HTML characters left as they are (templates are HTML).
func marshalJSON(v any) []byte {
	b := encodeJSON(v)
	out := bytes.Clone(b.Bytes())
	putBuffer(b)
	return out
}

// writeJSON answers with v as a JSON body, encoded as marshalJSON does into
// a pooled buffer that is reused once written.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b := encodeJSON(v)
	response{status: status, contentType: "application/json", body: b.Bytes()}.write(w)
	putBuffer(b)
}

// bufferPool holds the buffers responses are encoded into.
var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer is the largest buffer kept for reuse: a page of 100
// letters is about 300 KB; a buffer grown by a rare larger body goes.
const maxPooledBuffer = 1 << 20

// encodeJSON encodes v into a buffer from bufferPool. go-json writes the
// same bytes as encoding/json for the service's types (the golden files
// hold it to that) at a fraction of the cost.
func encodeJSON(v any) *bytes.Buffer {
	b := bufferPool.Get().(*bytes.Buffer)
	enc := gojson.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shownTimes(v)); err != nil {
		// Only the service's own types get here, and they all encode.
		panic("httpadapter: encode response: " + err.Error())
	}
	return b
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	bufferPool.Put(b)
}

// response is a complete answer to a request, as stored for idempotent
// replay: the status, the headers that belong to the response itself, and
// the body.
type response struct {
	status      int
	contentType string
	location    string
	body        []byte
}

func (resp response) write(w http.ResponseWriter) {
	h := w.Header()
	if resp.contentType != "" {
		h.Set("Content-Type", resp.contentType)
	}
	if resp.location != "" {
		h.Set("Location", resp.location)
	}
	if len(resp.body) > 0 {
		h.Set("Content-Length", strconv.Itoa(len(resp.body)))
	}
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body)
}

func jsonResponse(status int, v any) response {
	return response{status: status, contentType: "application/json", body: marshalJSON(v)}
}

// letterResponse is jsonResponse for a letter: the letter as the API shows
// it (package wire), which the general encoder does not know.
func letterResponse(status int, l *lettershop.Letter) response {
	body, err := wire.Letter(l)
	if err != nil {
		// Only the service's own letters get here, and they all encode.
		panic("httpadapter: encode response: " + err.Error())
	}
	return response{status: status, contentType: "application/json", body: append(body, '\n')}
}

// writeText answers with text as writeJSON answers with the value it
// encodes.
func writeText(w http.ResponseWriter, status int, text wire.Text) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(text.Len()))
	w.WriteHeader(status)
	_, _ = text.WriteTo(w)
}

// writeEncoded answers 200 with data, JSON the Service encoded into b's
// available buffer, as writeJSON writes the value it encodes: followed by a
// newline. b goes back to the pool.
func writeEncoded(w http.ResponseWriter, b *bytes.Buffer, data []byte) {
	data = append(data, '\n')
	response{status: http.StatusOK, contentType: "application/json", body: data}.write(w)
	// The buffer keeps what data grew to, for the next answer.
	if cap(data) > b.Cap() {
		*b = *bytes.NewBuffer(data[:0])
	}
	putBuffer(b)
}
