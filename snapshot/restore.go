package snapshot

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// NewID makes a fresh id of a kind (prefix) for the time at.
type NewID func(prefix string, at time.Time) string

// Restore writes the snapshot's records into account of st, and returns
// the snapshot's ids mapped to those they were written with (each to
// itself with keep). newID makes fresh ids; records are written as the
// snapshot has them otherwise. A snapshot that does not check is refused
// before anything is written, with an error wrapping ErrInvalid.
//
// A store that is a storage.Restorer gets every record in one call, which
// writes all or none; it may keep the snapshot's documents and content
// rather than copy them, which is one more reason to change no snapshot
// after restoring it. Another store gets one write per asset (with its
// versions), letter and webhook: a write that fails leaves those before
// it written.
func (s *Snapshot) Restore(ctx context.Context, st storage.Storage, account string, newID NewID, keep bool) (map[string]string, error) {
	p, err := s.prepare()
	if err != nil {
		return nil, err
	}
	ids, m := p.fresh(newID, keep)
	r := s.records(p, account, ids, keep)
	if rs, ok := st.(storage.Restorer); ok {
		if err := rs.RestoreRecords(ctx, r); err != nil {
			return nil, err
		}
		return m, nil
	}
	if err := writeEach(ctx, st, r); err != nil {
		return nil, err
	}
	return m, nil
}

// Empty reports whether the account of st holds no letters, assets nor
// webhooks, as an account a snapshot restores into must: one read of each.
func Empty(ctx context.Context, st storage.Storage, account string) (bool, error) {
	ls, err := st.ListLetters(ctx, storage.LetterQuery{Account: account, Limit: 1, Brief: true})
	if err != nil {
		return false, err
	}
	as, err := st.ListAssets(ctx, storage.AssetQuery{Account: account, Limit: 1})
	if err != nil {
		return false, err
	}
	ws, err := st.ListWebhooks(ctx, storage.WebhookQuery{Account: account, Limit: 1})
	if err != nil {
		return false, err
	}
	return len(ls)+len(as)+len(ws) == 0, nil
}

// fresh returns the ids to write, in the order of p.ids, and the map of
// the old to them.
func (p *prepared) fresh(newID NewID, keep bool) ([]string, map[string]string) {
	ids := p.ids
	if !keep {
		// Made in the order of the times and ids they replace, so that
		// the ids of one instant, made one after another by a monotonic
		// source, keep the order of those they replace: lists show the
		// copies in the order of the originals.
		order := make([]int, len(p.ids))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			return cmp.Or(p.at[a].Compare(p.at[b]), strings.Compare(p.ids[a], p.ids[b]))
		})
		ids = make([]string, len(p.ids))
		for _, i := range order {
			ids[i] = newID(p.ids[i][:prefixLen(p.ids[i])], p.at[i])
		}
	}
	m := make(map[string]string, len(ids))
	for i, id := range p.ids {
		m[id] = ids[i]
	}
	return ids, m
}

// prefixLen is the length of id's prefix, its underscore included.
func prefixLen(id string) int {
	for i := range len(id) {
		if id[i] == '_' {
			return i + 1
		}
	}
	return 0
}

// records are the snapshot's records for account, with ids.
func (s *Snapshot) records(p *prepared, account string, ids []string, keep bool) storage.AccountRecords {
	w := newWriter(p, ids, keep)
	r := storage.AccountRecords{
		Account:  account,
		Assets:   make([]storage.Asset, len(s.Assets)),
		Versions: make([]storage.AssetVersion, len(s.Versions)),
		Content:  make([]storage.Content, len(s.Content)),
		Letters:  make([]storage.Letter, len(s.Letters)),
		Webhooks: make([]storage.Webhook, len(s.Webhooks)),
	}
	for i, a := range s.Assets {
		r.Assets[i] = storage.Asset{ID: w.id(a.ID), Account: account, Metadata: p.assetMeta[i],
			CreatedAt: a.CreatedAt, ModifiedAt: a.ModifiedAt, Doc: w.doc(a.Doc, p.assetDocs[i])}
	}
	for i, v := range s.Versions {
		r.Versions[i] = storage.AssetVersion{ID: w.id(v.ID), Account: account, AssetID: w.id(v.AssetID),
			Status: v.Status, CreatedAt: v.CreatedAt, ModifiedAt: v.ModifiedAt, Doc: w.doc(v.Doc, p.versionDocs[i])}
	}
	for i, c := range s.Content {
		r.Content[i] = storage.Content{Account: account, Hash: c.Hash, Data: c.Data}
	}
	for i, l := range s.Letters {
		out := storage.Letter{ID: w.id(l.ID), Account: account, Status: l.Status, ExternalID: l.ExternalID,
			Metadata: p.letterMeta[i], CreatedAt: l.CreatedAt, ModifiedAt: l.ModifiedAt, Doc: w.doc(l.Doc, p.letterDocs[i])}
		if l.DueAt != nil {
			out.DueAt = *l.DueAt
		}
		r.Letters[i] = out
	}
	for i, h := range s.Webhooks {
		r.Webhooks[i] = storage.Webhook{ID: w.id(h.ID), Account: account, URL: h.URL, Events: h.Events,
			Description: h.Description, Metadata: p.webhookMeta[i], Status: h.Status, Secret: h.Secret,
			CreatedAt: h.CreatedAt, ModifiedAt: h.ModifiedAt}
	}
	return r
}

