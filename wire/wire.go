// Package wire writes lettershop's API JSON of letters: a letter as the API
// shows it, a page of them as a list answers, and a webhook event, each
// written field by field; and it keeps the encodings it made of a Service's
// letters (Letters), so a letter or a page read again unchanged costs a
// copy, not an encoding. The HTTP adapter answers with it, and package
// delivery posts webhook events with it. ReadLetter reads a letter the API
// showed back into the Go form. Canonical writes a request body's JSON in
// one form, by which an idempotent request is known however its client
// wrote it.
//
// A letter is shown with every field of the specification's Letter, Party
// and Event tables, null where there is no value, so a client reading a
// field never meets a missing key. Event's trackingEventDetails is always
// an object with an additionalData object. A list without CASS details
// leaves out addressAnalysis, addressCorrections and addressMetadata
// altogether (Letter.CassDetailsLeftOut). The stored form (the root's
// records.go) is not this one: it leaves out what is empty.
//
// wire imports the root: the domain does not encode for the wire, and a
// lettershop.Letter given to encoding/json is written in its Go form, not
// the API's.
package wire

import (
	"io"

	"github.com/lettershop/lettershop"
)

// letterSize is about what a letter of a few events takes encoded.
const letterSize = 3 << 10

// AppendLetter appends l to dst as the API shows it, and returns the
// extended slice.
func AppendLetter(dst []byte, l *lettershop.Letter) ([]byte, error) {
	return appendLetter(dst, l, l.CassDetailsLeftOut(), nil)
}

// Letter returns l as the API shows it.
func Letter(l *lettershop.Letter) ([]byte, error) {
	return appendLetter(make([]byte, 0, letterSize), l, l.CassDetailsLeftOut(), nil)
}

// AppendLetterPage appends p to dst as a list of letters answers it (as
// encoding/json writes the Page, without a final newline), and returns the
// extended slice.
func AppendLetterPage(dst []byte, p lettershop.Page[*lettershop.Letter]) ([]byte, error) {
	var err error
	b := append(dst, `{"items":`...)
	if p.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, l := range p.Items {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = AppendLetter(b, l); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	b = appendNextToken(b, p.NextToken)
	return append(b, '}'), nil
}

// appendNextToken appends a page's nextToken member, none for "".
func appendNextToken(b []byte, token string) []byte {
	if token == "" {
		return b
	}
	b = append(b, `,"nextToken":`...)
	return appendStr(b, token)
}

// AppendWebhookEvent appends e to dst as it is posted to a webhook: the
// event, and its letter as the API shows it.
func AppendWebhookEvent(dst []byte, e *lettershop.WebhookEvent) ([]byte, error) {
	var err error
	b := append(dst, `{"id":`...)
	b = appendStr(b, e.ID)
	b = append(b, `,"type":`...)
	b = appendStr(b, string(e.Type))
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, e.CreatedAt, &err)
	b = append(b, `,"data":{"object":`...)
	if e.Data.Object == nil {
		b = append(b, "null"...)
	} else {
		var lerr error
		b, lerr = AppendLetter(b, e.Data.Object)
		fail(&err, lerr)
	}
	b = append(b, "}}"...)
	return b, err
}

// Text is a JSON value as a json.Encoder writes it, followed by a newline.
// Letters may share its bytes with other callers, so they are read through
// WriteTo, which hands them to a writer (an io.Writer never changes what
// it is given), and never changed.
type Text struct{ b []byte }

// Len returns the length of the text, its newline included.
func (t Text) Len() int { return len(t.b) }

// WriteTo writes the text to w.
func (t Text) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(t.b)
	return int64(n), err
}

// String returns the text.
func (t Text) String() string { return string(t.b) }
