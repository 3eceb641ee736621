package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

const webhookColumns = `id, account, url, events, description, metadata, status, secret, created_at, modified_at, revision`

func scanWebhook(row pgx.Row) (storage.Webhook, error) {
	var (
		w    storage.Webhook
		meta []byte
	)
	if err := row.Scan(&w.ID, &w.Account, &w.URL, &w.Events, &w.Description, &meta, &w.Status, &w.Secret,
		&w.CreatedAt, &w.ModifiedAt, &w.Revision); err != nil {
		return storage.Webhook{}, err
	}
	m, err := decodeMetadata(meta)
	if err != nil {
		return storage.Webhook{}, err
	}
	w.Metadata = m
	if len(w.Events) == 0 {
		w.Events = nil
	}
	return w, nil
}

func checkWebhook(w *storage.Webhook, c *storage.Completion) error {
	switch {
	case !storable(w.ID, w.Account, w.URL, w.Description, w.Status, w.Secret):
		return errText("id, account, url, description, status or secret")
	case !storable(w.Events...):
		return errText("events")
	case !metadataStorable(w.Metadata):
		return errText("metadata")
	case c != nil && !storable(c.Account, c.Scope, c.Key, c.Token):
		return storage.ErrClaimLost
	}
	return nil
}

// webhookLockClass is the first key of the advisory lock a webhook create
// holds on its account, so that the count of the account's webhooks and
// the insert are one step: creates in one account take turns, and each
// counts what those before it inserted. The second key hashes the schema
// and the account; a collision only makes two accounts take turns.
const webhookLockClass = 0x776862 // "whb"

// createWebhookSQL inserts webhook $1 of account $2 unless the account has
// $11 webhooks already ($11 below 1: no limit).
const createWebhookSQL = `INSERT INTO webhooks (` + webhookColumns + `)
	SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1
	WHERE $11 < 1 OR (SELECT count(*) FROM webhooks WHERE account = $2) < $11
	RETURNING ` + webhookColumns

// WriteWebhook implements storage.Storage.
func (s *Store) WriteWebhook(ctx context.Context, w storage.Webhook, limit int, c *storage.Completion) (storage.Webhook, error) {
	op := "write webhook " + w.ID
	if err := checkWebhook(&w, c); err != nil {
		return storage.Webhook{}, fail(ctx, op, err)
	}
	meta, err := encodeMetadata(w.Metadata)
	if err != nil {
		return storage.Webhook{}, fail(ctx, op, err)
	}
	events := w.Events
	if events == nil {
		events = []string{}
	}
	var out storage.Webhook
	err = s.inClaimTx(ctx, c, func(tx pgx.Tx) error {
		if w.Revision == 0 {
			if limit > 0 {
				if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || '/' || $2))`,
					webhookLockClass, w.Account); err != nil {
					return err
				}
			}
			// A statement after the lock: its snapshot holds every create
			// that held the lock before.
			out, err = scanWebhook(tx.QueryRow(ctx, createWebhookSQL,
				w.ID, w.Account, w.URL, events, w.Description, meta, w.Status, w.Secret, w.CreatedAt, w.ModifiedAt, limit))
			switch {
			case isUniqueViolation(err):
				return storage.ErrAlreadyExists
			case errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("the account has %d webhooks: %w", limit, storage.ErrLimit)
			}
			return err
		}
		out, err = scanWebhook(tx.QueryRow(ctx, `UPDATE webhooks
			SET url = $3, events = $4, description = $5, metadata = $6, status = $7, modified_at = $8, revision = revision + 1
			WHERE id = $1 AND account = $2 AND revision = $9 RETURNING `+webhookColumns,
			w.ID, w.Account, w.URL, events, w.Description, meta, w.Status, w.ModifiedAt, w.Revision))
		if errors.Is(err, pgx.ErrNoRows) {
			return revisionMissing(ctx, tx, "webhooks", w.Account, w.ID)
		}
		return err
	})
	if err != nil {
		return storage.Webhook{}, fail(ctx, op, err)
	}
	return out, nil
}

// hasWebhooksSQL is HasWebhooks' query: whether any account has a webhook.
const hasWebhooksSQL = `SELECT EXISTS (SELECT 1 FROM webhooks)`

// HasWebhooks implements storage.Storage.
func (s *Store) HasWebhooks(ctx context.Context) (bool, error) {
	var has bool
	if err := s.pool.QueryRow(ctx, hasWebhooksSQL).Scan(&has); err != nil {
		return false, fail(ctx, "has webhooks", err)
	}
	return has, nil
}

// GetWebhook implements storage.Storage.
func (s *Store) GetWebhook(ctx context.Context, account, id string) (storage.Webhook, error) {
	op := "get webhook " + id
	if !storable(account, id) {
		return storage.Webhook{}, fail(ctx, op, storage.ErrNotFound)
	}
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1 AND account = $2`, id, account))
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Webhook{}, fail(ctx, op, storage.ErrNotFound)
	}
	if err != nil {
		return storage.Webhook{}, fail(ctx, op, err)
	}
	return w, nil
}

