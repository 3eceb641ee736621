package httpadapter_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// The request bodies the real service's reference documents for its
// version routes, written from what it shows: create and update take a
// whole version object, read-only fields and all, with values of a version
// of its own (an id of another version, a createdAt of 2023, a
// contentLength that does not match, a contentUrl on its host).
const (
	referenceVersion = `{
  "id": "astv_2jyk1xYhW4n0vVfHirU5eJeXsbw",
  "status": "draft",
  "notes": "Minor changes to the footer.",
  "content": {
    "source": "inline",
    "type": "text/html",
    "content": "<html><body>Hello {{firstName}}</body></html>"
  },
  "variableDefinitions": [
    {
      "name": "name",
      "behavior": "required",
      "allowEmpty": false
    }
  ],
  "contentType": "text/html",
  "contentLength": 100,
  "contentUrl": "https://api.posta.co/assets/astv_2jyk1xYhW4n0vVfHirU5eJeXsbw/content",
  "publish": false,
  "createdAt": "2023-06-07T12:34:56Z",
  "modifiedAt": "2023-06-07T12:34:56Z"
}`
	referenceClone = `{"notes": "Initial version.", "publish": false}`
)

// versionFields are the members of a version as the reference shows it,
// and assetId, which lettershop adds.
var versionFields = []string{"id", "assetId", "status", "notes", "content", "variableDefinitions", "contentType",
	"contentLength", "contentUrl", "publish", "createdAt", "modifiedAt"}

// wantVersionShape fails unless body is a version with exactly the
// reference's members, its content {source, type, content} holding text.
func wantVersionShape(t testing.TB, body []byte, text string) lettershop.AssetVersion {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("version %s: %v", body, err)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(versionFields))
	if !slices.Equal(got, want) {
		t.Errorf("version members %v, want %v", got, want)
	}
	var c map[string]string
	if err := json.Unmarshal(m["content"], &c); err != nil || len(c) != 3 || c["source"] == "" || c["type"] == "" || c["content"] != text {
		t.Errorf("content %s, want {source, type, content: %q}", m["content"], text)
	}
	var v lettershop.AssetVersion
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.ContentURL, testBaseURL+"/assets/"+v.ID+"/content") || v.ContentType != v.Content.Type ||
		v.Publish != (v.Status == lettershop.VersionPublished) {
		t.Errorf("version %s: contentUrl, contentType or publish wrong", body)
	}
	return v
}

