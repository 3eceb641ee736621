package storagetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

var letterListTests = []test{
	{"ListLetters returns the newest (highest id) first", testListNewestFirst},
	{"ListLetters Before is exclusive", testListBefore},
	{"ListLetters returns at most Limit letters, none for a Limit below 1", testListLimit},
	{"ListLetters pages walk every letter once", testListPages},
	{"ListLetters walk neither skips nor repeats while letters are inserted", testListConcurrentWalk},
	{"ListLetters filters by Status", testListStatus},
	{"ListLetters filters by ExternalID", testListExternalID},
	{"ListLetters Metadata pairs must all be present with equal values", testListMetadata},
	{"ListLetters filter values are compared whole", testListWholeValues},
	{"ListLetters filters combine, with Before and Limit", testListCombined},
	{"ListLetters filters follow updates", testListFollowsUpdates},
	{"ListLetters returns only the query's account", testListAccount},
	{"ListLetters Brief returns the same letters, with their id, account, status, modification and revision", testListBrief},
}

func testListBrief(t *testing.T, f *fixture) {
	ids := f.createLetters(t, 12, acctA, func(i int, l *storage.Letter) {
		l.Status = []string{"queued", "ready", "mailed"}[i%3]
		if i%4 == 0 {
			l.ExternalID = "ext"
		}
		l.Metadata = md("n", fmt.Sprint(i%2), "all", "")
		l.ModifiedAt = at(time.Duration(i) * time.Minute)
	})
	f.createLetters(t, 3, acctB, nil)
	// Updated letters have revisions past 1 and times of their own.
	for _, id := range ids[:4] {
		u := f.getLetter(t, acctA, id)
		u.Status = "canceled"
		u.ModifiedAt = at(time.Hour + 7*us)
		if _, err := f.s.UpdateLetter(f.ctx, u, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []storage.LetterQuery{
		{Account: acctA, Limit: 100},
		{Account: acctA, Limit: 5, Before: ids[9]},
		{Account: acctA, Limit: 100, Status: "canceled"},
		{Account: acctA, Limit: 100, ExternalID: "ext"},
		{Account: acctA, Limit: 3, Metadata: md("n", "1")},
		{Account: acctA, Limit: 100, Metadata: md("all", "", "n", "0"), Status: "ready"},
		{Account: acctB, Limit: 100},
		{Account: acctA, Limit: 0},
	} {
		full, err := f.s.ListLetters(f.ctx, q)
		must(t, "ListLetters", err)
		q.Brief = true
		brief, err := f.s.ListLetters(f.ctx, q)
		must(t, "ListLetters Brief", err)
		if len(brief) != len(full) {
			t.Errorf("%+v: %d letters, %d in full", q, len(brief), len(full))
			continue
		}
		for i, b := range brief {
			l := full[i]
			if b.ID != l.ID || b.Account != l.Account || b.Status != l.Status || !b.ModifiedAt.Equal(l.ModifiedAt) || b.Revision != l.Revision {
				t.Errorf("%+v: letter %d briefly %+v, in full %+v", q, i, b, l)
			}
			// What Brief leaves out may be there, as it is in full.
			if b.ExternalID != "" && b.ExternalID != l.ExternalID ||
				len(b.Metadata) > 0 && !slices.Equal(b.Metadata, l.Metadata) ||
				!b.CreatedAt.IsZero() && !b.CreatedAt.Equal(l.CreatedAt) ||
				!b.DueAt.IsZero() && !b.DueAt.Equal(l.DueAt) {
				t.Errorf("%+v: letter %d briefly %+v, in full %+v", q, i, b, l)
			}
			if b.Doc != nil {
				diff(t, "brief document", []storage.Document{l.Doc}, []storage.Document{b.Doc})
			}
		}
	}
}

// createLetters stores letters made by f.letter(account), changed by mod,
// and returns their ids in creation order.
func (f *fixture) createLetters(t testing.TB, n int, account string, mod func(i int, l *storage.Letter)) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		l := f.letter(account)
		if mod != nil {
			mod(i, &l)
		}
		f.createLetter(t, l)
		ids[i] = l.ID
	}
	return ids
}

