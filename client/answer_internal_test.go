package client

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// answerOf is a response whose body is body and whose Content-Length is n
// (-1 for none given).
func answerOf(body []byte, n int64) *http.Response {
	return &http.Response{Body: io.NopCloser(bytes.NewReader(body)), ContentLength: n}
}

// An answer of a length given is read into one buffer of its length, up to
// maxPresized, and past it as io.ReadAll reads it; an answer whose length
// is not given, or not what was given, is read whole all the same.
func TestReadAnswer(t *testing.T) {
	for _, c := range []struct {
		name      string
		size      int
		length    int64
		maxAllocs float64
	}{
		{"letter", 4 << 10, 4 << 10, 1},
		{"at the bound", maxPresized, maxPresized, 1},
		// io.ReadAll: many buffers.
		{"past the bound", maxPresized + 1, maxPresized + 1, -1},
		{"no length", 4 << 10, -1, -1},
		{"shorter than said", 100, 4 << 10, 1},
		{"longer than said", 4 << 10, 100, -1},
	} {
		body := bytes.Repeat([]byte("x"), c.size)
		got, err := readAnswer(answerOf(body, c.length))
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: read %d bytes (%v), want %d", c.name, len(got), err, c.size)
		}
		if c.maxAllocs < 0 {
			continue
		}
		n := testing.AllocsPerRun(3, func() {
			r := answerOf(body, c.length)
			if _, err := readAnswer(r); err != nil {
				t.Fatal(err)
			}
		})
		// The response and its reader are 3 allocations of their own.
		if n-3 > c.maxAllocs {
			t.Errorf("%s: %v allocations to read the answer, want at most %v", c.name, n-3, c.maxAllocs)
		}
	}
	if n := testing.AllocsPerRun(3, func() { _, _ = readAnswer(answerOf(bytes.Repeat([]byte("x"), maxPresized+1), maxPresized+1)) }); n < 10 {
		t.Errorf("past the bound: %v allocations, as io.ReadAll makes, want more than 10", n)
	}
}

// BenchmarkReadAnswer reads a letter's answer of 4 KB as the client reads
// answers (readAnswer) beside io.ReadAll, in one run.
//
//	go test ./client -run '^$' -bench ReadAnswer -benchmem
func BenchmarkReadAnswer(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 4<<10)
	b.Run("readAnswer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := readAnswer(answerOf(body, int64(len(body)))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("io.ReadAll", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := io.ReadAll(answerOf(body, int64(len(body))).Body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