// TestReferenceVersionBodies sends the reference's own request bodies to
// every version route, as a client written from the reference would, and
// checks each answer has the reference's shape (and, as every test here,
// the OpenAPI document's).
func TestReferenceVersionBodies(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/v1/assets", Body: `{"name":"Right to Cure","type":"template"}`}).
		wantStatus(t, http.StatusCreated).decode(t, &a)
	base := "/v1/assets/" + a.ID + "/versions"
	const hello = "<html><body>Hello {{firstName}}</body></html>"

	// Create: 201, the version, Location fetching it. The read-only fields
	// are the service's, not the example's.
	res := ts.do(t, req{Method: "POST", Path: base, Body: referenceVersion}).wantStatus(t, http.StatusCreated)
	v := wantVersionShape(t, res.Body, hello)
	if v.ID == "astv_2jyk1xYhW4n0vVfHirU5eJeXsbw" || v.Status != lettershop.VersionDraft || v.ContentLength != len(hello) ||
		!v.CreatedAt.Equal(testStart) || v.Notes != "Minor changes to the footer." || v.Publish {
		t.Errorf("created %+v, want a draft of its own", v)
	}
	loc := res.Header.Get("Location")
	if want := testBaseURL + base + "/" + v.ID; loc != want {
		t.Errorf("Location %q, want %q", loc, want)
	}
	fetched := ts.get(t, ts.located(t, loc)).wantStatus(t, http.StatusOK)
	if !bytes.Equal(fetched.Body, res.Body) {
		t.Errorf("Location fetched\n%s\nwant the version created\n%s", fetched.Body, res.Body)
	}

	// Get and list: the same object, content included.
	wantVersionShape(t, ts.get(t, base+"/"+v.ID).wantStatus(t, http.StatusOK).Body, hello)
	var page struct{ Items []json.RawMessage }
	ts.get(t, base).wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 1 || !bytes.Equal(append(bytes.Clone(page.Items[0]), '\n'), res.Body) {
		t.Errorf("listed %s, want the version as created", page.Items)
	}

	// Update with the reference's body, new content in it: 202, no body.
	ts.Clock.Add(time.Second)
	update := strings.Replace(referenceVersion, "Hello {{firstName}}", "Goodbye {{firstName}}", 1)
	upd := ts.do(t, req{Method: "PUT", Path: base + "/" + v.ID, Body: update}).wantStatus(t, http.StatusAccepted)
	if len(upd.Body) != 0 {
		t.Errorf("update answered %q", upd.Body)
	}
	const goodbye = "<html><body>Goodbye {{firstName}}</body></html>"
	u := wantVersionShape(t, ts.get(t, base+"/"+v.ID).wantStatus(t, http.StatusOK).Body, goodbye)
	if u.ID != v.ID || !u.CreatedAt.Equal(v.CreatedAt) || u.ContentLength != len(goodbye) || u.Status != lettershop.VersionDraft {
		t.Errorf("updated %+v", u)
	}

	// Clone with the reference's body: 200, the new draft.
	cl := ts.do(t, req{Method: "POST", Path: base + "/" + v.ID + "/clone", Body: referenceClone}).wantStatus(t, http.StatusOK)
	c := wantVersionShape(t, cl.Body, goodbye)
	if c.ID == v.ID || c.Status != lettershop.VersionDraft || c.Notes != "Initial version." {
		t.Errorf("clone %+v", c)
	}

	// Archive and delete, without bodies: 202 and 204.
	arch := ts.do(t, req{Method: "POST", Path: base + "/" + c.ID + "/archive"}).wantStatus(t, http.StatusAccepted)
	if len(arch.Body) != 0 {
		t.Errorf("archive answered %q", arch.Body)
	}
	ts.do(t, req{Method: "DELETE", Path: base + "/" + c.ID}).wantStatus(t, http.StatusNoContent)

	// Publish (lettershop's own route) answers the same object.
	wantVersionShape(t, ts.do(t, req{Method: "POST", Path: base + "/" + v.ID + "/publish"}).wantStatus(t, http.StatusOK).Body, goodbye)

	// The reference's operations publish a draft already made by updating
	// it with the version's own "publish": true: its update body, sent so,
	// publishes the draft and archives the version published before.
	d := wantVersionShape(t, ts.do(t, req{Method: "POST", Path: base, Body: referenceVersion}).wantStatus(t, http.StatusCreated).Body, hello)
	ts.do(t, req{Method: "PUT", Path: base + "/" + d.ID, Body: strings.Replace(referenceVersion, `"publish": false`, `"publish": true`, 1)}).
		wantStatus(t, http.StatusAccepted)
	if p := wantVersionShape(t, ts.get(t, base+"/"+d.ID).wantStatus(t, http.StatusOK).Body, hello); p.Status != lettershop.VersionPublished || !p.Publish {
		t.Errorf("a draft updated with publish true: %+v", p)
	}
	if o := wantVersionShape(t, ts.get(t, base+"/"+v.ID).wantStatus(t, http.StatusOK).Body, goodbye); o.Status != lettershop.VersionArchived {
		t.Errorf("the version published before is %s, want archived", o.Status)
	}

	// A name the reference does not know is still a 400.
	ts.do(t, req{Method: "POST", Path: base, Body: strings.Replace(referenceVersion, `"publish"`, `"publishd"`, 1)}).
		problem(t, http.StatusBadRequest).wantFields(t, "publishd")
	ts.do(t, req{Method: "PUT", Path: base + "/" + v.ID, Body: `{"notes":"n","content":{"content":"<p>x</p>","encoding":"utf8"}}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.encoding")
	// Read-only fields are ignored whatever they hold, not whatever they
	// are: a value of the wrong type is still a 400 naming it.
	ts.do(t, req{Method: "POST", Path: base, Body: strings.Replace(referenceVersion, `"contentLength": 100`, `"contentLength": "100"`, 1)}).
		problem(t, http.StatusBadRequest).wantFields(t, "contentLength")
}

// TestVersionContentForm covers content.content, its former name data,
// and the sources.
func TestVersionContentForm(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"T"}`}).wantStatus(t, http.StatusCreated).decode(t, &a)
	base := "/assets/" + a.ID + "/versions"

	// The former name is read; the answer says content.
	res := ts.do(t, req{Method: "POST", Path: base, Body: `{"content":{"type":"text/html","data":"<p>old</p>"}}`}).wantStatus(t, http.StatusCreated)
	if strings.Contains(string(res.Body), `"data"`) {
		t.Errorf("an answer shows data: %s", res.Body)
	}
	wantVersionShape(t, res.Body, "<p>old</p>")
	for _, tt := range []struct {
		body   string
		fields []string
	}{
		{`{"content":{"content":"<p>a</p>","data":"<p>a</p>"}}`, []string{"content.data"}},
		{`{"content":{"source":"import","content":"ftp://127.0.0.1/t.html"}}`, []string{"content.content"}},
		{`{"content":{"source":"externalUrl","content":"http://169.254.169.254/t.html"}}`, []string{"content.content"}},
		{`{"content":{"source":"ftp","content":"<p>a</p>"}}`, []string{"content.source"}},
		{`{"content":{"type":"text/plain"}}`, []string{"content.type"}},
		{`{"content":{"type":"text/html"},"publish":true}`, []string{"content"}},
		{`{"content":{"source":"import"}}`, []string{"content.content"}},
		{`{"content":{"content":7}}`, []string{"content.content"}},
	} {
		ts.do(t, req{Method: "POST", Path: base, Body: tt.body}).problem(t, http.StatusBadRequest).wantFields(t, tt.fields...)
	}
}

