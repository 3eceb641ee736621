package lettershop_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/pdftest"
)

// externalTemplate makes a template asset whose published version keeps
// its content at url.
func (e *env) externalTemplate(t testing.TB, url string, defs ...lettershop.VariableDefinition) *lettershop.Asset {
	t.Helper()
	a := e.makeAsset(t, lettershop.AssetTemplate)
	if defs == nil {
		defs = testDefinitions
	}
	if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Source: lettershop.ContentExternalURL, Type: "text/html", Content: url},
		VariableDefinitions: defs,
		Publish:             true,
	}); err != nil {
		t.Fatal(err)
	}
	return a
}

func (e *env) letterFrom(t testing.TB, in lettershop.CreateLetterInput) *lettershop.Letter {
	t.Helper()
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// lastEvent is a letter's latest status event.
func lastEvent(l *lettershop.Letter) lettershop.Event {
	for i := len(l.Events) - 1; i >= 0; i-- {
		if l.Events[i].Type == lettershop.EventTypeStatus {
			return l.Events[i]
		}
	}
	return lettershop.Event{}
}

// A letter whose template stays at a URL goes into production when the
// URL answers with a template that prints, and to issue, saying what
// failed and what to do, when it does not; an update once the host is
// fixed queues it again.
func TestExternalTemplateLetters(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	const tpl = `<h1>Fetched at printing</h1><p>Dear {{name}}, order {{order}}.</p>`
	fs.put("/letter.html", []byte(tpl), "text/html")
	u := fs.url("/letter.html")
	ext := e.externalTemplate(t, u)
	inline, _ := e.publishedTemplate(t, acct)

	// Monday 15:00: made; produced Tuesday at 14:00. Five letters share
	// one URL, fetched once by the run that checks them.
	var made []*lettershop.Letter
	for range 5 {
		made = append(made, e.letterFrom(t, letterInput(ext.ID)))
	}
	if n := fs.count("/letter.html"); n != 0 {
		t.Fatalf("making the letters fetched the template %d times", n)
	}
	e.clock.Add(24 * time.Hour)
	production := time.Date(2026, 3, 3, 14, 0, 0, 0, time.UTC)
	for _, l := range made {
		got := e.get(t, l.ID)
		if ev := lastEvent(got); got.Status != lettershop.StatusInProduction || !ev.Timestamp.Equal(production) {
			t.Fatalf("letter %s at %v, want inProduction at %v", got.Status, ev.Timestamp, production)
		}
	}
	if n := fs.count("/letter.html"); n != 1 {
		t.Errorf("the run fetched the template %d times, want once", n)
	}
	pdf, err := e.svc.RenderLetter(e.ctx, acct, made[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(pdftest.Read(t, pdf).Pages, "\n"); !strings.Contains(text, "Fetched at printing") || !strings.Contains(text, "Dear Jane") {
		t.Errorf("the letter prints %q, want the fetched template merged", text)
	}

	// Tuesday 15:00: the host stops answering. Wednesday at 14:00 the
	// letter goes to issue; a letter with its content stored goes on.
	fs.setDown(true)
	down := e.letterFrom(t, letterInput(ext.ID))
	other := e.letterFrom(t, letterInput(inline.ID))
	e.clock.Add(24 * time.Hour)
	production = production.Add(24 * time.Hour)
	got := e.get(t, down.ID)
	if got.Status != lettershop.StatusIssue || !lastEvent(got).Timestamp.Equal(production) {
		t.Fatalf("with the host down: %s at %v, want issue at %v", got.Status, lastEvent(got).Timestamp, production)
	}
	for _, want := range []string{u, "no answer", "update the letter"} {
		if !strings.Contains(got.IssueMessage, want) {
			t.Errorf("issueMessage %q does not say %q", got.IssueMessage, want)
		}
	}
	if st := e.get(t, other.ID).Status; st != lettershop.StatusInProduction {
		t.Errorf("a letter that fetches nothing: %s, want inProduction", st)
	}
	if _, err := e.svc.RenderLetter(e.ctx, acct, down.ID); lettershop.ErrorCode(err) != lettershop.CodeConflict {
		t.Errorf("download at issue: %v, want a conflict", err)
	}

	// The host answers again: the letter waits at issue until updated;
	// sent back with its content, it is queued and produced next day.
	fs.setDown(false)
	e.clock.Add(time.Hour)
	if st := e.get(t, down.ID).Status; st != lettershop.StatusIssue {
		t.Fatalf("after the host is fixed, before an update: %s, want issue", st)
	}
	up, err := e.svc.UpdateLetter(e.ctx, acct, down.ID, lettershop.UpdateLetterInput{Content: &got.Content})
	if err != nil || up.Status != lettershop.StatusQueued || up.IssueMessage != "" {
		t.Fatalf("update: %v, %v", up, err)
	}
	e.clock.Add(24 * time.Hour)
	if st := e.get(t, down.ID).Status; st != lettershop.StatusInProduction {
		t.Errorf("after the update: %s, want inProduction", st)
	}

	// A template that no longer prints is an issue too, saying why.
	fs.put("/letter.html", []byte(`<p>{{first name}}</p>`), "text/html")
	broken := e.letterFrom(t, letterInput(ext.ID))
	e.clock.Add(24 * time.Hour)
	if got := e.get(t, broken.ID); got.Status != lettershop.StatusIssue || !strings.Contains(got.IssueMessage, "can not be printed") || !strings.Contains(got.IssueMessage, "{{") {
		t.Errorf("a broken template: %s %q", got.Status, got.IssueMessage)
	}
}

// Variables of type externalUrl go through the same check before
// production.
func TestExternalURLVariablesBeforeProduction(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	fs.put("/logo.png", decodeB64(t, pdftest.PNG(t, 600, 150)), "image/png")
	a := e.makeAsset(t, lettershop.AssetTemplate)
	if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Content: `<img src="{{logo}}" width="192"><p>Hello {{name}}</p>`},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "logo", Type: lettershop.VariableTypeExternalURL}, {Name: "name"}},
		Publish:             true,
	}); err != nil {
		t.Fatal(err)
	}
	in := func(logo string) lettershop.CreateLetterInput {
		li := letterInput(a.ID)
		li.Variables = vars("name", "Jane", "logo", logo)
		return li
	}
	ok := e.letterFrom(t, in(fs.url("/logo.png")))
	gone := e.letterFrom(t, in(fs.url("/gone.png")))
	e.clock.Add(24 * time.Hour)
	if st := e.get(t, ok.ID).Status; st != lettershop.StatusInProduction {
		t.Errorf("logo found: %s, want inProduction", st)
	}
	got := e.get(t, gone.ID)
	if got.Status != lettershop.StatusIssue || !strings.Contains(got.IssueMessage, "variable logo") || !strings.Contains(got.IssueMessage, "404") {
		t.Errorf("logo gone: %s %q", got.Status, got.IssueMessage)
	}
	if n := fs.count("/logo.png"); n != 1 {
		t.Errorf("the logo was fetched %d times, want once", n)
	}
}

