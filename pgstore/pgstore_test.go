package pgstore_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/storage"
)

func storedLetter(id, account string, due time.Time) storage.Letter {
	return storage.Letter{
		ID: id, Account: account, Status: "queued",
		Metadata:  []storage.Metadata{{Key: "batch", Value: "b1"}},
		CreatedAt: epoch, ModifiedAt: epoch, DueAt: due,
		Doc: storage.Encoded(`{"id":"` + id + `"}`),
	}
}

// TestTextColumnLimits: a string PostgreSQL text cannot hold (a NUL byte,
// invalid UTF-8) makes a write fail cleanly, with nothing stored, and a
// lookup find nothing.
func TestTextColumnLimits(t *testing.T) {
	t.Parallel()
	s := openStore(t, newSchema(t))
	ctx := t.Context()
	for _, bad := range []string{"a\x00b", "a\xffb"} {
		t.Run(fmt.Sprintf("%q", bad), func(t *testing.T) {
			l := storedLetter("ltr_1", "a", time.Time{})
			l.Metadata = []storage.Metadata{{Key: "k", Value: bad}}
			if _, err := s.CreateLetter(ctx, l, nil); err == nil || !strings.Contains(err.Error(), "metadata") {
				t.Errorf("CreateLetter with metadata value %q: %v, want an error naming metadata", bad, err)
			}
			if _, err := s.GetLetter(ctx, "a", "ltr_1"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("GetLetter after the failed create: %v, want ErrNotFound", err)
			}
			if _, err := s.GetLetter(ctx, "a", bad); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("GetLetter(%q): %v, want ErrNotFound", bad, err)
			}
			got, err := s.ListLetters(ctx, storage.LetterQuery{Account: "a", Metadata: []storage.Metadata{{Key: "k", Value: bad}}, Limit: 10})
			if err != nil || len(got) != 0 {
				t.Errorf("ListLetters filtering on %q: %v, %v; want nothing", bad, got, err)
			}
			r := storage.IdempotencyRecord{Scope: "s", Key: bad, Token: "t", CreatedAt: epoch, ExpiresAt: epoch.Add(time.Hour), LeaseExpiresAt: epoch.Add(time.Minute)}
			if _, _, err := s.ClaimIdempotency(ctx, r, epoch); err == nil {
				t.Errorf("ClaimIdempotency with key %q succeeded", bad)
			}
			if err := s.CompleteIdempotency(ctx, storage.Completion{Scope: "s", Key: bad, Token: "t"}); !errors.Is(err, storage.ErrClaimLost) {
				t.Errorf("CompleteIdempotency with key %q: %v, want ErrClaimLost", bad, err)
			}
			a, err := s.WriteAsset(ctx, storage.AssetWrite{Asset: storage.Asset{ID: fmt.Sprintf("ast_%x", bad), Account: "a", CreatedAt: epoch, ModifiedAt: epoch}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.WriteAsset(ctx, storage.AssetWrite{Asset: a, DeleteVersions: []string{bad}}); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("WriteAsset deleting version %q: %v, want ErrNotFound", bad, err)
			}
			if got, err := s.GetAsset(ctx, "a", a.ID); err != nil || got.Revision != a.Revision {
				t.Errorf("asset after the failed delete: revision %d, %v; want %d", got.Revision, err, a.Revision)
			}
		})
	}
}

