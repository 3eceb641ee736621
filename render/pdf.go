package render

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/filter"
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
	// MaxDocumentObjects is the most objects a PDF document may have.
	// Six pages take some hundreds, a few thousand with their structure
	// tagged; pdfcpu reads each object of a document every time it reads
	// the document, at some 9 KB of memory each: a 10 MB document of
	// 175,000 empty objects took 4 s and 500 MB to read once, and is read
	// several times to check it and again for every letter.
	MaxDocumentObjects = 20_000
	// MaxDocumentTokens is the most tokens (numbers, names, brackets and
	// the like) a PDF document may have outside its streams. Six pages
	// take some tens of thousands; pdfcpu makes a value of each every time
	// it reads the document: a 10 MB document of one array of five
	// million numbers took 18 s to check and held 480 MB.
	MaxDocumentTokens = 500_000
	// PageSizeTolerance is how far, in points, a page may differ from US
	// Letter (612 x 792 pt) in either direction and still print.
	PageSizeTolerance = 2.0
)

// MaxExpandedContent bounds what a PDF document's compressed streams may
// expand to, in bytes: well above any printable six pages, and far below
// what a small, hostile file could make a server hold.
const MaxExpandedContent = 256 << 20

// MaxHeldContent bounds what a PDF document's streams other than images
// compressed with Flate alone (page contents, forms, fonts, and any stream
// behind another filter) may expand to, in bytes, in all. Those are held
// whole in memory when they are decoded: reading the document decodes
// each, and printing the address block over page one decodes its
// contents again. A page's text and drawing take some kilobytes to a few
// megabytes; a 255 KB document of 250 MiB of page content held 1 GB for
// 9 s of checking, and a 1 KB one of a doubly compressed stream 1.2 GB.
// A Flate image is only counted as it is read, never held.
const MaxHeldContent = 32 << 20

// expandedSize adds up what the document's streams decode to, through
// every filter of each (a Flate stream behind an ASCIIHex one, LZW, run
// length), stopping just past MaxExpandedContent, and returns it with the
// part of it in streams that are held whole when decoded (see
// MaxHeldContent), stopping just past that: a Flate stream is read and
// counted, pdfcpu decodes any other with each filter's output bounded by
// what is left. What it can not decode, for another reason than its
// size, the decoding read reports.
func expandedSize(ctx *model.Context, tokens *tokenCounter) (total, held int64) {
	for nr := range ctx.Table {
		e := ctx.Table[nr]
		if e == nil || e.Free {
			continue
		}
		sd, ok := e.Object.(types.StreamDict)
		if os, isOS := e.Object.(types.ObjectStreamDict); isOS {
			sd, ok = os.StreamDict, true
		}
		if !ok || len(sd.FilterPipeline) == 0 {
			continue
		}
		if len(sd.FilterPipeline) == 1 && sd.FilterPipeline[0].Name == filter.Flate {
			// The common case counted as it is read, holding nothing.
			zr, err := zlib.NewReader(bytes.NewReader(sd.Raw))
			if err != nil {
				continue // damaged: the decoding read reports it
			}
			limit := MaxExpandedContent + 1 - total
			if !sd.Image() {
				limit = min(limit, MaxHeldContent+1-held)
			}
			var w io.Writer = io.Discard
			if objectStream(sd) {
				w = tokens
			}
			n, _ := io.Copy(w, io.LimitReader(zr, limit))
			total += n
			if !sd.Image() {
				held += n
			}
			if total > MaxExpandedContent || held > MaxHeldContent {
				return total, held
			}
			continue
		}
		// A copy: the table keeps its stream undecoded.
		sd.Content = nil
		err := sd.DecodeWithLimit(max(1, MaxHeldContent-held))
		if errors.Is(err, filter.ErrDecodeLimitExceeded) {
			return total, MaxHeldContent + 1
		}
		if err == nil {
			total += int64(len(sd.Content))
			held += int64(len(sd.Content))
			if objectStream(sd) {
				_, _ = tokens.Write(sd.Content)
			}
		}
		if total > MaxExpandedContent || held > MaxHeldContent {
			return total, held
		}
	}
	return total, held
}

// objectStream reports whether sd is an object stream, whose objects
// pdfcpu reads only when they are needed.
func objectStream(sd types.StreamDict) bool {
	t := sd.Type()
	return t != nil && *t == "ObjStm"
}

// DocumentInfo is what CheckPDF learns of a PDF document.
type DocumentInfo struct {
	// Pages is the number of pages.
	Pages int
	// Problem says why the document can not be printed, in words a person
	// can act on; "" when it can.
	Problem string
	// StandardFonts reports that the document uses standard fonts without
	// embedding them, which are embedded when it is printed.
	StandardFonts bool
}

