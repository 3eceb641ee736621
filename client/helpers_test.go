package client_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/internal/openapitest"
	"github.com/lettershop/lettershop/memstore"
)

const testKey = "sk_test_client"

var testStart = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// server is a lettershop server behind httptest, on a mock clock, with the
// test routes on and no rate limit unless the test sets one.
type server struct {
	*httptest.Server
	Svc   *lettershop.Service
	Clock *clock.Mock
	// Account is the account testKey acts in.
	Account string
}

type serverConfig struct {
	adapter []httpadapter.Option
	wrap    func(http.Handler) http.Handler
}

type serverOption func(*serverConfig)

func withAdapter(o ...httpadapter.Option) serverOption {
	return func(c *serverConfig) { c.adapter = append(c.adapter, o...) }
}

// wrapped puts w in front of the handler, to inject failures.
func wrapped(w func(http.Handler) http.Handler) serverOption {
	return func(c *serverConfig) { c.wrap = w }
}

func newServer(t testing.TB, opts ...serverOption) *server {
	t.Helper()
	var cfg serverConfig
	for _, o := range opts {
		o(&cfg)
	}
	mc := clock.NewMock()
	mc.Set(testStart)
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc), lettershop.WithTokenKey([]byte("client test token key")))
	var h http.Handler = httpadapter.New(svc, append([]httpadapter.Option{
		httpadapter.WithTestClock(mc), httpadapter.WithRateLimit(0, 0),
	}, cfg.adapter...)...)
	// What the client sends and the server answers is checked against the
	// OpenAPI document.
	h = openapitest.Handler(t, h)
	if cfg.wrap != nil {
		h = cfg.wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return &server{Server: srv, Svc: svc, Clock: mc, Account: httpadapter.SandboxAccount(testKey)}
}

// waits records the client's waits between attempts and moves a fake clock
// by them instead of sleeping, so retries run at once and in order.
type waits struct {
	mu  sync.Mutex
	now time.Time
	got []time.Duration
	// onSleep, if set, runs on every wait (to move a server's clock too).
	onSleep func(time.Duration)
}

// newWaits starts the fake clock at a whole second of the present, so
// times the server rounds to the second are whole waits away.
func newWaits() *waits { return &waits{now: time.Now().Truncate(time.Second)} }

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	w.got = append(w.got, d)
	w.now = w.now.Add(d)
	f := w.onSleep
	w.mu.Unlock()
	if f != nil {
		f(d)
	}
	return nil
}

func (w *waits) clock() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.got...)
}

// options make a client's retries deterministic: no jitter, waits recorded
// instead of slept.
func (w *waits) options() []client.Option {
	return []client.Option{
		client.WithSleep(w.sleep),
		client.WithClock(w.clock),
		client.WithJitter(func(d time.Duration) time.Duration { return d }),
		client.WithBackoff(time.Second, time.Minute),
	}
}

// newClient is a client of s with testKey and deterministic retries.
func newClient(s *server, w *waits, opts ...client.Option) *client.Client {
	return client.New(s.URL+"/v1", testKey, append(w.options(), opts...)...)
}

// attempt is one request a recorder saw.
type attempt struct {
	Method, Path, IdempotencyKey string
	Status                       int
	Replayed                     bool
}

// recorder notes every request and the status answered.
type recorder struct {
	mu   sync.Mutex
	seen []attempt
}

func (r *recorder) add(a attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, a)
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = nil
}

func (r *recorder) all() []attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]attempt(nil), r.seen...)
}

// bufferedWriter holds an answer until the recorder has noted it, so a
// client never sees an answer before its attempt is recorded. Hijack
// reaches the real connection, once onHijack has recorded the attempt: a
// connection closed before then would let the client retry, or give up,
// before the dropped attempt is noted.
type bufferedWriter struct {
	real     http.ResponseWriter
	rec      *httptest.ResponseRecorder
	hijacked bool
	onHijack func()
}

func (b *bufferedWriter) Header() http.Header         { return b.rec.Header() }
func (b *bufferedWriter) Write(p []byte) (int, error) { return b.rec.Write(p) }
func (b *bufferedWriter) WriteHeader(code int)        { b.rec.WriteHeader(code) }

