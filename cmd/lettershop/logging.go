package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/prom"
)

// logLevel is --log-level: debug, info, warn or error.
type logLevel slog.Level

func (l *logLevel) String() string {
	if l == nil {
		return "info"
	}
	return strings.ToLower(slog.Level(*l).String())
}

func (l *logLevel) Set(s string) error {
	switch strings.ToLower(s) {
	case "debug":
		*l = logLevel(slog.LevelDebug)
	case "info":
		*l = logLevel(slog.LevelInfo)
	case "warn", "warning":
		*l = logLevel(slog.LevelWarn)
	case "error":
		*l = logLevel(slog.LevelError)
	default:
		return fmt.Errorf("want debug, info, warn or error; got %q", s)
	}
	return nil
}

// logFormat is --log-format: text or json.
type logFormat string

func (f *logFormat) String() string {
	if f == nil || *f == "" {
		return "text"
	}
	return string(*f)
}

func (f *logFormat) Set(s string) error {
	switch strings.ToLower(s) {
	case "text", "json":
		*f = logFormat(strings.ToLower(s))
		return nil
	}
	return fmt.Errorf("want text or json; got %q", s)
}

// metricsOff is --metrics-addr off: no metrics are served.
const metricsOff = "off"

// newLogger returns the server's logger, writing to w in the configured
// format from the configured level up.
func newLogger(cfg config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.Level(cfg.logLevel)}
	if cfg.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	th := slog.NewTextHandler(w, opts)
	if bw, ok := w.(*bufferedLog); ok {
		// A buffered log takes whole lines from any goroutine, so the
		// request lines may be written beside slog's (requestline.go).
		return slog.New(textLog{th, bw})
	}
	return slog.New(th)
}

// jsonLogAsked reports whether args or the environment ask for a JSON log,
// as parseConfig would read them (the last --log-format given wins over
// LETTERSHOP_LOG_FORMAT), for reporting a mistake in them, when parseConfig
// could not say.
func jsonLogAsked(args []string, getenv func(string) string) bool {
	v, given := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "log-format" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		v, given = value, true
	}
	if !given {
		v = getenv(envName("log-format"))
	}
	return strings.EqualFold(v, "json")
}

// greetJSON is greet for a JSON log: the same facts, as one JSON object on
// one line, so that a log pipeline reading the server's output never meets
// text.
func greetJSON(w io.Writer, cfg config, local, base, metricsURL string) {
	store := redactStore(cfg.store)
	if cfg.schema != "" {
		store += ", schema " + cfg.schema
	}
	attrs := []slog.Attr{
		slog.String("api_version", httpadapter.APIVersion),
		slog.String("listen", local),
		slog.String("base_url", base),
		slog.String("store", store),
	}
	if len(cfg.apiKeys) == 0 {
		attrs = append(attrs, slog.String("auth", "sandbox"), slog.String("sandbox_key_prefix", httpadapter.SandboxKeyPrefix))
	} else {
		attrs = append(attrs, slog.String("auth", "api-keys"), slog.Any("accounts", accountNames(cfg.apiKeys)))
		if cfg.sandbox {
			attrs = append(attrs, slog.String("sandbox_key_prefix", httpadapter.SandboxKeyPrefix))
		}
	}
	rate, failures := "off", "off"
	if cfg.rate.n > 0 {
		rate = cfg.rate.String()
	}
	if cfg.authFailures.n > 0 {
		failures = cfg.authFailures.String()
	}
	if metricsURL == "" {
		metricsURL = "off"
	}
	clock := "off"
	switch {
	case cfg.testClock && cfg.sharedClock:
		clock = "shared"
	case cfg.testClock:
		clock = "per-account"
	}
	attrs = append(attrs,
		slog.String("rate_limit", rate),
		slog.String("auth_failure_limit", failures),
		slog.String("health", base+httpadapter.HealthPath),
		slog.String("ready", base+httpadapter.ReadyPath),
		slog.String("metrics", metricsURL),
		slog.String("inbox", base+inboxPath+"/"),
		slog.String("test_clock", clock),
	)
	if cfg.seed != "" {
		attrs = append(attrs, slog.String("seed", cfg.seed))
	}
	slog.New(slog.NewJSONHandler(w, nil)).LogAttrs(context.Background(), slog.LevelInfo, "listening", attrs...)
}

// quietPaths are requests logged only at debug: health checks and scrapes
// come every few seconds and would drown the lines worth reading.
var quietPaths = map[string]bool{httpadapter.HealthPath: true, httpadapter.ReadyPath: true, "/metrics": true}

// requestLevel is the level a request's line is logged at.
func requestLevel(r *http.Request) slog.Level {
	if quietPaths[r.URL.Path] {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// metricsPath is where the API server serves /metrics: there unless the
// metrics have an address of their own.
func metricsPath(cfg config) string {
	if cfg.metricsAddr == "" {
		return "/metrics"
	}
	return ""
}

// metricsServer serves m at /metrics on a listener of its own, for
// --metrics-addr HOST:PORT, listening on listening. Another method on
// /metrics is a 405, another path a 404: problems, as the API answers them.
// On a loopback address it is guarded against DNS rebinding as the API is
// (loopbackHosts, baseURL being --base-url): a page pointed at 127.0.0.1
// would otherwise read the metrics from its user's browser.
func metricsServer(m *prom.Metrics, logger *slog.Logger, listening net.Addr, baseURL string) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		httpadapter.WriteMethodNotAllowed(w, r, "GET, HEAD")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpadapter.WriteError(w, r, &lettershop.Error{Code: lettershop.CodeNotFound,
			Message: fmt.Sprintf("no route for %s %s; metrics are served at /metrics", r.Method, r.URL.Path)})
	})
	return &http.Server{
		Handler:           logRequests(logger, withAnswerHeaders(loopbackHosts(listening, baseURL, mux))),
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// logFlushEvery is how long a log line may wait in the buffer.
const logFlushEvery = 100 * time.Millisecond

// bufferedLog batches log lines into fewer writes: one write(2) per line
// costs more than formatting the line (see BenchmarkRequestLog). Lines wait
// at most logFlushEvery; Close writes out the rest.
type bufferedLog struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// newLogWriter returns where the log goes: w itself, unless w is a file
// (stderr, a pipe), which is written through a buffer flushed every
// logFlushEvery. close flushes it and must be called before exit.
func newLogWriter(w io.Writer) (out io.Writer, close func()) {
	if _, ok := w.(*os.File); !ok {
		return w, func() {}
	}
	b := &bufferedLog{w: bufio.NewWriterSize(w, 32<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go b.flushLoop()
	return b, b.Close
}

func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

func (b *bufferedLog) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.w.Flush() // nowhere to report a failing stderr
}

func (b *bufferedLog) flushLoop() {
	defer close(b.done)
	t := time.NewTicker(logFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.flush()
		case <-b.stop:
			b.flush()
			return
		}
	}
}

// Close stops the flushing and writes out what is buffered.
func (b *bufferedLog) Close() {
	close(b.stop)
	<-b.done
}
