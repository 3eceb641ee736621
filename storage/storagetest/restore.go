package storagetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// restoreTests run on a store that is a storage.Restorer; on another they
// are skipped.
var restoreTests = []test{
	{"RestoreRecords writes every record at revision 1, readable as written", testRestoreRecords},
	{"RestoreRecords makes no deliveries of the letters' notices", testRestoreNoDeliveries},
	{"RestoreRecords of an id taken in another account is ErrAlreadyExists and writes nothing", testRestoreTaken},
	{"RestoreRecords of an id twice is ErrAlreadyExists and writes nothing", testRestoreTwice},
	{"RestoreRecords of a record of another account, or a version of no asset restored, fails and writes nothing", testRestoreForeign},
	{"RestoreRecords with a cancelled context writes nothing", testRestoreCancelled},
	{"the same content restored into two accounts is each account's", testRestoreContentPerAccount},
}

// restorer returns f's store as a storage.Restorer, or skips the test.
func (f *fixture) restorer(t *testing.T) storage.Restorer {
	t.Helper()
	r, ok := f.s.(storage.Restorer)
	if !ok {
		t.Skip("the store is no storage.Restorer")
	}
	return r
}

// records returns an account's records to restore: an asset with two
// versions and content, two letters (one due) and a webhook.
func (f *fixture) records(account string) storage.AccountRecords {
	a := f.asset(account)
	due := f.letter(account)
	due.ExternalID, due.DueAt, due.Metadata = "ext-"+due.ID, at(time.Hour), md("campaign", "spring")
	done := f.letter(account)
	done.Status = "mailed"
	return storage.AccountRecords{
		Account:  account,
		Assets:   []storage.Asset{a},
		Versions: []storage.AssetVersion{f.version(a, "draft"), f.version(a, "published")},
		Content:  []storage.Content{{Account: account, Hash: "h-" + a.ID, Data: []byte("<p>hello</p>")}},
		Letters:  []storage.Letter{due, done},
		Webhooks: []storage.Webhook{f.webhook(account)},
	}
}

// wantRestored checks that every record of r reads back as written, at
// revision 1.
func (f *fixture) wantRestored(t *testing.T, r storage.AccountRecords) {
	t.Helper()
	for _, a := range r.Assets {
		a.Revision = 1
		diff(t, "restored asset", a, f.getAsset(t, r.Account, a.ID))
	}
	f.wantVersions(t, r.Account, r.Assets[0].ID, r.Versions...)
	for _, c := range r.Content {
		f.wantContent(t, r.Account, c.Hash, string(c.Data))
	}
	for _, l := range r.Letters {
		l.Revision = 1
		f.wantStored(t, l)
	}
	for _, w := range r.Webhooks {
		got, err := f.s.GetWebhook(f.ctx, r.Account, w.ID)
		must(t, "GetWebhook", err)
		w.Revision = 1
		diff(t, "restored webhook", w, got)
	}
}

// wantNothing checks that none of r's records is stored, in the account
// each names.
func (f *fixture) wantNothing(t *testing.T, r storage.AccountRecords) {
	t.Helper()
	for _, a := range r.Assets {
		_, err := f.s.GetAsset(f.ctx, a.Account, a.ID)
		wantErr(t, "GetAsset "+a.ID, err, storage.ErrNotFound)
	}
	for _, v := range r.Versions {
		f.wantNoVersion(t, v.Account, "", v.ID)
	}
	for _, c := range r.Content {
		f.wantNoContent(t, c.Account, c.Hash)
	}
	for _, l := range r.Letters {
		_, err := f.s.GetLetter(f.ctx, l.Account, l.ID)
		wantErr(t, "GetLetter "+l.ID, err, storage.ErrNotFound)
	}
	for _, w := range r.Webhooks {
		_, err := f.s.GetWebhook(f.ctx, w.Account, w.ID)
		wantErr(t, "GetWebhook "+w.ID, err, storage.ErrNotFound)
	}
}

func testRestoreRecords(t *testing.T, f *fixture) {
	rs := f.restorer(t)
	r := f.records(acctA)
	for i := range r.Letters {
		r.Letters[i].Revision = 5 // set by the store, whatever comes in
	}
	want := r
	want.Letters = []storage.Letter{cloneLetter(r.Letters[0]), cloneLetter(r.Letters[1])}
	for i := range want.Letters {
		want.Letters[i].Revision = 0
	}
	must(t, "RestoreRecords", rs.RestoreRecords(f.ctx, r))
	f.wantRestored(t, want)
	// The letters are in the lists and the due index as any letter is.
	diff(t, "ListLetters", newestFirst([]string{r.Letters[0].ID, r.Letters[1].ID}),
		f.listLetters(t, storage.LetterQuery{Account: acctA, Limit: 10}))
	diff(t, "by external id", []string{r.Letters[0].ID},
		f.listLetters(t, storage.LetterQuery{Account: acctA, ExternalID: r.Letters[0].ExternalID, Limit: 10}))
	diff(t, "by metadata", []string{r.Letters[0].ID},
		f.listLetters(t, storage.LetterQuery{Account: acctA, Metadata: md("campaign", "spring"), Limit: 10}))
	if got := f.process(t, at(time.Hour), 10); len(got) != 1 || got[0] != r.Letters[0].ID {
		t.Errorf("due letters %v, want %s", got, r.Letters[0].ID)
	}
	if got := f.listAssets(t, storage.AssetQuery{Account: acctA, Limit: 10}); len(got) != 1 {
		t.Errorf("assets %v, want the one restored", got)
	}
}

