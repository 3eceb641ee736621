package storagetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

var webhookTests = []test{
	{"WriteWebhook creates, GetWebhook and ListWebhooks read, newest first, in the account only", testWebhookCreate},
	{"WriteWebhook replaces at the expected revision, keeping id, secret and creation time", testWebhookUpdate},
	{"DeleteWebhook removes the webhook and its deliveries, at the expected revision", testWebhookDelete},
	{"webhooks are copied in and out", testWebhookCopies},
	{"a letter's notices become deliveries to its account's enabled webhooks that take them", testNoticeFanOut},
	{"a notice makes one delivery per webhook, however often it is written", testNoticeOnce},
	{"notices come with UpdateLetter and ProcessDueLetters, and never with a failed write", testNoticeWrites},
	{"notices are not kept on the letter", testNoticeNotKept},
	{"CreateLetter and UpdateLetter tell how many deliveries their notices made", testNoticeDeliveriesCounted},
	{"ListDeliveries and GetDelivery read a webhook's deliveries, newest first, in its account only", testDeliveryList},
	{"UpdateDelivery writes at the expected revision", testDeliveryUpdate},
	{"ProcessDueDeliveries takes due, unleased deliveries of enabled webhooks, earliest first", testDueDeliveries},
	{"ProcessDueDeliveries takes a letter's deliveries to one webhook in order", testDueDeliveriesInOrder},
	{"ProcessDueDeliveries selects accounts as ProcessDueLetters does", testDueDeliveriesAccounts},
	{"ProcessDueDeliveries stops at fn's error and writes nothing more", testDueDeliveriesError},
	{"WriteWebhook refuses a create that would take its account past the limit, and only that", testWebhookLimit},
	{"32 concurrent WriteWebhook creates for one account never take it past a limit of 16", testWebhookLimitConcurrent},
	{"HasWebhooks reports whether any account has a webhook", testHasWebhooks},
	{"DeliveryAccounts names each account with deliveries to take, with its earliest, in account order", testDeliveryAccounts},
}

// webhook returns a new enabled webhook of account taking events, not yet
// stored.
func (f *fixture) webhook(account string, events ...string) storage.Webhook {
	return storage.Webhook{
		ID: f.id("wh_"), Account: account, URL: "https://example.com/hooks", Events: events,
		Description: "orders", Metadata: md("team", "billing"), Status: storage.WebhookEnabled,
		Secret: "whsec_" + account, CreatedAt: t0, ModifiedAt: t0,
	}
}

func (f *fixture) createWebhook(t testing.TB, w storage.Webhook) storage.Webhook {
	t.Helper()
	got, err := f.s.WriteWebhook(f.ctx, w, 0, nil)
	must(t, "WriteWebhook "+w.ID, err)
	return got
}

// notice is the n-th change of a letter, at t0+n minutes.
func notice(letterID string, n int, typ string) storage.Notice {
	return storage.Notice{
		EventID: fmt.Sprintf("evt_%s_%02d", letterID, n), Type: typ, Seq: n,
		At: at(time.Duration(n) * time.Minute), RetryUntil: at(72 * time.Hour),
	}
}

// notifiedLetter stores a new letter of account with notices of the types.
func (f *fixture) notifiedLetter(t testing.TB, account string, types ...string) storage.Letter {
	t.Helper()
	l := f.letter(account)
	for i, typ := range types {
		l.Notices = append(l.Notices, notice(l.ID, i, typ))
	}
	return f.createLetter(t, l)
}

// delivery is what the store makes of notice n of letter l to webhook w.
func delivery(w storage.Webhook, l storage.Letter, n storage.Notice) storage.Delivery {
	return storage.Delivery{
		ID: storage.DeliveryID(n.EventID), Account: l.Account, WebhookID: w.ID, EventID: n.EventID, Type: n.Type,
		LetterID: l.ID, Seq: n.Seq, EventAt: n.At, Status: storage.DeliveryPending,
		NextAttemptAt: n.At, RetryUntil: n.RetryUntil, Revision: 1,
	}
}

func (f *fixture) deliveries(t testing.TB, w storage.Webhook) []storage.Delivery {
	t.Helper()
	ds, err := f.s.ListDeliveries(f.ctx, storage.DeliveryQuery{Account: w.Account, WebhookID: w.ID, Limit: 1000})
	must(t, "ListDeliveries", err)
	return ds
}

func deliveryIDs(ds []storage.Delivery) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

