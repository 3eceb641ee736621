package storagetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// eraseTests run on a store that is a storage.Eraser; on another they are
// skipped.
var eraseTests = []test{
	{"EraseAccount removes every record of the account and no other account's", testEraseAccount},
	{"an erased account's ids are free, and it takes new records and a restore", testEraseThenWrite},
	{"EraseAccount keeps the account's clock, and erases an empty account", testEraseKeepsClock},
	{"a delivery taken before the erase is not written back", testEraseDeliveryUnderWay},
	{"an update or a claim under way before the erase writes nothing after it", testEraseWriteUnderWay},
	{"a due run alongside the erase writes no letter back", testEraseDueRun},
	{"EraseAccount with a cancelled context erases nothing", testEraseCancelled},
}

// eraser returns f's store as a storage.Eraser, or skips the test.
func (f *fixture) eraser(t *testing.T) storage.Eraser {
	t.Helper()
	e, ok := f.s.(storage.Eraser)
	if !ok {
		t.Skip("the store is no storage.Eraser")
	}
	return e
}

// filled is what fill stores in an account.
type filled struct {
	account  string
	asset    storage.Asset
	versions []storage.AssetVersion
	hash     string
	letters  []storage.Letter
	webhook  storage.Webhook
	// keys are the scope's idempotency keys: "done" completed, "open"
	// in flight.
	scope string
}

// fill stores in account an asset with two versions and content, a
// webhook, three letters (one due, one with an external id and metadata
// pairs, each with a notice, so the webhook has deliveries) and two
// idempotency records, one completed and one in flight.
func (f *fixture) fill(t *testing.T, account string) filled {
	t.Helper()
	r := filled{account: account, scope: "scope-" + account}
	a := f.asset(account)
	r.versions = []storage.AssetVersion{f.version(a, "draft"), f.version(a, "published")}
	r.hash = "h-" + a.ID
	r.asset = f.writeAsset(t, storage.AssetWrite{Asset: a, PutVersions: r.versions,
		PutContent: []storage.Content{{Account: account, Hash: r.hash, Data: []byte("<p>hi</p>")}}})
	r.webhook = f.createWebhook(t, f.webhook(account))
	for i := range 3 {
		l := f.letter(account)
		l.Notices = []storage.Notice{notice(l.ID, 0, "letter.created")}
		switch i {
		case 0:
			l.DueAt = at(time.Hour)
		case 1:
			l.ExternalID, l.Metadata, l.Status = "ext-"+l.ID, md("campaign", "spring"), "mailed"
		}
		got := f.createLetter(t, l)
		got.Notices, got.Deliveries = nil, 0
		r.letters = append(r.letters, got)
	}
	done := claimRecord(r.scope, "done", "tok-done", t0)
	done.Account = account
	f.mustClaim(t, done, t0)
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{
		Account: account, Scope: r.scope, Key: "done", Token: "tok-done", Result: storage.Encoded("201"), Size: 3}))
	open := claimRecord(r.scope, "open", "tok-open", t0)
	open.Account = account
	f.mustClaim(t, open, t0)
	return r
}

// wantFilled checks that r's records are all stored as fill left them.
func (f *fixture) wantFilled(t *testing.T, r filled) {
	t.Helper()
	diff(t, "asset", r.asset, f.getAsset(t, r.account, r.asset.ID))
	f.wantVersions(t, r.account, r.asset.ID, r.versions...)
	f.wantContent(t, r.account, r.hash, "<p>hi</p>")
	for _, l := range r.letters {
		f.wantStored(t, l)
	}
	got, err := f.s.GetWebhook(f.ctx, r.account, r.webhook.ID)
	must(t, "GetWebhook", err)
	diff(t, "webhook", r.webhook, got)
	if ds := f.deliveries(t, r.webhook); len(ds) != len(r.letters) {
		t.Errorf("%s: %d deliveries, want %d", r.account, len(ds), len(r.letters))
	}
	if got, won := f.probeIn(t, r.account, r.scope, "done"); won || !got.Done || resultOf(t, got.Result) != "201" {
		t.Errorf("%s: key done: won %v, done %v; want done with 201", r.account, won, got.Done)
	}
	if got, won := f.probeIn(t, r.account, r.scope, "open"); won || got.Done || got.Token != "tok-open" {
		t.Errorf("%s: key open: won %v, token %q; want held by tok-open", r.account, won, got.Token)
	}
}

