package inbox_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/lettershop/lettershop"
)

// A version that keeps its template at a URL shows the URL; its preview
// is fetched from there, and a fetch that fails says so.
func TestExternalURLVersionPage(t *testing.T) {
	e := newEnv(t)
	var down atomic.Bool
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>Fetched for the preview</p>"))
	}))
	t.Cleanup(files.Close)
	a, err := e.svc.CreateAsset(e.ctx, e.account, lettershop.CreateAssetInput{Name: "Remote"})
	if err != nil {
		t.Fatal(err)
	}
	u := files.URL + "/t.html"
	v, err := e.svc.CreateVersion(e.ctx, e.account, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Source: lettershop.ContentExternalURL, Content: u}})
	if err != nil {
		t.Fatal(err)
	}
	c := e.loggedIn(testKey)
	wantContains(t, c.get("/inbox/assets/"+a.ID).Body, "text/html · externalUrl</td>")
	page := c.get("/inbox/assets/" + a.ID + "/versions/" + v.ID)
	wantStatus(t, page, http.StatusOK)
	wantContains(t, page.Body, `<dd id="source-kind">externalUrl · <a href="`+u+`"`, "fetched from its URL when needed")
	wantLacks(t, page.Body, `id="source"`)
	content := c.get("/inbox/assets/" + a.ID + "/versions/" + v.ID + "/content")
	wantStatus(t, content, http.StatusOK)
	wantContains(t, content.Body, "<p>Fetched for the preview</p>")
	down.Store(true)
	failed := c.get("/inbox/assets/" + a.ID + "/versions/" + v.ID + "/content")
	wantStatus(t, failed, http.StatusBadGateway)
	wantContains(t, failed.Body, "404 Not Found")
}
