package wire_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/lettershop/lettershop/wire"
)

func canonical(t testing.TB, body string) string {
	t.Helper()
	out, ok := wire.Canonical(nil, []byte(body))
	if !ok {
		t.Fatalf("Canonical(%q): no canonical form", body)
	}
	return string(out)
}

// The same JSON written another way has the same canonical form.
func TestCanonicalSame(t *testing.T) {
	for _, group := range [][]string{
		{`{"a":1,"b":[true,false,null]}`, ` { "b" : [ true , false , null ] , "a" : 1 } `, "{\n\t\"b\":[true,false,null],\r\n\"a\":1}\n"},
		{`{"name":"A/B"}`, `{"n\u0061me":"\u0041\/B"}`, `{"name":"\u0041/\u0042"}`},
		{`"😀"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`},
		{`"a\"b\\c\nd\u0001"`, `"a\u0022b\u005cc\u000ad\u0001"`, `"a\"b\\c\u000Ad\u0001"`},
		{`{"b":{"d":1,"c":2},"a":[{"y":1,"x":2}]}`, `{"a":[{"x":2,"y":1}],"b":{"c":2,"d":1}}`},
		{`[]`, `[ ]`}, {`{}`, ` {  } `},
		// Members of one name keep their order: a decoder takes the last.
		{`{"b":0,"a":1,"a":2}`, `{"a":1,"b":0,"a":2}`},
	} {
		want := canonical(t, group[0])
		for _, body := range group[1:] {
			if got := canonical(t, body); got != want {
				t.Errorf("Canonical(%q) = %s, want %s as for %q", body, got, want, group[0])
			}
		}
	}
	// The form itself: no whitespace, members by name, fewest escapes.
	for body, want := range map[string]string{
		` { "b" : [ 1 , 2 ] , "a" : "x" } `: `{"a":"x","b":[1,2]}`,
		`"\u00e9\/\u2028\t\u001F"`:          "\"é/\u2028\\t\\u001f\"",
		`{"aa":1,"a":2,"b":3}`:              `{"a":2,"aa":1,"b":3}`,
	} {
		if got := canonical(t, body); got != want {
			t.Errorf("Canonical(%q) = %s, want %s", body, got, want)
		}
	}
}

// What differs in meaning differs in canonical form; numbers are compared
// as written.
func TestCanonicalDifferent(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"a":1}`, `{"a":1.0}`},
		{`{"a":1}`, `{"a":"1"}`},
		{`[1,2]`, `[2,1]`},
		{`{"a":1,"a":2}`, `{"a":2,"a":1}`},
		{`{"a":null}`, `{}`},
		{`{"a":""}`, `{"a":null}`},
		{`"a b"`, `"ab"`},
		{`{"a":{"b":1}}`, `{"a":{"B":1}}`},
	} {
		if a, b := canonical(t, pair[0]), canonical(t, pair[1]); a == b {
			t.Errorf("%q and %q have one canonical form %s", pair[0], pair[1], a)
		}
	}
}

// A body that is not one JSON value in UTF-8 has no canonical form, and
// dst is left as it was.
func TestCanonicalRefuses(t *testing.T) {
	deep := strings.Repeat("[", 129) + strings.Repeat("]", 129)
	for _, body := range []string{
		``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":1}{}`, `{} x`, `{a:1}`,
		`'a'`, `tru`, `nul`, `True`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`,
		`"abc`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00"`, `"\ud83d\u0041"`,
		"\"\x01\"", "\"\xff\"", "\"\xc3\"", deep,
	} {
		dst := []byte("kept")
		out, ok := wire.Canonical(dst, []byte(body))
		if ok || string(out) != "kept" {
			t.Errorf("Canonical(%q) = %q, %v; want no canonical form", body, out, ok)
		}
	}
	// At the limit of depth, one level less, it has one.
	ok := strings.Repeat("[", 129)[1:] + strings.Repeat("]", 128)
	canonical(t, ok)
}

// FuzzCanonical checks on any input that a canonical form is JSON that
// decodes to what the input decodes to, and is its own canonical form.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"sender":{"address":{"addressLine1":"1 Main St","lastLine":"Reston, VA 20190"}},"useType":"marketing"}`,
		`{"b":[1,-2.5e3,"\u00e9\n"],"a":{"y":null,"x":true}}`, `"\ud83d\ude00"`, `[]`, `0`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, ok := wire.Canonical(nil, body)
		if !ok {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Canonical(%q) = %q, not JSON", body, out)
		}
		again, ok := wire.Canonical(nil, out)
		if !ok || !bytes.Equal(again, out) {
			t.Fatalf("Canonical(%q) = %q, whose own form is %q (%v)", body, out, again, ok)
		}
		var want, got any
		if decode(body, &want) != nil {
			t.Fatalf("Canonical(%q) has a form, but encoding/json refuses it", body)
		}
		if err := decode(out, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Canonical(%q) = %q, which decodes to %v, not %v", body, out, got, want)
		}
	})
}

func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}