// TestVersionContentRoute serves a version's content as itself at its
// contentUrl, bare and under /v1, to its own account only.
func TestVersionContentRoute(t *testing.T) {
	ts := newTestServer(t)
	_, vid := ts.createAsset(t, keyA)
	var img lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"Logo","type":"image"}`}).wantStatus(t, http.StatusCreated).decode(t, &img)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 30, 10))); err != nil {
		t.Fatal(err)
	}
	var iv lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/assets/" + img.ID + "/versions", Body: map[string]any{
		"content": map[string]any{"type": "image/png", "content": base64.StdEncoding.EncodeToString(buf.Bytes())},
	}}).wantStatus(t, http.StatusCreated).decode(t, &iv)

	for _, tt := range []struct {
		id, mime string
		body     []byte
	}{{vid, "text/html", []byte(testTemplate)}, {iv.ID, "image/png", buf.Bytes()}} {
		for _, prefix := range []string{"", "/v1"} {
			res := ts.get(t, prefix+"/assets/"+tt.id+"/content").wantStatus(t, http.StatusOK)
			if !bytes.Equal(res.Body, tt.body) || res.Header.Get("Content-Type") != tt.mime ||
				res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("X-Rate-Limit-Limit") == "" {
				t.Errorf("%s%s: %s, %d bytes, headers %v", prefix, tt.id, res.Header.Get("Content-Type"), len(res.Body), res.Header)
			}
		}
	}
	// HEAD answers the headers alone.
	head := ts.do(t, req{Method: "HEAD", Path: "/assets/" + iv.ID + "/content"}).wantStatus(t, http.StatusOK)
	if len(head.Body) != 0 || head.Header.Get("Content-Type") != "image/png" {
		t.Errorf("HEAD: %q %q", head.Body, head.Header.Get("Content-Type"))
	}
	// Another account's version is not found; so is an unknown one.
	ts.do(t, req{Method: "GET", Path: "/assets/" + vid + "/content", Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)
	ts.get(t, "/assets/astv_01jzzzzzzzzzzzzzzzzzzzzzzz/content").problem(t, http.StatusNotFound)
	// An asset's id is not a version's.
	ts.get(t, "/assets/ast_01jzzzzzzzzzzzzzzzzzzzzzzz/content").problem(t, http.StatusBadRequest).wantFields(t, "versionId")
	ts.do(t, req{Method: "GET", Path: "/assets/" + vid + "/content", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusUnauthorized)
	ts.do(t, req{Method: "PUT", Path: "/assets/" + vid + "/content"}).problem(t, http.StatusMethodNotAllowed)
	// A deleted version's content is gone with it.
	var v lettershop.AssetVersion
	ts.get(t, "/assets/"+img.ID+"/versions/"+iv.ID).wantStatus(t, http.StatusOK).decode(t, &v)
	ts.do(t, req{Method: "DELETE", Path: "/assets/" + img.ID + "/versions/" + iv.ID}).wantStatus(t, http.StatusNoContent)
	ts.get(t, ts.located(t, v.ContentURL)).problem(t, http.StatusNotFound)
}

// TestVersionNotesLimit holds notes to 255 characters on create, update
// and clone, on both sides of the limit.
func TestVersionNotesLimit(t *testing.T) {
	ts := newTestServer(t)
	aid, vid := ts.createAsset(t, keyA)
	base := "/assets/" + aid + "/versions"
	at, over := strings.Repeat("é", lettershop.MaxVersionNotes), strings.Repeat("é", lettershop.MaxVersionNotes+1)
	body := templateBody()
	delete(body, "publish")
	body["notes"] = at
	var d lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: base, Body: body}).wantStatus(t, http.StatusCreated).decode(t, &d)
	body["notes"] = over
	ts.do(t, req{Method: "POST", Path: base, Body: body}).problem(t, http.StatusBadRequest).wantFields(t, "notes")
	for _, id := range []string{d.ID, vid} { // a draft and the published version
		ts.do(t, req{Method: "PUT", Path: base + "/" + id, Body: map[string]any{"notes": at}}).wantStatus(t, http.StatusAccepted)
		ts.do(t, req{Method: "PUT", Path: base + "/" + id, Body: map[string]any{"notes": over}}).problem(t, http.StatusBadRequest).wantFields(t, "notes")
	}
	ts.do(t, req{Method: "POST", Path: base + "/" + vid + "/clone", Body: map[string]any{"notes": at}}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "POST", Path: base + "/" + vid + "/clone", Body: map[string]any{"notes": over}}).problem(t, http.StatusBadRequest).wantFields(t, "notes")
}

// TestLocationIsAbsolute checks every 201 names the absolute URL that
// fetches what it made: on the base URL, or else on the address the request
// came to.
func TestLocationIsAbsolute(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []testOption
	}{
		{"with a base URL", nil},
		{"without", []testOption{withService(lettershop.WithBaseURL(""))}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, tt.opts...)
			origin := testBaseURL
			if tt.opts != nil {
				origin = ts.URL
			}
			aid, _ := ts.createAsset(t, keyA)
			sink := newHookSink(t)
			for _, tt := range []struct {
				r    req
				want func(id string) string
			}{
				{req{Method: "POST", Path: "/assets", Body: `{"name":"A"}`}, func(id string) string { return "/assets/" + id }},
				{req{Method: "POST", Path: "/v1/assets/" + aid + "/versions", Body: templateBody()},
					func(id string) string { return "/v1/assets/" + aid + "/versions/" + id }},
				{req{Method: "POST", Path: "/letters", Body: letterBody(aid)}, func(id string) string { return "/letters/" + id }},
				{req{Method: "POST", Path: "/v1/webhooks", Body: map[string]any{"url": sink.URL, "events": []string{"letter.created"}}},
					func(id string) string { return "/v1/webhooks/" + id }},
			} {
				res := ts.do(t, tt.r).wantStatus(t, http.StatusCreated)
				var made struct{ ID string }
				res.decode(t, &made)
				if loc, want := res.Header.Get("Location"), origin+tt.want(made.ID); loc != want {
					t.Errorf("%s %s: Location %q, want %q", tt.r.Method, tt.r.Path, loc, want)
				}
				ts.get(t, tt.want(made.ID)).wantStatus(t, http.StatusOK)
			}
		})
	}
}

// TestProblemTypes checks the type of each status's problem is the URI of
// its RFC section, the code the short name.
func TestProblemTypes(t *testing.T) {
	const rfc = "https://datatracker.ietf.org/doc/html/"
	for status, want := range map[int]string{
		400: rfc + "rfc9110#section-15.5.1", 401: rfc + "rfc9110#section-15.5.2", 403: rfc + "rfc9110#section-15.5.4",
		404: rfc + "rfc9110#section-15.5.5", 405: rfc + "rfc9110#section-15.5.6", 408: rfc + "rfc9110#section-15.5.9",
		409: rfc + "rfc9110#section-15.5.10", 417: rfc + "rfc9110#section-15.5.18", 413: rfc + "rfc9110#section-15.5.14", 422: rfc + "rfc9110#section-15.5.21",
		429: rfc + "rfc6585#section-4", 431: rfc + "rfc6585#section-5", 500: rfc + "rfc9110#section-15.6.1",
		501: rfc + "rfc9110#section-15.6.2", 502: rfc + "rfc9110#section-15.6.3", 503: rfc + "rfc9110#section-15.6.4",
		504: rfc + "rfc9110#section-15.6.5", 505: rfc + "rfc9110#section-15.6.6",
		// Statuses without a section of their own take their class's.
		418: rfc + "rfc9110#section-15.5", 599: rfc + "rfc9110#section-15.6",
	} {
		if got := httpadapter.ProblemType(status); got != want {
			t.Errorf("ProblemType(%d) = %q, want %q", status, got, want)
		}
	}

	// Through the handler: the reference's 400 example, and others.
	ts := newTestServer(t)
	p := ts.do(t, req{Method: "POST", Path: "/letters", Body: `{}`}).problem(t, http.StatusBadRequest)
	if p.Type != "https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.1" || p.Code != "invalid-request" {
		t.Errorf("400: type %q code %q", p.Type, p.Code)
	}
	for _, tt := range []struct {
		r      req
		status int
		code   string
	}{
		{req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "")}, 401, "unauthorized"},
		{req{Method: "GET", Path: "/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz"}, 404, "not-found"},
		{req{Method: "PATCH", Path: "/letters"}, 405, "method-not-allowed"},
		{req{Method: "POST", Path: "/assets", Body: strings.Repeat(" ", httpadapter.MaxJSONBody+1)}, 413, "body-too-large"},
	} {
		if p := ts.do(t, tt.r).problem(t, tt.status); p.Code != tt.code {
			t.Errorf("%s %s: code %q, want %q", tt.r.Method, tt.r.Path, p.Code, tt.code)
		}
	}
}

// TestRateLimitHeadersOnlyWhereCounted: answers no key's limit counted
// carry neither name of the headers.
func TestRateLimitHeadersOnlyWhereCounted(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(2, time.Minute)), mounted(fromAddress))
	none := func(name string, res result) {
		t.Helper()
		for _, h := range []string{"X-Rate-Limit-Limit", "X-Rate-Limit-Remaining", "X-Rate-Limit-Reset", "P-RateLimit-Limit"} {
			if v := res.Header.Get(h); v != "" {
				t.Errorf("%s (%d): %s %q", name, res.Status, h, v)
			}
		}
	}
	none("no key", ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "")}))
	none("an unknown key", ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_live_nope")}))
	none("health", ts.get(t, "/healthz"))
	// A key's last request in its window, and the first over it.
	last := ts.get(t, "/letters")
	ts.get(t, "/letters").wantStatus(t, http.StatusOK)
	over := ts.get(t, "/letters")
	over.problem(t, http.StatusTooManyRequests)
	for name, res := range map[string]result{"first": last, "over": over} {
		if h := rateOf(res); h.limit != "2" || h.mismatch != "" {
			t.Errorf("%s: %+v", name, h)
		}
	}
	if h := rateOf(over); h.remaining != "0" || h.reset != testStart.Add(time.Minute).Format(time.RFC3339) {
		t.Errorf("over the limit: %+v", h)
	}
	// The limit of a client address, which no key reached.
	for i := range 40 {
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_test_many"+string(rune('a'+i/2)), "X-Test-Remote", "10.0.0.9")})
	}
	addr := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_test_manya", "X-Test-Remote", "10.0.0.9")})
	addr.problem(t, http.StatusTooManyRequests)
	none("an address over its limit", addr)
}

// TestVersionContentLater walks a version whose content comes after it is
// made, as the reference allows: created without content, it shows empty
// content and its contentUrl answers no bytes; publishing it is a 409 until
// an update gives it content.
func TestVersionContentLater(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"T"}`}).wantStatus(t, http.StatusCreated).decode(t, &a)
	base := "/assets/" + a.ID + "/versions"
	res := ts.do(t, req{Method: "POST", Path: base, Body: `{"notes":"content to come"}`}).wantStatus(t, http.StatusCreated)
	v := wantVersionShape(t, res.Body, "")
	if v.Status != lettershop.VersionDraft || v.ContentLength != 0 || v.Content.Type != "text/html" || v.Content.Source != "inline" {
		t.Errorf("version made without content: %s", res.Body)
	}
	content := ts.do(t, req{Method: "GET", Path: "/assets/" + v.ID + "/content"}).wantStatus(t, http.StatusOK)
	if len(content.Body) != 0 || content.Header.Get("Content-Type") != "text/html" {
		t.Errorf("its content: %q, %s; want no bytes of text/html", content.Body, content.Header.Get("Content-Type"))
	}
	ts.do(t, req{Method: "POST", Path: base + "/" + v.ID + "/publish"}).problem(t, http.StatusConflict)
	ts.do(t, req{Method: "PUT", Path: base + "/" + v.ID, Body: res.Body}).wantStatus(t, http.StatusAccepted)
	ts.do(t, req{Method: "PUT", Path: base + "/" + v.ID, Body: `{"content":{"type":"text/html","content":"<p>now</p>"}}`}).wantStatus(t, http.StatusAccepted)
	wantVersionShape(t, ts.do(t, req{Method: "POST", Path: base + "/" + v.ID + "/publish"}).wantStatus(t, http.StatusOK).Body, "<p>now</p>")
}

