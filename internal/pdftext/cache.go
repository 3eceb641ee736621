package pdftext

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// DefaultCacheBytes is the text a Cache made with it keeps, in bytes: the
// text of some forty letters of 250 pages.
const DefaultCacheBytes = 32 << 20

// cacheEntries bounds the texts a Cache keeps, whatever their size.
const cacheEntries = 4096

// Cache keeps the text of the PDFs read last, by their content's SHA-256,
// up to a bound on the text kept, the least recently read going first.
// Reading a letter's text costs far more than rendering it again from the
// render cache: a letter of 266 pages takes some 0.6 s of a core to read,
// its PDF 2 ms to fetch, so a client asking for one letter's text again and
// again kept the server's cores busy without a cache. Reads of one PDF at
// once read it once, and no more PDFs are read at once than there are
// cores (GOMAXPROCS when the Cache is made): sixteen read at once slowed
// another account's requests to 81 ms. An error is not kept. A Cache is
// safe for concurrent use.
type Cache struct {
	max  int64
	read func([]byte) (string, error)
	size atomic.Int64
	// once makes kept on the first Text: every handler has a Cache, and a
	// test's server that reads no letter's text pays nothing for it (its
	// LRU is some 1.2 KB and 10 allocations).
	once   sync.Once
	kept   *lru.Cache[[sha256.Size]byte, string]
	flight singleflight.Group
	// reading holds a token for each read under way.
	reading chan struct{}
}

// NewCache returns a Cache keeping at most maxBytes of text, read by read
// (Text when nil); a text larger than maxBytes is read and not kept.
func NewCache(maxBytes int, read func([]byte) (string, error)) *Cache {
	if read == nil {
		read = Text
	}
	return &Cache{max: int64(maxBytes), read: read, reading: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// texts returns the texts kept, made on the first call.
func (c *Cache) texts() *lru.Cache[[sha256.Size]byte, string] {
	c.once.Do(func() {
		c.kept, _ = lru.NewWithEvict(cacheEntries, func(_ [sha256.Size]byte, text string) { c.size.Add(-int64(len(text))) }) // only a size <= 0 fails
	})
	return c.kept
}

// Text returns Text(b), kept from an earlier read of the same bytes when
// it can.
func (c *Cache) Text(b []byte) (string, error) {
	key := sha256.Sum256(b)
	kept := c.texts()
	if text, ok := kept.Get(key); ok {
		return text, nil
	}
	v, err, _ := c.flight.Do(hex.EncodeToString(key[:]), func() (any, error) {
		// A read that ended between the Get above and this call kept
		// its text already.
		if text, ok := kept.Get(key); ok {
			return text, nil
		}
		c.reading <- struct{}{}
		text, err := c.read(b)
		<-c.reading
		if err != nil || int64(len(text)) > c.max {
			return text, err
		}
		if found, _ := kept.ContainsOrAdd(key, text); !found {
			c.size.Add(int64(len(text)))
		}
		for c.size.Load() > c.max {
			if _, _, ok := kept.RemoveOldest(); !ok {
				break
			}
		}
		return text, nil
	})
	return v.(string), err
}
