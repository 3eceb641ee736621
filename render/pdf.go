package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// PDF documents: read, checked and combined with the address block by
// pdfcpu, a pure-Go PDF library; the address block itself is drawn by fpdf
// like every other letter's.

// Limits of a PDF document that prints.
const (
	// MaxDocumentPages is the most pages a PDF document may have: six
	// sheets, printed on one side, are what a #10 envelope carries folded.
	MaxDocumentPages = 6
	// PageSizeTolerance is how far, in points, a page may differ from US
	// Letter (612 x 792 pt) in either direction and still print.
	PageSizeTolerance = 2.0
)

// DocumentInfo is what CheckPDF learns of a PDF document.
type DocumentInfo struct {
	// Pages is the number of pages.
	Pages int
	// Problem says why the document can not be printed, in words a person
	// can act on; "" when it can.
	Problem string
}

var pdfConfig struct {
	once sync.Once
}

// config is a fresh pdfcpu configuration: pdfcpu writes its configuration
// to the user's directory unless told not to, and a library should leave
// the disk alone.
func config() *model.Configuration {
	pdfConfig.once.Do(api.DisableConfigDir)
	c := model.NewDefaultConfiguration()
	c.ValidationMode = model.ValidationRelaxed
	// Plain objects and a plain cross-reference table, so that the dates
	// and file identifier pdfcpu writes can be set to the letter's own
	// (fixDates).
	c.WriteObjectStream = false
	c.WriteXRefStream = false
	return c
}

// CheckPDF reads a PDF document and says whether it prints: it must be a
// readable PDF, not encrypted, of at most MaxDocumentPages pages, each US
// Letter within PageSizeTolerance, with every font it uses embedded.
func CheckPDF(data []byte) (info DocumentInfo) {
	defer func() {
		// pdfcpu is robust, but a hostile file should fail alone, never the
		// server.
		if p := recover(); p != nil {
			info = DocumentInfo{Problem: "the PDF can not be read: it is damaged or not a PDF"}
		}
	}()
	if !bytes.HasPrefix(bytes.TrimLeft(data, "\x00\t\n\f\r "), []byte("%PDF-")) {
		return DocumentInfo{Problem: "the data is not a PDF: a PDF file starts with %PDF-"}
	}
	if encrypted(data) {
		return DocumentInfo{Problem: "the PDF is encrypted or password-protected: save it without a password or security settings and upload it again"}
	}
	ctx, err := api.ReadContext(bytes.NewReader(data), config())
	if err != nil {
		if ctx != nil && ctx.Encrypt != nil || strings.Contains(strings.ToLower(err.Error()), "password") {
			return DocumentInfo{Problem: "the PDF is encrypted or password-protected: save it without a password or security settings and upload it again"}
		}
		return DocumentInfo{Problem: "the PDF can not be read: it is damaged or not a PDF (" + shortError(err) + ")"}
	}
	if ctx.Encrypt != nil || ctx.E != nil {
		return DocumentInfo{Problem: "the PDF is encrypted or password-protected: save it without a password or security settings and upload it again"}
	}
	if err := api.ValidateContext(ctx); err != nil {
		return DocumentInfo{Problem: "the PDF can not be read: it is damaged (" + shortError(err) + ")"}
	}
	info.Pages = ctx.PageCount
	switch {
	case info.Pages == 0:
		info.Problem = "the PDF has no pages"
		return info
	case info.Pages > MaxDocumentPages:
		info.Problem = fmt.Sprintf("the PDF has %d pages; a letter carries at most %d: split it into several letters", info.Pages, MaxDocumentPages)
		return info
	}
	dims, err := ctx.PageDims()
	if err != nil {
		info.Problem = "the PDF's page sizes can not be read: " + shortError(err)
		return info
	}
	for i, d := range dims {
		if math.Abs(d.Width-pageW) > PageSizeTolerance || math.Abs(d.Height-pageH) > PageSizeTolerance {
			info.Problem = fmt.Sprintf("page %d is %s x %s pt (%s x %s in); every page must be US Letter, 612 x 792 pt (8.5 x 11 in), portrait: export or print the document to US Letter",
				i+1, points(d.Width), points(d.Height), points(d.Width/72), points(d.Height/72))
			return info
		}
	}
	if missing := unembeddedFonts(ctx); len(missing) > 0 {
		info.Problem = fmt.Sprintf("the PDF uses fonts that are not embedded (%s): export it with all fonts embedded", strings.Join(missing, ", "))
		return info
	}
	return info
}

// encrypted reports whether the trailer of a PDF names an Encrypt
// dictionary. It is read before pdfcpu, which opens documents that have an
// owner password but no user password without a word.
func encrypted(data []byte) bool {
	return encryptEntry.Match(data)
}

var encryptEntry = regexp.MustCompile(`/Encrypt\s*\d+\s+\d+\s+R`)

