package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/storage"
)

const assetColumns = `id, account, metadata, created_at, modified_at, revision, data`

func scanAsset(row pgx.Row) (storage.Asset, error) {
	var (
		a    storage.Asset
		meta []byte
		data []byte
	)
	if err := row.Scan(&a.ID, &a.Account, &meta, &a.CreatedAt, &a.ModifiedAt, &a.Revision, &data); err != nil {
		return storage.Asset{}, err
	}
	m, err := decodeMetadata(meta)
	if err != nil {
		return storage.Asset{}, err
	}
	a.Metadata = m
	a.Doc = docOf(data)
	return a, nil
}

const versionColumns = `id, account, asset_id, status, created_at, modified_at, data`

func scanVersion(row pgx.Row) (storage.AssetVersion, error) {
	var (
		v    storage.AssetVersion
		data []byte
	)
	err := row.Scan(&v.ID, &v.Account, &v.AssetID, &v.Status, &v.CreatedAt, &v.ModifiedAt, &data)
	v.Doc = docOf(data)
	return v, err
}

// checkAssetWrite refuses, before anything is written, a write that could
// never be stored whole: strings a text column cannot hold, versions or
// content of another asset or account.
func checkAssetWrite(w *storage.AssetWrite) error {
	a := &w.Asset
	switch {
	case !storable(a.ID, a.Account):
		return errText("asset id or account")
	case !metadataStorable(a.Metadata):
		return errText("metadata")
	}
	for _, v := range w.PutVersions {
		if !storable(v.ID, v.Status) {
			return errText("version id or status")
		}
		if v.AssetID != a.ID || v.Account != a.Account {
			return fmt.Errorf("version %q is for asset %q of account %q, not the one written", v.ID, v.AssetID, v.Account)
		}
	}
	for _, c := range w.PutContent {
		if !storable(c.Hash) {
			return errText("content hash")
		}
		if c.Account != a.Account {
			return fmt.Errorf("content %q is for account %q, not the asset's", c.Hash, c.Account)
		}
	}
	return nil
}

