package lettershoptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/lettershoptest"
)

// benchTB is a testing.TB for one iteration of a benchmark: what the
// helper registers with Cleanup runs when the iteration ends, as it would
// when a test ends.
type benchTB struct {
	testing.TB
	cleanups []func()
}

func (t *benchTB) Helper()                      {}
func (t *benchTB) Cleanup(f func())             { t.cleanups = append(t.cleanups, f) }
func (t *benchTB) Fatalf(f string, args ...any) { t.TB.Fatalf(f, args...) }

// end runs the cleanups, last registered first.
func (t *benchTB) end() {
	for _, f := range slices.Backward(t.cleanups) {
		f()
	}
	t.cleanups = t.cleanups[:0]
}

// get makes a GET with the key and drains the answer.
func get(tb testing.TB, c *http.Client, url, key string) int {
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// BenchmarkSetup is what a suite pays per test for a server of its own:
// lettershoptest.New, NewAccount, a first request and the cleanup, beside
// an httptest.Server with a trivial handler and one GET (the anchor). The
// two alternate within each op, so that what the machine does meanwhile
// (its load, the sockets the kernel still holds from earlier connections,
// which slow every bind) weighs on both alike: setup/anchor is the figure.
// The sub-benchmarks measure each alone, for its allocations.
func BenchmarkSetup(b *testing.B) {
	trivial := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"items":[]}`) })
	anchor := func(b *testing.B) {
		hs := httptest.NewServer(trivial)
		if get(b, hs.Client(), hs.URL+"/v1/letters", "") != http.StatusOK {
			b.Fatal("GET failed")
		}
		hs.Close()
	}
	setup := func(b *testing.B, tb *benchTB) {
		srv := lettershoptest.New(tb)
		acct := srv.NewAccount()
		if code := get(b, srv.Client(), srv.URL+"/v1/letters", acct.APIKey); code != http.StatusOK {
			b.Fatalf("GET /v1/letters: %d", code)
		}
		tb.end()
	}
	b.Run("pair", func(b *testing.B) {
		tb := &benchTB{TB: b}
		var inAnchor, inSetup time.Duration
		for b.Loop() {
			t0 := time.Now()
			anchor(b)
			t1 := time.Now()
			setup(b, tb)
			inAnchor += t1.Sub(t0)
			inSetup += time.Since(t1)
		}
		b.ReportMetric(float64(inAnchor.Microseconds())/float64(b.N), "anchor-µs/op")
		b.ReportMetric(float64(inSetup.Microseconds())/float64(b.N), "setup-µs/op")
		b.ReportMetric(float64(inSetup)/float64(inAnchor), "setup/anchor")
	})
	b.Run("httptest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			anchor(b)
		}
	})
	b.Run("lettershoptest", func(b *testing.B) {
		b.ReportAllocs()
		tb := &benchTB{TB: b}
		for b.Loop() {
			setup(b, tb)
		}
	})
}

// typicalTest is a typical test on a shared server: an asset and a
// published version (through the Service), a letter made from it over
// HTTP with an Idempotency-Key, the account's clock moved 30 days, and the
// letter fetched.
func typicalTest(tb testing.TB, srv *lettershoptest.Server) {
	acct := srv.NewAccount()
	id := sendOverHTTP(tb, srv, acct)
	acct.Advance(30 * 24 * time.Hour)
	req, _ := http.NewRequest("GET", srv.URL+"/v1/letters/"+id, nil)
	req.Header.Set("X-Api-Key", acct.APIKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"delivered"`) {
		tb.Fatalf("GET the letter: %d %s", resp.StatusCode, b)
	}
}

// earlierTest is the i-th test run before the measured ones: a typical
// test mostly, but one in ten leaves its account's clock frozen, and one
// in ten leaves its letter in flight on the server's clock.
func earlierTest(tb testing.TB, srv *lettershoptest.Server, i int) {
	switch i % 10 {
	case 3:
		acct := srv.NewAccount()
		sendOverHTTP(tb, srv, acct)
		acct.Advance(48 * time.Hour)
		acct.Freeze()
	case 7:
		sendOverHTTP(tb, srv, srv.NewAccount())
	default:
		typicalTest(tb, srv)
	}
}

// sendOverHTTP makes an asset and a published version in the account
// (through the Service) and a letter from it over HTTP, and returns the
// letter's id.
func sendOverHTTP(tb testing.TB, srv *lettershoptest.Server, acct *lettershoptest.Account) string {
	ctx := context.Background()
	svc := srv.Service()
	asset, err := svc.CreateAsset(ctx, acct.ID, lettershop.CreateAssetInput{Name: "Welcome"})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, acct.ID, asset.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Dear {{name}},</p><p>Welcome aboard.</p>"},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired}},
		Publish:             true,
	}); err != nil {
		tb.Fatal(err)
	}
	body := fmt.Sprintf(`{"sender":{"organization":"Acme Corp","address":{"addressLine1":"100 Main St","lastLine":"Springfield, IL 62701"}},`+
		`"recipient":{"individual":{"firstName":"Jane","lastName":"Doe"},"address":{"addressLine1":"200 Oak Ave","lastLine":"Chicago, IL 60601"}},`+
		`"content":{"type":"asset","assetId":%q},"useType":"transactional","variables":[{"name":"name","value":"Jane"}]}`, asset.ID)
	req, _ := http.NewRequest("POST", srv.URL+"/v1/letters", strings.NewReader(body))
	req.Header.Set("X-Api-Key", acct.APIKey)
	req.Header.Set("Content-Type", "application/json")
	// As the typed client sends on every write.
	req.Header.Set("Idempotency-Key", "welcome-"+acct.ID)
	resp, err := srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var l struct{ ID string }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(b, &l) != nil {
		tb.Fatalf("POST /v1/letters: %d %s", resp.StatusCode, b)
	}
	return l.ID
}