// referenceLetter is the request body of the reference's create-letter
// example as it shows it, placeholders and all; ASSET stands for an asset
// of the account's own.
const referenceLetter = `{
"sender": {
"address": {
"addressLine1": "1900 Reston Metro Plz",
"urbanization": "<string>",
"addressLine2": "Ste 600",
"city": "Reston",
"state": "VA",
"zipCode": "20190",
"plus4Code": "5952"
},
"individual": {
"fullName": "TODO",
"prefix": "TODO",
"firstName": "TODO",
"middleName": "TODO",
"lastName": "TODO",
"postfix": "TODO",
"title": "TODO"
},
"organization": "Veezla, Inc."
},
"recipient": {
"address": {
"addressLine1": "1900 Reston Metro Plz",
"urbanization": "<string>",
"addressLine2": "Ste 600",
"city": "Reston",
"state": "VA",
"zipCode": "20190",
"plus4Code": "5952"
},
"nonAddressData": "<string>",
"individual": {
"fullName": "TODO",
"prefix": "TODO",
"firstName": "TODO",
"middleName": "TODO",
"lastName": "TODO",
"postfix": "TODO",
"title": "TODO"
},
"organization": "Posta Customer, Inc."
},
"content": {
"type": "asset",
"assetId": "ASSET"
},
"useType": "marketing"
}`

