package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lettershop/lettershop/prom"
)

func TestParseOpsFlags(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		env    func(string) string
		level  slog.Level
		format logFormat
		maddr  string
	}{
		{"defaults", nil, env(), slog.LevelInfo, "text", ""},
		{"flags", []string{"--log-level", "debug", "--log-format", "json", "--metrics-addr", "127.0.0.1:9090"}, env(),
			slog.LevelDebug, "json", "127.0.0.1:9090"},
		{"environment", nil, env("LETTERSHOP_LOG_LEVEL", "warn", "LETTERSHOP_LOG_FORMAT", "json", "LETTERSHOP_METRICS_ADDR", "off"),
			slog.LevelWarn, "json", "off"},
		{"flag over environment", []string{"--log-level", "error", "--log-format", "text"},
			env("LETTERSHOP_LOG_LEVEL", "debug", "LETTERSHOP_LOG_FORMAT", "json"), slog.LevelError, "text", ""},
		{"any case", []string{"--log-level", "INFO", "--log-format", "JSON"}, env(), slog.LevelInfo, "json", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(tt.args, tt.env, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if slog.Level(cfg.logLevel) != tt.level || cfg.logFormat != tt.format || cfg.metricsAddr != tt.maddr {
				t.Errorf("got level %v, format %q, metrics %q; want %v, %q, %q",
					slog.Level(cfg.logLevel), cfg.logFormat, cfg.metricsAddr, tt.level, tt.format, tt.maddr)
			}
		})
	}
	for _, tt := range []struct {
		args []string
		env  func(string) string
		want string
	}{
		{[]string{"--log-level", "verbose"}, env(), "debug, info, warn or error"},
		{nil, env("LETTERSHOP_LOG_LEVEL", "trace"), "LETTERSHOP_LOG_LEVEL"},
		{[]string{"--log-format", "logfmt"}, env(), "text or json"},
		{nil, env("LETTERSHOP_LOG_FORMAT", "xml"), "LETTERSHOP_LOG_FORMAT"},
		{[]string{"--metrics-addr", "9090"}, env(), "--metrics-addr: want HOST:PORT or off"},
	} {
		if _, err := parseConfig(tt.args, tt.env, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one mentioning %q", tt.args, err, tt.want)
		}
	}
}

// jsonLines parses every line of a JSON log.
func jsonLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, l)
		}
		out = append(out, m)
	}
	return out
}

func requestLines(lines []map[string]any) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["msg"] == "request" {
			out = append(out, l)
		}
	}
	return out
}

