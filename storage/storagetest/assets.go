package storagetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

var assetTests = []test{
	{"WriteAsset at revision 0 creates the asset, its versions and content", testWriteAssetCreate},
	{"WriteAsset creating a taken id is ErrAlreadyExists and writes nothing", testWriteAssetTaken},
	{"WriteAsset at the stored revision writes the asset and its versions", testWriteAssetUpdate},
	{"WriteAsset at another revision is ErrConflict and writes nothing", testWriteAssetConflict},
	{"WriteAsset updating an unknown asset or another account's is ErrNotFound", testWriteAssetNotFound},
	{"WriteAsset deleting a version that does not exist is ErrNotFound and writes nothing", testWriteAssetDeleteMissing},
	{"WriteAsset puts versions before it deletes them", testWriteAssetPutThenDelete},
	{"WriteAsset stores content only if absent", testWriteAssetContent},
	{"GetContent of unknown content or another account's is ErrNotFound", testGetContentNotFound},
	{"GetAsset of an unknown id or another account's asset is ErrNotFound", testGetAssetNotFound},
	{"DeleteAsset removes the asset and its versions and keeps content", testDeleteAsset},
	{"DeleteAsset at another revision is ErrConflict and removes nothing", testDeleteAssetConflict},
	{"DeleteAsset of an unknown asset or another account's is ErrNotFound", testDeleteAssetNotFound},
	{"GetAssetVersion of another asset's version is ErrNotFound", testGetVersionNotFound},
	{"GetAssetVersion without an asset id finds the account's version of any asset", testGetVersionAnyAsset},
	{"ListAssets returns the newest first, before Before, at most Limit", testListAssets},
	{"ListAssets filters by Metadata and account, following writes", testListAssetsFilter},
	{"ListAssetVersions returns the newest first, before Before, at most Limit", testListVersions},
	{"ListAssetVersions leaves out ExcludeStatuses", testListVersionsExclude},
	{"ListAssetVersions lists only the asset's versions", testListVersionsOwn},
	{"asset records passed in are copied", testAssetCopiedIn},
	{"asset records returned are copies", testAssetCopiedOut},
}

func testWriteAssetCreate(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v1, v2 := f.version(a, "draft"), f.version(a, "published")
	got, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{
		Asset:       a,
		PutVersions: []storage.AssetVersion{v1, v2},
		PutContent:  []storage.Content{{Account: acctA, Hash: "h1", Data: []byte("one")}},
	})
	must(t, "WriteAsset", err)
	want := a
	want.Revision = 1
	diff(t, "WriteAsset", want, got)
	diff(t, "GetAsset", want, f.getAsset(t, acctA, a.ID))
	for _, v := range []storage.AssetVersion{v1, v2} {
		gotV, err := f.s.GetAssetVersion(f.ctx, acctA, a.ID, v.ID)
		must(t, "GetAssetVersion", err)
		diff(t, "GetAssetVersion", v, gotV)
	}
	f.wantVersions(t, acctA, a.ID, v1, v2)
	f.wantContent(t, acctA, "h1", "one")
}

func testWriteAssetTaken(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v := f.version(a, "draft")
	stored := f.createAsset(t, a, v)

	dup := f.asset(acctA)
	dup.ID = a.ID
	dup.Metadata = md("kind", "image")
	v2 := f.version(dup, "draft")
	_, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{
		Asset:       dup,
		PutVersions: []storage.AssetVersion{v2},
		PutContent:  []storage.Content{{Account: acctA, Hash: "h2", Data: []byte("two")}},
	})
	wantErr(t, "WriteAsset creating a taken id", err, storage.ErrAlreadyExists)
	diff(t, "GetAsset", stored, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, v)
	f.wantNoVersion(t, acctA, a.ID, v2.ID)
	f.wantNoContent(t, acctA, "h2")
}

