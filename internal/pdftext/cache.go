package pdftext

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// DefaultCacheBytes is the text a Cache made with it keeps, in bytes: the
// text of some forty letters of 250 pages.
const DefaultCacheBytes = 32 << 20

// Cache keeps the text of the PDFs read last, by their content's SHA-256,
// up to a bound on the text kept, the least recently read going first.
// Reading a letter's text costs far more than rendering it again from the
// render cache: a letter of 266 pages takes some 0.6 s of a core to read,
// its PDF 2 ms to fetch, so a client asking for one letter's text again and
// again kept the server's cores busy without a cache. Reads of one PDF at
// once read it once. An error is not kept. A Cache is safe for concurrent
// use.
type Cache struct {
	max  int
	read func([]byte) (string, error)

	mu     sync.Mutex
	size   int
	lru    *list.List // of *cached, the most recently read at the front
	by     map[[sha256.Size]byte]*list.Element
	flight map[[sha256.Size]byte]*reading
}

type cached struct {
	key  [sha256.Size]byte
	text string
}

// reading is a read under way, which others of the same PDF wait for.
type reading struct {
	done chan struct{}
	text string
	err  error
}

// NewCache returns a Cache keeping at most maxBytes of text, read by read
// (Text when nil); a text larger than maxBytes is read and not kept.
func NewCache(maxBytes int, read func([]byte) (string, error)) *Cache {
	if read == nil {
		read = Text
	}
	return &Cache{max: maxBytes, read: read, lru: list.New(),
		by: map[[sha256.Size]byte]*list.Element{}, flight: map[[sha256.Size]byte]*reading{}}
}

// Text returns Text(b), kept from an earlier read of the same bytes when
// it can.
func (c *Cache) Text(b []byte) (string, error) {
	key := sha256.Sum256(b)
	c.mu.Lock()
	if e, ok := c.by[key]; ok {
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*cached).text, nil
	}
	if f, ok := c.flight[key]; ok {
		c.mu.Unlock()
		<-f.done
		return f.text, f.err
	}
	f := &reading{done: make(chan struct{})}
	c.flight[key] = f
	c.mu.Unlock()

	f.text, f.err = c.read(b)
	c.mu.Lock()
	delete(c.flight, key)
	if f.err == nil && len(f.text) <= c.max {
		c.by[key] = c.lru.PushFront(&cached{key: key, text: f.text})
		c.size += len(f.text)
		for c.size > c.max {
			old := c.lru.Remove(c.lru.Back()).(*cached)
			delete(c.by, old.key)
			c.size -= len(old.text)
		}
	}
	c.mu.Unlock()
	close(f.done)
	return f.text, f.err
}
