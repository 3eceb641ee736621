package echo

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	at := strings.Repeat("a", MaxRunes)
	over := at + "b"
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"marketing\n", `"marketing\n"`},
		{at, `"` + at + `"`},
		{over, `"` + at + `…" (33 bytes)`},
		{strings.Repeat("é", MaxRunes), `"` + strings.Repeat("é", MaxRunes) + `"`},
		{strings.Repeat("é", MaxRunes+1), `"` + strings.Repeat("é", MaxRunes) + `…" (66 bytes)`},
		{strings.Repeat("x", 900_000), `"` + strings.Repeat("x", MaxRunes) + `…" (900000 bytes)`},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%.40q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abc…"},
		{"ééé", 6, "ééé"},
		{"éééé", 6, "é…"},
		{"aéééé", 7, "aé…"},
		{"abcdefg", 2, "…"},
	} {
		if got := Cut(tc.in, tc.max); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
