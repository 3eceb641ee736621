package wire

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// pageKey stands for lettershop.LetterListKey, which only a Service makes.
type pageKey struct {
	scope string
	limit int
}

func TestLetterJSONCacheBound(t *testing.T) {
	c := newLetterJSONCache()
	data := []byte(strings.Repeat("x", 3000))
	n := 3 * jsonCacheBytes / len(data)
	recs := make([]lettershop.LetterStamp, n)
	for i := range recs {
		recs[i] = lettershop.LetterStamp{ID: fmt.Sprintf("ltr_%d", i), Revision: 1, Status: "queued"}
		c.put(&recs[i], 0, keptJSON{data: data, full: true})
		// The first letter is read all along: the least recently used go.
		if _, ok := c.get(&recs[0], 0, false); !ok {
			t.Fatalf("the letter read all along was evicted after %d puts", i)
		}
	}
	kept := 0
	for i := range c.shards {
		sh := &c.shards[i]
		if sh.bytes > jsonCacheBytes/jsonShards {
			t.Errorf("shard %d holds %d bytes, over its bound", i, sh.bytes)
		}
		kept += len(sh.byKey)
		m := 0
		for e := sh.head.next; e != sh.head; e = e.next {
			m++
			if sh.byKey[e.key] != e {
				t.Errorf("shard %d: entry %v not in its map", i, e.key)
			}
		}
		if m != len(sh.byKey) {
			t.Errorf("shard %d: %d entries linked, %d in the map", i, m, len(sh.byKey))
		}
	}
	if kept == 0 || kept >= n {
		t.Errorf("%d of %d encodings kept", kept, n)
	}
	// A record changed without its revision (a store made anew) misses.
	r := recs[0]
	r.Status = "ready"
	if _, ok := c.get(&r, 0, false); ok {
		t.Errorf("an encoding of another status is found")
	}
	// The encoding a fetch shows serves a list without CASS details, cut;
	// a list's does not serve a fetch, and does not replace a fetch's.
	full := keptJSON{data: []byte(`{"s":{"a":1,"c":2},"r":{"a":3,"c":4},"z":5}`), full: true, cut: cassSpans{{11, 17}, {29, 35}}}
	list := keptJSON{data: []byte(`{"s":{"a":1},"r":{"a":3},"z":5}`)}
	for _, order := range [][]keptJSON{{full}, {full, list}, {list, full}} {
		c := newLetterJSONCache()
		for _, k := range order {
			c.put(&recs[0], 0, k)
		}
		k, ok := c.get(&recs[0], 0, true)
		if got := k.appendTo([]byte("x"), true); !ok || string(got) != "x"+string(list.data) {
			t.Errorf("put %d forms: the list form is %q, %v; want x%s", len(order), got, ok, list.data)
		}
		k, ok = c.get(&recs[0], 0, false)
		if got := k.appendTo(nil, false); !ok || string(got) != string(full.data) {
			t.Errorf("put %d forms: the fetch form is %q, %v; want %s", len(order), got, ok, full.data)
		}
	}
	c = newLetterJSONCache()
	c.put(&recs[0], 0, list)
	if _, ok := c.get(&recs[0], 0, false); ok {
		t.Errorf("the encoding a list without CASS details shows is found for a fetch")
	}
}

