package lettershop_test

import (
	"testing"

	"github.com/lettershop/lettershop"
)

// TestUpdateVersionPublishes: an update is the one way the reference's
// operations give to publish a draft already made, with the version's own
// "publish": true. It publishes the draft (archiving the version published
// before), with the update's other changes; on a published version, or as
// false, it changes nothing.
func TestUpdateVersionPublishes(t *testing.T) {
	e := newEnv(t)
	a, v1 := e.publishedTemplate(t, acct)
	v2, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: "text/html", Content: testTemplate},
		VariableDefinitions: testDefinitions,
	})
	if err != nil {
		t.Fatal(err)
	}

	got, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v2.ID, lettershop.UpdateVersionInput{Notes: str("ready"), Publish: ptrTo(true)})
	if err != nil {
		t.Fatalf("update with publish: %v", err)
	}
	if got.Status != lettershop.VersionPublished || !got.Publish || got.Notes != "ready" {
		t.Errorf("answer: status %s, publish %v, notes %q; want published, true, ready", got.Status, got.Publish, got.Notes)
	}
	old, err := e.svc.GetVersion(e.ctx, acct, a.ID, v1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != lettershop.VersionArchived {
		t.Errorf("the version published before is %s, want archived", old.Status)
	}
	asset, err := e.svc.GetAsset(e.ctx, acct, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if asset.PublishedVersionID != v2.ID || asset.Status != lettershop.VersionPublished {
		t.Errorf("asset: published %q, status %s; want %s, published", asset.PublishedVersionID, asset.Status, v2.ID)
	}

	// false, or true on the published version: no change.
	for _, p := range []bool{false, true} {
		got, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v2.ID, lettershop.UpdateVersionInput{Publish: ptrTo(p)})
		if err != nil || got.Status != lettershop.VersionPublished {
			t.Errorf("publish %v on the published version: %v, status %v", p, err, got)
		}
	}

	// A draft without content is not published (as by its own route).
	empty, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, empty.ID, lettershop.UpdateVersionInput{Publish: ptrTo(true)})
	wantCode(t, err, lettershop.CodeConflict)
}

// TestUpdateVersionRepublishesArchived: the reference's archived versions
// can be republished, and its operations give no way to do it but an update
// with "publish": true. That republishes the version (archiving the one
// published since), with new notes as a published version takes them;
// content or definitions of its own are no change, others a 400 naming the
// field; an update without "publish": true stays a conflict.
func TestUpdateVersionRepublishesArchived(t *testing.T) {
	e := newEnv(t)
	a, v1 := e.publishedTemplate(t, acct)
	v2, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: testTemplate}, VariableDefinitions: testDefinitions, Publish: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e.svc.GetVersion(e.ctx, acct, a.ID, v1.ID); err != nil || v.Status != lettershop.VersionArchived {
		t.Fatalf("v1 after publishing v2: %v, %v", v, err)
	}

	for _, in := range []lettershop.UpdateVersionInput{{Notes: str("edited")}, {Publish: ptrTo(false)}, {Notes: str("x"), Publish: ptrTo(false)}} {
		_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, in)
		wantCode(t, err, lettershop.CodeConflict)
	}
	_, err = e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{
		Publish: ptrTo(true), Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>other text</p>"},
	})
	wantFields(t, err, "content.content")

	got, err := e.svc.UpdateVersion(e.ctx, acct, a.ID, v1.ID, lettershop.UpdateVersionInput{
		Publish: ptrTo(true), Notes: str("back"), Content: &v1.Content, VariableDefinitions: &v1.VariableDefinitions,
	})
	if err != nil {
		t.Fatalf("republish: %v", err)
	}
	if got.Status != lettershop.VersionPublished || !got.Publish || got.Notes != "back" {
		t.Errorf("answer: status %s, publish %v, notes %q; want published, true, back", got.Status, got.Publish, got.Notes)
	}
	if v, err := e.svc.GetVersion(e.ctx, acct, a.ID, v2.ID); err != nil || v.Status != lettershop.VersionArchived {
		t.Errorf("v2 after republishing v1: %v, %v; want archived", v, err)
	}
	if asset, err := e.svc.GetAsset(e.ctx, acct, a.ID); err != nil || asset.PublishedVersionID != v1.ID || asset.VersionCount != 2 {
		t.Errorf("asset: %+v, %v; want v1 published, 2 versions", asset, err)
	}
}
