package wire

import (
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/lettershop/lettershop"
)

// A letter is read far more often than it changes, and encoding one is most
// of what a read costs: a page of 100 letters is 100 encodings of about
// 2.7 KB each. So Letters keeps the encodings it made last, each under the
// stamp of the stored state it was made from (lettershop.LetterStamp): a
// stored letter does not change without its revision going up, so an
// encoding found under the letter's id and its revision is the letter as
// stored. The cache is bounded in bytes,
// not by the letters stored, so it adds nothing per stored letter; it is
// filled by reads only, so a store filled by creates does not fill it.

// jsonCacheBytes bounds the encodings kept: about 14,000 letters of a
// few events each.
const jsonCacheBytes = 32 << 20

// jsonShards spreads the cache over locks of its own, so concurrent reads
// of a page rarely wait for each other.
const jsonShards = 16

// letterJSONCache holds letters' encodings, as the comment above
// describes.
type letterJSONCache struct {
	seed   maphash.Seed
	shards [jsonShards]jsonShard
}

// jsonKey names a letter at one stored revision.
type jsonKey struct {
	id       string
	revision int64
}

// keptJSON is a letter's encoding kept: as a fetch shows it (full), with
// the spans of its CASS details, or as a list without CASS details shows
// it. A full encoding serves both: without its CASS spans it is the
// list's, byte for byte, so a letter fetched and listed is encoded and
// kept once, not once per form.
type keptJSON struct {
	data []byte
	full bool
	// cut are data's spans of the sender's and the recipient's CASS
	// details, when full.
	cut cassSpans
}

// size is the length of k as a list without CASS details shows it when
// cassLeftOut, else as a fetch does.
func (k *keptJSON) size(cassLeftOut bool) int {
	if cassLeftOut && k.full {
		return len(k.data) - k.cut.len()
	}
	return len(k.data)
}

// appendTo appends k to dst as a list without CASS details shows it when
// cassLeftOut, else as a fetch does (which only a full k serves), and
// returns the extended slice.
func (k *keptJSON) appendTo(dst []byte, cassLeftOut bool) []byte {
	if !cassLeftOut || !k.full {
		return append(dst, k.data...)
	}
	return k.cut.appendWithout(dst, k.data)
}

// serves reports whether k can be shown as a list without CASS details
// shows a letter when cassLeftOut, else as a fetch does.
func (k *keptJSON) serves(cassLeftOut bool) bool { return k.full || cassLeftOut }

// jsonEntry is one encoding, with the facts of the record it was made
// from that a check against the record read costs nothing to compare: a
// store that lost its contents under a running Service (a database made
// anew) could give an id and revision a second meaning, and then these
// differ.
type jsonEntry struct {
	status   lettershop.LetterStatus
	modified time.Time
	// erasures is the mark of the account's erasures (Service.Erasures)
	// read before the record was: an erased account's ids come back
	// restored at revisions they had, from other states. It is the
	// account's own, so that an erase of one account (a suite's test
	// emptying its account) leaves what is kept of the others.
	erasures uint64
	kept     keptJSON
}

// of reports whether e was made from the state st names, read at the
// account's mark of erasures erasures.
func (e *jsonEntry) of(st *lettershop.LetterStamp, erasures uint64) bool {
	return e.status == st.Status && e.modified.Equal(st.ModifiedAt) && e.erasures == erasures
}

// jsonShard is a part of the cache, evicting the entry least recently
// used.
type jsonShard struct {
	mu sync.Mutex
	lruMap[jsonKey, jsonEntry]
}

func newLetterJSONCache() *letterJSONCache {
	return &letterJSONCache{seed: maphash.MakeSeed()}
}

func (c *letterJSONCache) shard(id string) *jsonShard {
	return &c.shards[maphash.String(c.seed, id)%jsonShards]
}

