package httpadapter_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
)

// BenchmarkDownload measures the two requests of a PDF download: the
// redirect to a fresh signed link (GET /v1/letters/{id}/download), and the
// signed link served from the render cache (GET /files/letters/{id}.pdf).
func BenchmarkDownload(b *testing.B) {
	svc := lettershop.New(memstore.New())
	b.Cleanup(func() { svc.Close() })
	h := httpadapter.New(svc, httpadapter.WithRateLimit(0, 0))
	serve := benchServe(b, &h)
	assetID := benchTemplate(serve)
	raw, err := os.ReadFile("../testdata/letter-create.json")
	if err != nil {
		b.Fatal(err)
	}
	var in map[string]any
	_ = json.Unmarshal(raw, &in)
	in["content"] = map[string]any{"type": "asset", "assetId": assetID}
	in["useType"] = "marketing"
	in["variables"] = []map[string]any{{"name": "name", "value": "Marge"}}
	body, _ := json.Marshal(in)
	var letter struct{ ID string }
	_ = json.Unmarshal(serve("POST", "/v1/letters", body, true).Body.Bytes(), &letter)
	link := serve("GET", "/v1/letters/"+letter.ID+"/download", nil, true).Header().Get("Location")
	if link == "" {
		b.Fatal("no download link")
	}
	serve("GET", link, nil, false) // rendered once, then cached
	b.Run("link", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serve("GET", "/v1/letters/"+letter.ID+"/download", nil, true)
		}
	})
	b.Run("pdf-cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if w := serve("GET", link, nil, false); w.Body.Len() == 0 {
				b.Fatal("no PDF")
			}
		}
	})
}