func points(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// shortError is the first line of err, at most 160 bytes, for a message.
func shortError(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// unembeddedFonts returns the base names of the fonts the document holds
// without their glyphs, at most five, sorted.
func unembeddedFonts(ctx *model.Context) []string {
	var missing []string
	for nr := range ctx.Table {
		obj, err := ctx.Dereference(types.IndirectRef{ObjectNumber: types.Integer(nr)})
		if err != nil {
			continue
		}
		d, ok := obj.(types.Dict)
		if !ok || d.NameEntry("Type") == nil || *d.NameEntry("Type") != "Font" {
			continue
		}
		if fontEmbedded(ctx, d) {
			continue
		}
		name := "unnamed"
		if n := d.NameEntry("BaseFont"); n != nil {
			name = *n
		}
		if !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing[:min(len(missing), 5)]
}

// fontEmbedded reports whether a font dictionary carries its glyphs: a
// Type 3 font draws them itself; a composite (Type 0) font through its
// descendant; any other through a font file in its descriptor.
func fontEmbedded(ctx *model.Context, d types.Dict) bool {
	sub := d.NameEntry("Subtype")
	if sub != nil && *sub == "Type3" {
		return true
	}
	if sub != nil && *sub == "Type0" {
		arr, err := ctx.DereferenceArray(d["DescendantFonts"])
		if err != nil || len(arr) == 0 {
			return false
		}
		desc, err := ctx.DereferenceDict(arr[0])
		if err != nil || desc == nil {
			return false
		}
		d = desc
	}
	fd, err := ctx.DereferenceDict(d["FontDescriptor"])
	if err != nil || fd == nil {
		return false
	}
	for _, k := range []string{"FontFile", "FontFile2", "FontFile3"} {
		if _, ok := fd[k]; ok {
			return true
		}
	}
	return false
}

// renderDocument prints a PDF document with the address block: on a page of
// its own before the document, or over its first page's window areas.
func renderDocument(l Letter) ([]byte, error) {
	if info := CheckPDF(l.Content); info.Problem != "" {
		return nil, errors.New(info.Problem)
	}
	var out bytes.Buffer
	switch l.Placement {
	case "", InsertBlankPage:
		page, err := addressOnly(l, false)
		if err != nil {
			return nil, err
		}
		rs := []io.ReadSeeker{bytes.NewReader(page), bytes.NewReader(l.Content)}
		if err := api.MergeRaw(rs, &out, false, config()); err != nil {
			return nil, fmt.Errorf("add the address page: %w", err)
		}
	case TopFirstPage:
		stamp, err := addressOnly(l, true)
		if err != nil {
			return nil, err
		}
		wm, err := api.PDFWatermarkForReadSeeker(bytes.NewReader(stamp), 1, "pos:bl, off:0 0, scale:1 abs, rot:0, op:1", true, false, types.POINTS)
		if err != nil {
			return nil, fmt.Errorf("address block: %w", err)
		}
		if err := api.AddWatermarks(bytes.NewReader(l.Content), &out, []string{"1"}, wm, config()); err != nil {
			return nil, fmt.Errorf("print the address block on page 1: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown address placement %q", l.Placement)
	}
	return fixDates(out.Bytes(), l)
}

// addressOnly is a one-page PDF with the letter's address blocks in the
// envelope windows; ground puts a white ground under each, to print over
// a document's own page.
func addressOnly(l Letter, ground bool) ([]byte, error) {
	d := newDocument(l)
	d.newPage()
	if ground {
		d.pdf.SetFillColor(255, 255, 255)
		for _, b := range []box{returnWindow, recipientWindow} {
			d.pdf.Rect(b.x-windowGround, b.y-windowGround, b.w+2*windowGround, b.h+2*windowGround, "F")
		}
	}
	d.addressBlock(returnWindow, fontSafeLines(l.Sender), 8.5)
	d.addressBlock(recipientWindow, fontSafeLines(l.Recipient), 10.5)
	var b bytes.Buffer
	if err := d.pdf.Output(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// windowGround is how far the white ground under a stamped address block
// reaches beyond the text box, in points.
const windowGround = 6.0

var (
	pdfDate   = regexp.MustCompile(`/(CreationDate|ModDate)\s*\((D:[^)]*)\)`)
	pdfFileID = regexp.MustCompile(`/ID\s*\[\s*<([0-9A-Fa-f]*)>\s*<([0-9A-Fa-f]*)>\s*\]`)
	pdfInfo   = regexp.MustCompile(`/Info\s+(\d+)\s+(\d+)\s+R`)
)

// fixDates replaces the dates and the file identifier pdfcpu writes (from
// the wall clock) by the letter's date and an identifier made from the
// letter, so the same letter renders to the same bytes. Each replacement has
// the length of what it replaces, so the cross-reference offsets hold.
func fixDates(b []byte, l Letter) ([]byte, error) {
	date := []byte(types.DateString(l.Date.UTC()))
	tail := bytes.LastIndex(b, []byte("trailer"))
	if tail < 0 {
		return nil, errors.New("the written PDF has no trailer")
	}
	info := pdfInfo.FindSubmatch(b[tail:])
	if info == nil {
		return nil, errors.New("the written PDF has no document information")
	}
	start := bytes.Index(b, []byte(fmt.Sprintf("\n%s %s obj", info[1], info[2])))
	if start < 0 {
		return nil, errors.New("the written PDF's document information is not where it says")
	}
	end := start + bytes.Index(b[start:], []byte("endobj"))
	for _, m := range pdfDate.FindAllSubmatchIndex(b[start:end], -1) {
		at, to := start+m[4], start+m[5]
		if to-at != len(date) {
			return nil, fmt.Errorf("unexpected date %q in the written PDF", b[at:to])
		}
		copy(b[at:to], date)
	}
	m := pdfFileID.FindSubmatchIndex(b[tail:])
	if m == nil {
		return nil, errors.New("the written PDF has no file identifier")
	}
	sum := sha256.Sum256(append([]byte(l.ID+"\x00"+string(date)+"\x00"), l.Content...))
	id := []byte(strings.ToUpper(hex.EncodeToString(sum[:])))
	first, second := b[tail+m[2]:tail+m[3]], b[tail+m[4]:tail+m[5]]
	if len(first) > len(id) || len(second) > len(id) {
		return nil, fmt.Errorf("unexpected file identifier %q in the written PDF", second)
	}
	if bytes.Equal(first, second) {
		copy(first, id[:len(first)])
	}
	copy(second, id[:len(second)])
	return b, nil
}
