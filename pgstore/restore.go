package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.Restorer = (*Store)(nil)

// RestoreRecords implements storage.Restorer: one transaction, its
// inserts sent as one batch, so a restore costs one round trip and a few
// rather than one transaction per record. A taken id fails the batch,
// and the transaction is rolled back.
func (s *Store) RestoreRecords(ctx context.Context, r storage.AccountRecords) error {
	op := "restore into " + r.Account
	b, err := restoreBatch(r)
	if err != nil {
		return fail(ctx, op, err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, b).Close()
	})
	if isUniqueViolation(err) {
		return fail(ctx, op, fmt.Errorf("%w (%v)", storage.ErrAlreadyExists, err)) //nolint:errorlint // the driver's error is shown, not matched
	}
	if err != nil {
		return fail(ctx, op, err)
	}
	return nil
}

// restoreBatch checks r and returns the inserts that write it.
func restoreBatch(r storage.AccountRecords) (*pgx.Batch, error) {
	if !storable(r.Account) {
		return nil, errText("account")
	}
	of := func(kind, id, account string) error {
		if account != r.Account {
			return fmt.Errorf("%s %q is of account %q", kind, id, account)
		}
		return nil
	}
	b := &pgx.Batch{}
	assets := make(map[string]bool, len(r.Assets))
	for _, a := range r.Assets {
		if err := of("asset", a.ID, a.Account); err != nil {
			return nil, err
		}
		if err := checkAssetWrite(&storage.AssetWrite{Asset: a}); err != nil {
			return nil, err
		}
		meta, err := encodeMetadata(a.Metadata)
		if err != nil {
			return nil, err
		}
		data, err := encodeDoc(a.Doc)
		if err != nil {
			return nil, err
		}
		assets[a.ID] = true
		b.Queue(`INSERT INTO assets (`+assetColumns+`) VALUES ($1, $2, $3, $4, $5, 1, $6)`,
			a.ID, a.Account, meta, a.CreatedAt, a.ModifiedAt, data)
	}
	for _, v := range r.Versions {
		if err := of("version", v.ID, v.Account); err != nil {
			return nil, err
		}
		if !assets[v.AssetID] {
			return nil, fmt.Errorf("version %q names asset %q, which is not restored with it", v.ID, v.AssetID)
		}
		if !storable(v.ID, v.Status) {
			return nil, errText("version id or status")
		}
		data, err := encodeDoc(v.Doc)
		if err != nil {
			return nil, err
		}
		b.Queue(`INSERT INTO asset_versions (`+versionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			v.ID, v.Account, v.AssetID, v.Status, v.CreatedAt, v.ModifiedAt, data)
	}
	for _, c := range r.Content {
		if err := of("content", c.Hash, c.Account); err != nil {
			return nil, err
		}
		if !storable(c.Hash) {
			return nil, errText("content hash")
		}
		b.Queue(`INSERT INTO contents (account, hash, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			c.Account, c.Hash, bytesOrEmpty(c.Data))
	}
	for _, l := range r.Letters {
		if err := of("letter", l.ID, l.Account); err != nil {
			return nil, err
		}
		meta, data, err := prepareLetter(&l, nil)
		if err != nil {
			return nil, err
		}
		b.Queue(insertLetterSQL, l.ID, l.Account, l.Status, l.ExternalID, meta, l.CreatedAt, l.ModifiedAt, nullTime(l.DueAt), data)
	}
	for _, w := range r.Webhooks {
		if err := of("webhook", w.ID, w.Account); err != nil {
			return nil, err
		}
		if err := checkWebhook(&w, nil); err != nil {
			return nil, err
		}
		meta, err := encodeMetadata(w.Metadata)
		if err != nil {
			return nil, err
		}
		events := w.Events
		if events == nil {
			events = []string{}
		}
		b.Queue(`INSERT INTO webhooks (`+webhookColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1)`,
			w.ID, w.Account, w.URL, events, w.Description, meta, w.Status, w.Secret, w.CreatedAt, w.ModifiedAt)
	}
	return b, nil
}
