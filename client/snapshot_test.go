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

// TestResetAccount: an account reset has no records, and takes the
// snapshot it refused before; another account keeps its records.
func TestResetAccount(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL+"/v1", testKey)
	a, _ := publishedAsset(t, c)
	snap, err := c.Test.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := client.New(s.URL+"/v1", "sk_test_client_other")
	b, _ := publishedAsset(t, other)
	if _, err := c.Test.RestoreSnapshot(ctx, snap, false); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("restore into an account with records: %v, want ErrConflict", err)
	}
	if err := c.Test.ResetAccount(ctx); err != nil {
		t.Fatalf("ResetAccount: %v", err)
	}
	if _, err := c.GetAsset(ctx, a.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("GetAsset after the reset: %v, want ErrNotFound", err)
	}
	if _, err := other.GetAsset(ctx, b.ID); err != nil {
		t.Errorf("the other account's asset: %v", err)
	}
	ids, err := c.Test.RestoreSnapshot(ctx, snap, false)
	if err != nil {
		t.Fatalf("restore after the reset: %v", err)
	}
	if _, err := c.GetAsset(ctx, ids[a.ID]); err != nil {
		t.Errorf("the asset restored: %v", err)
	}
}
