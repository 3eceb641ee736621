package pgstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/wire"
)

// These tests run two Services, as two servers would, each over a Store
// with a pool of its own, on one schema.

const acct = "acct_test"

var epoch = time.Date(2024, 7, 30, 9, 0, 0, 0, time.UTC)

type server struct {
	svc     *lettershop.Service
	letters *wire.Letters
	store   *pgstore.Store
	clock   *clock.Mock
}

// sharedTokenKey is the token key of the servers twoServers makes, as
// servers of one database share theirs.
var sharedTokenKey = []byte("shared token key")

// twoServers returns two servers sharing a fresh schema. Each has its own
// clock, set to the same instant, and its own seeded entropy, so their ids
// differ as those of two real servers do.
func twoServers(t *testing.T) (schema string, a, b server) {
	t.Helper()
	schema = newSchema(t)
	return schema, newServer(t, schema, 1, sharedTokenKey), newServer(t, schema, 2, sharedTokenKey)
}

// newServer returns a server on schema, with a Store of its own, a clock
// set to epoch, entropy seeded with seed and the token key.
func newServer(t *testing.T, schema string, seed int64, tokenKey []byte) server {
	t.Helper()
	st := openStore(t, schema)
	clk := clock.NewMock()
	clk.Set(epoch)
	svc := lettershop.New(st,
		lettershop.WithClock(clk),
		lettershop.WithEntropy(rand.New(rand.NewSource(seed))),
		lettershop.WithTokenKey(tokenKey),
		lettershop.WithDeliverer(delivery.Open),
	)
	t.Cleanup(func() { svc.Close() })
	return server{svc: svc, letters: wire.NewLetters(svc), store: st, clock: clk}
}

// publishedAsset makes an asset with a published version on srv.
func publishedAsset(t *testing.T, srv server) *lettershop.Asset {
	t.Helper()
	ctx := t.Context()
	a, err := srv.svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "Welcome", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatalf("CreateAsset: %v", err)
	}
	if _, err := srv.svc.CreateVersion(ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Source: "inline", Type: "text/html", Content: "<p>Hello</p>"},
		Publish: true,
	}); err != nil {
		t.Fatalf("CreateVersion: %v", err)
	}
	return a
}

func letterInput(assetID string) lettershop.CreateLetterInput {
	party := func(first, last string) *lettershop.PartyInput {
		return &lettershop.PartyInput{
			Address:    lettershop.AddressInput{AddressLine1: "1 Main St", LastLine: "San Francisco CA 94107"},
			Individual: &lettershop.Individual{FirstName: first, LastName: last},
		}
	}
	return lettershop.CreateLetterInput{
		Sender:    party("Ada", "Sender"),
		Recipient: party("Bob", "Recipient"),
		Content:   &lettershop.LetterContent{Type: "asset", AssetID: assetID},
		UseType:   "marketing",
		Metadata:  lettershop.Metadata{{Key: "batch", Value: "b1"}},
	}
}

// asJSON is what a client sees of v.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantSame(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(asJSON(t, want), asJSON(t, got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// letterIDs lists every letter of acct, through srv.
func letterIDs(t *testing.T, srv server) []string {
	t.Helper()
	var ids []string
	req := lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: lettershop.MaxPageSize}}
	for {
		page, err := srv.svc.ListLetters(t.Context(), acct, req)
		if err != nil {
			t.Fatalf("ListLetters: %v", err)
		}
		for _, l := range page.Items {
			ids = append(ids, l.ID)
		}
		if page.NextToken == "" {
			return ids
		}
		req.NextToken = page.NextToken
	}
}

