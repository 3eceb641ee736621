// Package inbox is a web UI for a lettershop Service: the letters of an
// account, each with its rendered PDF, addresses and journey, the assets
// and their versions, and the test actions (cancel, advance the clock,
// force a status or tracking event).
//
// It is an http.Handler, served by cmd/lettershop at /inbox/ and mountable
// in any server:
//
//	mux.Handle("/inbox/", http.StripPrefix("/inbox", inbox.New(svc)))
//
// A visitor picks an account by API key, checked by the same
// httpadapter.Authenticator the API uses (the sandbox by default). The key
// is kept in a cookie that is HttpOnly and SameSite=Strict, never in a URL.
// Pages are server-rendered html/template with a strict
// Content-Security-Policy; forms that change state carry a CSRF token and
// are refused from another origin. Failed log-ins are throttled per client
// address, as the API's failed authentications are. A form's body is at
// most MaxFormBody bytes and url-encoded.
//
// A browser (a request that accepts text/html) is answered pages, errors
// included; any other client gets the inbox's errors as
// application/problem+json, as the API answers its own.
package inbox

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

//go:embed templates/*.html static/*
var files embed.FS

// CookieName is the cookie that holds the visitor's API key.
const CookieName = "lettershop_inbox_key"

// csrfField is the form field that carries the CSRF token.
const csrfField = "csrf"

// pageCSP is the Content-Security-Policy of every page: nothing but the
// inbox's own stylesheet, script, images and frames.
const pageCSP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; " +
	"connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Option configures the inbox.
type Option func(*config)

type config struct {
	auth        httpadapter.Authenticator
	testClock   lettershop.TestClock
	sharedClock bool
	logger      *slog.Logger
	// throttle counts failed log-ins; throttleSet says WithAuthThrottle
	// chose it, nil included.
	throttle    *httpadapter.AuthThrottle
	throttleSet bool
	publicURL   string
	formKey     []byte
}

// WithAuthenticator checks the keys visitors log in with; pass the one the
// API uses, so the inbox accepts exactly the API's keys. The default is
// httpadapter's sandbox: any key that begins sk_test_.
func WithAuthenticator(a httpadapter.Authenticator) Option {
	return func(c *config) { c.auth = a }
}

// WithTestClock is the test clock the Service runs on (a
// testclock.Clock or a *clock.Mock), as given to httpadapter.WithTestClock: with it, the inbox can advance the clock of
// the account logged in, and only that account's. Without it, the clock is
// shown but not moved.
func WithTestClock(m lettershop.TestClock) Option {
	return func(c *config) { c.testClock = m }
}

// WithSharedTestClock makes the inbox advance the test clock itself, which
// every account follows, as httpadapter.WithSharedTestClock does for the
// API's clock routes.
func WithSharedTestClock() Option {
	return func(c *config) { c.sharedClock = true }
}

// WithAuthThrottle sets how failed log-ins (and cookies with keys the
// authenticator refuses) are throttled per client address; nil turns it
// off. Pass the throttle the API has (httpadapter.WithAuthThrottle), so that
// failures at either count together. The default is a throttle of its own,
// httpadapter.NewAuthThrottle(httpadapter.DefaultAuthFailures,
// httpadapter.DefaultAuthFailuresPer, clock.New()).
func WithAuthThrottle(t *httpadapter.AuthThrottle) Option {
	return func(c *config) { c.throttle, c.throttleSet = t, true }
}

// WithPublicURL is the URL browsers reach the server at when it is not the
// request's own: behind a proxy that ends TLS, https://mail.example.com for
// a server that sees http. Forms are taken from its origin (scheme, host
// and port) as well as from the request's own, and an https one marks the
// session cookie Secure.
func WithPublicURL(u string) Option {
	return func(c *config) { c.publicURL = u }
}

// WithFormKey is the secret the CSRF tokens of the inbox's forms are made
// under. Servers behind one address take each other's forms only when they
// share it: give each the same, as cmd/lettershop gives its --token-key.
// Without it (or with an empty key) the inbox draws one when it starts, and
// refuses the forms made before a restart or by another server.
func WithFormKey(key []byte) Option {
	return func(c *config) { c.formKey = append([]byte(nil), key...) }
}

