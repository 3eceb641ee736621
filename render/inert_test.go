package render_test

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/lettershop/lettershop/render"
)

// activeDoc is a one-page US Letter document in Helvetica whose catalog
// gets catalog and whose page gets page, with extra as objects 6 on.
func activeDoc(catalog, page string, extra ...string) []byte {
	objs := append([]string{
		"<< /Type /Catalog /Pages 2 0 R " + catalog + " >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> " + page + " >>",
		"<< /Length 44 >>\nstream\nBT /F1 24 Tf 100 500 Td (Statement body) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}, extra...)
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	var offsets []int
	for i, o := range objs {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	return endPDF(&b, offsets)
}

// activeParts lists what in b a reader would run or open: every action by
// its type (S) and URI, the keys AA, JS, EF and XFA, and the JavaScript and
// EmbeddedFiles name trees.
func activeParts(t testing.TB, b []byte) []string {
	return walkPDF(t, b, func(_ *model.Context, found map[string]bool, k string, v types.Object) {
		switch k {
		case "AA", "JS", "EF", "XFA", "JavaScript", "EmbeddedFiles":
			found[k] = true
		case "S":
			if n, ok := v.(types.Name); ok && n.Value() != "D" && n.Value() != "S" {
				found["S "+n.Value()] = true
			}
		case "URI":
			if s, err := types.StringOrHexLiteral(v); err == nil && s != nil {
				found["URI "+*s] = true
			}
		}
	})
}

// walkPDF reads b and calls member for each member of every dictionary in
// it, however deep, with the set it fills; it returns that set sorted.
func walkPDF(t testing.TB, b []byte, member func(ctx *model.Context, found map[string]bool, k string, v types.Object)) []string {
	t.Helper()
	ctx, err := api.ReadContext(bytes.NewReader(b), model.NewDefaultConfiguration())
	if err != nil {
		t.Fatalf("read the letter: %v", err)
	}
	found := map[string]bool{}
	var look func(o types.Object)
	look = func(o types.Object) {
		switch x := o.(type) {
		case types.Dict:
			for k, v := range x {
				member(ctx, found, k, v)
				look(v)
			}
		case types.StreamDict:
			look(x.Dict)
		case types.Array:
			for _, v := range x {
				look(v)
			}
		}
	}
	for _, e := range ctx.Table {
		if e != nil && !e.Free {
			look(e.Object)
		}
	}
	var out []string
	for k := range found {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestLetterFromADocumentRunsNothing: a PDF document's JavaScript, launch,
// form submission and other actions, its additional actions and its
// embedded files do not reach the letter, in either placement; its links
// to the web and within itself do, and its pages print as they were.
func TestLetterFromADocumentRunsNothing(t *testing.T) {
	link := func(action string) string {
		return "<< /Type /Annot /Subtype /Link /Rect [100 100 300 130] /A " + action + " >>"
	}
	docs := []struct {
		name string
		doc  []byte
		want []string // what of it the letter keeps
	}{
		{"opening JavaScript", activeDoc("/OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>", ""), nil},
		{"document JavaScript", activeDoc("/Names << /JavaScript << /Names [(x) 6 0 R] >> >>", "",
			"<< /S /JavaScript /JS (app.alert\\(2\\)) >>"), nil},
		{"document additional actions", activeDoc("/AA << /WC << /S /JavaScript /JS (app.alert\\(3\\)) >> >>", ""), nil},
		{"page opening JavaScript", activeDoc("", "/AA << /O << /S /JavaScript /JS (app.alert\\(4\\)) >> >>"), nil},
		{"launch", activeDoc("", "/Annots [6 0 R]", link("<< /S /Launch /F (calc.exe) >>")), nil},
		{"submit form", activeDoc("", "/Annots [6 0 R]", link("<< /S /SubmitForm /F << /FS /URL /F (http://example.com/s) >> >>")), nil},
		{"remote document", activeDoc("", "/Annots [6 0 R]", link("<< /S /GoToR /F (file:///etc/passwd) /D [0 /Fit] >>")), nil},
		{"javascript URI", activeDoc("", "/Annots [6 0 R]", link("<< /S /URI /URI (javascript:alert\\(5\\)) >>")), nil},
		{"file URI", activeDoc("", "/Annots [6 0 R]", link("<< /S /URI /URI (file:///etc/passwd) >>")), nil},
		{"JavaScript after a link", activeDoc("", "/Annots [6 0 R]",
			link("<< /S /URI /URI (https://example.com/) /Next << /S /JavaScript /JS (app.alert\\(6\\)) >> >>")),
			[]string{"S URI", "URI https://example.com/"}},
		{"JavaScript under another name", activeDoc("", "/Annots [6 0 R]",
			link("<< /S /URI /URI (https://example.com/) /Nezt << /S /JavaScript /JS (app.alert\\(7\\)) >> >>")),
			[]string{"S URI", "URI https://example.com/"}},
		{"a script in the catalog itself", activeDoc("/JS (app.alert\\(8\\))", ""), nil},
		{"JavaScript in an array under another name", activeDoc("", "/Annots [6 0 R]",
			link("<< /S /URI /URI (https://example.com/) /Nezt [<< /S /JavaScript /JS (app.alert\\(9\\)) >>] >>")),
			[]string{"S URI", "URI https://example.com/"}},
		{"embedded file", activeDoc("/Names << /EmbeddedFiles << /Names [(a.exe) 6 0 R] >> >>", "",
			"<< /Type /Filespec /F (a.exe) /EF << /F 7 0 R >> >>", "<< /Type /EmbeddedFile /Length 2 >>\nstream\nMZ\nendstream"), nil},
		{"attached file", activeDoc("", "/Annots [6 0 R]",
			"<< /Type /Annot /Subtype /FileAttachment /Rect [100 100 120 120] /FS 7 0 R >>",
			"<< /Type /Filespec /F (a.exe) /EF << /F 8 0 R >> >>", "<< /Type /EmbeddedFile /Length 2 >>\nstream\nMZ\nendstream"), nil},
		{"web link", activeDoc("", "/Annots [6 0 R]", link("<< /S /URI /URI (https://example.com/pay) >>")),
			[]string{"S URI", "URI https://example.com/pay"}},
		{"link within", activeDoc("", "/Annots [6 0 R]", link("<< /S /GoTo /D [3 0 R /Fit] >>")), []string{"S GoTo"}},
	}
	for _, d := range docs {
		for _, placement := range []render.Placement{render.InsertBlankPage, render.TopFirstPage} {
			t.Run(d.name+"/"+string(placement), func(t *testing.T) {
				if info := checkPDF(d.doc); info.Problem != "" {
					t.Fatalf("the document does not print: %s", info.Problem)
				}
				b, err := render.Render(pdfLetter(t, d.doc, placement))
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				if got := activeParts(t, b); !slices.Equal(got, d.want) {
					t.Errorf("the letter keeps %q, want %q", got, d.want)
				}
				pages := pdfPages(t, b)
				if !strings.Contains(strings.Join(pages, "\n"), "Statement body") {
					t.Errorf("the document's page is not printed: %q", pages)
				}
			})
		}
	}
}

// FuzzLetterFromADocument holds a letter from a PDF document to its
// promise on any document CheckPDF accepts: it renders in both placements
// and keeps nothing a reader runs or opens (runnable: no script under any
// name, no additional actions or embedded file, no action a reader follows
// but a link). The seeds carry each kind of active content, in chains and
// under names no reader runs.
func FuzzLetterFromADocument(f *testing.F) {
	link := func(action string) string {
		return "<< /Type /Annot /Subtype /Link /Rect [100 100 300 130] /A " + action + " >>"
	}
	for _, doc := range [][]byte{
		activeDoc("/OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>", ""),
		activeDoc("/Names << /JavaScript << /Names [(x) 6 0 R] >> /EmbeddedFiles << /Names [(a) 7 0 R] >> >> /OpenAction 6 0 R", "",
			"<< /S /JavaScript /JS (app.alert\\(2\\)) /Next << /S /Launch /F (calc.exe) >> >>", "<< /Type /Filespec /F (a.exe) /EF << /F 8 0 R >> >>",
			"<< /Type /EmbeddedFile /Length 2 >>\nstream\nMZ\nendstream"),
		activeDoc("/AA << /WC << /S /JavaScript /JS (x) >> >>", "/AA << /O << /S /Launch /F (calc.exe) >> >> /Annots [6 0 R 7 0 R]",
			link("<< /S /URI /URI (https://example.com/) /Next [<< /S /GoTo /D [3 0 R /Fit] >> << /S /SubmitForm /F (http://e.com) >>] >>"),
			"<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /A << /S /URI /URI (javascript:x) >> /Nezt << /JS (y) >> >>"),
		activeDoc("/AcroForm << /Fields [] /XFA 6 0 R >> /Outlines 8 0 R", "",
			"<< /Length 2 >>\nstream\n<>\nendstream", "<< /Title (t) /Parent 8 0 R /A << /S /GoToR /F (file:///etc/passwd) /D [0 /Fit] >> >>",
			"<< /Type /Outlines /First 7 0 R /Last 7 0 R /Count 1 >>"),
	} {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if info := checkPDF(doc); info.Problem != "" {
			return
		}
		for _, p := range []render.Placement{render.InsertBlankPage, render.TopFirstPage} {
			b, err := render.Render(pdfLetter(t, doc, p))
			if err != nil {
				t.Fatalf("an accepted document does not render (%s): %v", p, err)
			}
			if got := runnable(t, b); len(got) > 0 {
				t.Fatalf("the letter (%s) keeps %q", p, got)
			}
		}
	})
}

// runnable lists what in b a reader would run or open: the keys AA, JS
// (a script, under whatever name it is held) and EF anywhere, and under
// the keys a reader follows (A, OpenAction, Next) an action of any type
// but GoTo, Named and URI. An action held under another name no reader
// follows, and is not listed.
func runnable(t testing.TB, b []byte) []string {
	return walkPDF(t, b, func(ctx *model.Context, found map[string]bool, k string, v types.Object) {
		switch k {
		case "AA", "JS", "EF":
			found[k] = true
		case "A", "OpenAction", "Next":
			if r, err := ctx.Dereference(v); err == nil {
				v = r
			}
			actions, ok := v.(types.Array)
			if !ok {
				actions = types.Array{v}
			}
			for _, a := range actions {
				if d, ok := a.(types.Dict); ok {
					if s, ok := d["S"].(types.Name); ok && s != "GoTo" && s != "Named" && s != "URI" {
						found["S "+s.Value()] = true
					}
				}
			}
		}
	})
}
