package lettershop_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/pdftest"
	"github.com/lettershop/lettershop/render"
)

// fileServer is a host on loopback serving files, counting the requests
// for each. Down, it takes connections and drops them without an answer.
type fileServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string]servedFile
	asked map[string]int
	down  bool
}

type servedFile struct {
	body []byte
	typ  string // "" sends no Content-Type at all
}

func newFileServer(t testing.TB) *fileServer {
	t.Helper()
	fs := &fileServer{files: map[string]servedFile{}, asked: map[string]int{}}
	fs.srv = httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(fs.srv.Close)
	return fs
}

func (fs *fileServer) serve(w http.ResponseWriter, r *http.Request) {
	fs.mu.Lock()
	f, ok := fs.files[r.URL.Path]
	fs.asked[r.URL.Path]++
	down := fs.down
	fs.mu.Unlock()
	if down {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	if f.typ == "" {
		w.Header()["Content-Type"] = nil // no type, and none sniffed
	} else {
		w.Header().Set("Content-Type", f.typ)
	}
	_, _ = w.Write(f.body)
}

func (fs *fileServer) put(path string, body []byte, typ string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.files[path] = servedFile{body, typ}
}

func (fs *fileServer) setDown(down bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.down = down
}

func (fs *fileServer) count(path string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.asked[path]
}

func (fs *fileServer) url(path string) string { return fs.srv.URL + path }

// closedURL is a URL on loopback where nothing listens.
func closedURL(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL + "/gone.html"
	srv.Close()
	return u
}

// htmlOf is an HTML template of exactly n bytes.
func htmlOf(n int) []byte { return []byte("<p>" + strings.Repeat("x", n-7) + "</p>") }

func decodeB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// makeAsset makes an asset of type typ.
func (e *env) makeAsset(t testing.TB, typ lettershop.AssetType) *lettershop.Asset {
	t.Helper()
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: string(typ), Type: typ})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestImportContent(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	tpl := e.makeAsset(t, lettershop.AssetTemplate)

	// The content is downloaded once and kept: the version shows it as
	// inline content is shown, and no longer depends on the URL.
	const html = `<p>Dear {{name}}, this came from afar.</p>`
	fs.put("/t.html", []byte(html), "text/html; charset=utf-8")
	v, err := e.svc.CreateVersion(e.ctx, acct, tpl.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Source: lettershop.ContentImport, Type: "text/html", Content: fs.url("/t.html")},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name"}},
		Publish:             true,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := lettershop.VersionContent{Source: lettershop.ContentImport, Type: "text/html", Content: html}
	if v.Content != want || v.ContentLength != len(html) {
		t.Fatalf("created: %+v, %d bytes; want %+v, %d bytes", v.Content, v.ContentLength, want, len(html))
	}
	fs.put("/t.html", []byte("<p>Changed since</p>"), "text/html")
	fs.setDown(true)
	got, err := e.svc.GetVersion(e.ctx, acct, tpl.ID, v.ID)
	if err != nil || got.Content != want {
		t.Fatalf("fetched: %+v, %v; want %+v", got.Content, err, want)
	}
	if _, data, err := e.svc.GetVersionContent(e.ctx, acct, v.ID); err != nil || string(data) != html {
		t.Fatalf("GetVersionContent: %q, %v; want the bytes imported", data, err)
	}
	if n := fs.count("/t.html"); n != 1 {
		t.Errorf("the URL was asked %d times, want once", n)
	}
	fs.setDown(false)

	// A letter prints the imported bytes, and never fetches them.
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(tpl.ID))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(48 * time.Hour)
	pdf, err := e.svc.RenderLetter(e.ctx, acct, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(pdftest.Read(t, pdf).Pages, "\n"); !strings.Contains(text, "Dear Jane, this came from afar.") {
		t.Errorf("the letter prints %q, want the imported template", text)
	}
	if got, _ := e.svc.GetLetter(e.ctx, acct, l.ID); got.Status != lettershop.StatusInProduction {
		t.Errorf("letter %s, want inProduction", got.Status)
	}
	if n := fs.count("/t.html"); n != 1 {
		t.Errorf("the URL was asked %d times, want once", n)
	}

	// Sent back as fetched, the version is unchanged; a draft takes a new
	// import.
	draft, err := e.svc.CreateVersion(e.ctx, acct, tpl.ID, lettershop.CreateVersionInput{Content: &lettershop.VersionContent{Content: "<p>first</p>"}})
	if err != nil {
		t.Fatal(err)
	}
	up, err := e.svc.UpdateVersion(e.ctx, acct, tpl.ID, draft.ID, lettershop.UpdateVersionInput{
		Content: &lettershop.VersionContent{Source: lettershop.ContentImport, Content: fs.url("/t.html")},
	})
	if err != nil || up.Content.Content != "<p>Changed since</p>" || up.Content.Source != lettershop.ContentImport {
		t.Fatalf("update by import: %+v, %v", up, err)
	}
	e.clock.Add(time.Minute)
	again, err := e.svc.UpdateVersion(e.ctx, acct, tpl.ID, draft.ID, lettershop.UpdateVersionInput{Content: &up.Content})
	if err != nil || !again.ModifiedAt.Equal(up.ModifiedAt) {
		t.Errorf("sent back as fetched: modified %v, was %v (%v); want no change", again.ModifiedAt, up.ModifiedAt, err)
	}
	if n := fs.count("/t.html"); n != 2 {
		t.Errorf("the URL was asked %d times, want twice", n)
	}
}