func testListNewestFirst(t *testing.T, f *fixture) {
	ids := make([]string, 5)
	for i := range ids {
		ids[i] = f.id("ltr_")
	}
	// Created out of id order: the order is the ids', not creation's.
	for _, i := range []int{2, 0, 4, 1, 3} {
		l := f.letter(acctA)
		l.ID = ids[i]
		f.createLetter(t, l)
	}
	got := f.listLetters(t, storage.LetterQuery{Account: acctA, Limit: 10})
	diff(t, "ListLetters", newestFirst(ids), got)
}

func testListBefore(t *testing.T, f *fixture) {
	ids := f.createLetters(t, 5, acctA, nil)
	for _, tc := range []struct {
		before string
		want   []string
	}{
		{ids[3], newestFirst(ids[:3])},
		{ids[0], nil},
		{ids[2] + "x", newestFirst(ids[:3])}, // between two ids
		{ids[4] + "x", newestFirst(ids)},     // above all
		{"", newestFirst(ids)},
	} {
		got := f.listLetters(t, storage.LetterQuery{Account: acctA, Before: tc.before, Limit: 10})
		diff(t, "ListLetters before "+tc.before, tc.want, got)
	}
}

func testListLimit(t *testing.T, f *fixture) {
	ids := newestFirst(f.createLetters(t, 5, acctA, nil))
	// A Limit below 1 returns no letters.
	for _, limit := range []int{-1, 0, 1, 4, 5, 6} {
		got := f.listLetters(t, storage.LetterQuery{Account: acctA, Limit: limit})
		diff(t, fmt.Sprintf("ListLetters limit %d", limit), ids[:max(0, min(limit, len(ids)))], got)
	}
}

func testListPages(t *testing.T, f *fixture) {
	ids := newestFirst(f.createLetters(t, 10, acctA, nil))
	var pages [][]string
	before := ""
	for {
		page := f.listLetters(t, storage.LetterQuery{Account: acctA, Before: before, Limit: 3})
		if len(page) == 0 {
			break
		}
		if len(pages) > len(ids) {
			t.Fatalf("walk does not end: pages %v", pages)
		}
		pages = append(pages, page)
		before = page[len(page)-1]
	}
	want := [][]string{ids[0:3], ids[3:6], ids[6:9], ids[9:]}
	diff(t, "pages", want, pages)
}