// nothing is the answer of a query that matches nothing: none, unless ctx
// has ended.
func nothing[T any](ctx context.Context, op string) ([]T, error) {
	if err := ctx.Err(); err != nil {
		return nil, fail(ctx, op, err)
	}
	return nil, nil
}

// ListWebhooks implements storage.Storage.
func (s *Store) ListWebhooks(ctx context.Context, q storage.WebhookQuery) ([]storage.Webhook, error) {
	const op = "list webhooks"
	if q.Limit <= 0 || !storable(q.Account, q.Before) {
		return nothing[storage.Webhook](ctx, op)
	}
	query := `SELECT ` + webhookColumns + ` FROM webhooks WHERE account = $1 AND ($2 = '' OR id < $2) ORDER BY id DESC LIMIT $3`
	rows, err := s.pool.Query(ctx, query, q.Account, q.Before, q.Limit)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Webhook, error) { return scanWebhook(r) })
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, nil
}

// DeleteWebhook implements storage.Storage. Its deliveries go with it
// (ON DELETE CASCADE).
func (s *Store) DeleteWebhook(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	return s.deleteAtRevision(ctx, "delete webhook "+id, "webhooks", account, id, revision, c)
}

const deliveryColumns = `webhook_id, id, account, event_id, type, letter_id, seq, event_at, status, attempts,
	next_attempt_at, retry_until, leased_until, last_attempt_at, status_code, error, revision`

func scanDelivery(row pgx.Row) (storage.Delivery, error) {
	var (
		d                   storage.Delivery
		leased, lastAttempt *time.Time
	)
	if err := row.Scan(&d.WebhookID, &d.ID, &d.Account, &d.EventID, &d.Type, &d.LetterID, &d.Seq, &d.EventAt, &d.Status,
		&d.Attempts, &d.NextAttemptAt, &d.RetryUntil, &leased, &lastAttempt, &d.StatusCode, &d.Error, &d.Revision); err != nil {
		return storage.Delivery{}, err
	}
	d.LeasedUntil, d.LastAttemptAt = timeOrZero(leased), timeOrZero(lastAttempt)
	return d, nil
}

// GetDelivery implements storage.Storage.
func (s *Store) GetDelivery(ctx context.Context, account, webhookID, id string) (storage.Delivery, error) {
	op := "get delivery " + id
	if !storable(account, webhookID, id) {
		return storage.Delivery{}, fail(ctx, op, storage.ErrNotFound)
	}
	d, err := scanDelivery(s.pool.QueryRow(ctx, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE webhook_id = $1 AND id = $2 AND account = $3`, webhookID, id, account))
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Delivery{}, fail(ctx, op, storage.ErrNotFound)
	}
	if err != nil {
		return storage.Delivery{}, fail(ctx, op, err)
	}
	return d, nil
}

// ListDeliveries implements storage.Storage.
func (s *Store) ListDeliveries(ctx context.Context, q storage.DeliveryQuery) ([]storage.Delivery, error) {
	const op = "list deliveries"
	if q.Limit <= 0 || !storable(q.Account, q.WebhookID, q.Before) {
		return nothing[storage.Delivery](ctx, op)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE webhook_id = $1 AND account = $2 AND ($3 = '' OR id < $3) ORDER BY id DESC LIMIT $4`,
		q.WebhookID, q.Account, q.Before, q.Limit)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Delivery, error) { return scanDelivery(r) })
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, nil
}

