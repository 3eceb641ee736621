package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lettershop/lettershop/storage"
)

const letterColumns = `id, account, status, external_id, metadata, created_at, modified_at, due_at, revision, data`

// briefColumns are the columns of a Brief list (storage.LetterQuery):
// without the document, the metadata and the times a brief letter leaves
// out, a page is a fraction of the bytes.
const briefColumns = `id, account, status, modified_at, revision`

// scanBrief reads a row of briefColumns.
func scanBrief(row pgx.Row) (storage.Letter, error) {
	var l storage.Letter
	err := row.Scan(&l.ID, &l.Account, &l.Status, &l.ModifiedAt, &l.Revision)
	return l, err
}

// scanLetter reads a row of letterColumns.
func scanLetter(row pgx.Row) (storage.Letter, error) {
	var (
		l    storage.Letter
		meta []byte
		due  *time.Time
		data []byte
	)
	if err := row.Scan(&l.ID, &l.Account, &l.Status, &l.ExternalID, &meta, &l.CreatedAt, &l.ModifiedAt, &due, &l.Revision, &data); err != nil {
		return storage.Letter{}, err
	}
	m, err := decodeMetadata(meta)
	if err != nil {
		return storage.Letter{}, err
	}
	l.Metadata = m
	l.DueAt = timeOrZero(due)
	l.Doc = docOf(data)
	return l, nil
}

// storedLetter returns a copy of l as the database keeps it, with data, the
// document as written.
func storedLetter(l storage.Letter, data []byte) storage.Letter {
	l.Notices, l.Deliveries = nil, 0
	l.Metadata = cloneMetadata(l.Metadata)
	l.Doc = storage.CloneDocument(docOf(data))
	l.CreatedAt = storedTime(l.CreatedAt)
	l.ModifiedAt = storedTime(l.ModifiedAt)
	l.DueAt = storedTime(l.DueAt)
	return l
}

// checkLetter refuses a letter a text column cannot hold.
func checkLetter(l *storage.Letter) error {
	switch {
	case !storable(l.ID):
		return errText("id")
	case !storable(l.Account):
		return errText("account")
	case !storable(l.Status):
		return errText("status")
	case !storable(l.ExternalID):
		return errText("external id")
	case !metadataStorable(l.Metadata):
		return errText("metadata")
	}
	return nil
}

// prepareLetter checks a letter write, and the Completion it carries, before
// anything reaches the database, and returns the letter's metadata as jsonb
// text and its document as data.
func prepareLetter(l *storage.Letter, c *storage.Completion) (meta string, data []byte, err error) {
	if err := checkLetter(l); err != nil {
		return "", nil, err
	}
	if c != nil && !storable(c.Account, c.Scope, c.Key, c.Token) {
		// No claim is held under such a string.
		return "", nil, storage.ErrClaimLost
	}
	if meta, err = encodeMetadata(l.Metadata); err != nil {
		return "", nil, err
	}
	if data, err = encodeDoc(l.Doc); err != nil {
		return "", nil, err
	}
	return meta, data, nil
}

// completeSQL finishes the in-flight claim ($1 account, $2 scope, $3 key,
// $4 token) with result $5 of size $6, a failure when $7. No row means the
// claim is lost.
const completeSQL = `UPDATE idempotency SET done = true, token = '', done_seq = nextval('idempotency_done_seq'), result = $5, size = $6, failed = $7
	WHERE account = $1 AND scope = $2 AND key = $3 AND token = $4 AND NOT done`

