package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

func TestCreateAndGetLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, versionID := ts.createAsset(t, keyA)

	res := ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID)}).wantStatus(t, http.StatusCreated)
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var created lettershop.Letter
	res.decode(t, &created)
	if want := testBaseURL + "/letters/" + created.ID; res.Header.Get("Location") != want {
		t.Errorf("Location %q, want %q", res.Header.Get("Location"), want)
	}
	if created.Content.AssetVersionID != versionID || created.Status != lettershop.StatusQueued {
		t.Errorf("created letter: version %q status %q, want %q queued", created.Content.AssetVersionID, created.Status, versionID)
	}
	if want := testBaseURL + "/letters/" + created.ID + "/download"; created.URL != want {
		t.Errorf("url %q, want %q", created.URL, want)
	}
	golden(t, "letter_created", res.Body)

	got := ts.get(t, ts.located(t, res.Header.Get("Location"))).wantStatus(t, http.StatusOK)
	golden(t, "letter_fetched", got.Body)
	var fetched lettershop.Letter
	got.decode(t, &fetched)
	if diff := cmp.Diff(created, fetched, cmp.AllowUnexported(lettershop.Letter{}, lettershop.MetadataPair{})); diff != "" {
		t.Errorf("fetched letter differs from the created one (-created +fetched):\n%s", diff)
	}
}

func TestCreateLetterValidation(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	tests := []struct {
		name   string
		body   func() any
		fields []string
	}{
		{"no body", func() any { return "" }, []string{"body"}},
		{"malformed JSON", func() any { return `{"useType": "marketing",` }, []string{"body"}},
		{"not an object", func() any { return `[1, 2]` }, []string{"body"}},
		{"two values", func() any { return `{} {}` }, []string{"body"}},
		{"missing everything", func() any { return `{}` }, []string{"sender", "recipient", "content", "useType"}},
		{"wrong types and unknown fields, all at once", func() any {
			b := letterBody(assetID)
			b["useType"] = 5
			b["colour"] = "blue"
			b["recipient"].(map[string]any)["address"].(map[string]any)["zip"] = "60601"
			b["variables"] = []any{map[string]any{"name": "name", "value": 7}}
			b["options"] = map[string]any{"print": map[string]any{"color": "yes"}}
			return b
		}, []string{"useType", "colour", "recipient.address.zip", "variables[0].value", "options.print.color"}},
		{"service rules", func() any {
			b := letterBody(assetID)
			b["recipient"].(map[string]any)["individual"] = map[string]any{"lastName": "Doe"}
			b["useType"] = "spam"
			return b
		}, []string{"recipient.individual.firstName", "useType"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ts.do(t, req{Method: "POST", Path: "/letters", Body: tt.body()}).problem(t, http.StatusBadRequest)
			p.wantFields(t, tt.fields...)
		})
	}
	var page lettershop.Page[lettershop.Letter]
	ts.get(t, "/letters").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 0 {
		t.Errorf("refused requests stored %d letters", len(page.Items))
	}
}

func TestValidationProblemGolden(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)

	// The service's rules, every broken one named.
	b := letterBody(assetID)
	b["recipient"].(map[string]any)["individual"] = map[string]any{"lastName": "Doe"}
	b["useType"] = "spam"
	b["variables"] = []map[string]any{{"name": "colour", "value": "red"}}
	res := ts.do(t, req{Method: "POST", Path: "/letters", Body: b})
	res.problem(t, http.StatusBadRequest)
	golden(t, "problem_validation", res.Body)

	// The body's shape is checked first: unknown fields and wrong types.
	b = letterBody(assetID)
	b["extra"] = true
	b["sendDate"] = 20260302
	b["sender"].(map[string]any)["address"] = "100 Main St, Springfield"
	res = ts.do(t, req{Method: "POST", Path: "/letters", Body: b})
	res.problem(t, http.StatusBadRequest)
	golden(t, "problem_shape", res.Body)
}

