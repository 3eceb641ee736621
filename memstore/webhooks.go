package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/btree"

	"github.com/lettershop/lettershop/storage"
)

// webhooks holds the webhooks and their deliveries. It lives inside Store,
// under Store's one mutex.
type webhooks struct {
	byID      map[string]*webhookRec
	byAccount map[string]*btree.BTreeG[*webhookRec]
	// deliveries of each webhook, by id.
	deliveries map[string]*btree.BTreeG[*deliveryRec]
	// due holds the pending deliveries by due time, and by account.
	due deliveryDue
	// pending holds, per webhook and letter, its pending deliveries in Seq
	// order: only the first is due.
	pending map[letterKey][]*deliveryRec
	// free and deliveryFree serve every tree of webhooks and of
	// deliveries: one per account and one per webhook, each with a free
	// list of its own otherwise.
	free         *btree.FreeListG[*webhookRec]
	deliveryFree *btree.FreeListG[*deliveryRec]
}

type webhookRec struct{ w storage.Webhook }

type deliveryRec struct {
	d storage.Delivery
	// busy marks a delivery a ProcessDueDeliveries call picked and has not
	// yet reached.
	busy bool
}

type letterKey struct{ webhook, letter string }

func newWebhooks() webhooks {
	deliveryFree := btree.NewFreeListG[*deliveryRec](btree.DefaultFreeListSize)
	return webhooks{
		byID:       map[string]*webhookRec{},
		byAccount:  map[string]*btree.BTreeG[*webhookRec]{},
		deliveries: map[string]*btree.BTreeG[*deliveryRec]{},
		due: deliveryDue{
			byTime:    btree.NewWithFreeListG(degree, deliveryDueLess, deliveryFree),
			byAccount: btree.NewWithFreeListG(degree, deliveryAccountDueLess, deliveryFree),
		},
		pending:      map[letterKey][]*deliveryRec{},
		free:         btree.NewFreeListG[*webhookRec](btree.DefaultFreeListSize),
		deliveryFree: deliveryFree,
	}
}

func webhookLess(a, b *webhookRec) bool { return a.w.ID < b.w.ID }

func deliveryLess(a, b *deliveryRec) bool { return a.d.ID < b.d.ID }

func deliveryDueLess(a, b *deliveryRec) bool {
	if !a.d.NextAttemptAt.Equal(b.d.NextAttemptAt) {
		return a.d.NextAttemptAt.Before(b.d.NextAttemptAt)
	}
	if a.d.WebhookID != b.d.WebhookID {
		return a.d.WebhookID < b.d.WebhookID
	}
	return a.d.ID < b.d.ID
}

func deliveryAccountDueLess(a, b *deliveryRec) bool {
	if a.d.Account != b.d.Account {
		return a.d.Account < b.d.Account
	}
	return deliveryDueLess(a, b)
}

// deliveryDue is dueIndex for deliveries.
type deliveryDue struct {
	byTime    *btree.BTreeG[*deliveryRec]
	byAccount *btree.BTreeG[*deliveryRec]
}

func (d deliveryDue) add(r *deliveryRec) {
	d.byTime.ReplaceOrInsert(r)
	d.byAccount.ReplaceOrInsert(r)
}

func (d deliveryDue) remove(r *deliveryRec) {
	d.byTime.Delete(r)
	d.byAccount.Delete(r)
}

// ascend calls fn with the pending deliveries q selects whose
// NextAttemptAt is not after q.Now, earliest first, until fn returns false.
func (d deliveryDue) ascend(q storage.DueQuery, fn func(*deliveryRec) bool) {
	tree, from := d.byTime, (*deliveryRec)(nil)
	if q.Account != "" {
		tree, from = d.byAccount, &deliveryRec{d: storage.Delivery{Account: q.Account}}
	}
	visit := func(r *deliveryRec) bool {
		if q.Account != "" && r.d.Account != q.Account || r.d.NextAttemptAt.After(q.Now) {
			return false
		}
		if slices.Contains(q.Except, r.d.Account) {
			return q.Account == ""
		}
		return fn(r)
	}
	if from == nil {
		tree.Ascend(visit)
		return
	}
	tree.AscendGreaterOrEqual(from, visit)
}

