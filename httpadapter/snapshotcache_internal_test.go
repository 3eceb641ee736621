package httpadapter

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/lettershop/lettershop/snapshot"
)

// The snapshots kept are bounded by their number and their bodies' bytes,
// the least recently used going first, and a body over a quarter of the
// bytes is not kept: each bound at its edge and past it.
func TestSnapshotCacheBounds(t *testing.T) {
	sum := func(i int) [sha256.Size]byte { return sha256.Sum256(fmt.Append(nil, i)) }
	kept := func(c *snapshotCache, i int) bool { _, ok := c.get(sum(i)); return ok }

	c := &snapshotCache{maxBytes: 400, maxEntries: 3}
	for i := range 3 {
		c.put(sum(i), new(snapshot.Snapshot), 10)
	}
	if !kept(c, 0) || !kept(c, 1) || !kept(c, 2) {
		t.Fatal("3 snapshots within the bound of 3 are not all kept")
	}
	// 0 used least recently: it goes for the fourth.
	_ = kept(c, 1)
	_ = kept(c, 2)
	c.put(sum(3), new(snapshot.Snapshot), 10)
	if kept(c, 0) || !kept(c, 1) || !kept(c, 3) {
		t.Error("a fourth snapshot over the bound of 3 did not replace the least recently used")
	}

	c = &snapshotCache{maxBytes: 400, maxEntries: 8}
	c.put(sum(0), new(snapshot.Snapshot), 100)
	c.put(sum(1), new(snapshot.Snapshot), 101)
	if !kept(c, 0) || kept(c, 1) {
		t.Error("a body of a quarter of the bytes is to be kept, one past it not")
	}
	for i := 2; i < 5; i++ {
		c.put(sum(i), new(snapshot.Snapshot), 100)
	}
	if c.bytes.Load() != 400 || !kept(c, 0) {
		t.Errorf("4 bodies of 100 within 400 bytes: %d bytes kept, the first kept %v", c.bytes.Load(), kept(c, 0))
	}
	c.put(sum(5), new(snapshot.Snapshot), 1)
	if c.bytes.Load() != 301 || kept(c, 2) {
		t.Errorf("a body past 400 bytes: %d bytes kept, want 301, the least recently used gone", c.bytes.Load())
	}
}