func (b *bufferedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	b.hijacked = true
	if b.onHijack != nil {
		b.onHijack()
	}
	return http.NewResponseController(b.real).Hijack()
}

// failing answers the first n requests with fail (which may drop the
// connection), passes the rest to the handler, and records every attempt.
func failing(rec *recorder, n int, fail func(w http.ResponseWriter, r *http.Request, next http.Handler)) func(http.Handler) http.Handler {
	var mu sync.Mutex
	count := 0
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			count++
			failNow := count <= n
			mu.Unlock()
			a := attempt{Method: r.Method, Path: r.URL.Path, IdempotencyKey: r.Header.Get("Idempotency-Key")}
			bw := &bufferedWriter{real: w, rec: httptest.NewRecorder(), onHijack: func() { rec.add(a) }}
			if failNow {
				fail(bw, r, next)
			} else {
				next.ServeHTTP(bw, r)
			}
			if bw.hijacked {
				return // recorded by Hijack
			}
			a.Status = bw.rec.Code
			a.Replayed = bw.rec.Header().Get("Idempotent-Replayed") == "true"
			rec.add(a)
			for k, v := range bw.rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(bw.rec.Code)
			_, _ = w.Write(bw.rec.Body.Bytes())
		})
	}
}

// problem answers a problem body of the status and code, as the server
// writes it.
func problem(status int, code string) func(http.ResponseWriter, *http.Request, http.Handler) {
	return func(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"type":"` + httpadapter.ProblemType(status) + `","title":"injected","status":` + strconv.Itoa(status) +
			`,"detail":"injected failure","code":"` + code + `"}`))
	}
}

// olderProblem answers a problem as servers did before problems were typed
// by their status's RFC section: the code as its type.
func olderProblem(status int, code string) func(http.ResponseWriter, *http.Request, http.Handler) {
	return func(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"type":"` + code + `","title":"injected","status":` + strconv.Itoa(status) + `,"detail":"injected failure"}`))
	}
}

// dropAfterWrite lets the handler do the request, then closes the
// connection without an answer: the write happened, the client never
// learns it.
func dropAfterWrite(w http.ResponseWriter, r *http.Request, next http.Handler) {
	next.ServeHTTP(httptest.NewRecorder(), r)
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// The attempt then reads as a 500, and the test fails on it.
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	_ = conn.Close()
}

// Fixtures.

const template = `<p>Dear {{name}},</p><p>Welcome aboard.</p>`

func str(s string) *string { return &s }

// publishedAsset makes an asset with one published template version.
func publishedAsset(t testing.TB, c *client.Client) (*client.Asset, *client.AssetVersion) {
	t.Helper()
	a, err := c.CreateAsset(context.Background(), &client.CreateAssetRequest{Name: "Welcome", Type: client.AssetTemplate})
	if err != nil {
		t.Fatalf("CreateAsset: %v", err)
	}
	v, err := c.CreateVersion(context.Background(), a.ID, &client.CreateVersionRequest{
		Notes:               "first cut",
		Content:             &client.VersionContent{Type: "text/html", Content: template},
		VariableDefinitions: []client.VariableDefinition{{Name: "name", Behavior: "required"}},
		Publish:             true,
	})
	if err != nil {
		t.Fatalf("CreateVersion: %v", err)
	}
	return a, v
}

func letterRequest(assetID string) *client.CreateLetterRequest {
	return &client.CreateLetterRequest{
		Sender: &client.PartyInput{
			Organization: "Acme Corp",
			Address:      client.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"},
		},
		Recipient: &client.PartyInput{
			Individual: &client.Individual{FirstName: "Jane", LastName: "Doe"},
			Address:    client.AddressInput{AddressLine1: "200 Oak Ave", City: "Chicago", State: "IL", ZipCode: "60601"},
		},
		Content:   &client.LetterContent{Type: "asset", AssetID: assetID},
		UseType:   client.UseTransactional,
		Variables: []client.Variable{{Name: "name", Value: str("Jane")}},
		Metadata:  client.Metadata{{Key: "customer", Value: "c-1001"}},
	}
}
