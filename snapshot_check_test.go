package lettershop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/storage"
)

// TestRestoreChecksRecords checks that a snapshot changed by hand is
// refused, naming the field, when what it would restore the Service could
// not have made: a record whose document refers to content the snapshot
// does not hold (or whose content is not what its hash says or does not
// print), a status, enumeration, length, count or time the API refuses or
// never gives, what the Service keeps beside a record that disagrees with
// it. Nothing is written; the snapshot as taken restores, and so does one
// at each limit.
func TestRestoreChecksRecords(t *testing.T) {
	e, b := sampleAccount(t, 1, 0)
	for _, tc := range []struct {
		name, field string
		change      func(*snapshot.Snapshot)
	}{
		{"a letter without content", "letters[0].doc", func(s *snapshot.Snapshot) { s.Letters[0].Doc = json.RawMessage(`{}`) }},
		{"a letter that can not be read", "letters[0].doc", func(s *snapshot.Snapshot) { s.Letters[0].Doc = json.RawMessage(`{"events":7}`) }},
		{"no content", "versions[0].doc", func(s *snapshot.Snapshot) { s.Content = nil }},
		{"content not its hash's", "content[0].hash", func(s *snapshot.Snapshot) { s.Content[0].Data = []byte("<p>other</p>") }},
		{"a letter's status unknown", "letters[0].status", func(s *snapshot.Snapshot) { s.Letters[0].Status = "lost" }},
		{"a deleted version", "versions[0].status", func(s *snapshot.Snapshot) { s.Versions[0].Status = "deleted" }},
		{"a letter due before 1970", "letters[0].dueAt", func(s *snapshot.Snapshot) { s.Letters[0].DueAt = ptr(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)) }},
		{"a letter due before it was made", "letters[0].dueAt", func(s *snapshot.Snapshot) { s.Letters[0].DueAt = ptr(s.Letters[0].CreatedAt.Add(-time.Millisecond)) }},
		{"a letter made after the clock", "letters[0].createdAt", func(s *snapshot.Snapshot) {
			s.Letters[0].CreatedAt = s.Clock.Now.Add(time.Millisecond)
		}},
		{"a letter changed before it was made", "letters[0].modifiedAt", func(s *snapshot.Snapshot) {
			s.Letters[0].ModifiedAt = s.Letters[0].CreatedAt.Add(-time.Millisecond)
		}},
		{"an asset made before 1970", "assets[0].createdAt", func(s *snapshot.Snapshot) { s.Assets[0].CreatedAt = time.Time{} }},
		{"a letter's status not its life's", "letters[0].doc.life", func(s *snapshot.Snapshot) { s.Letters[0].Status = "mailed" }},
		{"a letter's events miscounted", "letters[0].doc.life", func(s *snapshot.Snapshot) { editDoc(&s.Letters[0].Doc, "life", "events", -1) }},
		{"a letter's metadata over its count", "letters[0].metadata", func(s *snapshot.Snapshot) { s.Letters[0].Metadata = snapPairs(lettershop.MaxMetadataPairs + 1) }},
		{"a metadata value over its length", "letters[0].metadata[0].value", func(s *snapshot.Snapshot) {
			s.Letters[0].Metadata = []snapshot.Pair{{Key: "k", Value: strings.Repeat("v", lettershop.MaxMetadataValueLen+1)}}
		}},
		{"an address line over its length", "letters[0].doc.recipient.address.addressLine1", func(s *snapshot.Snapshot) {
			editDoc(&s.Letters[0].Doc, "recipient", "address", "addressLine1", strings.Repeat("A", 65))
		}},
		{"a name over its length", "letters[0].doc.sender.organization", func(s *snapshot.Snapshot) {
			editDoc(&s.Letters[0].Doc, "sender", "organization", strings.Repeat("B", 65))
		}},
		{"a mail service that does not exist", "letters[0].doc.options.mail.service", func(s *snapshot.Snapshot) { editDoc(&s.Letters[0].Doc, "options", "mail", "service", "pigeon") }},
		{"a use type that does not exist", "letters[0].doc.useType", func(s *snapshot.Snapshot) { editDoc(&s.Letters[0].Doc, "useType", "bulk") }},
		{"a letter printing content of no printable type", "letters[0].doc.snapshot", func(s *snapshot.Snapshot) {
			editDoc(&s.Letters[0].Doc, "snapshot", "type", "application/pdf") // the content is HTML
		}},
		{"an event of a type that does not exist", "letters[0].doc.events[0].type", func(s *snapshot.Snapshot) { editEvent(&s.Letters[0].Doc, "type", "rumour") }},
		{"an event of a status that does not exist", "letters[0].doc.events[0].status", func(s *snapshot.Snapshot) { editEvent(&s.Letters[0].Doc, "status", "lost") }},
		{"an asset's counts not its versions'", "assets[0].doc.counts", func(s *snapshot.Snapshot) { editDoc(&s.Assets[0].Doc, "counts", "published", -1) }},
		{"a published version not there", "assets[0].doc.publishedVersionId", func(s *snapshot.Snapshot) {
			editDoc(&s.Assets[0].Doc, "publishedVersionId", "astv_01kjqh0cc0wt39ryk3349ebrt0")
		}},
		{"an asset type that does not exist", "assets[0].doc.type", func(s *snapshot.Snapshot) { editDoc(&s.Assets[0].Doc, "type", "poster") }},
		{"an asset name over its length", "assets[0].doc.name", func(s *snapshot.Snapshot) {
			editDoc(&s.Assets[0].Doc, "name", strings.Repeat("N", lettershop.MaxAssetName+1))
		}},
		{"a negative content length", "versions[0].doc.length", func(s *snapshot.Snapshot) { editDoc(&s.Versions[0].Doc, "length", -1) }},
		{"a content source that does not exist", "versions[0].doc.source", func(s *snapshot.Snapshot) { editDoc(&s.Versions[0].Doc, "source", "fax") }},
		{"a webhook to a metadata address", "webhooks[0].url", func(s *snapshot.Snapshot) { s.Webhooks[0].URL = "http://169.254.169.254/latest" }},
		{"a webhook to it written another way", "webhooks[0].url", func(s *snapshot.Snapshot) { s.Webhooks[0].URL = "http://0xa9fea9fe/" }},
		{"a webhook url that is not http", "webhooks[0].url", func(s *snapshot.Snapshot) { s.Webhooks[0].URL = "file:///etc/passwd" }},
		{"a webhook event that does not exist", "webhooks[0].events[0]", func(s *snapshot.Snapshot) { s.Webhooks[0].Events = []string{"letter.lost"} }},
		{"a webhook status that does not exist", "webhooks[0].status", func(s *snapshot.Snapshot) { s.Webhooks[0].Status = "paused" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var snap snapshot.Snapshot
			if err := json.Unmarshal(b, &snap); err != nil {
				t.Fatal(err)
			}
			tc.change(&snap)
			account := "restored-" + tc.field
			_, err := e.svc.RestoreAccount(e.ctx, account, &snap, lettershop.RestoreOptions{})
			wantFields(t, err, tc.field)
			if page, err := e.svc.ListLetters(e.ctx, account, lettershop.ListLettersInput{}); err != nil || len(page.Items) != 0 {
				t.Errorf("a refused restore wrote %d letters (%v)", len(page.Items), err)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		change func(*snapshot.Snapshot)
	}{
		{"as taken", func(*snapshot.Snapshot) {}},
		{"metadata at its count", func(s *snapshot.Snapshot) { s.Letters[0].Metadata = snapPairs(lettershop.MaxMetadataPairs) }},
		{"an address line at its length", func(s *snapshot.Snapshot) {
			editDoc(&s.Letters[0].Doc, "recipient", "address", "addressLine1", strings.Repeat("A", 64))
		}},
		{"made at the clock's time", func(s *snapshot.Snapshot) { s.Letters[0].ModifiedAt = s.Clock.Now }},
	} {
		var snap snapshot.Snapshot
		if err := json.Unmarshal(b, &snap); err != nil {
			t.Fatal(err)
		}
		tc.change(&snap)
		if _, err := e.svc.RestoreAccount(e.ctx, "restored-"+tc.name, &snap, lettershop.RestoreOptions{}); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// snapPairs is n metadata pairs of a snapshot.
func snapPairs(n int) []snapshot.Pair {
	out := make([]snapshot.Pair, n)
	for i := range out {
		out[i] = snapshot.Pair{Key: fmt.Sprint("k", i), Value: "v"}
	}
	return out
}

// editDoc sets the member at path (the last element is the value) of a
// record's document.
func editDoc(doc *json.RawMessage, path ...any) {
	var m map[string]any
	if err := json.Unmarshal(*doc, &m); err != nil {
		panic(err)
	}
	at := m
	for _, k := range path[:len(path)-2] {
		at = at[k.(string)].(map[string]any)
	}
	at[path[len(path)-2].(string)] = path[len(path)-1]
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	*doc = b
}

// restoreCounter is a memstore that counts the restores it takes in one
// step (storage.Restorer).
type restoreCounter struct {
	*memstore.Store
	restores atomic.Int32
}

func (s *restoreCounter) RestoreRecords(ctx context.Context, r storage.AccountRecords) error {
	s.restores.Add(1)
	return s.Store.RestoreRecords(ctx, r)
}

// TestRestoreWithHooksTakesOneStep: a Service with hooks (metrics) puts a
// layer in front of its store; a restore still takes the store's one step,
// all or none, rather than writing record by record, and the restored
// letters are not told as created.
func TestRestoreWithHooksTakesOneStep(t *testing.T) {
	st := &restoreCounter{Store: memstore.New()}
	mc := clock.NewMock()
	mc.Set(testStart)
	var created atomic.Int32
	svc := lettershop.New(st, lettershop.WithClock(mc),
		lettershop.WithHooks(lettershop.Hooks{LetterCreated: func(lettershop.LetterStatus) { created.Add(1) }}))
	t.Cleanup(func() { svc.Close() })
	e := &env{svc: svc, clock: mc, store: st.Store, ctx: context.Background()}
	a, _ := e.publishedTemplate(t, acct)
	if _, err := svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
		t.Fatal(err)
	}
	snap, err := svc.SnapshotAccount(e.ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RestoreAccount(e.ctx, "restored", snap, lettershop.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := st.restores.Load(); n != 1 {
		t.Errorf("the store's RestoreRecords was called %d times, want once", n)
	}
	if n := created.Load(); n != 1 {
		t.Errorf("LetterCreated told %d times, want once: for the letter made, not the one restored", n)
	}
}

// editEvent sets a member of the first event of a letter's document.
func editEvent(doc *json.RawMessage, name string, v any) {
	var m map[string]any
	if err := json.Unmarshal(*doc, &m); err != nil {
		panic(err)
	}
	m["events"].([]any)[0].(map[string]any)[name] = v
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	*doc = b
}

// FuzzRestoreAccount restores snapshots changed at random into a Service,
// then reads and runs what it restored: the account's clock moved on, its
// letters stepped and drawn, its lists read. A snapshot is refused or it
// restores records every operation takes: none panics, and none fails but
// with an error of the API's.
func FuzzRestoreAccount(f *testing.F) {
	_, b := sampleAccount(f, 2, 72*time.Hour)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var snap snapshot.Snapshot
		if json.Unmarshal(b, &snap) != nil {
			return
		}
		e := newEnv(t)
		const to = "acct_fuzzed"
		if _, err := e.svc.RestoreAccount(e.ctx, to, &snap, lettershop.RestoreOptions{}); err != nil {
			if lettershop.ErrorCode(err) == lettershop.CodeInternal {
				t.Fatalf("restore: %v", err)
			}
			return
		}
		apiErr := func(what string, err error) {
			t.Helper()
			if err != nil && lettershop.ErrorCode(err) == lettershop.CodeInternal {
				t.Fatalf("%s of a restored account: %v", what, err)
			}
		}
		page, err := e.svc.ListLetters(e.ctx, to, lettershop.ListLettersInput{})
		apiErr("ListLetters", err)
		for _, l := range page.Items {
			_, err := e.svc.RenderLetter(e.ctx, to, l.ID)
			apiErr("RenderLetter", err)
		}
		_, err = e.svc.ListAssets(e.ctx, to, lettershop.ListAssetsInput{})
		apiErr("ListAssets", err)
		_, err = e.svc.ListWebhooks(e.ctx, to, lettershop.ListWebhooksInput{})
		apiErr("ListWebhooks", err)
		_, err = e.svc.AdvanceAccountClock(e.ctx, to, 40*24*time.Hour)
		apiErr("AdvanceAccountClock", err)
		_, err = e.svc.RunDue(e.ctx)
		apiErr("RunDue", err)
		page, err = e.svc.ListLetters(e.ctx, to, lettershop.ListLettersInput{})
		apiErr("ListLetters after a run", err)
		for _, l := range page.Items {
			_, err := e.svc.GetLetter(e.ctx, to, l.ID)
			apiErr("GetLetter", err)
		}
	})
}

// sampleAccount makes an account on a new Service with a published
// template, n letters made from it and a webhook, its clock moved on by
// advance (and what fell due run), and returns the Service and the
// account's snapshot as JSON.
func sampleAccount(tb testing.TB, n int, advance time.Duration) (*env, []byte) {
	tb.Helper()
	e := newEnv(tb)
	a, _ := e.publishedTemplate(tb, acct)
	for range n {
		if _, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com/hooks"}); err != nil {
		tb.Fatal(err)
	}
	if advance > 0 {
		if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, advance); err != nil {
			tb.Fatal(err)
		}
		if _, err := e.svc.RunDue(e.ctx); err != nil {
			tb.Fatal(err)
		}
	}
	taken, err := e.svc.SnapshotAccount(e.ctx, acct)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(taken)
	if err != nil {
		tb.Fatal(err)
	}
	return e, b
}
