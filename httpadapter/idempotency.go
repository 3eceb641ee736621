package httpadapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unique"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/echo"

	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/wire"
)

// An idempotency key keeps what a response was made from, not always its
// bytes (lettershop.Outcome): a response to a letter is kept as the letter
// as it then was (a lettershop.LetterSnapshot, a few hundred bytes shared
// with the store's own copy of the letter), and encoded again when a
// retry replays it, which gives the same bytes; any other response is kept
// as it was sent. A store that serializes stores them in the forms below,
// each a first line naming the form and the status, header lines, an
// empty line, and the body, much like HTTP/1.1 on the wire, so a stored
// outcome can be read by eye in the store:
//
//	lettershop-response/1 201
//	Content-Type: application/json
//	Location: /assets/ast_...
//
//	{"id":"ast_...",...}
//
// and for a letter, whose body is its snapshot (compressed) and whose
// Location, when it has one, is the base given followed by /letters/ and
// the letter's id:
//
//	lettershop-letter/1 201
//	Location-Base: /v1
//
//	lsnap1 ...
const (
	storedMagic       = "lettershop-response/1 "
	storedLetterMagic = "lettershop-letter/1 "
)

// answer is a response kept as it was sent. It never changes.
type answer struct{ response }

// CloneDocument implements storage.Document: an answer never changes.
func (a *answer) CloneDocument() storage.Document { return a }

// EncodeDocument implements storage.Document.
func (a *answer) EncodeDocument() ([]byte, error) { return a.marshal(), nil }

// OutcomeSize implements lettershop.Outcome.
func (a *answer) OutcomeSize() int {
	return len(a.body) + len(a.location) + len(a.contentType) + answerOverhead
}

// answerOverhead is what an outcome counts besides its own bytes: about
// what a store keeps for it (its record, key and indexes).
const answerOverhead = 64

// letterAnswer is a response showing a letter, kept as the letter was.
type letterAnswer struct {
	letter lettershop.LetterSnapshot
	// base is what the Location header holds before /letters/{id}, when
	// the response has one (noLocation when not).
	base   unique.Handle[string]
	status int
}

// noLocation is the base of a letterAnswer without a Location.
var noLocation unique.Handle[string]

// CloneDocument implements storage.Document: a letterAnswer never changes.
func (a *letterAnswer) CloneDocument() storage.Document { return a }

// EncodeDocument implements storage.Document.
func (a *letterAnswer) EncodeDocument() ([]byte, error) {
	b := []byte(storedLetterMagic + strconv.Itoa(a.status) + "\n")
	if a.base != noLocation {
		b = append(b, "Location-Base: "+a.base.Value()+"\n"...)
	}
	b = append(b, '\n')
	return a.letter.AppendEncoded(b)
}

// OutcomeSize implements lettershop.Outcome.
func (a *letterAnswer) OutcomeSize() int { return a.letter.Size() + answerOverhead }

// response is the response the letter answer replays.
func (a *letterAnswer) response() (response, error) {
	l, err := a.letter.Letter()
	if err != nil {
		return response{}, err
	}
	body, err := wire.AppendLetter(nil, l)
	if err != nil {
		return response{}, err
	}
	resp := response{status: a.status, contentType: "application/json", body: append(body, '\n')}
	if a.base != noLocation {
		resp.location = a.base.Value() + "/letters/" + l.ID
	}
	return resp, nil
}

// keepLetter is the outcome kept of a response with status showing l,
// with a Location of base/letters/{id} when withLocation.
func keepLetter(l *lettershop.Letter, status int, base string, withLocation bool) (lettershop.Outcome, error) {
	snap, err := l.Snapshot()
	if err != nil {
		return nil, err
	}
	a := &letterAnswer{letter: *snap, status: status}
	if withLocation {
		a.base = unique.Make(base)
	}
	return a, nil
}

func (resp response) marshal() []byte {
	var b bytes.Buffer
	b.WriteString(storedMagic)
	b.WriteString(strconv.Itoa(resp.status))
	b.WriteByte('\n')
	if resp.contentType != "" {
		b.WriteString("Content-Type: " + resp.contentType + "\n")
	}
	if resp.location != "" {
		b.WriteString("Location: " + resp.location + "\n")
	}
	b.WriteByte('\n')
	b.Write(resp.body)
	return b.Bytes()
}

// replayed is the response an outcome a store returned replays.
func replayed(out storage.Document) (response, error) {
	switch out := out.(type) {
	case *answer:
		return out.response, nil
	case *letterAnswer:
		return out.response()
	case storage.Encoded:
		return parseResponse(out)
	default:
		return response{}, fmt.Errorf("stored response of type %T", out)
	}
}

