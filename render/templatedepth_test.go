package render_test

import (
	"strings"
	"testing"

	"github.com/lettershop/lettershop/render"
)

// TestCheckTemplateRefusesNestingTheParserRefuses: HTML nested deeper than
// the parser takes (512 open elements, <html> and <body> among them) can not
// be laid out, and would print as its own source; the check refuses it, and
// takes the deepest nesting that does print.
func TestCheckTemplateRefusesNestingTheParserRefuses(t *testing.T) {
	nested := func(n int) []byte {
		return []byte(strings.Repeat("<div>", n) + "Dear {{name}}" + strings.Repeat("</div>", n))
	}
	if msg := render.CheckTemplate(nested(510), nil); msg != "" {
		t.Errorf("510 nested elements: %s", msg)
	}
	msg := render.CheckTemplate(nested(511), nil)
	if !strings.Contains(msg, "nest") {
		t.Errorf("511 nested elements: %q, want a refusal that says they nest too deeply", msg)
	}
	// Elements left open count as nested too.
	if msg := render.CheckTemplate([]byte(strings.Repeat("<span>", 600)+"Hello"), nil); !strings.Contains(msg, "nest") {
		t.Errorf("600 unclosed elements: %q, want a refusal that says they nest too deeply", msg)
	}
}
