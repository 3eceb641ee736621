// Package jsonclone copies values decoded from JSON into interfaces
// (encoding/json's map[string]any, []any, strings, numbers, booleans and
// nil), so that a copy shares no map or slice with the original.
package jsonclone

import (
	"maps"
	"slices"
)

// Map returns a copy of m and of every map and slice it holds, at any
// depth; nil for nil.
func Map(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		out[k] = Value(v)
	}
	return out
}

// Value returns a copy of v: a map or slice copied with everything in it,
// any other value as it is, which a decoded JSON value never shares.
func Value(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return Map(x)
	case []any:
		out := slices.Clone(x) // nil stays nil
		for i, e := range out {
			out[i] = Value(e)
		}
		return out
	default:
		return v
	}
}
