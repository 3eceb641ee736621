package lettershop

import (
	"context"
	"fmt"
	"strings"

	"github.com/lettershop/lettershop/internal/idem"
	"github.com/lettershop/lettershop/internal/lettersnap"
	"github.com/lettershop/lettershop/storage"
)

// An idempotent request's answer is replayed, byte for byte, for a day.
// Kept as the bytes it was sent as, a letter's answer cost about 2.7 KB per
// letter created, four times what the letter itself costs a store that
// keeps it in memory. A LetterSnapshot keeps instead what the answer was
// made from, the letter's record as it then was, with its document in the
// compact form such a store keeps its letters in: when the snapshot is
// made as the letter is written, it shares that very form with the store,
// which never changes it (a letter that changes gets a new one). A replay
// maps the record to the letter again, which encodes to the same bytes.
// The snapshot's form, and its encoding for a store that serializes, are
// package lettersnap's.

// LetterSnapshot is a letter as an answer showed it, kept to show it again:
// it never changes, whatever becomes of the letter.
type LetterSnapshot struct {
	s lettersnap.Snapshot
}

// urlTail returns what a letter's url holds after its base.
func urlTail(id string) string { return "/letters/" + id + "/download" }

// Snapshot returns the letter as it is now, to show again later. The
// Service's answers carry, while an idempotency key is held, the document
// form the store keeps, which the snapshot then shares.
func (l *Letter) Snapshot() (*LetterSnapshot, error) {
	base, ok := strings.CutSuffix(l.URL, urlTail(l.ID))
	if !ok {
		return nil, fmt.Errorf("letter %s: url %q does not end as a letter's", l.ID, l.URL)
	}
	r := storage.Letter{
		ID: l.ID, Status: string(l.Status), ExternalID: l.ExternalID, Metadata: metadataRecords(l.Metadata),
		CreatedAt: l.CreatedAt, ModifiedAt: l.ModifiedAt, DueAt: l.dueAt, Revision: l.revision,
	}
	if r.Doc = l.kept; r.Doc == nil {
		rec, err := letterRecord("", l)
		if err != nil {
			return nil, err
		}
		r.Doc = lettersnap.Keep(rec.Doc)
	}
	s, err := lettersnap.Make(&r, base)
	if err != nil {
		return nil, err
	}
	return &LetterSnapshot{s}, nil
}

// Letter returns the letter as it was when the snapshot was made.
func (ls *LetterSnapshot) Letter() (*Letter, error) {
	r, err := ls.s.Record()
	if err != nil {
		return nil, err
	}
	l, err := letterFromRecord(r)
	if err != nil {
		return nil, err
	}
	l.URL = ls.s.Base() + urlTail(l.ID)
	return l, nil
}

// Size is about how many bytes the snapshot keeps of its own: the part of
// the document a letter does not share with the letters of its asset
// version, and the letter's fields.
func (ls *LetterSnapshot) Size() int { return ls.s.Size() }

// CloneDocument implements storage.Document: a snapshot never changes, so
// it is its own copy.
func (ls *LetterSnapshot) CloneDocument() storage.Document { return ls }

// EncodeDocument implements storage.Document: AppendEncoded's form.
func (ls *LetterSnapshot) EncodeDocument() ([]byte, error) { return ls.AppendEncoded(nil) }

// OutcomeSize implements Outcome: Size.
func (ls *LetterSnapshot) OutcomeSize() int { return ls.Size() }

// AppendEncoded appends the snapshot's serialized form, which a store that
// serializes keeps: the letter's fields and stored document as JSON,
// compressed. The form is stable from one build to the next.
func (ls *LetterSnapshot) AppendEncoded(dst []byte) ([]byte, error) {
	return ls.s.AppendEncoded(dst)
}

// DecodeLetterSnapshot reads a snapshot AppendEncoded wrote: the record
// and its document, decoded, made a snapshot again without a letter made
// of them on the way.
func DecodeLetterSnapshot(b []byte) (*LetterSnapshot, error) {
	r, base, err := lettersnap.Decode(b)
	if err != nil {
		return nil, err
	}
	d, err := docOf[letterDoc]("letter", r.ID, r.Doc)
	if err != nil {
		return nil, fmt.Errorf("letter snapshot: %w", err)
	}
	r.Doc = lettersnap.Keep(d)
	r.CreatedAt, r.ModifiedAt, r.DueAt = r.CreatedAt.UTC(), r.ModifiedAt.UTC(), utcOrZero(r.DueAt)
	s, err := lettersnap.Make(&r, base)
	if err != nil {
		return nil, err
	}
	return &LetterSnapshot{s}, nil
}

// decodedLetter returns the letter of a snapshot AppendEncoded wrote, its
// record read into the letter once.
func decodedLetter(b []byte) (*Letter, error) {
	r, base, err := lettersnap.Decode(b)
	if err != nil {
		return nil, err
	}
	l, err := letterFromRecord(r)
	if err != nil {
		return nil, fmt.Errorf("letter snapshot: %w", err)
	}
	l.URL = base + urlTail(l.ID)
	return l, nil
}

// snapshotLetter returns the letter of a stored outcome that is a letter's
// snapshot, kept or serialized, and reports false for another outcome.
func snapshotLetter(stored storage.Document) (*Letter, bool, error) {
	switch d := stored.(type) {
	case *LetterSnapshot:
		l, err := d.Letter()
		return l, true, err
	case storage.Encoded:
		if lettersnap.IsEncoded(d) {
			l, err := decodedLetter(d)
			return l, true, err
		}
	}
	return nil, false, nil
}

// keepForClaim puts rec's document in the form a store that keeps
// documents keeps, when ctx holds an idempotency claim the write will
// complete: the letter's answer, snapshotted for the claim's outcome, then
// shares it with the store (Letter.Snapshot).
func keepForClaim(ctx context.Context, rec *storage.Letter, l *Letter) {
	if !idem.Claimed(ctx) {
		return
	}
	rec.Doc = lettersnap.Keep(rec.Doc)
	l.kept = rec.Doc
}
