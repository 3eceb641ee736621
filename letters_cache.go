package lettershop

import (
	"hash/maphash"
	"sync"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// A letter is read far more often than it changes, and encoding one is most
// of what a read costs: a page of 100 letters is 100 encodings of about
// 2.7 KB each. So the Service keeps the encodings it made last, each under
// the stored revision it was made from: a stored letter does not change
// without its revision going up, so an encoding found under the letter's id
// and its revision is the letter as stored. The cache is bounded in bytes,
// not by the letters stored, so it adds nothing per stored letter; it is
// filled by reads only, so a store filled by creates does not fill it.

// jsonCacheBytes bounds the encodings kept: about 10,000 letters of a
// few events each.
const jsonCacheBytes = 32 << 20

// jsonShards spreads the cache over locks of its own, so concurrent reads
// of a page rarely wait for each other.
const jsonShards = 16

// letterJSONCache holds letters' encodings, as letterJSON describes.
type letterJSONCache struct {
	seed   maphash.Seed
	shards [jsonShards]jsonShard
}

// jsonKey names one encoding: the letter at one stored revision, as a
// fetch shows it or as a list without CASS details does.
type jsonKey struct {
	id          string
	revision    int64
	cassLeftOut bool
}

// jsonEntry is one encoding, with the facts of the record it was made
// from that a check against the record read costs nothing to compare: a
// store that lost its contents under a running Service (a database made
// anew) could give an id and revision a second meaning, and then these
// differ.
type jsonEntry struct {
	key      jsonKey
	status   string
	modified time.Time
	data     []byte
	// prev and next link the shard's entries, most recently used first.
	prev, next *jsonEntry
}

// jsonShard is a part of the cache, evicting the entry least recently
// used.
type jsonShard struct {
	mu    sync.Mutex
	byKey map[jsonKey]*jsonEntry
	// head is the ring's sentinel: head.next is the most recently used
	// entry, head.prev the least.
	head  jsonEntry
	bytes int
}

func newLetterJSONCache() *letterJSONCache {
	c := &letterJSONCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.byKey = make(map[jsonKey]*jsonEntry)
		sh.head.prev, sh.head.next = &sh.head, &sh.head
	}
	return c
}

func (c *letterJSONCache) shard(id string) *jsonShard {
	return &c.shards[maphash.String(c.seed, id)%jsonShards]
}

