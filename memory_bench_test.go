package lettershop_test

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/lettershop/lettershop"
)

// BenchmarkHeapPerLetter creates n queued letters in a memstore-backed
// Service, each from its own decoding of the side-by-side benchmark's body
// (testdata/letter-create.json, with a template as its content, as sbs.sh
// sends it), so no string is shared between letters that a request would
// not share either, and reports the live heap each letter adds after a
// collection. Building 1,000,000 letters takes a minute or more.
func BenchmarkHeapPerLetter(b *testing.B) {
	body, err := os.ReadFile("testdata/letter-create.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("letters=%d", n), func(b *testing.B) {
			for range b.N {
				b.ReportMetric(heapPerLetter(b, body, n), "heapB/letter")
			}
		})
	}
}

func heapPerLetter(b *testing.B, body []byte, n int) float64 {
	e := newEnv(b)
	a, _ := e.publishedTemplate(b, acct)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		var in lettershop.CreateLetterInput
		if err := json.Unmarshal(body, &in); err != nil {
			b.Fatal(err)
		}
		in.Content = &lettershop.LetterContent{Type: "asset", AssetID: a.ID}
		in.UseType = lettershop.UseMarketing
		in.Variables = vars("name", "Marge")
		if _, err := e.svc.CreateLetter(e.ctx, acct, in); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if path := os.Getenv("LETTERSHOP_HEAP_PROFILE"); path != "" {
		// What the letters hold: go tool pprof -sample_index=inuse_space.
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	runtime.KeepAlive(e)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}