func TestPageJSONCacheBound(t *testing.T) {
	c := newPageJSONCache[pageKey]()
	recs := []lettershop.LetterStamp{{ID: "ltr_1", Revision: 1, Status: "queued"}}
	text := []byte(strings.Repeat("x", pageCacheBytes/10))
	for i := range 2 * pageCacheEntries {
		k := pageKey{scope: fmt.Sprint(i), limit: 10}
		c.put(k, recs, false, 0, text[:len(text)*(i%2)+1])
		if got, ok := c.get(k, recs, false, 0); !ok || len(got) != len(text)*(i%2)+1 {
			t.Fatalf("page %d not kept", i)
		}
		if len(c.byKey) > pageCacheEntries || c.bytes > pageCacheBytes {
			t.Fatalf("after %d pages: %d kept, %d bytes", i+1, len(c.byKey), c.bytes)
		}
	}
	k := pageKey{scope: "changed", limit: 10}
	c.put(k, recs, false, 0, []byte("x"))
	if _, ok := c.get(k, recs, false, 0); !ok {
		t.Fatalf("the page is not kept")
	}
	for _, changed := range []func(r *lettershop.LetterStamp){
		func(r *lettershop.LetterStamp) { r.Revision++ },
		func(r *lettershop.LetterStamp) { r.ID = "ltr_2" },
		func(r *lettershop.LetterStamp) { r.Status = "ready" },
		func(r *lettershop.LetterStamp) { r.ModifiedAt = r.ModifiedAt.Add(1) },
	} {
		other := []lettershop.LetterStamp{recs[0]}
		changed(&other[0])
		if _, ok := c.get(k, other, false, 0); ok {
			t.Errorf("a page of changed letters is found: %+v", other[0])
		}
	}
	if _, ok := c.get(k, append(recs, lettershop.LetterStamp{ID: "ltr_0"}), false, 0); ok {
		t.Errorf("a page of more letters is found")
	}
	if _, ok := c.get(k, recs, true, 0); ok {
		t.Errorf("the page of the same letters with a page after it is found")
	}
}

// TestJSONCachesCountWhatTheyHold: an encoding is made in room for a
// letter of a few events, and a page in room for as many; what the caches
// hold is that room, and their bounds count it.
func TestJSONCachesCountWhatTheyHold(t *testing.T) {
	room := make([]byte, 3000)
	c := newLetterJSONCache()
	for i := range 2 * jsonCacheBytes / 1000 {
		r := lettershop.LetterStamp{ID: fmt.Sprintf("ltr_%d", i), Revision: 1, Status: "queued"}
		c.put(&r, 0, keptJSON{data: room[:1000], full: true})
	}
	held := 0
	for i := range c.shards {
		for _, e := range c.shards[i].byKey {
			held += cap(e.val.kept.data)
		}
	}
	if held > jsonCacheBytes {
		t.Errorf("the letter cache holds %d bytes, over its bound of %d", held, jsonCacheBytes)
	}

	p := newPageJSONCache[pageKey]()
	pageRoom := make([]byte, pageCacheBytes/10)
	recs := []lettershop.LetterStamp{{ID: "ltr_1", Revision: 1, Status: "queued"}}
	for i := range pageCacheEntries {
		p.put(pageKey{scope: fmt.Sprint(i), limit: 10}, recs, false, 0, pageRoom[:1000])
	}
	held = 0
	for _, e := range p.byKey {
		held += cap(e.val.text)
	}
	if held > pageCacheBytes {
		t.Errorf("the page cache holds %d bytes, over its bound of %d", held, pageCacheBytes)
	}
}

