package rendercache_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/rendercache"
)

func TestGetKeepsByKey(t *testing.T) {
	c := rendercache.New(2)
	renders := 0
	render := func(s string) func() ([]byte, error) {
		return func() ([]byte, error) { renders++; return []byte(s), nil }
	}
	k := rendercache.Key{Account: "acct", ID: "ltr_1", Modified: 1, Revision: 1}
	steps := []struct {
		k          rendercache.Key
		give, want string
		cached     bool
	}{
		{k, "v1", "v1", false},
		{k, "other", "v1", true},
		// A change of any part of the key is another rendering.
		{rendercache.Key{Account: "acct", ID: "ltr_1", Modified: 1, Revision: 2}, "v2", "v2", false},
		{rendercache.Key{Account: "acct", ID: "ltr_1", Modified: 2, Revision: 1}, "v3", "v3", false},
		// Two renderings kept: k went first.
		{k, "v1 again", "v1 again", false},
	}
	for i, s := range steps {
		b, cached, err := c.Get(s.k, render(s.give))
		if err != nil || string(b) != s.want || cached != s.cached {
			t.Errorf("step %d: Get = %q, %v, %v; want %q, %v", i, b, cached, err, s.want, s.cached)
		}
	}
	if got := c.Rendered(); got != 4 || renders != 4 {
		t.Errorf("Rendered = %d (render called %d times), want 4", got, renders)
	}
}

func TestGetGivesOwnBytes(t *testing.T) {
	c := rendercache.New(1)
	k := rendercache.Key{ID: "ltr_1"}
	b, _, _ := c.Get(k, func() ([]byte, error) { return []byte("pdf"), nil })
	b[0] = 'X'
	again, cached, _ := c.Get(k, nil)
	if !cached || string(again) != "pdf" {
		t.Fatalf("Get after changing the bytes returned = %q (cached %v), want pdf", again, cached)
	}
	again[0] = 'Y'
	if b, _, _ := c.Get(k, nil); string(b) != "pdf" {
		t.Errorf("a change to a cached Get's bytes reached the cache: %q", b)
	}
}

func TestGetKeepsNoFailure(t *testing.T) {
	c := rendercache.New(1)
	k := rendercache.Key{ID: "ltr_1"}
	boom := errors.New("boom")
	if _, _, err := c.Get(k, func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("Get = %v, want the render's error", err)
	}
	b, cached, err := c.Get(k, func() ([]byte, error) { return []byte("pdf"), nil })
	if err != nil || cached || string(b) != "pdf" {
		t.Errorf("Get after a failure = %q, %v, %v; want a new rendering", b, cached, err)
	}
}

func TestSizeZeroKeepsNothing(t *testing.T) {
	c := rendercache.New(0)
	k := rendercache.Key{ID: "ltr_1"}
	for i := range 3 {
		b, cached, err := c.Get(k, func() ([]byte, error) { return fmt.Appendf(nil, "r%d", i), nil })
		if err != nil || cached || string(b) != fmt.Sprintf("r%d", i) {
			t.Errorf("Get %d = %q, %v, %v", i, b, cached, err)
		}
	}
	if got := c.Rendered(); got != 3 {
		t.Errorf("Rendered = %d, want 3", got)
	}
}

func BenchmarkGetCached(b *testing.B) {
	c := rendercache.New(256)
	k := rendercache.Key{Account: "acct_bench", ID: "ltr_01jd6y0k7q9m2x3v4b5n6p7r8s", Modified: 1764201600000000000, Revision: 3}
	pdf := make([]byte, 40<<10)
	if _, _, err := c.Get(k, func() ([]byte, error) { return pdf, nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, cached, _ := c.Get(k, nil); !cached {
				b.Error("not cached")
				return
			}
		}
	})
}