func cloneWebhook(w storage.Webhook) storage.Webhook {
	w.Events = slices.Clone(w.Events)
	w.Metadata = cloneMetadata(w.Metadata)
	return w
}

// WriteWebhook implements storage.Storage. Its count and its create are
// one step: both under the store's lock.
func (s *Store) WriteWebhook(ctx context.Context, w storage.Webhook, limit int, c *storage.Completion) (storage.Webhook, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "write webhook"); err != nil {
		return storage.Webhook{}, err
	}
	if err := s.checkClaim(c); err != nil {
		return storage.Webhook{}, fmt.Errorf("memstore: write webhook %q: %w", w.ID, err)
	}
	wh := &s.hooks
	r := wh.byID[w.ID]
	w = cloneWebhook(w)
	w.Metadata = internMetadata(w.Metadata)
	if w.Revision == 0 {
		if r != nil {
			return storage.Webhook{}, fmt.Errorf("memstore: create webhook %q: %w", w.ID, storage.ErrAlreadyExists)
		}
		t := wh.byAccount[w.Account]
		if limit > 0 && t != nil && t.Len() >= limit {
			return storage.Webhook{}, fmt.Errorf("memstore: create webhook %q: the account has %d: %w", w.ID, t.Len(), storage.ErrLimit)
		}
		w.Revision = 1
		r = &webhookRec{w: w}
		wh.byID[w.ID] = r
		if t == nil {
			t = btree.NewWithFreeListG(degree, webhookLess, wh.free)
			wh.byAccount[w.Account] = t
		}
		t.ReplaceOrInsert(r)
		s.complete(c)
		return cloneWebhook(r.w), nil
	}
	if r == nil || r.w.Account != w.Account {
		return storage.Webhook{}, fmt.Errorf("memstore: update webhook %q: %w", w.ID, storage.ErrNotFound)
	}
	if r.w.Revision != w.Revision {
		return storage.Webhook{}, fmt.Errorf("memstore: update webhook %q at revision %d, stored %d: %w",
			w.ID, w.Revision, r.w.Revision, storage.ErrConflict)
	}
	w.Secret, w.CreatedAt = r.w.Secret, r.w.CreatedAt
	w.Revision++
	r.w = w
	s.complete(c)
	return cloneWebhook(r.w), nil
}

// HasWebhooks implements storage.Storage.
func (s *Store) HasWebhooks(ctx context.Context) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "has webhooks"); err != nil {
		return false, err
	}
	return len(s.hooks.byID) > 0, nil
}

// GetWebhook implements storage.Storage.
func (s *Store) GetWebhook(ctx context.Context, account, id string) (storage.Webhook, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "get webhook"); err != nil {
		return storage.Webhook{}, err
	}
	r := s.hooks.byID[id]
	if r == nil || r.w.Account != account {
		return storage.Webhook{}, fmt.Errorf("memstore: get webhook %q: %w", id, storage.ErrNotFound)
	}
	return cloneWebhook(r.w), nil
}

// ListWebhooks implements storage.Storage.
func (s *Store) ListWebhooks(ctx context.Context, q storage.WebhookQuery) ([]storage.Webhook, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "list webhooks"); err != nil {
		return nil, err
	}
	t := s.hooks.byAccount[q.Account]
	if q.Limit <= 0 || t == nil {
		return nil, nil
	}
	out := make([]storage.Webhook, 0, pageCap(q.Limit, t.Len()))
	before := &webhookRec{w: storage.Webhook{ID: q.Before}}
	walk(t, webhookLess, before, q.Before != "", func(r *webhookRec) bool {
		out = append(out, cloneWebhook(r.w))
		return len(out) < q.Limit
	})
	return out, nil
}

