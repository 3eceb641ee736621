package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

const idemColumns = `scope, key, fingerprint, token, done, result, created_at, expires_at, lease_expires_at`

// claimSQL claims (scope $1, key $2) for the record $1..$8 of account $10 at time $9 in one
// statement: it inserts the record, or overwrites one that is no longer
// live, and returns it with true; otherwise it returns the live record with
// false. The unique key makes concurrent claimants queue on one row, so
// exactly one of them wins. The second branch reads the statement's
// snapshot, which may not yet hold a row a concurrent claim has just
// committed; claim then asks again.
const claimSQL = `WITH won AS (
		INSERT INTO idempotency AS i (` + idemColumns + `, account, failed)
		VALUES ($1, $2, $3, $4, false, $5, $6, $7, $8, $10, false)
		ON CONFLICT (scope, key) DO UPDATE SET
			fingerprint = excluded.fingerprint, token = excluded.token, done = false, result = excluded.result,
			created_at = excluded.created_at, expires_at = excluded.expires_at, lease_expires_at = excluded.lease_expires_at,
			account = excluded.account, failed = false
		WHERE i.expires_at <= $9 OR (NOT i.done AND i.lease_expires_at <= $9)
		RETURNING ` + idemColumns + `, account, failed
	)
	SELECT ` + idemColumns + `, account, failed, true FROM won
	UNION ALL
	SELECT ` + idemColumns + `, account, failed, false FROM idempotency
	WHERE scope = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM won)`

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
			got storage.IdempotencyRecord
			won bool
		)
		err := s.pool.QueryRow(ctx, claimSQL,
			r.Scope, r.Key, r.Fingerprint, r.Token, r.Result, r.CreatedAt, r.ExpiresAt, r.LeaseExpiresAt, now, r.Account,
		).Scan(&got.Scope, &got.Key, &got.Fingerprint, &got.Token, &got.Done, &got.Result,
			&got.CreatedAt, &got.ExpiresAt, &got.LeaseExpiresAt, &got.Account, &got.Failed, &won)
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
	op := fmt.Sprintf("complete idempotency key %q", c.Key)
	if !storable(c.Scope, c.Key, c.Token) {
		return fail(ctx, op, storage.ErrClaimLost)
	}
	if err := complete(ctx, s.pool, &c); err != nil {
		return fail(ctx, op, err)
	}
	return nil
}

// ReleaseIdempotency implements storage.Storage.
func (s *Store) ReleaseIdempotency(ctx context.Context, scope, key, token string) error {
	op := fmt.Sprintf("release idempotency key %q", key)
	if !storable(scope, key, token) {
		// No such claim can be held.
		if err := ctx.Err(); err != nil {
			return fail(ctx, op, err)
		}
		return nil
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM idempotency WHERE scope = $1 AND key = $2 AND token = $3 AND NOT done`,
		scope, key, token); err != nil {
		return fail(ctx, op, err)
	}
	return nil
}

// PurgeIdempotency implements storage.Storage.
func (s *Store) PurgeIdempotency(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fail(ctx, "purge idempotency keys", err)
	}
	return int(tag.RowsAffected()), nil
}

// RenewIdempotency implements storage.Storage. The lease is judged by now,
// the service's clock.
func (s *Store) RenewIdempotency(ctx context.Context, scope, key, token string, now, leaseExpiresAt time.Time) error {
	op := fmt.Sprintf("renew idempotency key %q", key)
	if !storable(scope, key, token) {
		return fail(ctx, op, storage.ErrClaimLost)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE idempotency SET lease_expires_at = greatest(lease_expires_at, $5)
		WHERE scope = $1 AND key = $2 AND token = $3 AND NOT done AND lease_expires_at > $4`,
		scope, key, token, now, leaseExpiresAt)
	if err != nil {
		return fail(ctx, op, err)
	}
	if tag.RowsAffected() == 0 {
		return fail(ctx, op, storage.ErrClaimLost)
	}
	return nil
}

// trimSQL removes the completed records of account $1 beyond the $2 kept:
// in the order of the idempotency_trim index, the newest successes come
// first and the oldest failures last, so those beyond the offset are the
// failures, oldest first, then the oldest successes. The cost is a walk of
// the index over the records kept.
const trimSQL = `DELETE FROM idempotency i USING (
		SELECT scope, key FROM idempotency WHERE account = $1 AND done
		ORDER BY failed, created_at DESC, scope, key OFFSET $2
	) old
	WHERE i.scope = old.scope AND i.key = old.key AND i.done`

// TrimIdempotency implements storage.Storage.
func (s *Store) TrimIdempotency(ctx context.Context, account string, keep int) (int, error) {
	op := "trim idempotency keys"
	if !storable(account) {
		if err := ctx.Err(); err != nil {
			return 0, fail(ctx, op, err)
		}
		return 0, nil
	}
	tag, err := s.pool.Exec(ctx, trimSQL, account, max(keep, 0))
	if err != nil {
		return 0, fail(ctx, op, err)
	}
	return int(tag.RowsAffected()), nil
}
