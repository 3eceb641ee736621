package pgstore_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// TestListByMetadataPairsAsMemstore writes the same letters, and assets of
// the same pairs, to a Store and a memstore, then lists them by every combination of one, two and three
// pairs (absent pairs, the rarer pair second, a pair twice, two values of
// one key), with and without a status, page by page with each page's last
// id as the next cursor: each page holds the same letters (assets) in the
// same order in both.
func TestListByMetadataPairsAsMemstore(t *testing.T) {
	t.Parallel()
	pg := openStore(t, newSchema(t))
	mem := memstore.New()
	ctx := t.Context()
	rng := rand.New(rand.NewSource(7))
	statuses := []string{"queued", "ready", "mailed"}
	// 400 letters of acct_a, made in an order other than their ids', and
	// 100 of acct_b holding every pair: a=1 on nearly all, b=x on one in
	// 5, b=y on one in 7, c=z on one in 50, e="" on one in 3; some hold a=2
	// instead of a=1, some nothing, and some change their pairs later.
	var letters []storage.Letter
	for i, n := range rng.Perm(500) {
		account := "acct_a"
		if i%5 == 4 {
			account = "acct_b"
		}
		var m []storage.Metadata
		switch {
		case n%13 == 0:
		case n%11 == 0:
			m = md("a", "2")
		default:
			m = md("a", "1")
		}
		if n%5 == 0 {
			m = append(m, md("b", "x")...)
		}
		if n%7 == 0 {
			m = append(m, md("b", "y")...)
		}
		if n%50 == 0 {
			m = append(m, md("c", "z")...)
		}
		if n%3 == 0 {
			m = append(m, md("e", "")...)
		}
		rng.Shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] })
		at := epoch.Add(time.Duration(i) * time.Second)
		letters = append(letters, storage.Letter{ID: fmt.Sprintf("ltr_%04d", n), Account: account, Status: statuses[n%3],
			Metadata: m, CreatedAt: at, ModifiedAt: at, Revision: 1})
	}
	for _, s := range []storage.Storage{pg, mem} {
		for _, l := range letters {
			if _, err := s.CreateLetter(ctx, l, nil); err != nil {
				t.Fatal(err)
			}
		}
		// An asset of each letter's account, id and pairs.
		for _, l := range letters {
			a := storage.Asset{ID: "ast" + l.ID[3:], Account: l.Account, Metadata: l.Metadata, CreatedAt: l.CreatedAt, ModifiedAt: l.CreatedAt}
			if _, err := s.WriteAsset(ctx, storage.AssetWrite{Asset: a}); err != nil {
				t.Fatal(err)
			}
		}
		// Every 17th letter swaps b=x for b=y, or takes b=x.
		for _, l := range letters {
			n := 0
			fmt.Sscanf(l.ID, "ltr_%d", &n)
			if n%17 != 0 {
				continue
			}
			got, err := s.GetLetter(ctx, l.Account, l.ID)
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.Index(got.Metadata, storage.Metadata{Key: "b", Value: "x"}); i >= 0 {
				got.Metadata[i].Value = "y"
			} else {
				got.Metadata = append(got.Metadata, storage.Metadata{Key: "b", Value: "x"})
			}
			if _, err := s.UpdateLetter(ctx, got, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	pairs := md("a", "1", "a", "2", "b", "x", "b", "y", "c", "z", "e", "", "d", "absent")
	var filters [][]storage.Metadata
	for _, p := range pairs {
		filters = append(filters, []storage.Metadata{p})
		for _, q := range pairs {
			filters = append(filters, []storage.Metadata{p, q})
		}
	}
	filters = append(filters, md("a", "1", "b", "x", "e", ""), md("e", "", "b", "y", "a", "1"), md("a", "1", "e", "", "c", "z"),
		md("b", "x", "a", "1", "d", "absent"))
	ids := func(ls []storage.Letter) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.ID + " " + l.Status + fmt.Sprint(l.Metadata)
		}
		return out
	}
	lists, nonEmpty := 0, 0
	for _, f := range filters {
		for _, status := range []string{"", "ready"} {
			for _, limit := range []int{1, 3, 40} {
				q := storage.LetterQuery{Account: "acct_a", Status: status, Metadata: f, Limit: limit}
				for page := 0; ; page++ {
					want, err := mem.ListLetters(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					got, err := pg.ListLetters(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					lists++
					// A brief list walks the same letters.
					bq := q
					bq.Brief = true
					brief, err := pg.ListLetters(ctx, bq)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.EqualFunc(brief, want, func(a, b storage.Letter) bool { return a.ID == b.ID }) {
						t.Fatalf("%+v, page %d, brief:\n got %v\nwant %v", bq, page, ids(brief), ids(want))
					}
					if !slices.Equal(ids(got), ids(want)) {
						t.Fatalf("%+v, page %d:\n got %v\nwant %v", q, page, ids(got), ids(want))
					}
					if len(want) < limit {
						break
					}
					nonEmpty++
					q.Before = want[len(want)-1].ID
				}
			}
		}
	}
	// The assets, without a status.
	for _, f := range filters {
		for _, limit := range []int{1, 3, 40} {
			q := storage.AssetQuery{Account: "acct_a", Metadata: f, Limit: limit}
			for page := 0; ; page++ {
				want, err := mem.ListAssets(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pg.ListAssets(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got, want, func(a, b storage.Asset) bool { return a.ID == b.ID && slices.Equal(a.Metadata, b.Metadata) }) {
					t.Fatalf("%+v, page %d:\n got %v\nwant %v", q, page, got, want)
				}
				if len(want) < limit {
					break
				}
				q.Before = want[len(want)-1].ID
			}
		}
	}
	if nonEmpty < 100 {
		t.Errorf("only %d of %d pages were full: the letters do not exercise the filters", nonEmpty, lists)
	}
}

// A list by as many pairs as a filter may hold (lettershop's
// MaxMetadataPairs, 20) walks them all: the letter holding every pair is
// listed, one holding all but the last is not, and so for assets.
func TestListByTheMostPairs(t *testing.T) {
	t.Parallel()
	s := openStore(t, newSchema(t))
	ctx := t.Context()
	const most = 20
	var all []storage.Metadata
	for i := range most {
		all = append(all, storage.Metadata{Key: fmt.Sprintf("k%02d", i), Value: "v"})
	}
	for i, m := range [][]storage.Metadata{all, all[:most-1]} {
		at := epoch.Add(time.Duration(i) * time.Second)
		id := fmt.Sprintf("ltr_%04d", i)
		if _, err := s.CreateLetter(ctx, storage.Letter{ID: id, Account: "acct_a", Status: "queued", Metadata: m, CreatedAt: at, ModifiedAt: at, Revision: 1}, nil); err != nil {
			t.Fatal(err)
		}
		a := storage.Asset{ID: "ast" + id[3:], Account: "acct_a", Metadata: m, CreatedAt: at, ModifiedAt: at}
		if _, err := s.WriteAsset(ctx, storage.AssetWrite{Asset: a}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range [][]storage.Metadata{all, slices.Concat(all[most-1:], all[:most-1])} {
		ls, err := s.ListLetters(ctx, storage.LetterQuery{Account: "acct_a", Metadata: f, Limit: 10})
		if err != nil || len(ls) != 1 || ls[0].ID != "ltr_0000" {
			t.Errorf("letters by %d pairs: %v, %v; want ltr_0000 alone", len(f), ls, err)
		}
		as, err := s.ListAssets(ctx, storage.AssetQuery{Account: "acct_a", Metadata: f, Limit: 10})
		if err != nil || len(as) != 1 || as[0].ID != "ast_0000" {
			t.Errorf("assets by %d pairs: %v, %v; want ast_0000 alone", len(f), as, err)
		}
	}
}