// WithLogger logs the inbox's internal errors; the default discards them.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// handler serves the inbox.
type handler struct {
	svc          *lettershop.Service
	auth         httpadapter.Authenticator
	throttle     *httpadapter.AuthThrottle
	publicOrigin string // "" for none
	// secure marks the session cookie Secure on a request that came
	// without TLS: the public URL is https, so a proxy ended TLS.
	secure      bool
	clock       accountClock
	logger      *slog.Logger
	csrfKey     []byte
	mux         *http.ServeMux
	pages       map[string]*template.Template
	staticFiles fs.FS
}

// New returns the inbox for svc.
func New(svc *lettershop.Service, opts ...Option) http.Handler {
	cfg := config{auth: httpadapter.NewSandboxAuthenticator()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	if !cfg.throttleSet {
		cfg.throttle = httpadapter.NewAuthThrottle(httpadapter.DefaultAuthFailures, httpadapter.DefaultAuthFailuresPer, clock.New())
	}
	h := &handler{svc: svc, auth: cfg.auth, throttle: cfg.throttle, logger: cfg.logger, mux: http.NewServeMux()}
	if cfg.publicURL != "" {
		h.publicOrigin, _ = originOf(cfg.publicURL)
		h.secure = strings.HasPrefix(h.publicOrigin, "https://")
	}
	switch {
	case cfg.testClock != nil && cfg.sharedClock:
		h.clock = serverTestClock{svc: svc, clock: cfg.testClock}
	case cfg.testClock != nil:
		h.clock = accountTestClock{svc: svc}
	default:
		h.clock = serviceClock{svc: svc}
	}
	h.csrfKey = cfg.formKey
	if len(h.csrfKey) == 0 {
		h.csrfKey = []byte(rand.Text())
	}
	h.pages = parsePages()
	h.staticFiles, _ = fs.Sub(files, "static")
	h.routes()
	return h
}

func (h *handler) routes() {
	h.mux.HandleFunc("GET /static/{name}", h.static)
	h.mux.HandleFunc("GET /login", h.loginPage)
	h.mux.HandleFunc("POST /login", h.login)
	h.mux.HandleFunc("POST /logout", h.logout)
	h.mux.HandleFunc("GET /{$}", h.authed(httpadapter.ScopeLettersRead, h.letters))
	h.mux.HandleFunc("GET /letters/state", h.authed(httpadapter.ScopeLettersRead, h.lettersState))
	h.mux.HandleFunc("GET /letters/{id}", h.authed(httpadapter.ScopeLettersRead, h.letter))
	h.mux.HandleFunc("GET /letters/{id}/state", h.authed(httpadapter.ScopeLettersRead, h.letterState))
	h.mux.HandleFunc("GET /letters/{id}/pdf", h.authed(httpadapter.ScopeLettersRead, h.letterPDF))
	h.mux.HandleFunc("POST /letters/{id}/cancel", h.action(httpadapter.ScopeLettersWrite, h.cancel))
	h.mux.HandleFunc("POST /letters/{id}/simulate", h.action(httpadapter.ScopeLettersWrite, h.simulate))
	h.mux.HandleFunc("POST /clock/advance", h.action(httpadapter.ScopeLettersWrite, h.advance))
	h.mux.HandleFunc("GET /assets", h.authed(httpadapter.ScopeAssetsRead, h.assets))
	h.mux.HandleFunc("GET /assets/{id}", h.authed(httpadapter.ScopeAssetsRead, h.asset))
	h.mux.HandleFunc("GET /assets/{id}/versions/{vid}", h.authed(httpadapter.ScopeAssetsRead, h.version))
	h.mux.HandleFunc("GET /assets/{id}/versions/{vid}/content", h.authed(httpadapter.ScopeAssetsRead, h.versionContent))
	h.mux.HandleFunc("GET /webhooks", h.authed(httpadapter.ScopeWebhooksRead, h.webhooks))
	h.mux.HandleFunc("GET /webhooks/{id}", h.authed(httpadapter.ScopeWebhooksRead, h.webhook))
	h.mux.HandleFunc("POST /webhooks/{id}/deliveries/{did}/retry", h.action(httpadapter.ScopeWebhooksWrite, h.retry))
	h.mux.HandleFunc("/", h.unrouted)
}

// unrouted answers a request no route takes: 405 with Allow when its path
// is served for other methods, as the API answers one, or else 404.
func (h *handler) unrouted(w http.ResponseWriter, r *http.Request) {
	allow := h.allowed(r)
	switch {
	case allow == "":
		h.notFound(w, r)
	case !wantsPage(r):
		httpadapter.WriteMethodNotAllowed(w, r, allow)
	default:
		w.Header().Set("Allow", allow)
		h.render(w, http.StatusMethodNotAllowed, "error.html", &page{Title: "Method not allowed", Base: mountPrefix(r),
			Error: r.Method + " is not allowed on this page; allowed: " + allow + "."})
	}
}

// routeMethods are the methods allowed tries on a path.
var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowed lists the methods a route of the inbox takes r's path with, ""
// for none: the catch-all's pattern "/" is no route.
func (h *handler) allowed(r *http.Request) string {
	var ms []string
	for _, m := range routeMethods {
		try := *r
		try.Method = m
		if _, pattern := h.mux.Handler(&try); pattern != "/" {
			ms = append(ms, m)
		}
	}
	return strings.Join(ms, ", ")
}

// ServeHTTP sets the headers every answer carries, refuses an unclean path
// and a body the inbox does not take (guard.go), then routes.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", pageCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	// net/http removes the files of a multipart form only from the request
	// it made, never from a copy (http.StripPrefix's): whatever a page
	// parses is removed here. readForm refuses multipart, so there is none.
	defer func() {
		if r.MultipartForm != nil {
			_ = r.MultipartForm.RemoveAll()
		}
	}()
	if !cleanRequestPath(r) {
		h.notFound(w, r)
		return
	}
	if err := readForm(w, r); err != nil {
		h.refuse(w, r, err)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// session is a request from a logged-in visitor.
type session struct {
	principal httpadapter.Principal
	base      string // the mount prefix, without a trailing slash
	csrf      string
	r         *http.Request
}

func (s *session) ctx() context.Context { return s.r.Context() }
func (s *session) account() string      { return s.principal.Account }

// can reports whether the session's key holds scope.
func (s *session) can(scope httpadapter.Scope) bool { return s.principal.Has(scope) }

type sessionHandler func(w http.ResponseWriter, s *session)

// authed serves next to a visitor whose cookie holds a valid key with
// scope; a visitor without one is sent to the login page.
func (h *handler) authed(scope httpadapter.Scope, next sessionHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.session(w, r)
		if !ok {
			return
		}
		if !s.can(scope) {
			h.fail(w, s, &lettershop.Error{Code: lettershop.CodeForbidden, Message: "this API key lacks the " + string(scope) + " scope"})
			return
		}
		next(w, s)
	}
}

// action is authed for forms that change state: the request must come from
// the inbox's own pages (same origin, the session's CSRF token).
func (h *handler) action(scope httpadapter.Scope, next sessionHandler) http.HandlerFunc {
	return h.authed(scope, func(w http.ResponseWriter, s *session) {
		r := s.r
		if !h.sameOrigin(r) {
			h.fail(w, s, &lettershop.Error{Code: lettershop.CodeForbidden, Message: "the form was sent from another site"})
			return
		}
		if !hmac.Equal([]byte(r.PostFormValue(csrfField)), []byte(s.csrf)) {
			h.fail(w, s, &lettershop.Error{Code: lettershop.CodeForbidden, Message: "the form has expired: reload the page and try again"})
			return
		}
		next(w, s)
	})
}

// session authenticates the cookie's key. Without a valid one it sends the
// visitor to the login page (clearing a stale cookie) and reports false. A
// key that could not be checked (the authenticator failed) is a server
// error, and the cookie stays for when the authenticator is back.
func (h *handler) session(w http.ResponseWriter, r *http.Request) (*session, bool) {
	base := mountPrefix(r)
	key, ok := cookieKey(r)
	if !ok {
		http.Redirect(w, r, base+"/login", http.StatusSeeOther)
		return nil, false
	}
	p, err := h.authenticate(r, key)
	if err != nil {
		var e *lettershop.Error
		switch {
		case errors.As(err, &e) && e.Code == lettershop.CodeRateLimited:
			h.refuse(w, r, e)
		case !errors.Is(err, httpadapter.ErrUnknownKey):
			h.refuse(w, r, &lettershop.Error{Code: lettershop.CodeInternal, Message: "the key could not be checked",
				Err: fmt.Errorf("inbox: authenticate: %w", err)})
		default:
			h.clearCookie(w, r, base)
			http.Redirect(w, r, base+"/login", http.StatusSeeOther)
		}
		return nil, false
	}
	return &session{principal: p, base: base, csrf: h.csrfToken(key), r: r}, true
}

// csrfToken is bound to the key, so a token works only for its own session.
func (h *handler) csrfToken(apiKey string) string {
	m := hmac.New(sha256.New, h.csrfKey)
	m.Write([]byte("lettershop inbox csrf\x00" + apiKey))
	return hex.EncodeToString(m.Sum(nil))
}

func cookiePath(base string) string { return base + "/" }

// The cookie holds the key base64url-encoded: a key may hold characters
// (";", quotes, backslashes) a cookie value can not. It is Secure when the
// browser reached the inbox over TLS: its own, or a proxy's in front of
// the public URL.
func (h *handler) setCookie(w http.ResponseWriter, r *http.Request, base, key string) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: base64.RawURLEncoding.EncodeToString([]byte(key)), Path: cookiePath(base),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil || h.secure})
}