// configOnce turns off pdfcpu's configuration directory, once.
var configOnce sync.Once

// config is a fresh pdfcpu configuration: pdfcpu writes its configuration
// to the user's directory unless told not to, and a library should leave
// the disk alone.
func config() *model.Configuration {
	configOnce.Do(api.DisableConfigDir)
	c := model.NewDefaultConfiguration()
	c.ValidationMode = model.ValidationRelaxed
	// No stream decodes to more than a document's streams may in all
	// (pdfcpu's own bound is 512 MiB a stream).
	c.Limits.MaxDecodeBytes = MaxExpandedContent
	// Objects in object streams, which checkPDF does not count, as many
	// as it lets by outside them.
	c.Limits.MaxObjectCount = 2 * MaxDocumentObjects
	c.Limits.MaxXRefEntries = 2 * MaxDocumentObjects
	c.Limits.MaxObjectStreamCount = 2 * MaxDocumentObjects
	// Plain objects and a plain cross-reference table, so that the dates
	// and file identifier pdfcpu writes can be set to the letter's own
	// (fixDates).
	c.WriteObjectStream = false
	c.WriteXRefStream = false
	return c
}

// CheckPDF reads a PDF document and says whether it prints: it must be a
// readable PDF, not encrypted, of at most MaxDocumentPages pages, each US
// Letter within PageSizeTolerance, with every font it uses embedded. No
// more documents are checked at once than there are cores (checking): a
// check waits for a slot as long as ctx lets it, and returns ctx's error,
// checking nothing, when ctx ends first.
func CheckPDF(ctx context.Context, data []byte) (DocumentInfo, error) {
	if err := checking.Enter(ctx); err != nil {
		return DocumentInfo{}, err
	}
	defer checking.Leave()
	return checkPDFPrints(data), nil
}

// checkPDFPrints is CheckPDF, for a caller holding a slot of checking.
func checkPDFPrints(data []byte) DocumentInfo {
	info := checkPDF(data)
	if info.Problem != "" {
		return info
	}
	// Printed for real in both placements, so that nothing about the
	// document can fail when a letter is downloaded; remembered as checked
	// meanwhile, so that printing does not check it again.
	sum := sha256.Sum256(data)
	rememberChecked(sum, info)
	for _, p := range []Placement{InsertBlankPage, TopFirstPage} {
		l := Letter{ID: "ltr_check", Type: "application/pdf", Content: data, Placement: p,
			Sender: []string{"Sender"}, Recipient: []string{"Recipient"}}
		if _, err := Render(l); err != nil {
			forgetChecked(sum)
			info.Problem = "the PDF can not be printed: it is damaged (" + shortError(err) + ")"
			return info
		}
	}
	return info
}

// checking lets CheckContent and CheckPDF check as much content at once
// as there are cores (GOMAXPROCS when the package is loaded): a check of a
// document of 85 KB whose pages expand to 32 MB takes 0.7 s of a core and
// some 65 MB, one of a PNG of 56 KB and 16 million pixels 0.4 s and as
// much, and sixteen of either at once held 1 GB.
var checking = NewGate(runtime.GOMAXPROCS(0))

// checkedDocuments is how many documents that print checkPDFOnce
// remembers.
const checkedDocuments = 256

// checked holds what checkPDF found of the documents that print, by the
// SHA-256 of their bytes, the oldest first out.
var checked = struct {
	sync.Mutex
	info  map[[sha256.Size]byte]DocumentInfo
	order [][sha256.Size]byte
}{info: map[[sha256.Size]byte]DocumentInfo{}}

// checkPDFOnce is checkPDF, remembered for a document that prints: the
// check reads the document twice and decodes every stream, more than
// printing it takes, and the document was checked when it was stored
// (CheckPDF), so a letter made from it need not check it again.
func checkPDFOnce(data []byte) DocumentInfo {
	sum := sha256.Sum256(data)
	checked.Lock()
	info, ok := checked.info[sum]
	checked.Unlock()
	if ok {
		return info
	}
	info = checkPDF(data)
	if info.Problem == "" {
		rememberChecked(sum, info)
	}
	return info
}

// rememberChecked remembers that the document whose SHA-256 is sum prints.
func rememberChecked(sum [sha256.Size]byte, info DocumentInfo) {
	checked.Lock()
	defer checked.Unlock()
	if _, ok := checked.info[sum]; ok {
		return
	}
	if len(checked.order) == checkedDocuments {
		delete(checked.info, checked.order[0])
		checked.order = append(checked.order[:0], checked.order[1:]...)
	}
	checked.info[sum] = info
	checked.order = append(checked.order, sum)
}