func TestJSONRequestLog(t *testing.T) {
	base, logs, stop := launch(t, "--log-format", "json", "--test-clock")
	const key = "sk_test_s3cretkey"
	call(t, "GET", base+"/v1/letters?pageSize=5&metadata[secret]=hunter2", key, "")
	call(t, "POST", base+"/v1/assets", key, `{"name":"private body text","type":"template"}`)
	call(t, "GET", base+"/healthz", "", "")
	call(t, "GET", base+"/readyz", "", "")
	call(t, "GET", base+"/metrics", "", "")
	stop()

	reqs := requestLines(jsonLines(t, logs.String()))
	if len(reqs) != 2 {
		t.Fatalf("%d request lines, want 2 (health checks and scrapes only at debug):\n%s", len(reqs), logs)
	}
	first := reqs[0]
	for _, k := range []string{"time", "level", "method", "path", "status", "bytes", "duration", "request_id", "remote"} {
		if _, ok := first[k]; !ok {
			t.Errorf("request line lacks %q: %v", k, first)
		}
	}
	if first["path"] != "/v1/letters" || first["level"] != "INFO" || first["status"] != float64(200) {
		t.Errorf("request line %v", first)
	}
	for _, secret := range []string{"s3cretkey", "hunter2", "pageSize", "private body text"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
}

func TestLogLevels(t *testing.T) {
	base, logs, stop := launch(t, "--log-level", "debug")
	call(t, "GET", base+"/healthz", "", "")
	call(t, "GET", base+"/v1/letters", "sk_test_x", "")
	stop()
	var health, api bool
	for _, l := range strings.Split(logs.String(), "\n") {
		health = health || strings.Contains(l, "level=DEBUG msg=request") && strings.Contains(l, "path=/healthz")
		api = api || strings.Contains(l, "level=INFO msg=request") && strings.Contains(l, "path=/v1/letters")
	}
	if !health || !api {
		t.Errorf("at debug: health line %v, API line %v:\n%s", health, api, logs)
	}

	base, logs, stop = launch(t, "--log-level", "warn")
	call(t, "GET", base+"/v1/letters", "sk_test_x", "")
	stop()
	if strings.Contains(logs.String(), "msg=request") || strings.Contains(logs.String(), "shutting down") {
		t.Errorf("at warn the log holds info lines:\n%s", logs)
	}
}

// parseMetrics scrapes url and parses the text format.
func parseMetrics(t *testing.T, url string) map[string]bool {
	t.Helper()
	resp, body := call(t, "GET", url, "", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	names := map[string]bool{}
	for n := range fams {
		names[n] = true
	}
	return names
}

func TestMetricsWithTheAPI(t *testing.T) {
	base, _ := startServer(t)
	call(t, "GET", base+"/v1/letters", "sk_test_x", "")
	names := parseMetrics(t, base+"/metrics")
	for _, n := range []string{"lettershop_http_requests_total", "lettershop_letters_created_total", "go_goroutines"} {
		if !names[n] {
			t.Errorf("no %s", n)
		}
	}
}

func TestMetricsOff(t *testing.T) {
	base, _ := startServer(t, "--metrics-addr", "off")
	if resp, _ := call(t, "GET", base+"/metrics", "", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics with --metrics-addr off: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "GET", base+"/healthz", "", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %d", resp.StatusCode)
	}
}

// launchWithMetricsAddr starts a server with --metrics-addr on an address
// of its own, until the test ends, and returns the API's base URL and the
// metrics' URL, as its greeting names them.
func launchWithMetricsAddr(t *testing.T) (base, metricsURL string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, env(), outW, io.Discard)
		outW.Close()
	}()
	var greeting strings.Builder
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		greeting.WriteString(sc.Text() + "\n")
		if u, ok := strings.CutPrefix(sc.Text(), "Metrics: "); ok {
			metricsURL = u
			break
		}
	}
	go io.Copy(io.Discard, out)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	base = regexp.MustCompile(`http://\S+`).FindString(greeting.String())
	if metricsURL == "" || base == "" || strings.HasPrefix(metricsURL, base+"/") {
		t.Fatalf("greeting names no API address or no metrics address of their own:\n%s", greeting.String())
	}
	return base, metricsURL
}

func TestMetricsOnTheirOwnAddress(t *testing.T) {
	base, metricsURL := launchWithMetricsAddr(t)
	call(t, "GET", base+"/v1/letters", "sk_test_x", "")
	if names := parseMetrics(t, metricsURL); !names["lettershop_http_requests_total"] {
		t.Error("no lettershop_http_requests_total on the metrics address")
	}
	if resp, _ := call(t, "GET", base+"/metrics", "", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the API address too: %d", resp.StatusCode)
	}
}

// BenchmarkRequestLog measures what the per-request log line costs, beside
// a baseline without it, all in one run: go test -run '^$' -bench RequestLog ./cmd/lettershop
func BenchmarkRequestLog(b *testing.B) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", "req_0123456789")
		_, _ = w.Write([]byte(`{"items":[]}`))
	})
	// What the server writes to: the file through its buffer.
	buffered, flush := newLogWriter(devnull)
	defer flush()
	logged := func(level slog.Level, format logFormat, w io.Writer) http.Handler {
		return logRequests(newLogger(config{logLevel: logLevel(level), logFormat: format}, w), ok)
	}
	cases := []struct {
		name string
		h    http.Handler
	}{
		{"baseline", ok},
		{"text-unbuffered", logged(slog.LevelInfo, "text", unbuffered{devnull})},
		{"json-unbuffered", logged(slog.LevelInfo, "json", unbuffered{devnull})},
		{"text", logged(slog.LevelInfo, "text", buffered)},
		// The same line through slog's TextHandler, as before requestline.go.
		{"text-slog", logRequests(slog.New(slog.NewTextHandler(buffered, nil)), ok)},
		{"json", logged(slog.LevelInfo, "json", buffered)},
		{"level-warn", logged(slog.LevelWarn, "text", buffered)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/v1/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz?pageSize=10", nil)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				w.Body.Reset()
				c.h.ServeHTTP(w, r)
			}
		})
	}
}

