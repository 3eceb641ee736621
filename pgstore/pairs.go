package pgstore

import (
	"fmt"
	"strings"
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

// intersectPairsSQL returns a recursive CTE, walk(id, match, found), that
// finds, newest first, the ids of account $1 held by every pair of pairs
// (SQL expressions of metadata_pair), below before (an SQL expression, or
// "" for none), and stops at limit matches: records holding every pair for
// which check, a condition on the record r (as "r.status = $3"), holds. A
// list then reads the rows of walk with match, sorted by id (walk is only
// as long as its steps, so the sort is of a page at most).
//
// It is a leapfrog join of the pairs' index entries. Each step descends
// each pair's index once, to its newest entry below the bound, and takes
// the oldest of these, m: every newer id is missing from the pair that
// landed on m. Then m is held by every pair if all landed on it, or if a
// lookup of m in each pair's index finds it: a hit, checked against the
// record. The next step starts below m. So each step passes over at least
// one entry of the rarest pair, and a page costs, per pair, two descents
// per hit and per entry of the rarest pair passed over: how many records
// hold the first pair, or the most common, does not count.
func intersectPairsSQL(t pairTable, pairs []string, before, check, limit string) string {
	if check != "" {
		check = " AND " + check
	}
	list := "unnest(ARRAY[" + strings.Join(pairs, ", ") + "]::uuid[]) AS p(pair)"
	// The OFFSET 0s keep each subquery whole, so the planner computes
	// each descent once rather than once per reference to its result.
	step := func(bound string) string {
		return fmt.Sprintf(`SELECT t.id, CASE WHEN t.hit THEN EXISTS (
				SELECT 1 FROM %[1]s r WHERE r.account = $1 AND r.id = t.id%[2]s) ELSE false END AS match
			FROM (SELECT a.id, a.same OR (SELECT bool_and(EXISTS (
					SELECT 1 FROM %[4]s m WHERE m.account = $1 AND m.pair = p.pair AND m.%[3]s = a.id)) FROM %[6]s) AS hit
				FROM (SELECT CASE WHEN count(x.top) = count(*) THEN min(x.top) END AS id, min(x.top) = max(x.top) AS same
					FROM (SELECT (SELECT m.%[3]s FROM %[4]s m WHERE m.account = $1 AND m.pair = p.pair%[5]s
						ORDER BY m.%[3]s DESC LIMIT 1) AS top FROM %[6]s OFFSET 0) x OFFSET 0) a
				WHERE a.id IS NOT NULL OFFSET 0) t OFFSET 0`,
			t.records, check, t.id, t.pairs, bound, list)
	}
	first := ""
	if before != "" {
		first = fmt.Sprintf(" AND m.%s < %s", t.id, before)
	}
	next := fmt.Sprintf(" AND m.%s < w.id", t.id)
	return fmt.Sprintf(`WITH RECURSIVE walk(id, match, found) AS (
		SELECT s.id, s.match, s.match::int FROM (%s) s
		UNION ALL
		SELECT s.id, s.match, w.found + s.match::int FROM walk w, LATERAL (%s) s
		WHERE w.found < %s)
	`, step(first), step(next), limit)
}
