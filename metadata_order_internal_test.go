package lettershop

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// A pair with several wrong members names the same one every time: the
// message a client reads must not depend on the order a map is walked in.
func TestMetadataPairProblemStable(t *testing.T) {
	body := []byte(`{"x":1,"key":2,"a":"","0":1}`)
	var first MetadataPair
	if err := json.Unmarshal(body, &first); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		var p MetadataPair
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		if p.problem != first.problem {
			t.Fatalf("the same pair read as %q, then as %q", first.problem, p.problem)
		}
	}
}

// FuzzMetadataPairPlain holds the one-pass reading of a plain pair to the
// general one: whatever unmarshalPlain accepts, unmarshalAny reads alike.
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
		var plain MetadataPair
		if !plain.unmarshalPlain(b) {
			if plain != (MetadataPair{}) {
				t.Fatalf("%q: refused, but changed the pair to %+v", b, plain)
			}
			return
		}
		var general MetadataPair
		general.unmarshalAny(b)
		if plain != general {
			t.Fatalf("%q: read as %+v, generally as %+v", b, plain, general)
		}
	})
}

// BenchmarkMetadataPair reads a plain pair as UnmarshalJSON does and as
// the general reading did alone, in one run.
func BenchmarkMetadataPair(b *testing.B) {
	pair := []byte(`{"key":"correlationId","value":"6f1c2b7e-3d94-4a8e-9b0f-2c5d7e8a1b34"}`)
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p MetadataPair
			_ = p.UnmarshalJSON(pair)
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p MetadataPair
			p.unmarshalAny(pair)
		}
	})
}

// TestFirstWithKeyMapAndScanAgree: a long list's duplicates, found through
// a map, are those a scan finds in a short one.
func TestFirstWithKeyMapAndScanAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		m := make(Metadata, rng.IntN(60))
		for i := range m {
			m[i].Key = string(rune('a' + rng.IntN(8)))
			if rng.IntN(5) == 0 {
				m[i].problem = "bad"
			}
		}
		seen := map[string]int{}
		for i, p := range m {
			if p.problem != "" {
				continue // validate reports these and goes on
			}
			j1, dup1 := firstWithKey(m, i, nil)
			j2, dup2 := firstWithKey(m, i, seen)
			if j1 != j2 || dup1 != dup2 {
				t.Fatalf("%v, pair %d: scan %d %v, map %d %v", m, i, j1, dup1, j2, dup2)
			}
		}
	}
}