// updateDeliverySQL writes what may change of delivery $2 of webhook $1 in
// account $3, if it is at revision $12.
const updateDeliverySQL = `UPDATE deliveries
	SET status = $4, attempts = $5, next_attempt_at = $6, retry_until = $7, leased_until = $8, last_attempt_at = $9,
		status_code = $10, error = $11, revision = revision + 1
	WHERE webhook_id = $1 AND id = $2 AND account = $3 AND revision = $12
	RETURNING ` + deliveryColumns

func updateDeliveryArgs(d *storage.Delivery) []any {
	return []any{d.WebhookID, d.ID, d.Account, d.Status, d.Attempts, d.NextAttemptAt, d.RetryUntil,
		nullTime(d.LeasedUntil), nullTime(d.LastAttemptAt), d.StatusCode, d.Error, d.Revision}
}

// UpdateDelivery implements storage.Storage.
func (s *Store) UpdateDelivery(ctx context.Context, d storage.Delivery, c *storage.Completion) (storage.Delivery, error) {
	op := "update delivery " + d.ID
	if !storable(d.WebhookID, d.ID, d.Account) {
		return storage.Delivery{}, fail(ctx, op, storage.ErrNotFound)
	}
	if !storable(d.Status, d.Error) {
		return storage.Delivery{}, fail(ctx, op, errText("status or error"))
	}
	if c != nil && !storable(c.Account, c.Scope, c.Key, c.Token) {
		return storage.Delivery{}, fail(ctx, op, storage.ErrClaimLost)
	}
	var out storage.Delivery
	err := s.inClaimTx(ctx, c, func(tx pgx.Tx) error {
		var err error
		out, err = scanDelivery(tx.QueryRow(ctx, updateDeliverySQL, updateDeliveryArgs(&d)...))
		if errors.Is(err, pgx.ErrNoRows) {
			var rev int64
			err = tx.QueryRow(ctx, `SELECT revision FROM deliveries WHERE webhook_id = $1 AND id = $2 AND account = $3`,
				d.WebhookID, d.ID, d.Account).Scan(&rev)
			if errors.Is(err, pgx.ErrNoRows) {
				return storage.ErrNotFound
			}
			if err == nil {
				err = fmt.Errorf("at revision %d, stored %d: %w", d.Revision, rev, storage.ErrConflict)
			}
		}
		return err
	})
	if err != nil {
		return storage.Delivery{}, fail(ctx, op, err)
	}
	return out, nil
}

// firstOfLetter is the condition that pending delivery d is the first of
// its letter's to its webhook, the one to take: a lookup of the letter's
// least pending seq in deliveries_pending_by_letter. Written as a scalar
// subquery, not NOT EXISTS, so that it stays one lookup per delivery
// whatever the planner believes: on a table without statistics (no
// ANALYZE yet) an anti-join was planned as a scan of every pending
// delivery of the account for each delivery looked at.
const firstOfLetter = `d.seq = (SELECT min(e.seq) FROM deliveries e
	WHERE e.account = d.account AND e.webhook_id = d.webhook_id AND e.letter_id = d.letter_id AND e.status = 'pending')`

// dueDeliveriesSQL locks up to $2 deliveries due at $1 and not leased
// after $3, as ProcessDueDeliveries says, passing over those another
// transaction holds; %s adds the accounts' condition.
const dueDeliveriesSQL = `SELECT ` + deliveryColumns + ` FROM deliveries d
	WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.leased_until IS NULL OR d.leased_until <= $3) %s
		AND EXISTS (SELECT 1 FROM webhooks w WHERE w.account = d.account AND w.id = d.webhook_id AND w.status = 'enabled')
		AND ` + firstOfLetter + `
	ORDER BY %snext_attempt_at, d.webhook_id, d.id LIMIT $2
	FOR UPDATE OF d SKIP LOCKED`

