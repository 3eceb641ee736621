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

	"github.com/lettershop/lettershop"
)

// The stored form of a response is a status line, header lines and the
// body, much like HTTP/1.1 on the wire, so a stored outcome can be read by
// eye in the store:
//
//	lettershop-response/1 201
//	Content-Type: application/json
//	Location: /letters/ltr_...
//
//	{"id":"ltr_...",...}
const storedMagic = "lettershop-response/1 "

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

func parseResponse(data []byte) (response, error) {
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		return response{}, errors.New("stored response: no end of headers")
	}
	lines := strings.Split(string(head), "\n")
	code, ok := strings.CutPrefix(lines[0], storedMagic)
	if !ok {
		return response{}, fmt.Errorf("stored response: unknown format %q", lines[0])
	}
	status, err := strconv.Atoi(code)
	if err != nil || status < 100 || status > 599 {
		return response{}, fmt.Errorf("stored response: bad status %q", code)
	}
	resp := response{status: status, body: body}
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ": ")
		switch {
		case ok && name == "Content-Type":
			resp.contentType = value
		case ok && name == "Location":
			resp.location = value
		default:
			return response{}, fmt.Errorf("stored response: unknown header line %q", l)
		}
	}
	return resp, nil
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
}

// mutate runs m once per idempotency key. The response is built by Encode,
// whether or not a key was given, so a replay is byte for byte what the
// first request answered. Client errors are stored and replayed like
// successes; internal errors are not, so a retry can succeed.
func (h *handler) mutate(w http.ResponseWriter, r *http.Request, c *call, m mutation) {
	body, err := h.readBody(w, r, m.limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	key := r.Header.Get(headerIdempotencyKey)
	// Without a key nothing is stored: the response is kept as it is
	// rather than written out in the stored form and read back.
	var unstored *response
	encode := func(v any, err error) ([]byte, bool) {
		var resp response
		switch {
		case err != nil && isInternal(err):
			return nil, false
		case err != nil:
			resp = problemResponse(ctx, err)
		default:
			resp = m.ok(v)
		}
		if key == "" {
			unstored = &resp
			return nil, true
		}
		return resp.marshal(), true
	}
	var fingerprint string
	if key != "" {
		fingerprint = lettershop.Fingerprint([]byte(r.Method), []byte(c.path), body)
	}
	res, err := h.svc.Idempotent(ctx, lettershop.IdempotentRequest{
		Scope:       "apikey:" + c.keyHash,
		Account:     c.account,
		Key:         key,
		Fingerprint: fingerprint,
		Encode:      encode,
	}, func(ctx context.Context) (any, error) { return m.op(ctx, body) })
	h.cfg.metrics.idempotency(res.Replayed, err)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var resp response
	if unstored != nil && !res.Replayed {
		resp = *unstored
	} else if resp, err = parseResponse(res.Data); err != nil {
		h.fail(w, r, &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error", Err: err})
		return
	}
	if res.Replayed {
		w.Header().Set(headerReplayed, "true")
	}
	resp.write(w)
}

// readJSON reads a JSON body of at most MaxJSONBody bytes into dst, as the
// test routes take them (not idempotent, so no fingerprint is kept).
func (h *handler) readJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := h.readBody(w, r, MaxJSONBody)
	if err != nil {
		return err
	}
	return decodeJSON(body, dst)
}

// readBody reads the whole body, up to limit bytes, within the time
// WithBodyReadRate allows.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
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
	return b, nil
}

// readAll is io.ReadAll into a buffer with room for size bytes: a body of
// a known length is read without growing the buffer on the way.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	// One byte more than the body, so the end is seen without growing.
	b := make([]byte, 0, size+1)
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
