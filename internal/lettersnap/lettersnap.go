// Package lettersnap keeps a stored letter as an answer showed it, to show
// it again. An idempotent request's answer is replayed, byte for byte, for
// a day; kept as the bytes it was sent as, a letter's answer cost about
// 2.7 KB per letter created, four times what the letter itself costs a
// store that keeps it in memory. A Snapshot keeps instead what the answer
// was made from, the letter's record as it then was: the record's own
// fields packed (package pack), its metadata
// interned as a store that keeps records in memory interns it, and its
// document in the form such a store keeps, which a snapshot made as the
// letter is written shares with the store. A store that serializes gets
// the snapshot's own encoding (AppendEncoded): the record's fields and its
// stored document as JSON, compressed. A store never changes the form it
// keeps (a letter that changes gets a new one), so the snapshot shows the
// letter as it was, and a replay maps the record to the letter again,
// which encodes to the same bytes.
//
// It knows the storage record and nothing of the domain: the caller maps
// the record to the letter it shows. A letter document that gives its
// values (storage.LetterValuer) is kept as package letterpack packs it.
package lettersnap

import (
	"bytes"
	"errors"
	"fmt"
	"time"
	"unique"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

// Snapshot is a stored letter as it was when the snapshot was made. It
// never changes.
type Snapshot struct {
	// head is the record's own fields but its metadata, packed.
	head string
	// meta is the record's metadata, shared with a store that keeps it
	// so (memstore).
	meta pack.Interned
	// base is what the letter's url begins with, before /letters/.
	base unique.Handle[string]
	// doc is the record's document, in the form a store keeps.
	doc storage.Document
}

// Sizer is a document that knows about how many bytes it keeps of its
// own, as a snapshot counts them (Size).
type Sizer interface {
	KeptSize() int
}

// LooseSize is about what a document that is not a Sizer holds.
const LooseSize = 3 << 10

// words are those the record's fields hold often, as a letter's.
var words = letterpack.Words

// Keep returns the form of a letter's document a snapshot keeps, which a
// store that keeps letters in memory keeps too: given to both, it is
// shared (letterpack.KeepDocument).
func Keep(d storage.Document) storage.Document { return letterpack.KeepDocument(d) }

// Make returns a snapshot of r, whose letter's url begins with base, its
// document as it is: the caller gives it in the form to keep (Keep).
func Make(r *storage.Letter, base string) (Snapshot, error) {
	p := pack.Get(words)
	defer p.Release()
	p.Str(r.ID)
	p.Str(r.Status)
	p.Str(r.ExternalID)
	// Most snapshots are of letters just made: modified when created, and
	// due a whole number of milliseconds later.
	sameTime := modifiedWhenCreated(r)
	due := r.DueAt.Sub(r.CreatedAt)
	dueMillis := !r.DueAt.IsZero() && r.DueAt.Location() == time.UTC && due%time.Millisecond == 0 &&
		r.CreatedAt.Add(due).Equal(r.DueAt)
	p.Byte(pack.Flags(sameTime, !r.DueAt.IsZero(), dueMillis))
	p.Time(r.CreatedAt)
	if !sameTime {
		p.Time(r.ModifiedAt)
	}
	switch {
	case dueMillis:
		p.Varint(int64(due / time.Millisecond))
	case !r.DueAt.IsZero():
		p.Time(r.DueAt)
	}
	p.Varint(r.Revision)
	if err := p.Err(); err != nil {
		return Snapshot{}, fmt.Errorf("letter %s: %w", r.ID, err)
	}
	return Snapshot{head: p.String(), meta: pack.Intern(r.Metadata), base: unique.Make(base), doc: r.Doc}, nil
}

// modifiedWhenCreated reports whether r was last modified when it was
// created, in the same location: both forms then leave ModifiedAt out, and
// read it back as CreatedAt.
func modifiedWhenCreated(r *storage.Letter) bool {
	return r.ModifiedAt.Equal(r.CreatedAt) && r.ModifiedAt.Location() == r.CreatedAt.Location()
}

// Record returns the stored letter the snapshot was made from. Its
// document is the snapshot's, which nothing may change.
func (s *Snapshot) Record() (storage.Letter, error) {
	u := pack.NewReader(s.head, words)
	r := storage.Letter{ID: u.Str(), Status: u.Str(), ExternalID: u.Str(), Doc: s.doc}
	r.Metadata = s.meta.Pairs()
	f := u.Byte()
	r.CreatedAt = u.Time()
	r.ModifiedAt = r.CreatedAt
	if f&1 == 0 {
		r.ModifiedAt = u.Time()
	}
	switch {
	case f&4 != 0:
		r.DueAt = r.CreatedAt.Add(time.Duration(u.Varint()) * time.Millisecond)
	case f&2 != 0:
		r.DueAt = u.Time()
	}
	r.Revision = u.Varint()
	u.End()
	if err := u.Err(); err != nil {
		return storage.Letter{}, fmt.Errorf("letter snapshot: %w", err)
	}
	return r, nil
}

// Base returns what the letter's url begins with, before /letters/.
func (s *Snapshot) Base() string { return s.base.Value() }

// Size is about how many bytes the snapshot keeps of its own: the part of
// the document a letter does not share with the letters of its asset
// version (Sizer, else LooseSize), and the letter's fields.
func (s *Snapshot) Size() int {
	n := len(s.head) + 16
	if k, ok := s.doc.(Sizer); ok {
		return n + k.KeptSize()
	}
	return n + LooseSize
}

// head is what an encoded snapshot holds.
type head struct {
	ID         string             `json:"id"`
	Status     string             `json:"status"`
	ExternalID string             `json:"externalId,omitempty"`
	Metadata   []storage.Metadata `json:"metadata,omitempty"`
	CreatedAt  time.Time          `json:"createdAt"`
	// ModifiedAt is left out when it is CreatedAt; DueAt when the letter
	// has nothing due.
	ModifiedAt *time.Time `json:"modifiedAt,omitempty"`
	DueAt      *time.Time `json:"dueAt,omitempty"`
	Revision   int64      `json:"revision"`
	// Base is what the letter's url holds before /letters/{id}/download.
	Base string            `json:"base"`
	Doc  gojson.RawMessage `json:"doc,omitempty"`
}

// magic begins an encoded snapshot: a version of the form, so a later one
// can be told apart.
const magic = "lsnap1\n"

// AppendEncoded appends the snapshot's serialized form, which a store that
// serializes keeps: the letter's fields and stored document as JSON,
// compressed. The form is stable from one build to the next.
func (s *Snapshot) AppendEncoded(dst []byte) ([]byte, error) {
	r, err := s.Record()
	if err != nil {
		return dst, err
	}
	doc, err := storage.EncodeDocument(r.Doc)
	if err != nil {
		return dst, err
	}
	h := head{
		ID: r.ID, Status: r.Status, ExternalID: r.ExternalID, Metadata: r.Metadata,
		CreatedAt: r.CreatedAt, Revision: r.Revision,
		Base: s.base.Value(), Doc: doc,
	}
	if !modifiedWhenCreated(&r) {
		h.ModifiedAt = &r.ModifiedAt
	}
	if !r.DueAt.IsZero() {
		h.DueAt = &r.DueAt
	}
	raw, err := gojson.Marshal(h)
	if err != nil {
		return dst, err
	}
	dst = append(dst, magic...)
	return deflate(dst, raw)
}

// Decode reads what AppendEncoded wrote: the record, its times in UTC and
// its document serialized (storage.Encoded), and the base of its letter's
// url.
func Decode(b []byte) (storage.Letter, string, error) {
	rest, ok := bytes.CutPrefix(b, []byte(magic))
	if !ok {
		return storage.Letter{}, "", errors.New("letter snapshot: unknown form")
	}
	raw, err := inflate(rest)
	if err != nil {
		return storage.Letter{}, "", fmt.Errorf("letter snapshot: %w", err)
	}
	var h head
	if err := gojson.Unmarshal(raw, &h); err != nil {
		return storage.Letter{}, "", fmt.Errorf("letter snapshot: %w", err)
	}
	r := storage.Letter{
		ID: h.ID, Status: h.Status, ExternalID: h.ExternalID, Metadata: h.Metadata,
		CreatedAt: h.CreatedAt, ModifiedAt: h.CreatedAt, Revision: h.Revision,
		Doc: storage.Encoded(h.Doc),
	}
	if h.ModifiedAt != nil {
		r.ModifiedAt = *h.ModifiedAt
	}
	if h.DueAt != nil {
		r.DueAt = h.DueAt.UTC()
	}
	r.CreatedAt, r.ModifiedAt = r.CreatedAt.UTC(), r.ModifiedAt.UTC()
	return r, h.Base, nil
}

// DecodeKept reads what AppendEncoded wrote into a snapshot again, without
// the letter: decode reads the document of the letter id, serialized, into
// the form its letters take, which the snapshot keeps (Keep).
func DecodeKept(b []byte, decode func(id string, doc storage.Document) (storage.Document, error)) (Snapshot, error) {
	r, base, err := Decode(b)
	if err != nil {
		return Snapshot{}, err
	}
	d, err := decode(r.ID, r.Doc)
	if err != nil {
		return Snapshot{}, fmt.Errorf("letter snapshot: %w", err)
	}
	r.Doc = Keep(d)
	return Make(&r, base)
}

// IsEncoded reports whether b begins as AppendEncoded's form does.
func IsEncoded(b []byte) bool { return bytes.HasPrefix(b, []byte(magic)) }