// insertLetterSQL makes a letter with revision 1.
const insertLetterSQL = `INSERT INTO letters (` + letterColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9)`

// createLetterCompletingSQL inserts the letter only if the claim ($10..$15,
// as completionArgs gives them) is completed in the same statement, so both
// commit or neither: a lost claim inserts nothing, and a taken id aborts
// the statement, completion included, with a unique violation.
const createLetterCompletingSQL = `WITH c AS (
		UPDATE idempotency SET done = true, token = '', done_seq = nextval('idempotency_done_seq'), result = $14, size = $15
		WHERE account = $10 AND scope = $11 AND key = $12 AND token = $13 AND NOT done
		RETURNING 1
	)
	INSERT INTO letters (` + letterColumns + `)
	SELECT $1, $2, $3, $4, $5::jsonb, $6, $7, $8::timestamptz, 1, $9 WHERE EXISTS (SELECT 1 FROM c)`

// createNotifyingSQL is insertLetterSQL and createLetterCompletingSQL for a
// letter with notices, which makes their deliveries in the same statement
// (insertDeliveriesSQL, after the letter's arguments and the claim's):
// [completing][one notice]. Without a claim the letter is inserted or the
// statement fails, and the deliveries are the rows it reports; with one it
// answers how many letters and deliveries it inserted, as a lost claim
// inserts no letter.
var createNotifyingSQL [2][2]string

func init() {
	for _, one := range []bool{false, true} {
		createNotifyingSQL[0][b2i(one)] = `WITH l AS (INSERT INTO letters (` + letterColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9) RETURNING id, account)
	` + insertDeliveriesSQL("l", 10, one)
		createNotifyingSQL[1][b2i(one)] = `WITH c AS (
		UPDATE idempotency SET done = true, token = '', done_seq = nextval('idempotency_done_seq'), result = $14, size = $15
		WHERE account = $10 AND scope = $11 AND key = $12 AND token = $13 AND NOT done
		RETURNING 1
	),
	l AS (INSERT INTO letters (` + letterColumns + `)
		SELECT $1, $2, $3, $4, $5::jsonb, $6, $7, $8::timestamptz, 1, $9 WHERE EXISTS (SELECT 1 FROM c) RETURNING id, account),
	d AS (` + insertDeliveriesSQL("l", 16, one) + ` RETURNING 1)
	SELECT count(*), (SELECT count(*) FROM d) FROM l`
	}
}

// CreateLetter implements storage.Storage.
func (s *Store) CreateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	op := "create letter " + l.ID
	meta, data, err := prepareLetter(&l, c)
	if err != nil {
		return storage.Letter{}, fail(ctx, op, err)
	}
	args := []any{l.ID, l.Account, l.Status, l.ExternalID, meta, l.CreatedAt, l.ModifiedAt, nullTime(l.DueAt), data}
	query := insertLetterSQL
	if c != nil {
		ca, err := completionArgs(c)
		if err != nil {
			return storage.Letter{}, fail(ctx, op, err)
		}
		query = createLetterCompletingSQL
		args = append(args, ca[:6]...)
	}
	var inserted, made int64
	switch {
	case len(l.Notices) == 0:
		var tag pgconn.CommandTag
		tag, err = s.pool.Exec(ctx, query, args...)
		inserted = tag.RowsAffected()
	default:
		var (
			n   []any
			one bool
		)
		if n, one, err = noticeArgs(l.Notices); err != nil {
			break
		}
		query = createNotifyingSQL[b2i(c != nil)][b2i(one)]
		if c != nil {
			err = s.pool.QueryRow(ctx, query, append(args, n...)...).Scan(&inserted, &made)
			break
		}
		var tag pgconn.CommandTag
		tag, err = s.pool.Exec(ctx, query, append(args, n...)...)
		inserted, made = 1, tag.RowsAffected()
	}
	switch {
	case isUniqueViolation(err):
		return storage.Letter{}, fail(ctx, op, storage.ErrAlreadyExists)
	case err != nil:
		return storage.Letter{}, fail(ctx, op, err)
	case inserted == 0:
		return storage.Letter{}, fail(ctx, op, storage.ErrClaimLost)
	}
	out := storedLetter(l, data)
	out.Revision, out.Deliveries = 1, int(made)
	return out, nil
}

// GetLetter implements storage.Storage.
func (s *Store) GetLetter(ctx context.Context, account, id string) (storage.Letter, error) {
	op := "get letter " + id
	if !storable(account, id) {
		return storage.Letter{}, fail(ctx, op, storage.ErrNotFound)
	}
	l, err := scanLetter(s.pool.QueryRow(ctx, `SELECT `+letterColumns+` FROM letters WHERE id = $1 AND account = $2`, id, account))
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Letter{}, fail(ctx, op, storage.ErrNotFound)
	}
	if err != nil {
		return storage.Letter{}, fail(ctx, op, err)
	}
	return l, nil
}

