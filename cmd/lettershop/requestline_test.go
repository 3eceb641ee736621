package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// slogLine is the line slog's TextHandler writes for l at t.
func slogLine(t time.Time, l *requestLine) string {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	r := slog.NewRecord(t, l.level, "request", 0)
	r.AddAttrs(
		slog.String("method", l.method),
		slog.String("path", l.path),
		slog.Int("status", l.status),
		slog.Int64("bytes", l.bytes),
		slog.Duration("duration", l.duration),
		slog.String("request_id", l.id),
		slog.String("remote", l.remote),
	)
	_ = h.Handle(context.Background(), r)
	return buf.String()
}

func TestRequestLineMatchesSlog(t *testing.T) {
	at := time.Date(2026, 11, 24, 8, 45, 2, 819_000_400, time.UTC)
	for _, l := range []requestLine{
		{level: slog.LevelInfo, method: "GET", path: "/v1/letters", status: 200, bytes: 3911, duration: 114649 * time.Nanosecond, id: "req_ulg4xa7styabg4mxfd6ubpucwq", remote: "127.0.0.1:51244"},
		{level: slog.LevelDebug, method: "GET", path: "/healthz", status: 503, duration: time.Second, remote: "[::1]:80"},
		{level: slog.LevelInfo, method: "POST", path: "/a b/c=d/\"q\"/\\/é/\u00a0/\x7f/\xff", status: 400, bytes: -1, duration: 0, id: "", remote: ""},
		{level: slog.LevelWarn + 1, method: "", path: "/\u2028", duration: -3 * time.Millisecond},
	} {
		for _, tm := range []time.Time{at, at.Add(-400), at.In(time.FixedZone("x", -5*3600)), time.Now()} {
			got := string(appendRequestLine(nil, tm, &l))
			if want := slogLine(tm, &l); got != want {
				t.Errorf("line:\n got %s\nwant %s", got, want)
			}
		}
	}
}

func FuzzRequestLine(f *testing.F) {
	f.Add("GET", "/v1/letters/ltr_1", "req_1", "127.0.0.1:1", 200, int64(12), int64(1234567), int64(1_700_000_000_123_456_789))
	f.Add(" ", "=\"\\\t\u00a0\u200b\xff", "", "é", -1, int64(-1), int64(-1), int64(0))
	f.Fuzz(func(t *testing.T, method, path, id, remote string, status int, n, d, unix int64) {
		l := requestLine{level: slog.LevelInfo, method: method, path: path, id: id, remote: remote, status: status, bytes: n, duration: time.Duration(d)}
		tm := time.Unix(0, unix)
		if tm.Year() < 0 || tm.Year() > 9999 {
			return
		}
		if got, want := string(appendRequestLine(nil, tm, &l)), slogLine(tm, &l); got != want {
			t.Fatalf("line:\n got %s\nwant %s", got, want)
		}
	})
}

// TestRequestLogFastPath: a text logger on the buffered log writes the
// request line itself, the line slog writes on any other writer, but for
// the time and the duration.
func TestRequestLogFastPath(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, closeLog := newLogWriter(f)
	var plain bytes.Buffer
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", "req_1")
		_, _ = w.Write([]byte("hello"))
	})
	fast := newLogger(config{}, w)
	if _, isFast := fast.Handler().(textLog); !isFast {
		t.Fatalf("a text logger on the buffered log has handler %T", fast.Handler())
	}
	for _, logger := range []*slog.Logger{fast, newLogger(config{}, &plain)} {
		r := httptest.NewRequest("GET", "/v1/letters/x%20y?pageSize=10", nil)
		logRequests(logger, ok).ServeHTTP(httptest.NewRecorder(), r)
	}
	closeLog()
	got, _ := os.ReadFile(f.Name())
	mask := func(s string) string {
		var out []string
		for _, field := range strings.Fields(s) {
			if strings.HasPrefix(field, "time=") || strings.HasPrefix(field, "duration=") {
				field, _, _ = strings.Cut(field, "=")
			}
			out = append(out, field)
		}
		return strings.Join(out, " ")
	}
	if mask(string(got)) != mask(plain.String()) || !strings.HasSuffix(string(got), "\n") {
		t.Errorf("buffered log:\n%s\nslog:\n%s", got, plain.String())
	}
}