// BenchmarkTypicalTest is a typical test on a shared server after 300 and
// 3,000 earlier tests made their accounts, moved their clocks (one in ten
// froze it), and left their letters on it (one in ten in flight), beside the same test on a fresh server (made again,
// outside the timer, every 100 tests): the goal is the same cost whatever
// came before. Each op runs the test on both servers, one after the other,
// so the machine's load weighs on both alike: loaded/fresh is the figure.
func BenchmarkTypicalTest(b *testing.B) {
	for _, earlier := range []int{300, 3000} {
		b.Run(fmt.Sprintf("earlier=%d", earlier), func(b *testing.B) {
			b.ReportAllocs()
			tb := &benchTB{TB: b}
			defer tb.end()
			loaded := lettershoptest.New(tb)
			for i := range earlier {
				earlierTest(b, loaded, i)
			}
			freshTB := &benchTB{TB: b}
			defer freshTB.end()
			var fresh *lettershoptest.Server
			served := 0
			var inFresh, inLoaded time.Duration
			for b.Loop() {
				if fresh == nil || served == 100 {
					b.StopTimer()
					freshTB.end()
					fresh = lettershoptest.New(freshTB)
					served = 0
					b.StartTimer()
				}
				t0 := time.Now()
				typicalTest(b, fresh)
				t1 := time.Now()
				typicalTest(b, loaded)
				inFresh += t1.Sub(t0)
				inLoaded += time.Since(t1)
				served++
			}
			b.ReportMetric(float64(inFresh.Microseconds())/float64(b.N), "fresh-µs/op")
			b.ReportMetric(float64(inLoaded.Microseconds())/float64(b.N), "loaded-µs/op")
			b.ReportMetric(float64(inLoaded)/float64(inFresh), "loaded/fresh")
		})
	}
}

// keptTB is a test that has ended but is kept, as package testing keeps a
// finished parallel subtest until its parent ends: its cleanups ran, and
// were popped off their slice the way package testing pops them, so the
// slice's array still holds the functions it was given.
type keptTB struct {
	testing.TB
	cleanups []func()
}

func (t *keptTB) Helper()          {}
func (t *keptTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }
func (t *keptTB) end() {
	for len(t.cleanups) > 0 {
		last := len(t.cleanups) - 1
		f := t.cleanups[last]
		t.cleanups = t.cleanups[:last]
		f()
	}
}

// BenchmarkEndedTest is what a suite of parallel subtests, a server each,
// pays per test that has ended while the others still run: a typical test
// on a server of its own (New, a receiver, a letter, 30 days), ended and
// kept. kept-B/test is the heap still live, after a collection, per ended
// test.
func BenchmarkEndedTest(b *testing.B) {
	b.ReportAllocs()
	kept := make([]*keptTB, 0, b.N)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		tb := &keptTB{TB: b}
		srv := lettershoptest.New(tb)
		srv.NewAccount().NewReceiver()
		typicalTest(tb, srv)
		tb.end()
		kept = append(kept, tb)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(len(kept)), "kept-B/test")
	runtime.KeepAlive(kept)
}

// BenchmarkNew is what New costs a test that makes a server and an account
// and ends, without a request: the server, its Service and store, and the
// cleanup. BenchmarkNewService is the same without HTTP.
//
//	go test ./lettershoptest -run '^$' -bench 'New(Service)?$' -benchmem
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	tb := &benchTB{TB: b}
	for b.Loop() {
		lettershoptest.New(tb).NewAccount()
		tb.end()
	}
}

// BenchmarkNewAccount is what a test on a server shared by the suite pays
// for its account: NewAccount and a first request with its key (a server
// per test is BenchmarkNew and BenchmarkSetup).
//
//	go test ./lettershoptest -run '^$' -bench 'NewAccount$' -benchmem
func BenchmarkNewAccount(b *testing.B) {
	b.ReportAllocs()
	tb := &benchTB{TB: b}
	defer tb.end()
	srv := lettershoptest.New(tb)
	c := srv.Client()
	for b.Loop() {
		acct := srv.NewAccount()
		if code := get(b, c, srv.URL+"/v1/letters", acct.APIKey); code != http.StatusOK {
			b.Fatalf("GET /v1/letters: %d", code)
		}
	}
}

func BenchmarkNewService(b *testing.B) {
	b.ReportAllocs()
	tb := &benchTB{TB: b}
	for b.Loop() {
		lettershoptest.NewService(tb).NewAccount()
		tb.end()
	}
}

// BenchmarkWaitForRetries is Receiver.WaitFor of a letter's mailed event
// whose first attempts the receiver fails (fails=2), beside the same wait
// with no failed attempt (fails=0), the anchor: each failed attempt is a
// retry WaitFor has to see is all that is left before it moves the
// account's clock to it.
//
//	go test ./lettershoptest -run '^$' -bench WaitForRetries -count 5
func BenchmarkWaitForRetries(b *testing.B) {
	for _, fails := range []int{0, 2} {
		b.Run(fmt.Sprint("fails=", fails), func(b *testing.B) {
			b.ReportAllocs()
			tb := &benchTB{TB: b}
			defer tb.end()
			srv := lettershoptest.New(tb)
			for b.Loop() {
				acct := srv.NewAccount()
				rcv := acct.NewReceiver("letter.mailed")
				id := sendOverHTTP(b, srv, acct)
				acct.Force(id, lettershoptest.Status("mailed"))
				if fails > 0 {
					rcv.FailNext(fails, http.StatusInternalServerError)
				}
				rcv.WaitFor("letter.mailed", id, 30*time.Second)
			}
		})
	}
}
