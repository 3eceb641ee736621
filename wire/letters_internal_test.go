package wire

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

// hiddenMock is a clock.Mock the Service does not take for a test clock
// (it has no Set), so its lifecycle runs as on a real clock: catching up
// at most once a second.
type hiddenMock struct{ clock.Clock }

// TestAppendLetterOfLetterDueShowsSteps: a letter due whose steps no run
// has stored yet is shown with them, as GetLetter shows it, and its
// encoding is not kept under the stored state.
func TestAppendLetterOfLetterDueShowsSteps(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	store := memstore.New()
	mc := clock.NewMock()
	mc.Set(start)
	svc := lettershop.New(store, lettershop.WithClock(hiddenMock{mc}))
	// Its loop stopped, the Service runs nothing due but when a read
	// catches up, once a second of its clock, which stands still: the
	// catch-up of this read is the last.
	svc.Close()
	if _, err := svc.ListLetters(ctx, "acct", lettershop.ListLettersInput{}); err != nil {
		t.Fatal(err)
	}
	// A second server, an hour behind, makes a letter: its first step is
	// due by the first Service's time, and no run of the first stores it.
	behind := clock.NewMock()
	behind.Set(start.Add(-time.Hour))
	other := lettershop.New(store, lettershop.WithClock(behind))
	t.Cleanup(func() { other.Close() })
	made := noteLetter(t, other)

	w := NewLetters(svc)
	for range 2 {
		got, err := w.AppendLetter(ctx, nil, "acct", made.ID)
		if err != nil {
			t.Fatal(err)
		}
		shown, err := svc.GetLetter(ctx, "acct", made.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Letter(shown)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendLetter:\n got %s\nwant %s", got, want)
		}
		if len(shown.Events) == len(made.Events) {
			t.Fatalf("the letter shows no step taken: the test no longer tests a letter due")
		}
	}
	r, err := svc.ReadLetter(ctx, "acct", made.ID)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Stamp()
	if r.AsStored() || st.Revision != 1 {
		t.Fatalf("the letter read is stored at revision %d, as stored %v: its steps were stored", st.Revision, r.AsStored())
	}
	if _, ok := w.letters.get(&st, erasuresOf(w.svc, "acct"), false); ok {
		t.Errorf("the encoding of a letter shown with steps not stored is kept under the stored state")
	}
}

