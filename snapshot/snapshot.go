// Package snapshot keeps an account's records (assets and their versions,
// their content, letters, webhooks) and its clock as one JSON document,
// and writes them back into an account of a store: so a test suite builds
// a fixture once and starts each test from it, in an account of its own.
//
// A snapshot holds the records as the store keeps them, each record's
// document encoded as the service encodes it: it is for taking and
// restoring, not for writing by hand. Restored into another account, every
// id the records hold (of letters, assets, versions, events, webhooks) is
// replaced by a fresh one of the same kind and time, wherever it stands
// but in metadata and externalId, which are the caller's own: ids are
// unique across a store's accounts, so one snapshot restores into any
// number of accounts, and the new ids keep the order of the old. Restore
// returns the old ids mapped to the new. With keep, the ids stay, for a
// snapshot restored into the store it was taken from no longer holds
// (seeding a new server).
//
// Webhook deliveries are not kept: a restored webhook gets the events of
// changes made after the restore. Neither are idempotency keys.
//
// A fixture is a file of snapshots a server starts from (lettershop
// --seed, lettershoptest.WithFixture): ReadFixture and DecodeFixture read
// one and check it, naming what is wrong and where.
package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// Format names this form of snapshot; a snapshot of another is refused.
const Format = "lettershop-snapshot/1"

// Snapshot is an account's records and clock. Restore works out what it
// needs of a snapshot once, the first time: change no snapshot after
// restoring it (decode a copy instead).
type Snapshot struct {
	Format   string    `json:"format"`
	Account  string    `json:"account"`
	Clock    Clock     `json:"clock"`
	Assets   []Asset   `json:"assets"`
	Versions []Version `json:"versions"`
	Content  []Content `json:"content"`
	Letters  []Letter  `json:"letters"`
	Webhooks []Webhook `json:"webhooks"`

	prep     sync.Once
	prepared *prepared
	prepErr  error

	contentOnce sync.Once
	contentErr  error

	recordsOnce sync.Once
	recordsErr  error
}

// Clock is the account's clock when the snapshot was taken.
type Clock struct {
	Now    time.Time `json:"now"`
	Frozen bool      `json:"frozen"`
}

// Pair is one metadata pair, {"key": ..., "value": ...}.
type Pair = storage.Metadata

// Asset is a stored asset.
type Asset struct {
	ID         string          `json:"id"`
	Metadata   []Pair          `json:"metadata,omitempty"`
	CreatedAt  time.Time       `json:"createdAt"`
	ModifiedAt time.Time       `json:"modifiedAt"`
	Doc        json.RawMessage `json:"doc"`
}

// Version is a stored asset version.
type Version struct {
	ID         string          `json:"id"`
	AssetID    string          `json:"assetId"`
	Status     string          `json:"status"`
	CreatedAt  time.Time       `json:"createdAt"`
	ModifiedAt time.Time       `json:"modifiedAt"`
	Doc        json.RawMessage `json:"doc"`
}

// Content is stored content, by the hash of its bytes.
type Content struct {
	Hash string `json:"hash"`
	Data []byte `json:"data"`
}

// Letter is a stored letter; DueAt is when its next step falls due on the
// account's clock, absent when none is pending.
type Letter struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	ExternalID string          `json:"externalId,omitempty"`
	Metadata   []Pair          `json:"metadata,omitempty"`
	CreatedAt  time.Time       `json:"createdAt"`
	ModifiedAt time.Time       `json:"modifiedAt"`
	DueAt      *time.Time      `json:"dueAt,omitempty"`
	Doc        json.RawMessage `json:"doc"`
}

// Webhook is a stored webhook, with its secret.
type Webhook struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Description string    `json:"description,omitempty"`
	Metadata    []Pair    `json:"metadata,omitempty"`
	Status      string    `json:"status"`
	Secret      string    `json:"secret"`
	CreatedAt   time.Time `json:"createdAt"`
	ModifiedAt  time.Time `json:"modifiedAt"`
}

// pageSize is how many records Take reads a call.
const pageSize = 500

