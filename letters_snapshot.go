package lettershop

import (
	"context"
	"fmt"
	"strings"

	"github.com/lettershop/lettershop/internal/idem"
	"github.com/lettershop/lettershop/internal/lettersnap"
	"github.com/lettershop/lettershop/storage"
)

// An idempotent request's answer is replayed, byte for byte, for a day:
// a letter's is kept as what the answer was made from, the letter's record
// as it then was, which maps to the letter again (package lettersnap).

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
	r := letterHead("", l)
	if r.Doc = l.kept; r.Doc == nil {
		r.Doc = lettersnap.Keep(letterDocument(l))
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
	return letterOnBase(r, ls.s.Base())
}

// letterOnBase is the letter of a snapshot's record, its url on base.
func letterOnBase(r storage.Letter, base string) (*Letter, error) {
	l, err := letterFromRecord(r)
	if err != nil {
		return nil, err
	}
	l.URL = base + urlTail(l.ID)
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
	s, err := lettersnap.DecodeKept(b, func(id string, doc storage.Document) (storage.Document, error) {
		return docOf[letterDoc]("letter", id, doc)
	})
	if err != nil {
		return nil, err
	}
	return &LetterSnapshot{s}, nil
}

// snapshotLetter returns the letter of a stored outcome that is a letter's
// snapshot, kept or serialized, and reports false for another outcome.
func snapshotLetter(stored storage.Document) (any, bool, error) {
	switch d := stored.(type) {
	case *LetterSnapshot:
		l, err := d.Letter()
		return l, true, err
	case storage.Encoded:
		if !lettersnap.IsEncoded(d) {
			break
		}
		r, base, err := lettersnap.Decode(d)
		if err != nil {
			return nil, true, err
		}
		l, err := letterOnBase(r, base)
		return l, true, err
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