func parseResponse(data []byte) (response, error) {
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		return response{}, errors.New("stored response: no end of headers")
	}
	lines := strings.Split(string(head), "\n")
	code, ok := strings.CutPrefix(lines[0], storedMagic)
	isLetter := false
	if !ok {
		code, isLetter = strings.CutPrefix(lines[0], storedLetterMagic)
		if !isLetter {
			return response{}, fmt.Errorf("stored response: unknown format %q", echo.Cut(lines[0], 40))
		}
	}
	status, err := strconv.Atoi(code)
	if err != nil || status < 100 || status > 599 {
		return response{}, fmt.Errorf("stored response: bad status %q", echo.Cut(code, 40))
	}
	resp := response{status: status, body: body}
	a := letterAnswer{status: status}
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ": ")
		switch {
		case ok && name == "Content-Type" && !isLetter:
			resp.contentType = value
		case ok && name == "Location" && !isLetter:
			resp.location = value
		case ok && name == "Location-Base" && isLetter:
			a.base = unique.Make(value)
		default:
			return response{}, fmt.Errorf("stored response: unknown header line %q", echo.Cut(l, 80))
		}
	}
	if !isLetter {
		return resp, nil
	}
	snap, err := lettershop.DecodeLetterSnapshot(body)
	if err != nil {
		return response{}, fmt.Errorf("stored response: %w", err)
	}
	a.letter = *snap
	return a.response()
}

// mutation is a route's operation with side effects, run under the
// request's Idempotency-Key.
type mutation struct {
	// limit is the largest body the route takes.
	limit int64
	// op decodes body and calls the Service. What it returns is what the
	// Service returned.
	op func(ctx context.Context, body []byte) (any, error)
	// ok is the response to a success; v is what the Service operation
	// returned (a *Letter, *Asset, *AssetVersion, or nothing for a delete).
	ok func(v any) response
	// keep, when set, is what an idempotency key keeps of a success, to
	// replay: a letter's snapshot, or a response that leaves out what only
	// the first may show. Unset, the key keeps ok's response.
	keep func(v any) (lettershop.Outcome, error)
	// content says the body is content taken as it is (an upload), not
	// JSON: a retry is the same request only with the same bytes.
	content bool
}

// mutate runs m once per idempotency key. Client errors are stored and
// replayed like successes; internal and cancelled errors are not, so a
// retry can succeed. A replay is byte for byte what the first request answered,
// except what m.keep leaves out.
func (h *handler) mutate(w http.ResponseWriter, r *http.Request, c *call, m mutation) {
	key, err := idempotencyKeyOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	body, held, err := h.readBody(w, r, m.limit)
	defer h.releaseBody(held)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	r, cancel := h.withDeadline(r)
	defer cancel()
	ctx := r.Context()
	// The first answer: nil when the outcome was stored before, or could
	// not be kept.
	var first *response
	encode := func(v any, err error) (lettershop.Outcome, bool) {
		var resp response
		switch {
		case err != nil && (isInternal(err) || lettershop.ErrorCode(err) == lettershop.CodeCanceled):
			return nil, false
		case err != nil:
			resp = problemResponse(ctx, err)
		default:
			resp = m.ok(v)
		}
		first = &resp
		if key == "" {
			return nil, true
		}
		if err == nil && m.keep != nil {
			out, kErr := m.keep(v)
			if kErr == nil {
				return out, true
			}
			// Kept as sent, rather than not at all: the write is made.
			h.cfg.logger.WarnContext(ctx, "keep idempotent outcome", "request_id", requestID(ctx), "err", kErr)
		}
		return &answer{resp}, true
	}
	req := lettershop.IdempotentRequest{Scope: "apikey:" + c.keyHash, Account: c.account, Key: key, Encode: encode}
	if key != "" {
		req.Fingerprint = lettershop.Fingerprint([]byte(r.Method), []byte(c.path), requestBody(body, m.content))
		// Before JSON bodies were compared as JSON, their bytes were: an
		// outcome stored then, within its 24 hours, carries that.
		req.FormerFingerprint = func() string { return lettershop.Fingerprint([]byte(r.Method), []byte(c.path), body) }
	}
	res, err := h.svc.Idempotent(ctx, req, func(ctx context.Context) (any, error) { return m.op(ctx, body) })
	h.observeIdempotency(res.Replayed, err)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var resp response
	if first != nil && !res.Replayed {
		resp = *first
	} else if resp, err = replayed(res.Outcome); err != nil {
		h.fail(w, r, &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error", Err: err})
		return
	}
	if res.Replayed {
		w.Header().Set(headerReplayed, "true")
	}
	resp.write(w)
}

// requestBody is what of body tells one request from another under an
// idempotency key: a JSON body's canonical form (wire.Canonical), so that a
// retry whose client wrote the same JSON another way (its members in
// another order, other spaces, other escapes) is the same request, as the
// real service's reference has it ("subsequent requests with the same key
// return the identical result"); content, or a body that is not JSON, as
// its bytes.
func requestBody(body []byte, content bool) []byte {
	if content {
		return body
	}
	if canon, ok := wire.Canonical(make([]byte, 0, len(body)), body); ok {
		return canon
	}
	return body
}

// idempotencyKeyOf returns the request's Idempotency-Key, "" when it has
// none, and an error when it has several, of which the server will not
// pick one: whatever stands in front of it may have picked another. An
// empty one (or blanks alone, which net/http trims away) is an error too,
// not a request without a key: its client meant the request to be safe to
// repeat (a key from a variable that was never set), and a retry run again
// would mail a second letter.
func idempotencyKeyOf(r *http.Request) (string, error) {
	keys := r.Header[headerIdempotencyKey]
	if len(keys) > 1 {
		return "", invalid(headerIdempotencyKey, "give one idempotency key; the request has %d %s headers", len(keys), headerIdempotencyKey)
	}
	if len(keys) == 0 {
		return "", nil
	}
	if keys[0] == "" {
		return "", invalid(headerIdempotencyKey, "is empty: give a key of 1 to %d characters, or leave the header out to send the request without one",
			lettershop.MaxIdempotencyKeyLen)
	}
	return keys[0], nil
}

// readJSON reads a JSON body of at most MaxJSONBody bytes into dst, as the
// test routes take them (not idempotent, so no fingerprint is kept).
func (h *handler) readJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	body, held, err := h.readBody(w, r, MaxJSONBody)
	defer h.releaseBody(held)
	if err != nil {
		return err
	}
	return decodeJSON(body, dst)
}

