package memstore

import (
	"context"
	"slices"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

// dueIndex holds the letters with a DueAt in two orders: by time, for a run
// over every account, and by account then time, for a run of one account
// on a clock of its own. Both hold the record pointers, so the second order
// costs a tree slot per letter, not a copy of anything.
type dueIndex struct {
	byTime    *btree.BTreeG[*letterRec]
	byAccount *btree.BTreeG[*letterRec]
}

func newDueIndex() dueIndex {
	return dueIndex{byTime: btree.NewG(degree, dueLess), byAccount: btree.NewG(degree, accountDueLess)}
}

func dueLess(a, b *letterRec) bool {
	if !a.l.DueAt.Equal(b.l.DueAt) {
		return a.l.DueAt.Before(b.l.DueAt)
	}
	return a.l.ID < b.l.ID
}

func accountDueLess(a, b *letterRec) bool {
	if a.l.Account != b.l.Account {
		return a.l.Account < b.l.Account
	}
	return dueLess(a, b)
}

func (d dueIndex) add(r *letterRec) {
	d.byTime.ReplaceOrInsert(r)
	d.byAccount.ReplaceOrInsert(r)
}

func (d dueIndex) remove(r *letterRec) {
	d.byTime.Delete(r)
	d.byAccount.Delete(r)
}

func (d dueIndex) Len() int { return d.byTime.Len() }

// ascend calls fn with the letters q selects whose DueAt is not after q.Now,
// earliest first, until fn returns false.
func (d dueIndex) ascend(q storage.DueQuery, fn func(*letterRec) bool) {
	if q.Account != "" {
		pivot := &letterRec{l: storage.Letter{Account: q.Account}}
		d.byAccount.AscendGreaterOrEqual(pivot, func(r *letterRec) bool {
			if r.l.Account != q.Account || r.l.DueAt.After(q.Now) {
				return false
			}
			if slices.Contains(q.Except, r.l.Account) {
				return false
			}
			return fn(r)
		})
		return
	}
	d.byTime.Ascend(func(r *letterRec) bool {
		if r.l.DueAt.After(q.Now) {
			return false
		}
		// Except names the few accounts on clocks of their own that are
		// behind the server's; their letters are passed over, not taken.
		if len(q.Except) > 0 && slices.Contains(q.Except, r.l.Account) {
			return true
		}
		return fn(r)
	})
}

// ProcessDueLetters implements storage.Storage. It picks the due letters in
// one short critical section and then processes them one at a time, taking
// the lock for each, so other calls are not shut out while a batch runs.
// fn runs under the lock, which makes each letter's read, change and write
// one atomic step; that is also why fn must not call the store.
func (s *Store) ProcessDueLetters(ctx context.Context, q storage.DueQuery, fn func(*storage.Letter) error) (int, error) {
	picked, err := s.pickDue(ctx, q)
	if err != nil {
		return 0, err
	}
	rest := picked
	defer func() {
		// Letters not reached (fn failed or panicked, or ctx ended) go back
		// to the other callers.
		if len(rest) > 0 {
			s.mu.Lock()
			for _, r := range rest {
				r.busy = false
			}
			s.mu.Unlock()
		}
	}()
	n := 0
	for len(rest) > 0 {
		r := rest[0]
		rest = rest[1:]
		written, err := s.processDue(ctx, r, q, fn)
		if err != nil {
			return n, err
		}
		if written {
			n++
		}
	}
	return n, nil
}

// pickDue marks and returns up to q.Limit due letters, earliest DueAt first,
// passing over those another call has marked.
func (s *Store) pickDue(ctx context.Context, q storage.DueQuery) ([]*letterRec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "process due letters"); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, nil
	}
	var picked []*letterRec
	s.lettersDue.ascend(q, func(r *letterRec) bool {
		if !r.busy {
			r.busy = true
			picked = append(picked, r)
		}
		return len(picked) < q.Limit
	})
	return picked, nil
}

// processDue hands r to fn and writes the result, unless an update since r
// was picked has made it no longer due.
func (s *Store) processDue(ctx context.Context, r *letterRec, q storage.DueQuery, fn func(*storage.Letter) error) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.busy = false
	if err := checkContext(ctx, "process due letters"); err != nil {
		return false, err
	}
	if r.l.DueAt.IsZero() || r.l.DueAt.After(q.Now) {
		return false, nil
	}
	// fn gets a copy of its own, which the store then keeps as it is: the
	// contract forbids fn to hold on to it.
	l := cloneLetter(r.l)
	if err := fn(&l); err != nil {
		return false, err
	}
	// What fn left is the store's to keep as it is, but a document with a
	// form to keep is kept in that form, as one written by UpdateLetter.
	if k, ok := l.Doc.(storage.Keeper); ok {
		l.Doc = k.KeepDocument()
	}
	if !slices.Equal(l.Metadata, r.l.Metadata) {
		l.Metadata = internMetadata(l.Metadata)
	} else {
		l.Metadata = r.l.Metadata
	}
	s.replaceLetter(r, l)
	return true, nil
}