// TestTimesKeepMicroseconds: PostgreSQL keeps microseconds; what is finer
// is dropped, never rounded up past the instant given, and what a write
// returns is what a read finds.
func TestTimesKeepMicroseconds(t *testing.T) {
	t.Parallel()
	s := openStore(t, newSchema(t))
	l := storedLetter("ltr_1", "a", epoch.Add(time.Hour+1500*time.Nanosecond))
	l.CreatedAt = epoch.Add(999 * time.Nanosecond)
	l.ModifiedAt = epoch.Add(-1 * time.Nanosecond)
	created, err := s.CreateLetter(t.Context(), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetLetter(t.Context(), "a", "ltr_1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want time.Time
	}{
		{"CreatedAt", got.CreatedAt, epoch},
		{"ModifiedAt", got.ModifiedAt, epoch.Add(-time.Microsecond)},
		{"DueAt", got.DueAt, epoch.Add(time.Hour + time.Microsecond)},
	} {
		if !c.got.Equal(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if d := cmp.Diff(got, created); d != "" {
		t.Errorf("CreateLetter returned other than it stored (-stored +returned):\n%s", d)
	}
	u := got
	u.ModifiedAt = epoch.Add(time.Minute + 999*time.Nanosecond)
	updated, err := s.UpdateLetter(t.Context(), u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err = s.GetLetter(t.Context(), "a", "ltr_1"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(got, updated); d != "" {
		t.Errorf("UpdateLetter returned other than it stored (-stored +returned):\n%s", d)
	}
}

// TestProcessDueLettersSkipsLettersHeldElsewhere: while one store works on
// a letter, another store sharing the database passes over it and takes
// the next.
func TestProcessDueLettersSkipsLettersHeldElsewhere(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	a, b := openStore(t, schema), openStore(t, schema)
	ctx := t.Context()
	for i := range 3 {
		// ltr_0 falls due first.
		if _, err := a.CreateLetter(ctx, storedLetter(fmt.Sprintf("ltr_%d", i), "a", epoch.Add(time.Duration(i)*time.Second)), nil); err != nil {
			t.Fatal(err)
		}
	}
	holding := make(chan string)
	proceed := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := a.ProcessDueLetters(ctx, storage.DueQuery{Now: epoch.Add(time.Hour), Limit: 1}, func(l *storage.Letter) error {
			holding <- l.ID
			<-proceed
			l.Status, l.DueAt = "ready", time.Time{}
			return nil
		})
		done <- err
	}()
	if id := <-holding; id != "ltr_0" {
		t.Errorf("a took %s, want ltr_0, due first", id)
	}
	var got []string
	n, err := b.ProcessDueLetters(ctx, storage.DueQuery{Now: epoch.Add(time.Hour), Limit: 10}, func(l *storage.Letter) error {
		got = append(got, l.ID)
		l.Status, l.DueAt = "ready", time.Time{}
		return nil
	})
	if err != nil || n != 2 {
		t.Errorf("ProcessDueLetters on b while a holds ltr_0: %d, %v; want 2, nil", n, err)
	}
	if d := cmp.Diff([]string{"ltr_1", "ltr_2"}, got); d != "" {
		t.Errorf("letters b processed (-want +got):\n%s", d)
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		l, err := b.GetLetter(ctx, "a", fmt.Sprintf("ltr_%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if l.Status != "ready" || l.Revision != 2 {
			t.Errorf("%s: status %s, revision %d; want ready, 2", l.ID, l.Status, l.Revision)
		}
	}
}

// TestProcessDueLettersAcrossStores: stores racing over the same due
// letters, each letter due for three steps, write every step exactly once.
func TestProcessDueLettersAcrossStores(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	stores := []storage.Storage{openStore(t, schema), openStore(t, schema), openStore(t, schema)}
	ctx := t.Context()
	const letters, steps = 40, 3
	for i := range letters {
		if _, err := stores[0].CreateLetter(ctx, storedLetter(fmt.Sprintf("ltr_%03d", i), "a", epoch), nil); err != nil {
			t.Fatal(err)
		}
	}
	type visit struct {
		id  string
		rev int64
	}
	var (
		mu   sync.Mutex
		seen []visit
	)
	var wg sync.WaitGroup
	for _, s := range stores {
		for range 2 {
			wg.Go(func() {
				for {
					n, err := s.ProcessDueLetters(ctx, storage.DueQuery{Now: epoch, Limit: 7}, func(l *storage.Letter) error {
						mu.Lock()
						seen = append(seen, visit{l.ID, l.Revision})
						mu.Unlock()
						if l.Revision == steps {
							l.DueAt = time.Time{}
						}
						l.Doc = append(l.Doc.(storage.Encoded), '.')
						return nil
					})
					if err != nil {
						t.Error(err)
						return
					}
					if n == 0 {
						return
					}
				}
			})
		}
	}
	wg.Wait()
	var want []visit
	for i := range letters {
		for rev := int64(1); rev <= steps; rev++ {
			want = append(want, visit{fmt.Sprintf("ltr_%03d", i), rev})
		}
	}
	slices.SortFunc(seen, func(a, b visit) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return int(a.rev - b.rev)
	})
	if d := cmp.Diff(want, seen, cmp.AllowUnexported(visit{})); d != "" {
		t.Errorf("letters handed out (-want +got):\n%s", d)
	}
	l, err := stores[1].GetLetter(ctx, "a", "ltr_000")
	if err != nil {
		t.Fatal(err)
	}
	if l.Revision != steps+1 || !strings.HasSuffix(string(l.Doc.(storage.Encoded)), "...") {
		t.Errorf("ltr_000 after the steps: revision %d, data %s", l.Revision, l.Doc)
	}
}

// TestClaimAcrossStores: claimants on different stores, at once, have one
// winner, and every loser is shown the winner's record.
func TestClaimAcrossStores(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	stores := []storage.Storage{openStore(t, schema), openStore(t, schema)}
	const n = 32
	type result struct {
		rec storage.IdempotencyRecord
		won bool
		err error
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := storage.IdempotencyRecord{
				Scope: "s", Key: "k", Fingerprint: "f", Token: fmt.Sprintf("tok-%d", i),
				CreatedAt: epoch, ExpiresAt: epoch.Add(24 * time.Hour), LeaseExpiresAt: epoch.Add(time.Minute),
			}
			<-start
			rec, won, err := stores[i%2].ClaimIdempotency(t.Context(), r, epoch)
			results[i] = result{rec, won, err}
		})
	}
	close(start)
	wg.Wait()
	winner := ""
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("claim %d: %v", i, r.err)
		}
		if r.won {
			if winner != "" {
				t.Errorf("claims %s and tok-%d both won", winner, i)
			}
			winner = r.rec.Token
		}
	}
	if winner == "" {
		t.Fatal("no claim won")
	}
	for i, r := range results {
		if !r.won && (r.rec.Token != winner || r.rec.Done) {
			t.Errorf("claim %d lost to token %q (done %v), want in flight under %q", i, r.rec.Token, r.rec.Done, winner)
		}
	}
}