func testWriteAssetUpdate(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v1, v2 := f.version(a, "draft"), f.version(a, "draft")
	stored := f.createAsset(t, a, v1, v2)

	u := stored
	u.Metadata = md("kind", "template", "owner", "ops")
	u.ModifiedAt = at(time.Minute)
	u.Doc = newDoc("v2")
	v1.Status = "published"
	v1.ModifiedAt = at(time.Minute)
	v1.Doc = newDoc("published")
	v3 := f.version(a, "draft")
	got, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{
		Asset:          u,
		PutVersions:    []storage.AssetVersion{v1, v3},
		DeleteVersions: []string{v2.ID},
	})
	must(t, "WriteAsset at revision 1", err)
	want := u
	want.Revision = 2
	diff(t, "WriteAsset at revision 1", want, got)
	diff(t, "GetAsset", want, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, v1, v3)
	f.wantNoVersion(t, acctA, a.ID, v2.ID)

	u = got
	u.Metadata = nil
	got = f.writeAsset(t, storage.AssetWrite{Asset: u})
	want = u
	want.Revision = 3
	diff(t, "WriteAsset at revision 2", want, got)
	diff(t, "GetAsset", want, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, v1, v3)
}

func testWriteAssetConflict(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v := f.version(a, "draft")
	stored := f.createAsset(t, a, v)
	stored = f.writeAsset(t, storage.AssetWrite{Asset: stored}) // revision 2
	for _, rev := range []int64{1, 3} {
		u := stored
		u.Revision = rev
		u.Doc = newDoc("lost")
		v2 := f.version(a, "draft")
		changed := v
		changed.Status = "archived"
		_, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{
			Asset:          u,
			PutVersions:    []storage.AssetVersion{changed, v2},
			DeleteVersions: []string{v.ID},
			PutContent:     []storage.Content{{Account: acctA, Hash: "h-lost", Data: []byte("lost")}},
		})
		wantErr(t, fmt.Sprintf("WriteAsset at revision %d", rev), err, storage.ErrConflict)
		diff(t, "GetAsset", stored, f.getAsset(t, acctA, a.ID))
		f.wantVersions(t, acctA, a.ID, v)
		f.wantNoContent(t, acctA, "h-lost")
	}
}

func testWriteAssetNotFound(t *testing.T, f *fixture) {
	unknown := f.asset(acctA)
	unknown.Revision = 1
	v := f.version(unknown, "draft")
	_, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{Asset: unknown, PutVersions: []storage.AssetVersion{v}})
	wantErr(t, "WriteAsset updating an unknown asset", err, storage.ErrNotFound)
	_, err = f.s.GetAsset(f.ctx, acctA, unknown.ID)
	wantErr(t, "GetAsset", err, storage.ErrNotFound)
	f.wantNoVersion(t, acctA, unknown.ID, v.ID)

	a := f.asset(acctA)
	av := f.version(a, "draft")
	stored := f.createAsset(t, a, av)
	other := stored
	other.Account = acctB
	other.Doc = newDoc("lost")
	_, err = f.s.WriteAsset(f.ctx, storage.AssetWrite{Asset: other})
	wantErr(t, "WriteAsset updating another account's asset", err, storage.ErrNotFound)
	diff(t, "GetAsset", stored, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, av)
}

func testWriteAssetDeleteMissing(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v1 := f.version(a, "draft")
	stored := f.createAsset(t, a, v1)
	other := f.asset(acctA)
	ov := f.version(other, "draft")
	otherStored := f.createAsset(t, other, ov)

	for _, missing := range []string{"astv_missing", ov.ID} {
		u := stored
		u.Metadata = md("kind", "changed")
		changed := v1
		changed.Status = "published"
		v2 := f.version(a, "draft")
		_, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{
			Asset:          u,
			PutVersions:    []storage.AssetVersion{changed, v2},
			DeleteVersions: []string{v1.ID, missing},
			PutContent:     []storage.Content{{Account: acctA, Hash: "h-lost", Data: []byte("lost")}},
		})
		wantErr(t, "WriteAsset deleting version "+missing, err, storage.ErrNotFound)
		diff(t, "GetAsset", stored, f.getAsset(t, acctA, a.ID))
		f.wantVersions(t, acctA, a.ID, v1)
		f.wantNoContent(t, acctA, "h-lost")
	}
	diff(t, "GetAsset of the other asset", otherStored, f.getAsset(t, acctA, other.ID))
	f.wantVersions(t, acctA, other.ID, ov)

	// The same version deleted twice in one write: the second is missing.
	u := stored
	_, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{Asset: u, DeleteVersions: []string{v1.ID, v1.ID}})
	wantErr(t, "WriteAsset deleting a version twice", err, storage.ErrNotFound)
	f.wantVersions(t, acctA, a.ID, v1)
}