// members fails unless the JSON object obj has every one of want.
func members(t testing.TB, what string, obj json.RawMessage, want ...string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatalf("%s %s: %v", what, obj, err)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %s: %s", what, k, obj)
		}
	}
	return m
}

// wantReferenceLetter fails unless body is a letter with every member
// the reference's letter examples show, in the shapes they show.
func wantReferenceLetter(t testing.TB, body []byte) map[string]json.RawMessage {
	t.Helper()
	l := members(t, "letter", body, "id", "status", "sender", "recipient", "content", "useType", "events", "createdAt",
		"modifiedAt", "externalId", "sendDate", "description", "url", "variables", "options", "issueMessage", "metadata")
	for _, role := range []string{"sender", "recipient"} {
		p := members(t, role, l[role], "address", "individual", "organization", "addressComponents")
		members(t, role+".address", p["address"], "addressLine1", "addressLine2", "lastLine")
		members(t, role+".individual", p["individual"], "fullName", "prefix", "firstName", "middleName", "lastName", "postfix", "title")
		members(t, role+".addressComponents", p["addressComponents"], "cassType", "urbanization", "city", "state", "zipCode", "plus4Code")
	}
	members(t, "recipient", l["recipient"], "nonAddressData")
	// Every example the reference shows has a sender without it.
	if s := members(t, "sender", l["sender"]); s["nonAddressData"] != nil {
		t.Errorf("the sender has nonAddressData: %s", l["sender"])
	}
	members(t, "content", l["content"], "type", "assetId", "assetVersionId")
	var events []json.RawMessage
	if err := json.Unmarshal(l["events"], &events); err != nil || len(events) == 0 {
		t.Fatalf("events %s", l["events"])
	}
	e := members(t, "event", events[0], "id", "createdAt", "modifiedAt", "timestamp", "type", "status", "trackingEventDetails",
		"description", "operationCode", "actionRequired", "location")
	members(t, "trackingEventDetails", e["trackingEventDetails"], "notes", "facility", "facilityType", "facilityZip", "additionalData")
	return l
}

