package memstore

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"
	"unique"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

// idemRec is an idempotency record as the store keeps it: a store keeps
// one for each request made with a key for a day, as many as the letters
// those requests make, so it is kept small. Its scope and account are
// interned (an API key's scope is shared by all of its records), its times
// are Unix seconds and nanoseconds (an account's clock may stand anywhere
// up to the year 9999, which Unix nanoseconds, ending in 2262, do not
// reach), and a fingerprint in hex (as the service makes them) is kept as
// the bytes it spells.
type idemRec struct {
	scope   unique.Handle[string]
	account unique.Handle[string]
	key     string
	// fp is the fingerprint, or the bytes its hex spells when fpHex.
	fp    string
	token string
	// result is the kept form of the outcome; nil in flight.
	result storage.Document
	// size is the outcome's Size, at most MaxUint32 (an outcome is held
	// in memory, far below 4 GiB): with doneSeq it takes the room of one
	// int64.
	size uint32
	// doneSeq is the store's count of completions when the record was
	// completed, modulo 2^32: of records made at one instant, the one
	// completed first is the older (doneBefore).
	doneSeq uint32
	// secs and nsecs are the record's times (idemCreated, idemExpires,
	// idemLease), as stamp keeps them.
	secs                [3]int64
	nsecs               [3]int32
	done, failed, fpHex bool
}

// doneBefore reports whether a was completed before b, by their doneSeq
// as serial numbers: right however often the count has wrapped, while
// fewer than 2^31 completions lie between them.
func doneBefore(a, b *idemRec) bool { return int32(a.doneSeq-b.doneSeq) < 0 }

// The times of an idemRec, by index.
const (
	idemCreated = iota
	idemExpires
	idemLease
)

func (r *idemRec) time(i int) time.Time { return unstamp(r.secs[i], r.nsecs[i]) }

func (r *idemRec) setTime(i int, t time.Time) { r.secs[i], r.nsecs[i] = stamp(t) }

// after reports whether r's time i is after t.
func (r *idemRec) after(i int, t time.Time) bool { return stampAfter(r.secs[i], r.nsecs[i], t) }

// timeLess orders a and b by their times i.
func timeLess(a, b *idemRec, i int) (less, equal bool) {
	return stampLess(a.secs[i], a.nsecs[i], b.secs[i], b.nsecs[i])
}

func newIdemRec(r storage.IdempotencyRecord) *idemRec {
	rec := &idemRec{
		scope: unique.Make(r.Scope), account: unique.Make(r.Account), key: strings.Clone(r.Key),
		fp: strings.Clone(r.Fingerprint), token: strings.Clone(r.Token),
	}
	rec.setTime(idemCreated, r.CreatedAt)
	rec.setTime(idemExpires, r.ExpiresAt)
	rec.setTime(idemLease, r.LeaseExpiresAt)
	if b, err := hex.DecodeString(r.Fingerprint); err == nil && hex.EncodeToString(b) == r.Fingerprint {
		rec.fp, rec.fpHex = string(b), true
	}
	return rec
}

// record returns a copy of the record to hand out.
func (r *idemRec) record() storage.IdempotencyRecord {
	fp := r.fp
	if r.fpHex {
		fp = hex.EncodeToString([]byte(r.fp))
	}
	return storage.IdempotencyRecord{
		Scope: r.scope.Value(), Key: r.key, Fingerprint: fp, Token: r.token,
		Done: r.done, Result: storage.CloneDocument(r.result), Size: int64(r.size), Failed: r.failed,
		Account: r.account.Value(), CreatedAt: r.time(idemCreated), ExpiresAt: r.time(idemExpires),
		LeaseExpiresAt: r.time(idemLease),
	}
}

// idemKeyLess orders records by scope and key, as the store finds them.
func idemKeyLess(a, b *idemRec) bool {
	if a.scope != b.scope {
		return a.scope.Value() < b.scope.Value()
	}
	return a.key < b.key
}

// findIdem returns the record of (scope, key), or nil.
func (s *Store) findIdem(scope, key string) *idemRec {
	r, _ := s.idem.Get(&idemRec{scope: unique.Make(scope), key: key})
	return r
}

// expired reports whether the record no longer counts at now.
func (r *idemRec) expired(now time.Time) bool { return !r.after(idemExpires, now) }

func idemExpiryLess(a, b *idemRec) bool {
	if less, equal := timeLess(a, b, idemExpires); !equal {
		return less
	}
	if a.scope != b.scope {
		return a.scope.Value() < b.scope.Value()
	}
	return a.key < b.key
}

// idemAccountExpiryLess orders records by account, then as idemExpiryLess.
func idemAccountExpiryLess(a, b *idemRec) bool {
	if a.account != b.account {
		return a.account.Value() < b.account.Value()
	}
	return idemExpiryLess(a, b)
}