// DeleteWebhook implements storage.Storage.
func (s *Store) DeleteWebhook(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "delete webhook"); err != nil {
		return err
	}
	if err := s.checkClaim(c); err != nil {
		return fmt.Errorf("memstore: delete webhook %q: %w", id, err)
	}
	wh := &s.hooks
	r := wh.byID[id]
	if r == nil || r.w.Account != account {
		return fmt.Errorf("memstore: delete webhook %q: %w", id, storage.ErrNotFound)
	}
	if r.w.Revision != revision {
		return fmt.Errorf("memstore: delete webhook %q at revision %d, stored %d: %w", id, revision, r.w.Revision, storage.ErrConflict)
	}
	if t := wh.deliveries[id]; t != nil {
		t.Ascend(func(d *deliveryRec) bool {
			if d.d.Status == storage.DeliveryPending {
				s.unpend(d)
			}
			return true
		})
		delete(wh.deliveries, id)
	}
	if t := wh.byAccount[account]; t != nil {
		t.Delete(r)
		if t.Len() == 0 {
			delete(wh.byAccount, account)
		}
	}
	delete(wh.byID, id)
	s.complete(c)
	return nil
}

// notify makes the deliveries of the notices of letter l (already checked
// and about to be written) to every enabled webhook of its account whose
// events take them; a delivery that exists stays as it is. It returns how
// many it made.
func (s *Store) notify(l *storage.Letter) int {
	if len(l.Notices) == 0 {
		return 0
	}
	notices := l.Notices
	l.Notices = nil
	t := s.hooks.byAccount[l.Account]
	if t == nil {
		return 0
	}
	made := 0
	t.Ascend(func(r *webhookRec) bool {
		w := &r.w
		if w.Status != storage.WebhookEnabled {
			return true
		}
		for _, n := range notices {
			if len(w.Events) > 0 && !slices.Contains(w.Events, n.Type) {
				continue
			}
			if s.addDelivery(storage.Delivery{
				ID: storage.DeliveryID(n.EventID), Account: l.Account, WebhookID: w.ID, EventID: n.EventID, Type: n.Type,
				LetterID: l.ID, Seq: n.Seq, EventAt: n.At, Status: storage.DeliveryPending,
				NextAttemptAt: n.At, RetryUntil: n.RetryUntil, Revision: 1,
			}) {
				made++
			}
		}
		return true
	})
	return made
}

// addDelivery stores d unless its webhook has a delivery of that id, and
// reports whether it did.
func (s *Store) addDelivery(d storage.Delivery) bool {
	wh := &s.hooks
	t := wh.deliveries[d.WebhookID]
	if t == nil {
		t = btree.NewWithFreeListG(degree, deliveryLess, wh.deliveryFree)
		wh.deliveries[d.WebhookID] = t
	}
	r := &deliveryRec{d: d}
	if t.Has(r) {
		return false
	}
	t.ReplaceOrInsert(r)
	s.pend(r)
	return true
}

// pend files a pending delivery in the due indexes and its letter's queue.
func (s *Store) pend(r *deliveryRec) {
	wh := &s.hooks
	wh.due.add(r)
	k := letterKey{r.d.WebhookID, r.d.LetterID}
	q := wh.pending[k]
	i, _ := slices.BinarySearchFunc(q, r, func(a, b *deliveryRec) int {
		if a.d.Seq != b.d.Seq {
			return a.d.Seq - b.d.Seq
		}
		return strings.Compare(a.d.ID, b.d.ID)
	})
	wh.pending[k] = slices.Insert(q, i, r)
}

// unpend takes a delivery that was pending out of the due indexes and its
// letter's queue.
func (s *Store) unpend(r *deliveryRec) {
	wh := &s.hooks
	wh.due.remove(r)
	k := letterKey{r.d.WebhookID, r.d.LetterID}
	q := slices.DeleteFunc(wh.pending[k], func(x *deliveryRec) bool { return x == r })
	if len(q) == 0 {
		delete(wh.pending, k)
	} else {
		wh.pending[k] = q
	}
}