func testWebhookCreate(t *testing.T, f *fixture) {
	a1 := f.createWebhook(t, f.webhook(acctA))
	b := f.createWebhook(t, f.webhook(acctB, "letter.mailed"))
	a2 := f.createWebhook(t, f.webhook(acctA, "letter.created", "letter.delivered"))
	want := f.webhook(acctA)
	want.ID, want.Revision = a1.ID, 1
	diff(t, "created webhook", want, a1)
	got, err := f.s.GetWebhook(f.ctx, acctA, a2.ID)
	must(t, "GetWebhook", err)
	diff(t, "webhook read back", a2, got)
	_, err = f.s.GetWebhook(f.ctx, acctA, b.ID)
	wantErr(t, "GetWebhook of another account", err, storage.ErrNotFound)
	_, err = f.s.WriteWebhook(f.ctx, f.webhook(acctB), 0, nil)
	must(t, "WriteWebhook", err)
	dup := f.webhook(acctA)
	dup.ID = a1.ID
	_, err = f.s.WriteWebhook(f.ctx, dup, 0, nil)
	wantErr(t, "WriteWebhook of a taken id", err, storage.ErrAlreadyExists)

	list := func(before string, limit int) []string {
		ws, err := f.s.ListWebhooks(f.ctx, storage.WebhookQuery{Account: acctA, Before: before, Limit: limit})
		must(t, "ListWebhooks", err)
		var ids []string
		for _, w := range ws {
			ids = append(ids, w.ID)
		}
		return ids
	}
	diff(t, "webhooks of acctA", []string{a2.ID, a1.ID}, list("", 10))
	diff(t, "limit 1", []string{a2.ID}, list("", 1))
	diff(t, "after the first", []string{a1.ID}, list(a2.ID, 10))
	diff(t, "limit 0", []string(nil), list("", 0))
}

func testWebhookUpdate(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	u := w
	u.URL, u.Events, u.Description, u.Status = "https://example.org/new", []string{"letter.mailed"}, "new", storage.WebhookDisabled
	u.Metadata, u.ModifiedAt = md("team", "ops"), at(time.Hour)
	u.Secret, u.CreatedAt = "whsec_other", at(time.Hour) // never change
	got, err := f.s.WriteWebhook(f.ctx, u, 0, nil)
	must(t, "WriteWebhook", err)
	want := u
	want.Secret, want.CreatedAt, want.Revision = w.Secret, w.CreatedAt, 2
	diff(t, "replaced webhook", want, got)
	read, err := f.s.GetWebhook(f.ctx, acctA, w.ID)
	must(t, "GetWebhook", err)
	diff(t, "replaced webhook read back", want, read)

	_, err = f.s.WriteWebhook(f.ctx, u, 0, nil) // at revision 1 still
	wantErr(t, "WriteWebhook at a stale revision", err, storage.ErrConflict)
	missing := f.webhook(acctA)
	missing.Revision = 1
	_, err = f.s.WriteWebhook(f.ctx, missing, 0, nil)
	wantErr(t, "WriteWebhook of a webhook never made", err, storage.ErrNotFound)
	other := want
	other.Account = acctB
	_, err = f.s.WriteWebhook(f.ctx, other, 0, nil)
	wantErr(t, "WriteWebhook in another account", err, storage.ErrNotFound)
}

func testWebhookDelete(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	keep := f.createWebhook(t, f.webhook(acctA))
	f.notifiedLetter(t, acctA, "letter.created", "letter.ready")
	if n := len(f.deliveries(t, w)); n != 2 {
		t.Fatalf("%d deliveries, want 2", n)
	}
	wantErr(t, "DeleteWebhook at a stale revision", f.s.DeleteWebhook(f.ctx, acctA, w.ID, 2, nil), storage.ErrConflict)
	wantErr(t, "DeleteWebhook in another account", f.s.DeleteWebhook(f.ctx, acctB, w.ID, 1, nil), storage.ErrNotFound)
	must(t, "DeleteWebhook", f.s.DeleteWebhook(f.ctx, acctA, w.ID, 1, nil))
	_, err := f.s.GetWebhook(f.ctx, acctA, w.ID)
	wantErr(t, "GetWebhook after delete", err, storage.ErrNotFound)
	diff(t, "deliveries after delete", []storage.Delivery(nil), f.deliveries(t, w))
	wantErr(t, "DeleteWebhook again", f.s.DeleteWebhook(f.ctx, acctA, w.ID, 1, nil), storage.ErrNotFound)
	// Nothing of the deleted webhook is due, and the other's still are.
	got := f.processDeliveries(t, storage.DueQuery{Now: at(time.Hour), Limit: 10}, at(time.Hour))
	for _, d := range got {
		if d.WebhookID != keep.ID {
			t.Errorf("a delivery of the deleted webhook was due: %+v", d)
		}
	}
	if len(got) != 1 {
		t.Errorf("%d deliveries due, want the kept webhook's first", len(got))
	}
}

