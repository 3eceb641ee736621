package lettershop_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/wire"
)

// sentBack is what a client sends back after fetching v: v as JSON, read
// into the update input T, then changed by change (on the JSON object).
func sentBack[T any](t testing.TB, v any, change func(m map[string]any)) T {
	t.Helper()
	var b []byte
	var err error
	if l, ok := v.(*lettershop.Letter); ok {
		b, err = wire.Letter(l) // as the API shows it
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(m)
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	var in T
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("read %s: %v", b, err)
	}
	return in
}

// cassLetter is a letter whose recipient went through CASS, so it carries
// every address processing result.
func cassLetter(t testing.TB, e *env) *lettershop.Letter {
	t.Helper()
	return e.newLetter(t, func(in *lettershop.CreateLetterInput) {
		in.Options = &lettershop.LetterOptions{
			AddressProcessing: &lettershop.AddressProcessing{CassRecipient: &lettershop.CassOptions{Type: "basic"}},
		}
		in.Recipient.Address = lettershop.AddressInput{AddressLine1: "residential house", LastLine: "Springfield IL 62704"}
		in.SendDate = "2026-03-02"
	})
}

func TestUpdateLetterTakesBackWhatWasFetched(t *testing.T) {
	e := newEnv(t)
	l := cassLetter(t, e)
	if l.Recipient.AddressAnalysis == nil || len(l.Recipient.AddressCorrections) == 0 {
		t.Fatalf("recipient not processed: %+v", l.Recipient)
	}
	e.clock.Add(time.Minute)
	fetched := e.get(t, l.ID)

	// The whole letter sent back, one field changed: only that field changes.
	in := sentBack[lettershop.UpdateLetterInput](t, fetched, func(m map[string]any) { m["description"] = "changed" })
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, in)
	if err != nil {
		t.Fatalf("UpdateLetter of the letter as fetched: %v", err)
	}
	want := *fetched
	want.Description = "changed"
	want.ModifiedAt = e.clock.Now()
	if diff := cmp.Diff(&want, u, cmp.AllowUnexported(lettershop.Letter{}, lettershop.MetadataPair{}), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }), ignoreInternals); diff != "" {
		t.Errorf("updated letter (-want +got):\n%s", diff)
	}
	// The mail fields sent back as they were did not restart processing:
	// the letter is ready five minutes after its creation.
	e.clock.Set(testStart.Add(5 * time.Minute))
	if got := e.get(t, l.ID); got.Status != lettershop.StatusReady {
		t.Errorf("five minutes after creation: %s, want ready", got.Status)
	}

	// Once mailed, the whole letter sent back with new metadata succeeds;
	// its past send date, sent back, is no change either.
	e.clock.Set(at("2026-03-04 22:00"))
	mailed := e.get(t, l.ID)
	if mailed.Status != lettershop.StatusMailed {
		t.Fatalf("status %s, want mailed", mailed.Status)
	}
	in = sentBack[lettershop.UpdateLetterInput](t, mailed, func(m map[string]any) {
		m["metadata"] = []map[string]any{{"key": "k", "value": "v"}}
	})
	u, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, in)
	if err != nil {
		t.Fatalf("UpdateLetter of a mailed letter as fetched, new metadata: %v", err)
	}
	if len(u.Metadata) != 1 || u.Metadata[0].Key != "k" || u.Status != lettershop.StatusMailed {
		t.Errorf("after the update: %s, metadata %v", u.Status, u.Metadata)
	}
	// A real change of a mail field is still a conflict.
	in = sentBack[lettershop.UpdateLetterInput](t, u, func(m map[string]any) { m["useType"] = "marketing" })
	_, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, in)
	wantCode(t, err, lettershop.CodeConflict)

	// Sent back unchanged: nothing is written.
	e.clock.Add(time.Minute)
	before := e.get(t, l.ID)
	in = sentBack[lettershop.UpdateLetterInput](t, before, nil)
	if u, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, in); err != nil || !u.ModifiedAt.Equal(before.ModifiedAt) {
		t.Errorf("letter sent back unchanged: %v, modifiedAt %v, want %v", err, u.ModifiedAt, before.ModifiedAt)
	}
}

// ignoreInternals leaves out the letter's revision, which a write moves.
var ignoreInternals = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().String() == ".revision"
}, cmp.Ignore())

