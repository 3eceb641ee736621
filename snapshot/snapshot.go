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
package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

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
}

// Clock is the account's clock when the snapshot was taken.
type Clock struct {
	Now    time.Time `json:"now"`
	Frozen bool      `json:"frozen"`
}

// Pair is one metadata pair.
type Pair struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

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
			s.Assets = append(s.Assets, Asset{ID: a.ID, Metadata: pairs(a.Metadata), CreatedAt: a.CreatedAt, ModifiedAt: a.ModifiedAt, Doc: doc})
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
			out := Letter{ID: l.ID, Status: l.Status, ExternalID: l.ExternalID, Metadata: pairs(l.Metadata),
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
				Metadata: pairs(w.Metadata), Status: w.Status, Secret: w.Secret, CreatedAt: w.CreatedAt, ModifiedAt: w.ModifiedAt})
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

func pairs(m []storage.Metadata) []Pair {
	if len(m) == 0 {
		return nil
	}
	out := make([]Pair, len(m))
	for i, p := range m {
		out[i] = Pair(p)
	}
	return out
}

func metadata(p []Pair) []storage.Metadata {
	if len(p) == 0 {
		return nil
	}
	out := make([]storage.Metadata, len(p))
	for i, m := range p {
		out[i] = storage.Metadata(m)
	}
	return out
}

// ErrInvalid is wrapped by the error of a snapshot Restore refuses before
// writing anything; FieldError names where.
var ErrInvalid = errors.New("invalid snapshot")

// FieldError is a snapshot refused, naming the field at fault (a JSON
// path: letters[3].id).
type FieldError struct {
	Field, Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// prefixes are the kinds of id a snapshot's records hold and Restore
// replaces.
var prefixes = []string{"ltr_", "astv_", "ast_", "evt_", "wh_", "dlv_"}

// idLen is the length of a ULID as text.
const idLen = 26

// span is where an id stands in a document.
type span struct {
	at, end int
	id      string
}

// prepared is what Restore needs of a snapshot, worked out once: every id
// it holds, in order, and where each stands in each document.
type prepared struct {
	ids                                []string
	assetDocs, versionDocs, letterDocs [][]span
	versionsOf                         map[string][]int
}

// Check reports what is wrong with the snapshot, as a *FieldError, before
// anything is written; Restore checks too.
func (s *Snapshot) Check() error {
	_, err := s.prepare()
	return err
}

// prepare checks the snapshot and works out its ids, once.
func (s *Snapshot) prepare() (*prepared, error) {
	s.prep.Do(func() { s.prepared, s.prepErr = s.check() })
	return s.prepared, s.prepErr
}

func (s *Snapshot) check() (*prepared, error) {
	if s.Format != Format {
		return nil, invalid("format", "must be %q, got %q", Format, s.Format)
	}
	p := &prepared{versionsOf: map[string][]int{}}
	ids := map[string]bool{}
	// found are the ids the documents hold: the records' own, and the ids
	// of events.
	found := map[string]bool{}
	own := func(field, id, prefix string) error {
		if !validID(id, prefix) {
			return invalid(field, "must be %s followed by a ULID, got %q", prefix, id)
		}
		if ids[id] {
			return invalid(field, "%s is in the snapshot twice", id)
		}
		ids[id] = true
		return nil
	}
	docSpans := func(field string, doc json.RawMessage) ([]span, error) {
		if !json.Valid(doc) || len(doc) == 0 || doc[0] != '{' {
			return nil, invalid(field, "must be a JSON object")
		}
		sp := findIDs(doc)
		for _, x := range sp {
			found[x.id] = true
		}
		return sp, nil
	}
	assets := map[string]bool{}
	for i, a := range s.Assets {
		if err := own(fmt.Sprintf("assets[%d].id", i), a.ID, "ast_"); err != nil {
			return nil, err
		}
		assets[a.ID] = true
		sp, err := docSpans(fmt.Sprintf("assets[%d].doc", i), a.Doc)
		if err != nil {
			return nil, err
		}
		p.assetDocs = append(p.assetDocs, sp)
	}
	for i, v := range s.Versions {
		if err := own(fmt.Sprintf("versions[%d].id", i), v.ID, "astv_"); err != nil {
			return nil, err
		}
		if !assets[v.AssetID] {
			return nil, invalid(fmt.Sprintf("versions[%d].assetId", i), "names no asset of the snapshot: %q", v.AssetID)
		}
		p.versionsOf[v.AssetID] = append(p.versionsOf[v.AssetID], i)
		sp, err := docSpans(fmt.Sprintf("versions[%d].doc", i), v.Doc)
		if err != nil {
			return nil, err
		}
		p.versionDocs = append(p.versionDocs, sp)
	}
	if len(s.Content) > 0 && len(s.Assets) == 0 {
		return nil, invalid("content", "content is restored with an asset; the snapshot has none")
	}
	for i, c := range s.Content {
		if c.Hash == "" {
			return nil, invalid(fmt.Sprintf("content[%d].hash", i), "is required")
		}
	}
	for i, l := range s.Letters {
		if err := own(fmt.Sprintf("letters[%d].id", i), l.ID, "ltr_"); err != nil {
			return nil, err
		}
		if l.Status == "" {
			return nil, invalid(fmt.Sprintf("letters[%d].status", i), "is required")
		}
		sp, err := docSpans(fmt.Sprintf("letters[%d].doc", i), l.Doc)
		if err != nil {
			return nil, err
		}
		p.letterDocs = append(p.letterDocs, sp)
	}
	for i, w := range s.Webhooks {
		if err := own(fmt.Sprintf("webhooks[%d].id", i), w.ID, "wh_"); err != nil {
			return nil, err
		}
		if w.URL == "" || w.Secret == "" {
			return nil, invalid(fmt.Sprintf("webhooks[%d]", i), "url and secret are required")
		}
	}
	for id := range found {
		ids[id] = true
	}
	for id := range ids {
		p.ids = append(p.ids, id)
	}
	// Sorted, so that fresh ids made in this order keep the old ones'.
	slices.Sort(p.ids)
	return p, nil
}

// validID reports whether id is prefix and a ULID in lower case.
func validID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	return ok && len(rest) == idLen && strings.IndexFunc(rest, func(r rune) bool { return !ulidChar(byte(r)) }) < 0
}

