// Package storagetest is the conformance suite every storage.Storage backend
// runs: a backend's test calls Run with a function that makes an empty
// store.
//
// The suite relies on the storage contract alone. It reads no clock: every
// time is an explicit instant in UTC, whole microseconds, as a database
// keeps it, and times are compared as instants. It uses ids that sort in
// creation order, unique within a subtest across accounts, and strings a
// text column can hold (valid UTF-8, no NUL).
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop/storage"
)

// Run runs the suite, calling newStore for every subtest so that each
// starts from an empty store.
func Run(t *testing.T, newStore func(t *testing.T) storage.Storage) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Letters", letterTests},
		{"LetterLists", letterListTests},
		{"ProcessDueLetters", dueTests},
		{"AccountClocks", clockTests},
		{"ProcessDueLettersOnClocks", clockDueTests},
		{"Assets", assetTests},
		{"Idempotency", idempotencyTests},
		{"Webhooks", webhookTests},
		{"Completion", completionTests},
		{"CancelledContext", cancelTests},
		{"RestoreRecords", restoreTests},
		{"EraseAccount", eraseTests},
		{"Moves", moveTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					tc.run(t, &fixture{s: newStore(t), ctx: t.Context()})
				})
			}
		})
	}
}

// test is one contract clause; its name says the clause.
type test struct {
	name string
	run  func(t *testing.T, f *fixture)
}

const (
	acctA = "acct_a"
	acctB = "acct_b"
)

// t0 is the suite's epoch.
var t0 = time.Date(2024, 7, 30, 9, 0, 0, 0, time.UTC)

// at returns t0+d; d should be whole microseconds.
func at(d time.Duration) time.Time { return t0.Add(d) }

const us = time.Microsecond

// fixture is one subtest's store and id sequence.
type fixture struct {
	s   storage.Storage
	ctx context.Context
	seq int
}

// id returns a new id with prefix; ids sort in the order they are made.
func (f *fixture) id(prefix string) string {
	f.seq++
	return fmt.Sprintf("%s%08d", prefix, f.seq)
}

var cmpOpts = cmp.Options{
	// A backend may return an empty slice where nil went in, or the other
	// way round; time.Time values compare with Equal, as instants.
	cmpopts.EquateEmpty(),
	encodedDoc,
}

func diff(t testing.TB, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got, cmpOpts); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// wantErr checks that err is target, or wraps it.
func wantErr(t testing.TB, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}

func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// letter returns a new letter of account, not yet stored.
func (f *fixture) letter(account string) storage.Letter {
	id := f.id("ltr_")
	return storage.Letter{
		ID:         id,
		Account:    account,
		Status:     "queued",
		Metadata:   []storage.Metadata{{Key: "batch", Value: "b1"}},
		CreatedAt:  t0,
		ModifiedAt: t0,
		Doc:        newDoc(id, "a", "b"),
	}
}

func (f *fixture) createLetter(t testing.TB, l storage.Letter) storage.Letter {
	t.Helper()
	got, err := f.s.CreateLetter(f.ctx, l, nil)
	must(t, "CreateLetter "+l.ID, err)
	return got
}

func (f *fixture) getLetter(t testing.TB, account, id string) storage.Letter {
	t.Helper()
	got, err := f.s.GetLetter(f.ctx, account, id)
	must(t, "GetLetter "+id, err)
	return got
}

// wantStored checks that the store holds exactly want.
func (f *fixture) wantStored(t testing.TB, want storage.Letter) {
	t.Helper()
	diff(t, "stored letter "+want.ID, want, f.getLetter(t, want.Account, want.ID))
}

func (f *fixture) listLetters(t testing.TB, q storage.LetterQuery) []string {
	t.Helper()
	got, err := f.s.ListLetters(f.ctx, q)
	must(t, fmt.Sprintf("ListLetters(%+v)", q), err)
	return letterIDs(got)
}

func letterIDs(ls []storage.Letter) []string {
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return ids
}

func cloneLetter(l storage.Letter) storage.Letter {
	l.Metadata = slices.Clone(l.Metadata)
	l.Doc = storage.CloneDocument(l.Doc)
	return l
}

// newestFirst returns ids sorted as lists return them.
func newestFirst(ids []string) []string {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b string) int { return strings.Compare(b, a) })
	return ids
}

func md(kv ...string) []storage.Metadata {
	if len(kv)%2 != 0 {
		panic("md: odd number of arguments")
	}
	var m []storage.Metadata
	for i := 0; i < len(kv); i += 2 {
		m = append(m, storage.Metadata{Key: kv[i], Value: kv[i+1]})
	}
	return m
}

// asset returns a new asset of account, not yet stored (Revision 0).
func (f *fixture) asset(account string) storage.Asset {
	id := f.id("ast_")
	return storage.Asset{
		ID:         id,
		Account:    account,
		Metadata:   md("kind", "template"),
		CreatedAt:  t0,
		ModifiedAt: t0,
		Doc:        newDoc(id, "a", "b"),
	}
}

// version returns a new version of a, not yet stored.
func (f *fixture) version(a storage.Asset, status string) storage.AssetVersion {
	id := f.id("astv_")
	return storage.AssetVersion{
		ID:         id,
		Account:    a.Account,
		AssetID:    a.ID,
		Status:     status,
		CreatedAt:  t0,
		ModifiedAt: t0,
		Doc:        newDoc(id, "a", "b"),
	}
}

