package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

type idemRec struct {
	r storage.IdempotencyRecord
}

func idemExpiryLess(a, b *idemRec) bool {
	if !a.r.ExpiresAt.Equal(b.r.ExpiresAt) {
		return a.r.ExpiresAt.Before(b.r.ExpiresAt)
	}
	if a.r.Scope != b.r.Scope {
		return a.r.Scope < b.r.Scope
	}
	return a.r.Key < b.r.Key
}

// idemAccountExpiryLess orders records by account, then as idemExpiryLess.
func idemAccountExpiryLess(a, b *idemRec) bool {
	if a.r.Account != b.r.Account {
		return a.r.Account < b.r.Account
	}
	return idemExpiryLess(a, b)
}

// idemTrimLess orders an account's completed records as TrimIdempotency
// removes them: failed first, then oldest first.
func idemTrimLess(a, b *idemRec) bool {
	if a.r.Failed != b.r.Failed {
		return a.r.Failed
	}
	if !a.r.CreatedAt.Equal(b.r.CreatedAt) {
		return a.r.CreatedAt.Before(b.r.CreatedAt)
	}
	if a.r.Scope != b.r.Scope {
		return a.r.Scope < b.r.Scope
	}
	return a.r.Key < b.r.Key
}

// idemDone is an account's completed records, in the order
// TrimIdempotency removes them, and the sum of their sizes.
type idemDone struct {
	order *btree.BTreeG[*idemRec]
	bytes int64
}

// forgetDone takes a completed record out of its account's trim order.
func (s *Store) forgetDone(r *idemRec) {
	if !r.r.Done {
		return
	}
	d := s.idemDone[r.r.Account]
	if d == nil {
		return
	}
	if _, ok := d.order.Delete(r); ok {
		d.bytes -= r.r.Size
	}
	if d.order.Len() == 0 {
		delete(s.idemDone, r.r.Account)
	}
}

// cloneIdem returns a copy of r to hand out: its Result is the kept form's
// copy, which for an immutable kept form is itself.
func cloneIdem(r storage.IdempotencyRecord) storage.IdempotencyRecord {
	r.Result = storage.CloneDocument(r.Result)
	return r
}

// claimPurgeBatch bounds the expired records one claim removes, so a claim
// never stalls behind a large backlog. Each claim adds at most one record
// and removes up to this many expired ones of its own account, so an
// account's expired records cannot pile up while it claims, even if
// PurgeIdempotency is never called. Only its own: the claim's time is its
// account's, and another account's clock may stand elsewhere.
const claimPurgeBatch = 16

// purge removes up to limit records whose ExpiresAt is not after now
// (all of them when limit < 0) and returns how many it removed. The expiry
// index yields them oldest first, so the cost is O(removed × log n).
func (s *Store) purge(now time.Time, limit int) int {
	n := 0
	for n != limit {
		r, ok := s.idemExpiry.Min()
		if !ok || r.r.ExpiresAt.After(now) {
			break
		}
		s.removeIdem(r)
		n++
	}
	return n
}

// purgeAccount is purge for the records of one account.
func (s *Store) purgeAccount(account string, now time.Time, limit int) {
	var expired []*idemRec
	pivot := &idemRec{r: storage.IdempotencyRecord{Account: account}}
	s.idemAccountExpiry.AscendGreaterOrEqual(pivot, func(r *idemRec) bool {
		if r.r.Account != account || r.r.ExpiresAt.After(now) {
			return false
		}
		expired = append(expired, r)
		return len(expired) < limit
	})
	for _, r := range expired {
		s.removeIdem(r)
	}
}

func (s *Store) removeIdem(r *idemRec) {
	s.idemExpiry.Delete(r)
	s.idemAccountExpiry.Delete(r)
	s.forgetDone(r)
	delete(s.idem, idemKey{r.r.Scope, r.r.Key})
}

// checkClaim returns storage.ErrClaimLost unless c is nil or names a claim
// in flight under its token. Callers hold the lock and, when it passes,
// call complete before releasing it.
func (s *Store) checkClaim(c *storage.Completion) error {
	if c == nil {
		return nil
	}
	r := s.idem[idemKey{c.Scope, c.Key}]
	if r == nil || r.r.Done || r.r.Token != c.Token || r.r.Account != c.Account {
		return storage.ErrClaimLost
	}
	return nil
}