// ListLetters implements storage.Storage. It walks one index in id order,
// (account, id), (account, status, id), one of external ids or the
// pair index of letter_metadata (that of each pair, with several), as
// listLettersQuery chooses, so a page reads O(log n + page) entries, or
// more where the other filters, or the rarest of several pairs, pass over
// some.
func (s *Store) ListLetters(ctx context.Context, q storage.LetterQuery) ([]storage.Letter, error) {
	const op = "list letters"
	// A Limit below 1, or a string no text column can hold, matches nothing.
	if q.Limit <= 0 || !storable(q.Account, q.Status, q.ExternalID, q.Before) || !metadataStorable(q.Metadata) {
		if err := ctx.Err(); err != nil {
			return nil, fail(ctx, op, err)
		}
		return nil, nil
	}
	query, args, err := listLettersQuery(q)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	scan := scanLetter
	if q.Brief {
		scan = scanBrief
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Letter, error) { return scan(r) })
	if err != nil {
		return nil, fail(ctx, op, err)
	}
	return out, nil
}

// maxIndexedExternalID is the longest external id, in bytes, that the index
// of external ids holds as it is (migration 0009).
const maxIndexedExternalID = 1000

// listLettersQuery returns the SQL and arguments of q, which has a Limit
// and only strings a text column can hold. The query walks one index
// backwards from the cursor and checks the other filters on each letter it
// meets:
//   - with an external id, (account, external_id, id), or for one of more
//     than maxIndexedExternalID bytes (account, md5(external_id), id): they
//     hold few letters;
//   - else with one metadata pair, the pair index of the pair, fetching
//     each letter from it (a lateral subquery, so the planner cannot swap
//     the walk for one of all the account's letters, which costs the table
//     when the pair's letters are old);
//   - else with several pairs, the pair indexes of all of them together
//     (listLettersByPairs), so the rarest bounds the walk, whichever comes
//     first;
//   - else with a status, (account, status, id);
//   - else (account, id).
//
// Every letter is checked against all the metadata pairs in its jsonb.
func listLettersQuery(q storage.LetterQuery) (string, []any, error) {
	var (
		b     strings.Builder
		args  = []any{q.Account}
		where []string
	)
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	columns := letterColumns
	if q.Brief {
		columns = briefColumns
	}
	walkPair := q.ExternalID == "" && len(q.Metadata) > 0
	if walkPair && len(q.Metadata) > 1 {
		return listLettersByPairs(q, columns)
	}
	if walkPair {
		first := q.Metadata[0]
		// The filters read status, external_id and metadata of the letter
		// fetched, whatever a brief list shows of it.
		fmt.Fprintf(&b, `SELECT %s FROM letter_metadata m, LATERAL (
			SELECT %s FROM letters WHERE account = m.account AND id = m.letter_id OFFSET 0) l
			WHERE m.account = $1 AND m.pair = metadata_pair(%s, %s)`,
			prefixed("l", columns), letterColumns, arg(first.Key), arg(first.Value))
		if q.Before != "" {
			where = append(where, "m.letter_id < "+arg(q.Before))
		}
	} else {
		b.WriteString(`SELECT ` + prefixed("l", columns) + ` FROM letters l WHERE l.account = $1`)
		if q.Before != "" {
			where = append(where, "l.id < "+arg(q.Before))
		}
	}
	if q.Status != "" {
		where = append(where, "l.status = "+arg(q.Status))
	}
	if q.ExternalID != "" {
		// Each index holds only the letters of its external ids (migration
		// 0009); saying so lets a generic plan use it. An id longer than
		// an index holds is keyed by its md5, and compared itself too.
		if ext := arg(q.ExternalID); len(q.ExternalID) <= maxIndexedExternalID {
			where = append(where, "l.external_id = "+ext+" AND l.external_id <> '' AND octet_length(l.external_id) <= 1000")
		} else {
			where = append(where, "md5(l.external_id) = md5("+ext+") AND l.external_id = "+ext+" AND octet_length(l.external_id) > 1000")
		}
	}
	if len(q.Metadata) > 0 {
		m, err := encodeMetadata(q.Metadata)
		if err != nil {
			return "", nil, err
		}
		where = append(where, "l.metadata @> "+arg(m)+"::jsonb")
	}
	for _, w := range where {
		b.WriteString(" AND " + w)
	}
	order := "l.id"
	if walkPair {
		order = "m.letter_id"
	}
	fmt.Fprintf(&b, " ORDER BY %s DESC LIMIT %s", order, arg(q.Limit))
	return b.String(), args, nil
}