// TestReferenceLetterBodies sends the reference's letter examples as a
// client written from it would: its create example verbatim, the list and
// the paging of its pagination guide, a letter fetched and sent back as an
// update, its metadata example, and its cancel.
func TestReferenceLetterBodies(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"Right to Cure","type":"template","description":"A legal document that a mortgage lender sends to a borrower who has fallen behind on their payments."}`}).
		wantStatus(t, http.StatusCreated).decode(t, &a)
	version := strings.Replace(strings.Replace(referenceVersion, `"behavior": "required"`, `"behavior": "optional"`, 1), `"publish": false`, `"publish": true`, 1)
	ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: version}).wantStatus(t, http.StatusCreated)
	body := strings.Replace(referenceLetter, "ASSET", a.ID, 1)

	res := ts.do(t, req{Method: "POST", Path: "/letters", Body: body, Header: hdr("Idempotency-Key", "123e4567-e89b-12d3-a456-426614174000")}).
		wantStatus(t, http.StatusCreated)
	l := wantReferenceLetter(t, res.Body)
	var created lettershop.Letter
	res.decode(t, &created)
	if created.Status != lettershop.StatusQueued || created.Sender.Address.LastLine != "Reston, VA 20190-5952" ||
		created.Recipient.Organization != "Posta Customer, Inc." || created.Recipient.NonAddressData != "<string>" {
		t.Errorf("created %s", res.Body)
	}
	if loc := res.Header.Get("Location"); loc != testBaseURL+"/letters/"+created.ID {
		t.Errorf("Location %q", loc)
	}
	if string(l["metadata"]) != "[]" || string(l["events"]) == "[]" {
		t.Errorf("metadata %s, events %s", l["metadata"], l["events"])
	}
	fetched := ts.get(t, "/letters/"+created.ID).wantStatus(t, http.StatusOK)
	wantReferenceLetter(t, fetched.Body)

	// The metadata guide's example, on a letter made from the same body.
	withMeta := strings.Replace(body, `"useType": "marketing"`, `"useType": "marketing", "metadata": [{"key": "campaign", "value": "winter2024"},
		{"key": "salesforceId", "value": "0063i00000JrMehAAF"}, {"key": "costCenter", "value": "servicing"},
		{"key": "highPriority", "value": ""}, {"key": "compliance", "value": "PHI"}]`, 1)
	var second lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/letters", Body: withMeta}).wantStatus(t, http.StatusCreated).decode(t, &second)
	if len(second.Metadata) != 5 || second.Metadata[3].Key != "highPriority" || second.Metadata[3].Value != "" {
		t.Errorf("metadata %+v", second.Metadata)
	}

	// A letter fetched and sent back whole, with the list example's
	// externalId and description, is an update.
	var m map[string]any
	if err := json.Unmarshal(fetched.Body, &m); err != nil {
		t.Fatal(err)
	}
	m["externalId"], m["description"], m["sendDate"] = "0013i00002YyVvSAAV", "Compliance notice", "2026-12-25"
	upd := ts.do(t, req{Method: "PUT", Path: "/letters/" + created.ID, Body: m}).wantStatus(t, http.StatusOK)
	u := wantReferenceLetter(t, upd.Body)
	if string(u["externalId"]) != `"0013i00002YyVvSAAV"` || string(u["sendDate"]) != `"2026-12-25"` || string(u["description"]) != `"Compliance notice"` {
		t.Errorf("updated %s", upd.Body)
	}

	// The list example (a bare GET), and the pagination guide's walk under
	// /v1: pageSize first, then nextToken as given, until none comes.
	var page struct {
		Items     []json.RawMessage
		NextToken *string
	}
	ts.get(t, "/letters").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 2 || page.NextToken != nil {
		t.Fatalf("listed %d letters, nextToken %v", len(page.Items), page.NextToken)
	}
	for _, it := range page.Items {
		members(t, "item", it, "id", "status", "externalId", "sendDate", "description", "sender", "recipient")
	}
	var seen []string
	path := "/v1/letters?pageSize=1"
	for range 3 {
		var p struct {
			Items     []lettershop.Letter
			NextToken string
		}
		ts.get(t, path).wantStatus(t, http.StatusOK).decode(t, &p)
		for _, it := range p.Items {
			seen = append(seen, it.ID)
		}
		if p.NextToken == "" {
			break
		}
		path = "/v1/letters?pageSize=1&nextToken=" + p.NextToken
	}
	if !slices.Equal(seen, []string{second.ID, created.ID}) {
		t.Errorf("walked %v, want newest first %v", seen, []string{second.ID, created.ID})
	}

	// Cancel: 202, no body.
	if c := ts.do(t, req{Method: "POST", Path: "/letters/" + second.ID + "/cancel"}).wantStatus(t, http.StatusAccepted); len(c.Body) != 0 {
		t.Errorf("cancel answered %q", c.Body)
	}
}

// TestVersionContentTypeParameters reads content.type as the MIME type it
// is, as an upload's Content-Type is read: case and parameters aside
// (text/html; charset=utf-8 is what Go's http.DetectContentType says of
// HTML), on create and update, and a published version sent back so typed
// is no change. A type that is not one the asset holds, or does not parse,
// is still refused naming content.type.
func TestVersionContentTypeParameters(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"T"}`}).wantStatus(t, http.StatusCreated).decode(t, &a)
	base := "/assets/" + a.ID + "/versions"

	var drafts []lettershop.AssetVersion
	for _, typ := range []string{"text/html; charset=utf-8", "TEXT/HTML", " text/html ;charset=UTF-8"} {
		body := `{"content":{"type":"` + typ + `","content":"<p>a</p>"}}`
		var v lettershop.AssetVersion
		ts.do(t, req{Method: "POST", Path: base, Body: body}).wantStatus(t, http.StatusCreated).decode(t, &v)
		if v.Content.Type != lettershop.ContentHTML || v.ContentType != lettershop.ContentHTML {
			t.Errorf("created with type %q: %+v", typ, v)
		}
		drafts = append(drafts, v)
	}

	d := drafts[0]
	ts.do(t, req{Method: "PUT", Path: base + "/" + d.ID, Body: `{"content":{"type":"Text/HTML; charset=UTF-8","content":"<p>b</p>"}}`}).
		wantStatus(t, http.StatusAccepted)
	var got lettershop.AssetVersion
	ts.get(t, base+"/"+d.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Content.Type != lettershop.ContentHTML || got.Content.Content != "<p>b</p>" {
		t.Errorf("updated: %+v", got.Content)
	}

	// A published version fetched and sent back, its type so written and
	// its notes changed: only the notes change.
	ts.do(t, req{Method: "POST", Path: base + "/" + d.ID + "/publish"}).wantStatus(t, http.StatusOK)
	var m map[string]any
	if err := json.Unmarshal(ts.get(t, base+"/"+d.ID).wantStatus(t, http.StatusOK).Body, &m); err != nil {
		t.Fatal(err)
	}
	m["content"].(map[string]any)["type"] = "text/html; charset=utf-8"
	m["notes"] = "sent back"
	ts.do(t, req{Method: "PUT", Path: base + "/" + d.ID, Body: m}).wantStatus(t, http.StatusAccepted)
	ts.get(t, base+"/"+d.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Notes != "sent back" || got.Status != lettershop.VersionPublished || got.Content.Type != lettershop.ContentHTML {
		t.Errorf("published version sent back: %+v", got)
	}

	for _, typ := range []string{"text/plain; charset=utf-8", "text/html; charset", "text/html/x", "text/htm"} {
		body := `{"content":{"type":"` + typ + `","content":"<p>a</p>"}}`
		ts.do(t, req{Method: "POST", Path: base, Body: body}).problem(t, http.StatusBadRequest).wantFields(t, "content.type")
		ts.do(t, req{Method: "PUT", Path: base + "/" + drafts[1].ID, Body: body}).problem(t, http.StatusBadRequest).wantFields(t, "content.type")
	}
}
