package httpadapter_test

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
)

// The API mounted under /mail/ of a server of one's own, beside the
// server's own routes, with keys of its own. The Service's base URL names
// the prefix, so the Locations it answers point back under it.
func Example_mount() {
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(),
		lettershop.WithClock(mc),
		lettershop.WithEntropy(rand.New(rand.NewSource(1))),
		lettershop.WithBaseURL("https://app.example.com/mail"))
	defer svc.Close()
	auth, err := httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "acme", Secret: "sk_live_acme"})
	if err != nil {
		panic(err)
	}
	api := httpadapter.New(svc, httpadapter.WithAuthenticator(auth), httpadapter.WithLogger(slog.New(slog.DiscardHandler)))

	mux := http.NewServeMux()
	mux.Handle("/mail/", http.StripPrefix("/mail", api))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "the application's own page") })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	send := func(method, path, key, body string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			panic(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := send("POST", "/mail/v1/assets", "sk_live_acme", `{"name": "Welcome letter", "type": "template"}`)
	fmt.Println(resp.Status, resp.Header.Get("Location"))
	fmt.Println(send("GET", "/mail/v1/assets", "sk_test_guess", "").Status)
	fmt.Println(send("GET", "/mail/healthz", "", "").Status)
	fmt.Println(send("GET", "/", "", "").Status)
	// Output:
	// 201 Created https://app.example.com/mail/v1/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz
	// 401 Unauthorized
	// 200 OK
	// 200 OK
}

// printer is an Observer of one's own: it prints what it is told.
type printer struct{}

func (printer) ObserveRequest(pattern, method string, status int, _ time.Duration) {
	if pattern == "" {
		pattern = "(no route)"
	}
	fmt.Println(method, pattern, status)
}

func (printer) ObserveIdempotency(replayed bool, err error) {
	fmt.Println("idempotency: replayed", replayed, "refused", err != nil)
}

// An Observer is told of every request with the pattern of the route that
// took it, never the raw path: the way to feed metrics of one's own (package
// prom feeds Prometheus).
func ExampleWithObserver() {
	svc := lettershop.New(memstore.New())
	defer svc.Close()
	h := httpadapter.New(svc, httpadapter.WithObserver(printer{}), httpadapter.WithLogger(slog.New(slog.DiscardHandler)))
	for _, path := range []string{"/v1/letters/ltr_01kjqh0cc0042pgp16fcfw0dpw", "/letters?pageSize=5", "/nowhere"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("X-Api-Key", "sk_test_observer")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	req := httptest.NewRequest("POST", "/v1/assets", strings.NewReader(`{"name": "Welcome letter", "type": "template"}`))
	req.Header.Set("X-Api-Key", "sk_test_observer")
	req.Header.Set("Idempotency-Key", "welcome-1")
	h.ServeHTTP(httptest.NewRecorder(), req)
	// Output:
	// GET GET /v1/letters/{id} 404
	// GET GET /letters 200
	// GET (no route) 404
	// idempotency: replayed false refused false
	// POST POST /v1/assets 201
}
