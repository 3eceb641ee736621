package memstore

import (
	"context"
	"math"
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
	if !sameDue(a, b) {
		return dueBefore(a, b)
	}
	return a.id < b.id
}

func accountDueLess(a, b *letterRec) bool {
	if a.account != b.account {
		return a.account < b.account
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
func (d dueIndex) ascend(q storage.DueQuery, account name, except []name, fn func(*letterRec) bool) {
	if q.Account != "" {
		// The pivot sorts before every letter of the account.
		pivot := &letterRec{account: account, secs: [3]int64{due: math.MinInt64}, nsecs: [3]int32{due: math.MinInt32}}
		d.byAccount.AscendGreaterOrEqual(pivot, func(r *letterRec) bool {
			if r.account != account || r.dueAfter(q.Now) {
				return false
			}
			if slices.Contains(except, r.account) {
				return false
			}
			return fn(r)
		})
		return
	}
	d.byTime.Ascend(func(r *letterRec) bool {
		if r.dueAfter(q.Now) {
			return false
		}
		// Except names the few accounts on clocks of their own that are
		// behind the server's; their letters are passed over, not taken.
		if len(except) > 0 && slices.Contains(except, r.account) {
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
	n := 0
	err = processPicked(s, picked, func(r *letterRec) { r.busy = false }, func(r *letterRec) error {
		written, err := s.processDue(ctx, r, q, fn)
		if written {
			n++
		}
		return err
	})
	return n, err
}

// processPicked runs process on each record a due run picked, one at a
// time, until one fails; the records not reached (process failed or
// panicked, or ctx ended) are freed for other callers.
func processPicked[R any](s *Store, picked []R, free func(R), process func(R) error) error {
	rest := picked
	defer func() {
		if len(rest) > 0 {
			s.mu.Lock()
			for _, r := range rest {
				free(r)
			}
			s.mu.Unlock()
		}
	}()
	for len(rest) > 0 {
		r := rest[0]
		rest = rest[1:]
		if err := process(r); err != nil {
			return err
		}
	}
	return nil
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
	var account name
	if q.Account != "" {
		var ok bool
		if account, ok = s.names.lookup(q.Account); !ok {
			return nil, nil
		}
	}
	// An account no letter has had has no letters to pass over.
	var except []name
	for _, a := range q.Except {
		if id, ok := s.names.lookup(a); ok {
			except = append(except, id)
		}
	}
	var picked []*letterRec
	s.lettersDue.ascend(q, account, except, func(r *letterRec) bool {
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
	if !r.isDue() || r.dueAfter(q.Now) {
		return false, nil
	}
	// fn gets a copy of its own, which the store then keeps as it is (in
	// the form to keep): the contract forbids fn to hold on to it.
	l := s.letter(r)
	if err := fn(&l); err != nil {
		return false, err
	}
	s.notify(&l)
	s.replaceLetter(r, l)
	return true, nil
}