// get returns the encoding kept of the letter at st, read at the account's
// mark of erasures erasures, that serves a list without CASS details when
// cassLeftOut, else a fetch, if any. Its bytes are the cache's: the
// caller copies them and does not change them.
func (c *letterJSONCache) get(st *lettershop.LetterStamp, erasures uint64, cassLeftOut bool) (keptJSON, bool) {
	sh := c.shard(st.ID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.find(jsonKey{st.ID, st.Revision})
	if e == nil || !e.val.of(st, erasures) || !e.val.kept.serves(cassLeftOut) {
		return keptJSON{}, false
	}
	sh.use(e)
	return e.val.kept, true
}

// getPage is get for each of a page's letters, by their stamps, into
// found (one per letter, without data where none is kept): a page's
// letters are looked up a shard at a time, a lock taken per shard rather
// than per letter.
func (c *letterJSONCache) getPage(stamps []lettershop.LetterStamp, erasures uint64, cassLeftOut bool, found []keptJSON) {
	var shardOf [jsonShards][]int
	var idx [128]int
	all := idx[:0]
	for i := range stamps {
		all = append(all, int(maphash.String(c.seed, stamps[i].ID)%jsonShards))
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
			st := &stamps[i]
			e := sh.find(jsonKey{st.ID, st.Revision})
			if e == nil || !e.val.of(st, erasures) || !e.val.kept.serves(cassLeftOut) {
				continue
			}
			sh.use(e)
			found[i] = e.val.kept
		}
		sh.mu.Unlock()
	}
}