func testWriteAssetPutThenDelete(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	keep, drop := f.version(a, "draft"), f.version(a, "draft")
	got, err := f.s.WriteAsset(f.ctx, storage.AssetWrite{
		Asset:          a,
		PutVersions:    []storage.AssetVersion{keep, drop},
		DeleteVersions: []string{drop.ID},
	})
	must(t, "WriteAsset", err)
	f.wantVersions(t, acctA, a.ID, keep)
	f.wantNoVersion(t, acctA, a.ID, drop.ID)

	// A version deleted after being changed in the same write is gone too.
	keep.Status = "archived"
	got = f.writeAsset(t, storage.AssetWrite{Asset: got, PutVersions: []storage.AssetVersion{keep}, DeleteVersions: []string{keep.ID}})
	if got.Revision != 2 {
		t.Errorf("revision %d, want 2", got.Revision)
	}
	f.wantVersions(t, acctA, a.ID)
}

func testWriteAssetContent(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	stored := f.writeAsset(t, storage.AssetWrite{
		Asset:      a,
		PutContent: []storage.Content{{Account: acctA, Hash: "h1", Data: []byte("one")}},
	})
	// A known hash is left as it is, whatever bytes come with it.
	stored = f.writeAsset(t, storage.AssetWrite{
		Asset: stored,
		PutContent: []storage.Content{
			{Account: acctA, Hash: "h1", Data: []byte("changed")},
			{Account: acctA, Hash: "h2", Data: []byte("two")},
		},
	})
	f.wantContent(t, acctA, "h1", "one")
	f.wantContent(t, acctA, "h2", "two")

	// Content belongs to its account: the same hash elsewhere is another.
	b := f.asset(acctB)
	f.writeAsset(t, storage.AssetWrite{
		Asset:      b,
		PutContent: []storage.Content{{Account: acctB, Hash: "h1", Data: []byte("b-one")}},
	})
	f.wantContent(t, acctB, "h1", "b-one")
	f.wantContent(t, acctA, "h1", "one")
	if stored.Revision != 2 {
		t.Errorf("revision %d, want 2", stored.Revision)
	}
}

func testGetContentNotFound(t *testing.T, f *fixture) {
	f.writeAsset(t, storage.AssetWrite{
		Asset:      f.asset(acctA),
		PutContent: []storage.Content{{Account: acctA, Hash: "h1", Data: []byte("one")}},
	})
	f.wantNoContent(t, acctA, "h-unknown")
	f.wantNoContent(t, acctB, "h1")
}

func testGetAssetNotFound(t *testing.T, f *fixture) {
	a := f.createAsset(t, f.asset(acctA))
	_, err := f.s.GetAsset(f.ctx, acctA, "ast_unknown")
	wantErr(t, "GetAsset of an unknown id", err, storage.ErrNotFound)
	_, err = f.s.GetAsset(f.ctx, acctB, a.ID)
	wantErr(t, "GetAsset from another account", err, storage.ErrNotFound)
}

func testDeleteAsset(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v1, v2 := f.version(a, "draft"), f.version(a, "published")
	stored := f.writeAsset(t, storage.AssetWrite{
		Asset:       a,
		PutVersions: []storage.AssetVersion{v1, v2},
		PutContent:  []storage.Content{{Account: acctA, Hash: "h1", Data: []byte("one")}},
	})
	other := f.asset(acctA)
	ov := f.version(other, "draft")
	otherStored := f.createAsset(t, other, ov)

	must(t, "DeleteAsset", f.s.DeleteAsset(f.ctx, acctA, a.ID, stored.Revision, nil))
	_, err := f.s.GetAsset(f.ctx, acctA, a.ID)
	wantErr(t, "GetAsset after DeleteAsset", err, storage.ErrNotFound)
	f.wantNoVersion(t, acctA, a.ID, v1.ID)
	f.wantNoVersion(t, acctA, a.ID, v2.ID)
	f.wantVersions(t, acctA, a.ID)
	f.wantContent(t, acctA, "h1", "one")
	got, err := f.s.ListAssets(f.ctx, storage.AssetQuery{Account: acctA, Limit: 10})
	must(t, "ListAssets", err)
	diff(t, "ListAssets after DeleteAsset", []storage.Asset{otherStored}, got)
	f.wantVersions(t, acctA, other.ID, ov)

	err = f.s.DeleteAsset(f.ctx, acctA, a.ID, stored.Revision, nil)
	wantErr(t, "DeleteAsset again", err, storage.ErrNotFound)
}