func ulidChar(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' && c != 'i' && c != 'l' && c != 'o' && c != 'u'
}

func alnum(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// findIDs returns where ids stand in b: a known prefix and a ULID, not
// inside a longer word.
func findIDs(b []byte) []span {
	var out []span
	for i := 0; i < len(b); i++ {
		if i > 0 && (alnum(b[i-1]) || b[i-1] == '_') {
			continue
		}
		for _, p := range prefixes {
			end := i + len(p) + idLen
			if end > len(b) || string(b[i:i+len(p)]) != p {
				continue
			}
			if end < len(b) && (alnum(b[end]) || b[end] == '_') {
				continue
			}
			if id := string(b[i:end]); validID(id, p) {
				out = append(out, span{at: i, end: end, id: id})
				i = end - 1
			}
			break
		}
	}
	return out
}

// NewID makes a fresh id of a kind (prefix) for the time at.
type NewID func(prefix string, at time.Time) string

// Restore writes the snapshot's records into account of st, and returns
// the snapshot's ids mapped to those they were written with (each to
// itself with keep). newID makes fresh ids; records are written as the
// snapshot has them otherwise. A snapshot that does not check is refused
// before anything is written, with an error wrapping ErrInvalid.
func (s *Snapshot) Restore(ctx context.Context, st storage.Storage, account string, newID NewID, keep bool) (map[string]string, error) {
	p, err := s.prepare()
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(p.ids))
	for _, id := range p.ids {
		m[id] = id
		if !keep {
			m[id] = fresh(id, newID)
		}
	}
	rewrite := func(doc json.RawMessage, spans []span) storage.Encoded {
		if keep || len(spans) == 0 {
			return storage.Encoded(slices.Clone(doc))
		}
		out := make([]byte, 0, len(doc))
		last := 0
		for _, x := range spans {
			out = append(append(out, doc[last:x.at]...), m[x.id]...)
			last = x.end
		}
		return append(out, doc[last:]...)
	}
	for i, a := range s.Assets {
		w := storage.AssetWrite{Asset: storage.Asset{ID: m[a.ID], Account: account, Metadata: metadata(a.Metadata),
			CreatedAt: a.CreatedAt, ModifiedAt: a.ModifiedAt, Doc: rewrite(a.Doc, p.assetDocs[i])}}
		for _, vi := range p.versionsOf[a.ID] {
			v := s.Versions[vi]
			w.PutVersions = append(w.PutVersions, storage.AssetVersion{ID: m[v.ID], Account: account, AssetID: m[v.AssetID],
				Status: v.Status, CreatedAt: v.CreatedAt, ModifiedAt: v.ModifiedAt, Doc: rewrite(v.Doc, p.versionDocs[vi])})
		}
		if i == 0 {
			for _, c := range s.Content {
				w.PutContent = append(w.PutContent, storage.Content{Account: account, Hash: c.Hash, Data: c.Data})
			}
		}
		if _, err := st.WriteAsset(ctx, w); err != nil {
			return nil, fmt.Errorf("asset %s: %w", a.ID, err)
		}
	}
	// Oldest first, as they were made.
	for i := len(s.Letters) - 1; i >= 0; i-- {
		l := s.Letters[i]
		r := storage.Letter{ID: m[l.ID], Account: account, Status: l.Status, ExternalID: l.ExternalID, Metadata: metadata(l.Metadata),
			CreatedAt: l.CreatedAt, ModifiedAt: l.ModifiedAt, Doc: rewrite(l.Doc, p.letterDocs[i])}
		if l.DueAt != nil {
			r.DueAt = *l.DueAt
		}
		if _, err := st.CreateLetter(ctx, r, nil); err != nil {
			return nil, fmt.Errorf("letter %s: %w", l.ID, err)
		}
	}
	for i := len(s.Webhooks) - 1; i >= 0; i-- {
		w := s.Webhooks[i]
		if _, err := st.WriteWebhook(ctx, storage.Webhook{ID: m[w.ID], Account: account, URL: w.URL, Events: slices.Clone(w.Events),
			Description: w.Description, Metadata: metadata(w.Metadata), Status: w.Status, Secret: w.Secret,
			CreatedAt: w.CreatedAt, ModifiedAt: w.ModifiedAt}, 0, nil); err != nil {
			return nil, fmt.Errorf("webhook %s: %w", w.ID, err)
		}
	}
	return m, nil
}

// fresh is a new id of id's kind and time.
func fresh(id string, newID NewID) string {
	i := strings.IndexByte(id, '_') + 1
	u, err := ulid.ParseStrict(strings.ToUpper(id[i:]))
	at := time.Time{}
	if err == nil {
		at = ulid.Time(u.Time())
	}
	return newID(id[:i], at)
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
