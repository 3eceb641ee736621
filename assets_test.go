package lettershop_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

func TestAssetCRUD(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "Welcome", Description: "first letter"})
	if err != nil {
		t.Fatal(err)
	}
	want := &lettershop.Asset{
		ID: a.ID, Name: "Welcome", Description: "first letter", Type: lettershop.AssetTemplate,
		Status: lettershop.VersionDraft, Metadata: lettershop.Metadata{}, CreatedAt: testStart, ModifiedAt: testStart,
	}
	if diff := cmp.Diff(want, a, ignoreUnexported); diff != "" {
		t.Errorf("created asset (-want +got):\n%s", diff)
	}
	if !lettershop.ValidID("ast_", a.ID) {
		t.Errorf("id %q", a.ID)
	}
	got, err := e.svc.GetAsset(e.ctx, acct, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, got, ignoreUnexported); diff != "" {
		t.Errorf("fetched asset (-created +fetched):\n%s", diff)
	}
	if _, err := e.svc.GetAsset(e.ctx, "acct_other", a.ID); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("another account's asset: %v", err)
	}
	e.clock.Add(time.Minute)
	u, err := e.svc.UpdateAsset(e.ctx, acct, a.ID, lettershop.UpdateAssetInput{Name: str("Hello")})
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "Hello" || u.Description != "first letter" || !u.ModifiedAt.Equal(testStart.Add(time.Minute)) {
		t.Errorf("updated asset: %+v", u)
	}
	if err := e.svc.DeleteAsset(e.ctx, acct, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.GetAsset(e.ctx, acct, a.ID); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("deleted asset: %v", err)
	}
	if err := e.svc.DeleteAsset(e.ctx, acct, a.ID); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("deleting again: %v", err)
	}
}

func TestAssetValidation(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		in     lettershop.CreateAssetInput
		fields []string
	}{
		{"name of 1", lettershop.CreateAssetInput{Name: "a"}, nil},
		{"name of 255", lettershop.CreateAssetInput{Name: strings.Repeat("a", 255)}, nil},
		{"name of 256", lettershop.CreateAssetInput{Name: strings.Repeat("a", 256)}, []string{"name"}},
		{"no name", lettershop.CreateAssetInput{}, []string{"name"}},
		{"blank name", lettershop.CreateAssetInput{Name: "  "}, []string{"name"}},
		{"NUL in name", lettershop.CreateAssetInput{Name: "a\x00"}, []string{"name"}},
		{"description of 255", lettershop.CreateAssetInput{Name: "a", Description: strings.Repeat("d", 255)}, nil},
		{"description of 256", lettershop.CreateAssetInput{Name: "a", Description: strings.Repeat("d", 256)}, []string{"description"}},
		{"each type", lettershop.CreateAssetInput{Name: "a", Type: lettershop.AssetImage}, nil},
		{"bad type", lettershop.CreateAssetInput{Name: "a", Type: "video"}, []string{"type"}},
		{"all at once", lettershop.CreateAssetInput{Type: "video", Metadata: pairs(21)}, []string{"name", "type", "metadata"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.CreateAsset(e.ctx, acct, tc.in)
			if tc.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantFields(t, err, tc.fields...)
		})
	}
	a, _ := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "keep"})
	_, err := e.svc.UpdateAsset(e.ctx, acct, a.ID, lettershop.UpdateAssetInput{Name: str(""), Description: str(strings.Repeat("d", 256))})
	wantFields(t, err, "name", "description")
	got, _ := e.svc.GetAsset(e.ctx, acct, a.ID)
	if got.Name != "keep" {
		t.Errorf("a refused update changed the asset: %+v", got)
	}
}

func pngBytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestVersionContent(t *testing.T) {
	e := newEnv(t)
	tpl, _ := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t"})
	img, _ := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "i", Type: lettershop.AssetImage})
	pad := func(n int) string { // an HTML template of exactly n bytes
		return "<p>" + strings.Repeat("x", n-7) + "</p>"
	}
	pngData := base64.StdEncoding.EncodeToString(pngBytes(t))
	tests := []struct {
		name    string
		assetID string
		content *lettershop.VersionContent
		fields  []string
	}{
		{"html", tpl.ID, &lettershop.VersionContent{Source: "inline", Type: "text/html", Content: "<p>hi</p>"}, nil},
		{"type defaults from the asset", tpl.ID, &lettershop.VersionContent{Content: "<p>hi</p>"}, nil},
		{"102400 bytes", tpl.ID, &lettershop.VersionContent{Type: "text/html", Content: pad(102400)}, nil},
		{"102401 bytes", tpl.ID, &lettershop.VersionContent{Type: "text/html", Content: pad(102401)}, []string{"content.content"}},
		{"102400 bytes under the former name", tpl.ID, &lettershop.VersionContent{Type: "text/html", Data: pad(102400)}, nil},
		{"102401 bytes under the former name", tpl.ID, &lettershop.VersionContent{Type: "text/html", Data: pad(102401)}, []string{"content.data"}},
		{"both names", tpl.ID, &lettershop.VersionContent{Content: "<p>a</p>", Data: "<p>a</p>"}, []string{"content.data"}},
		{"bad source", tpl.ID, &lettershop.VersionContent{Source: "url", Type: "text/html", Content: "<p>x</p>"}, []string{"content.source"}},
		{"image in a template asset", tpl.ID, &lettershop.VersionContent{Type: "image/png", Content: pngData}, []string{"content.type"}},
		{"png", img.ID, &lettershop.VersionContent{Type: "image/png", Content: pngData}, nil},
		{"png not base64", img.ID, &lettershop.VersionContent{Type: "image/png", Content: "%%%"}, []string{"content.content"}},
		{"png not base64, under the former name", img.ID, &lettershop.VersionContent{Type: "image/png", Data: "%%%"}, []string{"content.data"}},
		{"png that is not an image", img.ID, &lettershop.VersionContent{Type: "image/png", Content: base64.StdEncoding.EncodeToString([]byte("hello"))}, []string{"content.content"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := e.svc.CreateVersion(e.ctx, acct, tc.assetID, lettershop.CreateVersionInput{Content: tc.content})
			if tc.fields != nil {
				wantFields(t, err, tc.fields...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.svc.GetVersion(e.ctx, acct, tc.assetID, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			sent := tc.content.Content + tc.content.Data
			for name, shown := range map[string]*lettershop.AssetVersion{"created": v, "fetched": got} {
				if shown.Content.Content != sent || shown.Content.Data != "" {
					t.Errorf("%s: content does not round-trip: %d bytes in, %d out (%d under data)", name, len(sent), len(shown.Content.Content), len(shown.Content.Data))
				}
				if shown.Content.Source != "inline" || shown.Content.Type == "" || shown.ContentType != shown.Content.Type || shown.ContentLength == 0 {
					t.Errorf("%s: content fields: %+v, type %q, length %d", name, shown.Content, shown.ContentType, shown.ContentLength)
				}
				if want := "/assets/" + v.ID + "/content"; shown.ContentURL != want {
					t.Errorf("%s: contentUrl %q, want %q", name, shown.ContentURL, want)
				}
			}
			typ, data, err := e.svc.GetVersionContent(e.ctx, acct, v.ID)
			if err != nil || typ != got.Content.Type || len(data) != got.ContentLength {
				t.Errorf("GetVersionContent: %q, %d bytes, %v; want %q, %d bytes", typ, len(data), err, got.Content.Type, got.ContentLength)
			}
		})
	}
	if _, err := e.svc.CreateVersion(e.ctx, acct, "ast_01aaaaaaaaaaaaaaaaaaaaaaaa", lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Content: "<p>x</p>"},
	}); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("version of an unknown asset: %v", err)
	}
}