// ProcessDueDeliveries implements storage.Storage, as ProcessDueLetters
// does: one transaction locks the due deliveries, writes what fn leaves in
// each, and commits.
func (s *Store) ProcessDueDeliveries(ctx context.Context, q storage.DeliveryDueQuery, fn func(*storage.Delivery) error) ([]storage.Delivery, error) {
	const op = "process due deliveries"
	if q.Limit <= 0 || !storable(q.Account) || !storable(q.Except...) || q.Account != "" && slices.Contains(q.Except, q.Account) {
		return nothing[storage.Delivery](ctx, op)
	}
	args := []any{q.Now, q.Limit, q.Leased}
	cond, order := "", "d."
	if q.Account != "" {
		args = append(args, q.Account)
		cond, order = "AND d.account = $4", "d.account, d."
	} else if len(q.Except) > 0 {
		args = append(args, q.Except)
		cond = "AND d.account <> ALL($4)"
	}
	query := fmt.Sprintf(dueDeliveriesSQL, cond, order)
	var (
		out   []storage.Delivery
		fnErr error
	)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Delivery, error) { return scanDelivery(r) })
		if err != nil {
			return err
		}
		for _, stored := range due {
			d := stored
			if err := fn(&d); err != nil {
				fnErr = err
				break
			}
			d.WebhookID, d.ID, d.Account, d.Revision = stored.WebhookID, stored.ID, stored.Account, stored.Revision
			if !storable(d.Status, d.Error) {
				return fmt.Errorf("delivery %s: %w", d.ID, errText("status or error"))
			}
			written, err := scanDelivery(tx.QueryRow(ctx, updateDeliverySQL, updateDeliveryArgs(&d)...))
			if err != nil {
				return fmt.Errorf("delivery %s: %w", d.ID, err)
			}
			out = append(out, written)
		}
		return nil
	})
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, fnErr
}

// accountLookahead is how many of an account's pending deliveries,
// earliest first, DeliveryAccounts looks at for one to take. Past them it
// names the account with the last one's time, the earliest its next could
// be due: the take that follows finds what there is.
const accountLookahead = 64

// deliveryAccountsSQL is DeliveryAccounts' query: the accounts after $1
// with deliveries to take at leases judged at $2, due by $3 when it is
// set, each with its earliest, up to $4 accounts. Its cost follows the
// accounts with pending deliveries, not the deliveries: a loose index
// scan (the recursive part) finds each account with pending deliveries
// with one descent of an index of them, and each account's earliest to
// take is looked for among its first accountLookahead pending deliveries
// in deliveries_due_by_account's order: the first, unless it is leased,
// of a disabled webhook, or waits behind an earlier change of its letter
// (one lookup each). An account none of whose first accountLookahead can
// be taken is named with the last one's time, which is no later than its
// earliest to take. (OFFSET 0 keeps the accounts' subquery whole, so
// that each account's earliest is looked for once, not again for the
// outer WHERE.)
var deliveryAccountsSQL = fmt.Sprintf(`WITH RECURSIVE accounts(account) AS (
		(SELECT d.account FROM deliveries d WHERE d.status = 'pending' AND d.account > $1 ORDER BY d.account LIMIT 1)
		UNION ALL
		SELECT (SELECT d.account FROM deliveries d WHERE d.status = 'pending' AND d.account > a.account ORDER BY d.account LIMIT 1)
		FROM accounts a WHERE a.account IS NOT NULL)
	SELECT n.account, n.next FROM (
		SELECT a.account, coalesce(
			(SELECT d.next_attempt_at FROM (
				SELECT d.account, d.webhook_id, d.letter_id, d.seq, d.leased_until, d.next_attempt_at FROM deliveries d
				WHERE d.account = a.account AND d.status = 'pending' AND d.next_attempt_at <= coalesce($3::timestamptz, 'infinity')
				ORDER BY d.next_attempt_at LIMIT %[1]d) d
			WHERE (d.leased_until IS NULL OR d.leased_until <= $2)
				AND EXISTS (SELECT 1 FROM webhooks w WHERE w.account = d.account AND w.id = d.webhook_id AND w.status = 'enabled')
				AND %[2]s
			ORDER BY d.next_attempt_at LIMIT 1),
			(SELECT d.next_attempt_at FROM deliveries d
			WHERE d.account = a.account AND d.status = 'pending' AND d.next_attempt_at <= coalesce($3::timestamptz, 'infinity')
			ORDER BY d.next_attempt_at OFFSET %[3]d LIMIT 1)) AS next
		FROM accounts a WHERE a.account IS NOT NULL OFFSET 0) n
	WHERE n.next IS NOT NULL
	LIMIT $4`, accountLookahead, firstOfLetter, accountLookahead-1)

