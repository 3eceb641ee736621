// Package memstore is an in-memory storage.Storage: the default backend of a
// single lettershop process, and the store the test suites run against.
//
// All state sits behind one mutex. Every list walks an ordered index, so a
// page costs O(log n + page size) however many records are stored, and
// expired idempotency records are found through an expiry index, so removing
// them costs O(expired).
package memstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"unique"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.Storage = (*Store)(nil)

// Store is an in-memory storage.Storage. Its zero value is not usable; call
// New. It is safe for concurrent use.
type Store struct {
	mu sync.RWMutex

	// Ids are unique across accounts, as ULIDs are: a record is found by id
	// and then checked for its account.
	letters           map[string]*letterRec
	names             names
	lettersByAccount  index[name, *letterRec]
	lettersByStatus   index[statusKey, *letterRec]
	lettersByExternal index[externalKey, *letterRec]
	lettersByMeta     index[letterMetaKey, *letterRec]
	lettersDue        dueIndex

	assets          map[string]*assetRec
	assetsByAccount index[string, *assetRec]
	assetsByMeta    index[metaKey, *assetRec]
	versions        map[string]*versionRec
	// versionFree serves the version trees of every asset, which would
	// each carry a free list of their own otherwise.
	versionFree *btree.FreeListG[*versionRec]
	// letterFree and assetFree serve every tree of letters and of assets
	// (the indexes' and the due letters'), and idemFree every tree of
	// idempotency records, each account's too: a free list of its own is
	// 300 bytes a tree, and keeps the nodes the tree let go.
	letterFree *btree.FreeListG[*letterRec]
	assetFree  *btree.FreeListG[*assetRec]
	idemFree   *btree.FreeListG[*idemRec]
	content    map[contentKey][]byte
	// contentByHash holds one copy of each content, which every account
	// that has it shares (putContent); contentHolders counts the accounts
	// that have content of each hash, and contentOf lists each account's
	// hashes, so that an erase finds the account's content and frees what
	// no other account has without walking the store's. Both are made
	// with the first content: a test's store may never hold any.
	contentByHash  map[string][]byte
	contentHolders map[string]int
	contentOf      map[string][]string

	// idem holds the idempotency records by scope and key: a tree rather
	// than a map, which would cost each record three times the bytes.
	idem       *btree.BTreeG[*idemRec]
	idemExpiry *btree.BTreeG[*idemRec]
	// idemAccountExpiry holds the same records by account, then expiry:
	// a claim removes its own account's expired records.
	idemAccountExpiry *btree.BTreeG[*idemRec]
	// idemDone holds each account's completed records in the order
	// TrimIdempotency removes them, and their sizes' sum.
	idemDone map[unique.Handle[string]]*idemDone
	// idemDoneSeq counts completions: a record's doneSeq orders the
	// records of one CreatedAt.
	idemDoneSeq uint32

	// hooks holds the webhooks and their deliveries (webhooks.go).
	hooks webhooks

	// clocks holds the accounts' own clocks (clocks.go).
	clocks clocks
}

// New returns an empty Store.
func New() *Store {
	letterFree := btree.NewFreeListG[*letterRec](btree.DefaultFreeListSize)
	assetFree := btree.NewFreeListG[*assetRec](btree.DefaultFreeListSize)
	idemFree := btree.NewFreeListG[*idemRec](btree.DefaultFreeListSize)
	return &Store{
		letters:           make(map[string]*letterRec),
		names:             newNames(),
		lettersByAccount:  newIndex[name](letterLess, letterFree),
		lettersByStatus:   newIndex[statusKey](letterLess, letterFree),
		lettersByExternal: newIndex[externalKey](letterLess, letterFree),
		lettersByMeta:     newIndex[letterMetaKey](letterLess, letterFree),
		lettersDue:        newDueIndex(letterFree),
		letterFree:        letterFree,

		assets:          make(map[string]*assetRec),
		assetsByAccount: newIndex[string](assetLess, assetFree),
		assetsByMeta:    newIndex[metaKey](assetLess, assetFree),
		assetFree:       assetFree,
		versions:        make(map[string]*versionRec),
		versionFree:     btree.NewFreeListG[*versionRec](btree.DefaultFreeListSize),
		content:         make(map[contentKey][]byte),
		contentByHash:   make(map[string][]byte),

		idem:              btree.NewWithFreeListG(degree, idemKeyLess, idemFree),
		idemExpiry:        btree.NewWithFreeListG(degree, idemExpiryLess, idemFree),
		idemAccountExpiry: btree.NewWithFreeListG(degree, idemAccountExpiryLess, idemFree),
		idemDone:          make(map[unique.Handle[string]]*idemDone),
		idemFree:          idemFree,

		hooks:  newWebhooks(),
		clocks: newClocks(),
	}
}

// degree suits pointer-sized items: nodes of up to 63 items keep the
// per-record share of node overhead small without making inserts shift much.
const degree = 32