// TestJSONCachesFillToTheirBounds: the other side of the bounds. A cache
// full of entries holds as many as fit, and an entry of the largest size
// kept is kept, one byte larger is not.
func TestJSONCachesFillToTheirBounds(t *testing.T) {
	c := newLetterJSONCache()
	room := make([]byte, 3000)
	for i := range 2 * jsonCacheBytes / len(room) {
		r := lettershop.LetterStamp{ID: fmt.Sprintf("ltr_%d", i), Revision: 1, Status: "queued"}
		c.put(&r, 0, keptJSON{data: room[:100], full: true})
	}
	for i := range c.shards {
		sh := &c.shards[i]
		if e := sh.head.next; sh.bytes+e.size <= jsonCacheBytes/jsonShards {
			t.Errorf("shard %d holds %d bytes: room for another entry of %d is left", i, sh.bytes, e.size)
		}
	}
	const id = "ltr_large"
	largest := jsonCacheBytes/jsonShards/8 - len(id) - jsonEntryOverhead
	for _, n := range []int{largest, largest + 1} {
		c := newLetterJSONCache()
		r := lettershop.LetterStamp{ID: id, Revision: 1, Status: "queued"}
		c.put(&r, 0, keptJSON{data: make([]byte, n), full: true})
		if _, ok := c.get(&r, 0, false); ok != (n == largest) {
			t.Errorf("an encoding of %d bytes (largest kept %d): kept %v", n, largest, ok)
		}
	}

	p := newPageJSONCache[pageKey]()
	recs := []lettershop.LetterStamp{{ID: "ltr_1", Revision: 1, Status: "queued"}}
	for i := range 2 * pageCacheEntries {
		p.put(pageKey{scope: fmt.Sprint(i), limit: 10}, recs, false, 0, []byte("{}\n"))
	}
	if len(p.byKey) != pageCacheEntries {
		t.Errorf("%d small pages kept, want %d", len(p.byKey), pageCacheEntries)
	}
	p = newPageJSONCache[pageKey]()
	text := make([]byte, pageCacheBytes/10)
	for i := range 2 * pageCacheEntries {
		p.put(pageKey{scope: fmt.Sprint(i), limit: 10}, recs, false, 0, text)
	}
	if want := pageCacheBytes / len(text); len(p.byKey) != want {
		t.Errorf("%d pages of %d bytes kept, want %d", len(p.byKey), len(text), want)
	}
	for _, n := range []int{pageCacheBytes / 8, pageCacheBytes/8 + 1} {
		p := newPageJSONCache[pageKey]()
		k := pageKey{scope: "large", limit: 10}
		p.put(k, recs, false, 0, make([]byte, n))
		if _, ok := p.get(k, recs, false, 0); ok != (n == pageCacheBytes/8) {
			t.Errorf("a page of %d bytes (largest kept %d): kept %v", n, pageCacheBytes/8, ok)
		}
	}
}

// A page keeps its own copy of the stamps it was made of: the caller's
// (a buffer on its stack, reused) may change after.
func TestPageJSONCacheCopiesStamps(t *testing.T) {
	c := newPageJSONCache[pageKey]()
	k := pageKey{scope: "s", limit: 2}
	buf := []lettershop.LetterStamp{{ID: "ltr_1", Revision: 1, Status: "queued"}, {ID: "ltr_2", Revision: 3, Status: "ready"}}
	c.put(k, buf, true, 0, []byte("{}\n"))
	kept := slices.Clone(buf)
	buf[0], buf[1] = lettershop.LetterStamp{ID: "ltr_9"}, lettershop.LetterStamp{ID: "ltr_8"}
	if _, ok := c.get(k, kept, true, 0); !ok {
		t.Errorf("the page is not found by the stamps it was made of once the caller's changed")
	}
	if _, ok := c.get(k, buf, true, 0); ok {
		t.Errorf("the page is found by the caller's changed stamps")
	}
}

// The caches make their maps on the first put: a Service's Letters had
// seventeen maps and sentinels made, 3.3 KB, before its first read, and a
// test's server may read no letter.
func TestJSONCachesMadeOnFirstPut(t *testing.T) {
	if n := testing.AllocsPerRun(10, func() { _ = newLetterJSONCache(); _ = newPageJSONCache[string]() }); n > 2 {
		t.Errorf("the empty caches take %v allocations, want 2", n)
	}
	c := newLetterJSONCache()
	st := lettershop.LetterStamp{ID: "ltr_1", Revision: 1, Status: "queued"}
	if _, ok := c.get(&st, 0, false); ok {
		t.Fatal("an empty cache found a letter")
	}
	c.put(&st, 0, keptJSON{data: []byte(`{}`), full: true})
	if k, ok := c.get(&st, 0, false); !ok || string(k.data) != `{}` {
		t.Errorf("get after put: %q %v", k.data, ok)
	}
	p := newPageJSONCache[string]()
	if p.has("k") {
		t.Fatal("an empty page cache has a page")
	}
	p.put("k", []lettershop.LetterStamp{st}, false, 0, []byte(`[]`))
	if b, ok := p.get("k", []lettershop.LetterStamp{st}, false, 0); !ok || string(b) != `[]` {
		t.Errorf("page get after put: %q %v", b, ok)
	}
}

// BenchmarkNewJSONCaches is what a Service's letter and page caches cost
// before their first read.
//
//	go test ./wire -run '^$' -bench NewJSONCaches -benchmem
func BenchmarkNewJSONCaches(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = newLetterJSONCache()
		_ = newPageJSONCache[string]()
	}
}