func testListConcurrentWalk(t *testing.T, f *fixture) {
	const (
		existing = 150
		writers  = 4
	)
	// Not f.letter: the writers run concurrently, and f's sequence is not
	// for concurrent use.
	letter := func(id string) storage.Letter {
		return storage.Letter{ID: id, Account: acctA, Status: "queued", Metadata: md("walk", "yes"), CreatedAt: t0, ModifiedAt: t0}
	}
	// Existing ids leave gaps for writers to fill: a concurrent insert lands
	// both among the letters still ahead of the walk and above it.
	before := make(map[string]bool)
	for i := range existing {
		id := fmt.Sprintf("ltr_%08d", (i+1)*10)
		f.createLetter(t, letter(id))
		before[id] = true
	}
	for _, q := range []storage.LetterQuery{
		{Account: acctA, Limit: 7},
		{Account: acctA, Status: "queued", Metadata: md("walk", "yes"), Limit: 7},
	} {
		stop := make(chan struct{})
		writersDone := make(chan struct{})
		var inserted atomic.Int64
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range existing {
					select {
					case <-stop:
						return
					default:
					}
					below := fmt.Sprintf("ltr_%08d_%s_%d", i*10+w+1, strings.Repeat("w", len(q.Metadata)), w)
					above := fmt.Sprintf("ltr_9%07d_%d_%d", i, len(q.Metadata), w)
					for _, id := range []string{below, above} {
						if _, err := f.s.CreateLetter(f.ctx, letter(id), nil); err != nil {
							t.Errorf("CreateLetter %s: %v", id, err)
							return
						}
						inserted.Add(1)
					}
				}
			})
		}
		go func() {
			wg.Wait()
			close(writersDone)
		}()
		// Between pages the walk waits for the writers to have inserted
		// something, so that inserts land between its pages however the
		// goroutines are scheduled.
		awaitInsert := func(since int64) {
			for inserted.Load() == since {
				select {
				case <-writersDone:
					return
				default:
					runtime.Gosched()
				}
			}
		}
		var seen []string
		q.Before = ""
		for {
			awaitInsert(inserted.Load())
			page, err := f.s.ListLetters(f.ctx, q)
			if err != nil {
				t.Errorf("ListLetters: %v", err)
				break
			}
			if len(page) == 0 {
				break
			}
			if q.Before != "" && page[0].ID >= q.Before {
				t.Errorf("ListLetters before %s returned %s", q.Before, page[0].ID)
				break
			}
			seen = append(seen, letterIDs(page)...)
			q.Before = seen[len(seen)-1]
		}
		close(stop)
		<-writersDone

		for i := 1; i < len(seen); i++ {
			if seen[i] >= seen[i-1] {
				t.Fatalf("walk %+v: %s follows %s", q, seen[i], seen[i-1])
			}
		}
		found := 0
		for _, id := range seen {
			if before[id] {
				found++
			}
		}
		if found != existing {
			t.Errorf("walk %+v saw %d of the %d letters there when it started", q, found, existing)
		}
	}
}

func testListStatus(t *testing.T, f *fixture) {
	statuses := []string{"queued", "ready", "queued", "mailed", "queued"}
	ids := f.createLetters(t, len(statuses), acctA, func(i int, l *storage.Letter) { l.Status = statuses[i] })
	f.createLetters(t, 1, acctB, nil) // queued, in another account
	for _, tc := range []struct {
		status string
		want   []string
	}{
		{"queued", []string{ids[4], ids[2], ids[0]}},
		{"ready", []string{ids[1]}},
		{"canceled", nil},
		{"Queued", nil},
		{"", newestFirst(ids)},
	} {
		got := f.listLetters(t, storage.LetterQuery{Account: acctA, Status: tc.status, Limit: 10})
		diff(t, "ListLetters status "+tc.status, tc.want, got)
	}
}

func testListExternalID(t *testing.T, f *fixture) {
	// An external id may be as long as the real service allows (99,999
	// characters), far past what a database index holds of a value, and
	// as little compressible as hexadecimal digits that follow no pattern:
	// two that differ only in their last byte are two ids, also about 1,000
	// bytes, where a store may keep ids apart (pgstore's indexes).
	var digits strings.Builder
	for sum := sha256.Sum256(nil); digits.Len() < 99998; sum = sha256.Sum256(sum[:]) {
		digits.WriteString(hex.EncodeToString(sum[:]))
	}
	long := digits.String()[:99998]
	exts := []string{"e1", "", "e2", "e1", "e10", long + "a", long + "b", long[:1000], long[:1001]}
	ids := f.createLetters(t, len(exts), acctA, func(i int, l *storage.Letter) { l.ExternalID = exts[i] })
	for _, tc := range []struct {
		ext  string
		want []string
	}{
		{"e1", []string{ids[3], ids[0]}},
		{"e2", []string{ids[2]}},
		{"e", nil},
		{long + "b", []string{ids[6]}},
		{long, nil},
		{long[:1000], []string{ids[7]}},
		{long[:1001], []string{ids[8]}},
		{"", newestFirst(ids)},
	} {
		got := f.listLetters(t, storage.LetterQuery{Account: acctA, ExternalID: tc.ext, Limit: 10})
		diff(t, "ListLetters externalId "+tc.ext, tc.want, got)
	}
}

