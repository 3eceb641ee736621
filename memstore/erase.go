package memstore

import (
	"context"
	"math"
	"unique"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.Eraser = (*Store)(nil)

// EraseAccount implements storage.Eraser: every record of the account and
// its entries in every index go under one hold of the lock. The account's
// name and its clock's lead stay: the clock is not erased.
func (s *Store) EraseAccount(ctx context.Context, account string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "erase account"); err != nil {
		return err
	}
	s.eraseLetters(account)
	s.eraseAssets(account)
	s.eraseWebhooks(account)
	s.eraseIdempotency(account)
	return nil
}

func (s *Store) eraseLetters(account string) {
	acct, ok := s.names.lookup(account)
	if !ok {
		return
	}
	var recs []*letterRec
	s.lettersByAccount.get(acct).walk(letterLess, nil, false, func(r *letterRec) bool {
		recs = append(recs, r)
		return true
	})
	for _, r := range recs {
		s.unindexLetter(r)
		delete(s.letters, r.id)
	}
	delete(s.lettersByAccount.postings, acct)
}

func (s *Store) eraseAssets(account string) {
	var recs []*assetRec
	s.assetsByAccount.get(account).walk(assetLess, nil, false, func(r *assetRec) bool {
		recs = append(recs, r)
		return true
	})
	for _, r := range recs {
		s.unindexAssetMetadata(r)
		for _, t := range r.versions {
			t.Ascend(func(v *versionRec) bool {
				delete(s.versions, v.v.ID)
				return true
			})
		}
		delete(s.assets, r.a.ID)
	}
	delete(s.assetsByAccount.postings, account)
	// Content is kept once for every account that has it (putContent):
	// the shared copy goes with the last account that has it.
	for _, h := range s.contentOf[account] {
		delete(s.content, contentKey{account, h})
		if s.contentHolders[h]--; s.contentHolders[h] == 0 {
			delete(s.contentHolders, h)
			delete(s.contentByHash, h)
		}
	}
	delete(s.contentOf, account)
}

func (s *Store) eraseWebhooks(account string) {
	wh := &s.hooks
	t := wh.byAccount[account]
	if t == nil {
		return
	}
	t.Ascend(func(r *webhookRec) bool {
		if ds := wh.deliveries[r.w.ID]; ds != nil {
			ds.Ascend(func(d *deliveryRec) bool {
				if d.d.Status == storage.DeliveryPending {
					s.unpend(d)
				}
				return true
			})
			delete(wh.deliveries, r.w.ID)
		}
		delete(wh.byID, r.w.ID)
		return true
	})
	delete(wh.byAccount, account)
}

func (s *Store) eraseIdempotency(account string) {
	acct := unique.Make(account)
	pivot := &idemRec{account: acct}
	pivot.secs[idemExpires] = math.MinInt64
	var recs []*idemRec
	s.idemAccountExpiry.AscendGreaterOrEqual(pivot, func(r *idemRec) bool {
		if r.account != acct {
			return false
		}
		recs = append(recs, r)
		return true
	})
	for _, r := range recs {
		s.removeIdem(r)
	}
}