// TestVersionLifecycle walks every transition of the version state machine
// and checks the refused ones.
func TestVersionLifecycle(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	newVersion := func(publish bool) *lettershop.AssetVersion {
		t.Helper()
		e.clock.Add(time.Second)
		v, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
			Notes: "n", Content: &lettershop.VersionContent{Content: "<p>{{x}}</p>"}, Publish: publish,
			VariableDefinitions: []lettershop.VariableDefinition{{Name: "x"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	status := func(id string) lettershop.VersionStatus {
		t.Helper()
		v, err := e.svc.GetVersion(e.ctx, acct, a.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return v.Status
	}
	assetIs := func(st lettershop.VersionStatus, count int, published string) {
		t.Helper()
		got, err := e.svc.GetAsset(e.ctx, acct, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != st || got.VersionCount != count || got.PublishedVersionID != published {
			t.Errorf("asset: status %s count %d published %q; want %s %d %q", got.Status, got.VersionCount, got.PublishedVersionID, st, count, published)
		}
	}

	v1 := newVersion(false)
	if v1.Status != lettershop.VersionDraft {
		t.Fatalf("new version is %s", v1.Status)
	}
	assetIs(lettershop.VersionDraft, 1, "")

	// draft: anything can change.
	u, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{
		Notes: str("edited"), Content: &lettershop.VersionContent{Content: "<p>new</p>"},
		VariableDefinitions: &[]lettershop.VariableDefinition{},
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Notes != "edited" || u.ContentLength != len("<p>new</p>") || len(u.VariableDefinitions) != 0 {
		t.Errorf("draft update: %+v", u)
	}

	// draft -> published.
	p, err := e.svc.PublishVersion(e.ctx, acct, a.ID, v1.ID)
	if err != nil || p.Status != lettershop.VersionPublished {
		t.Fatalf("publish draft: %v %+v", err, p)
	}
	assetIs(lettershop.VersionPublished, 1, v1.ID)
	// published: notes only.
	if _, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{Notes: str("still fine")}); err != nil {
		t.Errorf("notes of a published version: %v", err)
	}
	// Anything else is refused, naming the field.
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{Content: &lettershop.VersionContent{Content: "<p>no</p>"}})
	wantFields(t, err, "content.content")
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{Content: &lettershop.VersionContent{Data: "<p>no</p>"}})
	wantFields(t, err, "content.data")
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{Notes: str("fine"), VariableDefinitions: &[]lettershop.VariableDefinition{{Name: "x"}}})
	wantFields(t, err, "variableDefinitions")
	if got, _ := e.svc.GetVersion(e.ctx, acct, a.ID, v1.ID); got.Notes != "still fine" {
		t.Errorf("a refused update changed the notes to %q", got.Notes)
	}
	// Content and definitions sent back as they are change nothing: no conflict.
	if _, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{
		Content: &lettershop.VersionContent{Content: "<p>new</p>"}, VariableDefinitions: &[]lettershop.VariableDefinition{},
	}); err != nil {
		t.Errorf("content and definitions of a published version as they are: %v", err)
	}
	// Publishing the published version changes nothing.
	if again, err := e.svc.PublishVersion(e.ctx, acct, a.ID, v1.ID); err != nil || again.Status != lettershop.VersionPublished {
		t.Errorf("publish again: %v", err)
	}

	// Publishing another archives the previous one.
	v2 := newVersion(true)
	if v2.Status != lettershop.VersionPublished || status(v1.ID) != lettershop.VersionArchived {
		t.Errorf("after publishing v2: v2 %s, v1 %s", v2.Status, status(v1.ID))
	}
	assetIs(lettershop.VersionPublished, 2, v2.ID)

	// archived -> published, and the other is archived.
	if _, err := e.svc.PublishVersion(e.ctx, acct, a.ID, v1.ID); err != nil {
		t.Fatal(err)
	}
	if status(v1.ID) != lettershop.VersionPublished || status(v2.ID) != lettershop.VersionArchived {
		t.Errorf("republish v1: v1 %s v2 %s", status(v1.ID), status(v2.ID))
	}
	// archived: nothing, not even its notes.
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v2.ID, lettershop.UpdateVersionInput{Content: &lettershop.VersionContent{Content: "<p>no</p>"}})
	wantCode(t, err, lettershop.CodeConflict)
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v2.ID, lettershop.UpdateVersionInput{Notes: str("no")})
	wantCode(t, err, lettershop.CodeConflict)

	// published -> archived leaves the asset without a published version.
	if v, err := e.svc.ArchiveVersion(e.ctx, acct, a.ID, v1.ID); err != nil || v.Status != lettershop.VersionArchived {
		t.Fatalf("archive published: %v", err)
	}
	assetIs(lettershop.VersionArchived, 2, "")
	if _, err := e.svc.ArchiveVersion(e.ctx, acct, a.ID, v1.ID); err != nil {
		t.Errorf("archive again: %v", err)
	}

	// draft -> archived, draft -> deleted.
	v3 := newVersion(false)
	assetIs(lettershop.VersionDraft, 3, "")
	if _, err := e.svc.ArchiveVersion(e.ctx, acct, a.ID, v3.ID); err != nil {
		t.Fatal(err)
	}
	v4 := newVersion(false)
	if err := e.svc.DeleteVersion(e.ctx, acct, a.ID, v4.ID); err != nil {
		t.Fatal(err)
	}
	// deleted is final: gone.
	for name, err := range map[string]error{
		"get":     func() error { _, err := e.svc.GetVersion(e.ctx, acct, a.ID, v4.ID); return err }(),
		"delete":  e.svc.DeleteVersion(e.ctx, acct, a.ID, v4.ID),
		"publish": func() error { _, err := e.svc.PublishVersion(e.ctx, acct, a.ID, v4.ID); return err }(),
		"archive": func() error { _, err := e.svc.ArchiveVersion(e.ctx, acct, a.ID, v4.ID); return err }(),
		"clone": func() error {
			_, err := e.svc.CloneVersion(e.ctx, acct, a.ID, v4.ID, lettershop.CloneVersionInput{})
			return err
		}(),
	} {
		if lettershop.ErrorCode(err) != lettershop.CodeNotFound {
			t.Errorf("%s of a deleted version: %v", name, err)
		}
	}
	assetIs(lettershop.VersionArchived, 3, "")

	// clone: a new draft with the same content and definitions.
	c, err := e.svc.CloneVersion(e.ctx, acct, a.ID, v2.ID, lettershop.CloneVersionInput{Notes: str("copy")})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := e.svc.GetVersion(e.ctx, acct, a.ID, v2.ID)
	cl, _ := e.svc.GetVersion(e.ctx, acct, a.ID, c.ID)
	if cl.Status != lettershop.VersionDraft || cl.Notes != "copy" || cl.ID == src.ID ||
		cl.Content != src.Content || !cmp.Equal(cl.VariableDefinitions, src.VariableDefinitions) {
		t.Errorf("clone %+v of %+v", cl, src)
	}
	cp, err := e.svc.CloneVersion(e.ctx, acct, a.ID, v2.ID, lettershop.CloneVersionInput{Publish: true})
	if err != nil || cp.Status != lettershop.VersionPublished {
		t.Fatalf("clone and publish: %v", err)
	}
	assetIs(lettershop.VersionPublished, 5, cp.ID)

	// published -> deleted; then every version deleted makes the asset deleted.
	for _, id := range []string{cp.ID, c.ID, v1.ID, v2.ID, v3.ID} {
		if err := e.svc.DeleteVersion(e.ctx, acct, a.ID, id); err != nil {
			t.Fatalf("delete %s: %v", id, err)
		}
	}
	assetIs(lettershop.VersionDeleted, 0, "")

	// deleted is the asset's terminal status: it takes no new version,
	// published or not, and stays deleted.
	for _, publish := range []bool{false, true} {
		_, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{Content: &lettershop.VersionContent{Content: "<p>again</p>"}, Publish: publish})
		wantCode(t, err, lettershop.CodeConflict)
	}
	assetIs(lettershop.VersionDeleted, 0, "")
}