func testListMetadata(t *testing.T, f *fixture) {
	metas := [][]storage.Metadata{
		md("a", "1", "b", "2"), // 0
		md("a", "1"),           // 1
		md("b", "3", "a", "1"), // 2
		md("b", "2"),           // 3
		md("flag", ""),         // 4
		md("flag", "x"),        // 5
		md("a", "1 "),          // 6
		md("A", "1"),           // 7
		nil,                    // 8
	}
	ids := f.createLetters(t, len(metas), acctA, func(i int, l *storage.Letter) { l.Metadata = metas[i] })
	for _, tc := range []struct {
		filter []storage.Metadata
		want   []string
	}{
		{md("a", "1"), []string{ids[2], ids[1], ids[0]}},
		{md("a", "1", "b", "2"), []string{ids[0]}},
		{md("b", "2", "a", "1"), []string{ids[0]}},
		{md("a", "1", "b", "4"), nil},
		{md("flag", ""), []string{ids[4]}},
		{md("flag", "x"), []string{ids[5]}},
		{md("a", "1 "), []string{ids[6]}},
		{md("A", "1"), []string{ids[7]}},
		{md("c", "1"), nil},
		{md("c", ""), nil},
		{nil, newestFirst(ids)},
	} {
		got := f.listLetters(t, storage.LetterQuery{Account: acctA, Metadata: tc.filter, Limit: 20})
		diff(t, fmt.Sprintf("ListLetters metadata %v", tc.filter), tc.want, got)
	}
}

// testListWholeValues guards against composite index keys built by joining
// values: with a separator or a length prefix inside a value, two different
// filters must not meet in one key.
func testListWholeValues(t *testing.T, f *fixture) {
	type letter struct {
		account, status, ext string
		meta                 []storage.Metadata
	}
	letters := []letter{
		{"acct", "x|y", "e", md("k|v", "w")},
		{"acct|x", "y", "e|e", md("k", "v|w")},
		{"acct", "x\x1fy", "e\x1fe", md("k=v", "w")},
		{"acct\x1fx", "y", "e", md("k", "v=w")},
		{"acct", "1:xy", "2:e", md("1:k", "1:v")},
		{"acct:1", "xy", "e", md("1:k:1", "v")},
		{"acct", "ü", "ü", md("ü", "ü", "", "")},
	}
	ids := make([]string, len(letters))
	for i, lt := range letters {
		l := f.letter(lt.account)
		l.Status, l.ExternalID, l.Metadata = lt.status, lt.ext, lt.meta
		f.createLetter(t, l)
		ids[i] = l.ID
	}
	for i, lt := range letters {
		for _, q := range []storage.LetterQuery{
			{Account: lt.account, Status: lt.status},
			{Account: lt.account, ExternalID: lt.ext},
			{Account: lt.account, Metadata: lt.meta},
			{Account: lt.account, Status: lt.status, ExternalID: lt.ext, Metadata: lt.meta},
		} {
			q.Limit = 10
			// Letters 0, 2, 4 and 6 share the account "acct" and so share
			// some filters; every letter is matched by its own values.
			got := f.listLetters(t, q)
			var want []string
			for j, other := range letters {
				if other.account == q.Account &&
					(q.Status == "" || other.status == q.Status) &&
					(q.ExternalID == "" || other.ext == q.ExternalID) &&
					containsAll(other.meta, q.Metadata) {
					want = append(want, ids[j])
				}
			}
			diff(t, fmt.Sprintf("letter %d: ListLetters(%#v)", i, q), newestFirst(want), got)
		}
	}
}