// readBody reads the whole body, up to limit bytes, within the time
// WithBodyReadRate allows, once it fits the body budget (WithBodyBudget):
// held is the room it takes there, which the caller gives back
// (releaseBody) once the request is answered, also after an error.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request, limit int64) (body []byte, held bodyRoom, err error) {
	if enc := r.Header.Values("Content-Encoding"); len(enc) > 0 && !(len(enc) == 1 && strings.EqualFold(strings.TrimSpace(enc[0]), "identity")) {
		// A compressed body read as it is would be refused as malformed,
		// or stored as its compressed bytes: say what is wrong instead.
		return nil, bodyRoom{}, invalid("Content-Encoding", "request bodies are taken as sent: send it without Content-Encoding (got %s)", echo.Quote(strings.Join(enc, ", ")))
	}
	if r.ContentLength > limit {
		// Refused before a byte is read: a client that asked to be told
		// first (Expect: 100-continue) sends none of it.
		return nil, bodyRoom{}, &bodyTooLargeError{limit: limit}
	}
	if held, err = h.reserveBody(r, limit); err != nil {
		return nil, bodyRoom{}, err
	}
	body, err = h.readBodyBytes(w, r, limit)
	return body, held, err
}

// readBodyBytes is readBody once the body has its room.
func (h *handler) readBodyBytes(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	allowed := h.bodyDeadline(w, r, limit)
	b, err := readAll(http.MaxBytesReader(w, r.Body, limit), min(max(r.ContentLength, 0), limit))
	var big *http.MaxBytesError
	switch {
	case errors.As(err, &big):
		return nil, &bodyTooLargeError{limit: limit}
	case err != nil && allowed > 0 && isBodyTimeout(err):
		w.Header().Set("Connection", "close")
		return nil, &bodyTimeoutError{allowed: allowed}
	case err != nil:
		return nil, invalid("body", "the request body could not be read: %v", err)
	}
	if allowed > 0 {
		// The deadline was the body's. Left set, it would end the read by
		// which the server watches for its client closing the connection,
		// which then cancels the request as if the client had gone.
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	return b, nil
}

// bodyPrealloc is the most readAll reserves for a body before it arrives:
// past it, the buffer grows as the bytes come, so a client that announces
// a large body and sends little of it holds little memory.
const bodyPrealloc = 64 << 10

// readAll is io.ReadAll into a buffer with room for size bytes, up to
// bodyPrealloc: a body of a known length within it is read without growing
// the buffer on the way.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	// One byte more than the body, so the end is seen without growing.
	b := make([]byte, 0, min(size, bodyPrealloc)+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