func testWebhookCopies(t *testing.T, f *fixture) {
	w := f.webhook(acctA, "letter.mailed")
	in := w
	in.Events = slices.Clone(w.Events)
	in.Metadata = md("team", "billing")
	got := f.createWebhook(t, in)
	in.Events[0], in.Metadata[0].Value = "changed", "changed"
	got.Events[0], got.Metadata[0].Value = "changed", "changed"
	read, err := f.s.GetWebhook(f.ctx, acctA, w.ID)
	must(t, "GetWebhook", err)
	w.Revision = 1
	diff(t, "webhook after its copies changed", w, read)
}

func testNoticeFanOut(t *testing.T, f *fixture) {
	all := f.createWebhook(t, f.webhook(acctA))
	mailed := f.createWebhook(t, f.webhook(acctA, "letter.mailed", "letter.created"))
	off := f.webhook(acctA)
	off.Status = storage.WebhookDisabled
	off = f.createWebhook(t, off)
	other := f.createWebhook(t, f.webhook(acctB))
	l := f.notifiedLetter(t, acctA, "letter.created", "letter.ready", "letter.mailed")
	ns := []storage.Notice{notice(l.ID, 0, "letter.created"), notice(l.ID, 1, "letter.ready"), notice(l.ID, 2, "letter.mailed")}
	diff(t, "deliveries to a webhook of every type", []storage.Delivery{
		delivery(all, l, ns[2]), delivery(all, l, ns[1]), delivery(all, l, ns[0]),
	}, f.deliveries(t, all))
	diff(t, "deliveries to a webhook of two types", []storage.Delivery{
		delivery(mailed, l, ns[2]), delivery(mailed, l, ns[0]),
	}, f.deliveries(t, mailed))
	diff(t, "deliveries to a disabled webhook", []storage.Delivery(nil), f.deliveries(t, off))
	diff(t, "deliveries to another account's webhook", []storage.Delivery(nil), f.deliveries(t, other))
	// A webhook made later gets only later changes.
	late := f.createWebhook(t, f.webhook(acctA))
	diff(t, "deliveries to a webhook made after the change", []storage.Delivery(nil), f.deliveries(t, late))
}

func testNoticeOnce(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	l := f.notifiedLetter(t, acctA, "letter.created")
	u := l
	u.Notices = []storage.Notice{notice(l.ID, 0, "letter.created"), notice(l.ID, 1, "letter.canceled")}
	_, err := f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	diff(t, "deliveries", []string{storage.DeliveryID(u.Notices[1].EventID), storage.DeliveryID(u.Notices[0].EventID)},
		deliveryIDs(f.deliveries(t, w)))
}

func testNoticeWrites(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	l := f.letter(acctA)
	l.DueAt = at(time.Hour)
	l = f.createLetter(t, l)
	// An update at a stale revision, and one whose claim is lost, write no
	// notice.
	stale := l
	stale.Revision = 7
	stale.Notices = []storage.Notice{notice(l.ID, 5, "letter.canceled")}
	_, err := f.s.UpdateLetter(f.ctx, stale, nil)
	wantErr(t, "UpdateLetter at a stale revision", err, storage.ErrConflict)
	lost := l
	lost.Notices = stale.Notices
	_, err = f.s.UpdateLetter(f.ctx, lost, &storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "none"})
	wantErr(t, "UpdateLetter with a lost claim", err, storage.ErrClaimLost)
	dup := f.letter(acctA)
	dup.ID = l.ID
	dup.Notices = stale.Notices
	_, err = f.s.CreateLetter(f.ctx, dup, nil)
	wantErr(t, "CreateLetter of a taken id", err, storage.ErrAlreadyExists)
	diff(t, "deliveries after failed writes", []storage.Delivery(nil), f.deliveries(t, w))

	// A claimed update writes its notice with the completion.
	f.mustClaim(t, claimRecord("s", "k", "tok", t0), t0)
	u := l
	u.Notices = []storage.Notice{notice(l.ID, 1, "letter.ready")}
	l, err = f.s.UpdateLetter(f.ctx, u, &storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok", Result: storage.Encoded("ok")})
	must(t, "UpdateLetter", err)
	_, err = f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: at(time.Hour), Limit: 10}, func(p *storage.Letter) error {
		p.DueAt = time.Time{}
		p.Notices = []storage.Notice{notice(l.ID, 2, "letter.inProduction"), notice(l.ID, 3, "letter.mailed")}
		return nil
	})
	must(t, "ProcessDueLetters", err)
	diff(t, "deliveries", []string{
		storage.DeliveryID(notice(l.ID, 3, "").EventID), storage.DeliveryID(notice(l.ID, 2, "").EventID), storage.DeliveryID(notice(l.ID, 1, "").EventID),
	}, deliveryIDs(f.deliveries(t, w)))
	// A created letter's notices with a completion come too.
	f.mustClaim(t, claimRecord("s", "k2", "tok2", t0), t0)
	c := f.letter(acctA)
	c.Notices = []storage.Notice{notice(c.ID, 0, "letter.created")}
	_, err = f.s.CreateLetter(f.ctx, c, &storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k2", Token: "tok2", Result: storage.Encoded("ok")})
	must(t, "CreateLetter", err)
	if ds := f.deliveries(t, w); len(ds) != 4 || ds[0].LetterID != c.ID {
		t.Errorf("deliveries after a claimed create: %v", deliveryIDs(ds))
	}
}

