package storagetest_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/storage/storagetest"
)

// CountingStore is a store of one's own, from outside this module: it
// keeps its records in another store and counts the writes it passes on,
// to see what each operation of the Service costs the store.
type CountingStore struct {
	storage.Storage
	mu     sync.Mutex
	writes map[string]int
}

// NewCountingStore returns a CountingStore in front of st.
func NewCountingStore(st storage.Storage) *CountingStore {
	return &CountingStore{Storage: st, writes: map[string]int{}}
}

func (s *CountingStore) count(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes[op]++
}

// CreateLetter implements storage.Storage.
func (s *CountingStore) CreateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	s.count("CreateLetter")
	return s.Storage.CreateLetter(ctx, l, c)
}

// UpdateLetter implements storage.Storage.
func (s *CountingStore) UpdateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	s.count("UpdateLetter")
	return s.Storage.UpdateLetter(ctx, l, c)
}

// WriteAsset implements storage.Storage.
func (s *CountingStore) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	s.count("WriteAsset")
	return s.Storage.WriteAsset(ctx, w)
}

// Writes returns the writes counted, by method.
func (s *CountingStore) Writes() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, op := range slices.Sorted(maps.Keys(s.writes)) {
		out = append(out, fmt.Sprintf("%s:%d", op, s.writes[op]))
	}
	return strings.Join(out, " ")
}

// TestCountingStore is what a third-party store's own package runs: the
// conformance suite, with a new store for each subtest. A store passes
// when every clause of the storage contract holds for it.
func TestCountingStore(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		return NewCountingStore(memstore.New())
	})
}

// A third-party store proves itself against the storage contract in a
// test of its own package, as TestCountingStore beside this example does:
//
//	func TestCountingStore(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Storage {
//			return NewCountingStore(memstore.New())
//		})
//	}
//
// and, once it passes, a Service runs on it.
func ExampleRun() {
	ctx := context.Background()
	st := NewCountingStore(memstore.New())
	svc := lettershop.New(st)
	defer svc.Close()

	asset, err := svc.CreateAsset(ctx, "acct_1", lettershop.CreateAssetInput{Name: "Welcome letter"})
	if err != nil {
		panic(err)
	}
	if _, err := svc.CreateVersion(ctx, "acct_1", asset.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Welcome aboard.</p>"},
		Publish: true,
	}); err != nil {
		panic(err)
	}
	fmt.Println(st.Writes())
	// Output: WriteAsset:2
}