// probeIn claims (scope, key) of account, as probe does for the account
// of the scope.
func (f *fixture) probeIn(t testing.TB, account, scope, key string) (storage.IdempotencyRecord, bool) {
	t.Helper()
	r := claimRecord(scope, key, "probe", at(time.Second))
	r.Account = account
	return f.claim(t, r, at(time.Second))
}

// wantErased checks that none of r's records is found, by id or in any
// list, due run or index.
func (f *fixture) wantErased(t *testing.T, r filled) {
	t.Helper()
	acct := r.account
	_, err := f.s.GetAsset(f.ctx, acct, r.asset.ID)
	wantErr(t, "GetAsset", err, storage.ErrNotFound)
	for _, v := range r.versions {
		f.wantNoVersion(t, acct, "", v.ID)
		f.wantNoVersion(t, acct, r.asset.ID, v.ID)
	}
	f.wantNoContent(t, acct, r.hash)
	for _, l := range r.letters {
		_, err := f.s.GetLetter(f.ctx, acct, l.ID)
		wantErr(t, "GetLetter "+l.ID, err, storage.ErrNotFound)
	}
	_, err = f.s.GetWebhook(f.ctx, acct, r.webhook.ID)
	wantErr(t, "GetWebhook", err, storage.ErrNotFound)
	_, err = f.s.GetDelivery(f.ctx, acct, r.webhook.ID, storage.DeliveryID(notice(r.letters[0].ID, 0, "").EventID))
	wantErr(t, "GetDelivery", err, storage.ErrNotFound)
	for name, q := range map[string]storage.LetterQuery{
		"all":         {Account: acct, Limit: 10},
		"brief":       {Account: acct, Limit: 10, Brief: true},
		"by status":   {Account: acct, Status: "mailed", Limit: 10},
		"by external": {Account: acct, ExternalID: r.letters[1].ExternalID, Limit: 10},
		"by metadata": {Account: acct, Metadata: md("campaign", "spring"), Limit: 10},
	} {
		if got := f.listLetters(t, q); len(got) != 0 {
			t.Errorf("letters %s: %v, want none", name, got)
		}
	}
	if got := f.listAssets(t, storage.AssetQuery{Account: acct, Limit: 10}); len(got) != 0 {
		t.Errorf("assets: %v, want none", got)
	}
	if got := f.listAssets(t, storage.AssetQuery{Account: acct, Metadata: md("kind", "template"), Limit: 10}); len(got) != 0 {
		t.Errorf("assets by metadata: %v, want none", got)
	}
	vs, err := f.s.ListAssetVersions(f.ctx, storage.VersionQuery{Account: acct, AssetID: r.asset.ID, Limit: 10})
	must(t, "ListAssetVersions", err)
	if len(vs) != 0 {
		t.Errorf("versions: %v, want none", versionIDs(vs))
	}
	ws, err := f.s.ListWebhooks(f.ctx, storage.WebhookQuery{Account: acct, Limit: 10})
	must(t, "ListWebhooks", err)
	if len(ws) != 0 {
		t.Errorf("webhooks: %d, want none", len(ws))
	}
	if ds := f.deliveries(t, r.webhook); len(ds) != 0 {
		t.Errorf("deliveries: %v, want none", deliveryIDs(ds))
	}
	if got := f.processQuery(t, storage.DueQuery{Account: acct, Now: at(1000 * time.Hour), Limit: 10}); len(got) != 0 {
		t.Errorf("due letters of the account: %v, want none", got)
	}
	ds, err := f.s.ProcessDueDeliveries(f.ctx, storage.DeliveryDueQuery{
		DueQuery: storage.DueQuery{Account: acct, Now: at(1000 * time.Hour), Limit: 10}, Leased: at(1000 * time.Hour),
	}, func(*storage.Delivery) error { return nil })
	must(t, "ProcessDueDeliveries", err)
	if len(ds) != 0 {
		t.Errorf("due deliveries: %v, want none", deliveryIDs(ds))
	}
	accts, err := f.s.DeliveryAccounts(f.ctx, storage.DeliveryAccountQuery{Leased: at(1000 * time.Hour), Limit: 10})
	must(t, "DeliveryAccounts", err)
	if slices.ContainsFunc(accts, func(a storage.DeliveryAccount) bool { return a.Account == acct }) {
		t.Errorf("DeliveryAccounts names the erased account: %v", accts)
	}
	for _, key := range []string{"done", "open"} {
		if _, won := f.probeIn(t, acct, r.scope, key); !won {
			t.Errorf("idempotency key %q is still held", key)
		}
	}
}