func testNoticeNotKept(t *testing.T, f *fixture) {
	f.createWebhook(t, f.webhook(acctA))
	l := f.letter(acctA)
	l.Notices = []storage.Notice{notice(l.ID, 0, "letter.created")}
	got := f.createLetter(t, l)
	if got.Notices != nil {
		t.Errorf("CreateLetter returned notices %v", got.Notices)
	}
	if read := f.getLetter(t, acctA, l.ID); read.Notices != nil {
		t.Errorf("GetLetter returned notices %v", read.Notices)
	}
}

func testNoticeDeliveriesCounted(t *testing.T, f *fixture) {
	write := func(what string, l storage.Letter, c *storage.Completion, want int) storage.Letter {
		t.Helper()
		var (
			got storage.Letter
			err error
		)
		if l.Revision == 0 {
			got, err = f.s.CreateLetter(f.ctx, l, c)
		} else {
			got, err = f.s.UpdateLetter(f.ctx, l, c)
		}
		must(t, what, err)
		if got.Deliveries != want {
			t.Errorf("%s: Deliveries %d, want %d", what, got.Deliveries, want)
		}
		return got
	}
	l := f.letter(acctA)
	l.Notices = []storage.Notice{notice(l.ID, 0, "letter.created")}
	l = write("a create in an account without webhooks", l, nil, 0)
	f.createWebhook(t, f.webhook(acctA))
	f.createWebhook(t, f.webhook(acctA, "letter.mailed"))
	off := f.webhook(acctA)
	off.Status = storage.WebhookDisabled
	f.createWebhook(t, off)
	f.createWebhook(t, f.webhook(acctB))
	l.Notices = []storage.Notice{notice(l.ID, 1, "letter.ready"), notice(l.ID, 2, "letter.mailed")}
	l = write("an update with two notices", l, nil, 3)
	l.Notices = []storage.Notice{notice(l.ID, 2, "letter.mailed")}
	l = write("an update with a notice written before", l, nil, 0)
	l.Notices = nil
	write("an update without notices", l, nil, 0)

	c := f.letter(acctA)
	c.Notices = []storage.Notice{notice(c.ID, 0, "letter.created")}
	c = write("a create with one notice", c, nil, 1)
	two := f.letter(acctA)
	two.Notices = []storage.Notice{notice(two.ID, 0, "letter.created"), notice(two.ID, 1, "letter.mailed")}
	write("a create with two notices", two, nil, 3)
	f.mustClaim(t, claimRecord("s", "k", "tok", t0), t0)
	c.Notices = []storage.Notice{notice(c.ID, 1, "letter.mailed")}
	write("a claimed update", c, &storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok", Result: storage.Encoded("ok")}, 2)
	f.mustClaim(t, claimRecord("s", "k2", "tok2", t0), t0)
	m := f.letter(acctA)
	m.Notices = []storage.Notice{notice(m.ID, 0, "letter.created"), notice(m.ID, 1, "letter.mailed")}
	write("a claimed create with two notices", m, &storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k2", Token: "tok2", Result: storage.Encoded("ok")}, 3)
	if got := f.getLetter(t, acctA, m.ID); got.Deliveries != 0 {
		t.Errorf("GetLetter: Deliveries %d, want 0", got.Deliveries)
	}
}

func testDeliveryList(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	l := f.notifiedLetter(t, acctA, "letter.created", "letter.ready", "letter.mailed")
	all := f.deliveries(t, w)
	ids := deliveryIDs(all)
	list := func(q storage.DeliveryQuery) []string {
		ds, err := f.s.ListDeliveries(f.ctx, q)
		must(t, "ListDeliveries", err)
		return deliveryIDs(ds)
	}
	diff(t, "limit 2", ids[:2], list(storage.DeliveryQuery{Account: acctA, WebhookID: w.ID, Limit: 2}))
	diff(t, "after the second", ids[2:], list(storage.DeliveryQuery{Account: acctA, WebhookID: w.ID, Before: ids[1], Limit: 2}))
	diff(t, "in another account", []string(nil), list(storage.DeliveryQuery{Account: acctB, WebhookID: w.ID, Limit: 10}))
	diff(t, "of no webhook", []string(nil), list(storage.DeliveryQuery{Account: acctA, WebhookID: "wh_none", Limit: 10}))
	d, err := f.s.GetDelivery(f.ctx, acctA, w.ID, ids[0])
	must(t, "GetDelivery", err)
	diff(t, "delivery", delivery(w, l, notice(l.ID, 2, "letter.mailed")), d)
	_, err = f.s.GetDelivery(f.ctx, acctB, w.ID, ids[0])
	wantErr(t, "GetDelivery in another account", err, storage.ErrNotFound)
	_, err = f.s.GetDelivery(f.ctx, acctA, "wh_none", ids[0])
	wantErr(t, "GetDelivery of another webhook", err, storage.ErrNotFound)
}

func testDeliveryUpdate(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	f.notifiedLetter(t, acctA, "letter.created")
	d := f.deliveries(t, w)[0]
	u := d
	u.Status, u.Attempts, u.NextAttemptAt, u.RetryUntil = storage.DeliveryFailed, 3, at(time.Hour), at(2*time.Hour)
	u.LeasedUntil, u.LastAttemptAt, u.StatusCode, u.Error = at(3*time.Hour), at(4*time.Hour), 503, "unavailable"
	got, err := f.s.UpdateDelivery(f.ctx, u, nil)
	must(t, "UpdateDelivery", err)
	want := u
	want.Revision = 2
	diff(t, "updated delivery", want, got)
	read, err := f.s.GetDelivery(f.ctx, acctA, w.ID, d.ID)
	must(t, "GetDelivery", err)
	diff(t, "updated delivery read back", want, read)
	_, err = f.s.UpdateDelivery(f.ctx, u, nil)
	wantErr(t, "UpdateDelivery at a stale revision", err, storage.ErrConflict)
	u.ID = "dlv_none"
	_, err = f.s.UpdateDelivery(f.ctx, u, nil)
	wantErr(t, "UpdateDelivery of no delivery", err, storage.ErrNotFound)
}

// processDeliveries runs ProcessDueDeliveries with an fn that leases each
// delivery for an hour past leased, and returns what it wrote.
func (f *fixture) processDeliveries(t testing.TB, q storage.DueQuery, leased time.Time) []storage.Delivery {
	t.Helper()
	got, err := f.s.ProcessDueDeliveries(f.ctx, storage.DeliveryDueQuery{DueQuery: q, Leased: leased}, func(d *storage.Delivery) error {
		d.Attempts++
		d.LeasedUntil = leased.Add(time.Hour)
		return nil
	})
	must(t, "ProcessDueDeliveries", err)
	return got
}

// finish records a delivery's attempt as a success.
func (f *fixture) finish(t testing.TB, d storage.Delivery) {
	t.Helper()
	d.Status, d.LeasedUntil = storage.DeliverySucceeded, time.Time{}
	_, err := f.s.UpdateDelivery(f.ctx, d, nil)
	must(t, "UpdateDelivery", err)
}

func testDueDeliveries(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	l1 := f.notifiedLetter(t, acctA, "letter.created")
	l2 := f.notifiedLetter(t, acctA, "letter.created")
	off := f.webhook(acctA)
	off = f.createWebhook(t, off)
	l3 := f.notifiedLetter(t, acctA, "letter.created") // to w and off
	off.Status = storage.WebhookDisabled
	_, err := f.s.WriteWebhook(f.ctx, off, 0, nil)
	must(t, "WriteWebhook", err)
	// All three notices are at t0 (their first); a later one of l2 waits.
	d1 := delivery(w, l1, notice(l1.ID, 0, "letter.created"))
	d2 := delivery(w, l2, notice(l2.ID, 0, "letter.created"))
	d3 := delivery(w, l3, notice(l3.ID, 0, "letter.created"))
	diff(t, "not yet due", []storage.Delivery(nil), f.processDeliveries(t, storage.DueQuery{Now: t0.Add(-us), Limit: 10}, t0))
	got := f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 2}, t0)
	for _, d := range []*storage.Delivery{&d1, &d2, &d3} {
		d.Attempts, d.LeasedUntil, d.Revision = 1, t0.Add(time.Hour), 2
	}
	diff(t, "first two due, earliest then lowest id", []storage.Delivery{d1, d2}, got)
	// Leased ones are passed over until their lease passes; the disabled
	// webhook's never come.
	diff(t, "the third", []storage.Delivery{d3}, f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 10}, t0))
	diff(t, "all leased", []storage.Delivery(nil), f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 10}, t0.Add(time.Hour-us)))
	again := f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 10}, t0.Add(time.Hour))
	if len(again) != 3 || again[0].Attempts != 2 {
		t.Errorf("after the leases: %v, want all three at their second attempt", deliveryIDs(again))
	}
	for _, d := range again {
		f.finish(t, d)
	}
	diff(t, "after every one succeeded", []storage.Delivery(nil), f.processDeliveries(t, storage.DueQuery{Now: at(time.Hour), Limit: 10}, at(5*time.Hour)))
	// Enabled again, the disabled webhook's pending delivery comes.
	off.Status, off.Revision = storage.WebhookEnabled, 2
	_, err = f.s.WriteWebhook(f.ctx, off, 0, nil)
	must(t, "WriteWebhook", err)
	if got := f.processDeliveries(t, storage.DueQuery{Now: at(time.Hour), Limit: 10}, at(5*time.Hour)); len(got) != 1 || got[0].WebhookID != off.ID {
		t.Errorf("after enabling: %+v", got)
	}
}