// first reports whether r is the first pending delivery of its letter to
// its webhook.
func (s *Store) first(r *deliveryRec) bool {
	q := s.hooks.pending[letterKey{r.d.WebhookID, r.d.LetterID}]
	return len(q) > 0 && q[0] == r
}

// GetDelivery implements storage.Storage.
func (s *Store) GetDelivery(ctx context.Context, account, webhookID, id string) (storage.Delivery, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "get delivery"); err != nil {
		return storage.Delivery{}, err
	}
	r := s.delivery(account, webhookID, id)
	if r == nil {
		return storage.Delivery{}, fmt.Errorf("memstore: get delivery %q: %w", id, storage.ErrNotFound)
	}
	return r.d, nil
}

func (s *Store) delivery(account, webhookID, id string) *deliveryRec {
	t := s.hooks.deliveries[webhookID]
	if t == nil {
		return nil
	}
	r, ok := t.Get(&deliveryRec{d: storage.Delivery{ID: id}})
	if !ok || r.d.Account != account {
		return nil
	}
	return r
}

// ListDeliveries implements storage.Storage.
func (s *Store) ListDeliveries(ctx context.Context, q storage.DeliveryQuery) ([]storage.Delivery, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "list deliveries"); err != nil {
		return nil, err
	}
	w := s.hooks.byID[q.WebhookID]
	t := s.hooks.deliveries[q.WebhookID]
	if q.Limit <= 0 || w == nil || w.w.Account != q.Account || t == nil {
		return nil, nil
	}
	out := make([]storage.Delivery, 0, pageCap(q.Limit, t.Len()))
	before := &deliveryRec{d: storage.Delivery{ID: q.Before}}
	walk(t, deliveryLess, before, q.Before != "", func(r *deliveryRec) bool {
		out = append(out, r.d)
		return len(out) < q.Limit
	})
	return out, nil
}

// UpdateDelivery implements storage.Storage.
func (s *Store) UpdateDelivery(ctx context.Context, d storage.Delivery, c *storage.Completion) (storage.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "update delivery"); err != nil {
		return storage.Delivery{}, err
	}
	if err := s.checkClaim(c); err != nil {
		return storage.Delivery{}, fmt.Errorf("memstore: update delivery %q: %w", d.ID, err)
	}
	r := s.delivery(d.Account, d.WebhookID, d.ID)
	if r == nil {
		return storage.Delivery{}, fmt.Errorf("memstore: update delivery %q: %w", d.ID, storage.ErrNotFound)
	}
	if r.d.Revision != d.Revision {
		return storage.Delivery{}, fmt.Errorf("memstore: update delivery %q at revision %d, stored %d: %w",
			d.ID, d.Revision, r.d.Revision, storage.ErrConflict)
	}
	s.replaceDelivery(r, d)
	s.complete(c)
	return r.d, nil
}

// replaceDelivery writes the fields of d that may change over r, keeping
// the indexes in step.
func (s *Store) replaceDelivery(r *deliveryRec, d storage.Delivery) {
	if r.d.Status == storage.DeliveryPending {
		s.unpend(r)
	}
	r.d.Status, r.d.Attempts, r.d.NextAttemptAt, r.d.RetryUntil = d.Status, d.Attempts, d.NextAttemptAt, d.RetryUntil
	r.d.LeasedUntil, r.d.LastAttemptAt, r.d.StatusCode, r.d.Error = d.LeasedUntil, d.LastAttemptAt, d.StatusCode, d.Error
	r.d.Revision++
	if r.d.Status == storage.DeliveryPending {
		s.pend(r)
	}
}