func TestListVersions(t *testing.T) {
	e := newEnv(t)
	a, _ := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t"})
	var ids []string
	for i := 0; i < 3; i++ {
		e.clock.Add(time.Second)
		v, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{Content: &lettershop.VersionContent{Content: "<p>x</p>"}, Publish: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, v.ID)
	}
	// The first two were archived by publishing the next.
	list := func(archived bool) []string {
		p, err := e.svc.ListVersions(e.ctx, acct, a.ID, lettershop.ListVersionsInput{IncludeArchived: archived})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range p.Items {
			out = append(out, v.ID)
			if v.Content.Content != "<p>x</p>" || v.ContentType != "text/html" || v.ContentURL == "" || v.Publish != (v.Status == lettershop.VersionPublished) {
				t.Errorf("list item %+v, want the version with its content", v)
			}
		}
		return out
	}
	if diff := cmp.Diff([]string{ids[2]}, list(false)); diff != "" {
		t.Errorf("without archived (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{ids[2], ids[1], ids[0]}, list(true)); diff != "" {
		t.Errorf("with archived (-want +got):\n%s", diff)
	}
	if _, err := e.svc.ListVersions(e.ctx, "acct_other", a.ID, lettershop.ListVersionsInput{}); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("versions of another account's asset: %v", err)
	}
}