// cookieKey is the key the request's cookie holds.
func cookieKey(r *http.Request) (string, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return "", false
	}
	key, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(key) == 0 {
		return "", false
	}
	return string(key), true
}

func (h *handler) clearCookie(w http.ResponseWriter, r *http.Request, base string) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: cookiePath(base), MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil || h.secure})
}

// loginPage asks for an API key.
func (h *handler) loginPage(w http.ResponseWriter, r *http.Request) {
	h.renderLogin(w, r, http.StatusOK, "")
}

func (h *handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	base := mountPrefix(r)
	_, sandbox := h.auth.(httpadapter.SandboxAuthenticator)
	h.render(w, status, "login.html", &page{Title: "Log in", Base: base, Error: msg, Data: sandbox})
}

// loginFailed shows the log-in page again with msg to a browser, and err
// as a problem to a program.
func (h *handler) loginFailed(w http.ResponseWriter, r *http.Request, err *lettershop.Error, msg string) {
	if !wantsPage(r) {
		h.writeError(w, r, err)
		return
	}
	if err.Code == lettershop.CodeInternal {
		h.logger.Error("inbox: log in", "err", err)
	}
	retryAfter(w, err)
	h.renderLogin(w, r, httpadapter.StatusOf(err.Code), msg)
}

// login checks the key and keeps it in the cookie. It takes no CSRF token
// (there is no session yet), but like every form it must come from the
// inbox's own origin, so no other site can log a visitor in to its account.
func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	if !h.sameOrigin(r) {
		h.loginFailed(w, r, &lettershop.Error{Code: lettershop.CodeForbidden, Message: "the form was sent from another site"},
			"The form was sent from another site.")
		return
	}
	key := strings.TrimSpace(r.PostFormValue("key"))
	if key == "" {
		h.loginFailed(w, r, &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the form is invalid",
			Fields: map[string]string{"key": "enter an API key"}}, "Enter an API key.")
		return
	}
	p, err := h.authenticate(r, key)
	if err != nil {
		var e *lettershop.Error
		switch {
		case errors.As(err, &e) && e.Code == lettershop.CodeRateLimited:
			h.loginFailed(w, r, e, e.Message+" Try again in a moment.")
		case errors.Is(err, httpadapter.ErrUnknownKey):
			h.loginFailed(w, r, &lettershop.Error{Code: lettershop.CodeUnauthenticated, Message: "the API key is not valid"},
				"That API key is not valid here.")
		default:
			h.loginFailed(w, r, &lettershop.Error{Code: lettershop.CodeInternal, Message: "the key could not be checked",
				Err: fmt.Errorf("inbox: authenticate: %w", err)}, "The key could not be checked; try again.")
		}
		return
	}
	base := mountPrefix(r)
	h.setCookie(w, r, base, key)
	http.Redirect(w, r, base+landing(p), http.StatusSeeOther)
}