// idemTrimLess orders an account's completed records as TrimIdempotency
// removes them: failed first, then oldest first, and of one CreatedAt the
// first completed first.
func idemTrimLess(a, b *idemRec) bool {
	if a.failed != b.failed {
		return a.failed
	}
	if less, equal := timeLess(a, b, idemCreated); !equal {
		return less
	}
	if a.doneSeq != b.doneSeq {
		return doneBefore(a, b)
	}
	if a.scope != b.scope {
		return a.scope.Value() < b.scope.Value()
	}
	return a.key < b.key
}

// idemDone is an account's completed records, in the order
// TrimIdempotency removes them, and the sum of their sizes.
type idemDone struct {
	order *btree.BTreeG[*idemRec]
	bytes int64
}

// forgetDone takes a completed record out of its account's trim order.
func (s *Store) forgetDone(r *idemRec) {
	if !r.done {
		return
	}
	d := s.idemDone[r.account]
	if d == nil {
		return
	}
	if _, ok := d.order.Delete(r); ok {
		d.bytes -= int64(r.size)
	}
	if d.order.Len() == 0 {
		delete(s.idemDone, r.account)
	}
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
		if !ok || !r.expired(now) {
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
	acct := unique.Make(account)
	pivot := &idemRec{account: acct}
	pivot.secs[idemExpires] = math.MinInt64
	s.idemAccountExpiry.AscendGreaterOrEqual(pivot, func(r *idemRec) bool {
		if r.account != acct || !r.expired(now) {
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
	s.idem.Delete(r)
}

// checkClaim returns storage.ErrClaimLost unless c is nil or names a claim
// in flight under its token. Callers hold the lock and, when it passes,
// call complete before releasing it.
func (s *Store) checkClaim(c *storage.Completion) error {
	if c == nil {
		return nil
	}
	r := s.findIdem(c.Scope, c.Key)
	if r == nil || r.done || r.token != c.Token || r.account.Value() != c.Account {
		return storage.ErrClaimLost
	}
	return nil
}

// complete stores c's result on the claim checkClaim has accepted.
func (s *Store) complete(c *storage.Completion) {
	if c == nil {
		return
	}
	r := s.findIdem(c.Scope, c.Key)
	// The token only names a claim in flight; a completed record has none.
	r.done, r.failed, r.token = true, c.Failed, ""
	r.result, r.size = storage.KeepDocument(c.Result), uint32(min(max(c.Size, 0), math.MaxUint32))
	s.idemDoneSeq++
	r.doneSeq = s.idemDoneSeq
	d := s.idemDone[r.account]
	if d == nil {
		d = &idemDone{order: btree.NewWithFreeListG(degree, idemTrimLess, s.idemFree)}
		s.idemDone[r.account] = d
	}
	d.order.ReplaceOrInsert(r)
	d.bytes += int64(r.size)
}

// ClaimIdempotency implements storage.Storage.
func (s *Store) ClaimIdempotency(ctx context.Context, r storage.IdempotencyRecord, now time.Time) (storage.IdempotencyRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "claim idempotency key"); err != nil {
		return storage.IdempotencyRecord{}, false, err
	}
	s.purgeAccount(r.Account, now, claimPurgeBatch)
	if old := s.findIdem(r.Scope, r.Key); old != nil {
		if live := !old.expired(now) && (old.done || old.after(idemLease, now)); live {
			return old.record(), false, nil
		}
		s.removeIdem(old)
	}
	rec := newIdemRec(r)
	s.idem.ReplaceOrInsert(rec)
	s.idemExpiry.ReplaceOrInsert(rec)
	s.idemAccountExpiry.ReplaceOrInsert(rec)
	return rec.record(), true, nil
}

// CompleteIdempotency implements storage.Storage.
func (s *Store) CompleteIdempotency(ctx context.Context, c storage.Completion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "complete idempotency key"); err != nil {
		return err
	}
	if err := s.checkClaim(&c); err != nil {
		return fmt.Errorf("memstore: complete idempotency key: %w", err)
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
	if r := s.findIdem(scope, key); r != nil && !r.done && r.token == token && r.account.Value() == account {
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
	r := s.findIdem(scope, key)
	if r == nil || r.done || r.token != token || r.account.Value() != account || !r.after(idemLease, now) {
		return fmt.Errorf("memstore: renew idempotency key: %w", storage.ErrClaimLost)
	}
	if !r.after(idemLease, leaseExpiresAt) {
		r.setTime(idemLease, leaseExpiresAt)
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
	acct := unique.Make(account)
	for {
		d := s.idemDone[acct]
		if d == nil || (d.order.Len() <= max(keep, 0) && d.bytes <= max(keepBytes, 0)) {
			return n, nil
		}
		r, _ := d.order.Min()
		s.removeIdem(r)
		n++
	}
}
