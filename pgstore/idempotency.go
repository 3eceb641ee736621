package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

const idemColumns = `scope, key, fingerprint, token, done, result, size, created_at, expires_at, lease_expires_at, account, failed`

// claimSQL claims (account $9, scope $1, key $2) for the record $1..$7 at
// time $8 in one statement: it inserts the record, or overwrites one that
// is no longer live, and returns it with true; otherwise it returns the
// live record with false. The unique key makes concurrent claimants queue
// on one row, so exactly one of them wins. The second branch reads the
// statement's snapshot, which may not yet hold a row a concurrent claim has
// just committed; claim then asks again.
const claimSQL = `WITH won AS (
		INSERT INTO idempotency AS i (` + idemColumns + `)
		VALUES ($1, $2, $3, $4, false, NULL, 0, $5, $6, $7, $9, false)
		ON CONFLICT (account, scope, key) DO UPDATE SET
			fingerprint = excluded.fingerprint, token = excluded.token, done = false, result = NULL, size = 0,
			created_at = excluded.created_at, expires_at = excluded.expires_at, lease_expires_at = excluded.lease_expires_at,
			failed = false
		WHERE i.expires_at <= $8 OR (NOT i.done AND i.lease_expires_at <= $8)
		RETURNING ` + idemColumns + `
	)
	SELECT ` + idemColumns + `, true FROM won
	UNION ALL
	SELECT ` + idemColumns + `, false FROM idempotency
	WHERE account = $9 AND scope = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM won)`

// claimAttempts bounds the retries of a claim that met a record changing
// under it; each retry needs another claimant to have changed the record in
// between, so a few are plenty.
const claimAttempts = 10

// ClaimIdempotency implements storage.Storage. Expiry and lease are judged by
// now, the service's clock, never the database's.
func (s *Store) ClaimIdempotency(ctx context.Context, r storage.IdempotencyRecord, now time.Time) (storage.IdempotencyRecord, bool, error) {
	op := fmt.Sprintf("claim idempotency key %q", r.Key)
	if !storable(r.Scope, r.Key, r.Fingerprint, r.Token, r.Account) {
		return storage.IdempotencyRecord{}, false, fail(ctx, op, errText("scope, key, fingerprint, token or account"))
	}
	for range claimAttempts {
		var (
			got    storage.IdempotencyRecord
			result []byte
			won    bool
		)
		err := s.pool.QueryRow(ctx, claimSQL,
			r.Scope, r.Key, r.Fingerprint, r.Token, r.CreatedAt, r.ExpiresAt, r.LeaseExpiresAt, now, r.Account,
		).Scan(&got.Scope, &got.Key, &got.Fingerprint, &got.Token, &got.Done, &result, &got.Size,
			&got.CreatedAt, &got.ExpiresAt, &got.LeaseExpiresAt, &got.Account, &got.Failed, &won)
		if result != nil {
			got.Result = storage.Encoded(result)
		}
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			// The record the insert met is not in this statement's
			// snapshot: committed by a claim running alongside.
			continue
		case err != nil:
			return storage.IdempotencyRecord{}, false, fail(ctx, op, err)
		case !won && !live(got, now):
			// An older version of a record just taken over or released.
			continue
		}
		return got, won, nil
	}
	return storage.IdempotencyRecord{}, false, fail(ctx, op, errors.New("the record kept changing; try again"))
}

// live reports whether r still counts at now.
func live(r storage.IdempotencyRecord, now time.Time) bool {
	return r.ExpiresAt.After(now) && (r.Done || r.LeaseExpiresAt.After(now))
}

// CompleteIdempotency implements storage.Storage.
func (s *Store) CompleteIdempotency(ctx context.Context, c storage.Completion) error {
	op := "complete idempotency key"
	if !storable(c.Account, c.Scope, c.Key, c.Token) {
		return fail(ctx, op, storage.ErrClaimLost)
	}
	if err := complete(ctx, s.pool, &c); err != nil {
		return fail(ctx, op, err)
	}
	return nil
}

// ReleaseIdempotency implements storage.Storage.
func (s *Store) ReleaseIdempotency(ctx context.Context, account, scope, key, token string) error {
	op := "release idempotency key"
	if !storable(account, scope, key, token) {
		// No such claim can be held.
		if err := ctx.Err(); err != nil {
			return fail(ctx, op, err)
		}
		return nil
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM idempotency WHERE account = $1 AND scope = $2 AND key = $3 AND token = $4 AND NOT done`,
		account, scope, key, token); err != nil {
		return fail(ctx, op, err)
	}
	return nil
}

// purgeIdempotencySQL removes the records expired at $1, of every
// account: a sweep of the whole table by the expires_at index, one of the
// few statements that span accounts (docs/postgres.md says why, and how
// it runs on a cluster sharded by account).
const purgeIdempotencySQL = `DELETE FROM idempotency WHERE expires_at <= $1`

// PurgeIdempotency implements storage.Storage.
func (s *Store) PurgeIdempotency(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, purgeIdempotencySQL, now)
	if err != nil {
		return 0, fail(ctx, "purge idempotency keys", err)
	}
	return int(tag.RowsAffected()), nil
}

// RenewIdempotency implements storage.Storage. The lease is judged by now,
// the service's clock.
func (s *Store) RenewIdempotency(ctx context.Context, account, scope, key, token string, now, leaseExpiresAt time.Time) error {
	op := "renew idempotency key"
	if !storable(account, scope, key, token) {
		return fail(ctx, op, storage.ErrClaimLost)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE idempotency SET lease_expires_at = greatest(lease_expires_at, $6)
		WHERE account = $1 AND scope = $2 AND key = $3 AND token = $4 AND NOT done AND lease_expires_at > $5`,
		account, scope, key, token, now, leaseExpiresAt)
	if err != nil {
		return fail(ctx, op, err)
	}
	if tag.RowsAffected() == 0 {
		return fail(ctx, op, storage.ErrClaimLost)
	}
	return nil
}

// trimSQL removes the completed records of account $1 beyond the first $2,
// or beyond the first $3 bytes: in the order of the idempotency_trim
// index, the newest successes come first and the oldest failures last, so
// those past either bound are the failures, oldest first, then the oldest
// successes; of one created_at, the first completed is the oldest
// (done_seq, migration 0008). The cost is a walk of the account's
// completed records.
const trimSQL = `DELETE FROM idempotency i USING (
		SELECT scope, key FROM (
			SELECT scope, key, row_number() OVER w AS n, sum(size) OVER w AS bytes
			FROM idempotency WHERE account = $1 AND done
			WINDOW w AS (ORDER BY failed, created_at DESC, done_seq DESC, scope, key)
		) kept WHERE n > $2 OR bytes > $3
	) old
	WHERE i.account = $1 AND i.scope = old.scope AND i.key = old.key AND i.done`

// TrimIdempotency implements storage.Storage.
func (s *Store) TrimIdempotency(ctx context.Context, account string, keep int, keepBytes int64) (int, error) {
	op := "trim idempotency keys"
	if !storable(account) {
		if err := ctx.Err(); err != nil {
			return 0, fail(ctx, op, err)
		}
		return 0, nil
	}
	tag, err := s.pool.Exec(ctx, trimSQL, account, max(keep, 0), max(keepBytes, 0))
	if err != nil {
		return 0, fail(ctx, op, err)
	}
	return int(tag.RowsAffected()), nil
}