func TestLetterOutlivesItsVersion(t *testing.T) {
	e := newEnv(t)
	a, v := e.publishedTemplate(t, acct)
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteVersion(e.ctx, acct, a.ID, v.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteAsset(e.ctx, acct, a.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.svc.GetLetter(e.ctx, acct, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content.AssetVersionID != v.ID {
		t.Errorf("letter content %+v", got.Content)
	}
	// Changing a field that does not touch the content still works.
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{
		Recipient: letterInput(a.ID).Recipient,
	}); err != nil {
		t.Errorf("update of a letter whose version is gone: %v", err)
	}
}

// racingStore lets another writer update an asset just before each of the
// first `races` asset writes that expect an existing revision, as a
// concurrent request would.
type racingStore struct {
	*memstore.Store
	races int
}

func (r *racingStore) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	if w.Asset.Revision > 0 && r.races > 0 {
		r.races--
		cur, err := r.Store.GetAsset(ctx, w.Asset.Account, w.Asset.ID)
		if err != nil {
			return storage.Asset{}, err
		}
		if _, err := r.Store.WriteAsset(ctx, storage.AssetWrite{Asset: cur}); err != nil {
			return storage.Asset{}, err
		}
	}
	return r.Store.WriteAsset(ctx, w)
}

// TestAssetWriteRetriesALostRace: a write that loses the race on the asset's
// revision reads again and retries; past the retry limit it fails, and
// nothing half done is stored.
func TestAssetWriteRetriesALostRace(t *testing.T) {
	for _, tc := range []struct {
		races int
		ok    bool
	}{{1, true}, {10, true}, {11, false}} {
		st := &racingStore{Store: memstore.New()}
		svc := lettershop.New(st, lettershop.WithClock(clock.NewMock()))
		defer svc.Close()
		ctx := context.Background()
		a, err := svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "t"})
		if err != nil {
			t.Fatal(err)
		}
		st.races = tc.races
		v, err := svc.CreateVersion(ctx, acct, a.ID, lettershop.CreateVersionInput{
			Content: &lettershop.VersionContent{Content: "<p>x</p>"}, Publish: true,
		})
		got, _ := svc.GetAsset(ctx, acct, a.ID)
		if tc.ok {
			if err != nil || got.PublishedVersionID != v.ID || got.VersionCount != 1 {
				t.Errorf("%d lost races: %v; asset %+v", tc.races, err, got)
			}
			continue
		}
		wantCode(t, err, lettershop.CodeInternal)
		if got.VersionCount != 0 || got.PublishedVersionID != "" {
			t.Errorf("a failed write left %+v", got)
		}
	}
}

// TestVersionContentShown checks where a version shows its content: every
// operation for content up to MaxInlineContent bytes; a fetch alone (and
// GetVersionContent) for larger content, which only an upload stores.
func TestVersionContentShown(t *testing.T) {
	e := newEnv(t)
	a, _ := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t"})
	pad := func(n int) string { return "<p>" + strings.Repeat("x", n-7) + "</p>" }
	for _, tt := range []struct {
		size  int
		shown bool
	}{{lettershop.MaxInlineContent, true}, {lettershop.MaxInlineContent + 1, false}} {
		d, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{Content: &lettershop.VersionContent{Content: "<p>small</p>"}})
		if err != nil {
			t.Fatal(err)
		}
		text := pad(tt.size)
		up, err := e.svc.UploadVersionContent(e.ctx, acct, a.ID, d.ID, lettershop.ContentHTML, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		page, err := e.svc.ListVersions(e.ctx, acct, a.ID, lettershop.ListVersionsInput{})
		if err != nil {
			t.Fatal(err)
		}
		listed := page.Items[0]
		pub, err := e.svc.PublishVersion(e.ctx, acct, a.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]*lettershop.AssetVersion{"uploaded": up, "listed": listed, "published": pub} {
			if got := v.Content.Content == text; got != tt.shown || (!tt.shown && v.Content.Content != "") {
				t.Errorf("%d bytes, %s: content of %d bytes shown, want shown %v", tt.size, name, len(v.Content.Content), tt.shown)
			}
			if v.ContentLength != tt.size || v.ContentURL != "/assets/"+d.ID+"/content" {
				t.Errorf("%d bytes, %s: length %d, contentUrl %q", tt.size, name, v.ContentLength, v.ContentURL)
			}
		}
		got, err := e.svc.GetVersion(e.ctx, acct, a.ID, d.ID)
		if err != nil || got.Content.Content != text {
			t.Errorf("%d bytes fetched: %d bytes, %v", tt.size, len(got.Content.Content), err)
		}
		typ, data, err := e.svc.GetVersionContent(e.ctx, acct, d.ID)
		if err != nil || typ != lettershop.ContentHTML || string(data) != text {
			t.Errorf("%d bytes, GetVersionContent: %q, %d bytes, %v", tt.size, typ, len(data), err)
		}
	}
	// Another account's version is not found; an id of another kind is invalid.
	page, _ := e.svc.ListVersions(e.ctx, acct, a.ID, lettershop.ListVersionsInput{})
	if _, _, err := e.svc.GetVersionContent(e.ctx, "acct_other", page.Items[0].ID); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("another account's version: %v", err)
	}
	_, _, err := e.svc.GetVersionContent(e.ctx, acct, a.ID)
	wantFields(t, err, "versionId")
}

