package memstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

// newLetterRec returns the store's own record of l, its document in the
// form to keep: a letter document that gives its values packed (package
// letterpack), one string with no pointers, a few hundred bytes where the
// typed document costs about 2 KB and a dozen pointers to trace.
func (s *Store) newLetterRec(l storage.Letter) *letterRec {
	r := &letterRec{
		id: strings.Clone(l.ID), account: s.names.id(l.Account), revision: l.Revision,
	}
	r.setTime(created, l.CreatedAt)
	s.setLetter(r, l)
	return r
}

// setLetter writes what an update may change from l into r: the status,
// external id, metadata, modification and due times and the document.
func (s *Store) setLetter(r *letterRec, l storage.Letter) {
	r.status = s.names.id(l.Status)
	if r.externalID != l.ExternalID {
		r.externalID = strings.Clone(l.ExternalID)
	}
	if !r.meta.Equal(l.Metadata) {
		r.meta = pack.Intern(l.Metadata)
	}
	r.setTime(modified, l.ModifiedAt)
	r.setTime(due, l.DueAt)
	r.doc = letterpack.KeepDocument(l.Doc)
}

// indexLetter adds r to the indexes of the fields an update may change; the
// account index is kept by create alone, as the account never changes.
func (s *Store) indexLetter(r *letterRec) {
	// An empty Status or ExternalID in a query does not filter, so a letter
	// with an empty one needs no entry.
	if r.status != 0 {
		s.lettersByStatus.add(statusKey{r.account, r.status}, r)
	}
	if r.externalID != "" {
		s.lettersByExternal.add(externalKey{r.account, r.externalID}, r)
	}
	r.meta.Each(func(k, v string) bool {
		s.lettersByMeta.add(letterMetaKey{r.account, k, v}, r)
		return true
	})
	if r.isDue() {
		s.lettersDue.add(r)
	}
}

// unindexLetter takes r out of the indexes indexLetter put it in.
func (s *Store) unindexLetter(r *letterRec) {
	if r.status != 0 {
		s.lettersByStatus.remove(statusKey{r.account, r.status}, r)
	}
	if r.externalID != "" {
		s.lettersByExternal.remove(externalKey{r.account, r.externalID}, r)
	}
	r.meta.Each(func(k, v string) bool {
		s.lettersByMeta.remove(letterMetaKey{r.account, k, v}, r)
		return true
	})
	if r.isDue() {
		s.lettersDue.remove(r)
	}
}

// replaceLetter writes l over r as an update: ID, Account and CreatedAt
// stay, the revision goes up by one. Only the indexes of fields that
// changed are touched: a lifecycle step changes the status and due time,
// not the metadata.
func (s *Store) replaceLetter(r *letterRec, l storage.Letter) {
	status := s.names.id(l.Status)
	if r.status != status {
		if r.status != 0 {
			s.lettersByStatus.remove(statusKey{r.account, r.status}, r)
		}
		if status != 0 {
			s.lettersByStatus.add(statusKey{r.account, status}, r)
		}
	}
	external := r.externalID != l.ExternalID
	if external && r.externalID != "" {
		s.lettersByExternal.remove(externalKey{r.account, r.externalID}, r)
	}
	oldMeta := r.meta
	// The due index orders by the due time: take r out before it changes.
	wasDue := r.isDue()
	if wasDue {
		s.lettersDue.remove(r)
	}
	s.setLetter(r, l)
	r.revision++
	// The index keys on the record's own copy of the new external id, as
	// create does: the caller's string may be part of a larger one.
	if external && r.externalID != "" {
		s.lettersByExternal.add(externalKey{r.account, r.externalID}, r)
	}
	if r.meta != oldMeta {
		oldMeta.Each(func(k, v string) bool {
			s.lettersByMeta.remove(letterMetaKey{r.account, k, v}, r)
			return true
		})
		r.meta.Each(func(k, v string) bool {
			s.lettersByMeta.add(letterMetaKey{r.account, k, v}, r)
			return true
		})
	}
	if r.isDue() {
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
	made := s.notify(&l)
	l.Revision = 1
	r := s.newLetterRec(l)
	s.letters[r.id] = r
	s.lettersByAccount.add(r.account, r)
	s.indexLetter(r)
	s.complete(c)
	out := s.letter(r)
	out.Deliveries = made
	return out, nil
}

// GetLetter implements storage.Storage.
func (s *Store) GetLetter(ctx context.Context, account, id string) (storage.Letter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "get letter"); err != nil {
		return storage.Letter{}, err
	}
	r := s.letters[id]
	if r == nil || s.names.str(r.account) != account {
		return storage.Letter{}, fmt.Errorf("memstore: get letter %q: %w", id, storage.ErrNotFound)
	}
	return s.letter(r), nil
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
	p, ok := s.letterCandidates(q)
	if !ok {
		return nil, nil
	}
	var before *letterRec
	if q.Before != "" {
		before = &letterRec{id: q.Before}
	}
	if q.Brief {
		return s.briefLetters(p, before, q), nil
	}
	recs := make([]*letterRec, 0, pageCap(q.Limit, p.len()))
	pairs := 0
	// p, the smallest posting the filters select, holds every match, all
	// of q.Account; each letter in it is checked against the other filters.
	p.walk(letterLess, before, before != nil, func(r *letterRec) bool {
		if s.matches(r, q) {
			recs = append(recs, r)
			pairs += r.meta.Len()
		}
		return len(recs) < q.Limit
	})
	// The page's metadata is copied into one array, each letter's part
	// capped, so that a caller appending to one letter's pairs can not
	// reach another's: one allocation a page instead of one a letter.
	meta := make([]storage.Metadata, 0, pairs)
	out := make([]storage.Letter, len(recs))
	for i, r := range recs {
		start := len(meta)
		meta = r.meta.AppendPairs(meta)
		out[i] = s.letterWithoutMetadata(r)
		if len(meta) > start {
			out[i].Metadata = meta[start:len(meta):len(meta)]
		}
	}
	return out, nil
}

