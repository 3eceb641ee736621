// Command lettershop serves the letter mailing API over HTTP: a local
// stand-in for the real service, for development and tests. Records are kept
// in memory, or in PostgreSQL, where several servers can share them.
//
//	go run ./cmd/lettershop
//	LETTERSHOP_TOKEN_KEY=$(openssl rand -hex 32) go run ./cmd/lettershop --store postgres://localhost/mail
//
// Without --api-key it accepts any key that begins sk_test_. See
// docs/http.md for the flags, the environment variables and a walkthrough,
// and docs/postgres.md for running on PostgreSQL.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/inbox"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/prom"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/testclock"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runMain runs the server and says how it ended: the exit status (2 for a
// mistake in the flags or the environment, 1 for another failure), and the
// error on stderr, as a JSON line when the log is JSON.
func runMain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	err := run(ctx, args, getenv, stdout, stderr)
	code := 1
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		code = 2
	}
	if jsonLogAsked(args, getenv) {
		slog.New(slog.NewJSONHandler(stderr, nil)).Error("lettershop stopped", "err", err.Error(), "exit_status", code)
	} else {
		fmt.Fprintln(stderr, "lettershop:", err)
	}
	return code
}

// usageError is a mistake in the flags or environment.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// maxHeaderBytes bounds the request line and headers of a request; over it
// the answer is a 431 problem.
const maxHeaderBytes = 64 << 10

// shutdownGrace is how long requests in flight get to finish on shutdown.
const shutdownGrace = 10 * time.Second

