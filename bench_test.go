package lettershop_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/storage"
)

// benchEnv is a Service whose store holds n letters besides the one made
// through the Service, copies of it under new ids; building 1,000,000 takes a
// few seconds, so each size is built once per run.
type benchEnv struct {
	*env
	assetID string
	ids     []string
	perItem float64 // heap bytes per stored letter
}

var (
	benchMu   sync.Mutex
	benchEnvs = map[int]*benchEnv{}
)

func getBenchEnv(b *testing.B, n int) *benchEnv {
	benchMu.Lock()
	defer benchMu.Unlock()
	if be, ok := benchEnvs[n]; ok {
		return be
	}
	e := newEnv(&testing.T{})
	a, _ := e.publishedTemplate(b, acct)
	in := letterInput(a.ID)
	in.Metadata = lettershop.Metadata{{Key: "campaign", Value: "spring"}, {Key: "customer", Value: "c-1"}}
	in.Description = "Order confirmation"
	first, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := e.store.GetLetter(e.ctx, acct, first.ID)
	if err != nil {
		b.Fatal(err)
	}
	be := &benchEnv{env: e, assetID: a.ID, ids: make([]string, 0, n)}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		r := rec
		r.ID = fmt.Sprintf("ltr_00%024d", i)
		r.Metadata = []storage.Metadata{{Key: "campaign", Value: "spring"}, {Key: "customer", Value: fmt.Sprintf("c-%d", i)}}
		r.Doc = rec.Doc // the store copies it in
		if _, err := e.store.CreateLetter(e.ctx, r, nil); err != nil {
			b.Fatal(err)
		}
		be.ids = append(be.ids, r.ID)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	be.perItem = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	benchEnvs[n] = be
	return be
}

var benchSizes = []int{1_000, 1_000_000}

func BenchmarkCreateLetter(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			be := getBenchEnv(b, n)
			in := letterInput(be.assetID)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := be.svc.CreateLetter(be.ctx, acct, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGetLetter(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			be := getBenchEnv(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := be.svc.GetLetter(be.ctx, acct, be.ids[i%len(be.ids)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(be.perItem, "heapB/letter")
		})
	}
}

func BenchmarkListLetters100(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			be := getBenchEnv(b, n)
			first, err := be.svc.ListLetters(be.ctx, acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// A page from the middle of the walk, through a token.
				p, err := be.svc.ListLetters(be.ctx, acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100, NextToken: first.NextToken}})
				if err != nil || len(p.Items) != 100 {
					b.Fatal(err, len(p.Items))
				}
			}
		})
	}
	b.Run("stored=1000000/metadata-filter", func(b *testing.B) {
		be := getBenchEnv(b, 1_000_000)
		in := lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100}, Metadata: lettershop.Metadata{{Key: "campaign", Value: "spring"}}}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if p, err := be.svc.ListLetters(be.ctx, acct, in); err != nil || len(p.Items) != 100 {
				b.Fatal(err)
			}
		}
	})
}

// benchTemplate is a template of a typical letter's size: headings,
// paragraphs, a list and a table.
const benchTemplate = `<h1>Hello {{name}}</h1>
<p>Thank you for your order {{order}}. It left our warehouse this morning and
should reach you within three working days.</p>
<ul><li>Track it online at any time.</li><li>Keep this letter for your records.</li></ul>
<table><thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead>
<tbody><tr><td>Notebook, lined</td><td>2</td><td>$7.00</td></tr>
<tr><td>Fountain pen</td><td>1</td><td>$24.50</td></tr></tbody></table>
<p>Questions? Write to <a href="mailto:help@example.com">help@example.com</a>.</p>
<p><b>The Example Shop</b></p>`

func BenchmarkCreateVersion(b *testing.B) {
	e := newEnv(b)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "Order", Type: lettershop.AssetTemplate})
	if err != nil {
		b.Fatal(err)
	}
	in := lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: "text/html", Content: benchTemplate},
		VariableDefinitions: testDefinitions,
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListVersions100 measures a page of 100 versions, which carries
// each version's content, against what a client had to do for the same
// contents before lists carried them: fetch the 100 versions one by one.
// Versions cloned from one share their content, which a page reads once.
//
//	go test -run '^$' -bench ListVersions100 -benchmem .
func BenchmarkListVersions100(b *testing.B) {
	e := newEnv(b)
	// A 4 KB template, about what a one-page letter's HTML takes.
	tpl := "<p>Dear {{name}},</p>" + strings.Repeat("<p>Thank you for your order; it ships this week.</p>", 80)
	distinct, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "distinct"})
	if err != nil {
		b.Fatal(err)
	}
	shared, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "shared"})
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	var first *lettershop.AssetVersion
	for i := range 100 {
		v, err := e.svc.CreateVersion(e.ctx, acct, distinct.ID, lettershop.CreateVersionInput{
			Content: &lettershop.VersionContent{Content: fmt.Sprintf("<h1>%d</h1>%s", i, tpl)},
		})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, v.ID)
		if i == 0 {
			if first, err = e.svc.CreateVersion(e.ctx, acct, shared.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Content: tpl},
			}); err != nil {
				b.Fatal(err)
			}
		} else if _, err := e.svc.CloneVersion(e.ctx, acct, shared.ID, first.ID, lettershop.CloneVersionInput{}); err != nil {
			b.Fatal(err)
		}
	}
	page := lettershop.ListVersionsInput{PageRequest: lettershop.PageRequest{PageSize: 100}}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"page", func() error {
			p, err := e.svc.ListVersions(e.ctx, acct, distinct.ID, page)
			if err == nil && (len(p.Items) != 100 || p.Items[0].Content.Content == "") {
				err = fmt.Errorf("%d items", len(p.Items))
			}
			return err
		}},
		{"page-of-clones", func() error {
			p, err := e.svc.ListVersions(e.ctx, acct, shared.ID, page)
			if err == nil && len(p.Items) != 100 {
				err = fmt.Errorf("%d items", len(p.Items))
			}
			return err
		}},
		{"get-each", func() error {
			for _, id := range ids {
				if _, err := e.svc.GetVersion(e.ctx, acct, distinct.ID, id); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
