package pairjson

import (
	"testing"
)

func TestRead(t *testing.T) {
	tests := []struct {
		in   string
		want Pair
	}{
		{`{"key":"a","value":"b"}`, Pair{Key: "a", Value: "b"}},
		{` { "value" : "" ,"key":"k" } `, Pair{Key: "k"}},
		{`{"key":"caf\u00e9","value":"x"}`, Pair{Key: "café", Value: "x"}},
		{`{"key":"a","value":1}`, Pair{Key: "a", Problem: "value must be a string; nested values are not supported"}},
		{`{"key":"a","value":{"x":"y"}}`, Pair{Key: "a", Problem: "value must be a string; nested values are not supported"}},
		{`{"key":"a","value":null}`, Pair{Key: "a", Problem: "value must be a string; nested values are not supported"}},
		{`{"key":"a","value":"1","extra":"x"}`, Pair{Key: "a", Value: "1", Problem: `unknown field "extra"`}},
		{`{"key":1,"value":true}`, Pair{Problem: "key must be a string; nested values are not supported"}},
	}
	for _, tc := range tests {
		p := Pair{Problem: "left over"}
		p.Read([]byte(tc.in))
		if p != tc.want {
			t.Errorf("%s: read as %+v, want %+v", tc.in, p, tc.want)
		}
	}
	// Not an object: the problem is said, and the pair otherwise left.
	p := Pair{Key: "k", Value: "v"}
	p.Read([]byte(`"a"`))
	if want := (Pair{Key: "k", Value: "v", Problem: "must be an object with string key and value"}); p != want {
		t.Errorf("a string: read as %+v, want %+v", p, want)
	}
}

// A pair with several wrong members names the same one every time: the
// message a client reads must not depend on the order a map is walked in.
func TestMetadataPairProblemStable(t *testing.T) {
	body := []byte(`{"x":1,"key":2,"a":"","0":1}`)
	var first Pair
	first.Read(body)
	if first.Problem == "" {
		t.Fatal("no problem")
	}
	for range 100 {
		var p Pair
		p.Read(body)
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
		var plain Pair
		if !plain.readPlain(b) {
			if plain != (Pair{}) {
				t.Fatalf("%q: refused, but changed the pair to %+v", b, plain)
			}
			return
		}
		var general Pair
		general.readAny(b)
		if plain != general {
			t.Fatalf("%q: read as %+v, generally as %+v", b, plain, general)
		}
	})
}

// BenchmarkMetadataPair reads a plain pair as Read does and as the general
// reading did alone, in one run.
func BenchmarkMetadataPair(b *testing.B) {
	pair := []byte(`{"key":"correlationId","value":"6f1c2b7e-3d94-4a8e-9b0f-2c5d7e8a1b34"}`)
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p Pair
			p.Read(pair)
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p Pair
			p.readAny(pair)
		}
	})
}
