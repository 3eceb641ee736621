package main

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// loopbackHosts guards a server that listens on a loopback address against
// DNS rebinding. A web page its user visits can point its own name at
// 127.0.0.1 once loaded; its scripts then reach the server as their own
// origin, no cross-origin check in the way, and could read what a guessable
// key holds or act through the inbox. Such a page's requests carry its name
// in Host, so a server that listens on a loopback address answers only
// requests addressed to it by a loopback name: localhost (or a name under
// .localhost), a loopback address, or the host of --base-url. Others get a
// 403 problem that says how to reach the server by another name. A server
// that listens on other addresses is reached by names it cannot know, and
// is not guarded.
func loopbackHosts(listening net.Addr, baseURL string, next http.Handler) http.Handler {
	ta, ok := listening.(*net.TCPAddr)
	if !ok || !ta.IP.IsLoopback() {
		return next
	}
	named := ""
	if u, err := url.Parse(baseURL); err == nil && baseURL != "" {
		named = strings.ToLower(u.Hostname())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An http URL always has a host, so an HTTP/1.1 request names one
		// (RFC 9112, section 3.2); only HTTP/1.0 may leave Host out.
		// A refusal carries X-Api-Version, as every answer of the API does.
		if r.Host == "" && r.ProtoAtLeast(1, 1) {
			w.Header().Set("X-Api-Version", httpadapter.APIVersion)
			httpadapter.WriteError(w, r, &lettershop.Error{Code: lettershop.CodeInvalid, Message: "an HTTP/1.1 request names the server it is for in Host",
				Fields: map[string]string{"Host": "is empty; name localhost, a loopback address or --base-url's host"}})
			return
		}
		if !loopbackName(r.Host, named) {
			w.Header().Set("X-Api-Version", httpadapter.APIVersion)
			httpadapter.WriteError(w, r, &lettershop.Error{Code: lettershop.CodeForbidden,
				Message: "this server listens on a loopback address and answers only requests addressed to it by a loopback name " +
					"(a guard against DNS rebinding); to reach it by another name, start it with --base-url http://" + r.Host,
				Fields: map[string]string{"Host": r.Host + " is not localhost, a loopback address or --base-url's host"}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackName reports whether host, a request's Host, names the local
// machine's loopback interface, or named (--base-url's host). An HTTP/1.0
// request without a Host names nothing and passes.
func loopbackName(host, named string) bool {
	if host == "" {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || (named != "" && host == named) {
		return true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && ip.Unmap().IsLoopback()
}
