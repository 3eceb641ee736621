package pgstore_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// planNode is one node of EXPLAIN (FORMAT JSON) output.
type planNode struct {
	NodeType   string     `json:"Node Type"`
	IndexName  string     `json:"Index Name"`
	ActualRows float64    `json:"Actual Rows"`
	Plans      []planNode `json:"Plans"`
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
		case string:
			params[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		case int:
			params[i] = fmt.Sprint(a)
		case time.Time:
			params[i] = "'" + a.Format(time.RFC3339Nano) + "'"
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
// query walks its index in id order, reading no more rows than the page,
// with no sort and no sequential scan, in a custom plan and in the generic
// plan a server switches to after repeated executions.
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
	}{
		{"account", storage.LetterQuery{Account: "acct_0"}, "letters_account_id"},
		{"account after a cursor", storage.LetterQuery{Account: "acct_0", Before: "ltr_00003000"}, "letters_account_id"},
		{"status", storage.LetterQuery{Account: "acct_0", Status: "ready"}, "letters_account_status_id"},
		{"status after a cursor", storage.LetterQuery{Account: "acct_1", Status: "queued", Before: "ltr_00001001"}, "letters_account_status_id"},
		{"external id", storage.LetterQuery{Account: "acct_0", ExternalID: "ext_100"}, "letters_account_external_id"},
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, tc := range lists {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				tc.q.Limit = limit
				query, args, err := pgstore.ListLettersQuery(tc.q)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := args[0].(pgx.QueryExecMode); ok {
					t.Fatalf("the query is planned for its values every time; it need not be")
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
						if n.ActualRows > limit {
							t.Errorf("index scan read %v rows for a page of %d:\n%s", n.ActualRows, limit, plan)
						}
					}
				})
				if !used {
					t.Errorf("plan does not walk %s:\n%s", tc.index, plan)
				}
			})
		}
		t.Run(mode+"/due letters", func(t *testing.T) {
			plan := explain(t, conn, mode, pgstore.DueLettersSQL, []any{epoch.Add(time.Hour), limit})
			used := false
			plan.walk(func(n planNode) {
				switch n.NodeType {
				case "Sort", "Seq Scan", "Bitmap Heap Scan":
					t.Errorf("plan has a %s:\n%s", n.NodeType, plan)
				case "Index Scan":
					used = used || n.IndexName == "letters_due"
					if n.ActualRows > limit {
						t.Errorf("index scan read %v rows for %d letters:\n%s", n.ActualRows, limit, plan)
					}
				}
			})
			if !used {
				t.Errorf("plan does not walk letters_due:\n%s", plan)
			}
		})
	}
	// A pair few letters hold is found through the GIN index; a common
	// one may as well be found walking the account's letters.
	t.Run("rare metadata", func(t *testing.T) {
		query, args, err := pgstore.ListLettersQuery(storage.LetterQuery{
			Account: "acct_0", Metadata: []storage.Metadata{{Key: "customer", Value: "c2000"}}, Limit: limit,
		})
		if err != nil {
			t.Fatal(err)
		}
		// The store plans such a query for its values every time.
		if len(args) == 0 || args[0] != pgx.QueryExecModeExec {
			t.Fatalf("a metadata query is not run with %v: %v", pgx.QueryExecModeExec, args)
		}
		args = args[1:]
		plan := explain(t, conn, "force_custom_plan", query, args)
		used := false
		plan.walk(func(n planNode) {
			switch {
			case n.NodeType == "Seq Scan":
				t.Errorf("plan has a %s:\n%s", n.NodeType, plan)
			case n.IndexName == "letters_metadata":
				used = true
			case strings.HasPrefix(n.NodeType, "Index"):
				t.Errorf("plan walks %s:\n%s", n.IndexName, plan)
			}
		})
		if !used {
			t.Errorf("plan does not use letters_metadata:\n%s", plan)
		}
	})
}