func TestUpdateLetterReadOnlyFields(t *testing.T) {
	e := newEnv(t)
	l := cassLetter(t, e)
	other := e.newLetter(t, nil)
	tests := []struct {
		name   string
		change func(m map[string]any)
		fields []string
	}{
		{"id", func(m map[string]any) { m["id"] = other.ID }, []string{"id"}},
		{"status", func(m map[string]any) { m["status"] = "mailed" }, []string{"status"}},
		{"times", func(m map[string]any) {
			m["createdAt"] = "2026-03-02T15:00:01Z"
			m["modifiedAt"] = "2020-01-01T00:00:00Z"
		}, []string{"createdAt", "modifiedAt"}},
		{"url and issueMessage", func(m map[string]any) {
			m["url"] = "https://elsewhere.test/letters/" + l.ID + "/download"
			m["issueMessage"] = "made up"
		}, []string{"url", "issueMessage"}},
		{"events", func(m map[string]any) { m["events"] = []any{} }, []string{"events"}},
		{"an event changed", func(m map[string]any) {
			m["events"].([]any)[0].(map[string]any)["description"] = "other"
		}, []string{"events"}},
		{"address processing results", func(m map[string]any) {
			r := m["recipient"].(map[string]any)
			r["addressComponents"].(map[string]any)["zipCode"] = "62701"
			r["addressAnalysis"].(map[string]any)["dpvVacant"] = "Y"
			r["addressCorrections"] = []any{}
			r["addressMetadata"].(map[string]any)["latitude"] = 1.5
		}, []string{"recipient.addressComponents", "recipient.addressAnalysis", "recipient.addressCorrections", "recipient.addressMetadata"}},
		{"results of a party that had none", func(m map[string]any) {
			m["sender"].(map[string]any)["addressAnalysis"] = map[string]any{"dpvMatchCode": "Y"}
		}, []string{"sender.addressAnalysis"}},
		{"with a real change", func(m map[string]any) {
			m["status"] = "ready"
			m["description"] = "not kept"
		}, []string{"status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.get(t, l.ID)
			in := sentBack[lettershop.UpdateLetterInput](t, before, tt.change)
			_, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, in)
			wantFields(t, err, tt.fields...)
			if after := e.get(t, l.ID); !cmp.Equal(before, after, cmp.AllowUnexported(lettershop.Letter{}, lettershop.MetadataPair{})) {
				t.Errorf("a refused update changed the letter")
			}
		})
	}
	// The same instant written in another offset is the same value.
	fetched := e.get(t, l.ID)
	in := sentBack[lettershop.UpdateLetterInput](t, fetched, func(m map[string]any) {
		m["createdAt"] = fetched.CreatedAt.In(time.FixedZone("EST", -5*3600)).Format(time.RFC3339)
	})
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, in); err != nil {
		t.Errorf("createdAt in another offset: %v", err)
	}
	// A recipient changed with its old processing results sent along: the
	// results are compared with the stored ones and the new address processed.
	in = sentBack[lettershop.UpdateLetterInput](t, fetched, func(m map[string]any) {
		m["recipient"].(map[string]any)["address"] = map[string]any{"addressLine1": "missing unit", "lastLine": "Springfield IL 62701"}
	})
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, in)
	if err != nil {
		t.Fatalf("new recipient address with the old results: %v", err)
	}
	if u.Recipient.Address.AddressLine1 != "500 E Capitol Ave" || u.Recipient.AddressAnalysis.DpvMatchCode != "D" {
		t.Errorf("new recipient not processed: %+v %+v", u.Recipient.Address, u.Recipient.AddressAnalysis)
	}
}

func TestCreateLetterRefusesProcessingResults(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	in := letterInput(a.ID)
	in.Recipient.AddressComponents = &lettershop.AddressComponents{CassType: "none"}
	in.Sender.AddressCorrections = []lettershop.AddressCorrection{}
	_, err := e.svc.CreateLetter(e.ctx, acct, in)
	wantFields(t, err, "recipient.addressComponents", "sender.addressCorrections")
}

