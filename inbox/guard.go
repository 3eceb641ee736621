package inbox

// This file holds what the inbox checks of a request before any page sees
// it: a clean path, a small url-encoded body, the origin of a form, and the
// throttle of failed log-ins; and how it answers a refusal: a page to a
// browser, a problem to a program.

import (
	"errors"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// MaxFormBody is the largest request body the inbox reads, in bytes: its
// forms carry a key, a token, a choice and a page to return to.
const MaxFormBody = 8 << 10

// formType is the one body the inbox takes.
const formType = "application/x-www-form-urlencoded"

// cleanPath reports whether p has no empty, . or .. segment (once decoded).
// A mux would redirect such a path to its cleaned form, which under a mount
// prefix is a path outside the inbox (/etc/passwd); the inbox answers 404.
func cleanPath(p string) bool { return path.Clean(p) == p }

// cleanRequestPath reports whether r's path is clean both decoded and as
// sent: a mount prefix stripped from "/inbox%2Flogin" leaves the escaped
// path "%2Flogin", which the mux would redirect to "/%252Flogin", outside
// the inbox.
func cleanRequestPath(r *http.Request) bool {
	escaped := r.URL.EscapedPath()
	return cleanPath(r.URL.Path) && strings.HasPrefix(escaped, "/") && cleanPath(escaped)
}

// readForm bounds r's body to MaxFormBody and parses a POST's form, which
// must be url-encoded: the inbox takes no multipart form, whose parts
// net/http would keep in memory and in temporary files that a mounted
// handler's copy of the request never removes.
func readForm(w http.ResponseWriter, r *http.Request) error {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, MaxFormBody)
	}
	if r.Method != http.MethodPost {
		return nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != formType {
			return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the form is not " + formType,
				Fields: map[string]string{"Content-Type": "must be " + formType + ", as a form of the inbox's pages sends"}}
		}
	}
	if err := r.ParseForm(); err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return err
		}
		return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the form could not be read",
			Fields: map[string]string{"body": "must be a url-encoded form"}}
	}
	return nil
}

// wantsPage reports whether the client reads pages: a browser, whose
// navigations accept text/html. Any other client gets the inbox's errors
// as problems, as the API answers its own.
func wantsPage(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// refuse answers err, a request the inbox will not serve, outside any
// session: an error page to a browser, a problem to a program.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if !wantsPage(r) {
		h.writeError(w, r, err)
		return
	}
	status, msg := http.StatusInternalServerError, "Something went wrong in the server; it is logged."
	var e *lettershop.Error
	var big *http.MaxBytesError
	switch {
	case errors.As(err, &big):
		status, msg = http.StatusRequestEntityTooLarge, "The form is larger than "+strconv.Itoa(MaxFormBody>>10)+" KiB."
	case errors.As(err, &e) && e.Code != lettershop.CodeInternal:
		status, msg = httpadapter.StatusOf(e.Code), errorMessage(e)
		retryAfter(w, e)
	default:
		h.logger.Error("inbox", "path", r.URL.Path, "err", err)
	}
	h.render(w, status, "error.html", &page{Title: http.StatusText(status), Base: mountPrefix(r), Error: msg})
}

// writeError answers err as a problem, logging what is not the client's.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *lettershop.Error
	var big *http.MaxBytesError
	if !errors.As(err, &big) && (!errors.As(err, &e) || e.Code == lettershop.CodeInternal) {
		h.logger.Error("inbox", "path", r.URL.Path, "err", err)
	}
	httpadapter.WriteError(w, r, err)
}

func retryAfter(w http.ResponseWriter, e *lettershop.Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int((e.RetryAfter+999_999_999)/1_000_000_000))))
	}
}

// errNotFound is what a path the inbox has no page for is answered.
var errNotFound = &lettershop.Error{Code: lettershop.CodeNotFound, Message: "there is no such page in the inbox"}

// static serves the inbox's stylesheet and script, and nothing else: a
// name that is not one of theirs is a 404 of the inbox's own, never a
// directory listing or a redirect.
func (h *handler) static(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/static/")
	b, err := fs.ReadFile(h.staticFiles, name)
	if !fs.ValidPath(name) || strings.Contains(name, "/") || err != nil {
		h.notFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Cache-Control", "public, max-age=300")
	hd.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// sameOrigin refuses requests a browser marks as coming from another site.
// Browsers send Origin with every POST; a request without it (curl) is let
// through to the token check. An Origin must be the request's own (its
// scheme, host and port; https when the inbox is served over TLS) or the
// public URL's (WithPublicURL), behind a proxy that ends TLS.
func (h *handler) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	raw := r.Header.Get("Origin")
	if raw == "" {
		return true
	}
	o, ok := originOf(raw)
	if !ok {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	own, ok := originOf(scheme + "://" + r.Host)
	return ok && o == own || h.publicOrigin != "" && o == h.publicOrigin
}

// originOf is the origin of an http or https URL, scheme and host in lower
// case and the port written out: http://a.example and http://A.example:80
// are one origin.
func originOf(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme == "http" && port == "":
		port = "80"
	case scheme == "https" && port == "":
		port = "443"
	case scheme != "http" && scheme != "https":
		return "", false
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}

// authenticate checks key from r's address: refused unchecked while the
// address is throttled, counted when the authenticator does not know it.
// A key that is not valid UTF-8 is unknown, whatever the authenticator.
func (h *handler) authenticate(r *http.Request, key string) (httpadapter.Principal, error) {
	addr := httpadapter.ClientAddress(r)
	p, exhausted, err := h.throttle.Authenticate(addr, key, func(key string) (httpadapter.Principal, error) {
		return h.auth.Authenticate(r.Context(), key)
	})
	var te *httpadapter.ThrottledError
	if errors.As(err, &te) {
		return p, &lettershop.Error{Code: lettershop.CodeRateLimited, RetryAfter: te.Wait,
			Message: "Too many failed log-ins from this address (" + strconv.Itoa(te.Failures) + " per " + te.Per.String() + "); no key is checked from it for now."}
	}
	if exhausted {
		n, per := h.throttle.Limit()
		h.logger.Warn("authentication failures throttled", "remote", addr, "failures", n, "per", per)
	}
	return p, err
}