// wantPairIndexInStep checks that the pair tables hold exactly the pairs of
// the rows' metadata.
func wantPairIndexInStep(t *testing.T, schema string) {
	t.Helper()
	for _, tc := range []struct{ pairs, rows, id string }{
		{"letter_metadata", "letters", "letter_id"},
		{"asset_metadata", "assets", "asset_id"},
	} {
		var extra, missing int
		err := adminConn(t, schema).QueryRow(t.Context(), fmt.Sprintf(`WITH want AS (
				SELECT DISTINCT account, metadata_pair(e->>'key', e->>'value') AS pair, id
				FROM %[2]s, jsonb_array_elements(metadata) AS e),
			have AS (SELECT account, pair, %[3]s AS id FROM %[1]s)
			SELECT (SELECT count(*) FROM (SELECT * FROM have EXCEPT SELECT * FROM want) x),
				(SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM have) y)`, tc.pairs, tc.rows, tc.id),
		).Scan(&extra, &missing)
		if err != nil {
			t.Fatal(err)
		}
		if extra != 0 || missing != 0 {
			t.Errorf("%s: %d pairs too many, %d missing", tc.pairs, extra, missing)
		}
	}
}

// TestPairIndexFollowsWrites: the pair tables behind metadata filters
// follow every kind of write, duplicate pairs included.
func TestPairIndexFollowsWrites(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	s := openStore(t, schema)
	ctx := t.Context()
	l := storedLetter("ltr_1", "a", epoch)
	l.Metadata = md("k", "v", "k", "v", "x", "")
	l, err := s.CreateLetter(ctx, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateLetter(ctx, storedLetter("ltr_2", "b", time.Time{}), nil); err != nil {
		t.Fatal(err)
	}
	wantPairIndexInStep(t, schema)

	l.Metadata = md("k", "v", "y", "1")
	if l, err = s.UpdateLetter(ctx, l, nil); err != nil {
		t.Fatal(err)
	}
	wantPairIndexInStep(t, schema)
	if _, err := s.ProcessDueLetters(ctx, storage.DueQuery{Now: epoch, Limit: 10}, func(l *storage.Letter) error {
		l.Metadata, l.DueAt = nil, time.Time{}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantPairIndexInStep(t, schema)
	got, err := s.ListLetters(ctx, storage.LetterQuery{Account: "a", Metadata: md("k", "v"), Limit: 10})
	if err != nil || len(got) != 0 {
		t.Errorf("ListLetters by a pair removed: %d letters, %v; want none", len(got), err)
	}

	a := storage.Asset{ID: "ast_1", Account: "a", Metadata: md("kind", "t"), CreatedAt: epoch, ModifiedAt: epoch}
	if a, err = s.WriteAsset(ctx, storage.AssetWrite{Asset: a}); err != nil {
		t.Fatal(err)
	}
	wantPairIndexInStep(t, schema)
	a.Metadata = md("kind", "u")
	if a, err = s.WriteAsset(ctx, storage.AssetWrite{Asset: a}); err != nil {
		t.Fatal(err)
	}
	wantPairIndexInStep(t, schema)
	if err := s.DeleteAsset(ctx, "a", a.ID, a.Revision, nil); err != nil {
		t.Fatal(err)
	}
	wantPairIndexInStep(t, schema)
	var n int
	if err := adminConn(t, schema).QueryRow(ctx, `SELECT count(*) FROM asset_metadata`).Scan(&n); err != nil || n != 0 {
		t.Errorf("asset_metadata holds %d pairs after the asset's deletion, %v", n, err)
	}
}
