package httpadapter_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// pdfDoc makes a US Letter PDF document of pages pages, exactly size bytes
// long when size is not zero (padded with a comment in its content).
func pdfDoc(t testing.TB, pages, size int) []byte {
	t.Helper()
	make := func(pad int) []byte {
		p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
		when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		p.SetCreationDate(when)
		p.SetModificationDate(when)
		p.SetCompression(false)
		p.AddUTF8FontFromBytes("go", "", goregular.TTF)
		p.SetFont("go", "", 14)
		for i := 1; i <= pages; i++ {
			p.AddPage()
			p.Text(72, 400, fmt.Sprintf("Invoice page %d", i))
			if i == 1 && pad > 0 {
				p.RawWriteStr("%" + strings.Repeat("x", pad) + "\n")
			}
		}
		var b bytes.Buffer
		if err := p.Output(&b); err != nil {
			t.Fatalf("make PDF: %v", err)
		}
		return b.Bytes()
	}
	b := make(0)
	if size == 0 {
		return b
	}
	pad := size - len(b) - 2
	for range 5 {
		b = make(pad)
		if len(b) == size {
			return b
		}
		pad += size - len(b)
	}
	t.Fatalf("could not make a PDF of %d bytes (got %d)", size, len(b))
	return nil
}

// documentAsset makes a document asset with a draft version holding doc
// inline, and returns their ids.
func (ts *testServer) documentAsset(t testing.TB, doc []byte) (assetID, versionID string) {
	t.Helper()
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Invoice", "type": "document"}}).
		wantStatus(t, http.StatusCreated).decode(t, &a)
	var v lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: map[string]any{
		"content": map[string]any{"source": "inline", "type": "application/pdf", "content": base64.StdEncoding.EncodeToString(doc)},
	}}).wantStatus(t, http.StatusCreated).decode(t, &v)
	return a.ID, v.ID
}

func TestInlinePDFLimit(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Invoice", "type": "document"}}).
		wantStatus(t, http.StatusCreated).decode(t, &a)
	for _, tc := range []struct {
		size   int
		status int
	}{{lettershop.MaxInlineContent, http.StatusCreated}, {lettershop.MaxInlineContent + 1, http.StatusBadRequest}} {
		res := ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: map[string]any{
			"content": map[string]any{"type": "application/pdf", "content": base64.StdEncoding.EncodeToString(pdfDoc(t, 1, tc.size))},
		}})
		if tc.status == http.StatusCreated {
			res.wantStatus(t, http.StatusCreated)
			continue
		}
		res.problem(t, http.StatusBadRequest).wantFields(t, "content.content")
	}
}

