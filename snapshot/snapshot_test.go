package snapshot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/oklog/ulid/v2"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/storage"
)

var ctx = context.Background()

// t0 is when the source account's records were made.
var t0 = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// id returns an id of prefix whose ULID has the time t0+n seconds and
// randomness from seed: ids made with growing n sort in that order.
func id(prefix string, n int, seed byte) string {
	u := ulid.MustNew(ulid.Timestamp(t0.Add(time.Duration(n)*time.Second)), bytes.NewReader(bytes.Repeat([]byte{seed}, 10)))
	return prefix + strings.ToLower(u.String())
}

// The source account's ids. orphan is an id a document names that no
// record of the snapshot has (a letter since deleted, say): it is
// rewritten too, as every id a document holds is. stranger is a ULID in
// upper case and notAnID one inside a longer word: neither is an id.
var (
	assetID   = id("ast_", 1, 1)
	draftID   = id("astv_", 2, 2)
	versionID = id("astv_", 3, 3)
	letter1   = id("ltr_", 4, 4)
	letter2   = id("ltr_", 5, 5)
	event1    = id("evt_", 4, 6)
	event2    = id("evt_", 6, 7)
	event3    = id("evt_", 5, 8)
	hookID    = id("wh_", 7, 9)
	orphan    = id("ltr_", 0, 10)
	stranger  = "ltr_" + strings.ToUpper(id("", 8, 11))
	notAnID   = "xltr_" + id("", 9, 12)[0:26]
)

