package lettershop

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unique"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop/storage"
)

// An idempotent request's answer is replayed, byte for byte, for a day.
// Kept as the bytes it was sent as, a letter's answer cost about 2.7 KB per
// letter created, four times what the letter itself costs a store that
// keeps it in memory. A LetterSnapshot keeps instead what the answer was
// made from, the letter as it then was, in the compact form such a store
// keeps its letters in: when the snapshot is made as the letter is written,
// it shares that very form with the store, which never changes it (a
// letter that changes gets a new one). A replay encodes the snapshot again,
// which gives the same bytes. A store that serializes gets the snapshot's
// own encoding: the letter's stored document, compressed.

// LetterSnapshot is a letter as an answer showed it, kept to show it again:
// it never changes, whatever becomes of the letter.
type LetterSnapshot struct {
	// head is the letter's own fields but its metadata, packed.
	head string
	// meta is the letter's metadata, packed as packMetadata says.
	meta unique.Handle[string]
	// base is what the letter's url begins with, before /letters/.
	base unique.Handle[string]
	// doc is the rest: a *keptLetter, or a *letterDoc that could not be
	// packed.
	doc storage.Document
}

// snapshotHead is what a snapshot keeps of the letter besides its document.
type snapshotHead struct {
	ID         string         `json:"id"`
	Status     string         `json:"status"`
	ExternalID string         `json:"externalId,omitempty"`
	Metadata   []snapshotPair `json:"metadata,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
	// ModifiedAt is left out when it is CreatedAt; DueAt when the letter
	// has nothing due.
	ModifiedAt *time.Time `json:"modifiedAt,omitempty"`
	DueAt      *time.Time `json:"dueAt,omitempty"`
	Revision   int64      `json:"revision"`
	// Base is what the letter's url holds before /letters/{id}/download.
	Base string            `json:"base"`
	Doc  gojson.RawMessage `json:"doc,omitempty"`
}

// snapshotPair is a metadata pair as an encoded snapshot holds it.
type snapshotPair struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// urlTail returns what a letter's url holds after its base.
func urlTail(id string) string { return "/letters/" + id + "/download" }

// Snapshot returns the letter as it is now, to show again later. The
// Service's answers carry, while an idempotency key is held, the document
// form the store keeps, which the snapshot then shares.
func (l *Letter) Snapshot() (*LetterSnapshot, error) {
	var doc storage.Document = l.kept
	if l.kept == nil {
		rec, err := letterRecord("", l)
		if err != nil {
			return nil, err
		}
		doc = storage.KeepDocument(rec.Doc)
	}
	base, ok := strings.CutSuffix(l.URL, urlTail(l.ID))
	if !ok {
		return nil, fmt.Errorf("letter %s: url %q does not end as a letter's", l.ID, l.URL)
	}
	p := packers.Get().(*packer)
	defer p.release()
	p.str(l.ID)
	p.str(string(l.Status))
	p.str(l.ExternalID)
	// Most snapshots are of letters just made: modified when created, and
	// due a whole number of milliseconds later.
	sameTime := l.ModifiedAt.Equal(l.CreatedAt) && l.ModifiedAt.Location() == l.CreatedAt.Location()
	due := l.dueAt.Sub(l.CreatedAt)
	dueMillis := !l.dueAt.IsZero() && l.dueAt.Location() == time.UTC && due%time.Millisecond == 0 &&
		l.CreatedAt.Add(due).Equal(l.dueAt)
	p.byte(flags(sameTime, !l.dueAt.IsZero(), dueMillis))
	p.time(l.CreatedAt)
	if !sameTime {
		p.time(l.ModifiedAt)
	}
	switch {
	case dueMillis:
		p.varint(int64(due / time.Millisecond))
	case !l.dueAt.IsZero():
		p.time(l.dueAt)
	}
	p.varint(l.revision)
	if p.err != nil {
		return nil, fmt.Errorf("letter %s: %w", l.ID, p.err)
	}
	return &LetterSnapshot{head: string(p.b), meta: packMetadata(l.Metadata), base: unique.Make(base), doc: doc}, nil
}

// packMetadata packs m, interned: the number of pairs, then each key and
// value as a uvarint length and the text. (memstore keeps a letter's
// metadata in the same form, interned the same way, so a snapshot shares
// its copy with the store's.)
func packMetadata(m Metadata) unique.Handle[string] {
	var b []byte
	if len(m) > 0 {
		b = binary.AppendUvarint(b, uint64(len(m)))
		for _, p := range m {
			b = binary.AppendUvarint(b, uint64(len(p.Key)))
			b = append(b, p.Key...)
			b = binary.AppendUvarint(b, uint64(len(p.Value)))
			b = append(b, p.Value...)
		}
	}
	return unique.Make(string(b))
}

// unpackMetadata reads what packMetadata packed.
func unpackMetadata(h unique.Handle[string]) ([]storage.Metadata, error) {
	s := h.Value()
	if s == "" {
		return nil, nil
	}
	next := func() (string, bool) {
		n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
		if w <= 0 || uint64(len(s)-w) < n {
			return "", false
		}
		v := s[w : w+int(n)]
		s = s[w+int(n):]
		return v, true
	}
	n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
	if w <= 0 || n > uint64(len(s)) {
		return nil, errors.New("packed metadata: bad count")
	}
	s = s[w:]
	out := make([]storage.Metadata, n)
	for i := range out {
		k, ok1 := next()
		v, ok2 := next()
		if !ok1 || !ok2 {
			return nil, errors.New("packed metadata: cut short")
		}
		out[i] = storage.Metadata{Key: k, Value: v}
	}
	if s != "" {
		return nil, errors.New("packed metadata: bytes left over")
	}
	return out, nil
}

// record returns the stored letter the snapshot was made from.
func (ls *LetterSnapshot) record() (storage.Letter, error) {
	u := unpacker{s: ls.head}
	r := storage.Letter{ID: u.str(), Status: u.str(), ExternalID: u.str(), Doc: ls.doc}
	meta, err := unpackMetadata(ls.meta)
	if err != nil {
		return storage.Letter{}, fmt.Errorf("letter snapshot: %w", err)
	}
	r.Metadata = meta
	f := u.byte()
	r.CreatedAt = u.time()
	r.ModifiedAt = r.CreatedAt
	if f&1 == 0 {
		r.ModifiedAt = u.time()
	}
	switch {
	case f&4 != 0:
		r.DueAt = r.CreatedAt.Add(time.Duration(u.varint()) * time.Millisecond)
	case f&2 != 0:
		r.DueAt = u.time()
	}
	r.Revision = u.varint()
	u.end()
	if u.err != nil {
		return storage.Letter{}, fmt.Errorf("letter snapshot: %w", u.err)
	}
	return r, nil
}

// Letter returns the letter as it was when the snapshot was made.
func (ls *LetterSnapshot) Letter() (*Letter, error) {
	r, err := ls.record()
	if err != nil {
		return nil, err
	}
	l, err := letterFromRecord(r)
	if err != nil {
		return nil, err
	}
	l.URL = ls.base.Value() + urlTail(l.ID)
	return l, nil
}

// Size is about how many bytes the snapshot keeps of its own: the part of
// the document a letter does not share with the letters of its asset
// version, and the letter's fields.
func (ls *LetterSnapshot) Size() int {
	n := len(ls.head) + 16
	if k, ok := ls.doc.(*keptLetter); ok {
		return n + len(k.data)
	}
	return n + looseLetterSize
}

// CloneDocument implements storage.Document: a snapshot never changes, so
// it is its own copy.
func (ls *LetterSnapshot) CloneDocument() storage.Document { return ls }

// EncodeDocument implements storage.Document: AppendEncoded's form.
func (ls *LetterSnapshot) EncodeDocument() ([]byte, error) { return ls.AppendEncoded(nil) }

// OutcomeSize implements Outcome: Size.
func (ls *LetterSnapshot) OutcomeSize() int { return ls.Size() }

// looseLetterSize is about what a letter's document that could not be
// packed holds.
const looseLetterSize = 3 << 10

// snapshotMagic begins an encoded snapshot: a version of the form, so a
// later one can be told apart.
const snapshotMagic = "lsnap1\n"

// AppendEncoded appends the snapshot's serialized form, which a store that
// serializes keeps: the letter's fields and stored document as JSON,
// compressed. The form is stable from one build to the next.
func (ls *LetterSnapshot) AppendEncoded(dst []byte) ([]byte, error) {
	r, err := ls.record()
	if err != nil {
		return dst, err
	}
	doc, err := storage.EncodeDocument(r.Doc)
	if err != nil {
		return dst, err
	}
	pairs := make([]snapshotPair, len(r.Metadata))
	for i, m := range r.Metadata {
		pairs[i] = snapshotPair(m)
	}
	head := snapshotHead{
		ID: r.ID, Status: r.Status, ExternalID: r.ExternalID, Metadata: pairs,
		CreatedAt: r.CreatedAt, Revision: r.Revision,
		Base: ls.base.Value(), Doc: doc,
	}
	if !r.ModifiedAt.Equal(r.CreatedAt) || r.ModifiedAt.Location() != r.CreatedAt.Location() {
		head.ModifiedAt = &r.ModifiedAt
	}
	if !r.DueAt.IsZero() {
		head.DueAt = &r.DueAt
	}
	raw, err := gojson.Marshal(head)
	if err != nil {
		return dst, err
	}
	dst = append(dst, snapshotMagic...)
	return deflate(dst, raw)
}

// DecodeLetterSnapshot reads a snapshot AppendEncoded wrote, and returns
// it with the bytes after it.
func DecodeLetterSnapshot(b []byte) (*LetterSnapshot, error) {
	rest, ok := bytes.CutPrefix(b, []byte(snapshotMagic))
	if !ok {
		return nil, errors.New("letter snapshot: unknown form")
	}
	raw, err := inflate(rest)
	if err != nil {
		return nil, fmt.Errorf("letter snapshot: %w", err)
	}
	var h snapshotHead
	if err := gojson.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("letter snapshot: %w", err)
	}
	meta := make([]storage.Metadata, len(h.Metadata))
	for i, m := range h.Metadata {
		meta[i] = storage.Metadata(m)
	}
	l, err := letterFromRecord(storage.Letter{
		ID: h.ID, Status: h.Status, ExternalID: h.ExternalID, Metadata: meta,
		CreatedAt: h.CreatedAt, ModifiedAt: h.CreatedAt, Revision: h.Revision,
		Doc: storage.Encoded(h.Doc),
	})
	if err != nil {
		return nil, fmt.Errorf("letter snapshot: %w", err)
	}
	if h.ModifiedAt != nil {
		l.ModifiedAt = h.ModifiedAt.UTC()
	}
	if h.DueAt != nil {
		l.dueAt = h.DueAt.UTC()
	}
	l.URL = h.Base + urlTail(l.ID)
	return l.Snapshot()
}

// snapshotDict primes the compression of an encoded snapshot: a letter's
// JSON, whose names and common values a snapshot's encoding then refers
// to rather than spells (some 600 bytes for a letter of 2.5 KB, where
// compressing without it leaves 1.2 KB). It is part of the form: stored
// snapshots are read with it, so it never changes; another would be
// another form, with a magic of its own.
const snapshotDict = `{"id":"ltr_01kjqh0cc0abyzr1s1gch2evrn","status":"queued","createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z","dueAt":"2026-03-02T15:05:00Z","revision":1,"base":"https://","doc":{"life":{"stage":"queued","events":1,"from":{"city":"SPRINGFIELD","state":"IL","zip":"62701"},"to":{"city":"CHICAGO","state":"IL","zip":"60601"}},"sender":{"address":{"addressLine1":"100 Main St","lastLine":"Springfield, IL 62701"},"organization":"Acme Corp","addressComponents":{"cassType":"none","city":"Springfield","state":"IL","zipCode":"62701"}},"recipient":{"address":{"addressLine1":"200 Oak Ave","lastLine":"Chicago, IL 60601"},"individual":{"fullName":"Jane Doe","firstName":"Jane","lastName":"Doe"},"addressComponents":{"cassType":"none","city":"Chicago","state":"IL","zipCode":"60601"}},"content":{"type":"asset","assetId":"ast_01kjqh0cc0abyzr1s1g9jmy5hz","assetVersionId":"astv_01kjqh0cc0abyzr1s1gbemmsvc"},"useType":"transactional","variables":[{"name":"name","value":"Marge"}],"options":{"print":{"color":false},"mail":{"service":"firstClass","extraServices":[]},"variableHandling":{"validationScope":"asset"},"addressProcessing":{"cassSender":null,"cassRecipient":null,"ncoaRecipient":"none"},"deliverabilityThreshold":"normal","deliverabilityValues":null},"snapshot":{"hash":"b46e7ceff12b61bd93330a720254fab2663170d001e595995729c9a5f522cc92","type":"text/html","definitions":[{"name":"name","type":"value","behavior":"required","allowEmpty":false},{"name":"order","type":"value","behavior":"optional","allowEmpty":false}],"merge":[{"name":"name","value":"Marge"}]},"events":[{"id":"evt_01kjqh0cc0yy92aepzww4h7ywk","createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z","timestamp":"2026-03-02T15:00:00Z","type":"status","status":"queued","description":"Letter received","actionRequired":false}]}}`

// compressors holds flate writers: each holds some 600 KB of tables.
var compressors = sync.Pool{New: func() any {
	w, _ := flate.NewWriterDict(nil, flate.BestCompression, []byte(snapshotDict))
	return w
}}

// deflate appends data compressed to dst.
func deflate(dst, data []byte) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	w := compressors.Get().(*flate.Writer)
	defer compressors.Put(w)
	w.Reset(b)
	if _, err := w.Write(data); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	return b.Bytes(), nil
}

// maxInflated bounds what a stored snapshot inflates to.
const maxInflated = 4 << 20

func inflate(data []byte) ([]byte, error) {
	r := flate.NewReaderDict(bytes.NewReader(data), []byte(snapshotDict))
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxInflated+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInflated {
		return nil, errors.New("inflates to more than 4 MB")
	}
	return b, nil
}

// keepForClaim puts rec's document in the form a store that keeps
// documents keeps, when ctx holds an idempotency claim the write will
// complete: the letter's answer, snapshotted for the claim's outcome, then
// shares it with the store (Letter.Snapshot).
func keepForClaim(ctx context.Context, rec *storage.Letter, l *Letter) {
	if c, _ := ctx.Value(claimKey{}).(*claim); c == nil {
		return
	}
	rec.Doc = storage.KeepDocument(rec.Doc)
	if k, ok := rec.Doc.(*keptLetter); ok {
		l.kept = k
	}
}