// Composite index keys are structs, compared field by field, so no byte a
// value may hold (a separator, a NUL) can make two different keys collide.
type (
	statusKey   struct{ account, status name }
	externalKey struct {
		account    name
		externalID string
	}
	letterMetaKey struct {
		account    name
		key, value string
	}
	metaKey    struct{ account, key, value string }
	contentKey struct{ account, hash string }
)

// index holds, per key, the records carrying that key in id order. A
// posting per key, rather than one tree of composite entries, tells a query
// how many records each of its filters matches, so it can walk the smallest.
type index[K, T comparable] struct {
	postings map[K]posting[T]
	less     btree.LessFunc[T]
	// One free list serves all of the index's trees (and the store's
	// other trees of T), which would each carry a free list of their own
	// otherwise.
	free *btree.FreeListG[T]
}

// posting is the records under one key. Many keys (an external id, a
// customer number in metadata) hold a single record, so that record is
// held inline and a tree is made only for a second one: a tree for one
// record would cost several times the record's own share of the index.
type posting[T comparable] struct {
	one  T // the only record, while tree is nil
	tree *btree.BTreeG[T]
}

func (p posting[T]) len() int {
	if p.tree != nil {
		return p.tree.Len()
	}
	var zero T
	if p.one != zero {
		return 1
	}
	return 0
}

func newIndex[K, T comparable](less btree.LessFunc[T], free *btree.FreeListG[T]) index[K, T] {
	return index[K, T]{
		postings: make(map[K]posting[T]),
		less:     less,
		free:     free,
	}
}

func (x *index[K, T]) add(k K, v T) {
	p, ok := x.postings[k]
	switch {
	case !ok:
		x.postings[k] = posting[T]{one: v}
	case p.tree != nil:
		p.tree.ReplaceOrInsert(v)
	case p.one != v:
		t := btree.NewWithFreeListG(degree, x.less, x.free)
		t.ReplaceOrInsert(p.one)
		t.ReplaceOrInsert(v)
		x.postings[k] = posting[T]{tree: t}
	}
}

func (x *index[K, T]) remove(k K, v T) {
	p, ok := x.postings[k]
	switch {
	case !ok:
	case p.tree == nil:
		if p.one == v {
			// An empty posting would outlive the last record with its key.
			delete(x.postings, k)
		}
	default:
		p.tree.Delete(v)
		if p.tree.Len() == 1 {
			one, _ := p.tree.Min()
			x.postings[k] = posting[T]{one: one}
		}
	}
}

// get returns the records under k; the zero posting when there are none.
func (x *index[K, T]) get(k K) posting[T] {
	return x.postings[k]
}

// smaller returns the posting with fewer records.
func smaller[T comparable](a, b posting[T]) posting[T] {
	if b.len() < a.len() {
		return b
	}
	return a
}

// walk calls fn with p's records, highest first in the order of less,
// starting below before when before is set, until fn returns false.
func (p posting[T]) walk(less btree.LessFunc[T], before T, hasBefore bool, fn func(T) bool) {
	if p.tree == nil {
		if p.len() == 1 && (!hasBefore || less(p.one, before)) {
			fn(p.one)
		}
		return
	}
	walk(p.tree, less, before, hasBefore, fn)
}

// walk calls fn with t's items, highest first, starting below before when
// before is set, until fn returns false.
func walk[T any](t *btree.BTreeG[T], less btree.LessFunc[T], before T, hasBefore bool, fn func(T) bool) {
	if !hasBefore {
		t.Descend(fn)
		return
	}
	t.DescendLessOrEqual(before, func(v T) bool {
		if !less(v, before) {
			return true // the pivot itself: Before is exclusive
		}
		return fn(v)
	})
}

func checkContext(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	return nil
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// internMetadata returns a copy of m whose strings are the canonical copies
// of their values: metadata repeats across records (a campaign, a batch),
// and each record would otherwise keep the strings of its own request.
func internMetadata(m []storage.Metadata) []storage.Metadata {
	if m == nil {
		return nil
	}
	out := make([]storage.Metadata, len(m))
	for i, p := range m {
		out[i] = storage.Metadata{Key: intern(p.Key), Value: intern(p.Value)}
	}
	return out
}

// intern returns the canonical copy of s. The canonical copies are held
// weakly: one no record refers to any more is collected.
func intern(s string) string { return unique.Make(s).Value() }

func cloneMetadata(m []storage.Metadata) []storage.Metadata {
	if m == nil {
		return nil
	}
	return append(make([]storage.Metadata, 0, len(m)), m...)
}

// hasMetadata reports whether every pair of want is among have.
func hasMetadata(have, want []storage.Metadata) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// pageCap bounds the capacity allocated up front for a page, so a huge
// Limit on a small result does not allocate for the Limit.
func pageCap(limit, available int) int {
	return max(0, min(limit, available))
}
