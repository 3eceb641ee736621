package memstore

// White-box tests of what the storage contract cannot observe: that the
// indexes hold exactly the live records (so memory follows the records, and
// no stale entry can surface), and the parts of ProcessDueLetters and
// ClaimIdempotency that only matter under interleavings a black-box test
// cannot arrange.

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/btree"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop/storage"
)

var t0 = time.Date(2024, 7, 30, 9, 0, 0, 0, time.UTC)

// checkIndex compares x with want, the records each key should hold.
func checkIndex[K, T comparable](t *testing.T, name string, x index[K, T], want map[K][]T) {
	t.Helper()
	got := make(map[K][]T)
	for k, p := range x.postings {
		switch {
		case p.tree == nil:
			got[k] = []T{p.one}
		case p.tree.Len() < 2:
			t.Errorf("%s: tree of %d kept for %v", name, p.tree.Len(), k)
		default:
			got[k] = items(p.tree)
		}
	}
	// Records are compared by identity; trees and want are in id order.
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b T) bool { return a == b })); d != "" {
		t.Errorf("%s differs from the records (-want +got):\n%s", name, d)
	}
}

func items[T any](tr *btree.BTreeG[T]) []T {
	var out []T
	tr.Ascend(func(v T) bool {
		out = append(out, v)
		return true
	})
	return out
}