// TestLetterFetchedAndListedIsKeptOnce: a letter read by a fetch and by a
// list without CASS details is encoded and kept once, in the fetch's form,
// which the list shows cut; and what is kept, letters and pages, is held
// at its length, not in the room it was made in, so the caches' bounds
// count the bytes of letters. TestLettersMatchGetLetter holds the bytes.
func TestLetterFetchedAndListedIsKeptOnce(t *testing.T) {
	ctx := context.Background()
	svc := lettershop.New(memstore.New())
	t.Cleanup(func() { svc.Close() })
	a, err := svc.CreateAsset(ctx, "acct", lettershop.CreateAssetInput{Name: "Note", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, "acct", a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>Hello</p>"}, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	const n = 6
	for i := range n {
		in := lettershop.CreateLetterInput{
			Sender:    &lettershop.PartyInput{Organization: "Acme Corp", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
			Recipient: &lettershop.PartyInput{Organization: "Doe Ltd", Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
			Content:   &lettershop.LetterContent{Type: "asset", AssetID: a.ID},
			UseType:   lettershop.UseTransactional,
		}
		if i%2 == 0 {
			in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
				CassSender: &lettershop.CassOptions{Type: "basic"}, CassRecipient: &lettershop.CassOptions{Type: "basic"},
			}}
		}
		if _, err := svc.CreateLetter(ctx, "acct", in); err != nil {
			t.Fatal(err)
		}
	}
	entries := func(w *Letters) (kept, full int) {
		for i := range w.letters.shards {
			for _, e := range w.letters.shards[i].byKey {
				kept++
				if e.val.kept.full {
					full++
				}
				if d := e.val.kept.data; cap(d) != len(d) {
					t.Errorf("an encoding of %d bytes is kept in %d", len(d), cap(d))
				}
			}
		}
		return kept, full
	}
	all := lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: n}}
	for _, fetchFirst := range []bool{true, false} {
		w := NewLetters(svc)
		p, err := svc.ListLetters(ctx, "acct", all)
		if err != nil {
			t.Fatal(err)
		}
		fetch := func() {
			for _, l := range p.Items {
				if _, err := w.AppendLetter(ctx, nil, "acct", l.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		if fetchFirst {
			fetch()
		}
		for range 2 {
			text, err := w.Page(ctx, "acct", all)
			if err != nil {
				t.Fatal(err)
			}
			if room := cap(text.b) - len(text.b); room > len(text.b)/8 {
				t.Errorf("a page of %d bytes is kept with %d bytes of room to spare", len(text.b), room)
			}
		}
		if !fetchFirst {
			fetch()
		}
		if kept, full := entries(w); kept != n || full != n {
			t.Errorf("fetched first %v: %d encodings kept, %d of them full, for %d letters fetched and listed", fetchFirst, kept, full, n)
		}
	}
}

// TestErasedAccountRestoredIsEncodedAfresh: an account erased and
// restored from a snapshot with its ids kept holds its letters at
// revision 1 again, at the time the clock stood still at, in another
// state than the one encoded at revision 1 before: neither the letter's
// encoding nor its page's is served from before the erasure.
func TestErasedAccountRestoredIsEncodedAfresh(t *testing.T) {
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc))
	t.Cleanup(func() { svc.Close() })
	made := noteLetter(t, svc)
	w := NewLetters(svc)
	read := readsOf(t, w, "acct", made.ID)
	before, beforePage := read()
	want := updateEraseRestore(t, svc, svc, made.ID, "acct", before)
	got, gotPage := read()
	if !bytes.Equal(got, want) {
		t.Errorf("AppendLetter after the restore:\n got %s\nwant %s", got, want)
	}
	if bytes.Equal(gotPage, beforePage) || !bytes.Contains(gotPage, []byte(`"spring"`)) {
		t.Errorf("the page after the restore is the page from before:\n%s", gotPage)
	}
}

// TestErasedAccountRestoredElsewhereIsEncodedAfresh: an account erased
// and its snapshot restored with its ids kept into another account holds
// the letters there at revision 1 again, in another state than the one
// encoded at revision 1 before: the encoding kept of the erased
// account's letter is not served to the other account, whose mark of
// erasures never moved.
func TestErasedAccountRestoredElsewhereIsEncodedAfresh(t *testing.T) {
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc))
	t.Cleanup(func() { svc.Close() })
	made := noteLetter(t, svc)
	w := NewLetters(svc)
	before, _ := readsOf(t, w, "acct", made.ID)()
	want := updateEraseRestore(t, svc, svc, made.ID, "acct_elsewhere", before)
	if got, _ := readsOf(t, w, "acct_elsewhere", made.ID)(); !bytes.Equal(got, want) {
		t.Errorf("AppendLetter in the account restored into:\n got %s\nwant %s", got, want)
	}
}

// TestOtherAccountsEraseKeepsEncodings: an erase of another account (a
// suite's test emptying its own account on a server it shares) leaves
// what is kept of this account's letters and pages: a letter and a page
// read again are served from what was kept (marked here, so that a
// serving from it shows), not encoded again.
func TestOtherAccountsEraseKeepsEncodings(t *testing.T) {
	ctx := context.Background()
	svc := lettershop.New(memstore.New())
	t.Cleanup(func() { svc.Close() })
	made := noteLetter(t, svc)
	w := NewLetters(svc)
	// An account of another stripe than acct's (erasemark): one in 256
	// shares it, and its erase rightly drops acct's encodings too.
	other := ""
	for i := 0; other == ""; i++ {
		if i == 16 {
			t.Fatal("every account erased moves the mark of acct")
		}
		name := fmt.Sprint("acct_other_", i)
		mark := erasuresOf(svc, "acct")
		if err := svc.EraseAccount(ctx, name); err != nil {
			t.Fatal(err)
		}
		if erasuresOf(svc, "acct") == mark {
			other = name
		}
	}
	read := readsOf(t, w, "acct", made.ID)
	read()
	const mark = `"kept"`
	sh := w.letters.shard(made.ID)
	e := sh.find(jsonKey{made.ID, 1})
	if e == nil {
		t.Fatal("the letter read is not kept")
	}
	e.val.kept = keptJSON{data: []byte(mark), full: true}
	if len(w.pages.byKey) != 1 {
		t.Fatalf("%d pages kept, want 1", len(w.pages.byKey))
	}
	for _, p := range w.pages.byKey {
		p.val.text = []byte(mark)
	}
	if err := svc.EraseAccount(ctx, other); err != nil {
		t.Fatal(err)
	}
	one, page := read()
	if string(one) != mark {
		t.Errorf("the letter after another account's erase is encoded again: %.80s...", one)
	}
	if string(page) != mark {
		t.Errorf("the page after another account's erase is encoded again: %.80s...", page)
	}
	// The account's own erase drops them.
	if err := svc.EraseAccount(ctx, "acct"); err != nil {
		t.Fatal(err)
	}
	p, err := w.Page(ctx, "acct", lettershop.ListLettersInput{})
	if err != nil {
		t.Fatal(err)
	}
	if string(p.b) == mark {
		t.Error("the page after the account's own erase is served from before it")
	}
}

