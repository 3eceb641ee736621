package lettershop

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// A pair is read into a MetadataPair with its problem, which validate
// reports; a pair read well has none, whatever it held before.
func TestMetadataPairUnmarshalKeepsProblem(t *testing.T) {
	var m Metadata
	if err := json.Unmarshal([]byte(`[{"key":"a","value":1},{"key":"b","value":"c"},"x"]`), &m); err != nil {
		t.Fatal(err)
	}
	want := Metadata{
		{Key: "a", problem: "must be a string, got a number", problemAt: ".value"},
		{Key: "b", Value: "c"},
		{problem: "must be an object with string key and value"},
	}
	if len(m) != len(want) {
		t.Fatalf("read %+v, want %+v", m, want)
	}
	for i := range want {
		if m[i] != want[i] {
			t.Errorf("pair %d: read %+v, want %+v", i, m[i], want[i])
		}
	}
	p := MetadataPair{Key: "k", problem: "old", problemAt: ".old"}
	if err := p.UnmarshalJSON([]byte(`{"key":"a","value":"b"}`)); err != nil || p != (MetadataPair{Key: "a", Value: "b"}) {
		t.Errorf("read over a pair with a problem: %+v, %v", p, err)
	}
}

// BenchmarkMetadataPair reads a plain pair as a request's decoding does,
// through UnmarshalJSON (package internal/pairjson measures its readings
// apart).
func BenchmarkMetadataPair(b *testing.B) {
	pair := []byte(`{"key":"correlationId","value":"6f1c2b7e-3d94-4a8e-9b0f-2c5d7e8a1b34"}`)
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p MetadataPair
			_ = p.UnmarshalJSON(pair)
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
