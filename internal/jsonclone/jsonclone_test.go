package jsonclone_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lettershop/lettershop/internal/jsonclone"
)

// A copy is equal to its original, and changing any map or slice in it, at
// any depth, leaves the original as it was.
func TestMapSharesNothing(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal([]byte(`{"n":1,"s":"x","b":true,"z":null,"o":{"a":[1,{"b":"c"}],"e":[]},"l":[[2]]}`), &m); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(m)
	c := jsonclone.Map(m)
	if !reflect.DeepEqual(m, c) {
		t.Fatalf("copy differs: %v, want %v", c, m)
	}
	c["n"] = 2.0
	o := c["o"].(map[string]any)
	o["a"].([]any)[0] = "changed"
	o["a"].([]any)[1].(map[string]any)["b"] = "changed"
	o["new"] = true
	c["l"].([]any)[0].([]any)[0] = "changed"
	if after, _ := json.Marshal(m); string(after) != string(before) {
		t.Errorf("changing the copy changed the original:\n%s\n%s", before, after)
	}
}

// Nil stays nil and empty stays empty: JSON tells null from {} and [].
func TestNilAndEmpty(t *testing.T) {
	if c := jsonclone.Map(nil); c != nil {
		t.Errorf("Map(nil) = %#v, want nil", c)
	}
	if c := jsonclone.Map(map[string]any{}); c == nil || len(c) != 0 {
		t.Errorf("Map({}) = %#v, want an empty map", c)
	}
	if c := jsonclone.Value([]any(nil)).([]any); c != nil {
		t.Errorf("Value([]any(nil)) = %#v, want nil", c)
	}
	if c := jsonclone.Value([]any{}).([]any); c == nil || len(c) != 0 {
		t.Errorf("Value([]any{}) = %#v, want an empty slice", c)
	}
	if c := jsonclone.Value(nil); c != nil {
		t.Errorf("Value(nil) = %#v, want nil", c)
	}
}