func TestBodyLimit(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	body, err := json.Marshal(letterBody(assetID))
	if err != nil {
		t.Fatal(err)
	}
	pad := func(n int) []byte { return append(append([]byte(nil), body...), strings.Repeat(" ", n-len(body))...) }

	ts.do(t, req{Method: "POST", Path: "/letters", Body: pad(httpadapter.MaxJSONBody)}).wantStatus(t, http.StatusCreated)
	p := ts.do(t, req{Method: "POST", Path: "/letters", Body: pad(httpadapter.MaxJSONBody + 1)}).problem(t, http.StatusRequestEntityTooLarge)
	if !strings.Contains(p.Detail, fmt.Sprint(httpadapter.MaxJSONBody)) {
		t.Errorf("413 detail %q does not say the limit", p.Detail)
	}
}

func TestUpdateLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)

	var got lettershop.Letter
	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{
		"description": "second try",
		"metadata":    []map[string]any{{"key": "team", "value": "north"}},
	}}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Description != "second try" || len(got.Metadata) != 1 || got.Metadata[0].Key != "team" {
		t.Errorf("updated letter: description %q metadata %v", got.Description, got.Metadata)
	}

	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{"metadata": map[string]any{"team": "north"}}}).
		problem(t, http.StatusBadRequest).wantFields(t, "metadata")
	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{"descriptio": "typo"}}).
		problem(t, http.StatusBadRequest).wantFields(t, "descriptio")

	ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel"}).wantStatus(t, http.StatusAccepted)
	p := ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{"useType": "marketing"}}).problem(t, http.StatusConflict)
	if p.Code != "conflict" {
		t.Errorf("conflict problem code %q", p.Code)
	}
	// Metadata can change at any time.
	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{"description": "canceled"}}).wantStatus(t, http.StatusOK)
}

func TestCancelLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)

	res := ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel"}).wantStatus(t, http.StatusAccepted)
	if len(res.Body) != 0 || res.Header.Get("Content-Type") != "" {
		t.Errorf("cancel answered a body: %q (%s)", res.Body, res.Header.Get("Content-Type"))
	}
	var got lettershop.Letter
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusCanceled {
		t.Errorf("status %q after cancel, want canceled", got.Status)
	}
	// Canceling again changes nothing and succeeds.
	ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel"}).wantStatus(t, http.StatusAccepted)
	ts.do(t, req{Method: "POST", Path: "/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz/cancel"}).problem(t, http.StatusNotFound)
}

func TestLetterPathIDs(t *testing.T) {
	ts := newTestServer(t)
	for _, r := range []req{
		{Method: "GET", Path: "/letters/%s"},
		{Method: "PUT", Path: "/letters/%s", Body: `{"description":"x"}`},
		{Method: "POST", Path: "/letters/%s/cancel"},
		{Method: "GET", Path: "/letters/%s/download"},
	} {
		for _, tt := range []struct {
			id     string
			status int
		}{
			{"ast_01abc", http.StatusBadRequest},
			{"ltr_", http.StatusBadRequest},
			{"ltr_01-abc", http.StatusBadRequest},
			{"ltr_01jzzzzzzzzzzzzzzzzzzzzzzz", http.StatusNotFound},
		} {
			r := r
			r.Path = fmt.Sprintf(r.Path, tt.id)
			t.Run(r.Method+" "+r.Path, func(t *testing.T) {
				p := ts.do(t, r).problem(t, tt.status)
				if tt.status == http.StatusBadRequest {
					p.wantFields(t, "id")
				}
			})
		}
	}
}

