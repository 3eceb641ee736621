package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

type assetRec struct {
	a storage.Asset
	// versions holds the asset's versions per status, each tree in id
	// order, so a list that leaves some statuses out merges the trees it
	// keeps rather than stepping over every version it leaves out.
	versions map[string]*btree.BTreeG[*versionRec]
}

type versionRec struct {
	v storage.AssetVersion
}

func assetLess(a, b *assetRec) bool     { return a.a.ID < b.a.ID }
func versionLess(a, b *versionRec) bool { return a.v.ID < b.v.ID }

// storedAsset returns the store's own copy of a, its metadata interned.
func storedAsset(a storage.Asset) storage.Asset {
	a.Metadata = internMetadata(a.Metadata)
	a.Doc = storage.KeepDocument(a.Doc)
	return a
}

func cloneAsset(a storage.Asset) storage.Asset {
	a.Metadata = cloneMetadata(a.Metadata)
	a.Doc = storage.CloneDocument(a.Doc)
	return a
}

func cloneVersion(v storage.AssetVersion) storage.AssetVersion {
	v.Doc = storage.CloneDocument(v.Doc)
	return v
}

func (s *Store) indexAssetMetadata(r *assetRec) {
	for _, m := range r.a.Metadata {
		s.assetsByMeta.add(metaKey{r.a.Account, m.Key, m.Value}, r)
	}
}

func (s *Store) unindexAssetMetadata(r *assetRec) {
	for _, m := range r.a.Metadata {
		s.assetsByMeta.remove(metaKey{r.a.Account, m.Key, m.Value}, r)
	}
}

func (s *Store) addVersion(r *assetRec, v *versionRec) {
	t := r.versions[v.v.Status]
	if t == nil {
		t = btree.NewWithFreeListG(degree, versionLess, s.versionFree)
		r.versions[v.v.Status] = t
	}
	t.ReplaceOrInsert(v)
}

func removeVersion(r *assetRec, v *versionRec) {
	t := r.versions[v.v.Status]
	if t == nil {
		return
	}
	t.Delete(v)
	if t.Len() == 0 {
		delete(r.versions, v.v.Status)
	}
}

// WriteAsset implements storage.Storage. Every check is made before the
// first change, so a write that fails leaves no trace.
func (s *Store) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "write asset"); err != nil {
		return storage.Asset{}, err
	}
	a := w.Asset
	fail := func(err error) (storage.Asset, error) {
		return storage.Asset{}, fmt.Errorf("memstore: write asset %q: %w", a.ID, err)
	}
	if err := s.checkClaim(w.Completion); err != nil {
		return fail(err)
	}
	r := s.assets[a.ID]
	if a.Revision == 0 {
		if r != nil {
			return fail(storage.ErrAlreadyExists)
		}
	} else {
		if r == nil || r.a.Account != a.Account {
			return fail(storage.ErrNotFound)
		}
		if r.a.Revision != a.Revision {
			return fail(fmt.Errorf("expected revision %d, stored %d: %w", a.Revision, r.a.Revision, storage.ErrConflict))
		}
	}
	if err := s.checkVersions(w); err != nil {
		return fail(err)
	}
	for _, c := range w.PutContent {
		if c.Account != a.Account {
			return fail(fmt.Errorf("content %q is for account %q, not the asset's", c.Hash, c.Account))
		}
	}

	if r == nil {
		r = &assetRec{a: storedAsset(a), versions: make(map[string]*btree.BTreeG[*versionRec])}
		r.a.Revision = 1
		s.assets[a.ID] = r
		s.assetsByAccount.add(a.Account, r)
	} else {
		s.unindexAssetMetadata(r)
		// As with letters, an asset keeps the id, account and creation
		// time it was created with.
		r.a.Metadata = internMetadata(a.Metadata)
		r.a.ModifiedAt = a.ModifiedAt
		r.a.Doc = storage.KeepDocument(a.Doc)
		r.a.Revision++
	}
	s.indexAssetMetadata(r)
	for _, v := range w.PutVersions {
		if old := s.versions[v.ID]; old != nil {
			removeVersion(r, old)
			old.v = cloneVersion(v)
			s.addVersion(r, old)
			continue
		}
		vr := &versionRec{v: cloneVersion(v)}
		s.versions[v.ID] = vr
		s.addVersion(r, vr)
	}
	for _, id := range w.DeleteVersions {
		vr := s.versions[id]
		removeVersion(r, vr)
		delete(s.versions, id)
	}
	for _, c := range w.PutContent {
		s.putContent(c, true)
	}
	s.complete(w.Completion)
	return cloneAsset(r.a), nil
}

// checkVersions checks w's version changes against the stored versions as
// they would stand after w.PutVersions, without changing anything.
func (s *Store) checkVersions(w storage.AssetWrite) error {
	a := w.Asset
	for _, v := range w.PutVersions {
		if v.AssetID != a.ID || v.Account != a.Account {
			return fmt.Errorf("version %q is for asset %q of account %q, not the one written", v.ID, v.AssetID, v.Account)
		}
		if old := s.versions[v.ID]; old != nil && (old.v.AssetID != a.ID || old.v.Account != a.Account) {
			// Version ids are unique across assets: replacing would move
			// another asset's version.
			return fmt.Errorf("version %q: %w", v.ID, storage.ErrAlreadyExists)
		}
	}
	// gone tracks versions deleted earlier in this write, so deleting one
	// twice fails as it would in two writes.
	var gone map[string]bool
	for _, id := range w.DeleteVersions {
		exists := !gone[id] && (s.ownsVersion(a, id) || slices.ContainsFunc(w.PutVersions, func(v storage.AssetVersion) bool {
			return v.ID == id
		}))
		if !exists {
			return fmt.Errorf("delete version %q: %w", id, storage.ErrNotFound)
		}
		if gone == nil {
			gone = make(map[string]bool, len(w.DeleteVersions))
		}
		gone[id] = true
	}
	return nil
}