// Imported content is checked as inline content is, up to the 10 MiB an
// upload takes; content refused leaves nothing stored.
func TestImportContentChecks(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	assets := map[lettershop.AssetType]*lettershop.Asset{}
	for _, typ := range []lettershop.AssetType{lettershop.AssetTemplate, lettershop.AssetImage, lettershop.AssetDocument} {
		assets[typ] = e.makeAsset(t, typ)
	}
	png := decodeB64(t, pdftest.PNG(t, 40, 20))
	jpeg := decodeB64(t, pdftest.JPEG(t, 40, 20))
	fs.put("/max.html", htmlOf(lettershop.MaxUploadContent), "text/html")
	fs.put("/maxtemplate.html", htmlOf(render.MaxTemplateBytes), "text/html")
	fs.put("/over.html", htmlOf(lettershop.MaxUploadContent+1), "text/html")
	fs.put("/big.html", htmlOf(lettershop.MaxInlineContent+1), "text/html")
	fs.put("/plain.html", []byte("<p>hi</p>"), "text/plain")
	fs.put("/untyped.html", []byte("<p>hi</p>"), "")
	fs.put("/script.html", []byte("<script>x()</script><p>hi</p>"), "text/html")
	fs.put("/empty.html", nil, "text/html")
	fs.put("/a.png", png, "image/png")
	fs.put("/bytes.png", png, "application/octet-stream")
	fs.put("/a.jpg", jpeg, "image/jpg")
	fs.put("/jpeg-as.png", jpeg, "application/octet-stream")
	fs.put("/1.pdf", documentPDF(t, 1), "application/pdf")
	fs.put("/7.pdf", documentPDF(t, 7), "application/pdf")
	tests := []struct {
		name string
		typ  lettershop.AssetType
		mime lettershop.ContentType
		url  string
		want string // in the error under content.content; "" when taken
	}{
		{"1 MiB, the largest template", lettershop.AssetTemplate, "text/html", fs.url("/maxtemplate.html"), ""},
		{"10 MiB, taken and too large a template", lettershop.AssetTemplate, "text/html", fs.url("/max.html"), "the template is 10485760 bytes; at most 1048576 are allowed"},
		{"10 MiB and a byte", lettershop.AssetTemplate, "text/html", fs.url("/over.html"), "larger than the 10 MiB taken"},
		{"over the inline limit", lettershop.AssetTemplate, "text/html", fs.url("/big.html"), ""},
		{"a template as text/plain", lettershop.AssetTemplate, "text/html", fs.url("/plain.html"), "the server gave text/plain, and the version holds text/html"},
		{"a template of no type, whose bytes show HTML", lettershop.AssetTemplate, "text/html", fs.url("/untyped.html"), ""},
		{"a template with a script", lettershop.AssetTemplate, "text/html", fs.url("/script.html"), "<script>"},
		{"nothing", lettershop.AssetTemplate, "text/html", fs.url("/empty.html"), "no content"},
		{"404", lettershop.AssetTemplate, "text/html", fs.url("/missing.html"), "could not be fetched: the server answered 404 Not Found"},
		{"nobody there", lettershop.AssetTemplate, "text/html", closedURL(t), "could not be fetched: no answer"},
		{"a metadata address", lettershop.AssetTemplate, "text/html", "http://169.254.169.254/latest/t.html", "cloud metadata address"},
		{"ftp", lettershop.AssetTemplate, "text/html", "ftp://127.0.0.1/t.html", "only http and https"},
		{"not a URL", lettershop.AssetTemplate, "text/html", "<p>hi</p>", "http"},
		{"no URL", lettershop.AssetTemplate, "text/html", "", "give it here"},
		{"png", lettershop.AssetImage, "image/png", fs.url("/a.png"), ""},
		{"png as bytes", lettershop.AssetImage, "image/png", fs.url("/bytes.png"), ""},
		{"png for a jpeg version", lettershop.AssetImage, "image/jpeg", fs.url("/a.png"), "the server gave image/png"},
		{"jpeg as image/jpg", lettershop.AssetImage, "image/jpeg", fs.url("/a.jpg"), ""},
		{"jpeg bytes for a png version", lettershop.AssetImage, "image/png", fs.url("/jpeg-as.png"), "the data is a jpeg image, not png"},
		{"pdf", lettershop.AssetDocument, "application/pdf", fs.url("/1.pdf"), ""},
		{"pdf of 7 pages", lettershop.AssetDocument, "application/pdf", fs.url("/7.pdf"), "the PDF has 7 pages; a letter carries at most 6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := assets[tc.typ]
			before, _ := e.svc.GetAsset(e.ctx, acct, a.ID)
			v, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Source: lettershop.ContentImport, Type: tc.mime, Content: tc.url},
			})
			if tc.want != "" {
				wantFields(t, err, "content.content")
				if msg := fieldsOf(t, err)["content.content"]; !strings.Contains(msg, tc.want) {
					t.Errorf("content.content: %q, want it to say %q", msg, tc.want)
				}
				if after, _ := e.svc.GetAsset(e.ctx, acct, a.ID); after.VersionCount != before.VersionCount {
					t.Errorf("a refused import stored a version: %d versions, were %d", after.VersionCount, before.VersionCount)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			typ, data, err := e.svc.GetVersionContent(e.ctx, acct, v.ID)
			if err != nil || typ != tc.mime || len(data) != v.ContentLength || v.Content.Source != lettershop.ContentImport {
				t.Errorf("stored %s %d bytes (%v), version %+v of %d bytes", typ, len(data), err, v.Content.Source, v.ContentLength)
			}
		})
	}
}