// forgetChecked forgets the document whose SHA-256 is sum: it does not
// print after all.
func forgetChecked(sum [sha256.Size]byte) {
	checked.Lock()
	defer checked.Unlock()
	if _, ok := checked.info[sum]; !ok {
		return
	}
	delete(checked.info, sum)
	checked.order = slices.DeleteFunc(checked.order, func(s [sha256.Size]byte) bool { return s == sum })
}

// checkPDF is CheckPDF without printing the document.
func checkPDF(data []byte) (info DocumentInfo) {
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
	// Every object outside an object stream is written "N G obj", and
	// most end in "endobj": counting the keyword bounds them before
	// anything is read; those in object streams pdfcpu bounds (config).
	if bytes.Count(data, []byte("obj")) > 2*MaxDocumentObjects {
		return DocumentInfo{Problem: fmt.Sprintf("the PDF has more than %d objects; a document of a few pages needs far fewer: save it again, optimized or printed to PDF", MaxDocumentObjects)}
	}
	tooManyTokens := fmt.Sprintf("the PDF has more than %d tokens outside its content; a document of a few pages needs far fewer: save it again, optimized or printed to PDF", MaxDocumentTokens)
	tokens := tokenCounter{n: syntaxTokens(data, MaxDocumentTokens)}
	if tokens.n > MaxDocumentTokens {
		return DocumentInfo{Problem: tooManyTokens}
	}
	const encrypted = "the PDF is encrypted or password-protected: save it without a password or security settings and upload it again"
	ctx, err := api.ReadContext(bytes.NewReader(data), config())
	if err == nil && ctx.Encrypt == nil && ctx.E == nil {
		switch total, held := expandedSize(ctx, &tokens); {
		case total > MaxExpandedContent:
			return DocumentInfo{Problem: fmt.Sprintf("the PDF's compressed content expands to more than %d MiB: it can not be printed", MaxExpandedContent>>20)}
		case held > MaxHeldContent:
			return DocumentInfo{Problem: fmt.Sprintf("the PDF's compressed content other than images (pages, forms, fonts) expands to more than %d MiB: it can not be printed", MaxHeldContent>>20)}
		}
		if tokens.n > MaxDocumentTokens {
			// In object streams, which pdfcpu reads when they are needed.
			return DocumentInfo{Problem: tooManyTokens}
		}
		// Every stream decoded, so that a damaged one is found now.
		conf := config()
		conf.DecodeAllStreams = true
		ctx, err = api.ReadContext(bytes.NewReader(data), conf)
	}
	if err != nil {
		// A user password stops the reading; an owner password alone does
		// not, and is caught below.
		if strings.Contains(strings.ToLower(err.Error()), "password") {
			return DocumentInfo{Problem: encrypted}
		}
		return DocumentInfo{Problem: "the PDF can not be read: it is damaged or not a PDF (" + shortError(err) + ")"}
	}
	if ctx.Encrypt != nil || ctx.E != nil {
		return DocumentInfo{Problem: encrypted}
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
	missing, standard := unembeddedFonts(ctx)
	info.StandardFonts = standard
	if len(missing) > 0 {
		info.Problem = fmt.Sprintf("the PDF uses fonts that are not embedded (%s): export it with all fonts embedded", strings.Join(missing, ", "))
		return info
	}
	return info
}

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
// without their glyphs, at most five, sorted, but the standard fonts, and
// whether it holds standard fonts that are embedded when it is printed.
func unembeddedFonts(ctx *model.Context) (missing []string, standard bool) {
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
		if standardFont(d) {
			standard = standard || standardFonts[*d.NameEntry("BaseFont")] != ""
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
	return missing[:min(len(missing), 5)], standard
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
	info := checkPDFOnce(l.Content)
	if info.Problem != "" {
		return nil, errors.New(info.Problem)
	}
	doc := l.Content
	if info.StandardFonts {
		var err error
		if doc, err = embedStandardFonts(doc); err != nil {
			return nil, fmt.Errorf("embed the standard fonts: %w", err)
		}
	}
	var out bytes.Buffer
	switch l.Placement {
	case "", InsertBlankPage:
		page, err := addressOnly(l, false)
		if err != nil {
			return nil, err
		}
		rs := []io.ReadSeeker{bytes.NewReader(page), bytes.NewReader(doc)}
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
		if err := api.AddWatermarks(bytes.NewReader(doc), &out, []string{"1"}, wm, config()); err != nil {
			return nil, fmt.Errorf("print the address block on page 1: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown address placement %q", l.Placement)
	}
	b, err := canonical(out.Bytes())
	if err != nil {
		return nil, err
	}
	return fixDates(b, l)
}

// canonical rewrites a PDF that pdfcpu wrote so that it comes out the same
// every time. pdfcpu numbers the objects it merges or stamps, and writes
// them, in the order of Go's map iteration; here the PDF is read back,
// its objects numbered in the order a walk from the catalog meets them
// (dictionary keys sorted), written again, and put in number order. What
// a reader would run rather than print is left out on the way (inert).
func canonical(b []byte) ([]byte, error) {
	ctx, err := api.ReadContext(bytes.NewReader(b), config())
	if err != nil {
		return nil, fmt.Errorf("read the written PDF: %w", err)
	}
	inert(ctx)
	if err := renumber(ctx); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := api.WriteContext(ctx, &out); err != nil {
		return nil, fmt.Errorf("write the PDF: %w", err)
	}
	return inNumberOrder(out.Bytes())
}

// renumber numbers the objects of ctx 1, 2, ... in the order a walk from
// the catalog, then the document information, first meets them, and drops
// objects nothing refers to.
func renumber(ctx *model.Context) error {
	if ctx.Root == nil {
		return errors.New("the written PDF has no catalog")
	}
	newNr := map[int]int{}
	var order []int
	var walk func(o types.Object) error
	walk = func(o types.Object) error {
		switch x := o.(type) {
		case types.IndirectRef:
			n := x.ObjectNumber.Value()
			if _, ok := newNr[n]; ok {
				return nil
			}
			e, ok := ctx.Table[n]
			if !ok || e.Free {
				return nil
			}
			obj, err := ctx.Dereference(x)
			if err != nil {
				return fmt.Errorf("object %d: %w", n, err)
			}
			order = append(order, n)
			newNr[n] = len(order)
			return walk(obj)
		case types.Dict:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if err := walk(x[k]); err != nil {
					return err
				}
			}
		case types.StreamDict:
			return walk(x.Dict)
		case types.Array:
			for _, v := range x {
				if err := walk(v); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(*ctx.Root); err != nil {
		return err
	}
	if ctx.Info != nil {
		if err := walk(*ctx.Info); err != nil {
			return err
		}
	}
	ref := func(ir types.IndirectRef) types.IndirectRef {
		if n, ok := newNr[ir.ObjectNumber.Value()]; ok {
			return *types.NewIndirectRef(n, 0)
		}
		// A reference to an object that does not exist reads as null.
		return *types.NewIndirectRef(0, 0)
	}
	var patch func(o types.Object) types.Object
	patch = func(o types.Object) types.Object {
		switch x := o.(type) {
		case types.IndirectRef:
			return ref(x)
		case types.Dict:
			for k, v := range x {
				x[k] = patch(v)
			}
		case types.StreamDict:
			patch(x.Dict)
			return x
		case types.Array:
			for i, v := range x {
				x[i] = patch(v)
			}
		}
		return o
	}
	table := make(map[int]*model.XRefTableEntry, len(order)+1)
	table[0] = model.NewFreeHeadXRefTableEntry()
	for _, old := range order {
		e := ctx.Table[old]
		zero := 0
		e.Generation = &zero
		e.Object = patch(e.Object)
		table[newNr[old]] = e
	}
	ctx.Table = table
	size := len(order) + 1
	ctx.Size = &size
	root := ref(*ctx.Root)
	ctx.Root = &root
	if ctx.Info != nil {
		info := ref(*ctx.Info)
		ctx.Info = &info
	}
	ctx.ID = nil
	return nil
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
	return d.output()
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
	// The form pdfcpu writes (types.DateString), in UTC, four-digit years.
	t := l.Date.UTC()
	date := fmt.Appendf(nil, "D:%04d%02d%02d%02d%02d%02d+00'00'",
		min(max(t.Year(), 0), 9999), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second())
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

// syntaxTokens counts the tokens of a PDF's syntax outside its streams,
// stopping just past limit; a stream's data, from "stream" at the end of
// a line to "endstream", is skipped.
func syntaxTokens(data []byte, limit int) int {
	var c tokenCounter
	for i := 0; i < len(data) && c.n <= limit; i++ {
		if data[i] == 's' && !c.in && bytes.HasPrefix(data[i:], []byte("stream")) &&
			i+6 < len(data) && (data[i+6] == '\r' || data[i+6] == '\n') {
			end := bytes.Index(data[i+6:], []byte("endstream"))
			if end < 0 {
				break
			}
			i += 6 + end + len("endstream") - 1
			c.n++
			continue
		}
		c.add(data[i])
	}
	return c.n
}

// tokenCounter counts the tokens of PDF syntax written to it: a run of
// regular characters is one, and each delimiter is one.
type tokenCounter struct {
	n int
	// in says the last byte was part of a run of regular characters.
	in bool
}

func (c *tokenCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		c.add(b)
	}
	return len(p), nil
}

func (c *tokenCounter) add(b byte) {
	switch b {
	case 0, '\t', '\n', '\f', '\r', ' ':
		c.in = false
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		c.n++
		c.in = false
	default:
		if !c.in {
			c.n++
		}
		c.in = true
	}
}
