package lettershop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/render"
)

// fakeRenderer records the letters it is asked to draw and draws each as
// its recipient's lines.
type fakeRenderer struct{ drawn []render.Letter }

func (f *fakeRenderer) Render(l render.Letter) ([]byte, error) {
	f.drawn = append(f.drawn, l)
	return []byte("%PDF-fake " + l.Recipient[0]), nil
}

// TestWithRenderer checks that a renderer given to the Service draws the
// letters, from the letter's own values, and that the cache still applies.
func TestWithRenderer(t *testing.T) {
	f := &fakeRenderer{}
	e := newRenderEnv(t, lettershop.WithRenderer(f))
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	l := e.letter(t, renderLetterInput(a.ID, "name", "Tom", "order", "A-1042"))
	for range 2 {
		b, err := e.svc.RenderLetter(e.ctx, renderAccount, l.ID)
		if err != nil {
			t.Fatalf("RenderLetter: %v", err)
		}
		if want := "%PDF-fake José Müller"; string(b) != want {
			t.Errorf("RenderLetter = %q, want %q", b, want)
		}
	}
	if len(f.drawn) != 1 {
		t.Errorf("drawn %d times, want once (then from the cache)", len(f.drawn))
	}
}

// costlyRenderer refuses every letter as render.Render refuses one whose
// images cost too much to draw.
type costlyRenderer struct{}

func (costlyRenderer) Render(render.Letter) ([]byte, error) {
	return nil, fmt.Errorf("%w: they cost at least 300 million pixels drawn", render.ErrDrawingCost)
}

// TestRenderDrawingCost checks that a letter the renderer finds too costly
// to draw (one made before its images were counted) goes to issue, saying
// so, and its download is a conflict, not an internal error.
func TestRenderDrawingCost(t *testing.T) {
	e := newRenderEnv(t, lettershop.WithRenderer(costlyRenderer{}))
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	l := e.letter(t, renderLetterInput(a.ID, "name", "Tom", "order", "A-1042"))
	_, err := e.svc.RenderLetter(e.ctx, renderAccount, l.ID)
	if lettershop.ErrorCode(err) != lettershop.CodeConflict {
		t.Fatalf("RenderLetter = %v, want a conflict", err)
	}
	got, err := e.svc.GetLetter(e.ctx, renderAccount, l.ID)
	if err != nil || got.Status != lettershop.StatusIssue || !strings.Contains(got.IssueMessage, "cost too much to draw") {
		t.Errorf("letter %s %q (%v), want at issue saying its images cost too much", got.Status, got.IssueMessage, err)
	}
}