func TestListLettersFilters(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	var ids []string
	for i := range 4 {
		b := letterBody(assetID)
		b["externalId"] = fmt.Sprintf("order-%d", i%2)
		b["metadata"] = []map[string]any{{"key": "batch", "value": fmt.Sprint(i % 2)}, {"key": "team", "value": "north"}}
		var l lettershop.Letter
		ts.do(t, req{Method: "POST", Path: "/letters", Body: b}).wantStatus(t, http.StatusCreated).decode(t, &l)
		ids = append(ids, l.ID)
	}
	ts.do(t, req{Method: "POST", Path: "/letters/" + ids[3] + "/cancel"}).wantStatus(t, http.StatusAccepted)

	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{ids[3], ids[2], ids[1], ids[0]}},
		{"status=canceled", []string{ids[3]}},
		{"status=queued", []string{ids[2], ids[1], ids[0]}},
		{"externalId=order-1", []string{ids[3], ids[1]}},
		{"externalId=order%2D1", []string{ids[3], ids[1]}},
		{"metadata[batch]=0", []string{ids[2], ids[0]}},
		{"metadata[batch]=0&metadata[team]=north", []string{ids[2], ids[0]}},
		{"metadata[team]=south", nil},
		{"externalId=order-0&status=queued&includeCassDetails=true", []string{ids[2], ids[0]}},
		{"includeCassDetails=false", []string{ids[3], ids[2], ids[1], ids[0]}},
		{"includeCassDetails", []string{ids[3], ids[2], ids[1], ids[0]}},
		{"status=queued&includeCassDetails&externalId=order-0", []string{ids[2], ids[0]}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var page lettershop.Page[lettershop.Letter]
			ts.get(t, "/letters?"+tt.query).wantStatus(t, http.StatusOK).decode(t, &page)
			var got []string
			for _, l := range page.Items {
				got = append(got, l.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}

	bad := []struct {
		query string
		field string
	}{
		{"status=lost", "status"},
		{"status=", "status"},
		{"includeCassDetails=maybe", "includeCassDetails"},
		{"metadata[]=x", "metadata[]"},
		{"metadata[a]=1&metadata[a]=2", "metadata[a]"},
		{"pageSize=ten", "pageSize"},
		// A parameter that can not be decoded is named, not left out.
		{"metadata[discount]=50%", "metadata[discount]"},
		{"metadata%5Bteam%5D=north&status=queued%", "status"},
		{"externalId=order-1;status=queued", "externalId"},
		// A parameter of one value given twice is refused, not read in part.
		{"status=queued&status=canceled", "status"},
		{"externalId=order-0&externalId=order-1", "externalId"},
		{"includeCassDetails=true&includeCassDetails=false", "includeCassDetails"},
		{"pageSize=1&pageSize=500", "pageSize"},
		{"nextToken=a&nextToken=b", "nextToken"},
		// A parameter the list does not take, or a malformed filter, is
		// refused rather than ignored.
		{"pagesize=5", "pagesize"},
		{"colour=blue", "colour"},
		{"metadata=x", "metadata"},
		{"metadata", "metadata"},
		{"metadatas[a]=x", "metadatas[a]"},
		{"status=queued&includeArchived=true", "includeArchived"},
	}
	for _, tt := range bad {
		t.Run(tt.query, func(t *testing.T) {
			ts.get(t, "/letters?"+tt.query).problem(t, http.StatusBadRequest).wantFields(t, tt.field)
		})
	}
	// A tracking event asked for as a status is told where it is found.
	p := ts.get(t, "/letters?status=delivered").problem(t, http.StatusBadRequest)
	if msg := p.Errors["status"]; !strings.Contains(msg, "tracking event") || !strings.Contains(msg, "status=mailed") {
		t.Errorf("status=delivered: %q, want it told that delivered is a tracking event of a mailed letter", msg)
	}
	if msg := ts.get(t, "/letters?status=lost").problem(t, http.StatusBadRequest).Errors["status"]; strings.Contains(msg, "tracking event") {
		t.Errorf("status=lost: %q, told of tracking events", msg)
	}

	// As many filters as an object holds pairs are a filter; one more is
	// refused, as the Service refuses it from Go.
	filters := func(n int) string {
		q := make([]string, n)
		for i := range q {
			q[i] = fmt.Sprintf("metadata[k%d]=v", i)
		}
		return strings.Join(q, "&")
	}
	ts.get(t, "/letters?"+filters(lettershop.MaxMetadataPairs)).wantStatus(t, http.StatusOK)
	ts.get(t, "/letters?"+filters(lettershop.MaxMetadataPairs+1)).problem(t, http.StatusBadRequest).wantFields(t, "metadata")
	ts.get(t, "/assets?"+filters(lettershop.MaxMetadataPairs+1)).problem(t, http.StatusBadRequest).wantFields(t, "metadata")
}

func TestListCassDetails(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	b := letterBody(assetID)
	b["options"] = map[string]any{"addressProcessing": map[string]any{"cassRecipient": map[string]any{"type": "basic"}}}
	ts.do(t, req{Method: "POST", Path: "/letters", Body: b}).wantStatus(t, http.StatusCreated)

	var fetched lettershop.Letter
	var page lettershop.Page[lettershop.Letter]
	ts.get(t, "/letters").wantStatus(t, http.StatusOK).decode(t, &page)
	ts.get(t, "/letters/"+page.Items[0].ID).wantStatus(t, http.StatusOK).decode(t, &fetched)
	if fetched.Recipient.AddressAnalysis == nil {
		t.Fatal("a letter made with basic CASS has no addressAnalysis")
	}
	if page.Items[0].Recipient.AddressAnalysis != nil {
		t.Errorf("a list without includeCassDetails carries addressAnalysis")
	}
	ts.get(t, "/letters?includeCassDetails=true").wantStatus(t, http.StatusOK).decode(t, &page)
	if page.Items[0].Recipient.AddressAnalysis == nil {
		t.Errorf("a list with includeCassDetails=true lacks addressAnalysis")
	}

	// On the wire: left out of a list without the details, present with them.
	keys := func(path string) []string {
		var body struct {
			Items []struct {
				Recipient map[string]json.RawMessage `json:"recipient"`
			} `json:"items"`
		}
		ts.get(t, path).wantStatus(t, http.StatusOK).decode(t, &body)
		var out []string
		for k := range body.Items[0].Recipient {
			out = append(out, k)
		}
		return out
	}
	cass := []string{"addressAnalysis", "addressCorrections", "addressMetadata"}
	common := []string{"address", "individual", "organization", "nonAddressData", "addressComponents"}
	if diff := cmp.Diff(common, keys("/letters"), sortStrings); diff != "" {
		t.Errorf("recipient keys in a list (-want +got):\n%s", diff)
	}
	for _, q := range []string{"?includeCassDetails", "?includeCassDetails=true"} {
		if diff := cmp.Diff(append(common, cass...), keys("/letters"+q), sortStrings); diff != "" {
			t.Errorf("recipient keys in a list with %s (-want +got):\n%s", q, diff)
		}
	}
}

func TestPaginationWalk(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	var made []string
	for range 25 {
		made = append([]string{ts.createLetter(t, keyA, assetID).ID}, made...) // newest first
	}
	var walked []string
	var sizes []int
	query := url.Values{"pageSize": {"10"}, "metadata[campaign]": {"spring"}}
	for page := 0; ; page++ {
		if page > 5 {
			t.Fatal("the walk does not end")
		}
		var p lettershop.Page[lettershop.Letter]
		ts.get(t, "/v1/letters?"+query.Encode()).wantStatus(t, http.StatusOK).decode(t, &p)
		sizes = append(sizes, len(p.Items))
		for _, l := range p.Items {
			walked = append(walked, l.ID)
		}
		if p.NextToken == "" {
			break
		}
		query.Set("nextToken", p.NextToken)
	}
	if diff := cmp.Diff([]int{10, 10, 5}, sizes); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(made, walked); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}

	// The last page has no nextToken in its JSON at all.
	last := ts.get(t, "/letters?pageSize=100")
	if strings.Contains(string(last.Body), "nextToken") {
		t.Errorf("the only page carries nextToken")
	}
}

