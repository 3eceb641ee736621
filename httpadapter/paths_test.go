package httpadapter_test

import (
	"net/http"
	"testing"
)

// A path with an empty, . or .. segment is a 404 problem, with or without
// an API key: never a redirect, which would come before the key is checked.
func TestUncleanPathsNotRedirected(t *testing.T) {
	ts := newTestServer(t)
	for _, p := range []string{
		"//letters", "/v1//letters", "/v1/assets/../letters", "/./letters", "/letters/./",
		"/v1/letters/%2e%2e/assets", "/letters//", "/_test/../letters",
	} {
		for _, key := range []string{keyA, ""} {
			r := ts.do(t, req{Method: "GET", Path: p, Header: hdr("X-Api-Key", key)})
			r.problem(t, http.StatusNotFound)
			if loc := r.Header.Get("Location"); loc != "" {
				t.Errorf("GET %s: Location %q", p, loc)
			}
		}
	}
	// Clean paths are served as before.
	ts.get(t, "/v1/letters").wantStatus(t, http.StatusOK)
	ts.get(t, "/letters").wantStatus(t, http.StatusOK)
	ts.get(t, "/letters/").problem(t, http.StatusNotFound)
}