// landing is the first page p may read: the letters, else the assets,
// else the webhooks; a key that reads none is told so by the letters.
func landing(p httpadapter.Principal) string {
	switch {
	case !p.Has(httpadapter.ScopeLettersRead) && p.Has(httpadapter.ScopeAssetsRead):
		return "/assets"
	case !p.Has(httpadapter.ScopeLettersRead) && p.Has(httpadapter.ScopeWebhooksRead):
		return "/webhooks"
	}
	return "/"
}

// logout forgets the key. It needs no token: the worst another site can do
// is log the visitor out, and SameSite=Strict keeps the cookie from its
// requests anyway.
func (h *handler) logout(w http.ResponseWriter, r *http.Request) {
	if !h.sameOrigin(r) {
		h.loginFailed(w, r, &lettershop.Error{Code: lettershop.CodeForbidden, Message: "the form was sent from another site"},
			"The form was sent from another site.")
		return
	}
	base := mountPrefix(r)
	h.clearCookie(w, r, base)
	http.Redirect(w, r, base+"/login", http.StatusSeeOther)
}

func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	if !wantsPage(r) {
		h.writeError(w, r, errNotFound)
		return
	}
	h.render(w, http.StatusNotFound, "error.html", &page{Title: "Not found", Base: mountPrefix(r),
		Error: "There is no such page in the inbox."})
}

