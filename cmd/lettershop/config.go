package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/snapshot"
)

// config is the server's configuration, from flags and the environment.
type config struct {
	addr      string
	apiKeys   []httpadapter.APIKey
	sandbox   bool
	rate      rateLimit
	testClock bool
	// sharedClock gives every account the test clock itself, rather than a
	// clock of its own.
	sharedClock bool
	// testClockStart is where the test clock starts; zero is the time of
	// the start.
	testClockStart time.Time
	baseURL        string
	// store is "memory" or a postgres:// URL; see storeKind.
	store string
	// schema is the PostgreSQL schema of the tables, or "" for the DSN's
	// search_path.
	schema string
	// tokenKey signs pagination tokens, download links and the inbox's
	// forms; "" is a random key per process.
	tokenKey string
	// maxConns and maxConnsPerClient cap the connections open at once, in
	// all and per client address; 0 is no cap.
	maxConns, maxConnsPerClient int
	// bodyRate is the pace, in bytes per second, a request body must keep
	// to; 0 sets no deadline of its own.
	bodyRate int
	// logLevel and logFormat shape the log (logging.go).
	logLevel  logLevel
	logFormat logFormat
	// metricsAddr is where /metrics is served: "" with the API, metricsOff
	// nowhere, else a host:port of its own.
	metricsAddr string
	// webhookHosts limits the hosts webhooks may post to; empty is any.
	webhookHosts []string
	// webhookTimeout is how long a webhook attempt waits for its answer.
	webhookTimeout time.Duration
	// requestTimeout is how long a request's work may take once its body
	// is in (httpadapter.WithRequestTimeout); 0 is no bound.
	requestTimeout time.Duration
	// egress is the policy of the requests the server makes itself.
	egress egress.Policy
	// authFailures is how many failed authentications a client address
	// may make per duration, at the API and the inbox together; n == 0 is
	// no throttle.
	authFailures rateLimit
	// seed is the fixture file the server starts from, "" for none, and
	// fixture its snapshots, read and checked by parseConfig (seed.go).
	seed    string
	fixture []*snapshot.Snapshot
}

// The default caps on connections. A connection costs the server a few
// KiB while idle and up to the header limit while a request comes in; a
// test suite on one machine rarely holds more than a few dozen at once.
const (
	defaultMaxConns          = 1024
	defaultMaxConnsPerClient = 256
)

// minTokenKeyLen is the shortest --token-key taken: 32 characters, as many
// as 16 random bytes written in hex, the least an HMAC key that guards
// unauthenticated download links should hold.
const minTokenKeyLen = 32

// storeMemory and storePostgres are the kinds of store --store can name.
const (
	storeMemory   = "memory"
	storePostgres = "postgres"
)

// storeKind returns which store s names, or "" for none this build knows.
func storeKind(s string) string {
	switch {
	case s == "memory":
		return storeMemory
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		return storePostgres
	}
	return ""
}

// redactStore returns s fit to print: a postgres:// URL's secrets (the
// user part's password, password= and sslpassword= in the query) are
// replaced by xxxxx, and anything else that may hold a password is not
// shown.
func redactStore(s string) string {
	if storeKind(s) == storePostgres {
		return pgstore.Redact(s)
	}
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	if strings.Contains(s, "@") || strings.Contains(strings.ToLower(s), "password") {
		return "(not shown: it may hold a password)"
	}
	return s
}

// envPrefix begins the environment variable of each flag: --base-url is
// LETTERSHOP_BASE_URL.
// writeTimeout is the server's: an answer not written within it after a
// request (its body's deadline for one with a body) is cut off.
const writeTimeout = 60 * time.Second

const envPrefix = "LETTERSHOP_"

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

const usageHead = `lettershop serves the letter mailing API on a local address.

Usage:
  lettershop [--addr 127.0.0.1:8080] [--api-key ACCOUNT:SECRET[=SCOPE,SCOPE]]... [--sandbox]
             [--rate-limit N/DURATION | 0] [--test-clock [--shared-test-clock] [--test-clock-start TIME]] [--base-url URL]
             [--store memory | --store postgres://... --token-key KEY [--schema NAME]]
             [--max-conns N] [--max-conns-per-client N] [--body-read-rate BYTES]
             [--request-timeout DURATION | 0] [--auth-failure-limit N/DURATION | 0]
             [--log-level debug|info|warn|error] [--log-format text|json]
             [--metrics-addr off | HOST:PORT]
             [--webhook-hosts HOST,HOST...] [--webhook-timeout DURATION]
             [--egress-allow HOST,NETWORK...] [--seed FILE]

Each flag can also be set by an environment variable (LETTERSHOP_ADDR,
LETTERSHOP_API_KEY, ...); a flag given on the command line wins. Several
API keys in LETTERSHOP_API_KEY are separated by spaces.

Flags:
`