// A template kept at a URL is not at hand when a letter is made: how it
// prints the letter's asset images is checked with it, before production.
func TestExternalTemplateWithAssetImages(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	fs.put("/t.html", []byte(`<img src="{{logo}}" width="192"><p>Hi {{name}}</p>`), "text/html")
	ext := e.externalTemplate(t, fs.url("/t.html"),
		lettershop.VariableDefinition{Name: "logo", Type: lettershop.VariableTypeAsset}, lettershop.VariableDefinition{Name: "name"})
	image := func(w, h int) string {
		img := e.makeAsset(t, lettershop.AssetImage)
		if _, err := e.svc.CreateVersion(e.ctx, acct, img.ID, lettershop.CreateVersionInput{
			Content: &lettershop.VersionContent{Type: "image/png", Content: pdftest.PNG(t, w, h)}, Publish: true,
		}); err != nil {
			t.Fatal(err)
		}
		return img.ID
	}
	in := func(logo string) lettershop.CreateLetterInput {
		li := letterInput(ext.ID)
		li.Variables = vars("name", "Jane", "logo", logo)
		return li
	}
	sharp := e.letterFrom(t, in(image(600, 150)))
	blurred := e.letterFrom(t, in(image(599, 150)))
	e.clock.Add(24 * time.Hour)
	if st := e.get(t, sharp.ID).Status; st != lettershop.StatusInProduction {
		t.Errorf("600 pixels across 2 inches: %s, want inProduction", st)
	}
	got := e.get(t, blurred.ID)
	if got.Status != lettershop.StatusIssue || !strings.Contains(got.IssueMessage, "299 DPI") {
		t.Errorf("599 pixels across 2 inches: %s %q, want issue at 299 DPI", got.Status, got.IssueMessage)
	}
}

// Simulate checks the content as a run does: a letter whose content can
// not be fetched goes to issue, not to the target.
func TestSimulateFetchesFirst(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	fs.put("/t.html", []byte(`<p>Dear {{name}}</p>`), "text/html")
	ext := e.externalTemplate(t, fs.url("/t.html"))
	l := e.letterFrom(t, letterInput(ext.ID))
	fs.setDown(true)
	_, err := e.svc.Simulate(e.ctx, acct, l.ID, lettershop.SimulateTarget{Status: lettershop.StatusMailed})
	if lettershop.ErrorCode(err) != lettershop.CodeConflict || !strings.Contains(err.Error(), fs.url("/t.html")) {
		t.Fatalf("Simulate with the host down: %v, want a conflict naming the URL", err)
	}
	if st := e.get(t, l.ID).Status; st != lettershop.StatusIssue {
		t.Fatalf("status %s, want issue", st)
	}
	fs.setDown(false)
	l2 := e.letterFrom(t, letterInput(ext.ID))
	got, err := e.svc.Simulate(e.ctx, acct, l2.ID, lettershop.SimulateTarget{Status: lettershop.StatusMailed})
	if err != nil || got.Status != lettershop.StatusMailed {
		t.Fatalf("Simulate: %v, %v", got, err)
	}
	if _, err := e.svc.Simulate(e.ctx, acct, l.ID, lettershop.SimulateTarget{Status: lettershop.StatusCanceled}); err != nil {
		t.Errorf("cancel at issue: %v", err)
	}
}