func TestPageSizeAndToken(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	ts.createLetter(t, keyA, assetID)
	ts.createLetter(t, keyA, assetID)
	for _, tt := range []struct {
		query  string
		status int
	}{
		{"pageSize=0", http.StatusBadRequest},
		{"pageSize=1", http.StatusOK},
		{"pageSize=100", http.StatusOK},
		{"pageSize=101", http.StatusBadRequest},
		{"pageSize=-1", http.StatusBadRequest},
	} {
		t.Run(tt.query, func(t *testing.T) {
			res := ts.get(t, "/letters?"+tt.query)
			if tt.status == http.StatusOK {
				res.wantStatus(t, http.StatusOK)
				return
			}
			res.problem(t, tt.status).wantFields(t, "pageSize")
		})
	}

	var p lettershop.Page[lettershop.Letter]
	ts.get(t, "/letters?pageSize=1").wantStatus(t, http.StatusOK).decode(t, &p)
	if p.NextToken == "" {
		t.Fatal("no nextToken on a first page of two")
	}
	tampered := []byte(p.NextToken)
	tampered[len(tampered)/2] ^= 1
	for name, path := range map[string]string{
		"tampered":           "/letters?pageSize=1&nextToken=" + url.QueryEscape(string(tampered)),
		"another filter":     "/letters?pageSize=1&status=queued&nextToken=" + url.QueryEscape(p.NextToken),
		"another list":       "/assets?pageSize=1&nextToken=" + url.QueryEscape(p.NextToken),
		"another account":    "",
		"not a token at all": "/letters?nextToken=%25%25%25",
	} {
		t.Run(name, func(t *testing.T) {
			r := req{Method: "GET", Path: path}
			if path == "" {
				r = req{Method: "GET", Path: "/letters?pageSize=1&nextToken=" + url.QueryEscape(p.NextToken), Header: hdr("X-Api-Key", keyB)}
			}
			ts.do(t, r).problem(t, http.StatusBadRequest).wantFields(t, "nextToken")
		})
	}
}