// parseConfig reads args, then fills each flag not given from the
// environment.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	cfg := config{addr: "127.0.0.1:8080", rate: rateLimit{n: 150, per: 5 * time.Second}, store: "memory",
		maxConns: defaultMaxConns, maxConnsPerClient: defaultMaxConnsPerClient, bodyRate: httpadapter.DefaultBodyReadRate,
		logLevel: logLevel(slog.LevelInfo), logFormat: "text",
		authFailures: rateLimit{n: httpadapter.DefaultAuthFailures, per: httpadapter.DefaultAuthFailuresPer}}
	fs := flag.NewFlagSet("lettershop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.addr, "addr", cfg.addr, "`host:port` to listen on (LETTERSHOP_ADDR)")
	fs.Var((*apiKeysFlag)(&cfg.apiKeys), "api-key",
		"accept the key `ACCOUNT:SECRET[=SCOPE,SCOPE]` (repeatable; scopes letters:read, letters:write,\n"+
			"assets:read, assets:write, webhooks:read, webhooks:write; all when none given). Without any, every key\n"+
			"beginning sk_test_ is accepted, each its own account (LETTERSHOP_API_KEY)")
	fs.BoolVar(&cfg.sandbox, "sandbox", false, "with --api-key, accept every key beginning sk_test_ beside them too, each its own account (LETTERSHOP_SANDBOX)")
	fs.Var(&cfg.rate, "rate-limit", "allow `N/DURATION` requests per API key, in bursts of up to N; 0 turns limiting off (LETTERSHOP_RATE_LIMIT)")
	fs.BoolVar(&cfg.testClock, "test-clock", false, "stop the clock, and give each account a clock of its own that POST /_test/clock/advance\n"+
		"moves (LETTERSHOP_TEST_CLOCK)")
	fs.BoolVar(&cfg.sharedClock, "shared-test-clock", false, "with --test-clock, one clock for every account: POST /_test/clock/advance moves all\n"+
		"of them, as a single-tenant server wants (LETTERSHOP_SHARED_TEST_CLOCK)")
	fs.Func("test-clock-start", "with --test-clock, the `TIME` the clock starts at (RFC 3339, such as 2026-03-02T15:00:00Z) instead of\n"+
		"the time of the start, so that every run of a suite meets the same days (LETTERSHOP_TEST_CLOCK_START)", func(v string) error {
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return fmt.Errorf("want a time such as 2026-03-02T15:00:00Z, got %q", v)
		}
		cfg.testClockStart = at.UTC()
		return nil
	})
	fs.StringVar(&cfg.baseURL, "base-url", "", "`URL` clients reach the server at, for letter urls and download links (default http://ADDR) (LETTERSHOP_BASE_URL)")
	fs.StringVar(&cfg.store, "store", cfg.store, "where records are kept: `memory`, or a postgres:// URL of a PostgreSQL database\n"+
		"servers may share (LETTERSHOP_STORE)")
	fs.StringVar(&cfg.schema, "schema", "", "`NAME` of the PostgreSQL schema for the tables, created if missing (default: the first of the\n"+
		"connection's search_path) (LETTERSHOP_SCHEMA)")
	fs.StringVar(&cfg.tokenKey, "token-key", "", "`KEY` signing pagination tokens, download links and inbox forms, at least 32 characters;\n"+
		"required with a postgres:// store, the same on every server of the database.\n"+
		"Prefer the environment variable: a flag shows in the process list (LETTERSHOP_TOKEN_KEY)")
	fs.IntVar(&cfg.maxConns, "max-conns", cfg.maxConns, "`N` connections open at once at most; more are answered 503 and closed; 0 is no cap (LETTERSHOP_MAX_CONNS)")
	fs.IntVar(&cfg.maxConnsPerClient, "max-conns-per-client", cfg.maxConnsPerClient,
		"`N` connections open at once at most from one client address; 0 is no cap (LETTERSHOP_MAX_CONNS_PER_CLIENT)")
	fs.Var(&cfg.authFailures, "auth-failure-limit", "allow `N/DURATION` failed authentications per client address, at the API and the inbox\n"+
		"together; past them every request of the address with a key is a 429 for a while; 0 turns this off\n"+
		"(LETTERSHOP_AUTH_FAILURE_LIMIT)")
	fs.IntVar(&cfg.bodyRate, "body-read-rate", cfg.bodyRate, "`BYTES` per second a request body must arrive at: it gets 5 s plus its length at this pace,\n"+
		"then a 408; 0 leaves only the 60 s read timeout (LETTERSHOP_BODY_READ_RATE)")
	fs.DurationVar(&cfg.requestTimeout, "request-timeout", httpadapter.DefaultRequestTimeout,
		"the `DURATION` a request's work may take once its body is in, then a 503 with Retry-After (a database\n"+
			"that stops answering); below the 60 s write timeout; 0 is no bound, which a --store memory server\n"+
			"has unless this is given: a store in memory never hangs (LETTERSHOP_REQUEST_TIMEOUT)")
	fs.Var(&cfg.logLevel, "log-level", "log records at `LEVEL` and above: debug, info, warn or error; info logs one line per request,\n"+
		"debug adds health checks and metrics scrapes (LETTERSHOP_LOG_LEVEL)")
	fs.Var(&cfg.logFormat, "log-format", "write the log as `FORMAT`: text (key=value) or json, one object per line (LETTERSHOP_LOG_FORMAT)")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics on `HOST:PORT` of their own, or off; by default they are\n"+
		"served with the API (LETTERSHOP_METRICS_ADDR)")
	fs.Func("webhook-hosts", "the `HOSTS` webhooks may post to, comma-separated: a name, *.domain for the names under it,\n"+
		"an IP address or a network (10.0.0.0/8); by default any host (LETTERSHOP_WEBHOOK_HOSTS)", func(v string) error {
		cfg.webhookHosts = nil
		for h := range strings.SplitSeq(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				cfg.webhookHosts = append(cfg.webhookHosts, h)
			}
		}
		if len(cfg.webhookHosts) == 0 {
			return errors.New("want one host at least")
		}
		_, err := egress.ListHosts(cfg.webhookHosts...)
		return err
	})
	fs.DurationVar(&cfg.webhookTimeout, "webhook-timeout", delivery.DefaultTimeout,
		"the `DURATION` a webhook attempt waits for an answer before it counts as failed\n"+
			"(LETTERSHOP_WEBHOOK_TIMEOUT)")
	fs.Func("egress-allow", "restrict the requests the server makes itself (webhooks, content fetched from a URL) to\n"+
		"these `HOSTS`, comma-separated: a name, *.domain for the names under it, an IP address or a\n"+
		"network such as 10.0.0.0/8; by default any host. Link-local and cloud metadata addresses are\n"+
		"refused always; see docs/egress.md (LETTERSHOP_EGRESS_ALLOW)", func(v string) error {
		p, err := egress.ParseAllow(v)
		if err != nil {
			return err
		}
		if !p.Restricted() {
			return errors.New("want one host or network at least")
		}
		cfg.egress = p
		return nil
	})
	fs.StringVar(&cfg.seed, "seed", "", "start from the snapshots in `FILE` (one as GET /_test/snapshot answers it, or a JSON array\n"+
		"of them), each restored with its ids into the account it was taken from; needs --test-clock.\n"+
		"An account that has records already is left as it is (LETTERSHOP_SEED)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if given[f.Name] || v == "" {
			return
		}
		values := []string{v}
		if f.Name == "api-key" {
			values = strings.Fields(v)
		}
		for _, x := range values {
			if err := fs.Set(f.Name, x); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return config{}, err
	}
	if cfg.webhookTimeout <= 0 {
		return config{}, errors.New("--webhook-timeout: want a positive duration, such as 10s")
	}
	if cfg.sharedClock && !cfg.testClock {
		return config{}, errors.New("--shared-test-clock: needs --test-clock")
	}
	if !cfg.testClockStart.IsZero() && !cfg.testClock {
		return config{}, errors.New("--test-clock-start: needs --test-clock")
	}
	if !cfg.testClockStart.IsZero() && cfg.seed != "" {
		return config{}, errors.New("--test-clock-start: not with --seed, whose snapshots say where each account's clock stands")
	}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true }) // the environment's too, now
	if cfg.store == "memory" && !given["request-timeout"] {
		// A store in memory never hangs, and the bound's timer is a
		// tenth of what the cheapest request costs.
		cfg.requestTimeout = 0
	}
	if cfg.requestTimeout < 0 || cfg.requestTimeout >= writeTimeout {
		return config{}, fmt.Errorf("--request-timeout: want 0 (no bound) or a duration below the %s write timeout, got %s", writeTimeout, cfg.requestTimeout)
	}
	if cfg.maxConns < 0 || cfg.maxConnsPerClient < 0 || cfg.bodyRate < 0 {
		return config{}, errors.New("--max-conns, --max-conns-per-client and --body-read-rate: want 0 (no limit) or a positive number")
	}
	if cfg.baseURL != "" {
		u, err := url.Parse(cfg.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return config{}, fmt.Errorf("--base-url: want an absolute http or https URL without query, got %q", cfg.baseURL)
		}
		cfg.baseURL = strings.TrimRight(cfg.baseURL, "/")
	}
	if err := checkStore(cfg); err != nil {
		return config{}, err
	}
	if cfg.metricsAddr != "" && cfg.metricsAddr != metricsOff {
		if _, _, err := net.SplitHostPort(cfg.metricsAddr); err != nil {
			return config{}, fmt.Errorf("--metrics-addr: want HOST:PORT or off, got %q", cfg.metricsAddr)
		}
	}
	if cfg.seed != "" {
		snaps, err := readSeed(cfg)
		if err != nil {
			return config{}, err
		}
		cfg.fixture = snaps
	}
	return cfg, nil
}