func TestExternalURLContent(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	tpl := e.makeAsset(t, lettershop.AssetTemplate)
	fs.put("/t.html", []byte("<p>first</p>"), "text/html")
	u := fs.url("/t.html")
	v, err := e.svc.CreateVersion(e.ctx, acct, tpl.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Source: lettershop.ContentExternalURL, Type: "text/html", Content: u},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := lettershop.VersionContent{Source: lettershop.ContentExternalURL, Type: "text/html", Content: u}
	if v.Content != want || v.ContentLength != 0 {
		t.Errorf("created: %+v of %d bytes, want %+v of none", v.Content, v.ContentLength, want)
	}
	if n := fs.count("/t.html"); n != 0 {
		t.Errorf("made: the URL was asked %d times, want never", n)
	}
	page, err := e.svc.ListVersions(e.ctx, acct, tpl.ID, lettershop.ListVersionsInput{})
	if err != nil || len(page.Items) != 1 || page.Items[0].Content != want {
		t.Errorf("listed: %+v, %v", page.Items, err)
	}

	// Each read of the content fetches it.
	for i, body := range []string{"<p>first</p>", "<p>second</p>"} {
		fs.put("/t.html", []byte(body), "text/html")
		typ, data, err := e.svc.GetVersionContent(e.ctx, acct, v.ID)
		if err != nil || typ != "text/html" || string(data) != body {
			t.Errorf("GetVersionContent: %s %q, %v; want %q", typ, data, err, body)
		}
		if n := fs.count("/t.html"); n != i+1 {
			t.Errorf("the URL was asked %d times, want %d", n, i+1)
		}
	}

	// What the URL gives is checked each time: a failure is an upstream
	// error saying what failed.
	for _, tc := range []struct {
		name string
		put  func()
		want string
	}{
		{"1 MiB, the largest template", func() { fs.put("/t.html", htmlOf(render.MaxTemplateBytes), "text/html") }, ""},
		{"10 MiB, taken and too large a template", func() { fs.put("/t.html", htmlOf(lettershop.MaxExternalContent), "text/html") }, "the template is 10485760 bytes"},
		{"10 MiB and a byte", func() { fs.put("/t.html", htmlOf(lettershop.MaxExternalContent+1), "text/html") }, "larger than the 10 MiB taken"},
		{"404", func() { fs.put("/other", nil, "") }, "404 Not Found"},
		{"wrong type", func() { fs.put("/t.html", []byte("<p>hi</p>"), "text/plain") }, "the server gave text/plain"},
		{"a template that does not print", func() { fs.put("/t.html", []byte("<video></video><p>hi</p>"), "text/html") }, "<video>"},
		{"no answer", func() { fs.put("/t.html", []byte("<p>hi</p>"), "text/html"); fs.setDown(true) }, "no answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer fs.setDown(false)
			if tc.name == "404" {
				fs.mu.Lock()
				delete(fs.files, "/t.html")
				fs.mu.Unlock()
			}
			tc.put()
			_, data, err := e.svc.GetVersionContent(e.ctx, acct, v.ID)
			if tc.want == "" {
				if err != nil || len(data) != render.MaxTemplateBytes {
					t.Errorf("GetVersionContent: %d bytes, %v", len(data), err)
				}
				return
			}
			if lettershop.ErrorCode(err) != lettershop.CodeUpstream || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), u) {
				t.Errorf("GetVersionContent: %v; want an upstream error naming %s and saying %q", err, u, tc.want)
			}
		})
	}

	// The URL is checked when given, never fetched then.
	long := fs.url("/" + strings.Repeat("a", lettershop.MaxContentURL-len(fs.url("/"))))
	for _, tc := range []struct {
		name, url, want string
	}{
		{"at the URL limit", long, ""},
		{"a byte over", long + "a", "at most 2048 bytes"},
		{"a metadata address", "http://169.254.169.254/t.html", "cloud metadata address"},
		{"ftp", "ftp://files.example.com/t.html", "only http and https"},
		{"no host", "https:///t.html", "host"},
		{"none", "", "give it here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := e.svc.CreateVersion(e.ctx, acct, tpl.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Source: lettershop.ContentExternalURL, Content: tc.url},
			})
			if tc.want == "" {
				if err != nil || v.Content.Content != tc.url {
					t.Errorf("CreateVersion: %v, %v", v, err)
				}
				return
			}
			if msg := fieldsOf(t, err)["content.content"]; !strings.Contains(msg, tc.want) {
				t.Errorf("content.content: %q, want it to say %q", msg, tc.want)
			}
		})
	}

	// Sent back as it is, the content is no change; another URL is.
	e.clock.Add(time.Minute)
	same, err := e.svc.UpdateVersion(e.ctx, acct, tpl.ID, v.ID, lettershop.UpdateVersionInput{Content: &want})
	if err != nil || !same.ModifiedAt.Equal(v.ModifiedAt) {
		t.Errorf("the same URL: modified %v, was %v (%v)", same.ModifiedAt, v.ModifiedAt, err)
	}
	moved := fs.url("/moved.html")
	changed, err := e.svc.UpdateVersion(e.ctx, acct, tpl.ID, v.ID, lettershop.UpdateVersionInput{
		Content: &lettershop.VersionContent{Source: lettershop.ContentExternalURL, Content: moved},
	})
	if err != nil || changed.Content.Content != moved || changed.ModifiedAt.Equal(v.ModifiedAt) {
		t.Errorf("another URL: %+v, %v", changed, err)
	}
	if _, err := e.svc.PublishVersion(e.ctx, acct, tpl.ID, v.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.UpdateVersion(e.ctx, acct, tpl.ID, v.ID, lettershop.UpdateVersionInput{Content: &want})
	wantFields(t, err, "content.content")
	clone, err := e.svc.CloneVersion(e.ctx, acct, tpl.ID, v.ID, lettershop.CloneVersionInput{})
	if err != nil || clone.Content.Content != moved || clone.Content.Source != lettershop.ContentExternalURL {
		t.Errorf("clone: %+v, %v", clone, err)
	}
}