// writer writes the fresh ids into the documents: each document into a
// copy of itself, the fresh ids over the old where they stand (they are
// as long, as ULIDs of one kind are), and every copy in one allocation.
// A document that holds no id is not copied, nor any with keep: the store
// reads it, and nothing changes it.
type writer struct {
	p     *prepared
	ids   []string
	keep  bool
	arena []byte
	// same says every fresh id is as long as the one it replaces.
	same bool
}

func newWriter(p *prepared, ids []string, keep bool) *writer {
	w := &writer{p: p, ids: ids, keep: keep, same: true}
	if keep {
		return w
	}
	for i, id := range ids {
		if len(id) != len(p.ids[i]) {
			w.same = false
			break
		}
	}
	if w.same {
		w.arena = make([]byte, 0, p.docBytes)
	}
	return w
}

// id is the id a record of the snapshot is written with.
func (w *writer) id(old string) string {
	if w.keep {
		return old
	}
	i, _ := w.p.index(old)
	return w.ids[i]
}

// doc is the document to write for doc, whose ids stand at spans.
func (w *writer) doc(doc json.RawMessage, spans []span) storage.Encoded {
	if w.keep || len(spans) == 0 {
		return storage.Encoded(doc)
	}
	if !w.same {
		out := make([]byte, 0, len(doc))
		last := 0
		for _, x := range spans {
			out = append(append(out, doc[last:x.at]...), w.ids[x.id]...)
			last = x.end
		}
		return append(out, doc[last:]...)
	}
	start := len(w.arena)
	w.arena = append(w.arena, doc...)
	out := w.arena[start:len(w.arena):len(w.arena)]
	for _, x := range spans {
		copy(out[x.at:x.end], w.ids[x.id])
	}
	return storage.Encoded(out)
}

// index is where id is in p.ids.
func (p *prepared) index(id string) (int, bool) {
	lo, hi := 0, len(p.ids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.ids[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(p.ids) && p.ids[lo] == id
}

// writeEach writes r one record at a time, for a store that is no
// storage.Restorer: each asset with its versions (the first with the
// content, which a store keeps with an asset), then the letters and the
// webhooks, oldest first, as they were made.
func writeEach(ctx context.Context, st storage.Storage, r storage.AccountRecords) error {
	if len(r.Content) > 0 && len(r.Assets) == 0 {
		return errors.New("this store keeps content with an asset, and the snapshot has content but no asset: restore it into a store that is a storage.Restorer")
	}
	versions := map[string][]storage.AssetVersion{}
	for _, v := range r.Versions {
		versions[v.AssetID] = append(versions[v.AssetID], v)
	}
	for i, a := range r.Assets {
		w := storage.AssetWrite{Asset: a, PutVersions: versions[a.ID]}
		if i == 0 {
			w.PutContent = r.Content
		}
		if _, err := st.WriteAsset(ctx, w); err != nil {
			return fmt.Errorf("asset %s: %w", a.ID, err)
		}
	}
	for i := len(r.Letters) - 1; i >= 0; i-- {
		if _, err := st.CreateLetter(ctx, r.Letters[i], nil); err != nil {
			return fmt.Errorf("letter %s: %w", r.Letters[i].ID, err)
		}
	}
	for i := len(r.Webhooks) - 1; i >= 0; i-- {
		if _, err := st.WriteWebhook(ctx, r.Webhooks[i], 0, nil); err != nil {
			return fmt.Errorf("webhook %s: %w", r.Webhooks[i].ID, err)
		}
	}
	return nil
}

// Earliest is the earliest time on the account's clock a snapshot's
// letters are due at, the zero time when none is: what a caller that
// schedules letters needs to know of a restore.
func (s *Snapshot) Earliest() time.Time {
	var t time.Time
	for _, l := range s.Letters {
		if l.DueAt != nil && (t.IsZero() || l.DueAt.Before(t)) {
			t = *l.DueAt
		}
	}
	return t
}