// checkStore refuses a store setup that cannot work, before anything is
// opened.
func checkStore(cfg config) error {
	if cfg.tokenKey != "" && len(cfg.tokenKey) < minTokenKeyLen {
		return fmt.Errorf("--token-key: want at least %d characters (for example the output of `openssl rand -hex 32`), got %d",
			minTokenKeyLen, len(cfg.tokenKey))
	}
	switch storeKind(cfg.store) {
	case storeMemory:
		if cfg.schema != "" {
			return errors.New("--schema: only a postgres:// store has schemas; this server keeps its records in memory")
		}
		return nil
	case storePostgres:
		if err := pgstore.CheckDSN(cfg.store); err != nil {
			return fmt.Errorf("--store: %w", err)
		}
		if cfg.tokenKey == "" {
			return errors.New("--store postgres://... needs --token-key (or LETTERSHOP_TOKEN_KEY): servers sharing a database " +
				"must sign pagination tokens and download links with one key, or a nextToken or download link made by one " +
				"server is refused by another, and by the same server once restarted. Give every server of the database " +
				"the same secret of at least 32 characters, for example from `openssl rand -hex 32`")
		}
		return nil
	}
	return fmt.Errorf("--store: unknown store %q; want memory or a postgres:// URL", redactStore(cfg.store))
}

