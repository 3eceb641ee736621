package httpadapter

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lettershop/lettershop/snapshot"
)

// A suite in any language restores its fixture per test by sending the
// same snapshot to PUT /_test/snapshot again and again. Decoding and
// checking it is most of what a restore costs over HTTP (a fixture of
// three letters: some 0.4 ms of the 0.5 ms); a snapshot.Snapshot keeps
// the answer of its check and what a restore needs of it, so a
// snapshotCache keeps the snapshots decoded last, by their body's
// SHA-256, and a body sent again is restored from the one decoded and
// checked the first time, as a Go suite's Restore of one Snapshot is.

// Bounds of the snapshots kept: their bodies' bytes (a snapshot decoded
// holds about as much) and their number.
const (
	snapshotCacheBytes   = 32 << 20
	snapshotCacheEntries = 8
)

// snapshotCache keeps decoded snapshots by their body's SHA-256, the
// least recently used going first (golang-lru), within maxEntries and
// maxBytes of bodies; a snapshot whose body is over a quarter of maxBytes
// is not kept. It is safe for concurrent use.
type snapshotCache struct {
	once                 sync.Once
	maxBytes, maxEntries int // 0 for the defaults
	kept                 *lru.Cache[[sha256.Size]byte, keptSnapshot]
	bytes                atomic.Int64
}

type keptSnapshot struct {
	snap *snapshot.Snapshot
	size int
}

// lru returns the cache's kept snapshots, made on first use with its
// bounds.
func (c *snapshotCache) lru() *lru.Cache[[sha256.Size]byte, keptSnapshot] {
	c.once.Do(func() {
		if c.maxBytes == 0 {
			c.maxBytes = snapshotCacheBytes
		}
		if c.maxEntries == 0 {
			c.maxEntries = snapshotCacheEntries
		}
		c.kept, _ = lru.NewWithEvict(c.maxEntries, func(_ [sha256.Size]byte, k keptSnapshot) { c.bytes.Add(-int64(k.size)) }) // only a size <= 0 fails
	})
	return c.kept
}

// get returns the snapshot kept of the body whose SHA-256 is sum, if any.
func (c *snapshotCache) get(sum [sha256.Size]byte) (*snapshot.Snapshot, bool) {
	k, ok := c.lru().Get(sum)
	return k.snap, ok
}

// put keeps snap, decoded from a body of size bytes whose SHA-256 is sum.
func (c *snapshotCache) put(sum [sha256.Size]byte, snap *snapshot.Snapshot, size int) {
	kept := c.lru()
	if size > c.maxBytes/4 {
		return
	}
	if found, _ := kept.ContainsOrAdd(sum, keptSnapshot{snap, size}); found {
		return // decoded twice at once: the first kept serves
	}
	c.bytes.Add(int64(size))
	for c.bytes.Load() > int64(c.maxBytes) {
		if _, _, ok := kept.RemoveOldest(); !ok {
			break
		}
	}
}

// decodeSnapshot decodes a PUT /_test/snapshot body; a variable so that
// tests count the decodes.
var decodeSnapshot = func(body []byte, snap *snapshot.Snapshot) error { return decodeJSON(body, snap) }

// snapshotOf returns the snapshot body holds: the one decoded before from
// the same bytes when it is kept, else decoded now, and kept.
func (h *handler) snapshotOf(body []byte) (*snapshot.Snapshot, error) {
	sum := sha256.Sum256(body)
	if snap, ok := h.snaps.get(sum); ok {
		return snap, nil
	}
	snap := new(snapshot.Snapshot)
	if err := decodeSnapshot(body, snap); err != nil {
		return nil, err
	}
	h.snaps.put(sum, snap, len(body))
	return snap, nil
}