// Letters held before production do not keep the others of a run
// waiting: more than a batch of them, due first, and a letter due with
// them that fetches nothing, all move in one run.
func TestHeldLettersFillingABatch(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	fs.put("/t.html", []byte(`<p>Dear {{name}}</p>`), "text/html")
	ext := e.externalTemplate(t, fs.url("/t.html"))
	inline, _ := e.publishedTemplate(t, acct)
	const n = 501 // a batch is 500 letters
	var ids []string
	for range n {
		ids = append(ids, e.letterFrom(t, letterInput(ext.ID)).ID)
	}
	plain := e.letterFrom(t, letterInput(inline.ID))
	e.clock.Add(24 * time.Hour)
	moved, err := e.svc.RunDue(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if moved != n+1 {
		t.Errorf("RunDue moved %d letters, want %d", moved, n+1)
	}
	for _, id := range append(ids, plain.ID) {
		if st := e.get(t, id).Status; st != lettershop.StatusInProduction {
			t.Fatalf("letter %s: %s, want inProduction", id, st)
		}
	}
	if got := fs.count("/t.html"); got < 1 || got > 2 {
		t.Errorf("the template was fetched %d times, want once for each batch that held letters", got)
	}
}

// A template kept at a URL is checked with the letter's values merged when
// it is fetched: one they take past what prints puts the letter at issue,
// saying so, where a download would have been an internal error.
func TestExternalTemplateMergedTooLarge(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	defs := []lettershop.VariableDefinition{{Name: "a", Type: "value", Behavior: lettershop.VariableRequired}}
	// 256 uses of a value of 4,095 bytes and 257 bytes of text: a byte
	// over render.MaxTemplateBytes, merged.
	fs.put("/big.html", []byte(strings.Repeat("x", 257)+strings.Repeat("{{a}}", 256)), "text/html")
	ext := e.externalTemplate(t, fs.url("/big.html"), defs...)
	in := letterInput(ext.ID)
	in.Variables = vars("a", strings.Repeat("y", 4095))
	l := e.letterFrom(t, in)
	_, err := e.svc.RenderLetter(e.ctx, acct, l.ID)
	wantCode(t, err, lettershop.CodeConflict)
	got := e.get(t, l.ID)
	if got.Status != lettershop.StatusIssue || !strings.Contains(got.IssueMessage, "merged") {
		t.Errorf("letter %s (%q), want at issue saying its merged size", got.Status, got.IssueMessage)
	}
}

// A run's batch holds what it fetched until its letters are checked, so
// it fetches one letter's worth of content (MaxExternalContent and
// MaxLetterExternalContent) and a few fetches more at most; the letters
// it did not reach are checked by the run's next batch, their content
// fetched once.
func TestExternalURLRunBytesBounded(t *testing.T) {
	e := newEnv(t)
	fs := newFileServer(t)
	logo := decodeB64(t, pdftest.PNG(t, 600, 150))
	// The image with a chunk of its own before its end, to 10 MiB.
	pad := make([]byte, 8+lettershop.MaxExternalContent-len(logo)-12)
	binary.BigEndian.PutUint32(pad, uint32(len(pad)-8))
	copy(pad[4:], "zzZz")
	big := slices.Concat(logo[:len(logo)-12], pad, binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(pad[4:])), logo[len(logo)-12:])
	a := e.makeAsset(t, lettershop.AssetTemplate)
	if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Content: `<img src="{{logo}}" width="192"><p>Hello</p>`},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "logo", Type: lettershop.VariableTypeExternalURL}},
		Publish:             true,
	}); err != nil {
		t.Fatal(err)
	}
	n := (lettershop.MaxExternalContent+lettershop.MaxLetterExternalContent)/lettershop.MaxExternalContent + 1
	var letters []*lettershop.Letter
	for i := range n {
		path := fmt.Sprintf("/logo%d.png", i)
		fs.put(path, big, "image/png")
		li := letterInput(a.ID)
		li.Variables = vars("logo", fs.url(path))
		letters = append(letters, e.letterFrom(t, li))
	}
	e.clock.Add(24 * time.Hour)
	for i, l := range letters {
		if st := e.get(t, l.ID).Status; st != lettershop.StatusInProduction {
			t.Errorf("letter %d: %s, want inProduction", i, st)
		}
		if c := fs.count(fmt.Sprintf("/logo%d.png", i)); c != 1 {
			t.Errorf("logo %d fetched %d times, want once", i, c)
		}
	}
}