// listLettersByPairs is listLettersQuery for q with several metadata pairs
// and no external id (listByPairs).
func listLettersByPairs(q storage.LetterQuery, columns string) (string, []any, error) {
	return listByPairs(letterPairs, q.Account, q.Metadata, q.Before, q.Status, q.Limit, prefixed("l", columns), letterColumns)
}

// updateLetterSQL replaces letter $1 of account $2 if it is at revision $9.
const (
	updateLetterSQL  = replaceLetterSQL + ` RETURNING created_at, revision`
	replaceLetterSQL = `UPDATE letters
	SET status = $3, external_id = $4, metadata = $5, modified_at = $6, due_at = $7, data = $8, revision = revision + 1
	WHERE id = $1 AND account = $2 AND revision = $9`
)

func updateLetterArgs(l *storage.Letter, meta string, data []byte) []any {
	return []any{l.ID, l.Account, l.Status, l.ExternalID, meta, l.ModifiedAt, nullTime(l.DueAt), data, l.Revision}
}

// updateNotifyingSQL is updateLetterSQL for a letter with notices, which
// makes their deliveries in the same statement (insertDeliveriesSQL, after
// the letter's arguments) and answers how many it made as well: [one
// notice].
var updateNotifyingSQL = [2]string{updateNotifying(false), updateNotifying(true)}

func updateNotifying(one bool) string {
	return `WITH u AS (` + replaceLetterSQL + ` RETURNING id, account, created_at, revision),
	d AS (` + insertDeliveriesSQL("u", 10, one) + ` RETURNING 1)
	SELECT created_at, revision, (SELECT count(*) FROM d) FROM u`
}

// UpdateLetter implements storage.Storage.
func (s *Store) UpdateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	op := "update letter " + l.ID
	if !storable(l.ID, l.Account) {
		// No such letter can exist.
		return storage.Letter{}, fail(ctx, op, storage.ErrNotFound)
	}
	meta, data, err := prepareLetter(&l, c)
	if err != nil {
		return storage.Letter{}, fail(ctx, op, err)
	}
	out := l
	var made int64
	query, args, dest := updateLetterSQL, updateLetterArgs(&l, meta, data), []any{&out.CreatedAt, &out.Revision}
	if len(l.Notices) > 0 {
		n, one, err := noticeArgs(l.Notices)
		if err != nil {
			return storage.Letter{}, fail(ctx, op, err)
		}
		query, args, dest = updateNotifyingSQL[b2i(one)], append(args, n...), append(dest, &made)
	}
	update := func(q querier) error {
		err := q.QueryRow(ctx, query, args...).Scan(dest...)
		if errors.Is(err, pgx.ErrNoRows) {
			return revisionMissing(ctx, q, "letters", l.Account, l.ID)
		}
		return err
	}
	if c == nil {
		err = update(s.pool)
	} else {
		err = s.inClaimTx(ctx, c, func(tx pgx.Tx) error { return update(tx) })
	}
	if err != nil {
		return storage.Letter{}, fail(ctx, op, err)
	}
	created, rev := out.CreatedAt, out.Revision
	out = storedLetter(l, data)
	out.CreatedAt, out.Revision, out.Deliveries = created, rev, int(made)
	return out, nil
}

// dueLettersSQL locks up to $2 letters due on the server's clock at $1
// (microseconds since the Unix epoch: due_server, migration 0007), earliest
// first, that no other transaction holds.
const dueLettersSQL = `SELECT ` + letterColumns + ` FROM letters
	WHERE due_server IS NOT NULL AND due_server <= $1
	ORDER BY due_server, id LIMIT $2
	FOR UPDATE SKIP LOCKED`

