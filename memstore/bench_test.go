package memstore_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

var (
	benchEpoch = time.Date(2024, 7, 30, 9, 0, 0, 0, time.UTC)
	// benchData stands for a letter's document: parties, content
	// reference, options and a few events come to about 1.5 KB.
	benchData = strings.Repeat(`{"k":"v"},`, 1536/10)
	sizes     = []int{1_000, 1_000_000}
)

const benchAccount = "acct_01j3xk2m5qv8r7w6t4y9z0abcd"

// benchLetter returns the i-th letter of a realistic store: a ULID-length
// id, an external id, and two metadata pairs, one shared by a tenth of the
// letters (a campaign) and one all but unique (a customer reference).
func benchLetter(i int) storage.Letter {
	return storage.Letter{
		ID:         fmt.Sprintf("ltr_%026d", i),
		Account:    benchAccount,
		Status:     "queued",
		ExternalID: fmt.Sprintf("inv-%010d", i),
		Metadata: []storage.Metadata{
			{Key: "campaign", Value: fmt.Sprintf("spring-%d", i%10)},
			{Key: "customer", Value: fmt.Sprintf("cus_%010d", i)},
		},
		CreatedAt:  benchEpoch,
		ModifiedAt: benchEpoch,
		DueAt:      benchEpoch.Add(time.Duration(i%3600) * time.Second),
		Doc:        &benchDoc{strings.Clone(benchData)},
	}
}

// benchDoc is a letter's document as the service hands it to a store that
// keeps documents in memory (its kept form, storage.Keeper): it never
// changes, so a copy of it is itself, and a list copies no document out.
type benchDoc struct{ s string }

func (d *benchDoc) CloneDocument() storage.Document { return d }
func (d *benchDoc) EncodeDocument() ([]byte, error) { return []byte(d.s), nil }

// fill returns a store holding n letters and the heap they take per letter,
// measured live after collection, so it includes the strings the caller
// allocated for each letter as well as the store's copies and indexes.
func fill(b *testing.B, n int) (*memstore.Store, float64) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := memstore.New()
	ctx := context.Background()
	for i := range n {
		if _, err := s.CreateLetter(ctx, benchLetter(i), nil); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return s, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

func forSizes(b *testing.B, run func(b *testing.B, s *memstore.Store, n int)) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			s, _ := fill(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			run(b, s, n)
		})
	}
}

func BenchmarkCreateLetter(b *testing.B) {
	forSizes(b, func(b *testing.B, s *memstore.Store, n int) {
		ctx := context.Background()
		for i := 0; b.Loop(); i++ {
			if _, err := s.CreateLetter(ctx, benchLetter(n+i), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkGetLetter(b *testing.B) {
	forSizes(b, func(b *testing.B, s *memstore.Store, n int) {
		ctx := context.Background()
		// Ids spread over the store, made before timing starts.
		ids := make([]string, 1024)
		for i := range ids {
			ids[i] = benchLetter(i * 7919 % n).ID
		}
		for i := 0; b.Loop(); i++ {
			if _, err := s.GetLetter(ctx, benchAccount, ids[i%len(ids)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkListLetters(b *testing.B) {
	pages := []struct {
		name string
		q    func(n int) storage.LetterQuery
	}{
		{"first", func(int) storage.LetterQuery { return storage.LetterQuery{} }},
		{"middle", func(n int) storage.LetterQuery { return storage.LetterQuery{Before: benchLetter(n / 2).ID} }},
		{"status", func(n int) storage.LetterQuery {
			return storage.LetterQuery{Status: "queued", Before: benchLetter(n / 2).ID}
		}},
		{"campaign", func(int) storage.LetterQuery {
			return storage.LetterQuery{Metadata: []storage.Metadata{{Key: "campaign", Value: "spring-3"}}}
		}},
		{"first-brief", func(int) storage.LetterQuery { return storage.LetterQuery{Brief: true} }},
	}
	forSizes(b, func(b *testing.B, s *memstore.Store, n int) {
		ctx := context.Background()
		for _, p := range pages {
			b.Run(p.name, func(b *testing.B) {
				q := p.q(n)
				q.Account, q.Limit = benchAccount, 100
				b.ReportAllocs()
				for b.Loop() {
					got, err := s.ListLetters(ctx, q)
					if err != nil || len(got) != 100 {
						b.Fatalf("ListLetters = %d letters, %v", len(got), err)
					}
				}
			})
		}
	})
}

// BenchmarkLetterHeap reports the live heap per stored letter, of which
// len(benchData) is the letter's own data.
func BenchmarkLetterHeap(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			var perLetter float64
			for b.Loop() {
				_, perLetter = fill(b, n)
			}
			b.ReportMetric(perLetter, "heapB/letter")
			b.ReportMetric(perLetter-float64(len(benchData)), "overheadB/letter")
		})
	}
}

// BenchmarkNew is what an empty store costs: a test server makes one per
// test.
//
//	go test ./memstore -run '^$' -bench 'New$' -benchmem
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = memstore.New()
	}
}

// BenchmarkEraseAmongAccounts empties an account with an asset and its
// content, as a suite's test does before it runs, in a store that holds
// other accounts, each with content of its own: an erase is to cost what
// the account holds, not what the store does.
//
//	go test ./memstore -run '^$' -bench EraseAmongAccounts -benchmem
func BenchmarkEraseAmongAccounts(b *testing.B) {
	for _, others := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("others=%d", others), func(b *testing.B) {
			ctx := context.Background()
			s := memstore.New()
			write := func(acct string, i int) {
				w := storage.AssetWrite{
					Asset:      storage.Asset{ID: fmt.Sprintf("ast_%s_%d", acct, i), Account: acct, CreatedAt: benchEpoch, ModifiedAt: benchEpoch},
					PutContent: []storage.Content{{Account: acct, Hash: fmt.Sprint("h-", acct), Data: []byte("<p>Hello</p>")}},
				}
				if _, err := s.WriteAsset(ctx, w); err != nil {
					b.Fatal(err)
				}
			}
			for i := range others {
				write(fmt.Sprint("acct_", i), 0)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				write("acct_erased", i)
				if err := s.EraseAccount(ctx, "acct_erased"); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
