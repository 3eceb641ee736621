package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/httpadapter"
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

// Download links are limited per client address, N per DURATION as an API
// key is, answered 429 with Retry-After over it; an address has its own.
func TestLetterFileRateLimit(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(2, time.Minute)), mounted(fromAddress))
	assetID, _ := ts.createAsset(t, keyA)
	ts.Clock.Add(time.Minute) // the key's bucket fills again
	l := ts.createLetter(t, keyA, assetID)
	client := *ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hr, _ := http.NewRequest("GET", ts.URL+"/letters/"+l.ID+"/download", nil)
	hr.Header.Set("X-Api-Key", keyA)
	hr.Header.Set("X-Test-Remote", "10.0.0.9") // the key's bucket is another matter
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	link := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || link == "" {
		t.Fatalf("download: %d %q", resp.StatusCode, link)
	}
	link = strings.TrimPrefix(link, testBaseURL)
	for range 2 {
		ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	}
	r := ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "")})
	if r.problem(t, http.StatusTooManyRequests); r.Header.Get("Retry-After") != "30" || r.Header.Get("P-RateLimit-Limit") != "" {
		t.Errorf("third link: Retry-After %q, P-RateLimit-Limit %q", r.Header.Get("Retry-After"), r.Header.Get("P-RateLimit-Limit"))
	}
	ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "", "X-Test-Remote", "10.0.0.8")}).wantStatus(t, http.StatusOK)
	ts.Clock.Add(30 * time.Second)
	ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "")}).problem(t, http.StatusTooManyRequests)

	// With no rate limit, links are not limited either.
	off := newTestServer(t, withAdapter(httpadapter.WithRateLimit(0, time.Minute)))
	for range 5 {
		off.do(t, req{Method: "GET", Path: "/files/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz.pdf", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusForbidden)
	}
}

// A download link fetched by lettershop itself (content given by URL) is
// refused before the letter is rendered: a letter whose content names its
// own link would otherwise render once more for each fetch.
func TestLetterFileNotFetchedByItself(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	link, err := ts.Svc.DownloadURL(t.Context(), httpadapter.SandboxAccount(keyA), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	link = strings.TrimPrefix(link, testBaseURL)
	res := ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "", "User-Agent", egress.UserAgent)})
	if p := res.problem(t, http.StatusForbidden); !strings.Contains(p.Detail, "download link") {
		t.Errorf("detail %q does not say why", p.Detail)
	}
	res = ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "", "User-Agent", "curl/8")}).wantStatus(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type %q", ct)
	}
}
