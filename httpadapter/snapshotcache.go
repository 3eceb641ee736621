package httpadapter

import (
	"crypto/sha256"
	"slices"
	"sync"

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
// least recently used going first. Its zero value keeps up to the bounds
// above; a snapshot whose body is over a quarter of maxBytes is not kept.
// It is safe for concurrent use.
type snapshotCache struct {
	mu sync.Mutex
	// maxBytes and maxEntries are the bounds; 0 for the defaults.
	maxBytes, maxEntries int
	// kept holds the snapshots, the most recently used last.
	kept  []keptSnapshot
	bytes int
}

type keptSnapshot struct {
	sum  [sha256.Size]byte
	snap *snapshot.Snapshot
	size int
}

func (c *snapshotCache) bounds() (maxBytes, maxEntries int) {
	maxBytes, maxEntries = c.maxBytes, c.maxEntries
	if maxBytes == 0 {
		maxBytes = snapshotCacheBytes
	}
	if maxEntries == 0 {
		maxEntries = snapshotCacheEntries
	}
	return maxBytes, maxEntries
}

// get returns the snapshot kept of the body whose SHA-256 is sum, if any.
func (c *snapshotCache) get(sum [sha256.Size]byte) (*snapshot.Snapshot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.IndexFunc(c.kept, func(k keptSnapshot) bool { return k.sum == sum })
	if i < 0 {
		return nil, false
	}
	k := c.kept[i]
	c.kept = append(slices.Delete(c.kept, i, i+1), k)
	return k.snap, true
}

// put keeps snap, decoded from a body of size bytes whose SHA-256 is sum.
func (c *snapshotCache) put(sum [sha256.Size]byte, snap *snapshot.Snapshot, size int) {
	maxBytes, maxEntries := c.bounds()
	if size > maxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.ContainsFunc(c.kept, func(k keptSnapshot) bool { return k.sum == sum }) {
		return // decoded twice at once: the first kept serves
	}
	for len(c.kept) > 0 && (c.bytes+size > maxBytes || len(c.kept) >= maxEntries) {
		c.bytes -= c.kept[0].size
		c.kept[0] = keptSnapshot{}
		c.kept = c.kept[1:]
	}
	c.kept = append(c.kept, keptSnapshot{sum: sum, snap: snap, size: size})
	c.bytes += size
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
