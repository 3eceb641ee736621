package pdftext

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingCache is a Cache whose reads give the PDF's bytes back as its
// text, counting them; a PDF "bad" is an error.
func countingCache(max int) (*Cache, *int) {
	c := NewCache(max, nil)
	n := new(int)
	var mu sync.Mutex
	c.read = func(b []byte) (string, error) {
		mu.Lock()
		*n++
		mu.Unlock()
		if string(b) == "bad" {
			return "", errors.New("unreadable")
		}
		return string(b), nil
	}
	return c, n
}

// The same bytes are read once while their text is kept; other bytes are
// read on their own; an error is given each time and not kept.
func TestCacheReadsOnce(t *testing.T) {
	c, reads := countingCache(100)
	for range 3 {
		if got, err := c.Text([]byte("letter one")); got != "letter one" || err != nil {
			t.Fatalf("Text = %q, %v", got, err)
		}
	}
	if *reads != 1 {
		t.Errorf("one PDF three times: %d reads, want 1", *reads)
	}
	if got, _ := c.Text([]byte("letter two")); got != "letter two" || *reads != 2 {
		t.Errorf("another PDF: %q after %d reads, want its own text after 2", got, *reads)
	}
	for range 2 {
		if _, err := c.Text([]byte("bad")); err == nil {
			t.Error("an unreadable PDF: no error")
		}
	}
	if *reads != 4 {
		t.Errorf("an unreadable PDF twice: %d reads in all, want 4 (its error is not kept)", *reads)
	}
}

// The texts kept come to at most the bound: at it exactly they are all
// kept; one byte past it the least recently read goes; a text larger than
// the bound is never kept.
func TestCacheBound(t *testing.T) {
	c, reads := countingCache(10)
	a, b := []byte("aaaaa"), []byte("bbbbb")
	c.Text(a)
	c.Text(b) // 10 bytes: at the bound
	c.Text(a) // kept, and now the more recently read
	if *reads != 2 {
		t.Fatalf("two texts at the bound exactly: %d reads, want 2", *reads)
	}
	c.Text([]byte("c")) // 11 bytes: b, read least recently, goes
	c.Text(a)
	if *reads != 3 {
		t.Errorf("a, read last, after one byte past the bound: read again (%d reads, want 3)", *reads)
	}
	c.Text(b)
	if *reads != 4 {
		t.Errorf("b, read least recently, after one byte past the bound: %d reads, want 4 (read again)", *reads)
	}
	big := []byte(strings.Repeat("x", 11))
	c.Text(big)
	c.Text(big)
	if *reads != 6 {
		t.Errorf("a text over the bound twice: %d reads, want 6 (never kept)", *reads)
	}
	if n := c.size.Load(); n > c.max {
		t.Errorf("%d bytes kept, over the bound of %d", n, c.max)
	}
}

// Reads of one PDF at once read it once: the others wait for its text.
func TestCacheReadsAtOnceReadOnce(t *testing.T) {
	c := NewCache(100, nil)
	var mu sync.Mutex
	reads := 0
	release := make(chan struct{})
	c.read = func(b []byte) (string, error) {
		mu.Lock()
		reads++
		mu.Unlock()
		<-release
		return string(b), nil
	}
	var wg sync.WaitGroup
	texts := make([]string, 8)
	for i := range texts {
		wg.Go(func() { texts[i], _ = c.Text([]byte("same")) })
	}
	// Let the read finish only once it has begun: the calls then wait on
	// it, or find its text kept.
	for {
		mu.Lock()
		begun := reads > 0
		mu.Unlock()
		if begun {
			break
		}
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if reads != 1 {
		t.Errorf("8 reads of one PDF at once: %d reads, want 1", reads)
	}
	for i, s := range texts {
		if s != "same" {
			t.Errorf("call %d: %q", i, s)
		}
	}
}

// No more PDFs are read at once than there are cores: with one, a second
// PDF asked for while the first is read waits for it, then is read.
func TestCacheReadsOnePerCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	entered, release := make(chan string, 2), make(chan struct{})
	c := NewCache(100, func(b []byte) (string, error) {
		entered <- string(b)
		<-release
		return string(b), nil
	})
	done := make(chan string, 2)
	for _, pdf := range []string{"one", "two"} {
		go func() {
			text, _ := c.Text([]byte(pdf))
			done <- text
		}()
	}
	<-entered
	select {
	case second := <-entered:
		t.Errorf("%s was read while another PDF was being read on the one core", second)
		close(release)
		<-done
		<-done
		return
	case <-time.After(time.Second):
	}
	release <- struct{}{}
	<-done
	<-entered
	release <- struct{}{}
	<-done
}

// A Cache makes what keeps its texts on its first Text, not in NewCache:
// every handler has one, and a test's server that reads no letter's text
// paid 10 allocations and 1.2 KB for it.
func TestNewCacheMakesNothingUntilUsed(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = NewCache(DefaultCacheBytes, nil) }); n > 2 {
		t.Errorf("NewCache: %v allocations, want 2 (the Cache and its tokens)", n)
	}
	c, reads := countingCache(100)
	for range 2 {
		if text, err := c.Text([]byte("one")); text != "one" || err != nil {
			t.Fatalf("Text: %q, %v", text, err)
		}
	}
	if *reads != 1 {
		t.Errorf("%d reads of one PDF, want 1", *reads)
	}
}