// put keeps k as the encoding of the letter at st, read at the account's
// mark of erasures erasures; its data is the cache's from then on. A list form
// does not replace a full encoding kept of the same state, which serves
// the list too.
func (c *letterJSONCache) put(st *lettershop.LetterStamp, erasures uint64, k keptJSON) {
	key := jsonKey{st.ID, st.Revision}
	size := jsonEntrySize(key, k.data)
	if size > jsonCacheBytes/jsonShards/8 {
		return // a letter of very many events: rare, and it would crowd out others
	}
	sh := c.shard(st.ID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.find(key); e != nil && !k.full && e.val.kept.full && e.val.of(st, erasures) {
		sh.use(e)
		return
	}
	sh.add(key, jsonEntry{status: st.Status, modified: st.ModifiedAt, erasures: erasures, kept: k}, size, jsonCacheBytes/jsonShards, 0)
}

// jsonEntryOverhead is what an entry costs besides its bytes and id: the
// entry and its map slot.
const jsonEntryOverhead = 176

// jsonEntrySize is what the entry of data under k holds: data counted by
// its capacity. Letters keeps encodings copied to their length (keep),
// not in the room they were made in.
func jsonEntrySize(k jsonKey, data []byte) int { return cap(data) + len(k.id) + jsonEntryOverhead }

// keep returns a copy of b of its length exactly, to be kept: an encoding
// is made in room for a letter of a few events (letterSize, 3 KiB) and
// takes about two thirds of it, and a cache bounded in bytes holds half as
// many letters again when it keeps only what they take.
func keep(b []byte) []byte {
	c := make([]byte, len(b))
	copy(c, b)
	return c
}

// A page of letters polled again (the first page of a list a client
// watches) is mostly the same letters at the same revisions: Letters keeps
// the last pages it encoded whole, each with the stamps of the letters it
// was made from and whether a page followed (which decides the next-page
// token), and gives a page read again the same text when the store returns
// the same stamps. A page costs then what reading its letters' stamps
// costs, not copying 270 KB of encodings.

// Bounds of the pages kept: a page of 100 letters is about 270 KB.
const (
	pageCacheBytes   = 16 << 20
	pageCacheEntries = 64
)

type pageEntry struct {
	stamps   []lettershop.LetterStamp
	more     bool
	erasures uint64 // as jsonEntry's
	text     []byte
}

// pageJSONCache holds pages' encodings under keys of type K (a
// lettershop.LetterListKey), least recently used out first.
type pageJSONCache[K comparable] struct {
	mu sync.Mutex
	lruMap[K, pageEntry]
}

func newPageJSONCache[K comparable]() *pageJSONCache[K] {
	return &pageJSONCache[K]{}
}

// matches reports whether e was made of the letters whose stamps are
// stamps, with a page after them when more, read at the mark of erasures
// erasures.
func (e *pageEntry) matches(stamps []lettershop.LetterStamp, more bool, erasures uint64) bool {
	if len(e.stamps) != len(stamps) || e.more != more || e.erasures != erasures {
		return false
	}
	for i := range stamps {
		if !e.stamps[i].Equal(stamps[i]) {
			return false
		}
	}
	return true
}

// has reports whether a page is kept under k, of whatever letters.
func (c *pageJSONCache[K]) has(k K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.find(k) != nil
}

// get returns the text kept for the page k made of the letters whose
// stamps are stamps, with a page after them when more, read at the count
// mark of erasures erasures, if any. The bytes are shared: the caller does not
// change them.
func (c *pageJSONCache[K]) get(k K, stamps []lettershop.LetterStamp, more bool, erasures uint64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.find(k)
	if e == nil || !e.val.matches(stamps, more, erasures) {
		return nil, false
	}
	c.use(e)
	return e.val.text, true
}

// put keeps text as the page k made of the letters whose stamps are
// stamps, with a page after them when more, read at the mark of erasures
// erasures. text is shared from then on; stamps is copied.
func (c *pageJSONCache[K]) put(k K, stamps []lettershop.LetterStamp, more bool, erasures uint64, text []byte) {
	// A page is made in room for letters of a few events: what it holds
	// is its capacity.
	size := cap(text)
	if size > pageCacheBytes/8 {
		return
	}
	e := pageEntry{text: text, more: more, erasures: erasures, stamps: slices.Clone(stamps)}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(k, e, size, pageCacheBytes, pageCacheEntries)
}

// lruMap is a map whose entries are linked in the order they were last used,
// for a cache that lets the least recently used go first. It counts the
// bytes its entries hold as add is told; its user locks it. Its zero
// value is empty, and makes its map and sentinel on the first add: a
// Service has 17 of them, and a test's server may never fill one.
type lruMap[K comparable, V any] struct {
	byKey map[K]*lruEntry[K, V]
	// head is the ring's sentinel: head.next is the most recently used
	// entry, head.prev the least.
	head  *lruEntry[K, V]
	bytes int
}

type lruEntry[K comparable, V any] struct {
	key        K
	val        V
	size       int
	prev, next *lruEntry[K, V]
}

func (l *lruMap[K, V]) init() {
	l.byKey = make(map[K]*lruEntry[K, V])
	l.head = &lruEntry[K, V]{}
	l.head.prev, l.head.next = l.head, l.head
}

// find returns the entry under k, or nil.
func (l *lruMap[K, V]) find(k K) *lruEntry[K, V] { return l.byKey[k] }

// use makes e the most recently used entry.
func (l *lruMap[K, V]) use(e *lruEntry[K, V]) {
	l.unlink(e)
	l.pushFront(e)
}

// add keeps v under k, as the most recently used entry, holding size
// bytes, in place of any entry under k. The least recently used go first
// until it fits within maxBytes and, when maxEntries is above 0, the
// entries number at most maxEntries. size must not be above maxBytes.
func (l *lruMap[K, V]) add(k K, v V, size, maxBytes, maxEntries int) {
	if l.head == nil {
		l.init()
	}
	if old, ok := l.byKey[k]; ok {
		l.remove(old)
	}
	for l.bytes+size > maxBytes || maxEntries > 0 && len(l.byKey) >= maxEntries {
		l.remove(l.head.prev)
	}
	e := &lruEntry[K, V]{key: k, val: v, size: size}
	l.byKey[k] = e
	l.pushFront(e)
	l.bytes += size
}

func (l *lruMap[K, V]) unlink(e *lruEntry[K, V]) { e.prev.next, e.next.prev = e.next, e.prev }

func (l *lruMap[K, V]) pushFront(e *lruEntry[K, V]) {
	e.prev, e.next = l.head, l.head.next
	l.head.next.prev = e
	l.head.next = e
}

func (l *lruMap[K, V]) remove(e *lruEntry[K, V]) {
	l.unlink(e)
	delete(l.byKey, e.key)
	l.bytes -= e.size
}
