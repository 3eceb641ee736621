package client_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/lettershop/lettershop/client"
)

// TestSnapshot: an account's snapshot restores into another account, with
// fresh ids or its own, and not into an account that has records.
func TestSnapshot(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL+"/v1", testKey)
	a, v := publishedAsset(t, c)
	snap, err := c.Test.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(snap, &doc); err != nil || doc.Format != "lettershop-snapshot/1" {
		t.Fatalf("snapshot %.80s: format %q, %v", snap, doc.Format, err)
	}

	other := client.New(s.URL+"/v1", "sk_test_client_other")
	ids, err := other.Test.RestoreSnapshot(ctx, snap, false)
	if err != nil {
		t.Fatal(err)
	}
	if ids[a.ID] == "" || ids[a.ID] == a.ID || ids[v.ID] == "" {
		t.Fatalf("ids %v: want %s and %s mapped to fresh ids", ids, a.ID, v.ID)
	}
	got, err := other.GetAsset(ctx, ids[a.ID])
	if err != nil || got.Name != a.Name || got.PublishedVersionID != ids[v.ID] {
		t.Fatalf("restored asset %+v, %v", got, err)
	}
	if _, err := other.Test.RestoreSnapshot(ctx, snap, false); !errors.Is(err, client.ErrConflict) {
		t.Errorf("restore into an account with records: %v, want ErrConflict", err)
	}

	third := client.New(s.URL, "sk_test_client_third")
	if _, err := third.Test.RestoreSnapshot(ctx, snap, true); !errors.Is(err, client.ErrConflict) {
		t.Errorf("keepIds with ids the store holds: %v, want ErrConflict", err)
	}
}
