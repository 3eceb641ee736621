package pgstore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// BenchmarkIdempotencyRowBytes creates n letters through the handler, each
// under an Idempotency-Key of its own, on a fresh schema, and reports what
// the idempotency table keeps per letter beside what the letters table
// keeps (the in-run baseline): the average row (pg_column_size), the
// stored outcome alone, the table with its indexes per row
// (pg_total_relation_size), and the answer the outcome replays, which was
// what a row stored before. Two bodies: the tests' letter, and the
// side-by-side benchmark's (testdata/letter-create.json).
//
//	LETTERSHOP_TEST_POSTGRES=postgres://... go test -run '^$' -bench IdempotencyRowBytes -benchtime 1x ./pgstore
func BenchmarkIdempotencyRowBytes(b *testing.B) {
	const n = 2000
	for _, body := range []string{"small", "sbs"} {
		b.Run("body="+body, func(b *testing.B) {
			for range b.N {
				idempotencyRowBytes(b, n, body)
			}
		})
	}
}

func idempotencyRowBytes(b *testing.B, n int, bodyName string) {
	schema := newSchema(b)
	st := openStore(b, schema)
	clk := clock.NewMock()
	clk.Set(epoch)
	svc := lettershop.New(st, lettershop.WithClock(clk), lettershop.WithEntropy(rand.New(rand.NewSource(1))),
		lettershop.WithTokenKey(sharedTokenKey), lettershop.WithBaseURL("https://lettershop.example.com"))
	defer svc.Close()
	h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0))
	send := func(path string, body []byte, key string) []byte {
		r := httptest.NewRequest("POST", path, bytes.NewReader(body))
		r.Header.Set("X-Api-Key", apiKey)
		if key != "" {
			r.Header.Set("Idempotency-Key", key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 300 {
			b.Fatalf("POST %s: %d %s", path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	var asset struct{ ID string }
	if err := json.Unmarshal(send("/v1/assets", []byte(`{"name":"Welcome","type":"template"}`), ""), &asset); err != nil {
		b.Fatal(err)
	}
	send("/v1/assets/"+asset.ID+"/versions", []byte(`{"content":{"type":"text/html","data":"<p>Dear {{name}},</p>"},`+
		`"variableDefinitions":[{"name":"name","behavior":"required"}],"publish":true}`), "")
	body := []byte(httpLetterBody(asset.ID))
	if bodyName == "sbs" {
		raw, err := os.ReadFile("../testdata/letter-create.json")
		if err != nil {
			b.Fatal(err)
		}
		var in map[string]any
		if err := json.Unmarshal(raw, &in); err != nil {
			b.Fatal(err)
		}
		in["content"] = map[string]any{"type": "asset", "assetId": asset.ID}
		in["useType"] = "marketing"
		in["variables"] = []map[string]any{{"name": "name", "value": "Marge"}}
		if body, err = json.Marshal(in); err != nil {
			b.Fatal(err)
		}
	}
	answers := 0
	for i := range n {
		clk.Add(time.Millisecond)
		answers += len(send("/v1/letters", body, fmt.Sprintf("%032x", i)))
	}
	conn := adminConn(b, schema)
	for _, table := range []string{"idempotency", "letters"} {
		if _, err := conn.Exec(b.Context(), `VACUUM ANALYZE `+table); err != nil {
			b.Fatal(err)
		}
	}
	var row, outcome, total, letterRow, letterTotal float64
	if err := conn.QueryRow(b.Context(), `SELECT
			(SELECT avg(pg_column_size(i.*)) FROM idempotency i),
			(SELECT avg(octet_length(result)) FROM idempotency),
			pg_total_relation_size('idempotency')::float8 / (SELECT count(*) FROM idempotency),
			(SELECT avg(pg_column_size(l.*)) FROM letters l),
			pg_total_relation_size('letters')::float8 / (SELECT count(*) FROM letters)`).
		Scan(&row, &outcome, &total, &letterRow, &letterTotal); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(row, "rowB")
	b.ReportMetric(outcome, "outcomeB")
	b.ReportMetric(total, "withIndexesB/row")
	b.ReportMetric(float64(answers)/float64(n), "answerB")
	b.ReportMetric(letterRow, "letterRowB")
	b.ReportMetric(letterTotal, "letterWithIndexesB/row")
}