func testDueDeliveriesInOrder(t *testing.T, f *fixture) {
	f.createWebhook(t, f.webhook(acctA))
	f.notifiedLetter(t, acctA, "letter.created", "letter.ready", "letter.mailed")
	now := at(time.Hour)
	var order []string
	for range 3 {
		got := f.processDeliveries(t, storage.DueQuery{Now: now, Limit: 10}, now)
		if len(got) != 1 {
			t.Fatalf("%d deliveries due at once, want the earliest pending one: %v", len(got), deliveryIDs(got))
		}
		order = append(order, got[0].Type)
		// Still pending (leased), the next waits for it.
		diff(t, "while the first is under way", []storage.Delivery(nil), f.processDeliveries(t, storage.DueQuery{Now: now, Limit: 10}, now.Add(30*time.Minute)))
		d := got[0]
		if d.Type == "letter.ready" {
			// A failure given up is out of the way too.
			d.Status = storage.DeliveryFailed
			_, err := f.s.UpdateDelivery(f.ctx, d, nil)
			must(t, "UpdateDelivery", err)
			continue
		}
		f.finish(t, d)
	}
	diff(t, "order", []string{"letter.created", "letter.ready", "letter.mailed"}, order)
	// Another letter's and another webhook's go alongside.
	f.createWebhook(t, f.webhook(acctA))
	f.notifiedLetter(t, acctA, "letter.created", "letter.ready")
	f.notifiedLetter(t, acctA, "letter.created")
	got := f.processDeliveries(t, storage.DueQuery{Now: now, Limit: 10}, now)
	if len(got) != 4 {
		t.Errorf("due: %d deliveries, want the first of each letter for each of 2 webhooks", len(got))
	}
}