// ProcessDueDeliveries implements storage.Storage. It picks, then writes
// each picked delivery under the lock, as ProcessDueLetters does.
func (s *Store) ProcessDueDeliveries(ctx context.Context, q storage.DeliveryDueQuery, fn func(*storage.Delivery) error) ([]storage.Delivery, error) {
	picked, err := s.pickDueDeliveries(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []storage.Delivery
	err = processPicked(s, picked, func(r *deliveryRec) { r.busy = false }, func(r *deliveryRec) error {
		d, written, err := s.processDueDelivery(ctx, r, q, fn)
		if written {
			out = append(out, d)
		}
		return err
	})
	return out, err
}

func (s *Store) pickDueDeliveries(ctx context.Context, q storage.DeliveryDueQuery) ([]*deliveryRec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkContext(ctx, "process due deliveries"); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, nil
	}
	var picked []*deliveryRec
	s.hooks.due.ascend(q.DueQuery, func(r *deliveryRec) bool {
		if !r.busy && s.dueDelivery(r, q) {
			r.busy = true
			picked = append(picked, r)
		}
		return len(picked) < q.Limit
	})
	return picked, nil
}

// dueDelivery reports whether r may be taken now: pending, due, not
// leased, of an enabled webhook, and first of its letter's.
func (s *Store) dueDelivery(r *deliveryRec, q storage.DeliveryDueQuery) bool {
	return !r.d.NextAttemptAt.After(q.Now) && s.takeable(r, q.Leased)
}

func (s *Store) processDueDelivery(ctx context.Context, r *deliveryRec, q storage.DeliveryDueQuery, fn func(*storage.Delivery) error) (storage.Delivery, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.busy = false
	if err := checkContext(ctx, "process due deliveries"); err != nil {
		return storage.Delivery{}, false, err
	}
	// A delivery deleted with its webhook (or erased with its account) is
	// no longer in its tree; one of its id made since is not first of its
	// letter's pending deliveries (first), so not due.
	if t := s.hooks.deliveries[r.d.WebhookID]; t == nil || !t.Has(r) || !s.dueDelivery(r, q) {
		return storage.Delivery{}, false, nil
	}
	d := r.d
	if err := fn(&d); err != nil {
		return storage.Delivery{}, false, err
	}
	s.replaceDelivery(r, d)
	return r.d, true, nil
}

// DeliveryAccounts implements storage.Storage. It walks the pending
// deliveries by account and due time, from each account's earliest to its
// first that may be taken, then seeks past the account: the walk follows
// the accounts with pending deliveries.
func (s *Store) DeliveryAccounts(ctx context.Context, q storage.DeliveryAccountQuery) ([]storage.DeliveryAccount, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := checkContext(ctx, "delivery accounts"); err != nil {
		return nil, err
	}
	var out []storage.DeliveryAccount
	// from is where the walk resumes: at q.After's successor, then past
	// each account it has seen.
	from, past := q.After, q.After != ""
	for len(out) < q.Limit {
		key := &deliveryRec{d: storage.Delivery{Account: from}}
		if past {
			// A NUL byte after the name: no account sorts between them.
			key.d.Account = from + "\x00"
		}
		seen, account := false, ""
		s.hooks.due.byAccount.AscendGreaterOrEqual(key, func(r *deliveryRec) bool {
			d := &r.d
			switch {
			case seen && d.Account != account:
				return false // the account had none to take
			case !q.Until.IsZero() && d.NextAttemptAt.After(q.Until):
				// Later ones of the account are later still.
				seen, account = true, d.Account
				return false
			}
			seen, account = true, d.Account
			if s.takeable(r, q.Leased) {
				out = append(out, storage.DeliveryAccount{Account: d.Account, Next: d.NextAttemptAt})
				return false
			}
			return true
		})
		if !seen {
			break
		}
		from, past = account, true
	}
	return out, nil
}

// takeable reports whether r is a delivery ProcessDueDeliveries would take
// once due, with leases judged at leased.
func (s *Store) takeable(r *deliveryRec, leased time.Time) bool {
	d := &r.d
	if d.Status != storage.DeliveryPending || d.LeasedUntil.After(leased) {
		return false
	}
	if w := s.hooks.byID[d.WebhookID]; w == nil || w.w.Status != storage.WebhookEnabled {
		return false
	}
	return s.first(r)
}