// putVersionSQL creates a version or replaces one of the same asset; a
// version id of another asset returns no row.
const putVersionSQL = `INSERT INTO asset_versions AS v (` + versionColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT (account, id) DO UPDATE SET
		status = excluded.status, created_at = excluded.created_at,
		modified_at = excluded.modified_at, data = excluded.data
	WHERE v.asset_id = excluded.asset_id`

// WriteAsset implements storage.Storage, in one transaction.
func (s *Store) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	a := w.Asset
	op := "write asset " + a.ID
	if a.Revision != 0 && !storable(a.ID, a.Account) {
		return storage.Asset{}, fail(ctx, op, storage.ErrNotFound)
	}
	if err := checkAssetWrite(&w); err != nil {
		return storage.Asset{}, fail(ctx, op, err)
	}
	if c := w.Completion; c != nil && !storable(c.Account, c.Scope, c.Key, c.Token) {
		return storage.Asset{}, fail(ctx, op, storage.ErrClaimLost)
	}
	meta, err := encodeMetadata(a.Metadata)
	if err != nil {
		return storage.Asset{}, fail(ctx, op, err)
	}
	data, err := encodeDoc(a.Doc)
	if err != nil {
		return storage.Asset{}, fail(ctx, op, err)
	}
	versionData := make([][]byte, len(w.PutVersions))
	for i, v := range w.PutVersions {
		if versionData[i], err = encodeDoc(v.Doc); err != nil {
			return storage.Asset{}, fail(ctx, op, err)
		}
	}
	out := a
	err = s.inClaimTx(ctx, w.Completion, func(tx pgx.Tx) error {
		if a.Revision == 0 {
			_, err := tx.Exec(ctx, `INSERT INTO assets (`+assetColumns+`) VALUES ($1, $2, $3, $4, $5, 1, $6)`,
				a.ID, a.Account, meta, a.CreatedAt, a.ModifiedAt, data)
			if isUniqueViolation(err) {
				return storage.ErrAlreadyExists
			}
			if err != nil {
				return err
			}
			out.Revision = 1
		} else {
			err := tx.QueryRow(ctx, `UPDATE assets
				SET metadata = $3, modified_at = $4, data = $5, revision = revision + 1
				WHERE id = $1 AND account = $2 AND revision = $6
				RETURNING created_at, revision`,
				a.ID, a.Account, meta, a.ModifiedAt, data, a.Revision,
			).Scan(&out.CreatedAt, &out.Revision)
			if errors.Is(err, pgx.ErrNoRows) {
				return revisionMissing(ctx, tx, "assets", a.Account, a.ID)
			}
			if err != nil {
				return err
			}
		}
		for i, v := range w.PutVersions {
			tag, err := tx.Exec(ctx, putVersionSQL, v.ID, v.Account, v.AssetID, v.Status, v.CreatedAt, v.ModifiedAt, versionData[i])
			if isUniqueViolation(err) {
				// The id is another account's.
				return fmt.Errorf("version %q: %w", v.ID, storage.ErrAlreadyExists)
			}
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				// Version ids are unique across assets: replacing would
				// move another asset's version.
				return fmt.Errorf("version %q: %w", v.ID, storage.ErrAlreadyExists)
			}
		}
		for _, id := range w.DeleteVersions {
			deleted := false
			if storable(id) { // else no version has that id
				tag, err := tx.Exec(ctx, `DELETE FROM asset_versions WHERE id = $1 AND account = $2 AND asset_id = $3`, id, a.Account, a.ID)
				if err != nil {
					return err
				}
				deleted = tag.RowsAffected() > 0
			}
			if !deleted {
				return fmt.Errorf("delete version %q: %w", id, storage.ErrNotFound)
			}
		}
		for _, c := range w.PutContent {
			if _, err := tx.Exec(ctx, `INSERT INTO contents (account, hash, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
				c.Account, c.Hash, bytesOrEmpty(c.Data)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return storage.Asset{}, fail(ctx, op, err)
	}
	out.Metadata = cloneMetadata(a.Metadata)
	out.Doc = storage.CloneDocument(docOf(data))
	out.ModifiedAt = storedTime(a.ModifiedAt)
	if a.Revision == 0 {
		out.CreatedAt = storedTime(a.CreatedAt)
	}
	return out, nil
}

// GetAsset implements storage.Storage.
func (s *Store) GetAsset(ctx context.Context, account, id string) (storage.Asset, error) {
	op := "get asset " + id
	if !storable(account, id) {
		return storage.Asset{}, fail(ctx, op, storage.ErrNotFound)
	}
	a, err := scanAsset(s.pool.QueryRow(ctx, `SELECT `+assetColumns+` FROM assets WHERE id = $1 AND account = $2`, id, account))
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Asset{}, fail(ctx, op, storage.ErrNotFound)
	}
	if err != nil {
		return storage.Asset{}, fail(ctx, op, err)
	}
	return a, nil
}

// ListAssets implements storage.Storage, as ListLetters does.
func (s *Store) ListAssets(ctx context.Context, q storage.AssetQuery) ([]storage.Asset, error) {
	const op = "list assets"
	if q.Limit <= 0 || !storable(q.Account, q.Before) || !metadataStorable(q.Metadata) {
		if err := ctx.Err(); err != nil {
			return nil, fail(ctx, op, err)
		}
		return nil, nil
	}
	query, args, err := listAssetsQuery(q)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Asset, error) { return scanAsset(r) })
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, nil
}