// briefLetters is ListLetters for a Brief query: the matches of q in p,
// each with only what Brief asks for.
func (s *Store) briefLetters(p posting[*letterRec], before *letterRec, q storage.LetterQuery) []storage.Letter {
	out := make([]storage.Letter, 0, pageCap(q.Limit, p.len()))
	p.walk(letterLess, before, before != nil, func(r *letterRec) bool {
		if s.matches(r, q) {
			out = append(out, storage.Letter{
				ID: r.id, Account: s.names.str(r.account), Status: s.names.str(r.status),
				ModifiedAt: r.time(modified), Revision: r.revision,
			})
		}
		return len(out) < q.Limit
	})
	return out
}

// matches reports whether r passes q's filters but the account, which
// the posting walked holds r to.
func (s *Store) matches(r *letterRec, q storage.LetterQuery) bool {
	return (q.Status == "" || s.names.str(r.status) == q.Status) &&
		(q.ExternalID == "" || r.externalID == q.ExternalID) &&
		r.meta.Has(q.Metadata)
}

// letterCandidates returns the smallest of the postings q's filters select:
// every letter q matches is in it. It reports false when q names an account
// or status no letter has had.
func (s *Store) letterCandidates(q storage.LetterQuery) (posting[*letterRec], bool) {
	account, ok := s.names.lookup(q.Account)
	if !ok {
		return posting[*letterRec]{}, false
	}
	p := s.lettersByAccount.get(account)
	if q.Status != "" {
		status, ok := s.names.lookup(q.Status)
		if !ok {
			return posting[*letterRec]{}, false
		}
		p = smaller(p, s.lettersByStatus.get(statusKey{account, status}))
	}
	if q.ExternalID != "" {
		p = smaller(p, s.lettersByExternal.get(externalKey{account, q.ExternalID}))
	}
	for _, m := range q.Metadata {
		p = smaller(p, s.lettersByMeta.get(letterMetaKey{account, m.Key, m.Value}))
	}
	return p, true
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
	if r == nil || s.names.str(r.account) != l.Account {
		return storage.Letter{}, fmt.Errorf("memstore: update letter %q: %w", l.ID, storage.ErrNotFound)
	}
	if r.revision != l.Revision {
		return storage.Letter{}, fmt.Errorf("memstore: update letter %q at revision %d, stored %d: %w",
			l.ID, l.Revision, r.revision, storage.ErrConflict)
	}
	made := s.notify(&l)
	s.replaceLetter(r, l)
	s.complete(c)
	out := s.letter(r)
	out.Deliveries = made
	return out, nil
}