// complete stores c's result on the claim checkClaim has accepted.
func (s *Store) complete(c *storage.Completion) {
	if c == nil {
		return
	}
	r := s.idem[idemKey{c.Scope, c.Key}]
	r.r.Done = true
	r.r.Failed = c.Failed
	r.r.Result = storage.KeepDocument(c.Result)
	r.r.Size = c.Size
	d := s.idemDone[r.r.Account]
	if d == nil {
		d = &idemDone{order: btree.NewG(degree, idemTrimLess)}
		s.idemDone[r.r.Account] = d
	}
	d.order.ReplaceOrInsert(r)
	d.bytes += r.r.Size
}

// ClaimIdempotency implements storage.Storage.
func (s *Store) ClaimIdempotency(ctx context.Context, r storage.IdempotencyRecord, now time.Time) (storage.IdempotencyRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "claim idempotency key"); err != nil {
		return storage.IdempotencyRecord{}, false, err
	}
	s.purgeAccount(r.Account, now, claimPurgeBatch)
	k := idemKey{r.Scope, r.Key}
	if old := s.idem[k]; old != nil {
		live := old.r.ExpiresAt.After(now) && (old.r.Done || old.r.LeaseExpiresAt.After(now))
		if live {
			return cloneIdem(old.r), false, nil
		}
		s.removeIdem(old)
	}
	rec := &idemRec{r: cloneIdem(r)}
	rec.r.Done, rec.r.Failed, rec.r.Result, rec.r.Size = false, false, nil, 0
	s.idem[k] = rec
	s.idemExpiry.ReplaceOrInsert(rec)
	s.idemAccountExpiry.ReplaceOrInsert(rec)
	return cloneIdem(rec.r), true, nil
}

// CompleteIdempotency implements storage.Storage.
func (s *Store) CompleteIdempotency(ctx context.Context, c storage.Completion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "complete idempotency key"); err != nil {
		return err
	}
	if err := s.checkClaim(&c); err != nil {
		return fmt.Errorf("memstore: complete idempotency key %q: %w", c.Key, err)
	}
	s.complete(&c)
	return nil
}

// ReleaseIdempotency implements storage.Storage.
func (s *Store) ReleaseIdempotency(ctx context.Context, account, scope, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "release idempotency key"); err != nil {
		return err
	}
	if r := s.idem[idemKey{scope, key}]; r != nil && !r.r.Done && r.r.Token == token && r.r.Account == account {
		s.removeIdem(r)
	}
	return nil
}

// PurgeIdempotency implements storage.Storage.
func (s *Store) PurgeIdempotency(ctx context.Context, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "purge idempotency keys"); err != nil {
		return 0, err
	}
	return s.purge(now, -1), nil
}

// RenewIdempotency implements storage.Storage.
func (s *Store) RenewIdempotency(ctx context.Context, account, scope, key, token string, now, leaseExpiresAt time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "renew idempotency key"); err != nil {
		return err
	}
	r := s.idem[idemKey{scope, key}]
	if r == nil || r.r.Done || r.r.Token != token || r.r.Account != account || !r.r.LeaseExpiresAt.After(now) {
		return fmt.Errorf("memstore: renew idempotency key %q: %w", key, storage.ErrClaimLost)
	}
	if leaseExpiresAt.After(r.r.LeaseExpiresAt) {
		r.r.LeaseExpiresAt = leaseExpiresAt
	}
	return nil
}

// TrimIdempotency implements storage.Storage. It costs O(removed × log n).
func (s *Store) TrimIdempotency(ctx context.Context, account string, keep int, keepBytes int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "trim idempotency keys"); err != nil {
		return 0, err
	}
	n := 0
	for {
		d := s.idemDone[account]
		if d == nil || (d.order.Len() <= max(keep, 0) && d.bytes <= max(keepBytes, 0)) {
			return n, nil
		}
		r, _ := d.order.Min()
		s.removeIdem(r)
		n++
	}
}
