package pgstore_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// planNode is one node of EXPLAIN (FORMAT JSON) output.
type planNode struct {
	NodeType    string     `json:"Node Type"`
	IndexName   string     `json:"Index Name"`
	ActualRows  float64    `json:"Actual Rows"`
	ActualLoops float64    `json:"Actual Loops"`
	Removed     float64    `json:"Rows Removed by Filter"`
	Plans       []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

func (n planNode) String() string {
	var b strings.Builder
	var write func(planNode, int)
	write = func(n planNode, depth int) {
		fmt.Fprintf(&b, "%s%s %s (rows %v)\n", strings.Repeat("  ", depth), n.NodeType, n.IndexName, n.ActualRows)
		for _, c := range n.Plans {
			write(c, depth+1)
		}
	}
	write(n, 0)
	return b.String()
}

var stmtSeq int

// explain runs query as a prepared statement under plan_cache_mode mode and
// returns its executed plan.
func explain(t *testing.T, conn *pgx.Conn, mode, query string, args []any) planNode {
	t.Helper()
	ctx := t.Context()
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
		t.Fatal(err)
	}
	stmtSeq++
	name := fmt.Sprintf("explained_%d", stmtSeq)
	if _, err := conn.Exec(ctx, "PREPARE "+name+" AS "+query); err != nil {
		t.Fatalf("PREPARE %s: %v", query, err)
	}
	// EXECUTE takes no bound parameters: the arguments go in as literals.
	params := make([]string, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case nil:
			params[i] = "NULL"
		case string:
			params[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		case int, int64:
			params[i] = fmt.Sprint(a)
		case time.Time:
			params[i] = "'" + a.Format(time.RFC3339Nano) + "'"
		case []string:
			quoted := make([]string, len(a))
			for j, s := range a {
				quoted[j] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
			}
			params[i] = "ARRAY[" + strings.Join(quoted, ",") + "]::text[]"
		default:
			t.Fatalf("no literal for %T", a)
		}
	}
	var out []struct{ Plan planNode }
	if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE "+name+"("+strings.Join(params, ", ")+")").Scan(&out); err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	return out[0].Plan
}

