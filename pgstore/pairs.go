package pgstore

import (
	"fmt"
	"strings"

	"github.com/lettershop/lettershop/storage"
)

// pairTable is a table of records and the table that indexes their
// metadata pairs, (account, pair, id) in id order (migration 0001).
type pairTable struct {
	records string // the records: letters, assets
	pairs   string // their pairs: letter_metadata, asset_metadata
	id      string // the record's id in pairs: letter_id, asset_id
}

var (
	letterPairs = pairTable{records: "letters", pairs: "letter_metadata", id: "letter_id"}
	assetPairs  = pairTable{records: "assets", pairs: "asset_metadata", id: "asset_id"}
)

// intersectPairsSQL returns a recursive CTE, walk(id, hit, driver, match,
// found), that finds, newest first, the ids of account $1 held by every
// pair of pairs, below before (an SQL expression, or "" for none), and
// stops at limit matches: records holding every pair for which check, a
// condition on the record r (as "r.status = $3"), holds. Each of pairs is
// an SQL expression of a pair's hash, best a scalar subquery, as
// "(SELECT metadata_pair($2, $3))", which a generic plan computes once
// rather than at every descent. A list then reads the rows of walk with
// match, sorted by id (walk is only as long as its steps, so the sort is
// of a page at most).
//
// It is a leapfrog join of the pairs' index entries. Each step descends one
// pair's index, the driver's, to its newest entry below the bound: the
// candidate. Each other pair's index is descended to its newest entry at or
// below the candidate. If all land on the candidate, every pair holds it: a
// hit, checked against the record, and the next step starts strictly below
// it with the same driver. Else the pair that landed lowest drives the next
// step, from where it landed: every id between lacks that pair, and is
// passed over unread. So at least every other step returns or passes over
// an entry of the rarest pair, and a page costs a few descents per pair for
// each record it returns and for each entry of the rarest pair that lacks
// another pair, however many records hold the first pair, or the most
// common. While the rarer pair drives, as it does once it has landed lowest,
// a step is one descent of it and one of each other pair.
func intersectPairsSQL(t pairTable, pairs []string, before, check, limit string) string {
	if check != "" {
		check = " AND " + check
	}
	seek := func(pair, bound string) string {
		return fmt.Sprintf(`(SELECT m.%[1]s FROM %[2]s m WHERE m.account = $1 AND m.pair = %[3]s%[4]s ORDER BY m.%[1]s DESC LIMIT 1)`,
			t.id, t.pairs, pair, bound)
	}
	// The pairs are spelled out, top1 to topN, one column each: a step
	// is a few expressions over a row, not a set to aggregate. The OFFSET
	// 0s keep each subquery whole, so the planner computes each descent
	// once rather than once per reference to its result.
	var tops, least, missing, lowest []string
	for i, p := range pairs {
		n := i + 1
		tops = append(tops, fmt.Sprintf("CASE WHEN d.was = %d THEN d.c ELSE %s END AS top%d", n, seek(p, fmt.Sprintf(" AND m.%s <= d.c", t.id)), n))
		least = append(least, fmt.Sprintf("y.top%d", n))
		missing = append(missing, fmt.Sprintf("y.top%d IS NULL", n))
		lowest = append(lowest, fmt.Sprintf("WHEN x.top%d = x.m THEN %d", n, n))
	}
	step := func(driver, bound string) string {
		drive := make([]string, len(pairs))
		for i, p := range pairs {
			drive[i] = fmt.Sprintf("WHEN %d THEN %s", i+1, seek(p, bound))
		}
		return fmt.Sprintf(`SELECT t.id, t.hit, CASE WHEN t.hit THEN t.was ELSE t.lowest END AS driver,
				CASE WHEN t.hit THEN EXISTS (SELECT 1 FROM %[1]s r WHERE r.account = $1 AND r.id = t.id%[2]s) ELSE false END AS match
			FROM (SELECT x.m AS id, x.m = x.c AS hit, x.was, CASE %[3]s END AS lowest
				FROM (SELECT y.*, CASE WHEN %[4]s THEN NULL ELSE LEAST(%[5]s) END AS m
					FROM (SELECT d.c, d.was, %[6]s
						FROM (SELECT CASE %[7]s %[8]s END AS c, %[7]s AS was OFFSET 0) d
						WHERE d.c IS NOT NULL OFFSET 0) y
					OFFSET 0) x
				WHERE x.m IS NOT NULL OFFSET 0) t
			OFFSET 0`,
			t.records, check, strings.Join(lowest, " "), strings.Join(missing, " OR "), strings.Join(least, ", "),
			strings.Join(tops, ", "), driver, strings.Join(drive, " "))
	}
	first := ""
	if before != "" {
		first = fmt.Sprintf(" AND m.%s < %s", t.id, before)
	}
	// After a hit the walk goes on strictly below it; after a miss, from
	// the id the new driver landed on.
	next := fmt.Sprintf(" AND m.%[1]s <= w.id AND (m.%[1]s < w.id OR NOT w.hit)", t.id)
	return fmt.Sprintf(`WITH RECURSIVE walk(id, hit, driver, match, found) AS (
		SELECT s.id, s.hit, s.driver, s.match, s.match::int FROM (%s) s
		UNION ALL
		SELECT s.id, s.hit, s.driver, s.match, w.found + s.match::int FROM walk w, LATERAL (%s) s
		WHERE w.found < %s)
	`, step("1", first), step("w.driver", next), limit)
}

// listByPairs is the list of t's records of account held by every pair of
// md, newest first below before ("": from the newest), at status when it
// is not "", at most limit: the records of the pairs' intersection
// (intersectPairsSQL), each checked against all of md in its jsonb, so
// that a collision of the pairs' hashes cannot show, and read by id as
// columns, from its row l (read, the columns of the row).
func listByPairs(t pairTable, account string, md []storage.Metadata, before, status string, limit int, columns, read string) (string, []any, error) {
	args := []any{account}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	pairs := make([]string, len(md))
	for i, m := range md {
		pairs[i] = fmt.Sprintf("(SELECT metadata_pair(%s, %s))", arg(m.Key), arg(m.Value))
	}
	if before != "" {
		before = arg(before)
	}
	m, err := encodeMetadata(md)
	if err != nil {
		return "", nil, err
	}
	check := "r.metadata @> " + arg(m) + "::jsonb"
	if status != "" {
		check += " AND r.status = " + arg(status)
	}
	n := arg(limit)
	return intersectPairsSQL(t, pairs, before, check, n) + fmt.Sprintf(`SELECT %s FROM walk w, LATERAL (
		SELECT %s FROM %s WHERE account = $1 AND id = w.id OFFSET 0) l
		WHERE w.match ORDER BY w.id DESC LIMIT %s`, columns, read, t.records, n), args, nil
}
