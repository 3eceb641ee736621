package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/lettershop/lettershop/storage"
)

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

// span is where an id stands in a document: bytes at to end, the id of
// index id in prepared.ids.
type span struct {
	at, end, id int
}

// prepared is what Restore needs of a snapshot, worked out once, so that
// a restore only makes fresh ids and writes them over the old: every id
// the snapshot holds, in order, with the time of each; where each stands
// in each document; the records' metadata in the store's form.
type prepared struct {
	ids []string
	at  []time.Time
	// assetDocs, versionDocs and letterDocs hold the spans of each
	// record's document; docBytes is the length of the documents that
	// have any.
	assetDocs, versionDocs, letterDocs [][]span
	docBytes                           int
	assetMeta, letterMeta, webhookMeta [][]storage.Metadata
}

// Check reports what is wrong with the snapshot, as a *FieldError, before
// anything is written; Restore checks too.
func (s *Snapshot) Check() error {
	_, err := s.prepare()
	return err
}

// prepare checks the snapshot and works out what a restore needs, once.
func (s *Snapshot) prepare() (*prepared, error) {
	s.prep.Do(func() { s.prepared, s.prepErr = s.check() })
	return s.prepared, s.prepErr
}

// formatName is the name of every form of snapshot: Format is its
// version 1.
const formatName = "lettershop-snapshot/"

func (s *Snapshot) check() (*prepared, error) {
	switch {
	case s.Format == Format:
	case strings.HasPrefix(s.Format, formatName):
		return nil, invalid("format", "%q is a form of snapshot this lettershop does not read; it reads %q", s.Format, Format)
	default:
		return nil, invalid("format", "must be %q, got %q: not a lettershop snapshot", Format, s.Format)
	}
	if s.Clock.Now.IsZero() {
		return nil, invalid("clock.now", "is required")
	}
	if err := s.checkTimes(); err != nil {
		return nil, err
	}
	p := &prepared{}
	ids := map[string]bool{}
	// found are the ids the documents hold: the records' own, and the ids
	// of events. docs are where they stand in each document, by name until
	// the ids are numbered.
	found := map[string]bool{}
	var docs [][]idAt
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
	docSpans := func(field string, doc json.RawMessage) error {
		if len(doc) == 0 || doc[0] != '{' || !json.Valid(doc) {
			return invalid(field, "must be a JSON object")
		}
		sp := findIDs(doc)
		for _, x := range sp {
			found[x.id] = true
		}
		if len(sp) > 0 {
			p.docBytes += len(doc)
		}
		docs = append(docs, sp)
		return nil
	}
	assets := map[string]bool{}
	for i, a := range s.Assets {
		if err := own(fmt.Sprintf("assets[%d].id", i), a.ID, "ast_"); err != nil {
			return nil, err
		}
		assets[a.ID] = true
		if err := docSpans(fmt.Sprintf("assets[%d].doc", i), a.Doc); err != nil {
			return nil, err
		}
		p.assetMeta = append(p.assetMeta, metadata(a.Metadata))
	}
	for i, v := range s.Versions {
		if err := own(fmt.Sprintf("versions[%d].id", i), v.ID, "astv_"); err != nil {
			return nil, err
		}
		if !assets[v.AssetID] {
			return nil, invalid(fmt.Sprintf("versions[%d].assetId", i), "names no asset of the snapshot: %q", v.AssetID)
		}
		if v.Status == "" {
			return nil, invalid(fmt.Sprintf("versions[%d].status", i), "is required")
		}
		if err := docSpans(fmt.Sprintf("versions[%d].doc", i), v.Doc); err != nil {
			return nil, err
		}
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
		if err := docSpans(fmt.Sprintf("letters[%d].doc", i), l.Doc); err != nil {
			return nil, err
		}
		p.letterMeta = append(p.letterMeta, metadata(l.Metadata))
	}
	for i, w := range s.Webhooks {
		if err := own(fmt.Sprintf("webhooks[%d].id", i), w.ID, "wh_"); err != nil {
			return nil, err
		}
		if w.URL == "" || w.Secret == "" {
			return nil, invalid(fmt.Sprintf("webhooks[%d]", i), "url and secret are required")
		}
		p.webhookMeta = append(p.webhookMeta, metadata(w.Metadata))
	}
	for id := range found {
		ids[id] = true
	}
	for id := range ids {
		p.ids = append(p.ids, id)
	}
	// Sorted, so that fresh ids made in this order keep the old ones'.
	slices.Sort(p.ids)
	index := make(map[string]int, len(p.ids))
	p.at = make([]time.Time, len(p.ids))
	for i, id := range p.ids {
		index[id] = i
		p.at[i] = idTime(id)
	}
	number := func(sp []idAt) []span {
		if len(sp) == 0 {
			return nil
		}
		out := make([]span, len(sp))
		for i, x := range sp {
			out[i] = span{at: x.at, end: x.end, id: index[x.id]}
		}
		return out
	}
	n := 0
	for range s.Assets {
		p.assetDocs = append(p.assetDocs, number(docs[n]))
		n++
	}
	for range s.Versions {
		p.versionDocs = append(p.versionDocs, number(docs[n]))
		n++
	}
	for range s.Letters {
		p.letterDocs = append(p.letterDocs, number(docs[n]))
		n++
	}
	return p, nil
}