// TestQueriesWalkIndexes: on a table of a few thousand letters, each list
// query walks its index in id order, reading no more entries than the page,
// with no sort and no sequential scan, in a custom plan and in the generic
// plan a server switches to after repeated executions. So does the query
// that takes due letters.
func TestQueriesWalkIndexes(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	openStore(t, schema)
	conn := adminConn(t, schema)
	ctx := t.Context()
	// Two accounts of 3000 letters, four statuses, an external id on every
	// tenth letter, due times on every third, a batch in every letter's
	// metadata and a customer number in every thousandth's.
	if _, err := conn.Exec(ctx, `INSERT INTO letters (id, account, status, external_id, metadata, created_at, modified_at, due_at, revision, data)
		SELECT format('ltr_%s', lpad(i::text, 8, '0')), 'acct_' || (i % 2), (ARRAY['queued','ready','mailed','canceled'])[(i / 2) % 4 + 1],
			CASE WHEN i % 10 = 0 THEN 'ext_' || i ELSE '' END,
			jsonb_build_array(jsonb_build_object('key', 'batch', 'value', 'b' || (i % 100)))
				|| CASE WHEN i % 1000 = 0 THEN jsonb_build_array(jsonb_build_object('key', 'customer', 'value', 'c' || i)) ELSE '[]' END,
			$1, $1, CASE WHEN i % 3 = 0 THEN $1::timestamptz + i * interval '1 second' END, 1, '\x7b7d'
		FROM generate_series(1, 6000) AS i`, epoch); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE letters`); err != nil {
		t.Fatal(err)
	}
	const limit = 11
	lists := []struct {
		name  string
		q     storage.LetterQuery
		index string
		// maxRead bounds the index entries read: the page, unless a filter
		// the walk checks passes over some (here every other one).
		maxRead float64
	}{
		{"account", storage.LetterQuery{Account: "acct_0"}, "letters_account_id", 0},
		{"account after a cursor", storage.LetterQuery{Account: "acct_0", Before: "ltr_00003000"}, "letters_account_id", 0},
		{"status", storage.LetterQuery{Account: "acct_0", Status: "ready"}, "letters_account_status_id", 0},
		{"status after a cursor", storage.LetterQuery{Account: "acct_1", Status: "queued", Before: "ltr_00001001"}, "letters_account_status_id", 0},
		{"external id", storage.LetterQuery{Account: "acct_0", ExternalID: "ext_100"}, "letters_account_external_id", 0},
		{"external id and metadata", storage.LetterQuery{Account: "acct_0", ExternalID: "ext_100", Metadata: md("batch", "b0")}, "letters_account_external_id", 0},
		{"common metadata", storage.LetterQuery{Account: "acct_0", Metadata: md("batch", "b42")}, "letter_metadata_pkey", 0},
		{"common metadata after a cursor", storage.LetterQuery{Account: "acct_0", Metadata: md("batch", "b42"), Before: "ltr_00003000"}, "letter_metadata_pkey", 0},
		{"rare metadata", storage.LetterQuery{Account: "acct_0", Metadata: md("customer", "c2000")}, "letter_metadata_pkey", 0},
		{"metadata and status", storage.LetterQuery{Account: "acct_0", Status: "ready", Metadata: md("batch", "b42")}, "letter_metadata_pkey", 2 * limit},
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, tc := range lists {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				tc.q.Limit = limit
				query, args, err := pgstore.ListLettersQuery(tc.q)
				if err != nil {
					t.Fatal(err)
				}
				plan := explain(t, conn, mode, query, args)
				used := false
				plan.walk(func(n planNode) {
					switch n.NodeType {
					case "Sort", "Seq Scan", "Bitmap Heap Scan":
						t.Errorf("plan has a %s:\n%s", n.NodeType, plan)
					case "Index Scan", "Index Only Scan":
						if n.IndexName == tc.index {
							used = true
						}
						if max := max(tc.maxRead, limit); n.ActualRows > max {
							t.Errorf("index scan read %v entries, more than %v:\n%s", n.ActualRows, max, plan)
						}
					}
				})
				if !used {
					t.Errorf("plan does not walk %s:\n%s", tc.index, plan)
				}
			})
		}
		// With several pairs, the pairs' indexes are walked together
		// (intersectPairsSQL): a few entries per pair per letter of the
		// page, and per entry of the rarest pair passed over, whichever
		// pair comes first. Its only sort is of the page.
		for _, tc := range []struct {
			name string
			q    storage.LetterQuery
			hits int
		}{
			{"two metadata pairs", storage.LetterQuery{Account: "acct_0", Metadata: md("customer", "c2000", "batch", "b0")}, 1},
			{"two metadata pairs, the rarer second", storage.LetterQuery{Account: "acct_0", Metadata: md("batch", "b0", "customer", "c2000")}, 1},
			{"two metadata pairs, one absent", storage.LetterQuery{Account: "acct_0", Metadata: md("batch", "b42", "customer", "nobody")}, 0},
			{"two metadata pairs held apart", storage.LetterQuery{Account: "acct_0", Metadata: md("batch", "b42", "customer", "c2000")}, 0},
			{"two metadata pairs after a cursor", storage.LetterQuery{Account: "acct_0", Metadata: md("batch", "b0", "customer", "c4000"), Before: "ltr_00003000"}, 0},
			{"a metadata pair twice", storage.LetterQuery{Account: "acct_0", Metadata: md("batch", "b42", "batch", "b42")}, limit},
			{"two metadata pairs and status", storage.LetterQuery{Account: "acct_0", Status: "queued", Metadata: md("customer", "c4000", "batch", "b0")}, 1},
		} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				tc.q.Limit = limit
				query, args, err := pgstore.ListLettersQuery(tc.q)
				if err != nil {
					t.Fatal(err)
				}
				plan := explain(t, conn, mode, query, args)
				read := 0.0
				plan.walk(func(n planNode) {
					switch {
					case n.NodeType == "Sort" && n.ActualRows > limit:
						t.Errorf("plan sorts %v rows:\n%s", n.ActualRows, plan)
					case n.NodeType == "Seq Scan" || n.NodeType == "Bitmap Heap Scan":
						t.Errorf("plan has a %s:\n%s", n.NodeType, plan)
					case n.IndexName == "letter_metadata_pkey":
						read += n.ActualRows*n.ActualLoops + n.Removed
					}
				})
				if max := float64(4 * len(tc.q.Metadata) * (tc.hits + 2)); read == 0 && tc.hits > 0 || read > max {
					t.Errorf("the pairs' index scans read %v entries, want 1 to %v:\n%s", read, max, plan)
				}
			})
		}
		// The queries of one account's letters, or all but some accounts',
		// run unnamed, so always with a custom plan; with two accounts of
		// half the letters each, the plan of one account may walk either
		// index of due letters.
		for _, tc := range []struct {
			name, sql string
			indexes   []string
			args      []any
			custom    bool
		}{
			{"due letters", pgstore.DueLettersSQL, []string{"letters_due_server"}, []any{epoch.Add(time.Hour).UnixMicro(), limit}, false},
			{"due letters except some", pgstore.ExceptDueLettersSQL, []string{"letters_due_server"}, []any{epoch.Add(time.Hour).UnixMicro(), limit, []string{"acct_0"}}, true},
			{"due letters of one account", pgstore.AccountDueLettersSQL, []string{"letters_due_by_account"}, []any{epoch.Add(time.Hour), limit, "acct_1"}, true},
		} {
			if tc.custom && mode != "force_custom_plan" {
				continue
			}
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				plan := explain(t, conn, mode, tc.sql, tc.args)
				used := false
				plan.walk(func(n planNode) {
					switch n.NodeType {
					case "Sort", "Seq Scan", "Bitmap Heap Scan":
						t.Errorf("plan has a %s:\n%s", n.NodeType, plan)
					case "Index Scan":
						used = used || slices.Contains(tc.indexes, n.IndexName)
						if n.ActualRows > 2*limit {
							t.Errorf("index scan read %v rows for %d letters:\n%s", n.ActualRows, limit, plan)
						}
					}
				})
				if !used {
					t.Errorf("plan walks none of %s:\n%s", tc.indexes, plan)
				}
			})
		}
	}
}

// TestAssetPairsWalkCostsThePage: a list of assets by several metadata
// pairs reads a few index entries per pair, however many assets hold the
// first pair, in a custom plan and in the generic one.
func TestAssetPairsWalkCostsThePage(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	openStore(t, schema)
	conn := adminConn(t, schema)
	ctx := t.Context()
	// 2000 assets of kind=image, one in 500 of owner=ops.
	if _, err := conn.Exec(ctx, `INSERT INTO assets (id, account, metadata, created_at, modified_at, revision, data)
		SELECT format('ast_%s', lpad(i::text, 8, '0')), 'acct_0',
			jsonb_build_array(jsonb_build_object('key', 'kind', 'value', 'image'))
				|| CASE WHEN i % 500 = 0 THEN jsonb_build_array(jsonb_build_object('key', 'owner', 'value', 'ops')) ELSE '[]' END,
			$1, $1, 1, '\x7b7d'
		FROM generate_series(1, 2000) AS i`, epoch); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE assets; ANALYZE asset_metadata`); err != nil {
		t.Fatal(err)
	}
	const limit = 11
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, tc := range []struct {
			name string
			q    storage.AssetQuery
			hits int
		}{
			{"the rarer pair second", storage.AssetQuery{Account: "acct_0", Metadata: md("kind", "image", "owner", "ops")}, 4},
			{"an absent pair second", storage.AssetQuery{Account: "acct_0", Metadata: md("kind", "image", "owner", "nobody")}, 0},
			{"after a cursor", storage.AssetQuery{Account: "acct_0", Metadata: md("kind", "image", "owner", "ops"), Before: "ast_00001000"}, 1},
		} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				tc.q.Limit = limit
				query, args, err := pgstore.ListAssetsQuery(tc.q)
				if err != nil {
					t.Fatal(err)
				}
				plan := explain(t, conn, mode, query, args)
				read := 0.0
				plan.walk(func(n planNode) {
					switch {
					case n.NodeType == "Sort" && n.ActualRows > limit:
						t.Errorf("plan sorts %v rows:\n%s", n.ActualRows, plan)
					case n.NodeType == "Seq Scan" || n.NodeType == "Bitmap Heap Scan":
						t.Errorf("plan has a %s:\n%s", n.NodeType, plan)
					case n.IndexName == "asset_metadata_pkey":
						read += n.ActualRows*n.ActualLoops + n.Removed
					}
				})
				if max := float64(4 * len(tc.q.Metadata) * (tc.hits + 2)); read == 0 && tc.hits > 0 || read > max {
					t.Errorf("the pairs' index scans read %v entries, want 1 to %v:\n%s", read, max, plan)
				}
			})
		}
	}
}