// DeliveryAccounts implements storage.Storage.
func (s *Store) DeliveryAccounts(ctx context.Context, q storage.DeliveryAccountQuery) ([]storage.DeliveryAccount, error) {
	const op = "delivery accounts"
	if q.Limit <= 0 || !storable(q.After) {
		return nothing[storage.DeliveryAccount](ctx, op)
	}
	rows, err := s.pool.Query(ctx, deliveryAccountsSQL, q.After, q.Leased, nullTime(q.Until), q.Limit)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.DeliveryAccount, error) {
		var a storage.DeliveryAccount
		err := r.Scan(&a.Account, &a.Next)
		return a, err
	})
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, nil
}

// insertDeliveriesSQL makes, for the letter of the row in src (a relation
// with columns account and id), a pending delivery of each notice to every
// enabled webhook of the letter's account whose events take the notice's
// type; one that exists stays as it is. The notices are the six arguments
// from $first on (delivery id, event id, type, seq, time, retry until):
// arrays, or with one, scalars, which cost a create (a letter's one notice)
// less to send and to plan.
func insertDeliveriesSQL(src string, first int, one bool) string {
	notices := fmt.Sprintf(`unnest($%d::text[], $%d::text[], $%d::text[], $%d::integer[], $%d::timestamptz[], $%d::timestamptz[])`,
		first, first+1, first+2, first+3, first+4, first+5)
	if one {
		notices = fmt.Sprintf(`(VALUES ($%d::text, $%d::text, $%d::text, $%d::integer, $%d::timestamptz, $%d::timestamptz))`,
			first, first+1, first+2, first+3, first+4, first+5)
	}
	return fmt.Sprintf(`INSERT INTO deliveries (webhook_id, id, account, event_id, type, letter_id, seq, event_at, status,
			attempts, next_attempt_at, retry_until, status_code, error, revision)
		SELECT w.id, n.id, w.account, n.event_id, n.type, %[1]s.id, n.seq, n.at, 'pending', 0, n.at, n.retry_until, 0, '', 1
		FROM %[1]s JOIN webhooks w ON w.account = %[1]s.account AND w.status = 'enabled'
		CROSS JOIN %[2]s AS n(id, event_id, type, seq, at, retry_until)
		WHERE cardinality(w.events) = 0 OR n.type = ANY(w.events)
		ON CONFLICT DO NOTHING`, src, notices)
}

// noticeArgs are the arguments insertDeliveriesSQL takes, and whether they
// are one notice's scalars.
func noticeArgs(ns []storage.Notice) ([]any, bool, error) {
	for _, n := range ns {
		if !storable(n.EventID, n.Type) {
			return nil, false, errText("notice")
		}
	}
	if len(ns) == 1 {
		n := ns[0]
		return []any{storage.DeliveryID(n.EventID), n.EventID, n.Type, int32(n.Seq), n.At, n.RetryUntil}, true, nil
	}
	ids := make([]string, len(ns))
	events := make([]string, len(ns))
	types := make([]string, len(ns))
	seqs := make([]int32, len(ns))
	ats := make([]time.Time, len(ns))
	until := make([]time.Time, len(ns))
	for i, n := range ns {
		ids[i], events[i], types[i] = storage.DeliveryID(n.EventID), n.EventID, n.Type
		seqs[i], ats[i], until[i] = int32(n.Seq), n.At, n.RetryUntil
	}
	return []any{ids, events, types, seqs, ats, until}, false, nil
}

// notifySQL is insertDeliveriesSQL for the letter $1 of account $2, for
// many notices and for one.
var notifySQL = [2]string{
	`WITH l AS (SELECT $1::text AS id, $2::text AS account) ` + insertDeliveriesSQL("l", 3, false),
	`WITH l AS (SELECT $1::text AS id, $2::text AS account) ` + insertDeliveriesSQL("l", 3, true),
}

// notifyQuery is the statement and arguments that make the deliveries of
// l's notices.
func notifyQuery(l *storage.Letter) (string, []any, error) {
	n, one, err := noticeArgs(l.Notices)
	if err != nil {
		return "", nil, err
	}
	return notifySQL[b2i(one)], append([]any{l.ID, l.Account}, n...), nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
