package httpadapter

import (
	"net/http"
	"path"
	"strings"
)

// uncleanPath reports whether p has an empty, "." or ".." segment. For
// such a path ServeMux answers a redirect to the cleaned one, before any
// route (and so before the API key) is looked at; the handler answers a
// 404 problem instead, as no route has such a path.
func uncleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return true
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c != p
}

// notCleanPath answers a request whose path uncleanPath refuses.
func notCleanPath(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, problem{
		Code: "not-found", Title: "Not found", Status: http.StatusNotFound,
		Detail: "no route for " + r.Method + " " + r.URL.Path + ": paths hold no empty, . or .. segments, and are not redirected",
	})
}