func TestUpdateAssetTakesBackWhatWasFetched(t *testing.T) {
	e := newEnv(t)
	a, v := e.publishedTemplate(t, acct)
	e.clock.Add(time.Minute)
	fetched, err := e.svc.GetAsset(e.ctx, acct, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	in := sentBack[lettershop.UpdateAssetInput](t, fetched, func(m map[string]any) { m["name"] = "Renamed" })
	u, err := e.svc.UpdateAsset(e.ctx, acct, a.ID, in)
	if err != nil || u.Name != "Renamed" || u.PublishedVersionID != v.ID || !u.ModifiedAt.Equal(e.clock.Now()) {
		t.Fatalf("asset sent back renamed: %v, %+v", err, u)
	}
	// Sent back unchanged: nothing is written.
	e.clock.Add(time.Minute)
	in = sentBack[lettershop.UpdateAssetInput](t, u, nil)
	if same, err := e.svc.UpdateAsset(e.ctx, acct, a.ID, in); err != nil || !same.ModifiedAt.Equal(u.ModifiedAt) {
		t.Errorf("asset sent back unchanged: %v, modifiedAt %v, want %v", err, same.ModifiedAt, u.ModifiedAt)
	}
	for _, tt := range []struct {
		field string
		value any
	}{
		{"id", "ast_01jzzzzzzzzzzzzzzzzzzzzzzz"}, {"type", "image"}, {"status", "draft"}, {"versionCount", 2},
		{"publishedVersionId", ""}, {"createdAt", "2026-03-02T15:00:00.5Z"}, {"modifiedAt", "2026-03-02T15:02:00Z"},
	} {
		in := sentBack[lettershop.UpdateAssetInput](t, u, func(m map[string]any) { m[tt.field] = tt.value; m["name"] = "Not kept" })
		_, err := e.svc.UpdateAsset(e.ctx, acct, a.ID, in)
		wantFields(t, err, tt.field)
	}
	if got, _ := e.svc.GetAsset(e.ctx, acct, a.ID); got.Name != "Renamed" {
		t.Errorf("a refused update renamed the asset: %q", got.Name)
	}
}

func TestUpdateVersionTakesBackWhatWasFetched(t *testing.T) {
	e := newEnv(t)
	a, v := e.publishedTemplate(t, acct)
	fetched, err := e.svc.GetVersion(e.ctx, acct, a.ID, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	// A published version sent back whole with new notes: its content and
	// definitions as they are are no change.
	in := sentBack[lettershop.UpdateVersionInput](t, fetched, func(m map[string]any) { m["notes"] = "new notes" })
	u, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, in)
	if err != nil || u.Notes != "new notes" {
		t.Fatalf("published version sent back with new notes: %v", err)
	}
	// Without the content itself, as a list shows content too big to carry.
	in = sentBack[lettershop.UpdateVersionInput](t, fetched, func(m map[string]any) {
		delete(m["content"].(map[string]any), "content")
		m["notes"] = "from the list"
	})
	if _, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, in); err != nil {
		t.Errorf("version sent back without its content: %v", err)
	}
	// New content or definitions are refused, naming the field.
	for _, tt := range []struct {
		field  string
		change func(m map[string]any)
	}{
		{"content.content", func(m map[string]any) { m["content"].(map[string]any)["content"] = "<p>other</p>" }},
		{"content.data", func(m map[string]any) {
			c := m["content"].(map[string]any)
			delete(c, "content")
			c["data"] = "<p>other</p>"
		}},
		{"content.source", func(m map[string]any) { m["content"].(map[string]any)["source"] = "externalUrl" }},
		{"variableDefinitions", func(m map[string]any) {
			m["variableDefinitions"].([]any)[0].(map[string]any)["allowEmpty"] = true
		}},
	} {
		in = sentBack[lettershop.UpdateVersionInput](t, fetched, func(m map[string]any) { tt.change(m); m["notes"] = "not kept" })
		_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, in)
		wantFields(t, err, tt.field)
	}
	// Read-only fields are ignored, whatever they hold: those of the real
	// service's own example are of another version.
	in = sentBack[lettershop.UpdateVersionInput](t, fetched, func(m map[string]any) {
		m["id"] = "astv_2jyk1xYhW4n0vVfHirU5eJeXsbw"
		m["assetId"] = "ast_01jzzzzzzzzzzzzzzzzzzzzzzz"
		m["status"] = "draft"
		m["contentType"] = "image/png"
		m["contentLength"] = 100
		m["contentUrl"] = "https://api.posta.co/assets/astv_2jyk1xYhW4n0vVfHirU5eJeXsbw/content"
		m["publish"] = false
		m["createdAt"] = "2023-06-07T12:34:56Z"
		m["modifiedAt"] = "2023-06-07T12:34:56Z"
		m["notes"] = "read-only fields ignored"
	})
	u, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, in)
	if err != nil {
		t.Fatalf("read-only fields of another version: %v", err)
	}
	got, err := e.svc.GetVersion(e.ctx, acct, a.ID, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Notes != "read-only fields ignored" || got.ID != v.ID || got.Status != lettershop.VersionPublished ||
		got.ContentType != "text/html" || got.ContentLength != v.ContentLength || !got.CreatedAt.Equal(v.CreatedAt) ||
		got.ContentURL != "/assets/"+v.ID+"/content" || !got.Publish || cmp.Diff(u, got, cmpopts.IgnoreUnexported(lettershop.AssetVersion{})) != "" {
		t.Errorf("after an update with read-only fields: %+v\nanswered %+v", got, u)
	}
}

