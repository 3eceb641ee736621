package render

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTextCollapsesWhiteSpace holds the builder's splitting of text into
// words and spaces to its definition: runs of HTML white space collapsed
// to one space, then split at spaces.
func TestTextCollapsesWhiteSpace(t *testing.T) {
	reference := func(s string, st inlineStyle) []token {
		var toks []token
		s = regexp.MustCompile(`[ \t\n\r\f]+`).ReplaceAllString(s, " ")
		for i, w := range strings.Split(s, " ") {
			if i > 0 && len(toks) > 0 && !toks[len(toks)-1].space {
				toks = append(toks, token{text: " ", space: true, st: st})
			}
			if w != "" {
				toks = append(toks, token{text: w, st: st})
			}
		}
		return toks
	}
	pieces := []string{" ", "  ", "\t", "\n", "\r\n", "\f", "a", "word", "\u00a0", "é", "x\u2003y"}
	r := rand.New(rand.NewPCG(1, 2))
	st := inlineStyle{size: bodySize}
	for range 2000 {
		var s strings.Builder
		for range r.IntN(8) {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		b := &builder{}
		b.text(s.String(), st)
		var got []token
		if b.cur != nil {
			got = b.cur.tokens
		}
		if want := reference(s.String(), st); !slices.Equal(got, want) {
			t.Fatalf("text %q: tokens %v, want %v", s.String(), got, want)
		}
	}
}
