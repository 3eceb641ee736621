package wire_test

import (
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/wire"
)

// benchEnv is a Service whose store holds n letters besides the one made
// through the Service, copies of it under new ids; building 1,000,000
// takes a few seconds, so each size is built once per run.
type benchEnv struct {
	*env
	ids []string
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
	in := letterInput(e.publishedTemplate(b, acct))
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
	be := &benchEnv{env: e, ids: make([]string, 0, n)}
	for i := 0; i < n; i++ {
		r := rec
		r.ID = fmt.Sprintf("ltr_00%024d", i)
		r.Metadata = []storage.Metadata{{Key: "campaign", Value: "spring"}, {Key: "customer", Value: fmt.Sprintf("c-%d", i)}}
		if _, err := e.store.CreateLetter(e.ctx, r, nil); err != nil {
			b.Fatal(err)
		}
		be.ids = append(be.ids, r.ID)
	}
	benchEnvs[n] = be
	return be
}

// BenchmarkGetLetterJSON compares a letter served as the API's JSON from the
// encodings kept (Letters.AppendLetter) with reading and encoding it
// afresh, in one run.
func BenchmarkGetLetterJSON(b *testing.B) {
	be := getBenchEnv(b, 1_000)
	id := be.ids[len(be.ids)/2]
	b.Run("kept", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = be.letters.AppendLetter(be.ctx, buf[:0], acct, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l, err := be.svc.GetLetter(be.ctx, acct, id)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := wire.Letter(l); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLetterPageJSON compares a page of 100 letters served from the
// encodings kept (Letters.Page) with reading and encoding each letter
// afresh, in one run, at 1,000 and 1,000,000 letters stored.
func BenchmarkLetterPageJSON(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			be := getBenchEnv(b, n)
			in := lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100}}
			b.Run("kept", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					page, err := be.letters.Page(be.ctx, acct, in)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := page.WriteTo(io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("encoded", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					p, err := be.svc.ListLetters(be.ctx, acct, in)
					if err != nil {
						b.Fatal(err)
					}
					for _, l := range p.Items {
						if _, err := wire.Letter(l); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}

// BenchmarkLetterPageWalk walks every page of 100 of an account, over and
// over, as a client paging through all its letters does, on a Letters
// that has read none of them before: "walk", each op one page; and
// "walk-and-fetch", each op one page and a fetch of each of its letters,
// as a client that lists letters and reads them one by one does, which
// makes the cache hold each letter as a list and as a fetch show it.
//
//	go test ./wire -run '^$' -bench LetterPageWalk -benchmem
func BenchmarkLetterPageWalk(b *testing.B) {
	for _, n := range []int{8_000, 12_000} {
		be := getBenchEnv(b, n)
		var pages [][]string
		var tokens []string
		for next := ""; ; {
			p, err := be.svc.ListLetters(be.ctx, acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100, NextToken: next}})
			if err != nil {
				b.Fatal(err)
			}
			tokens = append(tokens, next)
			var ids []string
			for _, l := range p.Items {
				ids = append(ids, l.ID)
			}
			pages = append(pages, ids)
			if next = p.NextToken; next == "" {
				break
			}
		}
		for _, fetch := range []bool{false, true} {
			name := fmt.Sprintf("stored=%d/walk", n)
			if fetch {
				name += "-and-fetch"
			}
			b.Run(name, func(b *testing.B) {
				letters := wire.NewLetters(be.svc)
				var buf []byte
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					in := lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100, NextToken: tokens[i%len(tokens)]}}
					page, err := letters.Page(be.ctx, acct, in)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := page.WriteTo(io.Discard); err != nil {
						b.Fatal(err)
					}
					if fetch {
						for _, id := range pages[i%len(pages)] {
							if buf, err = letters.AppendLetter(be.ctx, buf[:0], acct, id); err != nil {
								b.Fatal(err)
							}
						}
					}
					i++
				}
			})
		}
	}
}

// BenchmarkReadsWhileOthersErase is a server shared by a suite whose tests
// each empty their own account (DELETE /_test/account) before they run:
// each op reads a letter and a page of the account's 3 letters, once with
// no erase meanwhile ("quiet"), once after another account's erase
// ("others-erase"), which should cost the reads nothing more than the
// erase itself ("erase-only").
//
//	go test ./wire -run '^$' -bench ReadsWhileOthersErase -benchmem -count 6
func BenchmarkReadsWhileOthersErase(b *testing.B) {
	e := newEnv(b)
	asset := e.publishedTemplate(b, acct)
	var ids []string
	for range 3 {
		l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(asset))
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	var buf []byte
	read := func(b *testing.B, i int) {
		var err error
		if buf, err = e.letters.AppendLetter(e.ctx, buf[:0], acct, ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
		page, err := e.letters.Page(e.ctx, acct, lettershop.ListLettersInput{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := page.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	erase := func(b *testing.B) {
		if err := e.svc.EraseAccount(e.ctx, "acct_other"); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("quiet", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			read(b, i)
			i++
		}
	})
	b.Run("others-erase", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			erase(b)
			read(b, i)
			i++
		}
	})
	b.Run("erase-only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			erase(b)
		}
	})
}