func (f *fixture) writeAsset(t testing.TB, w storage.AssetWrite) storage.Asset {
	t.Helper()
	got, err := f.s.WriteAsset(f.ctx, w)
	must(t, "WriteAsset "+w.Asset.ID, err)
	return got
}

// createAsset stores a with versions and returns it as stored.
func (f *fixture) createAsset(t testing.TB, a storage.Asset, vs ...storage.AssetVersion) storage.Asset {
	t.Helper()
	return f.writeAsset(t, storage.AssetWrite{Asset: a, PutVersions: vs})
}

func (f *fixture) getAsset(t testing.TB, account, id string) storage.Asset {
	t.Helper()
	got, err := f.s.GetAsset(f.ctx, account, id)
	must(t, "GetAsset "+id, err)
	return got
}

// wantVersions checks that the asset's versions, listed whole, are want.
func (f *fixture) wantVersions(t testing.TB, account, assetID string, want ...storage.AssetVersion) {
	t.Helper()
	got, err := f.s.ListAssetVersions(f.ctx, storage.VersionQuery{Account: account, AssetID: assetID, Limit: 1000})
	must(t, "ListAssetVersions "+assetID, err)
	want = slices.Clone(want)
	slices.SortFunc(want, func(a, b storage.AssetVersion) int { return strings.Compare(b.ID, a.ID) })
	diff(t, "versions of "+assetID, want, got)
}

func (f *fixture) wantNoVersion(t testing.TB, account, assetID, versionID string) {
	t.Helper()
	_, err := f.s.GetAssetVersion(f.ctx, account, assetID, versionID)
	wantErr(t, "GetAssetVersion "+versionID, err, storage.ErrNotFound)
}

func (f *fixture) wantNoContent(t testing.TB, account, hash string) {
	t.Helper()
	_, err := f.s.GetContent(f.ctx, account, hash)
	wantErr(t, "GetContent "+hash, err, storage.ErrNotFound)
}

func (f *fixture) wantContent(t testing.TB, account, hash, want string) {
	t.Helper()
	got, err := f.s.GetContent(f.ctx, account, hash)
	must(t, "GetContent "+hash, err)
	if string(got) != want {
		t.Errorf("GetContent(%s, %s) = %q, want %q", account, hash, got, want)
	}
}

// claimRecord is an in-flight claim made at now, kept 24 hours, with a
// one-minute lease.
func claimRecord(scope, key, token string, now time.Time) storage.IdempotencyRecord {
	return storage.IdempotencyRecord{
		Account:        scopeAccount(scope),
		Scope:          scope,
		Key:            key,
		Fingerprint:    "POST /letters " + token,
		Token:          token,
		CreatedAt:      now,
		ExpiresAt:      now.Add(24 * time.Hour),
		LeaseExpiresAt: now.Add(time.Minute),
	}
}

// scopeAccount is the account of the records claimRecord makes in scope:
// a scope belongs to one account.
func scopeAccount(scope string) string { return "account-of-" + scope }

// resultOf is the bytes of a stored result, as a store returns it.
func resultOf(t testing.TB, d storage.Document) string {
	t.Helper()
	b, err := storage.EncodeDocument(d)
	if err != nil {
		t.Fatalf("stored result: %v", err)
	}
	return string(b)
}

func (f *fixture) claim(t testing.TB, r storage.IdempotencyRecord, now time.Time) (storage.IdempotencyRecord, bool) {
	t.Helper()
	got, won, err := f.s.ClaimIdempotency(f.ctx, r, now)
	must(t, "ClaimIdempotency "+r.Key, err)
	return got, won
}

// mustClaim claims r at now and fails the test unless it wins.
func (f *fixture) mustClaim(t testing.TB, r storage.IdempotencyRecord, now time.Time) {
	t.Helper()
	got, won := f.claim(t, r, now)
	if !won {
		t.Fatalf("ClaimIdempotency(%s, %s) lost to %+v", r.Key, r.Token, got)
	}
}

// probe claims (scope, key) at now with a token of its own and returns the
// record the store then holds; won reports that no live record was there.
// A probe that wins leaves its own claim behind, which is why the tests
// probe last or at a time chosen for it.
func (f *fixture) probe(t testing.TB, scope, key string, now time.Time) (storage.IdempotencyRecord, bool) {
	t.Helper()
	return f.claim(t, claimRecord(scope, key, "probe", now), now)
}

// wantInFlight checks that (scope, key) is held, unfinished, by token.
func (f *fixture) wantInFlight(t testing.TB, scope, key, token string, now time.Time) {
	t.Helper()
	got, won := f.probe(t, scope, key, now)
	if won || got.Token != token || got.Done {
		t.Errorf("record %s: won %v, token %q, done %v; want held in flight by %q", key, won, got.Token, got.Done, token)
	}
}

// wantDone checks that (scope, key) holds the result.
func (f *fixture) wantDone(t testing.TB, scope, key, result string, now time.Time) {
	t.Helper()
	got, won := f.probe(t, scope, key, now)
	if stored := resultOf(t, got.Result); won || !got.Done || stored != result {
		t.Errorf("record %s: won %v, done %v, result %q; want done with %q", key, won, got.Done, stored, result)
	}
}
