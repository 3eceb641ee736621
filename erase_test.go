package lettershop_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/storage"
)

// TestEraseAccount: an account erased has no records, and nothing the
// Service keeps of it beside the store (moves, renderings) is left; its
// clock stays, frozen; another account keeps everything; a snapshot
// restores into it after.
func TestEraseAccount(t *testing.T) {
	var renders []bool
	e := newEnv(t, lettershop.WithHooks(lettershop.Hooks{Render: func(_ time.Duration, cached bool) { renders = append(renders, cached) }}))
	moved := apMove("", "12 Elm St", "Springfield IL 62704", "77 Oak Ave", "Chicago IL 60601")
	ncoaLetter := func(account, assetID string) *lettershop.Letter {
		t.Helper()
		in := letterInput(assetID)
		in.Recipient.Address = moved.From
		in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{NcoaRecipient: "newAddress"}}
		l, err := e.svc.CreateLetter(e.ctx, account, in)
		if err != nil {
			t.Fatalf("CreateLetter: %v", err)
		}
		return l
	}
	const other = "acct_other"
	var letters []*lettershop.Letter
	for _, account := range []string{acct, other} {
		if err := e.svc.RegisterMove(e.ctx, account, moved); err != nil {
			t.Fatal(err)
		}
		a, _ := e.publishedTemplate(t, account, testDefinitions...)
		l, err := e.svc.CreateLetter(e.ctx, account, letterInput(a.ID))
		if err != nil {
			t.Fatal(err)
		}
		letters = append(letters, l)
		if _, err := e.svc.CreateWebhook(e.ctx, account, lettershop.CreateWebhookInput{URL: "https://example.com/hooks"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.RenderLetter(e.ctx, acct, letters[0].ID); err != nil {
		t.Fatal(err)
	}
	snap, err := e.svc.SnapshotAccount(e.ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.FreezeAccountClock(e.ctx, acct, true); err != nil {
		t.Fatal(err)
	}
	clockBefore := e.svc.AccountClock(acct)
	_, erasures := e.svc.Erasures(e.ctx, acct)

	if err := e.svc.EraseAccount(e.ctx, acct); err != nil {
		t.Fatalf("EraseAccount: %v", err)
	}
	if _, got := e.svc.Erasures(e.ctx, acct); got == erasures {
		t.Errorf("Erasures %d after the erase, as before it", got)
	}
	_, err = e.svc.GetLetter(e.ctx, acct, letters[0].ID)
	wantCode(t, err, lettershop.CodeNotFound)
	if p, err := e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{}); err != nil || len(p.Items) != 0 {
		t.Errorf("letters after the erase: %v, %v", p, err)
	}
	if p, err := e.svc.ListAssets(e.ctx, acct, lettershop.ListAssetsInput{}); err != nil || len(p.Items) != 0 {
		t.Errorf("assets after the erase: %v, %v", p, err)
	}
	if p, err := e.svc.ListWebhooks(e.ctx, acct, lettershop.ListWebhooksInput{}); err != nil || len(p.Items) != 0 {
		t.Errorf("webhooks after the erase: %v, %v", p, err)
	}
	// The clock stays where it stood, frozen.
	if got := e.svc.AccountClock(acct); !got.Now.Equal(clockBefore.Now) || !got.Frozen {
		t.Errorf("clock after the erase %+v, want %+v", got, clockBefore)
	}
	// The other account keeps its letter, and its move.
	if _, err := e.svc.GetLetter(e.ctx, other, letters[1].ID); err != nil {
		t.Errorf("the other account's letter: %v", err)
	}
	otherAsset, _ := e.publishedTemplate(t, other, testDefinitions...)
	if l := ncoaLetter(other, otherAsset.ID); l.Recipient.Address.AddressLine1 != "77 Oak Ave" {
		t.Errorf("the other account's move is gone: recipient %+v", l.Recipient.Address)
	}
	// The erased account's move is gone.
	a, _ := e.publishedTemplate(t, acct, testDefinitions...)
	if l := ncoaLetter(acct, a.ID); l.Recipient.Address.AddressLine1 != "12 Elm St" {
		t.Errorf("a move of the erased account forwards: recipient %+v", l.Recipient.Address)
	}
	// Not empty, it refuses the snapshot, saying how to empty it.
	_, err = e.svc.RestoreAccount(e.ctx, acct, snap, lettershop.RestoreOptions{})
	wantCode(t, err, lettershop.CodeConflict)
	if err == nil || !strings.Contains(err.Error(), "EraseAccount, DELETE /_test/account, lettershoptest's Reset") {
		t.Errorf("restore into an account with records: %v, want the ways to empty it named", err)
	}
	// Emptied again, the account takes its snapshot, ids kept: its letter
	// is drawn afresh, not found among the renderings from before.
	if err := e.svc.EraseAccount(e.ctx, acct); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RestoreAccount(e.ctx, acct, snap, lettershop.RestoreOptions{KeepIDs: true}); err != nil {
		t.Fatalf("RestoreAccount after the erase: %v", err)
	}
	renders = nil
	if _, err := e.svc.RenderLetter(e.ctx, acct, letters[0].ID); err != nil {
		t.Fatal(err)
	}
	if len(renders) != 1 || renders[0] {
		t.Errorf("renders after the restore %v, want one not cached", renders)
	}
}

// noEraser is a store that is no storage.Eraser.
type noEraser struct{ storage.Storage }

func TestEraseAccountRefused(t *testing.T) {
	e := newEnv(t)
	svc := lettershop.New(noEraser{e.store})
	t.Cleanup(func() { svc.Close() })
	wantCode(t, svc.EraseAccount(e.ctx, acct), lettershop.CodeConflict)
	wantCode(t, e.svc.EraseAccount(e.ctx, ""), lettershop.CodeInvalid)
}

// TestEraseThroughAnotherServiceRendersAfresh: of two Services on one
// store, the one that did not erase the account does not serve a letter
// restored with its id kept, and changed, from the rendering it kept of
// the letter at the same revision before the erase.
func TestEraseThroughAnotherServiceRendersAfresh(t *testing.T) {
	one := newEnv(t)
	other := newEnvOn(t, one.store, one.clock)
	a, _ := one.publishedTemplate(t, acct, testDefinitions...)
	l, err := one.svc.CreateLetter(one.ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	before, err := other.svc.RenderLetter(other.ctx, acct, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	vs := vars("name", "Someone Else Entirely")
	if _, err := one.svc.UpdateLetter(one.ctx, acct, l.ID, lettershop.UpdateLetterInput{Variables: &vs}); err != nil {
		t.Fatal(err)
	}
	snap, err := one.svc.SnapshotAccount(one.ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if err := one.svc.EraseAccount(one.ctx, acct); err != nil {
		t.Fatal(err)
	}
	if _, err := one.svc.RestoreAccount(one.ctx, acct, snap, lettershop.RestoreOptions{KeepIDs: true}); err != nil {
		t.Fatal(err)
	}
	want, err := one.svc.RenderLetter(one.ctx, acct, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(want, before) {
		t.Fatal("the letter restored renders as before its update: the test no longer tests a change")
	}
	if got, err := other.svc.RenderLetter(other.ctx, acct, l.ID); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the other Service renders the restored letter as before the erase (err %v)", err)
	}
}
