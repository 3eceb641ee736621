package httpadapter_test

import (
	"net/http"
	"testing"
)

// The signed-link route takes no API key: the signature is the permission,
// and a link that is not one of ours is refused with 403.
func TestLetterFileLinks(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{
		"/files/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz.pdf?expires=4102444800&signature=00",
		"/files/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz.pdf",
		"/v1/files/letters/x.pdf?expires=soon&signature=abc",
	} {
		t.Run(path, func(t *testing.T) {
			res := ts.do(t, req{Method: "GET", Path: path, Header: hdr("X-Api-Key", "")})
			res.problem(t, http.StatusForbidden)
			if res.Header.Get("P-RateLimit-Limit") != "" {
				t.Errorf("a keyless link counts against a rate limit")
			}
		})
	}
}