// source writes the source account's records into a new memstore: an
// asset with a draft and a published version and their content, a letter
// due to move on and one mailed, and a webhook, whose documents name one
// another's ids in every place an id stands.
func source(t testing.TB) *memstore.Store {
	t.Helper()
	st := memstore.New()
	const acct = "acct_src"
	doc := func(s string) storage.Document { return storage.Encoded(s) }
	if _, err := st.WriteAsset(ctx, storage.AssetWrite{
		Asset: storage.Asset{ID: assetID, Account: acct, Metadata: []storage.Metadata{{Key: "replaces", Value: letter1}},
			CreatedAt: t0, ModifiedAt: t0.Add(time.Minute), Doc: doc(`{"name":"Welcome","published":"` + versionID + `"}`)},
		PutVersions: []storage.AssetVersion{
			{ID: draftID, Account: acct, AssetID: assetID, Status: "draft", CreatedAt: t0, ModifiedAt: t0, Doc: doc(`{"hash":"h1","asset":"` + assetID + `"}`)},
			{ID: versionID, Account: acct, AssetID: assetID, Status: "published", CreatedAt: t0, ModifiedAt: t0, Doc: doc(`{"hash":"h2","asset":"` + assetID + `","clonedFrom":"` + draftID + `"}`)},
		},
		PutContent: []storage.Content{{Account: acct, Hash: "h1", Data: []byte("<p>draft</p>")}, {Account: acct, Hash: "h2", Data: []byte("<p>Dear {{name}}</p>")}},
	}); err != nil {
		t.Fatal(err)
	}
	letters := []storage.Letter{
		{ID: letter1, Account: acct, Status: "queued", ExternalID: "order-" + letter2, Metadata: []storage.Metadata{{Key: "sibling", Value: letter2}},
			CreatedAt: t0, ModifiedAt: t0, DueAt: t0.Add(2 * time.Hour),
			Doc: doc(`{"content":{"assetId":"` + assetID + `","assetVersionId":"` + versionID + `"},"snapshot":{"hash":"h2"},` +
				`"url":"https://lettershop.test/letters/` + letter1 + `/pdf","events":[{"id":"` + event1 + `"},{"id":"` + event2 + `"}],` +
				`"replaces":"` + orphan + `","note":"` + stranger + ` ` + notAnID + `"}`)},
		{ID: letter2, Account: acct, Status: "mailed", CreatedAt: t0.Add(time.Second), ModifiedAt: t0.Add(time.Hour),
			Doc: doc(`{"snapshot":{"hash":"h2"},"events":[{"id":"` + event3 + `"}],"then":"` + letter1 + `"}`)},
	}
	for _, l := range letters {
		if _, err := st.CreateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.WriteWebhook(ctx, storage.Webhook{ID: hookID, Account: acct, URL: "https://example.test/hooks", Events: []string{"letter.mailed"},
		Metadata: []storage.Metadata{{Key: "team", Value: "ops"}}, Status: storage.WebhookEnabled, Secret: "whsec_1",
		CreatedAt: t0, ModifiedAt: t0}, 0, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// hashes reads the content hashes of the test's documents.
func hashes(kind string, d storage.Document) ([]string, error) {
	b, err := storage.EncodeDocument(d)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Hash     string `json:"hash"`
		Snapshot struct {
			Hash string `json:"hash"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if kind == "version" {
		return []string{doc.Hash}, nil
	}
	return []string{doc.Snapshot.Hash}, nil
}

var clock = snapshot.Clock{Now: t0.Add(time.Hour)}

func take(t testing.TB, st storage.Storage, account string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Take(ctx, st, account, clock, hashes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newIDs makes ids as the service does: a kind, and a ULID of the time
// given with seeded, monotonic randomness.
func newIDs(seed int64) snapshot.NewID {
	entropy := ulid.Monotonic(rand.New(rand.NewSource(seed)), 0)
	return func(prefix string, at time.Time) string {
		return prefix + strings.ToLower(ulid.MustNew(ulid.Timestamp(at), entropy).String())
	}
}

// decode is a snapshot's JSON decoded again, as a fixture.
func decode(t testing.TB, v any) *snapshot.Snapshot {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := snapshot.DecodeFixture(b)
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return snaps[0]
}

var same = cmp.Options{cmpopts.IgnoreUnexported(snapshot.Snapshot{}), cmpopts.EquateEmpty()}

// A snapshot taken, written as JSON, read back and restored with its ids
// into another store is the account as it was: taken again, it is the
// same document.
func TestRoundTrip(t *testing.T) {
	st := source(t)
	snap := take(t, st, "acct_src")
	if snap.Format != snapshot.Format || snap.Account != "acct_src" {
		t.Errorf("format %q, account %q", snap.Format, snap.Account)
	}
	if len(snap.Assets) != 1 || len(snap.Versions) != 2 || len(snap.Content) != 2 || len(snap.Letters) != 2 || len(snap.Webhooks) != 1 {
		t.Fatalf("snapshot of %d assets, %d versions, %d contents, %d letters, %d webhooks", len(snap.Assets), len(snap.Versions), len(snap.Content), len(snap.Letters), len(snap.Webhooks))
	}
	read := decode(t, snap)
	if d := cmp.Diff(snap, read, same); d != "" {
		t.Errorf("decoded snapshot differs (-taken +decoded):\n%s", d)
	}
	other := memstore.New()
	m, err := read.Restore(ctx, other, "acct_src", newIDs(1), true)
	if err != nil {
		t.Fatal(err)
	}
	for old, n := range m {
		if old != n {
			t.Errorf("kept id %s restored as %s", old, n)
		}
	}
	if d := cmp.Diff(snap, take(t, other, "acct_src"), same); d != "" {
		t.Errorf("restored account differs (-taken +restored):\n%s", d)
	}
}

// Restored with fresh ids, every id is replaced wherever it stands: the
// records' own, the version's asset, and in the documents every id they
// hold (as a value, inside a URL, of an event, of a record no longer in
// the snapshot); nothing else is: not metadata, not externalId, not an id
// in upper case nor inside a longer word. New ids keep the kind, the time
// and the order of the old.
func TestFreshIDsEverywhere(t *testing.T) {
	st := source(t)
	snap := take(t, st, "acct_src")
	m, err := snap.Restore(ctx, st, "acct_dst", newIDs(1), false)
	if err != nil {
		t.Fatal(err)
	}
	olds := []string{assetID, draftID, versionID, letter1, letter2, event1, event2, event3, hookID, orphan}
	slices.Sort(olds)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, olds) {
		t.Fatalf("ids rewritten %v, want %v", keys, olds)
	}
	var news []string
	for _, old := range olds {
		n := m[old]
		news = append(news, n)
		p := old[:strings.IndexByte(old, '_')+1]
		if n == old || !strings.HasPrefix(n, p) || len(n) != len(old) {
			t.Errorf("%s became %s", old, n)
		}
		if ou, nu := ulid.MustParse(strings.ToUpper(old[len(p):])), ulid.MustParse(strings.ToUpper(n[len(p):])); ou.Time() != nu.Time() {
			t.Errorf("%s became %s, of another time", old, n)
		}
	}
	if !slices.IsSorted(news) {
		t.Errorf("new ids %v are not in the old ids' order", news)
	}

	// What the account should read: the source's snapshot with every id
	// replaced where it stands, and only there.
	want := take(t, st, "acct_src")
	want.Account = "acct_dst"
	rewrite := func(doc json.RawMessage) json.RawMessage {
		s := string(doc)
		for old, n := range m {
			s = strings.ReplaceAll(s, old, n)
		}
		return json.RawMessage(s)
	}
	for i := range want.Assets {
		a := &want.Assets[i]
		a.ID, a.Doc = m[a.ID], rewrite(a.Doc)
	}
	for i := range want.Versions {
		v := &want.Versions[i]
		v.ID, v.AssetID, v.Doc = m[v.ID], m[v.AssetID], rewrite(v.Doc)
	}
	for i := range want.Letters {
		l := &want.Letters[i]
		l.ID, l.Doc = m[l.ID], rewrite(l.Doc)
	}
	for i := range want.Webhooks {
		want.Webhooks[i].ID = m[want.Webhooks[i].ID]
	}
	got := take(t, st, "acct_dst")
	if d := cmp.Diff(want, got, same); d != "" {
		t.Errorf("restored account (-want +got):\n%s", d)
	}
	// The text that is no id stays, and metadata and externalId keep the
	// caller's values.
	l1 := string(got.Letters[1].Doc)
	if !strings.Contains(l1, stranger) || !strings.Contains(l1, notAnID) {
		t.Errorf("text that is no id was rewritten: %s", l1)
	}
	if got.Letters[1].ExternalID != "order-"+letter2 || got.Letters[1].Metadata[0].Value != letter2 || got.Assets[0].Metadata[0].Value != letter1 {
		t.Errorf("metadata or externalId rewritten: %+v %+v", got.Letters[1], got.Assets[0].Metadata)
	}
	// The source is as it was, and a second restore gets ids of its own.
	if d := cmp.Diff(snap, take(t, st, "acct_src"), same); d != "" {
		t.Errorf("the source changed:\n%s", d)
	}
	m2, err := snap.Restore(ctx, st, "acct_third", newIDs(2), false)
	if err != nil {
		t.Fatal(err)
	}
	for old, n := range m2 {
		if n == m[old] {
			t.Errorf("%s restored twice as %s", old, n)
		}
	}
}

// A store that is no storage.Restorer gets the records one write at a
// time, and reads the same.
func TestRestoreOneByOne(t *testing.T) {
	snap := take(t, source(t), "acct_src")
	whole, each := memstore.New(), memstore.New()
	if _, err := snap.Restore(ctx, whole, "acct_src", newIDs(1), true); err != nil {
		t.Fatal(err)
	}
	if _, err := snap.Restore(ctx, struct{ storage.Storage }{each}, "acct_src", newIDs(1), true); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(take(t, whole, "acct_src"), take(t, each, "acct_src"), same); d != "" {
		t.Errorf("one by one (-whole +each):\n%s", d)
	}
	// Content without an asset to carry it is for a Restorer only.
	noAssets := decode(t, snap)
	noAssets.Assets, noAssets.Versions = nil, nil
	noAssets = decode(t, noAssets)
	if _, err := noAssets.Restore(ctx, struct{ storage.Storage }{memstore.New()}, "acct_src", newIDs(1), true); err == nil || !strings.Contains(err.Error(), "storage.Restorer") {
		t.Errorf("content without an asset into a store without RestoreRecords: %v", err)
	}
	st := memstore.New()
	if _, err := noAssets.Restore(ctx, st, "acct_src", newIDs(1), true); err != nil {
		t.Fatal(err)
	}
	if got, err := st.GetContent(ctx, "acct_src", "h2"); err != nil || string(got) != "<p>Dear {{name}}</p>" {
		t.Errorf("content restored without its asset: %q, %v", got, err)
	}
}

// A restore into a store that holds one of the ids fails, and with a
// Restorer writes nothing.
func TestRestoreTaken(t *testing.T) {
	st := source(t)
	snap := take(t, st, "acct_src")
	_, err := snap.Restore(ctx, st, "acct_dst", newIDs(1), true)
	if !errors.Is(err, storage.ErrAlreadyExists) {
		t.Fatalf("restore of taken ids: %v", err)
	}
	if got := take(t, st, "acct_dst"); len(got.Assets)+len(got.Letters)+len(got.Webhooks)+len(got.Content) != 0 {
		t.Errorf("a refused restore wrote %+v", got)
	}
}

func TestEarliest(t *testing.T) {
	snap := take(t, source(t), "acct_src")
	if got := snap.Earliest(); !got.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("Earliest = %s, want the queued letter's due time", got)
	}
	snap.Letters = nil
	if got := snap.Earliest(); !got.IsZero() {
		t.Errorf("Earliest of no letters = %s", got)
	}
}

// sourceJSON is the source's snapshot as a JSON object to spoil.
func sourceJSON(t testing.TB) map[string]any {
	t.Helper()
	b, err := json.Marshal(take(t, source(t), "acct_src"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at returns the object at a path of m: "letters", 1 is m["letters"][1].
func at(m map[string]any, path ...any) map[string]any {
	var v any = m
	for _, p := range path {
		switch p := p.(type) {
		case string:
			v = v.(map[string]any)[p]
		case int:
			v = v.([]any)[p]
		}
	}
	return v.(map[string]any)
}

// A snapshot that is not one, or not of this form, or whose records are
// malformed, is refused before anything is written, naming the field.
func TestRefused(t *testing.T) {
	for _, c := range []struct {
		name, field, message string
		spoil                func(m map[string]any)
	}{
		{"no format", "format", "not a lettershop snapshot", func(m map[string]any) { delete(m, "format") }},
		{"another format", "format", "not a lettershop snapshot", func(m map[string]any) { m["format"] = "acme-export/1" }},
		{"a later version", "format", `"lettershop-snapshot/2" is a form of snapshot this lettershop does not read`, func(m map[string]any) { m["format"] = "lettershop-snapshot/2" }},
		{"no clock", "clock.now", "is required", func(m map[string]any) { delete(m, "clock") }},
		{"no account", "account", "is required", func(m map[string]any) { m["account"] = "" }},
		{"an id of another kind", "assets[0].id", "must be ast_ followed by a ULID", func(m map[string]any) { at(m, "assets", 0)["id"] = letter1 }},
		{"an id in upper case", "letters[0].id", "must be ltr_ followed by a ULID", func(m map[string]any) { at(m, "letters", 0)["id"] = stranger }},
		{"an id too short", "webhooks[0].id", "must be wh_", func(m map[string]any) { at(m, "webhooks", 0)["id"] = "wh_1" }},
		{"a ULID past its time", "letters[1].id", "must be ltr_", func(m map[string]any) { at(m, "letters", 1)["id"] = "ltr_8zzzzzzzzzzzzzzzzzzzzzzz" }},
		{"an id twice", "versions[1].id", "in the snapshot twice", func(m map[string]any) { at(m, "versions", 1)["id"] = at(m, "versions", 0)["id"] }},
		{"a version of no asset", "versions[0].assetId", "names no asset", func(m map[string]any) { at(m, "versions", 0)["assetId"] = id("ast_", 20, 20) }},
		{"a version without status", "versions[1].status", "is required", func(m map[string]any) { at(m, "versions", 1)["status"] = "" }},
		{"a document that is an array", "letters[1].doc", "must be a JSON object", func(m map[string]any) { at(m, "letters", 1)["doc"] = []any{} }},
		{"a document that is null", "assets[0].doc", "must be a JSON object", func(m map[string]any) { at(m, "assets", 0)["doc"] = nil }},
		{"a document that is text", "versions[0].doc", "must be a JSON object", func(m map[string]any) { at(m, "versions", 0)["doc"] = "{}" }},
		{"a letter without status", "letters[0].status", "is required", func(m map[string]any) { delete(at(m, "letters", 0), "status") }},
		{"a webhook without secret", "webhooks[0]", "url and secret are required", func(m map[string]any) { at(m, "webhooks", 0)["secret"] = "" }},
		{"content without hash", "content[1].hash", "is required", func(m map[string]any) { at(m, "content", 1)["hash"] = "" }},
		{"a letter due before 1970", "letters[0].dueAt", "must be between", func(m map[string]any) { at(m, "letters", 0)["dueAt"] = "1969-12-31T23:59:59.999Z" }},
		{"an asset made after the clock", "assets[0].createdAt", "the snapshot's clock.now", func(m map[string]any) { at(m, "assets", 0)["createdAt"] = "2100-01-01T00:00:00Z" }},
		{"a version made before 1970", "versions[1].createdAt", "must be between 1970", func(m map[string]any) { at(m, "versions", 1)["createdAt"] = "1969-12-31T23:59:59.999Z" }},
		{"a webhook changed before it was made", "webhooks[0].modifiedAt", "between the record's createdAt", func(m map[string]any) {
			at(m, "webhooks", 0)["modifiedAt"] = "1970-01-01T00:00:00Z"
		}},
		{"a foreign document", "format", "not a lettershop snapshot", func(m map[string]any) {
			clear(m)
			m["id"], m["status"] = letter1, "queued"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := sourceJSON(t)
			c.spoil(m)
			b, _ := json.Marshal(m)
			_, err := snapshot.DecodeFixture(b)
			var fe *snapshot.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Message, c.message) || !errors.Is(err, snapshot.ErrInvalid) {
				t.Fatalf("error %v, want %s: ...%s...", err, c.field, c.message)
			}
			// Restore refuses it too, and writes nothing.
			var s snapshot.Snapshot
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if c.field == "account" {
				return // a fixture's to name; Restore is told the account
			}
			st := memstore.New()
			if _, err := s.Restore(ctx, st, "acct_dst", newIDs(1), false); err == nil {
				t.Fatal("Restore took it")
			}
			if got := take(t, st, "acct_dst"); len(got.Assets)+len(got.Letters)+len(got.Webhooks) != 0 {
				t.Errorf("a refused snapshot wrote %+v", got)
			}
		})
	}
}

// A fixture is one snapshot or an array of them, each of its own account;
// what is wrong is named with where it is: the snapshot's index and
// field, or the line and column of JSON that does not parse.
func TestDecodeFixture(t *testing.T) {
	one := sourceJSON(t)
	two := sourceJSON(t)
	two["account"] = "acct_two"
	arr, _ := json.MarshalIndent([]any{one, two}, "", "  ")
	snaps, err := snapshot.DecodeFixture(arr)
	if err != nil || len(snaps) != 2 || snaps[0].Account != "acct_src" || snaps[1].Account != "acct_two" {
		t.Fatalf("array of two: %d, %v", len(snaps), err)
	}
	bom := append([]byte("\xef\xbb\xbf\n "), arr...)
	if snaps, err := snapshot.DecodeFixture(bom); err != nil || len(snaps) != 2 {
		t.Errorf("with a byte-order mark and spaces: %v", err)
	}

	spoilt := sourceJSON(t)
	spoilt["account"] = "acct_three"
	at(spoilt, "letters", 1)["id"] = "ltr_1"
	dup := sourceJSON(t)
	for _, c := range []struct {
		name, fixture, want string
	}{
		{"empty", "  \n", "the fixture is empty"},
		{"an empty array", "[]", "empty array"},
		{"neither object nor array", `"lettershop-snapshot/1"`, `begins with "\""`},
		{"a field of the second", mustJSON(t, []any{one, spoilt}), `[1].letters[1].id: must be ltr_ followed by a ULID, got "ltr_1"`},
		{"two of one account", mustJSON(t, []any{one, dup}), `[1].account: "acct_src" is the account of snapshot [0] too`},
		{"a syntax error", "{\n  \"format\": \"lettershop-snapshot/1\",\n  \"account\": \"a\",,\n}", "line 3, column 18"},
		{"a syntax error in the second", "[\n" + mustJSON(t, one) + ",\n  {\"format\": 1,}\n]", "line 3, column 16"},
		{"a type error", "{\"format\": \"lettershop-snapshot/1\",\n\"letters\": [{\"id\": 7}]}", "line 2, column 20: letters.id: a JSON number cannot be a string"},
		{"a type error in the second", "[" + mustJSON(t, one) + ",\n{\"webhooks\": [{\"events\": \"all\"}]}]", "line 2, column 30: [1].webhooks.events: a JSON string cannot be a []string"},
		{"cut short", mustJSON(t, one)[:100], "it ends in the middle of a snapshot"},
		{"more after the snapshot", mustJSON(t, one) + " {}", "goes on after its snapshot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := snapshot.DecodeFixture([]byte(c.fixture))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want ...%s...", err, c.want)
			}
		})
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzDecodeFixture: decoding any bytes never panics; what decodes
// encodes again to what decodes the same; and every snapshot that decodes
// restores into an empty store, with its ids and with fresh ones.
func FuzzDecodeFixture(f *testing.F) {
	src := take(f, source(f), "acct_src")
	one, _ := json.Marshal(src)
	arr, _ := json.Marshal([]*snapshot.Snapshot{src})
	f.Add(one)
	f.Add(arr)
	f.Add([]byte(`{"format":"lettershop-snapshot/1","account":"a","clock":{"now":"2026-03-02T15:00:00Z"}}`))
	f.Add([]byte(`[{"format":"lettershop-snapshot/2"}]`))
	f.Add([]byte(`{"format":"lettershop-snapshot/1","account":"a","clock":{"now":"2026-03-02T15:00:00Z"},"letters":[{"id":"ltr_01kjqh0cc0zaq0rt4gw3n9jqpr","status":"queued","createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z","doc":{"x":"ltr_01kjqh0cc0zaq0rt4gw3n9jqpr evt_7zzzzzzzzzzzzzzzzzzzzzzzzz"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		snaps, err := snapshot.DecodeFixture(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(snaps)
		if err != nil {
			t.Fatalf("a decoded fixture does not encode: %v", err)
		}
		snaps2, err := snapshot.DecodeFixture(again)
		if err != nil {
			t.Fatalf("a decoded fixture, encoded, does not decode: %v\n%s", err, again)
		}
		if d := cmp.Diff(snaps, snaps2, same); d != "" {
			t.Fatalf("decoded again (-first +second):\n%s", d)
		}
		for i, s := range snaps {
			for _, keep := range []bool{true, false} {
				m, err := s.Restore(ctx, memstore.New(), fmt.Sprint("acct_", i), newIDs(1), keep)
				if err != nil {
					t.Fatalf("snapshot %d (keep %v) decodes but does not restore: %v", i, keep, err)
				}
				for old, n := range m {
					if keep != (old == n) {
						t.Fatalf("snapshot %d (keep %v): %s restored as %s", i, keep, old, n)
					}
				}
			}
		}
	})
}

// An account is empty for a restore while it holds none of the records a
// snapshot writes; any one of them makes it not.
func TestEmpty(t *testing.T) {
	st := source(t)
	for _, tt := range []struct {
		account string
		want    bool
	}{{"acct_src", false}, {"acct_new", true}} {
		if got, err := snapshot.Empty(ctx, st, tt.account); err != nil || got != tt.want {
			t.Errorf("Empty(%s) = %v, %v; want %v", tt.account, got, err, tt.want)
		}
	}
	only := memstore.New()
	if _, err := only.WriteWebhook(ctx, storage.Webhook{ID: hookID, Account: "acct", URL: "https://example.test/hooks", Events: []string{"letter.mailed"},
		Status: storage.WebhookEnabled, Secret: "whsec_1", CreatedAt: t0, ModifiedAt: t0}, 0, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := snapshot.Empty(ctx, only, "acct"); err != nil || got {
		t.Errorf("Empty of an account with a webhook only = %v, %v; want false", got, err)
	}
	if _, err := snapshot.Empty(ctx, failingList{only}, "acct"); !errors.Is(err, errListing) {
		t.Errorf("Empty on a store that fails: %v; want its error", err)
	}
}

// failingList is a store whose lists of letters fail.
type failingList struct{ storage.Storage }

var errListing = errors.New("listing failed")

func (failingList) ListLetters(context.Context, storage.LetterQuery) ([]storage.Letter, error) {
	return nil, errListing
}