// unbuffered hides that w is a file, so every line is its own write.
type unbuffered struct{ w io.Writer }

func (u unbuffered) Write(p []byte) (int, error) { return u.w.Write(p) }

// A file gets the log through a buffer, all of it by the time it closes;
// any other writer gets each line as it is written.
func TestLogWriter(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, closeLog := newLogWriter(f)
	if _, ok := w.(*bufferedLog); !ok {
		t.Fatalf("a file is written through %T, want the buffer", w)
	}
	logger := newLogger(config{logFormat: "json"}, w)
	for i := range 1000 {
		logger.Info("line", "n", i)
	}
	closeLog()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if lines := jsonLines(t, string(b)); len(lines) != 1000 || lines[999]["n"] != float64(999) {
		t.Errorf("%d lines after close, want 1000 in order", len(lines))
	}

	var mem lockedBuffer
	w, closeLog = newLogWriter(&mem)
	defer closeLog()
	newLogger(config{}, w).Info("now")
	if !strings.Contains(mem.String(), "msg=now") {
		t.Errorf("an in-memory writer got %q, want the line at once", mem.String())
	}
}

// The greeting says where health and metrics live.
func TestGreetOps(t *testing.T) {
	var b strings.Builder
	greet(&b, config{store: "memory"}, "http://127.0.0.1:8080", "http://127.0.0.1:8080")
	for _, want := range []string{"Health: http://127.0.0.1:8080/healthz and http://127.0.0.1:8080/readyz", "Metrics: http://127.0.0.1:8080/metrics"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("greeting lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	greet(&b, config{store: "memory", metricsAddr: metricsOff}, "http://h", "http://h")
	if strings.Contains(b.String(), "Metrics:") {
		t.Errorf("greeting with metrics off names them:\n%s", b.String())
	}
}

// The metrics address answers a path it does not serve with a 404, and
// another method on /metrics with a 405, as problems like every other
// answer of the server: it answered them in net/http's plain text.
func TestMetricsAddressAnswersProblems(t *testing.T) {
	h := metricsServer(prom.New(), slog.New(slog.DiscardHandler), nil, "").Handler
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/metrics", http.StatusOK, ""},
		{"HEAD", "/metrics", http.StatusOK, ""},
		{"POST", "/metrics", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/metrics", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"GET", "/", http.StatusNotFound, ""},
		{"GET", "/metricsx", http.StatusNotFound, ""},
		{"GET", "/metrics/", http.StatusNotFound, ""},
		{"POST", "/v1/letters", http.StatusNotFound, ""},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		what := c.method + " " + c.path
		if rec.Code != c.status {
			t.Errorf("%s: %d, want %d", what, rec.Code, c.status)
			continue
		}
		if got := rec.Header().Get("Allow"); got != c.allow {
			t.Errorf("%s: Allow %q, want %q", what, got, c.allow)
		}
		if c.status == http.StatusOK {
			continue
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q, want application/problem+json", what, ct)
		}
		if rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", what)
		}
		var p struct {
			Type   string `json:"type"`
			Status int    `json:"status"`
			Detail string `json:"detail"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Status != c.status || p.Type == "" || !strings.Contains(p.Detail, c.path) {
			t.Errorf("%s: not a problem naming the path (%v): %s", what, err, rec.Body.Bytes())
		}
	}
}