func TestLettersCrossAccount(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	b := hdr("X-Api-Key", keyB)
	ts.do(t, req{Method: "GET", Path: "/letters/" + l.ID, Header: b}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: `{"description":"mine"}`, Header: b}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel", Header: b}).problem(t, http.StatusNotFound)
	// Another account can not build letters from this account's asset either.
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: b}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.assetId")
	var page lettershop.Page[lettershop.Letter]
	ts.do(t, req{Method: "GET", Path: "/letters", Header: b}).wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 0 {
		t.Errorf("account B lists %d letters of account A", len(page.Items))
	}
	var got lettershop.Letter
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusQueued || got.Description != "" {
		t.Errorf("account B changed account A's letter: %q %q", got.Status, got.Description)
	}
}

func TestDownload(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)

	// The client must not follow the redirect: the 302 is what is checked.
	client := *ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hr, _ := http.NewRequest("GET", ts.URL+"/letters/"+l.ID+"/download", nil)
	hr.Header.Set("X-Api-Key", keyA)
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("download status %d, want 302", resp.StatusCode)
	}
	link, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || link.Path != "/files/letters/"+l.ID+".pdf" || link.Query().Get("signature") == "" {
		t.Fatalf("download Location %q, want a signed link to /files/letters/%s.pdf", resp.Header.Get("Location"), l.ID)
	}

	// The link works without an API key. A link followed from the PDF is
	// not sent it as its Referer: the signature is in the query.
	pdf := ts.do(t, req{Method: "GET", Path: link.RequestURI(), Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	if got := pdf.Header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("a signed link's PDF: Referrer-Policy %q, want no-referrer", got)
	}
	if ct := pdf.Header.Get("Content-Type"); ct != "application/pdf" || !strings.HasPrefix(string(pdf.Body), "%PDF-") {
		t.Errorf("link served %q starting %q, want a PDF", ct, pdf.Body[:min(8, len(pdf.Body))])
	}
	// A part given twice is a 400 naming it, whichever value comes first.
	for _, dup := range []string{"&expires=1", "&signature=AAAA", "&expires=" + link.Query().Get("expires")} {
		name := strings.TrimPrefix(strings.SplitN(dup, "=", 2)[0], "&")
		ts.do(t, req{Method: "GET", Path: link.RequestURI() + dup, Header: hdr("X-Api-Key", "")}).problem(t, http.StatusBadRequest).wantFields(t, name)
		ts.do(t, req{Method: "GET", Path: link.Path + "?" + dup[1:] + "&" + link.RawQuery, Header: hdr("X-Api-Key", "")}).problem(t, http.StatusBadRequest).wantFields(t, name)
	}
	// An altered link is refused.
	q := link.Query()
	q.Set("signature", strings.Repeat("0", len(q.Get("signature"))))
	ts.do(t, req{Method: "GET", Path: link.Path + "?" + q.Encode(), Header: hdr("X-Api-Key", "")}).problem(t, http.StatusForbidden)
	// An expired one too.
	ts.Clock.Add(24 * time.Hour)
	ts.do(t, req{Method: "GET", Path: link.RequestURI(), Header: hdr("X-Api-Key", "")}).problem(t, http.StatusForbidden)
}