func testRestoreNoDeliveries(t *testing.T, f *fixture) {
	rs := f.restorer(t)
	r := f.records(acctA)
	r.Letters[0].Notices = []storage.Notice{notice(r.Letters[0].ID, 1, "letter.created")}
	must(t, "RestoreRecords", rs.RestoreRecords(f.ctx, r))
	if ds := f.deliveries(t, r.Webhooks[0]); len(ds) != 0 {
		t.Errorf("%d deliveries made, want none", len(ds))
	}
	if got := f.getLetter(t, acctA, r.Letters[0].ID); len(got.Notices) != 0 {
		t.Errorf("the letter keeps its notices: %v", got.Notices)
	}
}

func testRestoreTaken(t *testing.T, f *fixture) {
	rs := f.restorer(t)
	for _, spoil := range []func(other storage.AccountRecords, r *storage.AccountRecords){
		func(o storage.AccountRecords, r *storage.AccountRecords) { r.Letters[1].ID = o.Letters[0].ID },
		func(o storage.AccountRecords, r *storage.AccountRecords) {
			r.Assets[0].ID = o.Assets[0].ID
			for i := range r.Versions {
				r.Versions[i].AssetID = o.Assets[0].ID
			}
		},
		func(o storage.AccountRecords, r *storage.AccountRecords) { r.Versions[1].ID = o.Versions[0].ID },
		func(o storage.AccountRecords, r *storage.AccountRecords) { r.Webhooks[0].ID = o.Webhooks[0].ID },
	} {
		other := f.records(acctB)
		must(t, "RestoreRecords", rs.RestoreRecords(f.ctx, other))
		r := f.records(acctA)
		spoil(other, &r)
		wantErr(t, "RestoreRecords of a taken id", rs.RestoreRecords(f.ctx, r), storage.ErrAlreadyExists)
		f.wantNothing(t, r)
		f.wantRestored(t, other)
	}
}

func testRestoreTwice(t *testing.T, f *fixture) {
	rs := f.restorer(t)
	r := f.records(acctA)
	r.Letters[1].ID = r.Letters[0].ID
	wantErr(t, "RestoreRecords with a letter twice", rs.RestoreRecords(f.ctx, r), storage.ErrAlreadyExists)
	f.wantNothing(t, r)
}

func testRestoreForeign(t *testing.T, f *fixture) {
	rs := f.restorer(t)
	for name, spoil := range map[string]func(*storage.AccountRecords){
		"letter":  func(r *storage.AccountRecords) { r.Letters[1].Account = acctB },
		"asset":   func(r *storage.AccountRecords) { r.Assets[0].Account = acctB },
		"version": func(r *storage.AccountRecords) { r.Versions[0].AssetID = "ast_elsewhere" },
		"content": func(r *storage.AccountRecords) { r.Content[0].Account = acctB },
		"webhook": func(r *storage.AccountRecords) { r.Webhooks[0].Account = acctB },
	} {
		r := f.records(acctA)
		spoil(&r)
		if err := rs.RestoreRecords(f.ctx, r); err == nil {
			t.Errorf("%s: RestoreRecords took a record it should refuse", name)
		}
		f.wantNothing(t, r)
	}
}

func testRestoreCancelled(t *testing.T, f *fixture) {
	rs := f.restorer(t)
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	r := f.records(acctA)
	if err := rs.RestoreRecords(ctx, r); !errors.Is(err, context.Canceled) {
		t.Errorf("RestoreRecords with a cancelled context: %v, want context.Canceled", err)
	}
	f.wantNothing(t, r)
}

func testRestoreContentPerAccount(t *testing.T, f *fixture) {
	rs := f.restorer(t)
	a, b := f.records(acctA), f.records(acctB)
	b.Content[0].Hash = a.Content[0].Hash
	must(t, "RestoreRecords", rs.RestoreRecords(f.ctx, a))
	must(t, "RestoreRecords", rs.RestoreRecords(f.ctx, b))
	f.wantContent(t, acctA, a.Content[0].Hash, "<p>hello</p>")
	f.wantContent(t, acctB, a.Content[0].Hash, "<p>hello</p>")
	f.wantNoContent(t, "acct_c", a.Content[0].Hash)
	// What a reader gets is its own: changing it changes no account's.
	got, err := f.s.GetContent(f.ctx, acctA, a.Content[0].Hash)
	must(t, "GetContent", err)
	scribbleBytes(got)
	f.wantContent(t, acctB, a.Content[0].Hash, "<p>hello</p>")
}
