package main

import (
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The request line is written for every request, and slog's TextHandler
// took about a fifteenth of what the server spent on a GET of one letter
// formatting it. A logger newLogger made for the text format on the
// server's buffered log writes the request line itself, with the bytes
// slog would write (TestRequestLineMatchesSlog, FuzzRequestLine); any
// other logger logs it through slog.

// textLog is the handler of a text logger writing to a buffered log: slog's
// own, beside the writer a request line may be written to directly.
type textLog struct {
	*slog.TextHandler
	w *bufferedLog
}

// requestLine is a request's line, as logRequests logs it.
type requestLine struct {
	level                    slog.Level
	method, path, id, remote string
	status                   int
	bytes                    int64
	duration                 time.Duration
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// write writes l, stamped t, as slog's TextHandler writes the record of
// logRequests: time, level, msg, then the attributes.
func (h textLog) write(t time.Time, l *requestLine) {
	bp := lineBuffers.Get().(*[]byte)
	b := appendRequestLine((*bp)[:0], t, l)
	_, _ = h.w.Write(b) // a log has nowhere to report its own failure
	*bp = b
	lineBuffers.Put(bp)
}

func appendRequestLine(b []byte, t time.Time, l *requestLine) []byte {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, t)
	b = append(b, " level="...)
	b = appendText(b, l.level.String())
	b = append(b, " msg=request method="...)
	b = appendText(b, l.method)
	b = append(b, " path="...)
	b = appendText(b, l.path)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, " duration="...)
	b = appendText(b, l.duration.String())
	b = append(b, " request_id="...)
	b = appendText(b, l.id)
	b = append(b, " remote="...)
	b = appendText(b, l.remote)
	return append(b, '\n')
}

// appendRFC3339Millis writes t as slog does: RFC 3339 to the millisecond.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano trims trailing zeros: a tenth of a millisecond more
	// keeps four digits, the last of which goes.
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendText writes s as slog's text handler writes a string value:
// as it is, or quoted when it needs to be.
func appendText(b []byte, s string) []byte {
	if needsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// needsQuoting is slog's rule: an empty string, or one holding a space,
// '=', '"', a control character below the space (DEL passes), or a rune
// that is invalid, a space or not printable.
func needsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b <= ' ' || b == '=' || b == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