// TestUpdateBinaryVersionTakesBackWhatWasFetched checks base64 content
// sent back as fetched is compared by its bytes.
func TestUpdateBinaryVersionTakesBackWhatWasFetched(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "Logo", Type: lettershop.AssetImage})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 40, 20))); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(buf.Bytes())
	v, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "image/png", Content: data}, Publish: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	fetched, err := e.svc.GetVersion(e.ctx, acct, a.ID, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	in := sentBack[lettershop.UpdateVersionInput](t, fetched, func(m map[string]any) { m["notes"] = "logo" })
	if u, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, in); err != nil || u.Notes != "logo" {
		t.Fatalf("image version sent back with new notes: %v", err)
	}
	// Other bytes are a change, refused on a published version.
	other := image.NewGray(image.Rect(0, 0, 40, 21))
	buf.Reset()
	if err := png.Encode(&buf, other); err != nil {
		t.Fatal(err)
	}
	in = sentBack[lettershop.UpdateVersionInput](t, fetched, func(m map[string]any) {
		m["content"] = map[string]any{"source": "inline", "type": "image/png", "content": base64.StdEncoding.EncodeToString(buf.Bytes())}
	})
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, in)
	wantFields(t, err, "content.content")
	// The same bytes under another type are other content: refused on the
	// published version, checked as such on a draft.
	in = sentBack[lettershop.UpdateVersionInput](t, fetched, func(m map[string]any) {
		m["content"] = map[string]any{"source": "inline", "type": "image/jpeg", "content": data}
	})
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v.ID, in)
	wantFields(t, err, "content.type")
	draft, err := e.svc.CloneVersion(e.ctx, acct, a.ID, v.ID, lettershop.CloneVersionInput{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, draft.ID, in)
	wantFields(t, err, "content.content")
}

// A name given in parts is shown with the fullName made of them; that fullName
// is not one the client gave, so it follows the parts: a recipient sent back
// as first given is no change, and a fetched letter sent back with a part
// changed prints the new name rather than the old one. A fullName the client
// gave stays, whatever the parts.
func TestUpdateLetterNameGivenInParts(t *testing.T) {
	e := newEnv(t)
	first := letterInput("").Recipient // Jane Doe, in parts

	// Sent back as first given, once mailed: no change, so no conflict.
	l := e.newLetter(t, withSendDate("2026-03-02"))
	if got := l.Recipient.Individual.FullName; got != "Jane Doe" {
		t.Fatalf("fullName shown %q, want the parts joined", got)
	}
	e.clock.Set(at("2026-03-04 22:00"))
	if got := e.get(t, l.ID); got.Status != lettershop.StatusMailed {
		t.Fatalf("status %s, want mailed", got.Status)
	}
	md := lettershop.Metadata{{Key: "k", Value: "v"}}
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Recipient: first, Metadata: &md}); err != nil {
		t.Errorf("mailed letter, recipient sent as first given, new metadata: %v", err)
	}

	// A fetched queued letter sent back with its first name changed.
	e.clock.Set(at("2026-03-05 09:00"))
	l = e.newLetter(t, nil)
	in := sentBack[lettershop.UpdateLetterInput](t, e.get(t, l.ID), func(m map[string]any) {
		m["recipient"].(map[string]any)["individual"].(map[string]any)["firstName"] = "Joan"
	})
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, in)
	if err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if got := u.Recipient.Individual; got.FirstName != "Joan" || got.FullName != "Joan Doe" {
		t.Errorf("after the first name changed: fullName %q, firstName %q; want Joan Doe, Joan", got.FullName, got.FirstName)
	}

	// A fullName the client gave is kept when a part changes.
	l = e.newLetter(t, func(in *lettershop.CreateLetterInput) {
		in.Recipient.Individual = &lettershop.Individual{FullName: "The Hon. J. Doe", FirstName: "Jane", LastName: "Doe"}
	})
	in = sentBack[lettershop.UpdateLetterInput](t, e.get(t, l.ID), func(m map[string]any) {
		m["recipient"].(map[string]any)["individual"].(map[string]any)["firstName"] = "Joan"
	})
	if u, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, in); err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if got := u.Recipient.Individual.FullName; got != "The Hon. J. Doe" {
		t.Errorf("fullName given, a part changed: %q, want it kept", got)
	}
	// And so is the shown fullName sent back without its parts.
	in = sentBack[lettershop.UpdateLetterInput](t, e.get(t, l.ID), func(m map[string]any) {
		m["recipient"].(map[string]any)["individual"] = map[string]any{"fullName": "Jane Doe"}
	})
	if u, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, in); err != nil {
		t.Fatalf("UpdateLetter, fullName alone: %v", err)
	}
	if got := u.Recipient.Individual; got.FullName != "Jane Doe" || got.FirstName != "" {
		t.Errorf("fullName alone: %+v, want Jane Doe without parts", got)
	}
}