func (s *Store) ownsVersion(a storage.Asset, versionID string) bool {
	v := s.versions[versionID]
	return v != nil && v.v.AssetID == a.ID && v.v.Account == a.Account
}

// GetAsset implements storage.Storage.
func (s *Store) GetAsset(ctx context.Context, account, id string) (storage.Asset, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "get asset"); err != nil {
		return storage.Asset{}, err
	}
	r := s.assets[id]
	if r == nil || r.a.Account != account {
		return storage.Asset{}, fmt.Errorf("memstore: get asset %q: %w", id, storage.ErrNotFound)
	}
	return cloneAsset(r.a), nil
}

// ListAssets implements storage.Storage, walking the smallest of the indexes
// the query selects, as ListLetters does.
func (s *Store) ListAssets(ctx context.Context, q storage.AssetQuery) ([]storage.Asset, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "list assets"); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, nil
	}
	p := s.assetsByAccount.get(q.Account)
	for _, m := range q.Metadata {
		p = smaller(p, s.assetsByMeta.get(metaKey{q.Account, m.Key, m.Value}))
	}
	var before *assetRec
	if q.Before != "" {
		before = &assetRec{a: storage.Asset{ID: q.Before}}
	}
	out := make([]storage.Asset, 0, pageCap(q.Limit, p.len()))
	// Every index is per account: r is of q.Account.
	p.walk(assetLess, before, before != nil, func(r *assetRec) bool {
		if hasMetadata(r.a.Metadata, q.Metadata) {
			out = append(out, cloneAsset(r.a))
		}
		return len(out) < q.Limit
	})
	return out, nil
}

// DeleteAsset implements storage.Storage.
func (s *Store) DeleteAsset(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "delete asset"); err != nil {
		return err
	}
	if err := s.checkClaim(c); err != nil {
		return fmt.Errorf("memstore: delete asset %q: %w", id, err)
	}
	r := s.assets[id]
	if r == nil || r.a.Account != account {
		return fmt.Errorf("memstore: delete asset %q: %w", id, storage.ErrNotFound)
	}
	if r.a.Revision != revision {
		return fmt.Errorf("memstore: delete asset %q at revision %d, stored %d: %w", id, revision, r.a.Revision, storage.ErrConflict)
	}
	for _, t := range r.versions {
		t.Ascend(func(v *versionRec) bool {
			delete(s.versions, v.v.ID)
			return true
		})
	}
	s.unindexAssetMetadata(r)
	s.assetsByAccount.remove(account, r)
	delete(s.assets, id)
	s.complete(c)
	return nil
}

// GetAssetVersion implements storage.Storage.
func (s *Store) GetAssetVersion(ctx context.Context, account, assetID, versionID string) (storage.AssetVersion, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "get asset version"); err != nil {
		return storage.AssetVersion{}, err
	}
	v := s.versions[versionID]
	if v == nil || (assetID != "" && v.v.AssetID != assetID) || v.v.Account != account {
		return storage.AssetVersion{}, fmt.Errorf("memstore: get version %q of asset %q: %w", versionID, assetID, storage.ErrNotFound)
	}
	return cloneVersion(v.v), nil
}

// ListAssetVersions implements storage.Storage. It takes up to q.Limit
// versions from each status tree not excluded and keeps the newest q.Limit
// of them: O(statuses × (log n + page)).
func (s *Store) ListAssetVersions(ctx context.Context, q storage.VersionQuery) ([]storage.AssetVersion, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "list asset versions"); err != nil {
		return nil, err
	}
	r := s.assets[q.AssetID]
	if q.Limit <= 0 || r == nil || r.a.Account != q.Account {
		return nil, nil
	}
	var before *versionRec
	if q.Before != "" {
		before = &versionRec{v: storage.AssetVersion{ID: q.Before}}
	}
	var found []*versionRec
	for status, t := range r.versions {
		if slices.Contains(q.ExcludeStatuses, status) {
			continue
		}
		n := 0
		walk(t, versionLess, before, before != nil, func(v *versionRec) bool {
			found = append(found, v)
			n++
			return n < q.Limit
		})
	}
	slices.SortFunc(found, func(a, b *versionRec) int { return cmp.Compare(b.v.ID, a.v.ID) })
	found = found[:min(len(found), q.Limit)]
	out := make([]storage.AssetVersion, len(found))
	for i, v := range found {
		out[i] = cloneVersion(v.v)
	}
	return out, nil
}

// GetContent implements storage.Storage.
func (s *Store) GetContent(ctx context.Context, account, hash string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "get content"); err != nil {
		return nil, err
	}
	b, ok := s.content[contentKey{account, hash}]
	if !ok {
		return nil, fmt.Errorf("memstore: get content %q: %w", hash, storage.ErrNotFound)
	}
	return cloneBytes(b), nil
}
