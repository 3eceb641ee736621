package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/client"
)

var ctx = context.Background()

func TestAssetsAndVersions(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 0, nil)))
	c := newClient(s, newWaits())
	t.Cleanup(func() { checkKeys(t, rec) })

	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{
		Name: "Welcome", Description: "the first letter", Type: client.AssetTemplate,
		Metadata: client.Metadata{{Key: "team", Value: "north"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != client.VersionDraft || a.VersionCount != 0 || a.Name != "Welcome" {
		t.Fatalf("created asset %+v", a)
	}
	got, err := c.GetAsset(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("GetAsset (-created +fetched):\n%s", diff)
	}
	a, err = c.UpdateAsset(ctx, a.ID, &client.UpdateAssetRequest{Name: str("Welcome letter"), Metadata: &client.Metadata{}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "Welcome letter" || len(a.Metadata) != 0 || a.Description != "the first letter" {
		t.Errorf("updated asset %+v", a)
	}

	v1, err := c.CreateVersion(ctx, a.ID, &client.CreateVersionRequest{
		Notes:               "draft",
		Content:             &client.VersionContent{Type: "text/html", Content: template},
		VariableDefinitions: []client.VariableDefinition{{Name: "name", Behavior: "required"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v1.Status != client.VersionDraft || v1.ContentLength != len(template) {
		t.Fatalf("created version %+v", v1)
	}
	if v1.Content.Content != template || v1.ContentType != "text/html" || v1.Publish || !strings.HasSuffix(v1.ContentURL, "/assets/"+v1.ID+"/content") {
		t.Errorf("created version %+v, want its content and contentUrl", v1)
	}
	if err := c.UpdateVersion(ctx, a.ID, v1.ID, &client.UpdateVersionRequest{Notes: str("first cut")}); err != nil {
		t.Fatalf("UpdateVersion: %v", err)
	}
	if v1, err = c.GetVersion(ctx, a.ID, v1.ID); err != nil || v1.Notes != "first cut" {
		t.Fatalf("after UpdateVersion: %+v, %v", v1, err)
	}
	raw, mime, err := c.GetVersionContent(ctx, v1.ID)
	if err != nil || string(raw) != template || mime != "text/html" {
		t.Errorf("GetVersionContent: %q %q %v", raw, mime, err)
	}
	if _, _, err := c.GetVersionContent(ctx, "astv_01kjqh0cc0abyzr1s1gbemmsvc"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("GetVersionContent of an unknown version: %v", err)
	}
	if v1, err = c.PublishVersion(ctx, a.ID, v1.ID); err != nil || v1.Status != client.VersionPublished {
		t.Fatalf("PublishVersion: %+v, %v", v1, err)
	}
	v2, err := c.CloneVersion(ctx, a.ID, v1.ID, &client.CloneVersionRequest{Notes: str("second cut"), Publish: true})
	if err != nil || v2.Status != client.VersionPublished || v2.Notes != "second cut" {
		t.Fatalf("CloneVersion: %+v, %v", v2, err)
	}
	fetched, err := c.GetVersion(ctx, a.ID, v1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fetched.Status != client.VersionArchived || fetched.Content.Content != template {
		t.Errorf("the first version after the clone was published: %+v", fetched)
	}
	var listed []string
	for v, err := range c.ListVersions(ctx, a.ID, &client.ListVersionsParams{IncludeArchived: true, PageSize: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		if v.Content.Content != template {
			t.Errorf("listed version %+v, want its content", v)
		}
		listed = append(listed, v.ID)
	}
	if diff := cmp.Diff([]string{v2.ID, v1.ID}, listed); diff != "" {
		t.Errorf("ListVersions (-want +got):\n%s", diff)
	}
	page, err := c.ListVersionsPage(ctx, a.ID, nil)
	if err != nil || len(page.Items) != 1 || page.NextToken != "" {
		t.Errorf("ListVersionsPage without archived: %+v, %v", page, err)
	}
	if err := c.ArchiveVersion(ctx, a.ID, v2.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteVersion(ctx, a.ID, v1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetVersion(ctx, a.ID, v1.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("GetVersion of a deleted version: %v, want ErrNotFound", err)
	}

	var assets []client.Asset
	for a, err := range c.ListAssets(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		assets = append(assets, a)
	}
	if len(assets) != 1 || assets[0].ID != a.ID {
		t.Errorf("ListAssets: %+v", assets)
	}
	ap, err := c.ListAssetsPage(ctx, &client.ListAssetsParams{Metadata: map[string]string{"team": "north"}})
	if err != nil || len(ap.Items) != 0 {
		t.Errorf("ListAssetsPage by metadata the asset no longer has: %+v, %v", ap, err)
	}
	if err := c.DeleteAsset(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetAsset(ctx, a.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("GetAsset of a deleted asset: %v, want ErrNotFound", err)
	}
}

func TestLetters(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 0, nil)))
	c := newClient(s, newWaits())
	t.Cleanup(func() { checkKeys(t, rec) })
	a, v := publishedAsset(t, c)

	l, err := c.CreateLetter(ctx, letterRequest(a.ID), client.IdempotencyKey("welcome-jane-1"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Status != client.StatusQueued || l.Content.AssetVersionID != v.ID || l.Recipient.Address.LastLine != "Chicago, IL 60601" {
		t.Fatalf("created letter %+v", l)
	}
	again, err := c.CreateLetter(ctx, letterRequest(a.ID), client.IdempotencyKey("welcome-jane-1"))
	if err != nil || again.ID != l.ID {
		t.Fatalf("the same idempotency key made %+v, %v; want letter %s again", again, err, l.ID)
	}
	got, err := c.GetLetter(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l, got); diff != "" {
		t.Errorf("GetLetter (-created +fetched):\n%s", diff)
	}
	l, err = c.UpdateLetter(ctx, l.ID, &client.UpdateLetterRequest{Description: str("welcome"), Metadata: &client.Metadata{{Key: "customer", Value: "c-1002"}}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Description == nil || *l.Description != "welcome" || l.Metadata[0].Value != "c-1002" {
		t.Errorf("updated letter: description %v, metadata %v", l.Description, l.Metadata)
	}

	var ids []string
	for l, err := range c.ListLetters(ctx, &client.ListLettersParams{Metadata: map[string]string{"customer": "c-1002"}, IncludeCassDetails: true}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	if diff := cmp.Diff([]string{l.ID}, ids); diff != "" {
		t.Errorf("ListLetters by metadata (-want +got):\n%s", diff)
	}
	page, err := c.ListLettersPage(ctx, &client.ListLettersParams{Status: client.StatusMailed})
	if err != nil || len(page.Items) != 0 {
		t.Errorf("ListLettersPage of mailed letters: %+v, %v", page, err)
	}

	link, err := c.DownloadURL(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix([]byte(link), []byte(s.URL+"/")) {
		t.Errorf("DownloadURL %q is not on the server %s", link, s.URL)
	}
	pdf, err := c.Download(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("Download: not a PDF: %.20q", pdf)
	}

	if err := c.CancelLetter(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	if l, err = c.GetLetter(ctx, l.ID); err != nil || l.Status != client.StatusCanceled {
		t.Fatalf("after CancelLetter: %+v, %v", l, err)
	}
	_, err = c.UpdateLetter(ctx, l.ID, &client.UpdateLetterRequest{SendDate: str("2026-04-01")})
	if !errors.Is(err, client.ErrConflict) {
		t.Errorf("changing the send date of a canceled letter: %v, want ErrConflict", err)
	}
}

func TestTestRoutes(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL, testKey)
	now, err := c.Test.Now(ctx)
	if err != nil || !now.Equal(testStart) {
		t.Fatalf("Test.Now: %v, %v; want %v", now, err, testStart)
	}
	a, _ := publishedAsset(t, c)
	l, err := c.CreateLetter(ctx, letterRequest(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	ready, err := c.Test.AwaitLetter(ctx, l.ID, &client.AwaitLetterRequest{Status: client.StatusReady, Within: "1h"})
	if err != nil || ready.Status != client.StatusReady {
		t.Fatalf("Test.AwaitLetter: %+v, %v", ready, err)
	}
	if _, err := c.Test.AwaitLetter(ctx, l.ID, &client.AwaitLetterRequest{Status: client.StatusMailed, Within: "1m"}); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("Test.AwaitLetter past its time: %v, want ErrConflict", err)
	}
	text, err := c.Test.LetterText(ctx, l.ID)
	if err != nil || !strings.Contains(text, l.Recipient.Address.AddressLine1) {
		t.Fatalf("Test.LetterText: %q, %v; want the recipient's address in it", text, err)
	}
	if _, err := c.Test.LetterText(ctx, "ltr_01m82xk8wrekcvnp6xnr97efe0"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("Test.LetterText of no letter: %v, want ErrNotFound", err)
	}
	for _, within := range []time.Duration{0, 5 * time.Second} {
		if err := c.Test.SettleWebhooks(ctx, within); err != nil {
			t.Fatalf("Test.SettleWebhooks(%s): %v", within, err)
		}
	}
	if err := c.Test.SettleWebhooks(ctx, time.Minute); !errors.Is(err, client.ErrInvalid) {
		t.Fatalf("Test.SettleWebhooks past its bound: %v, want ErrInvalid", err)
	}
	moved, err := c.Test.AdvanceLetter(ctx, l.ID, &client.AdvanceLetterRequest{Status: client.StatusMailed})
	if err != nil || moved.Status != client.StatusMailed {
		t.Fatalf("Test.AdvanceLetter: %+v, %v", moved, err)
	}
	before, err := c.Test.Now(ctx)
	if err != nil || !before.After(testStart) {
		t.Fatalf("Test.Now after AwaitLetter: %v, %v; want past the start", before, err)
	}
	now, err = c.Test.Advance(ctx, 30*24*time.Hour)
	if err != nil || !now.Equal(before.Add(30*24*time.Hour)) {
		t.Fatalf("Test.Advance: %v, %v", now, err)
	}
	l, err = c.GetLetter(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := l.Events[len(l.Events)-1]; last.Status != "delivered" || last.Type != "tracking" {
		t.Errorf("a month after mailing, the last event is %+v, want delivered", last)
	}
	// The clock is the account's: another key's stands where it was.
	if other, err := client.New(s.URL, "sk_test_other").Test.Now(ctx); err != nil || !other.Equal(testStart) {
		t.Errorf("another account's clock: %v, %v; want %v", other, err, testStart)
	}
	if st, err := c.Test.Freeze(ctx, true); err != nil || !st.Frozen || st.Shared {
		t.Errorf("Test.Freeze: %+v, %v", st, err)
	}
	at := testStart.Add(31 * 24 * time.Hour)
	if now, err := c.Test.SetClock(ctx, at); err != nil || !now.Equal(at) {
		t.Errorf("Test.SetClock: %v, %v; want %v", now, err, at)
	}
	if _, err := c.Test.SetClock(ctx, testStart); !errors.Is(err, client.ErrInvalid) {
		t.Errorf("Test.SetClock back: %v, want ErrInvalid", err)
	}
	if st, err := c.Test.Freeze(ctx, false); err != nil || st.Frozen || !st.Now.Equal(at) {
		t.Errorf("Test.Freeze(false): %+v, %v", st, err)
	}
	err = c.Test.RegisterMove(ctx, &client.Move{
		Name: "Jane Doe",
		From: client.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"},
		To:   client.AddressInput{AddressLine1: "1 Lake Shore Dr", LastLine: "Chicago, IL 60611"},
	})
	if err != nil {
		t.Fatalf("Test.RegisterMove: %v", err)
	}

	// Under /v1 the test routes are still found at the root.
	if _, err := client.New(s.URL+"/v1/", testKey).Test.Now(ctx); err != nil {
		t.Errorf("Test.Now with a /v1 base: %v", err)
	}
}

func TestErrors(t *testing.T) {
	s := newServer(t)
	c := newClient(s, newWaits())
	a, _ := publishedAsset(t, c)

	req := letterRequest(a.ID)
	req.UseType = "spam"
	req.Variables = nil
	_, err := c.CreateLetter(ctx, req)
	var e *client.Error
	if !errors.As(err, &e) || !errors.Is(err, client.ErrInvalid) {
		t.Fatalf("invalid letter: %v, want an *Error matching ErrInvalid", err)
	}
	if e.StatusCode != 400 || e.Code != "invalid-request" || e.Type != "https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.1" ||
		e.Title == "" || e.Detail == "" || e.RequestID == "" {
		t.Errorf("error %+v", e)
	}
	want := []string{"useType", "variables[name]"}
	var got []string
	for _, f := range want {
		if e.Fields[f] != "" {
			got = append(got, f)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" || len(e.Fields) != 2 {
		t.Errorf("fields %v, want %v", e.Fields, want)
	}

	_, err = c.GetLetter(ctx, "ltr_01kjqh0cc0abyzr1s1gch2evrn")
	if !errors.Is(err, client.ErrNotFound) || errors.Is(err, client.ErrInvalid) {
		t.Errorf("unknown letter: %v, want ErrNotFound only", err)
	}
	_, err = client.New(s.URL, "nope").GetAsset(ctx, a.ID)
	if !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("unknown key: %v, want ErrUnauthorized", err)
	}
	_, err = c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Other"}, client.IdempotencyKey("reused"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Another"}, client.IdempotencyKey("reused"))
	if !errors.Is(err, client.ErrIdempotencyKeyReused) {
		t.Errorf("a key reused for another request: %v, want ErrIdempotencyKeyReused", err)
	}
	if _, err := client.New(s.URL, testKey).Test.Advance(ctx, -time.Hour); !errors.Is(err, client.ErrInvalid) {
		t.Errorf("moving the clock back: %v, want ErrInvalid", err)
	}
}

// TestVersionContentFormerName reads the answers of a server from before
// content.content, which sent the content as data.
func TestVersionContentFormerName(t *testing.T) {
	var v client.AssetVersion
	old := `{"id":"astv_1","assetId":"ast_1","status":"draft","content":{"source":"inline","type":"text/html","data":"<p>Hi</p>"},"contentLength":9}`
	if err := json.Unmarshal([]byte(old), &v); err != nil || v.Content.Content != "<p>Hi</p>" || v.Content.Type != "text/html" {
		t.Errorf("older answer read as %+v, %v", v.Content, err)
	}
	both := `{"source":"inline","type":"text/html","content":"<p>new</p>","data":"<p>old</p>"}`
	var c client.VersionContent
	if err := json.Unmarshal([]byte(both), &c); err != nil || c.Content != "<p>new</p>" {
		t.Errorf("content and data read as %+v, %v; want content", c, err)
	}
	if b, _ := json.Marshal(client.VersionContent{Type: "text/html", Content: "x"}); string(b) != `{"type":"text/html","content":"x"}` {
		t.Errorf("sent as %s", b)
	}
}

// TestEmptyEnumsAreNotSent: a request type's enumeration left at its zero
// value is not sent, as a field left out: a version's content type then
// takes the server's default (the asset's first type), and a letter without
// its use type or content type is refused naming them with every other
// field missing, rather than for sending "", which no enumeration holds.
func TestEmptyEnumsAreNotSent(t *testing.T) {
	s := newServer(t)
	c := newClient(s, newWaits())
	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome", Type: client.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.CreateVersion(ctx, a.ID, &client.CreateVersionRequest{Content: &client.VersionContent{Content: template}, Publish: true})
	if err != nil {
		t.Fatalf("a version whose content type is left empty: %v", err)
	}
	if v.Content.Type != "text/html" {
		t.Errorf("content type %q, want the template's text/html", v.Content.Type)
	}
	_, err = c.CreateLetter(ctx, &client.CreateLetterRequest{Content: &client.LetterContent{AssetID: a.ID}})
	var e *client.Error
	if !errors.As(err, &e) || !errors.Is(err, client.ErrInvalid) {
		t.Fatalf("a letter without its use type: %v, want ErrInvalid", err)
	}
	for _, f := range []string{"sender", "recipient", "content.type", "useType"} {
		if msg, ok := e.Fields[f]; !ok || strings.Contains(msg, "can not be empty") {
			t.Errorf("field %s: %q, want it named as missing (fields %v)", f, msg, e.Fields)
		}
	}
	for _, zero := range []any{client.CreateLetterRequest{}, client.LetterContent{}, client.VersionContent{}} {
		if b, _ := json.Marshal(zero); strings.Contains(string(b), `ype":""`) {
			t.Errorf("%T sent as %s", zero, b)
		}
	}
}

func TestErrorIsStatusClass(t *testing.T) {
	classes := []error{client.ErrInvalid, client.ErrUnauthorized, client.ErrForbidden, client.ErrNotFound,
		client.ErrConflict, client.ErrTooLarge, client.ErrIdempotencyKeyReused, client.ErrRateLimited, client.ErrServer}
	for status, want := range map[int]error{
		400: client.ErrInvalid, 401: client.ErrUnauthorized, 403: client.ErrForbidden, 404: client.ErrNotFound,
		409: client.ErrConflict, 413: client.ErrTooLarge, 422: client.ErrIdempotencyKeyReused,
		429: client.ErrRateLimited, 500: client.ErrServer, 503: client.ErrServer, 405: nil,
	} {
		err := error(&client.Error{StatusCode: status, Code: "x", Detail: "d"})
		for _, class := range classes {
			if got := errors.Is(err, class); got != errors.Is(class, want) {
				t.Errorf("%d: errors.Is(%v) = %v", status, class, got)
			}
		}
	}
	e := &client.Error{StatusCode: 400, Code: "invalid-request", Detail: "the request is invalid", Fields: map[string]string{"b": "bad", "a": "worse"}}
	if got, want := e.Error(), "lettershop: 400 invalid-request: the request is invalid; a: worse; b: bad"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// checkKeys fails unless every write carried an idempotency key of its own
// and no read carried one.
func checkKeys(t *testing.T, rec *recorder) {
	t.Helper()
	seen := map[string]string{}
	writes := 0
	for _, a := range rec.all() {
		if a.Method == "GET" {
			if a.IdempotencyKey != "" {
				t.Errorf("GET %s carried Idempotency-Key %q", a.Path, a.IdempotencyKey)
			}
			continue
		}
		writes++
		what := a.Method + " " + a.Path
		switch prev, dup := seen[a.IdempotencyKey]; {
		case a.IdempotencyKey == "":
			t.Errorf("%s carried no Idempotency-Key", what)
		case dup && a.IdempotencyKey != "welcome-jane-1":
			t.Errorf("%s reused the key of %s", what, prev)
		}
		seen[a.IdempotencyKey] = what
	}
	if writes < 5 {
		t.Errorf("%d writes recorded; the test made more", writes)
	}
}

// TestUploadVersionContent checks the request UploadVersionContent sends:
// the raw bytes, their type, and an idempotency key. The route is served by
// servers newer than this package's test server, so a handler stands in.
func TestUploadVersionContent(t *testing.T) {
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	var got struct {
		method, path, contentType, key string
		body                           []byte
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path = r.Method, r.URL.Path
		got.contentType, got.key = r.Header.Get("Content-Type"), r.Header.Get("Idempotency-Key")
		got.body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"astv_2","assetId":"ast_1","status":"draft","content":{"source":"inline","type":"application/pdf"},"contentLength":`+strconv.Itoa(len(pdf))+`,"variableDefinitions":[],"createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z"}`)
	}))
	defer srv.Close()
	v, err := client.New(srv.URL+"/v1", testKey).UploadVersionContent(ctx, "ast_1", "astv_2", "application/pdf", pdf)
	if err != nil {
		t.Fatal(err)
	}
	if got.method != "PUT" || got.path != "/v1/assets/ast_1/versions/astv_2/content" || got.contentType != "application/pdf" ||
		got.key == "" || !bytes.Equal(got.body, pdf) {
		t.Errorf("request %s %s, Content-Type %q, key %q, body %q", got.method, got.path, got.contentType, got.key, got.body)
	}
	if v.ContentLength != len(pdf) || v.Content.Type != "application/pdf" {
		t.Errorf("version %+v", v)
	}
}