func testDeleteAssetConflict(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v := f.version(a, "draft")
	stored := f.createAsset(t, a, v)
	stored = f.writeAsset(t, storage.AssetWrite{Asset: stored}) // revision 2
	for _, rev := range []int64{1, 3} {
		err := f.s.DeleteAsset(f.ctx, acctA, a.ID, rev, nil)
		wantErr(t, fmt.Sprintf("DeleteAsset at revision %d", rev), err, storage.ErrConflict)
	}
	diff(t, "GetAsset", stored, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, v)
}

func testDeleteAssetNotFound(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v := f.version(a, "draft")
	stored := f.createAsset(t, a, v)
	err := f.s.DeleteAsset(f.ctx, acctA, "ast_unknown", 1, nil)
	wantErr(t, "DeleteAsset of an unknown id", err, storage.ErrNotFound)
	err = f.s.DeleteAsset(f.ctx, acctB, a.ID, stored.Revision, nil)
	wantErr(t, "DeleteAsset from another account", err, storage.ErrNotFound)
	diff(t, "GetAsset", stored, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, v)
}

func testGetVersionNotFound(t *testing.T, f *fixture) {
	a, b := f.asset(acctA), f.asset(acctA)
	va, vb := f.version(a, "draft"), f.version(b, "draft")
	f.createAsset(t, a, va)
	f.createAsset(t, b, vb)
	f.wantNoVersion(t, acctA, a.ID, vb.ID)
	f.wantNoVersion(t, acctA, b.ID, va.ID)
	f.wantNoVersion(t, acctB, a.ID, va.ID)
	f.wantNoVersion(t, acctA, a.ID, "astv_unknown")
	f.wantNoVersion(t, acctA, "ast_unknown", va.ID)
}

func testGetVersionAnyAsset(t *testing.T, f *fixture) {
	a, b := f.asset(acctA), f.asset(acctA)
	va, vb := f.version(a, "draft"), f.version(b, "published")
	f.createAsset(t, a, va)
	f.createAsset(t, b, vb)
	for _, v := range []storage.AssetVersion{va, vb} {
		got, err := f.s.GetAssetVersion(f.ctx, acctA, "", v.ID)
		must(t, "GetAssetVersion "+v.ID, err)
		diff(t, "GetAssetVersion "+v.ID, v, got)
	}
	f.wantNoVersion(t, acctB, "", va.ID)
	f.wantNoVersion(t, acctA, "", "astv_unknown")
}