// MinTime is the earliest time a snapshot's records hold: an id's time
// counts milliseconds from 1970.
var (
	MinTime = time.Unix(0, 0).UTC()
	// maxDue is the latest time a letter's step may fall due: the last
	// an event's id has.
	maxDue = ulid.Time(ulid.MaxTime())
)

// checkTimes checks each record's times: made no earlier than MinTime
// and no later than it was last changed, neither after the snapshot's
// clock; a letter due no earlier than it was made, at a time an event's
// id can have.
func (s *Snapshot) checkTimes() error {
	now := s.Clock.Now
	check := func(at string, created, modified time.Time) error {
		switch {
		case created.Before(MinTime) || created.After(now):
			return invalid(at+".createdAt", "must be between %s and the snapshot's clock.now", MinTime.Format(time.RFC3339))
		case modified.Before(created) || modified.After(now):
			return invalid(at+".modifiedAt", "must be between the record's createdAt and the snapshot's clock.now")
		}
		return nil
	}
	var err error
	for i := 0; err == nil && i < len(s.Assets); i++ {
		err = check(fmt.Sprintf("assets[%d]", i), s.Assets[i].CreatedAt, s.Assets[i].ModifiedAt)
	}
	for i := 0; err == nil && i < len(s.Versions); i++ {
		err = check(fmt.Sprintf("versions[%d]", i), s.Versions[i].CreatedAt, s.Versions[i].ModifiedAt)
	}
	for i := 0; err == nil && i < len(s.Letters); i++ {
		l := s.Letters[i]
		err = check(fmt.Sprintf("letters[%d]", i), l.CreatedAt, l.ModifiedAt)
		if err == nil && l.DueAt != nil && (l.DueAt.Before(l.CreatedAt) || l.DueAt.After(maxDue)) {
			err = invalid(fmt.Sprintf("letters[%d].dueAt", i), "must be between the letter's createdAt and %s", maxDue.Format(time.RFC3339))
		}
	}
	for i := 0; err == nil && i < len(s.Webhooks); i++ {
		err = check(fmt.Sprintf("webhooks[%d]", i), s.Webhooks[i].CreatedAt, s.Webhooks[i].ModifiedAt)
	}
	return err
}

// idTime is the time of the ULID in id (prefix_ULID), the zero time when
// it has none.
func idTime(id string) time.Time {
	u, err := ulid.ParseStrict(strings.ToUpper(id[strings.IndexByte(id, '_')+1:]))
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time())
}

// validID reports whether id is prefix and a ULID in lower case. A ULID's
// first character is at most 7: past it the time overflows 48 bits.
func validID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	return ok && len(rest) == idLen && rest[0] <= '7' &&
		strings.IndexFunc(rest, func(r rune) bool { return r >= 0x80 || !ulidChar(byte(r)) }) < 0
}

func ulidChar(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' && c != 'i' && c != 'l' && c != 'o' && c != 'u'
}

func alnum(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// idAt is an id found in a document, at bytes at to end.
type idAt struct {
	at, end int
	id      string
}

// findIDs returns where ids stand in b: a known prefix and a ULID, not
// inside a longer word.
func findIDs(b []byte) []idAt {
	var out []idAt
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
				out = append(out, idAt{i, end, id})
				i = end - 1
			}
			break
		}
	}
	return out
}

// CheckContent reports, as a *FieldError, a version or letter whose
// document refers to content the snapshot does not hold, or that refs (the
// hashes function Take is given) can not read, and content whose hash is
// not its data's: a restored account then holds every byte its records
// name. Like Check, it checks a snapshot once, the first time; later calls
// answer as the first did.
func (s *Snapshot) CheckContent(refs func(kind string, doc storage.Document) ([]string, error)) error {
	s.contentOnce.Do(func() { s.contentErr = s.checkContent(refs) })
	return s.contentErr
}

func (s *Snapshot) checkContent(refs func(kind string, doc storage.Document) ([]string, error)) error {
	held := make(map[string]bool, len(s.Content))
	for i, c := range s.Content {
		if sum := sha256.Sum256(c.Data); hex.EncodeToString(sum[:]) != c.Hash {
			return invalid(fmt.Sprintf("content[%d].hash", i), "is not the SHA-256 of its data")
		}
		held[c.Hash] = true
	}
	check := func(field, kind string, doc json.RawMessage) error {
		hs, err := refs(kind, storage.Encoded(doc))
		if err != nil {
			return invalid(field, "can not be read: %v", err)
		}
		for _, h := range hs {
			if !held[h] {
				return invalid(field, "refers to content %s, which the snapshot does not hold", h)
			}
		}
		return nil
	}
	for i, v := range s.Versions {
		if err := check(fmt.Sprintf("versions[%d].doc", i), "version", v.Doc); err != nil {
			return err
		}
	}
	for i, l := range s.Letters {
		if err := check(fmt.Sprintf("letters[%d].doc", i), "letter", l.Doc); err != nil {
			return err
		}
	}
	return nil
}

// CheckRecords reports what check, the caller's check of what the
// records hold (as CheckContent's refs, what they mean rather than their
// form), finds wrong with the snapshot. Like CheckContent, it checks a
// snapshot once, the first time, so that restoring one snapshot into many
// accounts checks it once; later calls answer as the first did.
func (s *Snapshot) CheckRecords(check func(*Snapshot) error) error {
	s.recordsOnce.Do(func() { s.recordsErr = check(s) })
	return s.recordsErr
}
