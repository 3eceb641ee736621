package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/lettershop/lettershop/storage"
)

type letterRec struct {
	l storage.Letter
	// busy marks a letter that a ProcessDueLetters call has picked and not
	// yet reached, so concurrent calls share the due letters out instead of
	// all queueing for the same ones.
	busy bool
}

func letterLess(a, b *letterRec) bool { return a.l.ID < b.l.ID }

// storedLetter returns the store's own copy of l, its metadata interned
// and its document in the form to keep.
func storedLetter(l storage.Letter) storage.Letter {
	l.Metadata = internMetadata(l.Metadata)
	l.Doc = storage.KeepDocument(l.Doc)
	return l
}

func cloneLetter(l storage.Letter) storage.Letter {
	l.Metadata = cloneMetadata(l.Metadata)
	l.Doc = storage.CloneDocument(l.Doc)
	return l
}

// indexLetter adds r to the indexes of the fields an update may change; the
// account index is kept by create alone, as the account never changes.
func (s *Store) indexLetter(r *letterRec) {
	l := &r.l
	// An empty Status or ExternalID in a query does not filter, so a letter
	// with an empty one needs no entry.
	if l.Status != "" {
		s.lettersByStatus.add(statusKey{l.Account, l.Status}, r)
	}
	if l.ExternalID != "" {
		s.lettersByExternal.add(externalKey{l.Account, l.ExternalID}, r)
	}
	for _, m := range l.Metadata {
		s.lettersByMeta.add(metaKey{l.Account, m.Key, m.Value}, r)
	}
	if !l.DueAt.IsZero() {
		s.lettersDue.add(r)
	}
}

// replaceLetter writes l over r as an update: ID, Account and CreatedAt
// stay, the revision goes up by one. The store keeps l's slices, so l must
// be the store's own (a clone of what a caller passed in). Only the indexes
// of fields that changed are touched: a lifecycle step changes the status
// and due time, not the metadata.
func (s *Store) replaceLetter(r *letterRec, l storage.Letter) {
	old := &r.l
	if old.Status != l.Status {
		if old.Status != "" {
			s.lettersByStatus.remove(statusKey{old.Account, old.Status}, r)
		}
		if l.Status != "" {
			s.lettersByStatus.add(statusKey{old.Account, l.Status}, r)
		}
	}
	if old.ExternalID != l.ExternalID {
		if old.ExternalID != "" {
			s.lettersByExternal.remove(externalKey{old.Account, old.ExternalID}, r)
		}
		if l.ExternalID != "" {
			s.lettersByExternal.add(externalKey{old.Account, l.ExternalID}, r)
		}
	}
	if !slices.Equal(old.Metadata, l.Metadata) {
		for _, m := range old.Metadata {
			s.lettersByMeta.remove(metaKey{old.Account, m.Key, m.Value}, r)
		}
		for _, m := range l.Metadata {
			s.lettersByMeta.add(metaKey{old.Account, m.Key, m.Value}, r)
		}
	}
	// The due index orders by DueAt: take r out before its DueAt changes.
	dueMoved := !old.DueAt.Equal(l.DueAt)
	if dueMoved && !old.DueAt.IsZero() {
		s.lettersDue.remove(r)
	}
	r.l.Status = l.Status
	r.l.ExternalID = l.ExternalID
	r.l.Metadata = l.Metadata
	r.l.ModifiedAt = l.ModifiedAt
	r.l.DueAt = l.DueAt
	r.l.Doc = l.Doc
	r.l.Revision++
	if dueMoved && !l.DueAt.IsZero() {
		s.lettersDue.add(r)
	}
}

// CreateLetter implements storage.Storage.
func (s *Store) CreateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "create letter"); err != nil {
		return storage.Letter{}, err
	}
	if err := s.checkClaim(c); err != nil {
		return storage.Letter{}, fmt.Errorf("memstore: create letter %q: %w", l.ID, err)
	}
	if _, ok := s.letters[l.ID]; ok {
		return storage.Letter{}, fmt.Errorf("memstore: create letter %q: %w", l.ID, storage.ErrAlreadyExists)
	}
	r := &letterRec{l: storedLetter(l)}
	r.l.Revision = 1
	s.letters[l.ID] = r
	s.lettersByAccount.add(l.Account, r)
	s.indexLetter(r)
	s.complete(c)
	return cloneLetter(r.l), nil
}

// GetLetter implements storage.Storage.
func (s *Store) GetLetter(ctx context.Context, account, id string) (storage.Letter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "get letter"); err != nil {
		return storage.Letter{}, err
	}
	r := s.letters[id]
	if r == nil || r.l.Account != account {
		return storage.Letter{}, fmt.Errorf("memstore: get letter %q: %w", id, storage.ErrNotFound)
	}
	return cloneLetter(r.l), nil
}

// ListLetters implements storage.Storage. Of the indexes the query's filters
// select, it walks the one holding the fewest letters and checks the other
// filters on each letter it meets.
func (s *Store) ListLetters(ctx context.Context, q storage.LetterQuery) ([]storage.Letter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "list letters"); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, nil
	}
	p := s.letterCandidates(q)
	var before *letterRec
	if q.Before != "" {
		before = &letterRec{l: storage.Letter{ID: q.Before}}
	}
	out := make([]storage.Letter, 0, pageCap(q.Limit, p.len()))
	// p, the smallest posting the filters select, holds every match, all
	// of q.Account; each letter in it is checked against the other filters.
	p.walk(letterLess, before, before != nil, func(r *letterRec) bool {
		l := &r.l
		if (q.Status == "" || l.Status == q.Status) &&
			(q.ExternalID == "" || l.ExternalID == q.ExternalID) &&
			hasMetadata(l.Metadata, q.Metadata) {
			out = append(out, cloneLetter(*l))
		}
		return len(out) < q.Limit
	})
	return out, nil
}

// letterCandidates returns the smallest of the postings q's filters select:
// every letter q matches is in it.
func (s *Store) letterCandidates(q storage.LetterQuery) posting[*letterRec] {
	p := s.lettersByAccount.get(q.Account)
	if q.Status != "" {
		p = smaller(p, s.lettersByStatus.get(statusKey{q.Account, q.Status}))
	}
	if q.ExternalID != "" {
		p = smaller(p, s.lettersByExternal.get(externalKey{q.Account, q.ExternalID}))
	}
	for _, m := range q.Metadata {
		p = smaller(p, s.lettersByMeta.get(metaKey{q.Account, m.Key, m.Value}))
	}
	return p
}

// UpdateLetter implements storage.Storage.
func (s *Store) UpdateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "update letter"); err != nil {
		return storage.Letter{}, err
	}
	if err := s.checkClaim(c); err != nil {
		return storage.Letter{}, fmt.Errorf("memstore: update letter %q: %w", l.ID, err)
	}
	r := s.letters[l.ID]
	if r == nil || r.l.Account != l.Account {
		return storage.Letter{}, fmt.Errorf("memstore: update letter %q: %w", l.ID, storage.ErrNotFound)
	}
	if r.l.Revision != l.Revision {
		return storage.Letter{}, fmt.Errorf("memstore: update letter %q at revision %d, stored %d: %w",
			l.ID, l.Revision, r.l.Revision, storage.ErrConflict)
	}
	s.replaceLetter(r, storedLetter(l))
	s.complete(c)
	return cloneLetter(r.l), nil
}
