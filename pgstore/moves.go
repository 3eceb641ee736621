package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.MoveStorage = (*Store)(nil)

// moveLockClass is the first key of the advisory lock a put of a move
// holds on its account, as webhookLockClass is a create's: puts in one
// account take turns, so each counts what those before it inserted.
const moveLockClass = 0x6d6f76 // "mov"

// putMoveSQL stores move $3 under key $2 of account $1, unless the account
// holds $4 moves under other keys ($4 below 1: no limit).
const putMoveSQL = `INSERT INTO moves (account, key, move)
	SELECT $1, $2, $3
	WHERE $4 < 1 OR (SELECT count(*) FROM moves WHERE account = $1 AND key <> $2) < $4
	ON CONFLICT (account, key) DO UPDATE SET move = excluded.move`

// PutMove implements storage.MoveStorage.
func (s *Store) PutMove(ctx context.Context, account, key string, move []byte, limit int) error {
	const op = "put a move"
	if !storable(account) {
		return fail(ctx, op, errText("account"))
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if limit > 0 {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || '/' || $2))`,
				moveLockClass, account); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, putMoveSQL, account, []byte(key), move, limit)
		if err == nil && tag.RowsAffected() == 0 {
			return fmt.Errorf("the account has %d moves: %w", limit, storage.ErrLimit)
		}
		return err
	})
	if err != nil {
		return fail(ctx, op, err)
	}
	return nil
}

// Moves implements storage.MoveStorage.
func (s *Store) Moves(ctx context.Context, account string) (map[string][]byte, error) {
	const op = "read the moves"
	out := map[string][]byte{}
	if !storable(account) {
		_, err := nothing[struct{}](ctx, op)
		return out, err
	}
	rows, err := s.pool.Query(ctx, `SELECT key, move FROM moves WHERE account = $1`, account)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	var key, move []byte
	_, err = pgx.ForEachRow(rows, []any{&key, &move}, func() error {
		out[string(key)] = append([]byte(nil), move...)
		return nil
	})
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, nil
}