// A Cache's zero value keeps DefaultSize renderings, one of New the size
// it was made with.
func TestZeroValueAndNew(t *testing.T) {
	fill := func(c *rendercache.Cache, n int) {
		for i := range n {
			k := rendercache.Key{Account: "acct", ID: fmt.Sprint("ltr_", i)}
			if _, _, err := c.Get(k, func() ([]byte, error) { return []byte("pdf"), nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	var zero rendercache.Cache
	fill(&zero, rendercache.DefaultSize)
	fill(&zero, rendercache.DefaultSize)
	if got := zero.Rendered(); got != rendercache.DefaultSize {
		t.Errorf("zero Cache rendered %d times for twice %d letters, want %d", got, rendercache.DefaultSize, rendercache.DefaultSize)
	}
	var over rendercache.Cache
	fill(&over, rendercache.DefaultSize+1)
	fill(&over, rendercache.DefaultSize+1)
	if got, want := over.Rendered(), int64(2*(rendercache.DefaultSize+1)); got != want {
		t.Errorf("zero Cache rendered %d times for twice %d letters in turn, want %d", got, rendercache.DefaultSize+1, want)
	}
	for size, want := range map[int]int64{1: 4, 2: 2, 0: 4, -1: 4} {
		c := rendercache.New(size)
		fill(c, 2)
		fill(c, 2)
		if got := c.Rendered(); got != want {
			t.Errorf("Cache of %d rendered %d times for twice 2 letters, want %d", size, got, want)
		}
	}
}

// Observed tells its observer of each Get that succeeded, and whether it
// found the rendering kept; a nil observer is Get.
func TestObserved(t *testing.T) {
	c := rendercache.New(1)
	k := rendercache.Key{Account: "acct", ID: "ltr_1"}
	var told []bool
	observe := func(d time.Duration, cached bool) {
		if d < 0 {
			t.Errorf("told %v", d)
		}
		told = append(told, cached)
	}
	failing := func() ([]byte, error) { return nil, errors.New("no") }
	ok := func() ([]byte, error) { return []byte("pdf"), nil }
	if _, err := c.Observed(k, observe, failing); err == nil {
		t.Error("a failed render is no error")
	}
	for range 2 {
		if b, err := c.Observed(k, observe, ok); err != nil || string(b) != "pdf" {
			t.Errorf("Observed = %q, %v", b, err)
		}
	}
	if b, err := c.Observed(k, nil, failing); err != nil || string(b) != "pdf" {
		t.Errorf("Observed without an observer = %q, %v", b, err)
	}
	if fmt.Sprint(told) != "[false true]" {
		t.Errorf("told %v, want [false true]", told)
	}
}

// A Cache keeps renderings to its bytes as well as to its count, the
// least recently used going first; one larger than its bytes is not kept.
// 256 renderings of letters from 10 MiB documents held 2.5 GB.
func TestBytesBounded(t *testing.T) {
	c := rendercache.NewBounded(10, 100)
	renders := 0
	of := func(n int) func() ([]byte, error) {
		return func() ([]byte, error) { renders++; return make([]byte, n), nil }
	}
	key := func(id string) rendercache.Key { return rendercache.Key{Account: "acct", ID: id} }
	for _, id := range []string{"a", "b", "c"} {
		if _, cached, _ := c.Get(key(id), of(40)); cached {
			t.Fatalf("%s: found kept before it was rendered", id)
		}
	}
	// 120 bytes: a, the oldest, went.
	if _, cached, _ := c.Get(key("c"), of(40)); !cached {
		t.Error("c, rendered last, is not kept")
	}
	if _, cached, _ := c.Get(key("b"), of(40)); !cached {
		t.Error("b is not kept")
	}
	if _, cached, _ := c.Get(key("a"), of(40)); cached {
		t.Error("a is kept past the bytes")
	}
	if _, _, err := c.Get(key("big"), of(101)); err != nil {
		t.Fatal(err)
	}
	if _, cached, _ := c.Get(key("big"), of(101)); cached {
		t.Error("a rendering larger than the bytes is kept")
	}
	if _, cached, _ := c.Get(key("a"), of(40)); !cached {
		t.Error("a, kept again, was dropped for one larger than the bytes")
	}
}

// TestForget drops the renderings of one account's letters only.
func TestForget(t *testing.T) {
	c := rendercache.New(10)
	render := func() ([]byte, error) { return []byte("pdf"), nil }
	a, b := rendercache.Key{Account: "a", ID: "ltr_1", Revision: 1}, rendercache.Key{Account: "b", ID: "ltr_2", Revision: 1}
	for _, k := range []rendercache.Key{a, b} {
		if _, _, err := c.Get(k, render); err != nil {
			t.Fatal(err)
		}
	}
	c.Forget("a")
	if _, cached, _ := c.Get(a, render); cached {
		t.Error("a rendering of the account forgotten is found")
	}
	if _, cached, _ := c.Get(b, render); !cached {
		t.Error("another account's rendering went too")
	}
	var zero rendercache.Cache
	zero.Forget("a") // a zero Cache has nothing to forget
}

// A Cache makes what keeps its renderings on its first Get, not in New:
// every Service has one, and a test's Service that renders nothing paid 9
// allocations and 1.7 KB for it. The first Get makes it, and it keeps from
// then on.
func TestNewMakesNothingUntilUsed(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = rendercache.New(8) }); n > 1 {
		t.Errorf("New: %v allocations, want 1 (the Cache)", n)
	}
	c := rendercache.New(8)
	render := func() ([]byte, error) { return []byte("%PDF"), nil }
	if _, cached, _ := c.Get(rendercache.Key{ID: "ltr_1"}, render); cached {
		t.Error("the first Get found a rendering kept")
	}
	if _, cached, _ := c.Get(rendercache.Key{ID: "ltr_1"}, render); !cached {
		t.Error("the second Get rendered again")
	}
}