func testDueDeliveriesAccounts(t *testing.T, f *fixture) {
	wa := f.createWebhook(t, f.webhook(acctA))
	wb := f.createWebhook(t, f.webhook(acctB))
	f.notifiedLetter(t, acctA, "letter.created")
	f.notifiedLetter(t, acctB, "letter.created")
	now := at(time.Hour)
	byWebhook := func(ds []storage.Delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.WebhookID)
		}
		return out
	}
	diff(t, "acctA only", []string{wa.ID}, byWebhook(f.processDeliveries(t, storage.DueQuery{Now: now, Limit: 10, Account: acctA}, now)))
	diff(t, "all but acctB", []string(nil), byWebhook(f.processDeliveries(t, storage.DueQuery{Now: now, Limit: 10, Except: []string{acctB}}, now)))
	diff(t, "acctB, except acctB", []string(nil), byWebhook(f.processDeliveries(t, storage.DueQuery{Now: now, Limit: 10, Account: acctB, Except: []string{acctB}}, now)))
	diff(t, "all", []string{wb.ID}, byWebhook(f.processDeliveries(t, storage.DueQuery{Now: now, Limit: 10}, now)))
}

var errDeliveryFn = errors.New("fn failed")

func testDueDeliveriesError(t *testing.T, f *fixture) {
	w := f.createWebhook(t, f.webhook(acctA))
	f.notifiedLetter(t, acctA, "letter.created")
	f.notifiedLetter(t, acctA, "letter.created")
	calls := 0
	got, err := f.s.ProcessDueDeliveries(f.ctx, storage.DeliveryDueQuery{DueQuery: storage.DueQuery{Now: t0, Limit: 10}, Leased: t0},
		func(d *storage.Delivery) error {
			calls++
			d.Attempts = 9
			if calls == 2 {
				return errDeliveryFn
			}
			return nil
		})
	wantErr(t, "ProcessDueDeliveries", err, errDeliveryFn)
	if len(got) != 1 || calls != 2 {
		t.Errorf("wrote %d with %d calls, want 1 and 2", len(got), calls)
	}
	attempts := 0
	for _, d := range f.deliveries(t, w) {
		attempts += d.Attempts
	}
	if attempts != 9 {
		t.Errorf("attempts written %d, want only the first delivery's 9", attempts)
	}
}