// issueLetter makes a letter whose recipient fails the deliverability check.
func (ts *testServer) issueLetter(t testing.TB, assetID string) lettershop.Letter {
	t.Helper()
	b := letterBody(assetID)
	b["recipient"].(map[string]any)["address"] = map[string]any{"addressLine1": "5 Main St", "lastLine": "Boston CA 02108"}
	b["options"] = map[string]any{"addressProcessing": map[string]any{"cassRecipient": map[string]any{"type": "basic"}}}
	var l lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/letters", Body: b}).wantStatus(t, http.StatusCreated).decode(t, &l)
	if l.Status != lettershop.StatusIssue {
		t.Fatalf("status %s, want issue", l.Status)
	}
	return l
}

func TestFixIssueLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.issueLetter(t, assetID)

	// Another undeliverable recipient: still at issue, with the new message.
	var got lettershop.Letter
	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{"recipient": map[string]any{
		"individual": map[string]any{"firstName": "Jane", "lastName": "Doe"},
		"address":    map[string]any{"addressLine1": "undeliverable no match", "lastLine": "Springfield IL 62701"},
	}}}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusIssue || got.IssueMessage == l.IssueMessage {
		t.Errorf("after another bad recipient: %s %q", got.Status, got.IssueMessage)
	}

	ts.Clock.Add(time.Hour)
	got = lettershop.Letter{}
	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{"recipient": map[string]any{
		"individual": map[string]any{"firstName": "Jane", "lastName": "Doe"},
		"address":    map[string]any{"addressLine1": "residential house", "lastLine": "Springfield IL 62704"},
	}}}).wantStatus(t, http.StatusOK).decode(t, &got)
	last := got.Events[len(got.Events)-1]
	if got.Status != lettershop.StatusQueued || got.IssueMessage != "" || last.Status != "queued" || !last.Timestamp.Equal(ts.Clock.Now()) {
		t.Errorf("after a good recipient: %s %q, last event %+v", got.Status, got.IssueMessage, last)
	}
	ts.Clock.Add(5 * time.Minute)
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusReady {
		t.Errorf("five minutes after the fix: %s, want ready", got.Status)
	}
}

func TestCancelIssueLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.issueLetter(t, assetID)
	ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel"}).wantStatus(t, http.StatusAccepted)
	var got lettershop.Letter
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusCanceled {
		t.Errorf("status %s after cancel, want canceled", got.Status)
	}
	// A canceled letter can no longer be fixed.
	ts.do(t, req{Method: "PUT", Path: "/letters/" + l.ID, Body: map[string]any{"recipient": map[string]any{
		"individual": map[string]any{"firstName": "Jane", "lastName": "Doe"},
		"address":    map[string]any{"addressLine1": "residential house", "lastLine": "Springfield IL 62704"},
	}}}).problem(t, http.StatusConflict)
}

// TestLetterShowsEveryField checks a fetched letter carries every field of
// the specification's Letter, Party and Event tables, null where there is
// no value, and tracking details with an additionalData object on every
// event.
func TestLetterShowsEveryField(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	ts.do(t, req{Method: "POST", Path: "/_test/letters/" + l.ID + "/advance", Body: map[string]any{"event": "delivered"}}).wantStatus(t, http.StatusOK)

	var got map[string]any
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	keysOf := func(v any) []string {
		var out []string
		for k := range v.(map[string]any) {
			out = append(out, k)
		}
		return out
	}
	want := map[string][]string{
		"letter": {"id", "status", "sender", "recipient", "content", "useType", "events", "createdAt", "modifiedAt",
			"externalId", "sendDate", "description", "url", "variables", "options", "issueMessage", "metadata"},
		"sender":     {"address", "individual", "organization", "addressComponents", "addressAnalysis", "addressCorrections", "addressMetadata"},
		"recipient":  {"address", "individual", "organization", "nonAddressData", "addressComponents", "addressAnalysis", "addressCorrections", "addressMetadata"},
		"address":    {"addressLine1", "addressLine2", "lastLine"},
		"individual": {"fullName", "prefix", "firstName", "middleName", "lastName", "postfix", "title"},
		"components": {"cassType", "urbanization", "city", "state", "zipCode", "plus4Code"},
		"event": {"id", "createdAt", "modifiedAt", "timestamp", "type", "status", "trackingEventDetails",
			"description", "operationCode", "actionRequired", "location"},
		"details": {"notes", "facility", "facilityType", "facilityZip", "additionalData"},
		"options": {"print", "mail", "variableHandling", "addressProcessing", "deliverabilityThreshold", "deliverabilityValues"},
	}
	check := func(what string, v any) {
		t.Helper()
		if diff := cmp.Diff(want[what], keysOf(v), sortStrings); diff != "" {
			t.Errorf("%s keys (-want +got):\n%s", what, diff)
		}
	}
	check("letter", got)
	for _, p := range []string{"sender", "recipient"} {
		party := got[p].(map[string]any)
		check(p, party) // only a recipient has nonAddressData, as the reference shows
		check("address", party["address"])
		check("components", party["addressComponents"])
	}
	check("individual", got["recipient"].(map[string]any)["individual"])
	check("options", got["options"])
	if got["externalId"] != nil || got["issueMessage"] != nil || got["sender"].(map[string]any)["individual"] != nil {
		t.Errorf("fields without a value are not null: externalId %v, issueMessage %v", got["externalId"], got["issueMessage"])
	}
	if o := got["options"].(map[string]any); o["deliverabilityThreshold"] != "normal" ||
		o["addressProcessing"].(map[string]any)["ncoaRecipient"] != "none" {
		t.Errorf("effective options not shown: %v", o)
	}
	events := got["events"].([]any)
	types := map[string]bool{}
	for _, e := range events {
		e := e.(map[string]any)
		check("event", e)
		check("details", e["trackingEventDetails"])
		if _, ok := e["trackingEventDetails"].(map[string]any)["additionalData"].(map[string]any); !ok {
			t.Errorf("event %v: additionalData is not an object", e["status"])
		}
		types[e["type"].(string)] = true
	}
	if !types["status"] || !types["tracking"] {
		t.Errorf("events of types %v, want status and tracking", types)
	}
}

