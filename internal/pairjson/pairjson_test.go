package pairjson

import (
	"testing"
)

// pair is a pair as Read reads it.
type pair struct{ Key, Value, At, Problem string }

func (p *pair) read(b []byte) { Read(b, &p.Key, &p.Value, &p.At, &p.Problem) }

func TestRead(t *testing.T) {
	tests := []struct {
		in   string
		want pair
	}{
		{`{"key":"a","value":"b"}`, pair{Key: "a", Value: "b"}},
		{` { "value" : "" ,"key":"k" } `, pair{Key: "k"}},
		{`{"key":"caf\u00e9","value":"x"}`, pair{Key: "café", Value: "x"}},
		{`{"key":"a","value":1}`, pair{Key: "a", At: ".value", Problem: "must be a string, got a number"}},
		{`{"key":"a","value":{"x":"y"}}`, pair{Key: "a", At: ".value", Problem: "must be a string, got an object"}},
		{`{"key":"a","value":null}`, pair{Key: "a", At: ".value", Problem: "must be a string, got null"}},
		{`{"key":"a","value":"1","extra":"x"}`, pair{Key: "a", Value: "1", Problem: `unknown field "extra"`}},
		{`{"key":1,"value":true}`, pair{At: ".key", Problem: "must be a string, got a number"}},
	}
	for _, tc := range tests {
		p := pair{Key: "old", Value: "old", At: ".old", Problem: "left over"}
		p.read([]byte(tc.in))
		if p != tc.want {
			t.Errorf("%s: read as %+v, want %+v", tc.in, p, tc.want)
		}
	}
	// Not an object: the problem is said, and the pair otherwise left.
	p := pair{Key: "k", Value: "v"}
	p.read([]byte(`"a"`))
	if want := (pair{Key: "k", Value: "v", Problem: "must be an object with string key and value"}); p != want {
		t.Errorf("a string: read as %+v, want %+v", p, want)
	}
}

// A pair with several wrong members names the same one every time: the
// message a client reads must not depend on the order a map is walked in.
func TestMetadataPairProblemStable(t *testing.T) {
	body := []byte(`{"x":1,"key":2,"a":"","0":1}`)
	var first pair
	first.read(body)
	if first.Problem == "" {
		t.Fatal("no problem")
	}
	for range 100 {
		var p pair
		p.read(body)
		if p.Problem != first.Problem {
			t.Fatalf("the same pair read as %q, then as %q", first.Problem, p.Problem)
		}
	}
}

// FuzzMetadataPairPlain holds the one-pass reading of a plain pair to the
// general one: whatever readPlain accepts, readAny reads alike.
func FuzzMetadataPairPlain(f *testing.F) {
	for _, s := range []string{
		`{"key":"a","value":"b"}`, ` { "value" : "" ,"key":"k" } `, `{}`, `{"key":"a"}`, `{"value":"v"}`,
		`{"key":"a","key":"b"}`, `{"key":"a\u0062"}`, `{"key":"a","value":null}`, `{"key":1}`, `null`,
		"{\"key\":\"\xff\"}", "{\"key\":\"caf\u00e9 \U0001F600\"}", `{"key":"a",}`, `{"key":"a"}x`, `{"Key":"a"}`,
		`{"key":"a" "value":"b"}`, "{\"key\":\"a\tb\"}", `[]`, `{"key":"a","value":"b","x":"y"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		key, value, ok := readPlain(b)
		if !ok {
			if key != "" || value != "" {
				t.Fatalf("%q: refused, but read %q, %q", b, key, value)
			}
			return
		}
		plain := pair{Key: key, Value: value}
		var general pair
		readAny(b, &general.Key, &general.Value, &general.At, &general.Problem)
		if plain != general {
			t.Fatalf("%q: read as %+v, generally as %+v", b, plain, general)
		}
	})
}

// BenchmarkMetadataPair reads a plain pair as Read does and as the general
// reading did alone, in one run.
func BenchmarkMetadataPair(b *testing.B) {
	text := []byte(`{"key":"correlationId","value":"6f1c2b7e-3d94-4a8e-9b0f-2c5d7e8a1b34"}`)
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p pair
			p.read(text)
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p pair
			readAny(text, &p.Key, &p.Value, &p.At, &p.Problem)
		}
	})
}