// TestVersionWithoutContent checks a version made without its content, as
// the reference allows ("provided upon creation or added/edited later"): a
// draft showing empty content, not published nor mailed until it is given
// content, which an update (or an upload) gives it.
func TestVersionWithoutContent(t *testing.T) {
	e := newEnv(t)
	a, _ := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "later"})
	img, _ := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "i", Type: lettershop.AssetImage})
	for _, tc := range []struct {
		name    string
		assetID string
		content *lettershop.VersionContent
		typ     lettershop.ContentType
	}{
		{"no content", a.ID, nil, "text/html"},
		{"content without its text", a.ID, &lettershop.VersionContent{Source: "inline", Type: "text/html"}, "text/html"},
		{"an image's, its type by default", img.ID, nil, "image/png"},
		{"an image's, its type given", img.ID, &lettershop.VersionContent{Type: "image/jpeg"}, "image/jpeg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := e.svc.CreateVersion(e.ctx, acct, tc.assetID, lettershop.CreateVersionInput{Content: tc.content})
			if err != nil {
				t.Fatal(err)
			}
			want := lettershop.VersionContent{Source: lettershop.ContentInline, Type: tc.typ}
			got, err := e.svc.GetVersion(e.ctx, acct, tc.assetID, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			for name, shown := range map[string]*lettershop.AssetVersion{"created": v, "fetched": got} {
				if shown.Status != lettershop.VersionDraft || shown.Content != want || shown.ContentLength != 0 || shown.ContentType != tc.typ || shown.ContentURL == "" {
					t.Errorf("%s: status %s, content %+v, length %d, type %s, url %q; want a draft with %+v", name, shown.Status, shown.Content, shown.ContentLength, shown.ContentType, shown.ContentURL, want)
				}
			}
			typ, data, err := e.svc.GetVersionContent(e.ctx, acct, v.ID)
			if err != nil || typ != tc.typ || len(data) != 0 {
				t.Errorf("GetVersionContent = %s, %d bytes, %v; want %s, no bytes", typ, len(data), err, tc.typ)
			}
		})
	}

	// Published as it is made, it needs its content; a content that is
	// refused is named alone.
	_, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{Publish: true})
	wantFields(t, err, "content")
	_, err = e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{Publish: true, Content: &lettershop.VersionContent{Type: "text/plain"}})
	wantFields(t, err, "content.type")

	v, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{Notes: "first"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.PublishVersion(e.ctx, acct, a.ID, v.ID)
	wantCode(t, err, lettershop.CodeConflict)
	_, err = e.svc.CloneVersion(e.ctx, acct, a.ID, v.ID, lettershop.CloneVersionInput{Publish: true})
	wantCode(t, err, lettershop.CodeConflict)
	if _, err := e.svc.ArchiveVersion(e.ctx, acct, a.ID, v.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.PublishVersion(e.ctx, acct, a.ID, v.ID)
	wantCode(t, err, lettershop.CodeConflict)
	_, err = e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
	wantFields(t, err, "content.assetId")

	// The whole version sent back changes nothing; new definitions are
	// taken with no template to check them against; content is given.
	v, err = e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{})
	if err != nil {
		t.Fatal(err)
	}
	shown := v.Content
	if _, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, lettershop.UpdateVersionInput{Content: &shown}); err != nil {
		t.Fatalf("the version sent back: %v", err)
	}
	if _, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, lettershop.UpdateVersionInput{VariableDefinitions: &testDefinitions}); err != nil {
		t.Fatalf("definitions: %v", err)
	}
	snap, err := e.svc.SnapshotAccount(e.ctx, acct)
	if err != nil {
		t.Fatalf("snapshot of an account with a version without content: %v", err)
	}
	if _, err := e.svc.RestoreAccount(e.ctx, "restored", snap, lettershop.RestoreOptions{}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if _, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, lettershop.UpdateVersionInput{Content: &lettershop.VersionContent{Type: "text/html", Content: testTemplate}}); err != nil {
		t.Fatal(err)
	}
	p, err := e.svc.PublishVersion(e.ctx, acct, a.ID, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentLength != len(testTemplate) || p.Content.Content != testTemplate {
		t.Errorf("published: length %d, content %q; want the template given", p.ContentLength, p.Content.Content)
	}
	if _, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
		t.Errorf("a letter of the version given its content: %v", err)
	}
}