// run serves until ctx is cancelled, then shuts down gracefully.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	// The flags' own messages (and the usage after a mistake) are text: in
	// a JSON log they are left to the one JSON line that reports the error.
	// Help, which is asked for, is given as text either way.
	var flagOut bytes.Buffer
	cfg, err := parseConfig(args, getenv, &flagOut)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = stderr.Write(flagOut.Bytes())
		return err
	}
	if err != nil {
		if !jsonLogAsked(args, getenv) {
			_, _ = stderr.Write(flagOut.Bytes())
		}
		return usageError{err}
	}
	store, closeStore, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	// Deferred first, so it runs last: after the Service has stopped.
	defer closeStore()
	bare, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	logOut, flushLog := newLogWriter(stderr)
	defer flushLog()
	logger := newLogger(cfg, logOut)
	ln := newLimitListener(bare, cfg.maxConns, cfg.maxConnsPerClient, logger)
	defer ln.Close()
	var metrics *prom.Metrics
	var metricsLn net.Listener
	if cfg.metricsAddr != metricsOff {
		metrics = prom.New()
	}
	if metrics != nil && cfg.metricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", cfg.metricsAddr); err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		defer metricsLn.Close()
	}
	local := "http://" + reachable(ln.Addr().String())
	base := cfg.baseURL
	if base == "" {
		base = local
	}

	opts := []lettershop.Option{lettershop.WithLogger(logger), lettershop.WithBaseURL(base),
		lettershop.WithEgress(cfg.egress), lettershop.WithDeliverer(delivery.OpenWith(
			delivery.WithHosts(cfg.webhookHosts...), delivery.WithTimeout(cfg.webhookTimeout)))}
	if cfg.tokenKey != "" {
		opts = append(opts, lettershop.WithTokenKey([]byte(cfg.tokenKey)))
	}
	// One throttle for the API and the inbox, so that failures at either
	// count together; on the wall clock, whatever the test clock does.
	throttle := httpadapter.NewAuthThrottle(cfg.authFailures.n, cfg.authFailures.per, clock.New())
	hopts := []httpadapter.Option{httpadapter.WithLogger(logger), httpadapter.WithRateLimit(cfg.rate.n, cfg.rate.per),
		httpadapter.WithBodyReadRate(cfg.bodyRate, httpadapter.DefaultBodyReadGrace), httpadapter.WithAuthThrottle(throttle),
		httpadapter.WithRequestTimeout(cfg.requestTimeout)}
	iopts := []inbox.Option{inbox.WithAuthThrottle(throttle)}
	if cfg.tokenKey != "" {
		// The servers of one database share the key: a form one made is
		// posted to whichever the balancer picks.
		iopts = append(iopts, inbox.WithFormKey([]byte(cfg.tokenKey)))
	}
	if cfg.baseURL != "" {
		iopts = append(iopts, inbox.WithPublicURL(cfg.baseURL))
	}
	if cfg.testClock {
		// A test clock never sleeps to move, as clock.Mock does.
		start := time.Now()
		if !cfg.testClockStart.IsZero() {
			start = cfg.testClockStart
		}
		mock := testclock.New(seedStart(cfg.fixture, start))
		opts = append(opts, lettershop.WithClock(mock))
		// Clients pace themselves by the wall clock; on the stopped test
		// clock a used-up bucket would never refill.
		hopts = append(hopts, httpadapter.WithTestClock(mock), httpadapter.WithRateLimitClock(clock.New()))
		iopts = append(iopts, inbox.WithTestClock(mock))
		if cfg.sharedClock {
			hopts = append(hopts, httpadapter.WithSharedTestClock())
			iopts = append(iopts, inbox.WithSharedTestClock())
		}
	}
	if metrics != nil {
		opts = append(opts, lettershop.WithHooks(metrics.Hooks()))
		hopts = append(hopts, httpadapter.WithObserver(metrics))
		if path := metricsPath(cfg); path != "" {
			hopts = append(hopts, httpadapter.WithMetricsHandler(path, metrics.Handler()))
		}
	}
	if len(cfg.apiKeys) > 0 {
		auth, err := httpadapter.NewKeyAuthenticator(cfg.apiKeys...)
		if err != nil {
			return usageError{fmt.Errorf("--api-key: %w", err)}
		}
		var a httpadapter.Authenticator = auth
		if cfg.sandbox {
			a = httpadapter.SandboxAuthenticator{Keys: auth}
		}
		hopts = append(hopts, httpadapter.WithAuthenticator(a))
		iopts = append(iopts, inbox.WithAuthenticator(a))
	}
	svc := lettershop.New(store, opts...)
	defer svc.Close()
	var seededAccounts []seeded
	if len(cfg.fixture) > 0 {
		if seededAccounts, err = seed(ctx, svc, store, cfg.fixture, cfg.sharedClock); err != nil {
			return err
		}
	}

	srv := &http.Server{
		Handler: logRequests(logger, withAnswerHeaders(refuseHTTP2(loopbackHosts(ln.Addr(), cfg.baseURL, closeAfterTransferCoding(withInbox(
			httpadapter.New(svc, hopts...), inbox.New(svc, append(iopts, inbox.WithLogger(logger))...))))))),
		ConnState: ln.connState,
		// OPTIONS * goes through the handler (withInbox answers it), with
		// the headers of every answer and the Host guard.
		DisableGeneralOptionsHandler: true,
		ReadHeaderTimeout:            10 * time.Second,
		ReadTimeout:                  60 * time.Second,
		WriteTimeout:                 writeTimeout,
		IdleTimeout:                  2 * time.Minute,
		MaxHeaderBytes:               maxHeaderBytes,
		ErrorLog:                     slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var msrv *http.Server
	if metricsLn != nil {
		msrv = metricsServer(metrics, logger, metricsLn.Addr(), cfg.baseURL)
		go func() {
			if err := msrv.Serve(metricsLn); !errors.Is(err, http.ErrServerClosed) {
				logger.Error("metrics server", "err", err)
			}
		}()
	}
	metricsURL := ""
	switch {
	case msrv != nil:
		metricsURL = "http://" + reachable(metricsLn.Addr().String()) + "/metrics"
	case metrics != nil:
		metricsURL = base + "/metrics"
	}
	if cfg.logFormat == "json" {
		greetJSON(stdout, cfg, local, base, metricsURL)
		if cfg.seed != "" {
			logSeed(logger, cfg.seed, seededAccounts)
		}
	} else {
		greet(stdout, cfg, local, base)
		if msrv != nil {
			fmt.Fprintf(stdout, "Metrics: %s\n", metricsURL)
		}
		if cfg.seed != "" {
			greetSeed(stdout, cfg.seed, seededAccounts)
		}
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "grace", shutdownGrace)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if msrv != nil {
		_ = msrv.Shutdown(sctx) // scrapes are short; the API's requests matter
	}
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openStore opens the store cfg names, and returns what closes it. The
// setup was checked by parseConfig; what fails here is the database.
func openStore(ctx context.Context, cfg config) (storage.Storage, func(), error) {
	switch storeKind(cfg.store) {
	case storeMemory:
		return memstore.New(), func() {}, nil
	case storePostgres:
		var opts []pgstore.Option
		if cfg.schema != "" {
			opts = append(opts, pgstore.WithSchema(cfg.schema))
		}
		st, err := pgstore.Open(ctx, cfg.store, opts...)
		if err != nil {
			return nil, nil, fmt.Errorf("--store %s: %w", redactStore(cfg.store), err)
		}
		return st, st.Close, nil
	}
	// parseConfig lets no other store through.
	return nil, nil, fmt.Errorf("--store: unknown store %q", redactStore(cfg.store))
}

// reachable turns a listening address into one a client can dial: an
// unspecified host (":8080", "0.0.0.0:8080") becomes localhost.
func reachable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// greet tells a newcomer how to call the server just started: local is
// where it listens, base where clients reach it (--base-url).
func greet(w io.Writer, cfg config, local, base string) {
	store := redactStore(cfg.store)
	if cfg.schema != "" {
		store += ", schema " + cfg.schema
	}
	fmt.Fprintf(w, "lettershop: API %s listening on %s (store: %s)\n", httpadapter.APIVersion, local, store)
	if base != local {
		fmt.Fprintf(w, "Clients reach it at %s.\n", base)
	}
	key := "sk_test_123"
	if len(cfg.apiKeys) == 0 || cfg.sandbox {
		fmt.Fprintf(w, "Sandbox: any API key that begins %s works; each key is its own account.\n", httpadapter.SandboxKeyPrefix)
	}
	if len(cfg.apiKeys) > 0 {
		if !cfg.sandbox {
			key = "YOUR_SECRET"
		}
		fmt.Fprintf(w, "API keys of accounts: %s\n", strings.Join(accountNames(cfg.apiKeys), ", "))
	}
	fmt.Fprintf(w, "Try:\n  curl -s %s/v1/assets -H 'X-Api-Key: %s'\n", base, key)
	if cfg.rate.n > 0 {
		fmt.Fprintf(w, "Rate limit: %s per API key.\n", cfg.rate.String())
	} else {
		fmt.Fprintln(w, "Rate limit: off.")
	}
	fmt.Fprintf(w, "Health: %s%s and %s%s\n", base, httpadapter.HealthPath, base, httpadapter.ReadyPath)
	if cfg.metricsAddr == "" {
		fmt.Fprintf(w, "Metrics: %s/metrics\n", base)
	}
	fmt.Fprintf(w, "Inbox: %s%s/\n", base, inboxPath)
	switch {
	case cfg.testClock && cfg.sharedClock:
		fmt.Fprintf(w, "Test clock: stopped, one for every account. Move it with\n  curl -s -X POST %s/_test/clock/advance -H 'X-Api-Key: %s' -d '{\"duration\":\"72h\"}'\n", base, key)
	case cfg.testClock:
		fmt.Fprintf(w, "Test clock: stopped, one per account. Move the key's account's with\n  curl -s -X POST %s/_test/clock/advance -H 'X-Api-Key: %s' -d '{\"duration\":\"72h\"}'\n", base, key)
	}
}

// accountNames are the accounts keys name, each once, in the order first
// given: several keys of one account name it once.
func accountNames(keys []httpadapter.APIKey) []string {
	var names []string
	for _, k := range keys {
		if !slices.Contains(names, k.Account) {
			names = append(names, k.Account)
		}
	}
	return names
}

// answerHeaders sets the headers every answer of the server carries,
// whoever writes it: the API, the inbox, the server itself (the inbox's
// redirect, the metrics address, the answers the listener writes raw): no
// browser is to read one as another type than it says.
func answerHeaders(h http.Header) {
	h["X-Content-Type-Options"] = noSniff
}

// noSniff is the value of X-Content-Type-Options, shared by every answer:
// Set replaces it, and a slice of one grows into a copy of its own.
var noSniff = []string{"nosniff"}

// withAnswerHeaders serves next with answerHeaders set on every answer.
func withAnswerHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answerHeaders(w.Header())
		next.ServeHTTP(w, r)
	})
}