func TestUploadPDF(t *testing.T) {
	ts := newTestServer(t)
	aid, vid := ts.documentAsset(t, pdfDoc(t, 1, 0))
	path := "/assets/" + aid + "/versions/" + vid + "/content"
	big := pdfDoc(t, 3, 300_000)

	var v lettershop.AssetVersion
	ts.do(t, req{Method: "PUT", Path: path, Body: big, Header: hdr("Content-Type", "application/pdf")}).
		wantStatus(t, http.StatusOK).decode(t, &v)
	if v.ContentLength != len(big) || v.Content.Type != "application/pdf" || v.Status != lettershop.VersionDraft {
		t.Fatalf("uploaded version %+v, want a draft of %d bytes of PDF", v, len(big))
	}
	// Content larger than inline content is shown by a fetch only; the
	// upload's answer and lists leave it to contentUrl.
	if v.Content.Content != "" {
		t.Errorf("the upload answered its %d bytes of content", v.ContentLength)
	}
	var fetched lettershop.AssetVersion
	ts.get(t, "/v1"+path[:len(path)-len("/content")]).wantStatus(t, http.StatusOK).decode(t, &fetched)
	if got, _ := base64.StdEncoding.DecodeString(fetched.Content.Content); !bytes.Equal(got, big) {
		t.Errorf("fetched content is not what was uploaded")
	}
	var page lettershop.Page[lettershop.AssetVersion]
	ts.get(t, "/assets/"+aid+"/versions").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Content.Content != "" || page.Items[0].ContentURL != fetched.ContentURL {
		t.Errorf("listed %+v, want the version without its big content", page.Items)
	}
	raw := ts.get(t, ts.located(t, fetched.ContentURL)).wantStatus(t, http.StatusOK)
	if !bytes.Equal(raw.Body, big) || raw.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("contentUrl answered %d bytes of %s, want the %d uploaded", len(raw.Body), raw.Header.Get("Content-Type"), len(big))
	}

	// Checked as inline content is.
	ts.do(t, req{Method: "PUT", Path: path, Body: big[:len(big)/2], Header: hdr("Content-Type", "application/pdf")}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.content")
	ts.do(t, req{Method: "PUT", Path: path, Body: pdfDoc(t, 7, 0), Header: hdr("Content-Type", "application/pdf")}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.content")
	ts.do(t, req{Method: "PUT", Path: path, Body: big, Header: hdr("Content-Type", "image/png")}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.type")
	ts.do(t, req{Method: "PUT", Path: path, Body: big, Header: hdr("Content-Type", "")}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.type")

	// A PDF letter, downloaded: every call a new link, the same bytes.
	ts.do(t, req{Method: "POST", Path: "/assets/" + aid + "/versions/" + vid + "/publish"}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "PUT", Path: path, Body: big, Header: hdr("Content-Type", "application/pdf")}).
		problem(t, http.StatusConflict)
	body := letterBody(aid)
	delete(body, "variables")
	body["options"] = map[string]any{"print": map[string]any{"addressPlacement": "topFirstPage"}}
	var l lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/letters", Body: body}).wantStatus(t, http.StatusCreated).decode(t, &l)
	var links []string
	var first []byte
	client := *ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for range 3 {
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
		loc := resp.Header.Get("Location")
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		for _, seen := range links {
			if seen == loc {
				t.Fatalf("download gave the link %q twice", loc)
			}
		}
		links = append(links, loc)
		pdf := ts.do(t, req{Method: "GET", Path: u.RequestURI(), Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK).Body
		if first == nil {
			first = pdf
		} else if !bytes.Equal(pdf, first) {
			t.Fatal("two links to one letter served different bytes")
		}
	}
	if !bytes.Contains(first, []byte("/Count 3")) {
		t.Error("the topFirstPage letter does not have the document's three pages")
	}

	// Variables do not apply to a PDF.
	body["variables"] = []map[string]any{{"name": "name", "value": "Jane"}}
	ts.do(t, req{Method: "POST", Path: "/letters", Body: body}).problem(t, http.StatusBadRequest).wantFields(t, "variables")
	body["options"] = map[string]any{"variableHandling": map[string]any{"validationScope": "none"}}
	ts.do(t, req{Method: "POST", Path: "/letters", Body: body}).wantStatus(t, http.StatusCreated)
}

func TestUploadBodyLimit(t *testing.T) {
	ts := newTestServer(t)
	aid, vid := ts.documentAsset(t, pdfDoc(t, 1, 0))
	path := "/assets/" + aid + "/versions/" + vid + "/content"
	atLimit := pdfDoc(t, 1, httpadapter.MaxUploadBody)
	var v lettershop.AssetVersion
	ts.do(t, req{Method: "PUT", Path: path, Body: atLimit, Header: hdr("Content-Type", "application/pdf")}).
		wantStatus(t, http.StatusOK).decode(t, &v)
	if v.ContentLength != httpadapter.MaxUploadBody {
		t.Errorf("contentLength %d, want %d", v.ContentLength, httpadapter.MaxUploadBody)
	}
	over := append(atLimit, '\n')
	ts.do(t, req{Method: "PUT", Path: path, Body: over, Header: hdr("Content-Type", "application/pdf")}).
		problem(t, http.StatusRequestEntityTooLarge)
	// The large limit is that route's alone.
	ts.do(t, req{Method: "PUT", Path: "/assets/" + aid + "/versions/" + vid, Body: bytes.Repeat([]byte(" "), httpadapter.MaxVersionBody+1)}).
		problem(t, http.StatusRequestEntityTooLarge)
}

// An upload with two Content-Type headers is refused, naming content.type,
// whichever is first: the type the content is stored as is never one of
// two the server picked. One is taken, with its parameters.
func TestUploadTwoContentTypesRefused(t *testing.T) {
	ts := newTestServer(t)
	doc := pdfDoc(t, 1, 0)
	aid, vid := ts.documentAsset(t, doc)
	path := "/v1/assets/" + aid + "/versions/" + vid + "/content"
	put := func(types ...string) result {
		t.Helper()
		return ts.do(t, req{Method: "PUT", Path: path, Body: doc, Repeated: http.Header{"Content-Type": types}})
	}
	for _, types := range [][]string{{"application/pdf", "text/html"}, {"text/html", "application/pdf"}, {"application/pdf", "application/pdf"}} {
		put(types...).problem(t, http.StatusBadRequest).wantFields(t, "content.type")
	}
	put("application/pdf; charset=binary").wantStatus(t, http.StatusOK)
}
