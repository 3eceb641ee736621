package lettershop_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

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

// heldRenderer tells entered of each letter it is asked to draw, then
// draws it once release lets it.
type heldRenderer struct{ entered, release chan string }

func (h heldRenderer) Render(l render.Letter) ([]byte, error) {
	h.entered <- l.ID
	<-h.release
	return []byte("%PDF-held " + l.ID), nil
}

// TestRenderOnePerCore checks that no more letters render at once than
// there are cores (GOMAXPROCS when the Service is made): a letter asked for
// while the one core renders another waits, and gives up when its context
// ends, never reaching the renderer; once the first is drawn it renders.
// Each render holds about fifty times its template in memory, and sixteen
// at once held 940 MB.
func TestRenderOnePerCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	h := heldRenderer{entered: make(chan string, 2), release: make(chan string)}
	e := newRenderEnv(t, lettershop.WithRenderer(h))
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	first := e.letter(t, renderLetterInput(a.ID, "name", "Tom", "order", "A-1042"))
	second := e.letter(t, renderLetterInput(a.ID, "name", "Ann", "order", "A-1043"))
	firstDone := make(chan error, 1)
	go func() {
		_, err := e.svc.RenderLetter(e.ctx, renderAccount, first.ID)
		firstDone <- err
	}()
	if id := <-h.entered; id != first.ID {
		t.Fatalf("the renderer drew %s, want %s", id, first.ID)
	}
	ctx, cancel := context.WithTimeout(e.ctx, time.Second)
	defer cancel()
	secondDone := make(chan error, 1)
	go func() {
		_, err := e.svc.RenderLetter(ctx, renderAccount, second.ID)
		secondDone <- err
	}()
	select {
	case id := <-h.entered:
		h.release <- id
		t.Errorf("%s reached the renderer while %s was being drawn on the one core", id, first.ID)
	case err := <-secondDone:
		if lettershop.ErrorCode(err) != lettershop.CodeCanceled {
			t.Errorf("RenderLetter of the waiting letter = %v, want canceled when its context ended", err)
		}
	}
	h.release <- first.ID
	if err := <-firstDone; err != nil {
		t.Fatalf("RenderLetter of the first letter: %v", err)
	}
	go func() { h.release <- <-h.entered }()
	if b, err := e.svc.RenderLetter(e.ctx, renderAccount, second.ID); err != nil || string(b) != "%PDF-held "+second.ID {
		t.Errorf("RenderLetter once the core is free = %q, %v", b, err)
	}
}
