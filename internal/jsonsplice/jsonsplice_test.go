package jsonsplice_test

import (
	"testing"

	"github.com/lettershop/lettershop/internal/jsonsplice"
)

func TestSplice(t *testing.T) {
	for _, tc := range []struct{ in, first, out string }{
		{`{"life":{"a":"}"},"x":1,"events":[]}`, `{"a":"}"}`, `{"life":{"b":2},"x":1,"events":[1,{"e":"]"}]}`},
		{`{"life":{"a":{"b":[1]}},"events":[0]}`, `{"a":{"b":[1]}}`, `{"life":{"b":2},"events":[0,1,{"e":"]"}]}`},
		{`{"life":{"s":"\"{"},"events":[[]]}`, `{"s":"\"{"}`, `{"life":{"b":2},"events":[[],1,{"e":"]"}]}`},
	} {
		o, ok := jsonsplice.Split([]byte(tc.in), "life")
		if !ok {
			t.Fatalf("%s: not split", tc.in)
		}
		if got := string(o.First()); got != tc.first {
			t.Errorf("%s: First = %s, want %s", tc.in, got, tc.first)
		}
		a := o.Begin(nil, []byte(`{"b":2}`))
		a.Element([]byte(`1`))
		a.Element([]byte(`{"e":"]"}`))
		if got := string(a.End()); got != tc.out {
			t.Errorf("%s: spliced %s, want %s", tc.in, got, tc.out)
		}
	}
}

func TestSplitRefuses(t *testing.T) {
	for _, in := range []string{
		``, `{`, `{"lif":{},"events":[]}`, `{"sender":{},"life":{},"events":[]}`, `{"life":"x","events":[]}`,
		`{"life":{"a":1,"events":[]}`, `{"life":{},"events":[],"x":1}`, `{"life":{}}`,
	} {
		if _, ok := jsonsplice.Split([]byte(in), "life"); ok {
			t.Errorf("split %s", in)
		}
	}
}
