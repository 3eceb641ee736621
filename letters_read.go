package lettershop

import (
	"context"
	"errors"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// Reads for a caller that keeps what it makes of letters (package wire keeps
// their API encodings): a letter read from the store but not yet made into a
// Letter, with the stamp of its stored state, and a page of them. A stored
// letter does not change without its revision going up, so what was made of
// a letter at one stamp holds as long as the stamp is the same, and a Letter
// need be made only for a stamp not seen before.

// LetterStamp tells one stored state of a letter from another. Status and
// ModifiedAt are in it besides the revision: a store that lost its contents
// under a running Service (a database made anew) could give an id and a
// revision a second meaning, and then they differ.
type LetterStamp struct {
	ID         string
	Revision   int64
	Status     LetterStatus
	ModifiedAt time.Time
}

// Equal reports whether a and b name the same stored state.
func (a LetterStamp) Equal(b LetterStamp) bool {
	return a.ID == b.ID && a.Revision == b.Revision && a.Status == b.Status && a.ModifiedAt.Equal(b.ModifiedAt)
}

func stampOf(r *storage.Letter) LetterStamp {
	return LetterStamp{ID: r.ID, Revision: r.Revision, Status: LetterStatus(r.Status), ModifiedAt: r.ModifiedAt}
}

// StoredLetter is a letter ReadLetter found in the store.
type StoredLetter struct {
	s   *Service
	rec storage.Letter
	now time.Time
}

// ReadLetter reads a letter of the account as GetLetter does, and leaves
// making it a Letter to the caller (Letter).
func (s *Service) ReadLetter(ctx context.Context, account, id string) (StoredLetter, error) {
	if err := s.life.CatchUp(ctx, account); err != nil {
		return StoredLetter{}, err
	}
	rec, err := s.readLetter(ctx, account, id)
	if err != nil {
		return StoredLetter{}, err
	}
	return StoredLetter{s: s, rec: rec, now: s.now(account)}, nil
}

// Stamp returns the stored state read.
func (r *StoredLetter) Stamp() LetterStamp { return stampOf(&r.rec) }

// AsStored reports whether Letter shows the letter as its stamp's state is:
// not when steps of its life fell due that no run has stored yet, which a
// read shows all the same, so the same stamp shows more as time passes.
func (r *StoredLetter) AsStored() bool { return r.rec.DueAt.IsZero() || r.rec.DueAt.After(r.now) }

// Letter returns the letter as GetLetter shows it.
func (r *StoredLetter) Letter() (*Letter, error) { return r.s.shownLetter(r.rec, r.now) }

// LetterList is a page of letters asked for and checked, not yet read:
// OpenLetterList makes it, Stamps and Read read it.
type LetterList struct {
	s           *Service
	q           storage.LetterQuery
	c           cursor
	cassDetails bool
}

// LetterListKey names the page a LetterList reads: its account, list and
// filters, where it starts, how many letters it shows and whether with
// their CASS details. Two lists of one key whose letters have the same
// stamps show the same page.
type LetterListKey struct {
	scope, before string
	limit         int
	cassDetails   bool
}

// OpenLetterList checks in as ListLetters does and brings the account's
// letters due up to date, ready to read the page in asks for.
func (s *Service) OpenLetterList(ctx context.Context, account string, in ListLettersInput) (LetterList, error) {
	q, c, err := s.letterQuery(ctx, account, in)
	if err != nil {
		return LetterList{}, err
	}
	return LetterList{s: s, q: q, c: c, cassDetails: in.IncludeCassDetails}, nil
}

// Key returns the key of the page the list reads.
func (l *LetterList) Key() LetterListKey {
	return LetterListKey{scope: l.c.scope, before: l.c.before, limit: l.c.limit, cassDetails: l.cassDetails}
}

// Stamps reads only the stamps of the page's letters, which a store reads
// for a fraction of what whole letters cost: enough to tell whether the
// page's letters are those of a page made before. Its Letter fails.
func (l *LetterList) Stamps(ctx context.Context) (StoredLetters, error) { return l.read(ctx, true) }

// Read reads the page's letters.
func (l *LetterList) Read(ctx context.Context) (StoredLetters, error) { return l.read(ctx, false) }

func (l *LetterList) read(ctx context.Context, brief bool) (StoredLetters, error) {
	q := l.q
	q.Brief = brief
	recs, err := l.s.store.ListLetters(ctx, q)
	if err != nil {
		return StoredLetters{}, storeErr("list letters", err)
	}
	return StoredLetters{s: l.s, c: l.c, cassDetails: l.cassDetails, brief: brief, recs: recs}, nil
}

// StoredLetters are the letters of a page a LetterList read, newest first.
type StoredLetters struct {
	s           *Service
	c           cursor
	cassDetails bool
	brief       bool
	// recs are the page's letters and, when there are more, the first of
	// the next page.
	recs []storage.Letter
}

// Len returns how many letters the page shows.
func (p *StoredLetters) Len() int { return min(len(p.recs), p.c.limit) }

// More reports whether a page follows.
func (p *StoredLetters) More() bool { return len(p.recs) > p.c.limit }

// Stamp returns the stamp of the page's i-th letter.
func (p *StoredLetters) Stamp(i int) LetterStamp { return stampOf(&p.recs[i]) }

// AppendStamps appends the stamps of the page's letters to dst, in order,
// and returns the extended slice.
func (p *StoredLetters) AppendStamps(dst []LetterStamp) []LetterStamp {
	for i := range p.Len() {
		dst = append(dst, stampOf(&p.recs[i]))
	}
	return dst
}

// Letter returns the page's i-th letter as ListLetters shows it.
func (p *StoredLetters) Letter(i int) (*Letter, error) {
	if p.brief {
		return nil, internal("list letters", errors.New("a letter of a page read for its stamps"))
	}
	return p.s.listedLetter(p.recs[i], p.cassDetails)
}

// NextToken returns the token of the page that follows, as ListLetters's
// Page carries it: "" on the last page.
func (p *StoredLetters) NextToken() string {
	if !p.More() {
		return ""
	}
	return p.s.pages.Sign(p.c.scope, p.recs[p.c.limit-1].ID)
}