// inboxPath is where the server mounts the inbox, beside the API.
const inboxPath = "/inbox"

// withInbox serves the inbox under inboxPath, OPTIONS * itself, and
// everything else from api.
// It is no ServeMux: a mux would redirect paths with empty or dot segments,
// which the API answers with a 404 problem.
func withInbox(api, ui http.Handler) http.Handler {
	strip := http.StripPrefix(inboxPath, ui)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodOptions && r.RequestURI == "*":
			// The server as a whole, as net/http answers it: nothing to say.
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusOK)
		case r.URL.Path == inboxPath:
			http.Redirect(w, r, inboxPath+"/", http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, inboxPath+"/"):
			strip.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// logRequests writes one structured line per request: at info, or at debug
// for health checks and scrapes. The query is left out (signed download
// links carry their signature there), and so are headers (the API key) and
// bodies. Nothing is measured for a line the level leaves out.
func logRequests(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		level := requestLevel(r)
		if !logger.Enabled(r.Context(), level) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		if h, ok := logger.Handler().(textLog); ok {
			end := time.Now()
			h.write(end, &requestLine{
				level: level, method: r.Method, path: r.URL.Path, status: sw.status, bytes: sw.bytes,
				duration: end.Sub(start), id: w.Header().Get("X-Request-Id"), remote: r.RemoteAddr,
			})
			return
		}
		logger.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", sw.status),
			slog.Int64("bytes", sw.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("request_id", w.Header().Get("X-Request-Id")),
			slog.String("remote", r.RemoteAddr),
		)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wrote = true
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