func (f *fixture) webhookCount(t testing.TB, account string) int {
	t.Helper()
	ws, err := f.s.ListWebhooks(f.ctx, storage.WebhookQuery{Account: account, Limit: 1000})
	must(t, "ListWebhooks", err)
	return len(ws)
}

func testWebhookLimit(t *testing.T, f *fixture) {
	const limit = 3
	var made []storage.Webhook
	for i := range limit {
		w, err := f.s.WriteWebhook(f.ctx, f.webhook(acctA), limit, nil)
		must(t, fmt.Sprintf("create %d of %d", i+1, limit), err)
		made = append(made, w)
	}
	over := f.webhook(acctA)
	_, err := f.s.WriteWebhook(f.ctx, over, limit, nil)
	wantErr(t, "a create past the limit", err, storage.ErrLimit)
	_, err = f.s.GetWebhook(f.ctx, acctA, over.ID)
	wantErr(t, "GetWebhook of the refused create", err, storage.ErrNotFound)
	if n := f.webhookCount(t, acctA); n != limit {
		t.Errorf("the account holds %d webhooks, want %d", n, limit)
	}
	// The limit is the account's: another account, an update and a create
	// without a limit are not refused.
	_, err = f.s.WriteWebhook(f.ctx, f.webhook(acctB), limit, nil)
	must(t, "a create in another account", err)
	u := made[0]
	u.Description = "changed"
	_, err = f.s.WriteWebhook(f.ctx, u, limit, nil)
	must(t, "an update at the limit", err)
	unlimited, err := f.s.WriteWebhook(f.ctx, f.webhook(acctA), 0, nil)
	must(t, "a create without a limit", err)
	_, err = f.s.WriteWebhook(f.ctx, f.webhook(acctA), limit+1, nil)
	wantErr(t, "a create at a limit the account has reached", err, storage.ErrLimit)
	// One deleted, one fits again, and one more does not.
	must(t, "DeleteWebhook", f.s.DeleteWebhook(f.ctx, acctA, unlimited.ID, unlimited.Revision, nil))
	must(t, "DeleteWebhook", f.s.DeleteWebhook(f.ctx, acctA, made[1].ID, made[1].Revision, nil))
	_, err = f.s.WriteWebhook(f.ctx, f.webhook(acctA), limit, nil)
	must(t, "a create after a delete", err)
	_, err = f.s.WriteWebhook(f.ctx, f.webhook(acctA), limit, nil)
	wantErr(t, "a create past the limit again", err, storage.ErrLimit)
}