func testEraseAccount(t *testing.T, f *fixture) {
	e := f.eraser(t)
	a, b := f.fill(t, acctA), f.fill(t, acctB)
	must(t, "EraseAccount", e.EraseAccount(f.ctx, acctA))
	f.wantFilled(t, b)
	f.wantErased(t, a)
	has, err := f.s.HasWebhooks(f.ctx)
	must(t, "HasWebhooks", err)
	if !has {
		t.Error("HasWebhooks: false with the other account's webhook stored")
	}
	// The other account's letters stay due as they were.
	if got := f.process(t, at(time.Hour), 10); !slices.Equal(got, []string{b.letters[0].ID}) {
		t.Errorf("due letters %v, want %s", got, b.letters[0].ID)
	}
}

func testEraseThenWrite(t *testing.T, f *fixture) {
	e := f.eraser(t)
	a := f.fill(t, acctA)
	must(t, "EraseAccount", e.EraseAccount(f.ctx, acctA))
	// The erased ids are free: the same records written again, each
	// created anew, as a restore that keeps a snapshot's ids writes them.
	if rs, ok := f.s.(storage.Restorer); ok {
		must(t, "RestoreRecords", rs.RestoreRecords(f.ctx, storage.AccountRecords{
			Account: acctA, Assets: []storage.Asset{a.asset}, Versions: a.versions,
			Content: []storage.Content{{Account: acctA, Hash: a.hash, Data: []byte("<p>hi</p>")}},
			Letters: a.letters, Webhooks: []storage.Webhook{a.webhook},
		}))
	} else {
		a.asset.Revision = 0
		f.createAsset(t, a.asset, a.versions...)
		for _, l := range a.letters {
			f.createLetter(t, l)
		}
		a.webhook.Revision = 0
		f.createWebhook(t, a.webhook)
	}
	if got := f.listLetters(t, storage.LetterQuery{Account: acctA, Limit: 10}); len(got) != len(a.letters) {
		t.Errorf("letters written again: %v, want %d", got, len(a.letters))
	}
	if got := f.process(t, at(time.Hour), 10); !slices.Equal(got, []string{a.letters[0].ID}) {
		t.Errorf("due letters %v, want %s", got, a.letters[0].ID)
	}
	// The account holds one webhook again, not the erased one too.
	w := f.webhook(acctA)
	if _, err := f.s.WriteWebhook(f.ctx, w, 2, nil); err != nil {
		t.Errorf("a second webhook under a limit of 2: %v", err)
	}
	w = f.webhook(acctA)
	_, err := f.s.WriteWebhook(f.ctx, w, 2, nil)
	wantErr(t, "a third webhook under a limit of 2", err, storage.ErrLimit)
}

func testEraseKeepsClock(t *testing.T, f *fixture) {
	e := f.eraser(t)
	must(t, "EraseAccount of an account never written", e.EraseAccount(f.ctx, acctA))
	c := f.putClock(t, ahead(acctA, time.Hour))
	f.fill(t, acctA)
	stamp := f.stamp(t)
	must(t, "EraseAccount", e.EraseAccount(f.ctx, acctA))
	must(t, "EraseAccount again", e.EraseAccount(f.ctx, acctA))
	if got := f.stamp(t); got != stamp {
		t.Errorf("ClockStamp %d after the erase, want %d", got, stamp)
	}
	diff(t, "the account's clock", []storage.AccountClock{c}, f.clocksSince(t, 0, 10))
}