// apiKeysFlag collects --api-key ACCOUNT:SECRET[=SCOPE,SCOPE].
type apiKeysFlag []httpadapter.APIKey

func (f *apiKeysFlag) String() string {
	if f == nil {
		return ""
	}
	accounts := make([]string, len(*f))
	for i, k := range *f {
		accounts[i] = k.Account + ":***" // never print a secret
	}
	return strings.Join(accounts, " ")
}

func (f *apiKeysFlag) Set(s string) error {
	k, err := parseAPIKey(s)
	if err != nil {
		return err
	}
	*f = append(*f, k)
	return nil
}

// parseAPIKey reads ACCOUNT:SECRET[=SCOPE,SCOPE]. The secret can hold any
// character but = and white space.
func parseAPIKey(s string) (httpadapter.APIKey, error) {
	account, rest, ok := strings.Cut(s, ":")
	if !ok || account == "" {
		return httpadapter.APIKey{}, errors.New("want ACCOUNT:SECRET[=SCOPE,SCOPE], for example acme:sk_test_acme=letters:read")
	}
	secret, scopes, hasScopes := strings.Cut(rest, "=")
	if secret == "" || strings.ContainsFunc(secret, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }) {
		return httpadapter.APIKey{}, fmt.Errorf("account %s: the secret can not be empty or hold spaces", account)
	}
	k := httpadapter.APIKey{Account: account, Secret: secret}
	if hasScopes {
		for _, name := range strings.Split(scopes, ",") {
			sc, err := httpadapter.ParseScope(strings.TrimSpace(name))
			if err != nil {
				return httpadapter.APIKey{}, fmt.Errorf("account %s: %w", account, err)
			}
			k.Scopes = append(k.Scopes, sc)
		}
	}
	return k, nil
}

// rateLimit is --rate-limit N/DURATION, or 0 (n == 0) for none.
type rateLimit struct {
	n   int
	per time.Duration
}

func (r *rateLimit) String() string {
	if r == nil || r.n == 0 {
		return "0"
	}
	return strconv.Itoa(r.n) + "/" + r.per.String()
}

func (r *rateLimit) Set(s string) error {
	if s == "0" {
		*r = rateLimit{}
		return nil
	}
	ns, ds, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 {
		return fmt.Errorf("want N/DURATION with N a positive whole number (150/5s), or 0 for no limit; got %q", s)
	}
	d, err := time.ParseDuration(ds)
	if err != nil {
		// "100/s" and "1000/m" read naturally: one of the unit.
		d, err = time.ParseDuration("1" + ds)
	}
	if err != nil || d <= 0 {
		return fmt.Errorf("want N/DURATION with DURATION such as 5s, 1m or s; got %q", s)
	}
	*r = rateLimit{n: n, per: d}
	return nil
}