func assetIDs(as []storage.Asset) []string {
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

func (f *fixture) listAssets(t testing.TB, q storage.AssetQuery) []string {
	t.Helper()
	got, err := f.s.ListAssets(f.ctx, q)
	must(t, fmt.Sprintf("ListAssets(%+v)", q), err)
	return assetIDs(got)
}

// pageCase is a page of a list: Before, Limit, and the ids it returns.
type pageCase struct {
	before string
	limit  int
	want   []string
}

// pageCases are pages of a list of five records whose ids, in creation
// order, are ids: Limit above, at and below their number, at 1 and below 1
// (no records), and Before on an id, between two, and on the lowest.
func pageCases(ids []string) []pageCase {
	all := newestFirst(ids)
	return []pageCase{
		{"", 10, all},
		{"", 5, all},
		{"", 4, all[:4]},
		{"", 1, all[:1]},
		{"", 0, nil},
		{"", -1, nil},
		{ids[3], 10, all[2:]},
		{ids[3], 2, all[2:4]},
		{ids[0], 10, nil},
		{ids[1] + "x", 10, all[3:]},
	}
}

func testListAssets(t *testing.T, f *fixture) {
	ids := make([]string, 5)
	for i := range ids {
		ids[i] = f.id("ast_")
	}
	for _, i := range []int{3, 1, 4, 0, 2} {
		a := f.asset(acctA)
		a.ID = ids[i]
		f.createAsset(t, a)
	}
	for _, tc := range pageCases(ids) {
		got := f.listAssets(t, storage.AssetQuery{Account: acctA, Before: tc.before, Limit: tc.limit})
		diff(t, fmt.Sprintf("ListAssets before %q limit %d", tc.before, tc.limit), tc.want, got)
	}
}

func testListAssetsFilter(t *testing.T, f *fixture) {
	metas := [][]storage.Metadata{
		md("kind", "template", "team", "ops"),
		md("kind", "template"),
		md("kind", "image", "team", "ops"),
		md("flag", ""),
		nil,
	}
	var ids []string
	var stored []storage.Asset
	for _, m := range metas {
		a := f.asset(acctA)
		a.Metadata = m
		stored = append(stored, f.createAsset(t, a))
		ids = append(ids, a.ID)
	}
	b := f.asset(acctB)
	b.Metadata = md("kind", "template")
	f.createAsset(t, b)

	check := func(when string, filter []storage.Metadata, want []string) {
		t.Helper()
		got := f.listAssets(t, storage.AssetQuery{Account: acctA, Metadata: filter, Limit: 10})
		diff(t, fmt.Sprintf("%s: ListAssets metadata %v", when, filter), want, got)
	}
	check("created", md("kind", "template"), []string{ids[1], ids[0]})
	check("created", md("team", "ops", "kind", "template"), []string{ids[0]})
	check("created", md("flag", ""), []string{ids[3]})
	check("created", md("flag", "x"), nil)
	check("created", nil, newestFirst(ids))
	diff(t, "ListAssets of B", []string{b.ID},
		f.listAssets(t, storage.AssetQuery{Account: acctB, Metadata: md("kind", "template"), Limit: 10}))

	u := stored[1]
	u.Metadata = md("kind", "image")
	f.writeAsset(t, storage.AssetWrite{Asset: u})
	must(t, "DeleteAsset", f.s.DeleteAsset(f.ctx, acctA, ids[2], 1, nil))
	check("updated", md("kind", "template"), []string{ids[0]})
	check("updated", md("kind", "image"), []string{ids[1]})
	check("updated", nil, newestFirst([]string{ids[0], ids[1], ids[3], ids[4]}))
}

func testListVersions(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	var vs []storage.AssetVersion
	for range 5 {
		vs = append(vs, f.version(a, "draft"))
	}
	// Written out of id order, in two writes.
	f.createAsset(t, a, vs[3], vs[0])
	f.writeAsset(t, storage.AssetWrite{Asset: f.getAsset(t, acctA, a.ID), PutVersions: []storage.AssetVersion{vs[4], vs[1], vs[2]}})
	var ids []string
	for _, v := range vs {
		ids = append(ids, v.ID)
	}
	for _, tc := range pageCases(ids) {
		got, err := f.s.ListAssetVersions(f.ctx, storage.VersionQuery{Account: acctA, AssetID: a.ID, Before: tc.before, Limit: tc.limit})
		must(t, "ListAssetVersions", err)
		diff(t, fmt.Sprintf("ListAssetVersions before %q limit %d", tc.before, tc.limit), tc.want, versionIDs(got))
	}
}

func versionIDs(vs []storage.AssetVersion) []string {
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	return ids
}

func testListVersionsExclude(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	statuses := []string{"archived", "draft", "archived", "published", "deleted", "archived", "draft", "archived"}
	var vs []storage.AssetVersion
	for _, s := range statuses {
		vs = append(vs, f.version(a, s))
	}
	f.createAsset(t, a, vs...)
	for _, tc := range []struct {
		exclude []string
		before  string
		limit   int
	}{
		{nil, "", 20},
		{[]string{"archived"}, "", 20},
		{[]string{"archived", "deleted"}, "", 20},
		{[]string{"archived", "deleted", "draft", "published"}, "", 20},
		{[]string{"unknown"}, "", 20},
		{[]string{"archived"}, "", 2},
		{[]string{"archived"}, vs[6].ID, 2},
		{[]string{"draft", "published"}, vs[5].ID, 2},
	} {
		var want []string
		for _, v := range slices.Backward(vs) {
			if len(want) < tc.limit && !slices.Contains(tc.exclude, v.Status) && (tc.before == "" || v.ID < tc.before) {
				want = append(want, v.ID)
			}
		}
		q := storage.VersionQuery{Account: acctA, AssetID: a.ID, ExcludeStatuses: tc.exclude, Before: tc.before, Limit: tc.limit}
		got, err := f.s.ListAssetVersions(f.ctx, q)
		must(t, "ListAssetVersions", err)
		diff(t, fmt.Sprintf("ListAssetVersions(%+v)", q), want, versionIDs(got))
	}

	// A status changed by a write moves the version in or out.
	changed := vs[1]
	changed.Status = "archived"
	f.writeAsset(t, storage.AssetWrite{Asset: f.getAsset(t, acctA, a.ID), PutVersions: []storage.AssetVersion{changed}})
	got, err := f.s.ListAssetVersions(f.ctx, storage.VersionQuery{Account: acctA, AssetID: a.ID, ExcludeStatuses: []string{"archived", "deleted"}, Limit: 20})
	must(t, "ListAssetVersions", err)
	diff(t, "ListAssetVersions after a status change", []string{vs[6].ID, vs[3].ID}, versionIDs(got))
}

func testListVersionsOwn(t *testing.T, f *fixture) {
	a, b := f.asset(acctA), f.asset(acctA)
	va, vb := f.version(a, "draft"), f.version(b, "draft")
	f.createAsset(t, a, va)
	f.createAsset(t, b, vb)
	f.wantVersions(t, acctA, a.ID, va)
	f.wantVersions(t, acctA, b.ID, vb)
	f.wantVersions(t, acctB, a.ID)
	f.wantVersions(t, acctA, "ast_unknown")
}

func scribbleAsset(a *storage.Asset) {
	for i := range a.Metadata {
		a.Metadata[i] = storage.Metadata{Key: "scribbled", Value: "scribbled"}
	}
	scribbleDoc(a.Doc)
}

func scribbleBytes(b []byte) {
	for i := range b {
		b[i] = '#'
	}
}

func testAssetCopiedIn(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v := f.version(a, "draft")
	content := []byte("one")
	want := a
	want.Metadata = slices.Clone(a.Metadata)
	want.Doc = storage.CloneDocument(a.Doc)
	want.Revision = 1
	wantV := v
	wantV.Doc = storage.CloneDocument(v.Doc)
	f.writeAsset(t, storage.AssetWrite{
		Asset:       a,
		PutVersions: []storage.AssetVersion{v},
		PutContent:  []storage.Content{{Account: acctA, Hash: "h1", Data: content}},
	})
	scribbleAsset(&a)
	scribbleDoc(v.Doc)
	scribbleBytes(content)
	diff(t, "GetAsset", want, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, wantV)
	f.wantContent(t, acctA, "h1", "one")
}

func testAssetCopiedOut(t *testing.T, f *fixture) {
	a := f.asset(acctA)
	v := f.version(a, "draft")
	got := f.writeAsset(t, storage.AssetWrite{
		Asset:       a,
		PutVersions: []storage.AssetVersion{v},
		PutContent:  []storage.Content{{Account: acctA, Hash: "h1", Data: []byte("one")}},
	})
	want := a
	want.Revision = 1
	scribbleAsset(&got)

	got = f.getAsset(t, acctA, a.ID)
	scribbleAsset(&got)
	list, err := f.s.ListAssets(f.ctx, storage.AssetQuery{Account: acctA, Limit: 10})
	must(t, "ListAssets", err)
	for i := range list {
		scribbleAsset(&list[i])
	}
	gotV, err := f.s.GetAssetVersion(f.ctx, acctA, a.ID, v.ID)
	must(t, "GetAssetVersion", err)
	scribbleDoc(gotV.Doc)
	vs, err := f.s.ListAssetVersions(f.ctx, storage.VersionQuery{Account: acctA, AssetID: a.ID, Limit: 10})
	must(t, "ListAssetVersions", err)
	for _, v := range vs {
		scribbleDoc(v.Doc)
	}
	c, err := f.s.GetContent(f.ctx, acctA, "h1")
	must(t, "GetContent", err)
	scribbleBytes(c)

	diff(t, "GetAsset", want, f.getAsset(t, acctA, a.ID))
	f.wantVersions(t, acctA, a.ID, v)
	f.wantContent(t, acctA, "h1", "one")
}