// get returns the encoding of r kept, if any. The bytes are the cache's:
// the caller copies them and does not change them.
func (c *letterJSONCache) get(r *storage.Letter, cassLeftOut bool) ([]byte, bool) {
	k := jsonKey{r.ID, r.Revision, cassLeftOut}
	sh := c.shard(r.ID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, ok := sh.byKey[k]
	if !ok || e.status != r.Status || !e.modified.Equal(r.ModifiedAt) {
		return nil, false
	}
	sh.unlink(e)
	sh.pushFront(e)
	return e.data, true
}

// getPage is get for each of recs, into found (one per record, nil where
// none is kept): a page's records are looked up a shard at a time, a lock
// taken per shard rather than per letter.
func (c *letterJSONCache) getPage(recs []storage.Letter, cassLeftOut bool, found [][]byte) {
	var shardOf [jsonShards][]int
	var idx [128]int
	all := idx[:0]
	for i := range recs {
		all = append(all, int(maphash.String(c.seed, recs[i].ID)%jsonShards))
	}
	for i, sh := range all {
		shardOf[sh] = append(shardOf[sh], i)
	}
	for n, members := range shardOf {
		if len(members) == 0 {
			continue
		}
		sh := &c.shards[n]
		sh.mu.Lock()
		for _, i := range members {
			r := &recs[i]
			e, ok := sh.byKey[jsonKey{r.ID, r.Revision, cassLeftOut}]
			if !ok || e.status != r.Status || !e.modified.Equal(r.ModifiedAt) {
				continue
			}
			sh.unlink(e)
			sh.pushFront(e)
			found[i] = e.data
		}
		sh.mu.Unlock()
	}
}

// put keeps data as the encoding of r. data is the cache's from then on.
func (c *letterJSONCache) put(r *storage.Letter, cassLeftOut bool, data []byte) {
	e := &jsonEntry{key: jsonKey{r.ID, r.Revision, cassLeftOut}, status: r.Status, modified: r.ModifiedAt, data: data}
	if e.size() > jsonCacheBytes/jsonShards/8 {
		return // a letter of very many events: rare, and it would crowd out others
	}
	sh := c.shard(r.ID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if old, ok := sh.byKey[e.key]; ok {
		sh.remove(old)
	}
	for sh.bytes+e.size() > jsonCacheBytes/jsonShards {
		sh.remove(sh.head.prev)
	}
	sh.byKey[e.key] = e
	sh.pushFront(e)
	sh.bytes += e.size()
}

// jsonEntryOverhead is what an entry costs besides its bytes and id: the
// entry and its map slot.
const jsonEntryOverhead = 160

// size is what e holds: its bytes counted by their capacity, as an
// encoding is made in room for a letter of a few events (letterJSONSize)
// and may take a fraction of it.
func (e *jsonEntry) size() int { return cap(e.data) + len(e.key.id) + jsonEntryOverhead }

func (sh *jsonShard) unlink(e *jsonEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (sh *jsonShard) pushFront(e *jsonEntry) {
	e.prev, e.next = &sh.head, sh.head.next
	sh.head.next.prev = e
	sh.head.next = e
}

func (sh *jsonShard) remove(e *jsonEntry) {
	sh.unlink(e)
	delete(sh.byKey, e.key)
	sh.bytes -= e.size()
}

// A page of letters polled again (the first page of a list a client
// watches) is mostly the same letters at the same revisions: the Service
// keeps the last pages it encoded whole, each with the stamps of the
// letters it was made from (and of the one read past it, which decides
// the next-page token), and gives a page read again the same text when
// the store returns the same stamps. A page costs then what reading its
// records costs, not copying 270 KB of encodings.

// Bounds of the pages kept: a page of 100 letters is about 270 KB.
const (
	pageCacheBytes   = 16 << 20
	pageCacheEntries = 64
)

// pageKey names one page: its list walk (account, list and filters),
// where it starts, its size, and whether it shows CASS details.
type pageKey struct {
	scope, before string
	limit         int
	cassLeftOut   bool
}

// letterStamp is what tells one stored state of a letter from another,
// as the letter cache checks it.
type letterStamp struct {
	id       string
	revision int64
	status   string
	modified time.Time
}

type pageEntry struct {
	key        pageKey
	stamps     []letterStamp
	text       []byte
	prev, next *pageEntry
}

// pageJSONCache holds pages' encodings, least recently used out first.
type pageJSONCache struct {
	mu    sync.Mutex
	byKey map[pageKey]*pageEntry
	head  pageEntry // sentinel: head.next most recently used
	bytes int
}

func newPageJSONCache() *pageJSONCache {
	c := &pageJSONCache{byKey: make(map[pageKey]*pageEntry)}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

func (e *pageEntry) matches(recs []storage.Letter) bool {
	if len(e.stamps) != len(recs) {
		return false
	}
	for i := range recs {
		r, st := &recs[i], &e.stamps[i]
		if r.ID != st.id || r.Revision != st.revision || r.Status != st.status || !r.ModifiedAt.Equal(st.modified) {
			return false
		}
	}
	return true
}

// has reports whether a page is kept under k, of whatever letters.
func (c *pageJSONCache) has(k pageKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byKey[k]
	return ok
}

// get returns the text kept for the page k made of recs, if any. The
// bytes are shared: the caller does not change them.
func (c *pageJSONCache) get(k pageKey, recs []storage.Letter) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok || !e.matches(recs) {
		return nil, false
	}
	c.unlink(e)
	c.pushFront(e)
	return e.text, true
}

// put keeps text as the page k made of recs. text is shared from then on.
func (c *pageJSONCache) put(k pageKey, recs []storage.Letter, text []byte) {
	e := &pageEntry{key: k, text: text, stamps: make([]letterStamp, len(recs))}
	for i := range recs {
		r := &recs[i]
		e.stamps[i] = letterStamp{id: r.ID, revision: r.Revision, status: r.Status, modified: r.ModifiedAt}
	}
	// A page is made in room for letters of a few events: what it holds
	// is its capacity.
	size := cap(text)
	if size > pageCacheBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byKey[k]; ok {
		c.remove(old)
	}
	for c.bytes+size > pageCacheBytes || len(c.byKey) >= pageCacheEntries {
		c.remove(c.head.prev)
	}
	c.byKey[k] = e
	c.pushFront(e)
	c.bytes += size
}

func (c *pageJSONCache) unlink(e *pageEntry) { e.prev.next, e.next.prev = e.next, e.prev }

func (c *pageJSONCache) pushFront(e *pageEntry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}

func (c *pageJSONCache) remove(e *pageEntry) {
	c.unlink(e)
	delete(c.byKey, e.key)
	c.bytes -= cap(e.text)
}
