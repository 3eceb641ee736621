package memstore

import (
	"bytes"
	"context"
	"fmt"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/storage"
)

var _ storage.Restorer = (*Store)(nil)

// RestoreRecords implements storage.Restorer: every check first, then
// every record, under one hold of the lock. The documents and content are
// kept as given, not copied: the caller gave them up.
func (s *Store) RestoreRecords(ctx context.Context, r storage.AccountRecords) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "restore"); err != nil {
		return err
	}
	if err := s.checkRestore(r); err != nil {
		return fmt.Errorf("memstore: restore into %q: %w", r.Account, err)
	}
	assets := make(map[string]*assetRec, len(r.Assets))
	for _, a := range r.Assets {
		doc := a.Doc
		a.Doc = nil
		a = storedAsset(a)
		a.Doc, a.Revision = letterpack.OwnDocument(doc), 1
		ar := &assetRec{a: a, versions: make(map[string]*btree.BTreeG[*versionRec])}
		s.assets[a.ID] = ar
		s.assetsByAccount.add(a.Account, ar)
		s.indexAssetMetadata(ar)
		assets[a.ID] = ar
	}
	for _, v := range r.Versions {
		v.Doc = letterpack.OwnDocument(v.Doc)
		vr := &versionRec{v: v}
		s.versions[v.ID] = vr
		s.addVersion(assets[v.AssetID], vr)
	}
	for _, c := range r.Content {
		s.putContent(c, false)
	}
	for _, l := range r.Letters {
		doc := l.Doc
		l.Doc, l.Notices, l.Revision = nil, nil, 1
		lr := s.newLetterRec(l)
		lr.doc = letterpack.OwnDocument(doc)
		s.letters[lr.id] = lr
		s.lettersByAccount.add(lr.account, lr)
		s.indexLetter(lr)
	}
	wh := &s.hooks
	for _, w := range r.Webhooks {
		w.Metadata = internMetadata(w.Metadata)
		w.Revision = 1
		wr := &webhookRec{w: w}
		wh.byID[w.ID] = wr
		t := wh.byAccount[w.Account]
		if t == nil {
			t = btree.NewWithFreeListG(degree, webhookLess, wh.free)
			wh.byAccount[w.Account] = t
		}
		t.ReplaceOrInsert(wr)
	}
	return nil
}

// checkRestore finds what RestoreRecords would refuse in r, before
// anything is written.
func (s *Store) checkRestore(r storage.AccountRecords) error {
	ids := make(map[string]bool, len(r.Assets)+len(r.Versions)+len(r.Letters)+len(r.Webhooks))
	assets := make(map[string]bool, len(r.Assets))
	free := func(kind, id, account string, taken bool) error {
		if account != r.Account {
			return fmt.Errorf("%s %q is of account %q", kind, id, account)
		}
		if taken || ids[id] {
			return fmt.Errorf("%s %q: %w", kind, id, storage.ErrAlreadyExists)
		}
		ids[id] = true
		return nil
	}
	for _, a := range r.Assets {
		if err := free("asset", a.ID, a.Account, s.assets[a.ID] != nil); err != nil {
			return err
		}
		assets[a.ID] = true
	}
	for _, v := range r.Versions {
		if err := free("version", v.ID, v.Account, s.versions[v.ID] != nil); err != nil {
			return err
		}
		if !assets[v.AssetID] {
			return fmt.Errorf("version %q names asset %q, which is not restored with it", v.ID, v.AssetID)
		}
	}
	for _, c := range r.Content {
		if c.Account != r.Account {
			return fmt.Errorf("content %q is of account %q", c.Hash, c.Account)
		}
	}
	for _, l := range r.Letters {
		if err := free("letter", l.ID, l.Account, s.letters[l.ID] != nil); err != nil {
			return err
		}
	}
	for _, w := range r.Webhooks {
		if err := free("webhook", w.ID, w.Account, s.hooks.byID[w.ID] != nil); err != nil {
			return err
		}
	}
	return nil
}

// putContent stores c unless its account has content of that hash. Equal
// content is kept once for every account that has it: a fixture restored
// into a thousand accounts holds its fonts and images once. lent says
// c.Data is the caller's, to be copied if it is kept.
func (s *Store) putContent(c storage.Content, lent bool) {
	k := contentKey{c.Account, c.Hash}
	if _, ok := s.content[k]; ok {
		return
	}
	if s.contentOf == nil {
		s.contentHolders, s.contentOf = make(map[string]int), make(map[string][]string)
	}
	s.contentHolders[c.Hash]++
	s.contentOf[c.Account] = append(s.contentOf[c.Account], c.Hash)
	if shared, ok := s.contentByHash[c.Hash]; ok && bytes.Equal(shared, c.Data) {
		s.content[k] = shared
		return
	}
	data := c.Data
	if lent {
		data = cloneBytes(data)
	}
	if _, ok := s.contentByHash[c.Hash]; !ok {
		s.contentByHash[c.Hash] = data
	}
	s.content[k] = data
}