// checkInvariants checks every index of s against its records.
func checkInvariants(t *testing.T, s *Store) {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()

	checkContentIndex(t, s)
	letters := slices.SortedFunc(maps.Values(s.letters), func(a, b *letterRec) int { return strings.Compare(a.id, b.id) })
	byAccount := map[name][]*letterRec{}
	byStatus := map[statusKey][]*letterRec{}
	byExternal := map[externalKey][]*letterRec{}
	byMeta := map[letterMetaKey][]*letterRec{}
	var due []*letterRec
	for _, r := range letters {
		l := s.letter(r)
		if s.letters[l.ID] != r {
			t.Errorf("letter %s filed under another id", l.ID)
		}
		if r.busy {
			t.Errorf("letter %s still marked busy", l.ID)
		}
		account, status := s.names.ids[l.Account], s.names.ids[l.Status]
		if s.names.str(account) != l.Account || s.names.str(status) != l.Status {
			t.Errorf("letter %s: names %d and %d are not its account and status", l.ID, account, status)
		}
		byAccount[account] = append(byAccount[account], r)
		if l.Status != "" {
			byStatus[statusKey{account, status}] = append(byStatus[statusKey{account, status}], r)
		}
		if l.ExternalID != "" {
			byExternal[externalKey{account, l.ExternalID}] = append(byExternal[externalKey{account, l.ExternalID}], r)
		}
		for _, m := range l.Metadata {
			k := letterMetaKey{account, m.Key, m.Value}
			if n := len(byMeta[k]); n == 0 || byMeta[k][n-1] != r { // a pair given twice has one entry
				byMeta[k] = append(byMeta[k], r)
			}
		}
		if !l.DueAt.IsZero() {
			due = append(due, r)
		}
	}
	checkIndex(t, "letters by account", s.lettersByAccount, byAccount)
	checkIndex(t, "letters by status", s.lettersByStatus, byStatus)
	checkIndex(t, "letters by external id", s.lettersByExternal, byExternal)
	checkIndex(t, "letters by metadata", s.lettersByMeta, byMeta)
	slices.SortFunc(due, func(a, b *letterRec) int {
		if c := s.letter(a).DueAt.Compare(s.letter(b).DueAt); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	if got := items(s.lettersDue.byTime); !slices.Equal(got, due) {
		t.Errorf("due index holds %d letters, want the %d due", len(got), len(due))
	}
	slices.SortStableFunc(due, func(a, b *letterRec) int { return int(a.account) - int(b.account) })
	if got := items(s.lettersDue.byAccount); !slices.Equal(got, due) {
		t.Errorf("due index by account holds %d letters, want the %d due", len(got), len(due))
	}

	assets := slices.SortedFunc(maps.Values(s.assets), func(a, b *assetRec) int { return strings.Compare(a.a.ID, b.a.ID) })
	assetsByAccount := map[string][]*assetRec{}
	assetsByMeta := map[metaKey][]*assetRec{}
	versions := 0
	for _, r := range assets {
		a := r.a
		assetsByAccount[a.Account] = append(assetsByAccount[a.Account], r)
		for _, m := range a.Metadata {
			k := metaKey{a.Account, m.Key, m.Value}
			if n := len(assetsByMeta[k]); n == 0 || assetsByMeta[k][n-1] != r {
				assetsByMeta[k] = append(assetsByMeta[k], r)
			}
		}
		for status, tr := range r.versions {
			if tr.Len() == 0 {
				t.Errorf("asset %s: empty version tree kept for %q", a.ID, status)
			}
			for _, v := range items(tr) {
				versions++
				if s.versions[v.v.ID] != v || v.v.Status != status || v.v.AssetID != a.ID || v.v.Account != a.Account {
					t.Errorf("asset %s: version %+v misfiled under status %q", a.ID, v.v, status)
				}
			}
		}
	}
	if versions != len(s.versions) {
		t.Errorf("assets' trees hold %d versions, the store %d", versions, len(s.versions))
	}
	checkIndex(t, "assets by account", s.assetsByAccount, assetsByAccount)
	checkIndex(t, "assets by metadata", s.assetsByMeta, assetsByMeta)

	idem := slices.SortedFunc(slices.Values(items(s.idem)), func(a, b *idemRec) int {
		if idemExpiryLess(a, b) {
			return -1
		}
		if idemExpiryLess(b, a) {
			return 1
		}
		return 0
	})
	if got := items(s.idemExpiry); !slices.Equal(got, idem) {
		t.Errorf("expiry index holds %d records, the store %d", len(got), len(idem))
	}
	slices.SortStableFunc(idem, func(a, b *idemRec) int { return strings.Compare(a.account.Value(), b.account.Value()) })
	if got := items(s.idemAccountExpiry); !slices.Equal(got, idem) {
		t.Errorf("expiry index by account holds %d records, the store %d", len(got), len(idem))
	}
}

// TestIndexesFollowRecords runs random writes and checks after each batch
// that the indexes hold the live records and nothing else.
func TestIndexesFollowRecords(t *testing.T) {
	s := New()
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	meta := func() []storage.Metadata {
		var m []storage.Metadata
		for range rng.IntN(4) {
			m = append(m, storage.Metadata{Key: pick("a", "b", "c"), Value: pick("", "1", "2")})
		}
		return m
	}
	accounts := []string{"acct_a", "acct_b"}
	seq := 0
	id := func(prefix string) string {
		seq++
		return fmt.Sprintf("%s%06d", prefix, seq)
	}
	var letterIDs, assetIDs []string
	for round := range 20 {
		for range 50 {
			switch op := rng.IntN(10); {
			case op < 3 || len(letterIDs) == 0:
				l := storage.Letter{ID: id("ltr_"), Account: pick(accounts...), Status: pick("", "queued", "ready"),
					ExternalID: pick("", "e1", "e2"), Metadata: meta()}
				if rng.IntN(2) == 0 {
					l.DueAt = t0.Add(time.Duration(rng.IntN(60)) * time.Minute)
				}
				if _, err := s.CreateLetter(ctx, l, nil); err != nil {
					t.Fatal(err)
				}
				letterIDs = append(letterIDs, l.ID)
			case op < 5:
				lid := letterIDs[rng.IntN(len(letterIDs))]
				l := s.letter(s.letters[lid])
				l.Status, l.ExternalID, l.Metadata = pick("", "queued", "mailed"), pick("", "e1", "e3"), meta()
				l.DueAt = time.Time{}
				if rng.IntN(2) == 0 {
					l.DueAt = t0.Add(time.Duration(rng.IntN(60)) * time.Minute)
				}
				if _, err := s.UpdateLetter(ctx, l, nil); err != nil {
					t.Fatal(err)
				}
			case op < 6:
				_, err := s.ProcessDueLetters(ctx, storage.DueQuery{Now: t0.Add(30 * time.Minute), Limit: 3}, func(l *storage.Letter) error {
					l.Metadata = meta()
					l.DueAt = time.Time{}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			case op < 8 || len(assetIDs) == 0:
				a := storage.Asset{ID: id("ast_"), Account: pick(accounts...), Metadata: meta()}
				var vs []storage.AssetVersion
				for range rng.IntN(3) {
					vs = append(vs, storage.AssetVersion{ID: id("astv_"), Account: a.Account, AssetID: a.ID, Status: pick("draft", "published")})
				}
				if _, err := s.WriteAsset(ctx, storage.AssetWrite{Asset: a, PutVersions: vs}); err != nil {
					t.Fatal(err)
				}
				assetIDs = append(assetIDs, a.ID)
			case op < 9:
				i := rng.IntN(len(assetIDs))
				r := s.assets[assetIDs[i]]
				a := r.a
				a.Metadata = meta()
				w := storage.AssetWrite{Asset: a}
				for _, tr := range r.versions {
					for _, v := range items(tr) {
						switch rng.IntN(3) {
						case 0:
							w.DeleteVersions = append(w.DeleteVersions, v.v.ID)
						case 1:
							nv := v.v
							nv.Status = pick("draft", "archived")
							w.PutVersions = append(w.PutVersions, nv)
						}
					}
				}
				if _, err := s.WriteAsset(ctx, w); err != nil {
					t.Fatal(err)
				}
			default:
				i := rng.IntN(len(assetIDs))
				r := s.assets[assetIDs[i]]
				if err := s.DeleteAsset(ctx, r.a.Account, r.a.ID, r.a.Revision, nil); err != nil {
					t.Fatal(err)
				}
				assetIDs = slices.Delete(assetIDs, i, i+1)
			}
		}
		checkInvariants(t, s)
		if t.Failed() {
			t.Fatalf("after round %d", round)
		}
	}

	// Emptied of everything indexed, the indexes are empty too.
	for _, lid := range letterIDs {
		l := s.letter(s.letters[lid])
		l.Status, l.ExternalID, l.Metadata, l.DueAt = "", "", nil, time.Time{}
		if _, err := s.UpdateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, aid := range assetIDs {
		r := s.assets[aid]
		if err := s.DeleteAsset(ctx, r.a.Account, aid, r.a.Revision, nil); err != nil {
			t.Fatal(err)
		}
	}
	checkInvariants(t, s)
	if n := len(s.lettersByStatus.postings) + len(s.lettersByExternal.postings) + len(s.lettersByMeta.postings) +
		s.lettersDue.Len() + len(s.assets) + len(s.versions) + len(s.assetsByAccount.postings) + len(s.assetsByMeta.postings); n != 0 {
		t.Errorf("%d index entries left with nothing to index", n)
	}
}

// TestProcessDueRechecks covers a letter updated between being picked and
// being processed: it is processed only if it is still due.
func TestProcessDueRechecks(t *testing.T) {
	s := New()
	ctx := t.Context()
	now := t0.Add(time.Hour)
	q := storage.DueQuery{Now: now, Limit: 10}
	for i, due := range []time.Time{t0, t0.Add(time.Minute)} {
		l := storage.Letter{ID: fmt.Sprintf("ltr_%d", i), Account: "acct", DueAt: due}
		if _, err := s.CreateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	picked, err := s.pickDue(ctx, q)
	if err != nil || len(picked) != 2 {
		t.Fatalf("pickDue = %d letters, %v; want 2", len(picked), err)
	}
	for _, r := range picked[1:] {
		if again, _ := s.pickDue(ctx, q); len(again) != 0 {
			t.Errorf("letters picked twice: %v", again)
		}
		l := s.letter(r)
		l.DueAt = now.Add(time.Hour)
		if _, err := s.UpdateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	fn := func(l *storage.Letter) error {
		got = append(got, l.ID)
		l.DueAt = time.Time{}
		return nil
	}
	for _, r := range picked {
		if _, err := s.processDue(ctx, r, q, fn); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, []string{"ltr_0"}) {
		t.Errorf("processed %v, want only ltr_0, the letter still due", got)
	}
	checkInvariants(t, s)
}

// TestProcessDueReleasesMarks: letters picked but not reached, because fn
// failed, go back to other callers.
func TestProcessDueReleasesMarks(t *testing.T) {
	s := New()
	ctx := t.Context()
	for i := range 3 {
		l := storage.Letter{ID: fmt.Sprintf("ltr_%d", i), Account: "acct", DueAt: t0}
		if _, err := s.CreateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	errStop := errors.New("stop")
	_, err := s.ProcessDueLetters(ctx, storage.DueQuery{Now: t0, Limit: 3}, func(*storage.Letter) error { return errStop })
	if !errors.Is(err, errStop) {
		t.Fatalf("ProcessDueLetters: %v, want %v", err, errStop)
	}
	checkInvariants(t, s) // no letter left marked
	n, err := s.ProcessDueLetters(ctx, storage.DueQuery{Now: t0, Limit: 3}, func(*storage.Letter) error { return nil })
	if err != nil || n != 3 {
		t.Errorf("ProcessDueLetters after a failure = %d, %v; want all 3", n, err)
	}
}

// TestClaimPurges: claims remove expired records as they go, a bounded
// number each, so records do not pile up without PurgeIdempotency; and a
// claim on an expired record still wins when the purge has not reached it.
func TestClaimPurges(t *testing.T) {
	s := New()
	ctx := t.Context()
	const n = 10 * claimPurgeBatch
	for i := range n {
		r := storage.IdempotencyRecord{Scope: "s", Key: fmt.Sprintf("k%04d", i), Token: "t",
			ExpiresAt: t0.Add(time.Duration(i+1) * time.Second), LeaseExpiresAt: t0.Add(time.Hour)}
		if _, won, err := s.ClaimIdempotency(ctx, r, t0); err != nil || !won {
			t.Fatalf("claim %s: won %v, %v", r.Key, won, err)
		}
	}
	// Every record has expired by later; the last one expired last and is
	// the one the purge reaches last.
	later := t0.Add(time.Duration(n) * time.Second)
	last := storage.IdempotencyRecord{Scope: "s", Key: fmt.Sprintf("k%04d", n-1), Token: "new", ExpiresAt: later.Add(time.Hour)}
	if _, won, err := s.ClaimIdempotency(ctx, last, later); err != nil || !won {
		t.Fatalf("claim of an expired record: won %v, %v", won, err)
	}
	// The claim above made one record and purged claimPurgeBatch.
	if got, want := s.idem.Len(), n-claimPurgeBatch; got != want {
		t.Errorf("%d records after one claim, want %d", got, want)
	}
	for i := range n {
		r := storage.IdempotencyRecord{Scope: "other", Key: fmt.Sprint(i), Token: "t", ExpiresAt: later}
		if _, _, err := s.ClaimIdempotency(ctx, r, later.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	// The records those claims made are themselves expired at once, so
	// at most a batch of them can be left, plus the one live record.
	if got := s.idem.Len(); got > claimPurgeBatch+1 {
		t.Errorf("%d records left after %d claims, want at most %d", got, n, claimPurgeBatch+1)
	}
	checkInvariants(t, s)
}

// TestListWalksSmallestIndex: of the indexes a query's filters select, a
// list walks the one with the fewest letters, whichever filter that is.
func TestListWalksSmallestIndex(t *testing.T) {
	s := New()
	ctx := t.Context()
	// 40 letters: status "queued" on 30, external id "e1" on 20, the pair
	// rare=1 on 4.
	for i := range 40 {
		l := storage.Letter{ID: fmt.Sprintf("ltr_%02d", i), Account: "acct", Status: "ready"}
		if i < 30 {
			l.Status = "queued"
		}
		if i%2 == 0 {
			l.ExternalID = "e1"
		}
		if i%10 == 0 {
			l.Metadata = []storage.Metadata{{Key: "rare", Value: "1"}}
		}
		if _, err := s.CreateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	rare := []storage.Metadata{{Key: "rare", Value: "1"}}
	for _, tc := range []struct {
		q    storage.LetterQuery
		want int
	}{
		{storage.LetterQuery{}, 40},
		{storage.LetterQuery{Status: "queued"}, 30},
		{storage.LetterQuery{Status: "ready"}, 10},
		{storage.LetterQuery{Status: "queued", ExternalID: "e1"}, 20},
		{storage.LetterQuery{ExternalID: "e1", Status: "ready"}, 10},
		{storage.LetterQuery{Status: "queued", ExternalID: "e1", Metadata: rare}, 4},
		{storage.LetterQuery{Metadata: append(rare, storage.Metadata{Key: "absent"})}, 0},
		{storage.LetterQuery{Status: "mailed", Metadata: rare}, 0},
	} {
		tc.q.Account = "acct"
		if p, _ := s.letterCandidates(tc.q); p.len() != tc.want {
			t.Errorf("letterCandidates(%+v) holds %d letters, want %d", tc.q, p.len(), tc.want)
		}
	}
}

// TestKeysHoldAnyByte: filters compare whole values even where a value
// holds bytes a text column could not (NUL, invalid UTF-8).
func TestKeysHoldAnyByte(t *testing.T) {
	s := New()
	ctx := t.Context()
	letters := []storage.Letter{
		{ID: "ltr_1", Account: "a\x00b", Status: "c", ExternalID: "d", Metadata: []storage.Metadata{{Key: "k\x00v", Value: "w"}}},
		{ID: "ltr_2", Account: "a", Status: "b\x00c", ExternalID: "\x00d", Metadata: []storage.Metadata{{Key: "k", Value: "v\x00w"}}},
		{ID: "ltr_3", Account: "a", Status: "\xff", ExternalID: "\xfe", Metadata: []storage.Metadata{{Key: "\xff", Value: "\x00"}}},
	}
	for _, l := range letters {
		if _, err := s.CreateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range letters {
		for _, q := range []storage.LetterQuery{
			{Account: l.Account, Status: l.Status},
			{Account: l.Account, ExternalID: l.ExternalID},
			{Account: l.Account, Metadata: l.Metadata},
		} {
			q.Limit = 10
			got, err := s.ListLetters(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].ID != l.ID {
				t.Errorf("ListLetters(%#v) = %d letters, want %s alone", q, len(got), l.ID)
			}
		}
	}
}

// TestLetterRecTimes: a record keeps its times as seconds and nanoseconds,
// and gives back the same instants, the zero time as the zero time.
func TestLetterRecTimes(t *testing.T) {
	for _, tm := range []time.Time{
		{}, t0, t0.Add(123456789 * time.Nanosecond), time.Unix(0, 0), time.Unix(-1, 999999999),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		t0.In(time.FixedZone("x", -7*3600)),
	} {
		var r letterRec
		r.setTime(due, tm)
		got := r.time(due)
		if !got.Equal(tm) || got.Location() != time.UTC || got.IsZero() != tm.IsZero() || r.isDue() == tm.IsZero() {
			t.Errorf("%v kept and read back as %v (due %v)", tm, got, r.isDue())
		}
		if tm.IsZero() && got != (time.Time{}) {
			t.Errorf("the zero time read back as %#v", got)
		}
	}
}

// TestRecordsKeepNoCallerStrings: a record, and the index keys that name
// it, hold the store's own copies of the caller's strings, which may be
// parts of larger ones (a request's body) that would otherwise stay
// alive with the letter.
func TestRecordsKeepNoCallerStrings(t *testing.T) {
	s := New()
	ctx := t.Context()
	body := strings.Repeat("x", 1<<16)
	inBody := func(v string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(v))), uintptr(unsafe.Pointer(unsafe.StringData(body)))
		return len(v) > 0 && p >= start && p < start+uintptr(len(body))
	}
	l, err := s.CreateLetter(ctx, storage.Letter{ID: body[:8], Account: "a", Status: body[:3], ExternalID: body[:5]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.ExternalID = body[:6]
	if _, err := s.UpdateLetter(ctx, l, nil); err != nil {
		t.Fatal(err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for id, r := range s.letters {
		if inBody(id) || inBody(r.id) || inBody(r.externalID) {
			t.Errorf("the record of %q keeps a part of the caller's string", id)
		}
	}
	for k := range s.lettersByExternal.postings {
		if inBody(k.externalID) {
			t.Errorf("the external id index keys on a part of the caller's string: %q", k.externalID)
		}
	}
}

// A store keeps an idempotency record for each key for a day: it stays in
// the 128-byte size class, its times as seconds and nanoseconds included.
func TestIdemRecSize(t *testing.T) {
	if n := unsafe.Sizeof(idemRec{}); n > 128 {
		t.Errorf("an idempotency record takes %d bytes, more than 128", n)
	}
}

// TestEraseUnderWay: letters and deliveries a due run picked before their
// account was erased, and written again under the same ids since (a
// restore that keeps a snapshot's ids), are passed over when the run
// reaches them: the records picked are not those stored.
func TestEraseUnderWay(t *testing.T) {
	s := New()
	ctx := t.Context()
	now := t0.Add(time.Hour)
	q := storage.DueQuery{Now: now, Limit: 10}
	w := storage.Webhook{ID: "wh_1", Account: "acct", Status: storage.WebhookEnabled, CreatedAt: t0, ModifiedAt: t0}
	if _, err := s.WriteWebhook(ctx, w, 0, nil); err != nil {
		t.Fatal(err)
	}
	var letters []storage.Letter
	for i := range 2 {
		l := storage.Letter{ID: fmt.Sprintf("ltr_%d", i), Account: "acct", Status: "queued", DueAt: t0, CreatedAt: t0, ModifiedAt: t0}
		letters = append(letters, l)
		l.Notices = []storage.Notice{{EventID: fmt.Sprintf("evt_%d", i), Type: "letter.created", At: t0, RetryUntil: now}}
		if _, err := s.CreateLetter(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	picked, err := s.pickDue(ctx, q)
	if err != nil || len(picked) != 2 {
		t.Fatalf("pickDue = %d letters, %v; want 2", len(picked), err)
	}
	dq := storage.DeliveryDueQuery{DueQuery: q, Leased: now}
	pickedDeliveries, err := s.pickDueDeliveries(ctx, dq)
	if err != nil || len(pickedDeliveries) != 2 {
		t.Fatalf("pickDueDeliveries = %d, %v; want 2", len(pickedDeliveries), err)
	}
	if err := s.EraseAccount(ctx, "acct"); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	if err := s.RestoreRecords(ctx, storage.AccountRecords{Account: "acct", Letters: letters, Webhooks: []storage.Webhook{w}}); err != nil {
		t.Fatal(err)
	}
	// A change of the letter restored makes a delivery of the id of one
	// picked before.
	l, err := s.GetLetter(ctx, "acct", "ltr_0")
	if err != nil {
		t.Fatal(err)
	}
	l.Notices = []storage.Notice{{EventID: "evt_0", Type: "letter.created", At: t0, RetryUntil: now}}
	if _, err := s.UpdateLetter(ctx, l, nil); err != nil {
		t.Fatal(err)
	}
	fn := func(l *storage.Letter) error {
		t.Errorf("letter %s of before the erase handed to the run", l.ID)
		l.Status = "mailed"
		return nil
	}
	for _, r := range picked {
		if _, err := s.processDue(ctx, r, q, fn); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range pickedDeliveries {
		_, written, err := s.processDueDelivery(ctx, r, dq, func(d *storage.Delivery) error {
			t.Errorf("delivery %s of before the erase handed to the run", d.ID)
			d.Attempts++
			return nil
		})
		if err != nil || written {
			t.Errorf("processDueDelivery = %v, %v; want nothing written", written, err)
		}
	}
	checkInvariants(t, s)
	if got, _ := s.ListLetters(ctx, storage.LetterQuery{Account: "acct", Status: "mailed", Limit: 10}); len(got) != 0 {
		t.Errorf("mailed letters %v, want none", got)
	}
	ds, _ := s.ListDeliveries(ctx, storage.DeliveryQuery{Account: "acct", WebhookID: "wh_1", Limit: 10})
	if len(ds) != 1 || ds[0].Attempts != 0 {
		t.Errorf("deliveries %+v, want the one made since, not attempted", ds)
	}
	if n := s.hooks.due.byTime.Len(); n != 1 {
		t.Errorf("due deliveries index holds %d, want 1", n)
	}
	if q := s.hooks.pending[letterKey{"wh_1", "ltr_0"}]; len(q) != 1 {
		t.Errorf("pending queue of ltr_0 holds %d, want 1", len(q))
	}
}

// checkContentIndex checks that contentOf lists each account's content
// and contentHolders counts the accounts holding each hash, as content
// has them.
func checkContentIndex(t *testing.T, s *Store) {
	t.Helper()
	of := map[string][]string{}
	holders := map[string]int{}
	for k := range s.content {
		of[k.account] = append(of[k.account], k.hash)
		holders[k.hash]++
	}
	for a := range of {
		slices.Sort(of[a])
	}
	got := map[string][]string{}
	for a, hs := range s.contentOf {
		got[a] = slices.Sorted(slices.Values(hs))
	}
	if d := cmp.Diff(of, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("contentOf differs from content (-content +contentOf):\n%s", d)
	}
	if d := cmp.Diff(holders, s.contentHolders, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("contentHolders differs from content (-content +contentHolders):\n%s", d)
	}
}

// TestEraseCostsWhatTheAccountHolds: an erase visits the erased
// account's content only, not every account's, so that a server shared by
// a suite, which holds the content of every account its tests made, does
// not take longer to empty an account (under the store's lock) as the
// suite goes on: an erase allocates as much among 2,000 accounts with
// content as among 10.
func TestEraseCostsWhatTheAccountHolds(t *testing.T) {
	allocs := func(others int) float64 {
		s := New()
		ctx := t.Context()
		write := func(acct string, i int) {
			w := storage.AssetWrite{
				Asset:      storage.Asset{ID: fmt.Sprintf("ast_%s_%d", acct, i), Account: acct, CreatedAt: t0, ModifiedAt: t0},
				PutContent: []storage.Content{{Account: acct, Hash: "h-" + acct, Data: []byte("x")}},
			}
			if _, err := s.WriteAsset(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		for i := range others {
			write(fmt.Sprint("acct_", i), 0)
		}
		i := 0
		n := testing.AllocsPerRun(20, func() {
			i++
			write("erased", i)
			if err := s.EraseAccount(ctx, "erased"); err != nil {
				t.Fatal(err)
			}
		})
		checkInvariants(t, s)
		return n
	}
	// A map's growth can cost an allocation more or less (and the race
	// detector's build others); a walk of every account's content cost
	// 39 among 2,000 where it cost 13 among 10.
	if few, many := allocs(10), allocs(2_000); many > few+2 {
		t.Errorf("write and erase of an account: %v allocations among 2,000 accounts, %v among 10", many, few)
	}
}

// TestEraseFreesSharedContent: content kept once for every account that
// has it goes with the last of them.
func TestEraseFreesSharedContent(t *testing.T) {
	s := New()
	ctx := t.Context()
	for _, acct := range []string{"a", "b"} {
		w := storage.AssetWrite{
			Asset:      storage.Asset{ID: "ast_" + acct, Account: acct, CreatedAt: t0, ModifiedAt: t0},
			PutContent: []storage.Content{{Account: acct, Hash: "h", Data: []byte("x")}, {Account: acct, Hash: "h-" + acct, Data: []byte("y")}},
		}
		if _, err := s.WriteAsset(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EraseAccount(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	if got := slices.Sorted(maps.Keys(s.contentByHash)); !slices.Equal(got, []string{"h", "h-b"}) {
		t.Errorf("shared content %v, want h and h-b", got)
	}
	if err := s.EraseAccount(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if len(s.contentByHash) != 0 || len(s.content) != 0 || len(s.assets) != 0 {
		t.Errorf("content %d, shared %d, assets %d left; want none", len(s.content), len(s.contentByHash), len(s.assets))
	}
}
