package httpadapter

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/echo"
)

// The paths checkBodyText names are checkShape's: members joined with
// dots, elements with their index, "body" for the whole, a member name's
// own problem under its path.
func TestCheckBodyTextPaths(t *testing.T) {
	cases := []struct {
		body string
		want map[string]string
	}{
		{`"\ud800"`, map[string]string{"body": msgSurrogate}},
		{"{\"a\":[1,{\"b\":\"\xff\"}]}", map[string]string{"a[1].b": msgInvalidUTF8}},
		{"[[\"x\",\"\xff\"]]", map[string]string{"[0][1]": msgInvalidUTF8}},
		// An empty member name is spelled as JSON spells it: its value is
		// not the body, nor a path ending in a dot.
		{"{\"\":\"\xff\"}", map[string]string{`""`: msgInvalidUTF8}},
		{"{\"a\":{\"\":\"\xff\"}}", map[string]string{`a.""`: msgInvalidUTF8}},
		{`{"":1,"":2}`, map[string]string{`""`: msgTwice}},
		{"{\"n\xff\":1}", map[string]string{"n\uFFFD": "the member name " + msgInvalidUTF8}},
		{`{"a\nb":"\udc00"}`, map[string]string{"a\nb": msgSurrogate}},
		{`{"ok":"\ud83d\ude00","also":["fine"]}`, nil},
	}
	for _, c := range cases {
		got := fieldsOf(t, checkBodyText([]byte(c.body)))
		if len(got) != len(c.want) {
			t.Errorf("%q: fields %q, want %q", c.body, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%q: fields %q, want %q", c.body, got, c.want)
			}
		}
	}
}

func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *lettershop.Error
	if !errors.As(err, &e) {
		t.Fatalf("not a *lettershop.Error: %v", err)
	}
	return e.Fields
}

// A long member name over a long array costs checkBodyText a walk of the
// body, not the name once per element: it had spelled every element's
// path in full (600 KB of body took the server over a minute), and
// decoded every string to four bytes a character. A path it names is cut
// as a problem shows it.
func TestCheckBodyTextBoundedByBody(t *testing.T) {
	name := strings.Repeat("n", 100_000)
	var b strings.Builder
	b.WriteString(`{"` + name + `":[`)
	for i := range 10_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"x"`)
	}
	b.WriteString(",\"\xff\"],\"v\":\"" + strings.Repeat("é", 200_000) + "\"}")
	body := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fields := fieldsOf(t, checkBodyText(body))
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 4*uint64(len(body)) {
		t.Errorf("checking %d bytes allocated %d bytes", len(body), n)
	}
	want := echo.Cut(name+"[10000]", lettershop.MaxFieldPath)
	if len(fields) != 1 || fields[want] != msgInvalidUTF8 {
		for k, v := range fields {
			t.Errorf("field %q (%d bytes): %q", echo.Cut(k, 60), len(k), v)
		}
		t.Errorf("want only %q: %q", want, msgInvalidUTF8)
	}
}