// listAssetsQuery returns the SQL and arguments of q, as listLettersQuery
// does for letters.
func listAssetsQuery(q storage.AssetQuery) (string, []any, error) {
	var (
		b    strings.Builder
		args = []any{q.Account}
	)
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	order := "a.id"
	if len(q.Metadata) > 1 {
		return listAssetsByPairs(q)
	}
	if len(q.Metadata) > 0 {
		first := q.Metadata[0]
		m, err := encodeMetadata(q.Metadata)
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(&b, `SELECT %s FROM asset_metadata m, LATERAL (
			SELECT %s FROM assets WHERE account = m.account AND id = m.asset_id OFFSET 0) a
			WHERE m.account = $1 AND m.pair = metadata_pair(%s, %s) AND a.metadata @> %s::jsonb`,
			prefixed("a", assetColumns), assetColumns, arg(first.Key), arg(first.Value), arg(m))
		order = "m.asset_id"
	} else {
		b.WriteString(`SELECT ` + prefixed("a", assetColumns) + ` FROM assets a WHERE a.account = $1`)
	}
	if q.Before != "" {
		fmt.Fprintf(&b, " AND %s < %s", order, arg(q.Before))
	}
	fmt.Fprintf(&b, " ORDER BY %s DESC LIMIT %s", order, arg(q.Limit))
	return b.String(), args, nil
}

// listAssetsByPairs is listAssetsQuery for q with several metadata pairs,
// as listLettersByPairs is for letters.
func listAssetsByPairs(q storage.AssetQuery) (string, []any, error) {
	return listByPairs(assetPairs, q.Account, q.Metadata, q.Before, "", q.Limit, prefixed("l", assetColumns), assetColumns)
}

// DeleteAsset implements storage.Storage. The versions go with the asset
// (ON DELETE CASCADE); content stays.
func (s *Store) DeleteAsset(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	return s.deleteAtRevision(ctx, "delete asset "+id, "assets", account, id, revision, c)
}

// GetAssetVersion implements storage.Storage.
func (s *Store) GetAssetVersion(ctx context.Context, account, assetID, versionID string) (storage.AssetVersion, error) {
	op := fmt.Sprintf("get version %s of asset %s", versionID, assetID)
	if !storable(account, assetID, versionID) {
		return storage.AssetVersion{}, fail(ctx, op, storage.ErrNotFound)
	}
	v, err := scanVersion(s.pool.QueryRow(ctx, `SELECT `+versionColumns+` FROM asset_versions
		WHERE id = $1 AND account = $2 AND ($3 = '' OR asset_id = $3)`, versionID, account, assetID))
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.AssetVersion{}, fail(ctx, op, storage.ErrNotFound)
	}
	if err != nil {
		return storage.AssetVersion{}, fail(ctx, op, err)
	}
	return v, nil
}

// ListAssetVersions implements storage.Storage, walking (account, asset_id,
// id) backwards from the cursor.
func (s *Store) ListAssetVersions(ctx context.Context, q storage.VersionQuery) ([]storage.AssetVersion, error) {
	const op = "list asset versions"
	if q.Limit <= 0 || !storable(q.Account, q.AssetID, q.Before) {
		if err := ctx.Err(); err != nil {
			return nil, fail(ctx, op, err)
		}
		return nil, nil
	}
	var b strings.Builder
	args := []any{q.Account, q.AssetID}
	b.WriteString(`SELECT ` + versionColumns + ` FROM asset_versions WHERE account = $1 AND asset_id = $2`)
	if len(q.ExcludeStatuses) > 0 {
		ex := []string{}
		for _, st := range q.ExcludeStatuses {
			if storable(st) { // no stored status can equal the others
				ex = append(ex, st)
			}
		}
		args = append(args, ex)
		fmt.Fprintf(&b, ` AND status <> ALL ($%d::text[])`, len(args))
	}
	if q.Before != "" {
		args = append(args, q.Before)
		fmt.Fprintf(&b, ` AND id < $%d`, len(args))
	}
	args = append(args, q.Limit)
	fmt.Fprintf(&b, ` ORDER BY id DESC LIMIT $%d`, len(args))
	rows, err := s.pool.Query(ctx, b.String(), args...)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.AssetVersion, error) { return scanVersion(r) })
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, nil
}

// GetContent implements storage.Storage.
func (s *Store) GetContent(ctx context.Context, account, hash string) ([]byte, error) {
	op := "get content " + hash
	if !storable(account, hash) {
		return nil, fail(ctx, op, storage.ErrNotFound)
	}
	var b []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM contents WHERE account = $1 AND hash = $2`, account, hash).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fail(ctx, op, storage.ErrNotFound)
	}
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return b, nil
}
