// Package rendercache keeps rendered letters in memory, by the stored state
// they were rendered from, so that a letter downloaded again is not
// rendered again: an LRU of PDFs whose key changes whenever the letter
// does. It knows nothing of letters but their key, nor of how they render.
package rendercache

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Key is the stored state of a letter a rendering was made from: any
// change to the letter changes its Key, so a stale rendering is never
// found.
type Key struct {
	Account string
	ID      string
	// Modified is the letter's modification time, in Unix nanoseconds.
	Modified int64
	// Revision is the letter's stored revision: it tells apart two
	// changes made at one instant (a stopped clock, or a store that keeps
	// coarser times).
	Revision int64
	// Erasures is the account's count of erasures the letter was read at
	// (lettershop.Service.Erasures): an erased account's ids come back,
	// restored, at revisions they had, from other states, and another
	// server on the store can not Forget them.
	Erasures uint64
}

// DefaultSize is how many renderings a zero Cache keeps.
const DefaultSize = 256

// DefaultBytes is how many bytes of renderings a Cache keeps at most: a
// letter from a PDF document renders to as much as its 10 MiB document,
// and 256 of those held 2.5 GB.
const DefaultBytes = 128 << 20

// Cache keeps the renderings of up to a number of letters, the least
// recently used going first. New makes one of a size; the zero value is a
// Cache of DefaultSize. It is safe for concurrent use.
type Cache struct {
	// once makes lru on the first Get: a Service made for one test that
	// renders nothing pays nothing for it (its LRU is some 1.7 KB and 9
	// allocations).
	once sync.Once
	lru  *lru.Cache[Key, []byte]
	// size is the renderings lru holds; sized says New gave it, where a
	// zero Cache keeps DefaultSize.
	size  int
	sized bool
	// maxBytes bounds bytes, the size of the renderings in lru.
	maxBytes int64
	bytes    atomic.Int64
	// rendered counts calls of a render function.
	rendered atomic.Int64
}

// New returns a Cache of size renderings. A size of zero or less keeps
// none: every Get renders.
func New(size int) *Cache { return NewBounded(size, DefaultBytes) }

// NewBounded returns a Cache of size renderings and maxBytes bytes of
// them at most, the least recently used going first; a rendering larger
// than maxBytes is not kept.
func NewBounded(size int, maxBytes int64) *Cache {
	return &Cache{size: size, sized: true, maxBytes: maxBytes}
}

// keep returns an LRU of size renderings; nil, keeping nothing, for a size
// of zero or less.
func (c *Cache) keep(size int) *lru.Cache[Key, []byte] {
	if size <= 0 {
		return nil
	}
	l, _ := lru.NewWithEvict(size, func(_ Key, b []byte) { c.bytes.Add(-int64(len(b))) }) // only a size <= 0 fails
	return l
}

// kept returns the LRU of c, nil when it keeps nothing.
func (c *Cache) kept() *lru.Cache[Key, []byte] {
	c.once.Do(func() {
		if !c.sized {
			c.size, c.maxBytes = DefaultSize, DefaultBytes
		}
		c.lru = c.keep(c.size)
	})
	return c.lru
}

// Get returns the rendering kept under k, or else what render returns,
// keeping it under k when render succeeds; cached says which. The bytes
// returned are the caller's own. Two Gets of one Key at once may both
// render.
func (c *Cache) Get(k Key, render func() ([]byte, error)) (b []byte, cached bool, err error) {
	kept := c.kept()
	if kept != nil {
		if b, ok := kept.Get(k); ok {
			return bytes.Clone(b), true, nil
		}
	}
	c.rendered.Add(1)
	b, err = render()
	if err != nil {
		return nil, false, err
	}
	if kept != nil && int64(len(b)) <= c.maxBytes {
		if found, _ := kept.ContainsOrAdd(k, bytes.Clone(b)); !found {
			c.bytes.Add(int64(len(b)))
		}
		for c.bytes.Load() > c.maxBytes {
			if _, _, ok := kept.RemoveOldest(); !ok {
				break
			}
		}
	}
	return b, false, nil
}

// Observed is Get telling observe, unless it is nil, how long the Get
// took on the wall clock and whether it found the rendering kept; a Get
// that fails is not told of.
func (c *Cache) Observed(k Key, observe func(d time.Duration, cached bool), render func() ([]byte, error)) ([]byte, error) {
	if observe == nil {
		b, _, err := c.Get(k, render)
		return b, err
	}
	start := time.Now()
	b, cached, err := c.Get(k, render)
	if err == nil {
		observe(time.Since(start), cached)
	}
	return b, err
}

// Forget drops the renderings of the account's letters, whose ids may
// come back at revisions they had before (an account emptied, then
// restored with its ids kept), drawn from other states.
func (c *Cache) Forget(account string) {
	kept := c.kept()
	if kept == nil {
		return
	}
	for _, k := range kept.Keys() {
		if k.Account == account {
			kept.Remove(k)
		}
	}
}

// Rendered returns how many times Get has rendered rather than found a
// rendering kept.
func (c *Cache) Rendered() int64 { return c.rendered.Load() }
