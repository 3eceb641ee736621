package storagetest

import (
	"context"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// cancelTests give every method a context cancelled before the call; each
// must return an error wrapping context.Canceled and write nothing. The
// store holds what the call would otherwise succeed on.
var cancelTests = []test{
	{"CreateLetter", func(t *testing.T, f *fixture) {
		f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
		l := f.letter(acctA)
		_, err := f.s.CreateLetter(cancelled(f), l, &storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1"})
		wantCanceled(t, err)
		_, err = f.s.GetLetter(f.ctx, acctA, l.ID)
		wantErr(t, "GetLetter", err, storage.ErrNotFound)
		f.wantInFlight(t, "s", "k", "tok-1", t0)
	}},
	{"GetLetter", func(t *testing.T, f *fixture) {
		l := f.createLetter(t, f.letter(acctA))
		_, err := f.s.GetLetter(cancelled(f), acctA, l.ID)
		wantCanceled(t, err)
	}},
	{"ListLetters", func(t *testing.T, f *fixture) {
		f.createLetter(t, f.letter(acctA))
		_, err := f.s.ListLetters(cancelled(f), storage.LetterQuery{Account: acctA, Limit: 10})
		wantCanceled(t, err)
	}},
	{"UpdateLetter", func(t *testing.T, f *fixture) {
		l := f.createLetter(t, f.letter(acctA))
		u := l
		u.Status = "ready"
		_, err := f.s.UpdateLetter(cancelled(f), u, nil)
		wantCanceled(t, err)
		f.wantStored(t, l)
	}},
	{"ProcessDueLetters", func(t *testing.T, f *fixture) {
		l := f.dueLetter(t, acctA, t0)
		called := false
		_, err := f.s.ProcessDueLetters(cancelled(f), storage.DueQuery{Now: t0, Limit: 10}, func(l *storage.Letter) error {
			called = true
			l.Status = "ready"
			return nil
		})
		wantCanceled(t, err)
		if called {
			t.Error("fn was called")
		}
		_, err = f.s.DeliveryAccounts(cancelled(f), storage.DeliveryAccountQuery{Leased: t0, Limit: 10})
		wantCanceled(t, err)
		f.wantStored(t, l)
	}},
	{"AccountClocks", func(t *testing.T, f *fixture) {
		c := f.putClock(t, ahead(acctA, time.Hour))
		next := c
		next.At = next.At.Add(time.Hour)
		_, err := f.s.PutAccountClock(cancelled(f), next)
		wantCanceled(t, err)
		_, err = f.s.ClockStamp(cancelled(f))
		wantCanceled(t, err)
		_, err = f.s.AccountClocks(cancelled(f), 0, 10)
		wantCanceled(t, err)
		diff(t, "clocks", []storage.AccountClock{c}, f.clocksSince(t, 0, 10))
	}},
	{"WriteAsset", func(t *testing.T, f *fixture) {
		a := f.asset(acctA)
		v := f.version(a, "draft")
		_, err := f.s.WriteAsset(cancelled(f), storage.AssetWrite{
			Asset:       a,
			PutVersions: []storage.AssetVersion{v},
			PutContent:  []storage.Content{{Account: acctA, Hash: "h1", Data: []byte("one")}},
		})
		wantCanceled(t, err)
		_, err = f.s.GetAsset(f.ctx, acctA, a.ID)
		wantErr(t, "GetAsset", err, storage.ErrNotFound)
		f.wantNoVersion(t, acctA, a.ID, v.ID)
		f.wantNoContent(t, acctA, "h1")
	}},
	{"GetAsset", func(t *testing.T, f *fixture) {
		a := f.createAsset(t, f.asset(acctA))
		_, err := f.s.GetAsset(cancelled(f), acctA, a.ID)
		wantCanceled(t, err)
	}},
	{"ListAssets", func(t *testing.T, f *fixture) {
		f.createAsset(t, f.asset(acctA))
		_, err := f.s.ListAssets(cancelled(f), storage.AssetQuery{Account: acctA, Limit: 10})
		wantCanceled(t, err)
	}},
	{"DeleteAsset", func(t *testing.T, f *fixture) {
		a := f.createAsset(t, f.asset(acctA))
		err := f.s.DeleteAsset(cancelled(f), acctA, a.ID, a.Revision, nil)
		wantCanceled(t, err)
		f.getAsset(t, acctA, a.ID)
	}},
	{"GetAssetVersion", func(t *testing.T, f *fixture) {
		a := f.asset(acctA)
		v := f.version(a, "draft")
		f.createAsset(t, a, v)
		_, err := f.s.GetAssetVersion(cancelled(f), acctA, a.ID, v.ID)
		wantCanceled(t, err)
	}},
	{"ListAssetVersions", func(t *testing.T, f *fixture) {
		a := f.asset(acctA)
		f.createAsset(t, a, f.version(a, "draft"))
		_, err := f.s.ListAssetVersions(cancelled(f), storage.VersionQuery{Account: acctA, AssetID: a.ID, Limit: 10})
		wantCanceled(t, err)
	}},
	{"GetContent", func(t *testing.T, f *fixture) {
		f.writeAsset(t, storage.AssetWrite{
			Asset:      f.asset(acctA),
			PutContent: []storage.Content{{Account: acctA, Hash: "h1", Data: []byte("one")}},
		})
		_, err := f.s.GetContent(cancelled(f), acctA, "h1")
		wantCanceled(t, err)
	}},
	{"ClaimIdempotency", func(t *testing.T, f *fixture) {
		_, _, err := f.s.ClaimIdempotency(cancelled(f), claimRecord("s", "k", "tok-1", t0), t0)
		wantCanceled(t, err)
		if got, won := f.probe(t, "s", "k", t0); !won {
			t.Errorf("a claim with a cancelled context left a record: %+v", got)
		}
	}},
	{"CompleteIdempotency", func(t *testing.T, f *fixture) {
		f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
		err := f.s.CompleteIdempotency(cancelled(f), storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("ok")})
		wantCanceled(t, err)
		f.wantInFlight(t, "s", "k", "tok-1", t0)
	}},
	{"ReleaseIdempotency", func(t *testing.T, f *fixture) {
		f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
		err := f.s.ReleaseIdempotency(cancelled(f), scopeAccount("s"), "s", "k", "tok-1")
		wantCanceled(t, err)
		f.wantInFlight(t, "s", "k", "tok-1", t0)
	}},
	{"PurgeIdempotency", func(t *testing.T, f *fixture) {
		f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
		_, err := f.s.PurgeIdempotency(cancelled(f), t0.Add(48*time.Hour))
		wantCanceled(t, err)
		f.wantInFlight(t, "s", "k", "tok-1", t0)
	}},
	{"WriteWebhook", func(t *testing.T, f *fixture) {
		w := f.webhook(acctA)
		_, err := f.s.WriteWebhook(cancelled(f), w, 0, nil)
		wantCanceled(t, err)
		_, err = f.s.GetWebhook(f.ctx, acctA, w.ID)
		wantErr(t, "GetWebhook", err, storage.ErrNotFound)
	}},
	{"GetWebhook and ListWebhooks", func(t *testing.T, f *fixture) {
		w := f.createWebhook(t, f.webhook(acctA))
		_, err := f.s.GetWebhook(cancelled(f), acctA, w.ID)
		wantCanceled(t, err)
		_, err = f.s.ListWebhooks(cancelled(f), storage.WebhookQuery{Account: acctA, Limit: 10})
		wantCanceled(t, err)
		_, err = f.s.HasWebhooks(cancelled(f))
		wantCanceled(t, err)
	}},
	{"DeleteWebhook", func(t *testing.T, f *fixture) {
		w := f.createWebhook(t, f.webhook(acctA))
		wantCanceled(t, f.s.DeleteWebhook(cancelled(f), acctA, w.ID, w.Revision, nil))
		_, err := f.s.GetWebhook(f.ctx, acctA, w.ID)
		must(t, "GetWebhook", err)
	}},
	{"deliveries", func(t *testing.T, f *fixture) {
		w := f.createWebhook(t, f.webhook(acctA))
		f.notifiedLetter(t, acctA, "letter.created")
		d := f.deliveries(t, w)[0]
		_, err := f.s.GetDelivery(cancelled(f), acctA, w.ID, d.ID)
		wantCanceled(t, err)
		_, err = f.s.ListDeliveries(cancelled(f), storage.DeliveryQuery{Account: acctA, WebhookID: w.ID, Limit: 10})
		wantCanceled(t, err)
		u := d
		u.Status = storage.DeliveryFailed
		_, err = f.s.UpdateDelivery(cancelled(f), u, nil)
		wantCanceled(t, err)
		called := false
		_, err = f.s.ProcessDueDeliveries(cancelled(f), storage.DeliveryDueQuery{DueQuery: storage.DueQuery{Now: t0, Limit: 10}, Leased: t0},
			func(*storage.Delivery) error { called = true; return nil })
		wantCanceled(t, err)
		if called {
			t.Error("fn was called")
		}
		_, err = f.s.DeliveryAccounts(cancelled(f), storage.DeliveryAccountQuery{Leased: t0, Limit: 10})
		wantCanceled(t, err)
		diff(t, "delivery after cancelled calls", []storage.Delivery{d}, f.deliveries(t, w))
	}},
}

func cancelled(f *fixture) context.Context {
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	return ctx
}

func wantCanceled(t *testing.T, err error) {
	t.Helper()
	wantErr(t, "call with a cancelled context", err, context.Canceled)
}