func testEraseDeliveryUnderWay(t *testing.T, f *fixture) {
	e := f.eraser(t)
	w := f.createWebhook(t, f.webhook(acctA))
	f.notifiedLetter(t, acctA, "letter.created")
	taken := f.processDeliveries(t, storage.DueQuery{Now: at(time.Hour), Limit: 10}, at(time.Hour))
	if len(taken) != 1 {
		t.Fatalf("took %d deliveries, want 1", len(taken))
	}
	must(t, "EraseAccount", e.EraseAccount(f.ctx, acctA))
	// The attempt ends and its outcome is recorded: there is nothing to
	// record it on.
	d := taken[0]
	d.Status, d.LeasedUntil = storage.DeliverySucceeded, time.Time{}
	_, err := f.s.UpdateDelivery(f.ctx, d, nil)
	wantErr(t, "UpdateDelivery after the erase", err, storage.ErrNotFound)
	if ds := f.deliveries(t, w); len(ds) != 0 {
		t.Errorf("deliveries %v, want none", deliveryIDs(ds))
	}
	accts, err := f.s.DeliveryAccounts(f.ctx, storage.DeliveryAccountQuery{Leased: at(1000 * time.Hour), Limit: 10})
	must(t, "DeliveryAccounts", err)
	if len(accts) != 0 {
		t.Errorf("DeliveryAccounts %v, want none", accts)
	}
}

func testEraseWriteUnderWay(t *testing.T, f *fixture) {
	e := f.eraser(t)
	l := f.createLetter(t, f.letter(acctA))
	read := f.getLetter(t, acctA, l.ID)
	claim := claimRecord("s", "k", "tok-1", t0)
	claim.Account = acctA
	f.mustClaim(t, claim, t0)
	must(t, "EraseAccount", e.EraseAccount(f.ctx, acctA))

	read.Status = "mailed"
	_, err := f.s.UpdateLetter(f.ctx, read, nil)
	wantErr(t, "UpdateLetter of a letter read before the erase", err, storage.ErrNotFound)
	next := f.letter(acctA)
	_, err = f.s.CreateLetter(f.ctx, next, &storage.Completion{Account: acctA, Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("201")})
	wantErr(t, "CreateLetter completing a claim made before the erase", err, storage.ErrClaimLost)
	if got := f.listLetters(t, storage.LetterQuery{Account: acctA, Limit: 10}); len(got) != 0 {
		t.Errorf("letters %v, want none", got)
	}
}

func testEraseDueRun(t *testing.T, f *fixture) {
	e := f.eraser(t)
	w := f.createWebhook(t, f.webhook(acctA))
	var ids []string
	for range 5 {
		l := f.letter(acctA)
		l.DueAt = at(time.Minute)
		ids = append(ids, f.createLetter(t, l).ID)
	}
	erased := make(chan error, 1)
	started := false
	_, err := f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: at(time.Hour), Limit: 10}, func(l *storage.Letter) error {
		if !started {
			// The erase starts while the run holds its letters; fn must
			// not call the store, the erase's goroutine does.
			started = true
			go func() { erased <- e.EraseAccount(f.ctx, acctA) }()
		}
		l.Status, l.DueAt = "mailed", time.Time{}
		l.Notices = []storage.Notice{notice(l.ID, 1, "letter.mailed")}
		return nil
	})
	must(t, "ProcessDueLetters", err)
	must(t, "EraseAccount", <-erased)
	for _, id := range ids {
		_, err := f.s.GetLetter(f.ctx, acctA, id)
		wantErr(t, "GetLetter "+id, err, storage.ErrNotFound)
	}
	// Nor is any left in an index: a new letter of the account lists
	// alone, by status too, and nothing is due.
	next := f.createLetter(t, f.letter(acctA))
	next2 := f.letter(acctA)
	next2.Status = "mailed"
	f.createLetter(t, next2)
	diff(t, "letters", newestFirst([]string{next.ID, next2.ID}), f.listLetters(t, storage.LetterQuery{Account: acctA, Limit: 10}))
	diff(t, "mailed letters", []string{next2.ID}, f.listLetters(t, storage.LetterQuery{Account: acctA, Status: "mailed", Limit: 10}))
	if got := f.process(t, at(1000*time.Hour), 10); len(got) != 0 {
		t.Errorf("due letters %v, want none", got)
	}
	if ds := f.deliveries(t, w); len(ds) != 0 {
		t.Errorf("deliveries %v, want none", deliveryIDs(ds))
	}
}

func testEraseCancelled(t *testing.T, f *fixture) {
	e := f.eraser(t)
	a := f.fill(t, acctA)
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	if err := e.EraseAccount(ctx, acctA); !errors.Is(err, context.Canceled) {
		t.Errorf("EraseAccount with a cancelled context: %v, want context.Canceled", err)
	}
	f.wantFilled(t, a)
}