// TestErasedAccountRestoredThroughAnotherServiceIsEncodedAfresh: two
// Services on one store, as servers on one database are. An account
// erased and restored with its ids kept through one holds its letters at
// revisions the other encoded in other states: the other does not serve
// them, nor their page, from before the erasure it did not make.
func TestErasedAccountRestoredThroughAnotherServiceIsEncodedAfresh(t *testing.T) {
	st := memstore.New()
	service := func() *lettershop.Service {
		mc := clock.NewMock()
		mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
		svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithTokenKey([]byte("one key for both services")))
		t.Cleanup(func() { svc.Close() })
		return svc
	}
	one, other := service(), service()
	made := noteLetter(t, one)
	w := NewLetters(other)
	read := readsOf(t, w, "acct", made.ID)
	before, beforePage := read()
	want := updateEraseRestore(t, one, other, made.ID, "acct", before)
	got, gotPage := read()
	if !bytes.Equal(got, want) {
		t.Errorf("AppendLetter after the restore:\n got %s\nwant %s", got, want)
	}
	if bytes.Equal(gotPage, beforePage) || !bytes.Contains(gotPage, []byte(`"spring"`)) {
		t.Errorf("the page after the restore is the page from before:\n%s", gotPage)
	}
}

// readsOf returns a read through w of the letter id of account and of the
// account's first page of letters, as the API shows them.
func readsOf(t *testing.T, w *Letters, account, id string) func() ([]byte, []byte) {
	return func() ([]byte, []byte) {
		t.Helper()
		one, err := w.AppendLetter(context.Background(), nil, account, id)
		if err != nil {
			t.Fatal(err)
		}
		page, err := w.Page(context.Background(), account, lettershop.ListLettersInput{})
		if err != nil {
			t.Fatal(err)
		}
		return one, bytes.Clone(page.b)
	}
}

// updateEraseRestore changes the letter id of acct through svc, takes the
// account's snapshot, erases it, and restores the snapshot with its ids
// kept into account into. It returns the letter restored as show's
// GetLetter gives it, encoded afresh, which must differ from before, its
// encoding from before the change.
func updateEraseRestore(t *testing.T, svc, show *lettershop.Service, id, into string, before []byte) []byte {
	t.Helper()
	ctx := context.Background()
	md := lettershop.Metadata{{Key: "campaign", Value: "spring"}}
	if _, err := svc.UpdateLetter(ctx, "acct", id, lettershop.UpdateLetterInput{Metadata: &md}); err != nil {
		t.Fatal(err)
	}
	snap, err := svc.SnapshotAccount(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.EraseAccount(ctx, "acct"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RestoreAccount(ctx, into, snap, lettershop.RestoreOptions{KeepIDs: true}); err != nil {
		t.Fatal(err)
	}
	shown, err := show.GetLetter(ctx, into, id)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Letter(shown)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(want, before) {
		t.Fatal("the letter restored reads as before its update: the test no longer tests a change")
	}
	return want
}

// erasuresOf is svc's count of the account's erasures.
func erasuresOf(svc *lettershop.Service, account string) uint64 {
	_, n := svc.Erasures(context.Background(), account)
	return n
}

// noteLetter makes a letter in account "acct" of svc, from a template
// asset of its own.
func noteLetter(t *testing.T, svc *lettershop.Service) *lettershop.Letter {
	t.Helper()
	ctx := context.Background()
	a, err := svc.CreateAsset(ctx, "acct", lettershop.CreateAssetInput{Name: "Note", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, "acct", a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>Hello</p>"}, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	made, err := svc.CreateLetter(ctx, "acct", lettershop.CreateLetterInput{
		Sender:    &lettershop.PartyInput{Organization: "Acme Corp", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &lettershop.PartyInput{Organization: "Doe Ltd", Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &lettershop.LetterContent{Type: "asset", AssetID: a.ID},
		UseType:   lettershop.UseTransactional,
	})
	if err != nil {
		t.Fatal(err)
	}
	return made
}