func TestLetterInputRules(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	var preset lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/assets/" + assetID + "/versions", Body: map[string]any{
		"content": map[string]any{"type": "text/html", "content": "<p>{{name}} {{sig}}</p>"},
		"variableDefinitions": []map[string]any{
			{"name": "name", "behavior": "required"},
			{"name": "sig", "behavior": "preset", "presetValue": "Acme"},
		},
		"publish": true,
	}}).wantStatus(t, http.StatusCreated).decode(t, &preset)
	tests := []struct {
		name   string
		change func(b map[string]any)
		fields []string
	}{
		{"null for a preset variable", func(b map[string]any) {
			b["variables"] = []any{map[string]any{"name": "name", "value": "Jane"}, map[string]any{"name": "sig", "value": nil}}
		}, nil},
		{"null for an undefined variable", func(b map[string]any) {
			b["variables"] = []any{map[string]any{"name": "name", "value": "Jane"}, map[string]any{"name": "ghost", "value": nil}}
		}, nil},
		{"a preset variable set", func(b map[string]any) {
			b["variables"] = []any{map[string]any{"name": "name", "value": "Jane"}, map[string]any{"name": "sig", "value": "Me"}}
		}, []string{"variables[sig]"}},
		{"last line and parts that agree", func(b map[string]any) {
			b["recipient"].(map[string]any)["address"] = map[string]any{"addressLine1": "200 Oak Ave", "lastLine": "Chicago, IL 60601", "city": "Chicago", "state": "IL", "zipCode": "60601"}
		}, nil},
		{"last line and parts that disagree", func(b map[string]any) {
			b["recipient"].(map[string]any)["address"] = map[string]any{"addressLine1": "200 Oak Ave", "lastLine": "Chicago, IL 60601", "zipCode": "60602"}
		}, []string{"recipient.address"}},
		{"extra services each once", func(b map[string]any) {
			b["options"] = map[string]any{"mail": map[string]any{"extraServices": []string{"acs", "certified"}}}
		}, nil},
		{"an extra service twice", func(b map[string]any) {
			b["options"] = map[string]any{"mail": map[string]any{"extraServices": []string{"acs", "acs"}}}
		}, []string{"options.mail.extraServices[1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := letterBody(assetID)
			b["content"] = map[string]any{"type": "asset", "assetId": assetID, "assetVersionId": preset.ID}
			tt.change(b)
			res := ts.do(t, req{Method: "POST", Path: "/letters", Body: b})
			if tt.fields == nil {
				res.wantStatus(t, http.StatusCreated)
				return
			}
			res.problem(t, http.StatusBadRequest).wantFields(t, tt.fields...)
		})
	}
}
