package lettershop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// hiddenMock is a clock.Mock the lifecycle does not recognise as one, so it
// runs as on a real clock: catching up at most once per catchUpEvery.
type hiddenMock struct{ *clock.Mock }

// TestAppendLetterJSONOfLetterDueShowsSteps: a letter due whose steps no
// run has stored yet is shown with them, as GetLetter shows it, and its
// encoding is not kept under the stored revision.
func TestAppendLetterJSONOfLetterDueShowsSteps(t *testing.T) {
	mc := clock.NewMock()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	mc.Set(start)
	store := memstore.New()
	s := New(store, WithClock(hiddenMock{mc}))
	// Stopped after its first run, the loop runs nothing more, and reads
	// catch up only once a second of the clock that stands still.
	s.Close()
	_, l := benchRecord(t)
	l.dueAt = start.Add(-time.Minute)
	rec, err := letterRecord("acct", &l)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := store.CreateLetter(context.Background(), rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := s.AppendLetterJSON(t.Context(), nil, "acct", l.ID)
		if err != nil {
			t.Fatal(err)
		}
		shown, err := s.GetLetter(t.Context(), "acct", l.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(shown)
		if string(got) != string(want) {
			t.Fatalf("AppendLetterJSON:\n got %s\nwant %s", got, want)
		}
		if len(shown.Events) == len(l.Events) {
			t.Fatalf("the letter shows no step taken: the test no longer tests a letter due")
		}
	}
	if _, ok := s.letterJSON.get(&stored, false); ok {
		t.Errorf("the encoding of a letter shown with steps not stored is kept under the stored revision")
	}
}

func TestLetterJSONCacheBound(t *testing.T) {
	c := newLetterJSONCache()
	data := []byte(strings.Repeat("x", 3000))
	n := 3 * jsonCacheBytes / len(data)
	recs := make([]storage.Letter, n)
	for i := range recs {
		recs[i] = storage.Letter{ID: fmt.Sprintf("ltr_%d", i), Revision: 1, Status: "queued"}
		c.put(&recs[i], false, data)
		// The first letter is read all along: the least recently used go.
		if _, ok := c.get(&recs[0], false); !ok {
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
		for e := sh.head.next; e != &sh.head; e = e.next {
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
	if _, ok := c.get(&r, false); ok {
		t.Errorf("an encoding of another status is found")
	}
	if _, ok := c.get(&recs[0], true); ok {
		t.Errorf("the encoding a fetch shows is found for a list without CASS details")
	}
}

func TestPageJSONCacheBound(t *testing.T) {
	c := newPageJSONCache()
	recs := []storage.Letter{{ID: "ltr_1", Revision: 1, Status: "queued"}}
	text := []byte(strings.Repeat("x", pageCacheBytes/10))
	for i := range 2 * pageCacheEntries {
		k := pageKey{scope: fmt.Sprint(i), limit: 10}
		c.put(k, recs, text[:len(text)*(i%2)+1])
		if got, ok := c.get(k, recs); !ok || len(got) != len(text)*(i%2)+1 {
			t.Fatalf("page %d not kept", i)
		}
		if len(c.byKey) > pageCacheEntries || c.bytes > pageCacheBytes {
			t.Fatalf("after %d pages: %d kept, %d bytes", i+1, len(c.byKey), c.bytes)
		}
	}
	k := pageKey{scope: "changed", limit: 10}
	c.put(k, recs, []byte("x"))
	for _, changed := range []func(r *storage.Letter){
		func(r *storage.Letter) { r.Revision++ },
		func(r *storage.Letter) { r.ID = "ltr_2" },
		func(r *storage.Letter) { r.Status = "ready" },
		func(r *storage.Letter) { r.ModifiedAt = r.ModifiedAt.Add(1) },
	} {
		other := []storage.Letter{recs[0]}
		changed(&other[0])
		if _, ok := c.get(k, other); ok {
			t.Errorf("a page of changed letters is found: %+v", other[0])
		}
	}
	if _, ok := c.get(k, append(recs, storage.Letter{ID: "ltr_0"})); ok {
		t.Errorf("a page of more letters is found")
	}
}

// TestJSONCachesCountWhatTheyHold: an encoding is made in room for a
// letter of a few events, and a page in room for as many; what the caches
// hold is that room, and their bounds count it.
func TestJSONCachesCountWhatTheyHold(t *testing.T) {
	room := make([]byte, 3000)
	c := newLetterJSONCache()
	for i := range 2 * jsonCacheBytes / 1000 {
		r := storage.Letter{ID: fmt.Sprintf("ltr_%d", i), Revision: 1, Status: "queued"}
		c.put(&r, false, room[:1000])
	}
	held := 0
	for i := range c.shards {
		for _, e := range c.shards[i].byKey {
			held += cap(e.val.data)
		}
	}
	if held > jsonCacheBytes {
		t.Errorf("the letter cache holds %d bytes, over its bound of %d", held, jsonCacheBytes)
	}

	p := newPageJSONCache()
	pageRoom := make([]byte, pageCacheBytes/10)
	recs := []storage.Letter{{ID: "ltr_1", Revision: 1, Status: "queued"}}
	for i := range pageCacheEntries {
		p.put(pageKey{scope: fmt.Sprint(i), limit: 10}, recs, pageRoom[:1000])
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
		r := storage.Letter{ID: fmt.Sprintf("ltr_%d", i), Revision: 1, Status: "queued"}
		c.put(&r, false, room[:100])
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
		r := storage.Letter{ID: id, Revision: 1, Status: "queued"}
		c.put(&r, false, make([]byte, n))
		if _, ok := c.get(&r, false); ok != (n == largest) {
			t.Errorf("an encoding of %d bytes (largest kept %d): kept %v", n, largest, ok)
		}
	}

	p := newPageJSONCache()
	recs := []storage.Letter{{ID: "ltr_1", Revision: 1, Status: "queued"}}
	for i := range 2 * pageCacheEntries {
		p.put(pageKey{scope: fmt.Sprint(i), limit: 10}, recs, []byte("{}\n"))
	}
	if len(p.byKey) != pageCacheEntries {
		t.Errorf("%d small pages kept, want %d", len(p.byKey), pageCacheEntries)
	}
	p = newPageJSONCache()
	text := make([]byte, pageCacheBytes/10)
	for i := range 2 * pageCacheEntries {
		p.put(pageKey{scope: fmt.Sprint(i), limit: 10}, recs, text)
	}
	if want := pageCacheBytes / len(text); len(p.byKey) != want {
		t.Errorf("%d pages of %d bytes kept, want %d", len(p.byKey), len(text), want)
	}
	for _, n := range []int{pageCacheBytes / 8, pageCacheBytes/8 + 1} {
		p := newPageJSONCache()
		k := pageKey{scope: "large", limit: 10}
		p.put(k, recs, make([]byte, n))
		if _, ok := p.get(k, recs); ok != (n == pageCacheBytes/8) {
			t.Errorf("a page of %d bytes (largest kept %d): kept %v", n, pageCacheBytes/8, ok)
		}
	}
}
