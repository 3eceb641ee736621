package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.Eraser = (*Store)(nil)

// eraseSQL removes an account's records, in one transaction and in this
// order: the letters first, waiting for a due run that holds some of them
// (FOR UPDATE) to commit, so the deliveries that run made are there for
// the next statement to remove; then the webhooks, whose deletion waits
// for a write that is making deliveries to them and removes those with
// them (ON DELETE CASCADE). The metadata pairs go with their rows (the
// triggers); they are removed by account as well, for rows written
// before the triggers kept them.
var eraseSQL = []string{
	`DELETE FROM letters WHERE account = $1`,
	`DELETE FROM deliveries WHERE account = $1`,
	`DELETE FROM webhooks WHERE account = $1`,
	`DELETE FROM asset_versions WHERE account = $1`,
	`DELETE FROM assets WHERE account = $1`,
	`DELETE FROM contents WHERE account = $1`,
	`DELETE FROM idempotency WHERE account = $1`,
	`DELETE FROM letter_metadata WHERE account = $1`,
	`DELETE FROM asset_metadata WHERE account = $1`,
	`DELETE FROM moves WHERE account = $1`,
}

// EraseAccount implements storage.Eraser: one transaction, its deletes
// sent as one batch. The account's clock stays. A write to the account
// that runs alongside commits before or after the erase, record by
// record: erase an account while nothing else writes to it.
func (s *Store) EraseAccount(ctx context.Context, account string) error {
	const op = "erase account"
	if !storable(account) {
		// No record of such an account can have been stored.
		_, err := nothing[struct{}](ctx, op)
		return err
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, q := range eraseSQL {
			b.Queue(q, account)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fail(ctx, op, err)
	}
	return nil
}