// Take reads the account's records from st. hashes returns the hashes of
// the content a document refers to (kind is "version" or "letter"); the
// content is kept once.
func Take(ctx context.Context, st storage.Storage, account string, clock Clock,
	hashes func(kind string, doc storage.Document) ([]string, error)) (*Snapshot, error) {
	s := &Snapshot{Format: Format, Account: account, Clock: clock,
		Assets: []Asset{}, Versions: []Version{}, Content: []Content{}, Letters: []Letter{}, Webhooks: []Webhook{}}
	seen := map[string]bool{}
	keep := func(kind string, doc storage.Document) (json.RawMessage, error) {
		hs, err := hashes(kind, doc)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			if h == "" || seen[h] {
				continue
			}
			seen[h] = true
			data, err := st.GetContent(ctx, account, h)
			if err != nil {
				return nil, fmt.Errorf("content %s: %w", h, err)
			}
			s.Content = append(s.Content, Content{Hash: h, Data: data})
		}
		return encode(doc)
	}
	for before := ""; ; {
		page, err := st.ListAssets(ctx, storage.AssetQuery{Account: account, Before: before, Limit: pageSize})
		if err != nil {
			return nil, err
		}
		for _, a := range page {
			doc, err := encode(a.Doc)
			if err != nil {
				return nil, err
			}
			s.Assets = append(s.Assets, Asset{ID: a.ID, Metadata: slices.Clone(a.Metadata), CreatedAt: a.CreatedAt, ModifiedAt: a.ModifiedAt, Doc: doc})
			for vBefore := ""; ; {
				vs, err := st.ListAssetVersions(ctx, storage.VersionQuery{Account: account, AssetID: a.ID, Before: vBefore, Limit: pageSize})
				if err != nil {
					return nil, err
				}
				for _, v := range vs {
					doc, err := keep("version", v.Doc)
					if err != nil {
						return nil, err
					}
					s.Versions = append(s.Versions, Version{ID: v.ID, AssetID: v.AssetID, Status: v.Status,
						CreatedAt: v.CreatedAt, ModifiedAt: v.ModifiedAt, Doc: doc})
				}
				if len(vs) < pageSize {
					break
				}
				vBefore = vs[len(vs)-1].ID
			}
		}
		if len(page) < pageSize {
			break
		}
		before = page[len(page)-1].ID
	}
	for before := ""; ; {
		page, err := st.ListLetters(ctx, storage.LetterQuery{Account: account, Before: before, Limit: pageSize})
		if err != nil {
			return nil, err
		}
		for _, l := range page {
			doc, err := keep("letter", l.Doc)
			if err != nil {
				return nil, err
			}
			out := Letter{ID: l.ID, Status: l.Status, ExternalID: l.ExternalID, Metadata: slices.Clone(l.Metadata),
				CreatedAt: l.CreatedAt, ModifiedAt: l.ModifiedAt, Doc: doc}
			if !l.DueAt.IsZero() {
				due := l.DueAt
				out.DueAt = &due
			}
			s.Letters = append(s.Letters, out)
		}
		if len(page) < pageSize {
			break
		}
		before = page[len(page)-1].ID
	}
	for before := ""; ; {
		page, err := st.ListWebhooks(ctx, storage.WebhookQuery{Account: account, Before: before, Limit: pageSize})
		if err != nil {
			return nil, err
		}
		for _, w := range page {
			s.Webhooks = append(s.Webhooks, Webhook{ID: w.ID, URL: w.URL, Events: slices.Clone(w.Events), Description: w.Description,
				Metadata: slices.Clone(w.Metadata), Status: w.Status, Secret: w.Secret, CreatedAt: w.CreatedAt, ModifiedAt: w.ModifiedAt})
		}
		if len(page) < pageSize {
			break
		}
		before = page[len(page)-1].ID
	}
	return s, nil
}

func encode(d storage.Document) (json.RawMessage, error) {
	b, err := storage.EncodeDocument(d)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(b), nil
}

// metadata is a record's copy of a snapshot's pairs: nil for none.
func metadata(p []Pair) []storage.Metadata {
	if len(p) == 0 {
		return nil
	}
	return slices.Clone(p)
}