func testWebhookLimitConcurrent(t *testing.T, f *fixture) {
	const limit, tries = 16, 32
	ws := make([]storage.Webhook, tries)
	for i := range ws {
		ws[i] = f.webhook(acctA)
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		made    int
		refused int
		others  []error
	)
	start := make(chan struct{})
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := f.s.WriteWebhook(f.ctx, w, limit, nil)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				made++
			case errors.Is(err, storage.ErrLimit):
				refused++
			default:
				others = append(others, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(others) > 0 {
		t.Fatalf("concurrent creates failed: %v", others)
	}
	if made != limit || refused != tries-limit {
		t.Errorf("%d concurrent creates: %d made, %d refused; want %d and %d", tries, made, refused, limit, tries-limit)
	}
	if n := f.webhookCount(t, acctA); n != limit {
		t.Errorf("the account holds %d webhooks, want %d", n, limit)
	}
}

func testHasWebhooks(t *testing.T, f *fixture) {
	has := func() bool {
		t.Helper()
		ok, err := f.s.HasWebhooks(f.ctx)
		must(t, "HasWebhooks", err)
		return ok
	}
	if has() {
		t.Error("an empty store has webhooks")
	}
	f.notifiedLetter(t, acctA, "letter.created") // letters are not webhooks
	if has() {
		t.Error("a store with a letter and no webhook has webhooks")
	}
	w := f.webhook(acctB)
	w.Status = storage.WebhookDisabled
	w = f.createWebhook(t, w)
	if !has() {
		t.Error("a store with a disabled webhook has none")
	}
	must(t, "DeleteWebhook", f.s.DeleteWebhook(f.ctx, acctB, w.ID, w.Revision, nil))
	if has() {
		t.Error("a store whose only webhook was deleted has webhooks")
	}
}

func testDeliveryAccounts(t *testing.T, f *fixture) {
	const acctC, acctD, acctE = "acct_c", "acct_d", "acct_e"
	accounts := func(q storage.DeliveryAccountQuery) []storage.DeliveryAccount {
		t.Helper()
		got, err := f.s.DeliveryAccounts(f.ctx, q)
		must(t, "DeliveryAccounts", err)
		return got
	}
	diff(t, "an empty store", []storage.DeliveryAccount(nil), accounts(storage.DeliveryAccountQuery{Leased: t0, Limit: 10}))

	// acctA: a letter with two changes; only the first is to take.
	f.createWebhook(t, f.webhook(acctA))
	la := f.notifiedLetter(t, acctA, "letter.created", "letter.ready")
	// acctB: its one delivery failed an attempt and is retried at t0+2h.
	f.createWebhook(t, f.webhook(acctB))
	f.notifiedLetter(t, acctB, "letter.created")
	retry := f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 10, Account: acctB}, t0)[0]
	retry.LeasedUntil, retry.NextAttemptAt = time.Time{}, at(2*time.Hour)
	_, err := f.s.UpdateDelivery(f.ctx, retry, nil)
	must(t, "UpdateDelivery", err)
	// acctC: a disabled webhook's pending delivery.
	wc := f.createWebhook(t, f.webhook(acctC))
	f.notifiedLetter(t, acctC, "letter.created")
	wc.Status = storage.WebhookDisabled
	_, err = f.s.WriteWebhook(f.ctx, wc, 0, nil)
	must(t, "WriteWebhook", err)
	// acctD: its delivery succeeded.
	f.createWebhook(t, f.webhook(acctD))
	f.notifiedLetter(t, acctD, "letter.created")
	f.finish(t, f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 10, Account: acctD}, t0)[0])
	// acctE: its delivery is under way, leased until t0+1h.
	f.createWebhook(t, f.webhook(acctE))
	f.notifiedLetter(t, acctE, "letter.created")
	f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 10, Account: acctE}, t0)

	a := storage.DeliveryAccount{Account: acctA, Next: t0}
	b := storage.DeliveryAccount{Account: acctB, Next: at(2 * time.Hour)}
	e := storage.DeliveryAccount{Account: acctE, Next: t0}
	diff(t, "accounts with deliveries to take", []storage.DeliveryAccount{a, b}, accounts(storage.DeliveryAccountQuery{Leased: t0, Limit: 10}))
	diff(t, "a lease passed", []storage.DeliveryAccount{a, b, e}, accounts(storage.DeliveryAccountQuery{Leased: at(time.Hour), Limit: 10}))
	diff(t, "a lease not yet passed", []storage.DeliveryAccount{a, b}, accounts(storage.DeliveryAccountQuery{Leased: at(time.Hour - us), Limit: 10}))
	diff(t, "due by t0+2h", []storage.DeliveryAccount{a, b}, accounts(storage.DeliveryAccountQuery{Leased: t0, Until: at(2 * time.Hour), Limit: 10}))
	diff(t, "due by just before", []storage.DeliveryAccount{a}, accounts(storage.DeliveryAccountQuery{Leased: t0, Until: at(2*time.Hour - us), Limit: 10}))
	diff(t, "a page of one", []storage.DeliveryAccount{a}, accounts(storage.DeliveryAccountQuery{Leased: t0, Limit: 1}))
	diff(t, "the next page", []storage.DeliveryAccount{b}, accounts(storage.DeliveryAccountQuery{Leased: t0, After: acctA, Limit: 1}))
	diff(t, "after the last", []storage.DeliveryAccount(nil), accounts(storage.DeliveryAccountQuery{Leased: t0, After: acctB, Limit: 10}))
	diff(t, "limit 0", []storage.DeliveryAccount(nil), accounts(storage.DeliveryAccountQuery{Leased: at(time.Hour), Limit: 0}))

	// acctA's first change under way, its second waits: acctA has none to
	// take until the first is done, and then the second.
	first := f.processDeliveries(t, storage.DueQuery{Now: t0, Limit: 10, Account: acctA}, t0)
	if len(first) != 1 || first[0].LetterID != la.ID || first[0].Seq != 0 {
		t.Fatalf("acctA's due deliveries: %+v, want its letter's first", first)
	}
	diff(t, "acctA's first under way", []storage.DeliveryAccount{b}, accounts(storage.DeliveryAccountQuery{Leased: t0, Limit: 10}))
	f.finish(t, first[0])
	diff(t, "acctA's first done", []storage.DeliveryAccount{{Account: acctA, Next: at(time.Minute)}, b},
		accounts(storage.DeliveryAccountQuery{Leased: t0, Limit: 10}))
}
