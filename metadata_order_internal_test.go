package lettershop

import (
	"encoding/json"
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