// fail shows err as a page. A *lettershop.Error is the visitor's mistake
// (or the object's state) and its message is safe to show; anything else is
// logged and shown as a generic message.
func (h *handler) fail(w http.ResponseWriter, s *session, err error) {
	if !wantsPage(s.r) {
		h.writeError(w, s.r, err)
		return
	}
	status, msg := h.failure(s.r, err)
	p := h.newPage(s, http.StatusText(status))
	p.Error = msg
	h.render(w, status, "error.html", p)
}

// failure is the status and the message a page shows for err.
func (h *handler) failure(r *http.Request, err error) (int, string) {
	var e *lettershop.Error
	if errors.As(err, &e) && e.Code != lettershop.CodeInternal {
		return httpadapter.StatusOf(e.Code), errorMessage(e)
	}
	h.logger.Error("inbox", "path", r.URL.Path, "err", err)
	return http.StatusInternalServerError, "Something went wrong in the server; it is logged."
}

// errorMessage is e's message with its fields, which say what to fix.
func errorMessage(e *lettershop.Error) string {
	msg := e.Message
	for _, k := range sortedKeys(e.Fields) {
		msg += "; " + k + ": " + e.Fields[k]
	}
	return msg
}

// mountPrefix is the part of the path the client sent that a mounting
// server stripped (http.StripPrefix) before the request got here.
func mountPrefix(r *http.Request) string {
	uri := r.RequestURI
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		uri = uri[:i]
	}
	if strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://") {
		// An absolute-form target (RFC 9112, section 3.2.2), as a proxy
		// may send one: its path is the path the client sent.
		u, err := url.Parse(uri)
		if err != nil {
			return ""
		}
		uri = u.EscapedPath()
	}
	if before, ok := strings.CutSuffix(uri, r.URL.EscapedPath()); ok && (before == "" || strings.HasPrefix(before, "/")) {
		return before
	}
	return ""
}
