// Package rendercache keeps rendered letters in memory, by the stored state
// they were rendered from, so that a letter downloaded again is not
// rendered again: an LRU of PDFs whose key changes whenever the letter
// does. It knows nothing of letters but their key, nor of how they render.
package rendercache

import (
	"bytes"
	"sync/atomic"

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
}

// Cache keeps the renderings of up to a number of letters, the least
// recently used going first. It is safe for concurrent use.
type Cache struct {
	lru *lru.Cache[Key, []byte]
	// rendered counts calls of a render function.
	rendered atomic.Int64
}

// New returns a Cache of size renderings. A size of zero or less keeps
// none: every Get renders.
func New(size int) *Cache {
	c := &Cache{}
	if size > 0 {
		c.lru, _ = lru.New[Key, []byte](size) // only a size <= 0 fails
	}
	return c
}

// Get returns the rendering kept under k, or else what render returns,
// keeping it under k when render succeeds; cached says which. The bytes
// returned are the caller's own. Two Gets of one Key at once may both
// render.
func (c *Cache) Get(k Key, render func() ([]byte, error)) (b []byte, cached bool, err error) {
	if c.lru != nil {
		if b, ok := c.lru.Get(k); ok {
			return bytes.Clone(b), true, nil
		}
	}
	c.rendered.Add(1)
	b, err = render()
	if err != nil {
		return nil, false, err
	}
	if c.lru != nil {
		c.lru.Add(k, bytes.Clone(b))
	}
	return b, false, nil
}

// Rendered returns how many times Get has rendered rather than found a
// rendering kept.
func (c *Cache) Rendered() int64 { return c.rendered.Load() }
