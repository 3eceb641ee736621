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