func containsAll(have, want []storage.Metadata) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// testListCombined checks every combination of filters against a reference
// computed here, over letters whose fields vary independently, so that
// whichever filter a store leads with, the others are still applied.
func testListCombined(t *testing.T, f *fixture) {
	// Frequencies differ so that, query by query, a different filter is the
	// most selective one: "queued" is common and "ready" rare, "e1" rarer
	// than "e2", and the pairs range from most letters to a few.
	pairs := md("a", "1", "b", "", "c", "x", "d", "2")
	var all []storage.Letter
	for i := range 72 {
		account := acctA
		if i%7 == 3 {
			account = acctB
		}
		l := f.letter(account)
		l.Status = "queued"
		if i%6 == 0 {
			l.Status = "ready"
		}
		switch {
		case i%9 == 0:
			l.ExternalID = "e1"
		case i%3 == 1:
			l.ExternalID = "e2"
		}
		l.Metadata = nil
		for j, p := range pairs {
			if i%(j+2) != 1 {
				l.Metadata = append(l.Metadata, p)
			}
		}
		f.createLetter(t, l)
		all = append(all, l)
	}
	mid := all[len(all)/2].ID
	filters := [][]storage.Metadata{nil, pairs[:1], pairs[:2], pairs[1:2], {pairs[3], pairs[2]}, md("a", "2")}
	for _, account := range []string{acctA, acctB} {
		for _, status := range []string{"", "queued", "ready"} {
			for _, ext := range []string{"", "e1", "e2"} {
				for _, meta := range filters {
					for _, before := range []string{"", mid} {
						for _, limit := range []int{3, 100} {
							q := storage.LetterQuery{Account: account, Status: status, ExternalID: ext, Metadata: meta, Before: before, Limit: limit}
							var want []string
							for _, l := range slices.Backward(all) {
								if len(want) < limit && l.Account == account &&
									(status == "" || l.Status == status) &&
									(ext == "" || l.ExternalID == ext) &&
									containsAll(l.Metadata, meta) &&
									(before == "" || l.ID < before) {
									want = append(want, l.ID)
								}
							}
							diff(t, fmt.Sprintf("ListLetters(%+v)", q), want, f.listLetters(t, q))
						}
					}
				}
			}
		}
	}
}

func testListFollowsUpdates(t *testing.T, f *fixture) {
	l := f.letter(acctA)
	l.ExternalID = "e1"
	l.Metadata = md("a", "1")
	l = f.createLetter(t, l)
	u := l
	u.Status = "ready"
	u.ExternalID = "e2"
	u.Metadata = md("a", "2")
	_, err := f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	for _, tc := range []struct {
		q    storage.LetterQuery
		want []string
	}{
		{storage.LetterQuery{Status: "queued"}, nil},
		{storage.LetterQuery{Status: "ready"}, []string{l.ID}},
		{storage.LetterQuery{ExternalID: "e1"}, nil},
		{storage.LetterQuery{ExternalID: "e2"}, []string{l.ID}},
		{storage.LetterQuery{Metadata: md("a", "1")}, nil},
		{storage.LetterQuery{Metadata: md("a", "2")}, []string{l.ID}},
	} {
		tc.q.Account = acctA
		tc.q.Limit = 10
		diff(t, fmt.Sprintf("ListLetters(%+v)", tc.q), tc.want, f.listLetters(t, tc.q))
	}
}

func testListAccount(t *testing.T, f *fixture) {
	a := f.createLetters(t, 3, acctA, nil)
	b := f.createLetters(t, 2, acctB, nil)
	a = append(a, f.createLetters(t, 1, acctA, nil)...)
	diff(t, "ListLetters of A", newestFirst(a), f.listLetters(t, storage.LetterQuery{Account: acctA, Limit: 10}))
	diff(t, "ListLetters of B", newestFirst(b), f.listLetters(t, storage.LetterQuery{Account: acctB, Limit: 10}))
	diff(t, "ListLetters of B filtered", newestFirst(b),
		f.listLetters(t, storage.LetterQuery{Account: acctB, Status: "queued", Metadata: md("batch", "b1"), Limit: 10}))
	diff(t, "ListLetters of another account", []string(nil), f.listLetters(t, storage.LetterQuery{Account: "acct_c", Limit: 10}))
}