func TestTwoServersConcurrentIdempotentCreate(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	asset := publishedAsset(t, a)
	in := letterInput(asset.ID)
	ctx := lettershop.WithIdempotencyKey(t.Context(), "create-once")

	const n = 32
	type outcome struct {
		l   *lettershop.Letter
		err error
	}
	outcomes := make([]outcome, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		srv := []server{a, b}[i%2]
		wg.Go(func() {
			<-start
			l, err := srv.svc.CreateLetter(ctx, acct, in)
			outcomes[i] = outcome{l, err}
		})
	}
	close(start)
	wg.Wait()

	// Every call either returns the one letter, or, while the first was
	// still running, says so.
	var made *lettershop.Letter
	for i, o := range outcomes {
		switch {
		case o.err == nil && made == nil:
			made = o.l
		case o.err == nil:
			wantSame(t, fmt.Sprintf("letter of call %d", i), made, o.l)
		case lettershop.ErrorCode(o.err) != lettershop.CodeInFlight:
			t.Errorf("call %d: %v (code %v), want the letter or %v", i, o.err, lettershop.ErrorCode(o.err), lettershop.CodeInFlight)
		}
	}
	if made == nil {
		t.Fatal("no call returned the letter")
	}
	for _, srv := range []server{a, b} {
		if d := cmp.Diff([]string{made.ID}, letterIDs(t, srv)); d != "" {
			t.Errorf("letters stored (-want +got):\n%s", d)
		}
		// A retry once all is settled replays the letter on either server.
		l, err := srv.svc.CreateLetter(ctx, acct, in)
		if err != nil {
			t.Fatalf("retry: %v", err)
		}
		wantSame(t, "retried letter", made, l)
	}
}

func TestTwoServersCreateOnOneCancelOnOther(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	asset := publishedAsset(t, a)
	ctx := t.Context()

	made, err := a.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
	if err != nil {
		t.Fatalf("CreateLetter on a: %v", err)
	}
	got, err := b.svc.GetLetter(ctx, acct, made.ID)
	if err != nil {
		t.Fatalf("GetLetter on b: %v", err)
	}
	wantSame(t, "letter fetched on b", made, got)

	b.clock.Add(time.Minute)
	canceled, err := b.svc.CancelLetter(ctx, acct, made.ID)
	if err != nil {
		t.Fatalf("CancelLetter on b: %v", err)
	}
	if canceled.Status != lettershop.StatusCanceled {
		t.Errorf("status after cancel on b = %q, want %q", canceled.Status, lettershop.StatusCanceled)
	}
	if !canceled.ModifiedAt.Equal(epoch.Add(time.Minute)) {
		t.Errorf("modifiedAt after cancel on b = %v, want b's clock, %v", canceled.ModifiedAt, epoch.Add(time.Minute))
	}
	got, err = a.svc.GetLetter(ctx, acct, made.ID)
	if err != nil {
		t.Fatalf("GetLetter on a: %v", err)
	}
	wantSame(t, "canceled letter fetched on a", canceled, got)

	// Canceling again, on a, changes nothing.
	again, err := a.svc.CancelLetter(ctx, acct, made.ID)
	if err != nil {
		t.Fatalf("CancelLetter again on a: %v", err)
	}
	wantSame(t, "letter canceled twice", canceled, again)

	// Another account sees none of it.
	if _, err := a.svc.GetLetter(ctx, "acct_other", made.ID); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("GetLetter from another account: %v, want %v", err, lettershop.CodeNotFound)
	}
}

// isCanceled reports whether err says the request's context was cancelled.
func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }

// TestTwoServersAdvanceTimeWithoutDuplicateEvents: both servers' clocks
// move on together and both bring the due letters up to date at once, again
// and again; every letter's history is told once, the same on both.
func TestTwoServersAdvanceTimeWithoutDuplicateEvents(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	ctx := t.Context()
	asset := publishedAsset(t, a)
	var ids []string
	for i := range 10 {
		srv := []server{a, b}[i%2]
		l, err := srv.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	// Thirty days in six-hour steps: long enough for the whole timeline.
	for range 30 * 4 {
		a.clock.Add(6 * time.Hour)
		b.clock.Add(6 * time.Hour)
		var wg sync.WaitGroup
		for _, srv := range []server{a, b} {
			wg.Go(func() {
				if _, err := srv.svc.RunDue(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	for _, id := range ids {
		la, err := a.svc.GetLetter(ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := b.svc.GetLetter(ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		wantSame(t, "letter "+id+" on a and b", la, lb)
		seenID := map[string]bool{}
		seenStatus := map[lettershop.EventStatus]bool{}
		for _, e := range la.Events {
			if seenID[e.ID] {
				t.Errorf("letter %s: event %s twice", id, e.ID)
			}
			seenID[e.ID] = true
			if e.Type != "status" {
				continue
			}
			if seenStatus[e.Status] {
				t.Errorf("letter %s: status event %s twice:\n%s", id, e.Status, asJSON(t, la.Events))
			}
			seenStatus[e.Status] = true
		}
		if len(la.Events) < 2 {
			t.Errorf("letter %s did not move in thirty days: %s", id, asJSON(t, la.Events))
		}
	}
}

// TestTwoServersFixAnIssueLetter: a letter put at issue on a is fixed on b,
// queued again there, and a's run takes it on to ready; one at issue is
// canceled on b.
func TestTwoServersFixAnIssueLetter(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	asset := publishedAsset(t, a)
	ctx := t.Context()
	in := letterInput(asset.ID)
	in.Options = &lettershop.LetterOptions{
		AddressProcessing: &lettershop.AddressProcessing{CassRecipient: &lettershop.CassOptions{Type: "basic"}},
	}
	in.Recipient.Address = lettershop.AddressInput{AddressLine1: "5 Main St", LastLine: "Boston CA 02108"}
	made, err := a.svc.CreateLetter(ctx, acct, in)
	if err != nil || made.Status != lettershop.StatusIssue {
		t.Fatalf("CreateLetter on a: %v, %v; want a letter at issue", made, err)
	}
	other, err := a.svc.CreateLetter(ctx, acct, in)
	if err != nil {
		t.Fatalf("CreateLetter on a: %v", err)
	}

	b.clock.Add(time.Minute)
	fixed, err := b.svc.UpdateLetter(ctx, acct, made.ID, lettershop.UpdateLetterInput{Recipient: &lettershop.PartyInput{
		Address:    lettershop.AddressInput{AddressLine1: "residential house", LastLine: "Springfield IL 62704"},
		Individual: &lettershop.Individual{FirstName: "Bob", LastName: "Recipient"},
	}})
	if err != nil || fixed.Status != lettershop.StatusQueued {
		t.Fatalf("UpdateLetter on b: %v; want queued", err)
	}
	if _, err := b.svc.CancelLetter(ctx, acct, other.ID); err != nil {
		t.Fatalf("CancelLetter of a letter at issue on b: %v", err)
	}

	a.clock.Add(time.Minute + 5*time.Minute)
	if n, err := a.svc.RunDue(ctx); err != nil || n != 1 {
		t.Fatalf("RunDue on a = %d, %v; want the fixed letter", n, err)
	}
	got, err := b.svc.GetLetter(ctx, acct, made.ID)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, e := range got.Events {
		steps = append(steps, string(e.Status)+"@"+e.Timestamp.Format(time.TimeOnly))
	}
	want := []string{"queued@09:00:00", "issue@09:00:00", "queued@09:01:00", "ready@09:06:00"}
	if d := cmp.Diff(want, steps); d != "" || got.Status != lettershop.StatusReady {
		t.Errorf("fixed letter %s, history (-want +got):\n%s", got.Status, d)
	}
	if c, err := a.svc.GetLetter(ctx, acct, other.ID); err != nil || c.Status != lettershop.StatusCanceled {
		t.Errorf("letter canceled on b, on a: %v, %v", c, err)
	}
}

// TestTwoServersKeptEncodingsFollowTheOther: a server keeps the encodings
// of the letters and pages it served; another server's changes to those
// letters (an update, a cancellation, lifecycle steps, a new letter) are
// seen in its next answers, byte for byte what GetLetter and ListLetters
// give.
func TestTwoServersKeptEncodingsFollowTheOther(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	asset := publishedAsset(t, a)
	ctx := t.Context()
	var ids []string
	for range 3 {
		l, err := a.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
		if err != nil {
			t.Fatalf("CreateLetter on a: %v", err)
		}
		ids = append(ids, l.ID)
	}
	pages := []lettershop.ListLettersInput{
		{},
		{PageRequest: lettershop.PageRequest{PageSize: 2}},
		{IncludeCassDetails: true},
	}
	check := func(when string) {
		t.Helper()
		for range 2 { // the second time from what a keeps
			for _, id := range ids {
				l, err := a.svc.GetLetter(ctx, acct, id)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := wire.Letter(l)
				got, err := a.letters.AppendLetter(ctx, nil, acct, id)
				if err != nil || string(got) != string(want) {
					t.Errorf("%s: AppendLetter(%s) on a = %s, %v\nwant %s", when, id, got, err, want)
				}
			}
			for _, in := range pages {
				p, err := a.svc.ListLetters(ctx, acct, in)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := wire.AppendLetterPage(nil, p)
				got, err := a.letters.Page(ctx, acct, in)
				if err != nil || got.String() != string(want)+"\n" {
					t.Errorf("%s: Page(%+v) on a = %s, %v\nwant %s", when, in, got, err, want)
				}
			}
		}
	}
	check("created on a")
	b.clock.Add(time.Minute)
	if _, err := b.svc.UpdateLetter(ctx, acct, ids[0], lettershop.UpdateLetterInput{
		Metadata: &lettershop.Metadata{{Key: "batch", Value: "b2"}},
	}); err != nil {
		t.Fatalf("UpdateLetter on b: %v", err)
	}
	if _, err := b.svc.CancelLetter(ctx, acct, ids[1]); err != nil {
		t.Fatalf("CancelLetter on b: %v", err)
	}
	check("changed on b")
	b.clock.Add(26 * time.Hour)
	if n, err := b.svc.RunDue(ctx); err != nil || n == 0 {
		t.Fatalf("RunDue on b = %d, %v; want steps taken", n, err)
	}
	check("stepped on b")
	l, err := b.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
	if err != nil {
		t.Fatalf("CreateLetter on b: %v", err)
	}
	ids = append(ids, l.ID)
	check("one more on b")
}

// TestTwoServersKeptEncodingsAfterTheOtherErases: an account erased and
// restored with its ids kept through one server holds its letters at
// revisions the other server encoded and rendered in other states; the
// other serves neither the letter, nor its page, nor its PDF from before.
func TestTwoServersKeptEncodingsAfterTheOtherErases(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	ctx := t.Context()
	l, err := b.svc.CreateLetter(ctx, acct, letterInput(publishedAsset(t, b).ID))
	if err != nil {
		t.Fatal(err)
	}
	read := func() (string, string, []byte) {
		t.Helper()
		one, err := a.letters.AppendLetter(ctx, nil, acct, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		page, err := a.letters.Page(ctx, acct, lettershop.ListLettersInput{})
		if err != nil {
			t.Fatal(err)
		}
		pdf, err := a.svc.RenderLetter(ctx, acct, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		return string(one), page.String(), pdf
	}
	before, beforePage, beforePDF := read()
	in := letterInput("")
	in.Recipient.Individual.LastName = "Someone-Else"
	if _, err := b.svc.UpdateLetter(ctx, acct, l.ID, lettershop.UpdateLetterInput{Recipient: in.Recipient}); err != nil {
		t.Fatal(err)
	}
	snap, err := b.svc.SnapshotAccount(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.svc.EraseAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.RestoreAccount(ctx, acct, snap, lettershop.RestoreOptions{KeepIDs: true}); err != nil {
		t.Fatal(err)
	}
	got, gotPage, gotPDF := read()
	if got == before || !strings.Contains(got, "Someone-Else") {
		t.Errorf("the letter on a after the erase and restore on b is the letter from before:\n%s", got)
	}
	if gotPage == beforePage || !strings.Contains(gotPage, "Someone-Else") {
		t.Errorf("the page on a after the erase and restore on b is the page from before:\n%s", gotPage)
	}
	if bytes.Equal(gotPDF, beforePDF) {
		t.Error("the PDF on a after the erase and restore on b is the PDF from before")
	}
}

// TestTwoServersShareAccountClocks: an account's clock moved, set, frozen
// or unfrozen through one server is the clock the other reads from its
// next call on, and a run of the other server's takes the account's
// letters on the account's clock; moves made through both at once all
// count. Each server reads the clock against its own clock: an account
// keeps the same lead on both, a frozen one the same instant.
func TestTwoServersShareAccountClocks(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	ctx := t.Context()
	asset := publishedAsset(t, a)
	l, err := a.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
	if err != nil {
		t.Fatal(err)
	}
	readsOn := func(srv server, name string, want time.Time, frozen bool) *lettershop.Letter {
		t.Helper()
		got, err := srv.svc.GetLetter(ctx, acct, l.ID) // a call: it reads the clocks first
		if err != nil {
			t.Fatal(err)
		}
		if c := srv.svc.AccountClock(acct); !c.Now.Equal(want) || c.Frozen != frozen {
			t.Errorf("%s reads the account's clock at %v (frozen %v), want %v (frozen %v)", name, c.Now, c.Frozen, want, frozen)
		}
		return got
	}

	if _, err := a.svc.AdvanceAccountClock(ctx, acct, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := readsOn(b, "b after a's advance", epoch.Add(72*time.Hour), false); got.Status == lettershop.StatusQueued {
		t.Errorf("b shows the letter %s three days on", got.Status)
	}
	made, err := b.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
	if err != nil {
		t.Fatal(err)
	}
	if want := epoch.Add(72 * time.Hour); !made.CreatedAt.Equal(want) {
		t.Errorf("a letter made through b is dated %v, want the account's %v", made.CreatedAt, want)
	}
	// b's run at its own time takes the new letter on the account's clock:
	// ready five minutes after it was made, on the account's clock.
	b.clock.Add(5 * time.Minute)
	if _, err := b.svc.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if rec, err := b.store.GetLetter(ctx, acct, made.ID); err != nil || rec.Status != string(lettershop.StatusReady) {
		t.Errorf("after b's run: stored %s, %v; want ready", rec.Status, err)
	}

	if _, err := b.svc.FreezeAccountClock(ctx, acct, true); err != nil {
		t.Fatal(err)
	}
	a.clock.Add(24 * time.Hour)
	readsOn(a, "a after b froze it and a's clock moved a day", epoch.Add(72*time.Hour+5*time.Minute), true)
	if _, err := a.svc.SetAccountClock(ctx, acct, epoch.Add(100*time.Hour)); err != nil {
		t.Fatal(err)
	}
	readsOn(b, "b after a set it", epoch.Add(100*time.Hour), true)
	if _, err := b.svc.FreezeAccountClock(ctx, acct, false); err != nil {
		t.Fatal(err)
	}
	b.clock.Add(time.Hour)
	readsOn(b, "b after it unfroze it and its clock moved an hour", epoch.Add(101*time.Hour), false)
	// a's clock is a day ahead of b's (b's moved 5 minutes and an hour,
	// a's a day): the account is a day less five minutes and an hour
	// further on there.
	readsOn(a, "a, its clock ahead of b's", epoch.Add(100*time.Hour+24*time.Hour-5*time.Minute), false)

	var wg sync.WaitGroup
	for i := range 10 {
		srv := []server{a, b}[i%2]
		wg.Go(func() {
			if _, err := srv.svc.AdvanceAccountClock(ctx, acct, time.Minute); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	readsOn(b, "b after 10 moves of a minute", epoch.Add(101*time.Hour+10*time.Minute), false)
	if _, err := a.svc.FreezeAccountClock(ctx, acct, true); err != nil {
		t.Fatal(err)
	}
	frozenAt := epoch.Add(100*time.Hour + 24*time.Hour - 5*time.Minute + 10*time.Minute)
	readsOn(a, "a, frozen through a", frozenAt, true)
	readsOn(b, "b, frozen through a", frozenAt, true)
}
