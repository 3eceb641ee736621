package memstore

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

// dueIndex holds the letters with a DueAt in two orders: by the time they
// fall due on the server's clock, for a run over every account, and by
// account then DueAt, for a run of one account at its own time. Both hold
// the record pointers, so the second order costs a tree slot per letter,
// not a copy of anything.
//
// A letter falls due on the server's clock when its account's clock reaches
// its DueAt: DueAt less the account's lead on the server's clock (leads).
// A clock that moves changes its account's lead, and its letters move
// in the first order then; a frozen clock does not move with the server's,
// so its account's letters are out of the first order, as only its own runs
// take them.
type dueIndex struct {
	byTime    *btree.BTreeG[*letterRec]
	byAccount *btree.BTreeG[*letterRec]
	leads     *leads
}

// leads holds the accounts' leads on the server's clock, by account name:
// the zero lead for an account on the server's clock.
type leads []lead

// lead is how far an account's clock is ahead of the server's (behind,
// below zero), in seconds and nanoseconds, or that it is frozen.
type lead struct {
	secs   int64
	nsecs  int32
	frozen bool
}

func (l *leads) of(account name) lead {
	if int(account) < len(*l) {
		return (*l)[account]
	}
	return lead{}
}

func (l *leads) set(account name, v lead) {
	for int(account) >= len(*l) {
		*l = append(*l, lead{})
	}
	(*l)[account] = v
}

// leadOf is c's lead as leads keeps it.
func leadOf(c storage.AccountClock) lead {
	if c.Frozen {
		return lead{frozen: true}
	}
	secs := c.At.Unix() - c.Anchor.Unix()
	nsecs := int32(c.At.Nanosecond()) - int32(c.Anchor.Nanosecond())
	if nsecs < 0 {
		nsecs += 1e9
		secs--
	}
	return lead{secs: secs, nsecs: nsecs}
}

func newDueIndex(free *btree.FreeListG[*letterRec]) dueIndex {
	d := dueIndex{leads: &leads{}}
	d.byTime = btree.NewWithFreeListG(degree, d.serverLess, free)
	d.byAccount = btree.NewWithFreeListG(degree, accountDueLess, free)
	return d
}

// serverDue is when r falls due on the server's clock.
func (d dueIndex) serverDue(r *letterRec) (int64, int32) {
	l := d.leads.of(r.account)
	secs, nsecs := r.secs[due]-l.secs, r.nsecs[due]-l.nsecs
	if nsecs < 0 {
		nsecs += 1e9
		secs--
	}
	return secs, nsecs
}

func (d dueIndex) serverLess(a, b *letterRec) bool {
	as, an := d.serverDue(a)
	bs, bn := d.serverDue(b)
	if less, equal := stampLess(as, an, bs, bn); !equal {
		return less
	}
	return a.id < b.id
}

// serverDueAfter reports whether r falls due on the server's clock after
// now, or not by the server's clock at all (its account's is frozen).
func (d dueIndex) serverDueAfter(r *letterRec, now time.Time) bool {
	if d.leads.of(r.account).frozen {
		return true
	}
	secs, nsecs := d.serverDue(r)
	return stampAfter(secs, nsecs, now)
}

func dueLess(a, b *letterRec) bool {
	if less, equal := stampLess(a.secs[due], a.nsecs[due], b.secs[due], b.nsecs[due]); !equal {
		return less
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
	if !d.leads.of(r.account).frozen {
		d.byTime.ReplaceOrInsert(r)
	}
	d.byAccount.ReplaceOrInsert(r)
}

func (d dueIndex) remove(r *letterRec) {
	if !d.leads.of(r.account).frozen {
		d.byTime.Delete(r)
	}
	d.byAccount.Delete(r)
}

func (d dueIndex) Len() int { return d.byAccount.Len() }

// setLead gives the account a new lead, moving its letters in the order by
// the server's time: O(its due letters * log n).
func (d dueIndex) setLead(account name, l lead) {
	if d.leads.of(account) == l {
		return
	}
	var mine []*letterRec
	d.eachOf(account, func(r *letterRec) bool {
		mine = append(mine, r)
		return true
	})
	for _, r := range mine {
		d.remove(r)
	}
	d.leads.set(account, l)
	for _, r := range mine {
		d.add(r)
	}
}

// eachOf calls fn with the account's due letters, earliest first, until fn
// returns false.
func (d dueIndex) eachOf(account name, fn func(*letterRec) bool) {
	// The pivot sorts before every letter of the account.
	pivot := &letterRec{account: account, secs: [3]int64{due: math.MinInt64}, nsecs: [3]int32{due: math.MinInt32}}
	d.byAccount.AscendGreaterOrEqual(pivot, func(r *letterRec) bool {
		return r.account == account && fn(r)
	})
}

// ascend calls fn with the letters q selects that are due at q.Now,
// earliest first, until fn returns false.
func (d dueIndex) ascend(q storage.DueQuery, account name, except []name, fn func(*letterRec) bool) {
	if q.Account != "" {
		if slices.Contains(except, account) {
			return
		}
		d.eachOf(account, func(r *letterRec) bool {
			return !r.dueAfter(q.Now) && fn(r)
		})
		return
	}
	d.byTime.Ascend(func(r *letterRec) bool {
		if d.serverDueAfter(r, q.Now) {
			return false
		}
		// Except names accounts a caller passes over: their letters are
		// skipped, not taken.
		if len(except) > 0 && slices.Contains(except, r.account) {
			return true
		}
		return fn(r)
	})
}

// due reports whether r is due at q.Now, as ascend selects it.
func (d dueIndex) due(r *letterRec, q storage.DueQuery) bool {
	if !r.isDue() {
		return false
	}
	if q.Account != "" {
		return !r.dueAfter(q.Now)
	}
	return !d.serverDueAfter(r, q.Now)
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
	// A letter erased since it was picked (EraseAccount) is no longer the
	// one stored under its id, if any is.
	if s.letters[r.id] != r || !s.lettersDue.due(r, q) {
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