// exceptDueLettersSQL is dueLettersSQL but for the letters of the accounts
// $3, and accountDueLettersSQL for the letters of one account, $3, due at
// its time $1. Both run as unnamed statements, planned for their arguments
// each time (a generic plan of either sorts every due letter): they serve
// the clocks a test moved apart, rarely.
const (
	exceptDueLettersSQL = `SELECT ` + letterColumns + ` FROM letters
	WHERE due_server IS NOT NULL AND due_server <= $1 AND account <> ALL($3)
	ORDER BY due_server, id LIMIT $2
	FOR UPDATE SKIP LOCKED`
	accountDueLettersSQL = `SELECT ` + letterColumns + ` FROM letters
	WHERE account = $3 AND due_at IS NOT NULL AND due_at <= $1
	ORDER BY account, due_at, id LIMIT $2
	FOR UPDATE SKIP LOCKED`
)

// dueQuery is the statement and arguments that take the letters q selects.
func dueQuery(q storage.DueQuery) (string, []any) {
	server := storedTime(q.Now).UnixMicro()
	switch {
	case q.Account != "" && slices.Contains(q.Except, q.Account):
		return dueLettersSQL, []any{server, 0}
	case q.Account != "":
		return accountDueLettersSQL, []any{pgx.QueryExecModeExec, q.Now, q.Limit, q.Account}
	case len(q.Except) > 0:
		return exceptDueLettersSQL, []any{pgx.QueryExecModeExec, server, q.Limit, q.Except}
	}
	return dueLettersSQL, []any{server, q.Limit}
}

// ProcessDueLetters implements storage.Storage. One transaction locks up to
// limit due letters, earliest first, passing over those another transaction
// holds (FOR UPDATE SKIP LOCKED), so concurrent callers, here or on another
// server, share the due letters out and never see one at the same revision.
// The changed letters are written together and committed with the locks'
// release. When fn fails, the letters before it are still written.
func (s *Store) ProcessDueLetters(ctx context.Context, q storage.DueQuery, fn func(*storage.Letter) error) (int, error) {
	const op = "process due letters"
	if q.Limit <= 0 {
		if err := ctx.Err(); err != nil {
			return 0, fail(ctx, op, err)
		}
		return 0, nil
	}
	var (
		n     int
		fnErr error
	)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		sql, args := dueQuery(q)
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Letter, error) { return scanLetter(r) })
		if err != nil {
			return err
		}
		var (
			batch   pgx.Batch
			written int
		)
		for _, stored := range due {
			l := stored
			l.Metadata = cloneMetadata(stored.Metadata)
			l.Doc = storage.CloneDocument(stored.Doc)
			if err := fn(&l); err != nil {
				fnErr = err
				break
			}
			// What fn may not change stays as stored.
			l.ID, l.Account, l.CreatedAt, l.Revision = stored.ID, stored.Account, stored.CreatedAt, stored.Revision
			meta, data, err := prepareLetter(&l, nil)
			if err != nil {
				return fmt.Errorf("letter %s: %w", l.ID, err)
			}
			batch.Queue(updateLetterSQL, updateLetterArgs(&l, meta, data)...)
			written++
			if len(l.Notices) > 0 {
				sql, args, err := notifyQuery(&l)
				if err != nil {
					return fmt.Errorf("letter %s: %w", l.ID, err)
				}
				batch.Queue(sql, args...)
			}
		}
		if batch.Len() > 0 {
			// The rows are locked: every update finds its letter at the
			// revision read.
			br := tx.SendBatch(ctx, &batch)
			for _, q := range batch.QueuedQueries {
				tag, err := br.Exec()
				if err == nil && q.SQL == updateLetterSQL && tag.RowsAffected() != 1 {
					err = fmt.Errorf("letter %s: a locked letter changed", q.Arguments[0])
				}
				if err != nil {
					br.Close()
					return err
				}
			}
			if err := br.Close(); err != nil {
				return err
			}
		}
		n = written
		return nil
	})
	if err != nil {
		return 0, fail(ctx, op, err)
	}
	return n, fnErr
}
