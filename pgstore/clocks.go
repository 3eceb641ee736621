package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

// A put takes the stamp up, writes the clock at the stamp it expects, and
// sets its account's letters' place in the order by the server's time, in
// one transaction (migration 0007 says why the stamp row orders puts).
const (
	bumpStampSQL   = `UPDATE clock_stamp SET stamp = stamp + 1 RETURNING stamp`
	insertClockSQL = `INSERT INTO account_clocks (account, at, anchor, frozen, lead_us, stamp)
	VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account) DO NOTHING`
	updateClockSQL = `UPDATE account_clocks SET at = $2, anchor = $3, frozen = $4, lead_us = $5, stamp = $6
	WHERE account = $1 AND stamp = $7`
	rekeyLettersSQL = `UPDATE letters SET due_server = (extract(epoch FROM due_at) * 1000000)::bigint - $2
	WHERE account = $1 AND due_at IS NOT NULL`
	freezeLettersSQL = `UPDATE letters SET due_server = NULL
	WHERE account = $1 AND due_at IS NOT NULL`
	clockStampSQL    = `SELECT stamp FROM clock_stamp`
	accountClocksSQL = `SELECT account, at, anchor, frozen, stamp FROM account_clocks
	WHERE stamp > $1 ORDER BY stamp LIMIT $2`
)

// PutAccountClock implements storage.Storage.
func (s *Store) PutAccountClock(ctx context.Context, c storage.AccountClock) (storage.AccountClock, error) {
	op := "put the clock of " + c.Account
	if !storable(c.Account) {
		return storage.AccountClock{}, fail(ctx, op, errText("account"))
	}
	c.At, c.Anchor = storedTime(c.At), storedTime(c.Anchor)
	var lead *int64
	if !c.Frozen {
		l := c.At.UnixMicro() - c.Anchor.UnixMicro()
		lead = &l
	}
	expected := c.Stamp
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, bumpStampSQL).Scan(&c.Stamp); err != nil {
			return err
		}
		query, args := insertClockSQL, []any{c.Account, c.At, c.Anchor, c.Frozen, lead, c.Stamp}
		if expected != 0 {
			query, args = updateClockSQL, append(args, expected)
		}
		tag, err := tx.Exec(ctx, query, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("the stored clock is not at stamp %d: %w", expected, storage.ErrConflict)
		}
		if lead == nil {
			_, err = tx.Exec(ctx, freezeLettersSQL, c.Account)
		} else {
			_, err = tx.Exec(ctx, rekeyLettersSQL, c.Account, *lead)
		}
		return err
	})
	if err != nil {
		return storage.AccountClock{}, fail(ctx, op, err)
	}
	return c, nil
}

// ClockStamp implements storage.Storage.
func (s *Store) ClockStamp(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, clockStampSQL).Scan(&n); err != nil {
		return 0, fail(ctx, "read the clock stamp", err)
	}
	return n, nil
}

// AccountClocks implements storage.Storage.
func (s *Store) AccountClocks(ctx context.Context, since int64, limit int) ([]storage.AccountClock, error) {
	const op = "read account clocks"
	if limit <= 0 {
		if err := ctx.Err(); err != nil {
			return nil, fail(ctx, op, err)
		}
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, accountClocksSQL, since, limit)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	cs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.AccountClock, error) {
		var c storage.AccountClock
		err := r.Scan(&c.Account, &c.At, &c.Anchor, &c.Frozen, &c.Stamp)
		c.At, c.Anchor = c.At.UTC(), c.Anchor.UTC()
		return c, err
	})
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return cs, nil
}
