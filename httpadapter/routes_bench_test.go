package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
)

// BenchmarkServeRoutes runs requests beyond BenchmarkServe's three through
// the handler alone, on an account of 8,000 letters, each with an external
// id and two metadata pairs: what each costs the server next to fetching
// one letter ("get"). list100 is the first page again (kept whole);
// list100-walk every page of 100 in turn, by its token, as a client
// paging through the account does (too many pages to be kept whole: each
// is made from the letters' encodings kept); list-customer a page of the
// 16 letters of one metadata value in turn; get-version and
// list-versions10 a template version of 2.5 KB and a page of 10 of them;
// pdf-same one letter's PDF through its download link, again.
//
//	go test ./httpadapter -run '^$' -bench ServeRoutes -benchmem
func BenchmarkServeRoutes(b *testing.B) {
	const letters = 8000
	svc := lettershop.New(memstore.New())
	b.Cleanup(func() { svc.Close() })
	h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0))
	serveAs := benchServe(b, &h)
	serve := func(method, path string, body []byte) *httptest.ResponseRecorder {
		return serveAs(method, path, body, true)
	}
	assetID := benchTemplate(serveAs)
	ids := make([]string, letters)
	for i := range letters {
		body := fmt.Sprintf(`{"sender":{"organization":"Acme","address":{"addressLine1":"100 Main St","lastLine":"Springfield, IL 62701"}},`+
			`"recipient":{"individual":{"firstName":"Jane","lastName":"Doe%d"},"address":{"addressLine1":"200 Oak Ave","city":"Chicago","state":"IL","zipCode":"60601"}},`+
			`"content":{"type":"asset","assetId":%q},"useType":"marketing","variables":[{"name":"name","value":"Jane"}],`+
			`"externalId":"ext-%d","metadata":[{"key":"customer","value":"c-%d"},{"key":"batch","value":"b-%d"}]}`, i, assetID, i, i%500, i%5)
		var l struct{ ID string }
		_ = json.Unmarshal(serve("POST", "/v1/letters", []byte(body)).Body.Bytes(), &l)
		ids[i] = l.ID
	}
	// The cursors of every page of the account, 100 letters each.
	var cursors []string
	for next := ""; ; {
		path := "/v1/letters?pageSize=100"
		if next != "" {
			path += "&nextToken=" + url.QueryEscape(next)
		}
		var page struct{ NextToken string }
		_ = json.Unmarshal(serve("GET", path, nil).Body.Bytes(), &page)
		if page.NextToken == "" {
			break
		}
		next = page.NextToken
		cursors = append(cursors, next)
	}
	var tmpl struct{ ID string }
	_ = json.Unmarshal(serve("POST", "/v1/assets", []byte(`{"name":"Versions","type":"template"}`)).Body.Bytes(), &tmpl)
	versions := make([]string, 30)
	for i := range versions {
		var v struct{ ID string }
		_ = json.Unmarshal(serve("POST", "/v1/assets/"+tmpl.ID+"/versions", []byte(fmt.Sprintf(`{"notes":"v%d","content":{"type":"text/html","content":"<p>Version %d {{name}}</p>%s"}}`,
			i, i, strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>", 40)))).Body.Bytes(), &v)
		versions[i] = v.ID
	}
	var link string
	{
		w := serve("GET", "/v1/letters/"+ids[1]+"/download", nil)
		link = w.Header().Get("Location")
	}
	cases := []struct {
		name string
		path func(i int) string
	}{
		{"get", func(i int) string { return "/v1/letters/" + ids[i%letters] }},
		{"list100", func(int) string { return "/v1/letters?pageSize=100" }},
		{"list100-walk", func(i int) string {
			return "/v1/letters?pageSize=100&nextToken=" + url.QueryEscape(cursors[i%len(cursors)])
		}},
		{"list-customer", func(i int) string { return fmt.Sprintf("/v1/letters?pageSize=100&metadata[customer]=c-%d", i%500) }},
		{"get-version", func(i int) string { return "/v1/assets/" + tmpl.ID + "/versions/" + versions[i%len(versions)] }},
		{"list-versions10", func(int) string { return "/v1/assets/" + tmpl.ID + "/versions" }},
		{"pdf-same", func(int) string { return link }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				serve("GET", c.path(i), nil)
				i++
			}
		})
	}
}
