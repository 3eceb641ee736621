// Package render draws letters: it lays out HTML templates, places images,
// imports PDF documents, and prints the address block in the windows of a
// #10 double-window envelope, all on US Letter pages. It knows pages, fonts,
// layout and PDF, and nothing of how letters are stored or where they are in
// their lifecycle: the caller hands it a Letter, a plain value, and gets
// back the PDF's bytes. The same Letter always renders to the same bytes.
package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif"  // decodes GIF content
	_ "image/jpeg" // decodes JPEG content
	"image/png"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
)

// MaxImagePixels is the largest image (width times height) that prints:
// decoding one takes four bytes a pixel, and 16 megapixels is well above a
// full page at 300 dpi (8.4 megapixels).
const MaxImagePixels = 16_000_000

// MaxTemplateBytes is the largest template that prints, in bytes, as it is
// stored and with its variables merged: laying a template out holds about
// fifty times its text in memory (20 MB of text took 1.7 GB and 14 s), and
// a megabyte is some two hundred pages of text.
const MaxTemplateBytes = 1 << 20

// Placement says where a letter printed from a PDF document carries its
// address block.
type Placement string

// Placements of the address block on a letter from a PDF document.
const (
	// InsertBlankPage adds a first page that carries the sender and the
	// recipient in the envelope windows; the document follows as it is.
	InsertBlankPage Placement = "insertBlankPage"
	// TopFirstPage prints the address block over the window areas of the
	// document's first page, on a white ground.
	TopFirstPage Placement = "topFirstPage"
)

// Letter is everything a letter prints, as plain values.
type Letter struct {
	// ID names the letter in the PDF's title and makes its file identifier.
	ID string
	// Description, when set, is the PDF's subject.
	Description string
	// Date is the letter's date: printed on an HTML or image letter's first
	// page, and the PDF's creation and modification date.
	Date time.Time
	// Color prints text and images in colour; otherwise in grey. Pages of a
	// PDF document print as they are.
	Color bool
	// Sender and Recipient are the lines of the two address blocks, top to
	// bottom; the last line is city, state and ZIP code.
	Sender, Recipient []string
	// Type is the content's MIME type: text/html, image/png, image/jpeg,
	// image/gif, image/svg+xml or application/pdf.
	Type string
	// Content is the content itself: for text/html, the template with its
	// variables merged.
	Content []byte
	// Placement is where a PDF document's address block goes; empty means
	// InsertBlankPage. Other content always starts with the address page.
	Placement Placement
	// Resources are the images and fonts a template shows from its
	// variables (<img src="{{logo}}">, @font-face src: url({{font}})), by
	// the value merged in the variable's place.
	Resources map[string]Resource
}

// Printable reports whether content of a MIME type can be printed as a
// letter.
func Printable(mime string) bool {
	switch mime {
	case "text/html", "image/png", "image/jpeg", "image/gif", "image/svg+xml", "application/pdf":
		return true
	}
	return false
}

// ResourceType returns the MIME type of an image or font a template can
// show, told by its first bytes, which say what they are where a server's
// media type is often wrong: image/png, image/jpeg, image/gif,
// image/svg+xml, font/ttf (TrueType, or OpenType, which CheckFont refuses)
// or font/woff2, and "" for data that is none.
func ResourceType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case bytes.HasPrefix(data, []byte{0, 1, 0, 0}), bytes.HasPrefix(data, []byte("true")), bytes.HasPrefix(data, []byte("OTTO")):
		return "font/ttf"
	case isWOFF2(data):
		return "font/woff2"
	case isSVG(data):
		return "image/svg+xml"
	}
	return ""
}

// CheckImage returns what keeps an image of a MIME type (image/png,
// image/jpeg, image/gif or image/svg+xml) from printing, or "" when it
// prints. A GIF prints its first frame.
func CheckImage(mime string, data []byte) string {
	if mime == "image/svg+xml" {
		return CheckSVG(data)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "the image can not be read: " + err.Error()
	}
	if want := strings.TrimPrefix(mime, "image/"); format != want {
		return fmt.Sprintf("the data is a %s image, not %s", format, want)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > MaxImagePixels {
		return fmt.Sprintf("the image is %dx%d pixels; at most %d pixels in all are allowed", cfg.Width, cfg.Height, MaxImagePixels)
	}
	if format == "jpeg" {
		if msg := jpegProblem(data); msg != "" {
			return msg
		}
	}
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
		return "the image can not be read: " + err.Error()
	}
	return ""
}

// Render returns the letter as printed: a US Letter PDF whose first page
// carries the return address and the recipient in the windows of a #10
// double-window envelope, followed by the content. Every date in it comes
// from l.Date, so the same Letter always renders to the same bytes.
func Render(l Letter) (out []byte, err error) {
	defer func() {
		// The layout code is ours and should not panic; if it ever does on
		// some input, that input fails alone rather than the server.
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("render panicked: %v", p)
		}
	}()
	if l.Type == "application/pdf" {
		return renderDocument(l)
	}
	d := newDocument(l)
	d.addressPage(l, true)
	switch l.Type {
	case "text/html":
		if !utf8.Valid(l.Content) {
			return nil, errors.New("template is not UTF-8")
		}
		if len(l.Content) > MaxTemplateBytes {
			return nil, fmt.Errorf("the template with its variables merged is %d bytes; at most %d print", len(l.Content), MaxTemplateBytes)
		}
		blocks, css := parseTemplate(fontSafe(string(l.Content)))
		if d.svgs, err = readImages(blocks, l.Resources); err != nil {
			return nil, err
		}
		if err := d.brandSlots(css, l.Resources); err != nil {
			return nil, err
		}
		d.flow(blocks)
		if d.err != nil {
			return nil, d.err
		}
	case "image/png", "image/jpeg", "image/gif", "image/svg+xml":
		if err := d.imagePage(l.Type, l.Content); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("content of type %s can not be printed", l.Type)
	}
	return d.finish()
}

// Page geometry, in points (1/72 inch), for US Letter.
const (
	pageW = 612.0
	pageH = 792.0
	// marginX is the left and right margin. It is also where the address
	// blocks start: inside both windows however far the sheet slides
	// sideways in the envelope.
	marginX      = 54.0
	marginTop    = 54.0
	marginBottom = 64.0
	// bodyTop is where the content starts on page one, below the recipient
	// window and above the first fold.
	bodyTop = 228.0
)

// The envelope windows as they fall on the sheet, for a #10 double-window
// envelope (4 1/8 x 9 1/2 in; top window 3 1/4 x 7/8 in and bottom window
// 4 x 1 in, both 5/8 in from the left, 2 3/8 in and 1 in from the bottom)
// and a sheet folded in thirds that sits at the bottom of the envelope:
// the top window spans 0.42 to 1.29 in from the top of the sheet, the
// bottom window 1.67 to 2.67 in. Each box is where text goes: the window
// less a margin for the sheet sliding up to a quarter inch sideways and a
// little upwards. Blocks sit on the box's bottom edge, so if the sheet
// rides up the last line (city, state, ZIP) is the last to be hidden.
var (
	returnWindow    = box{x: marginX, y: 36, w: 170, h: 52}
	recipientWindow = box{x: marginX, y: 126, w: 224, h: 60}
)

type box struct{ x, y, w, h float64 }

// document is a PDF being made.
type document struct {
	pdf   *fpdf.Fpdf
	color bool
	// faces are the faces measured with, uses those printed with, by
	// slot: the letter fonts by faceIndex, then the template's brand
	// fonts.
	faces []*face
	uses  []*fontUse
	// brand is the slot of each brand family's face by style (see
	// brandSlots).
	brand [][4]int
	// resources are the letter's images and fonts by source; images
	// those registered with fpdf.
	resources map[string]Resource
	images    map[string]placedImage
	// svgs are the SVGs read before drawing (readImages), by source.
	svgs map[string]*svgImage
	// svgSizes are the SVGs drawn, by name and the size they print at.
	svgSizes map[string]placedImage
	// err is the first error met while laying out.
	err error
	// curFace and curSize are fpdf's current font; curFace is -1 when fpdf
	// may be on a page whose stream has another.
	curFace int
	curSize float64
	// y is where the next line goes on the current page.
	y float64
	// date is the letter's date as printed.
	date string
}

func newDocument(l Letter) *document {
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: pageW, Ht: pageH}})
	when := l.Date
	p.SetCreationDate(when)
	p.SetModificationDate(when)
	p.SetCatalogSort(true)
	p.SetProducer("lettershop", false)
	p.SetCreator("lettershop", false)
	p.SetTitle("Letter "+l.ID, true)
	if l.Description != "" {
		p.SetSubject(l.Description, true)
	}
	p.SetAutoPageBreak(false, 0)
	p.SetMargins(0, 0, 0)
	// Streams are compressed when the fonts are embedded (embedFonts),
	// with a compressor kept from letter to letter.
	p.SetCompression(false)
	return &document{
		pdf: p, color: l.Color, curFace: -1, date: when.Format("January 2, 2006"),
		faces: make([]*face, len(fontKeys)), uses: make([]*fontUse, len(fontKeys)),
		resources: l.Resources, images: map[string]placedImage{}, svgSizes: map[string]placedImage{},
	}
}

// finish puts page numbers on a letter of more than one page and returns
// the PDF.
func (d *document) finish() ([]byte, error) {
	if n := d.pdf.PageCount(); n > 1 {
		st := inlineStyle{size: 8.5, color: rgb{110, 110, 110}}
		for i := 1; i <= n; i++ {
			d.pdf.SetPage(i)
			d.curFace = -1
			label := fmt.Sprintf("Page %d of %d", i, n)
			d.text(pageW-marginX-d.width(label, st), pageH-marginBottom/2, label, st)
		}
	}
	return d.output()
}

// output is the PDF as drawn, with its fonts embedded.
func (d *document) output() ([]byte, error) {
	var b bytes.Buffer
	if err := d.pdf.Output(&b); err != nil {
		return nil, err
	}
	return embedFonts(b.Bytes(), d.uses)
}

func (d *document) newPage() {
	d.pdf.AddPage()
	d.y = marginTop
}

// addressPage starts page one: the return address and the recipient in the
// envelope windows, and the date when dated.
func (d *document) addressPage(l Letter, dated bool) {
	d.newPage()
	d.addressBlock(returnWindow, fontSafeLines(l.Sender), 8.5)
	d.addressBlock(recipientWindow, fontSafeLines(l.Recipient), 10.5)
	if !dated {
		return
	}
	st := inlineStyle{size: 10.5, color: rgb{}}
	w := d.width(d.date, st)
	d.text(pageW-marginX-w, bodyTop+lineAscent(st.size, bodyLeading), d.date, st)
	d.y = bodyTop + 2*st.size*bodyLeading
}

// fontSafeLines is lines made fontSafe.
func fontSafeLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, ln := range lines {
		out[i] = fontSafe(ln)
	}
	return out
}

// addressLeading is the line height of an address block, in font sizes.
const addressLeading = 1.18

// addressBlock prints lines at the bottom of b in the largest size up to
// size, and no smaller than minAddressSize, at which they fit. Lines are
// kept whole if any size allows; otherwise long lines wrap at spaces, and
// whatever still does not fit is cut rather than run out of the window.
func (d *document) addressBlock(b box, lines []string, size float64) {
	st, fitted := d.fitAddress(b, lines, size, false)
	if fitted == nil {
		st, fitted = d.fitAddress(b, lines, size, true)
	}
	if fitted == nil {
		st.size = minAddressSize
		fitted = d.wrapAddress(lines, b.w, st)
		// Lines that can not fit go from the top: the last line (city,
		// state, ZIP) matters most to the postal service.
		fitted = fitted[max(0, len(fitted)-int(b.h/(st.size*addressLeading))):]
	}
	lead := st.size * addressLeading
	top := b.y + b.h - float64(len(fitted))*lead
	for i, ln := range fitted {
		for d.width(ln, st) > b.w && ln != "" {
			_, n := utf8.DecodeLastRuneInString(ln)
			ln = ln[:len(ln)-n]
		}
		d.text(b.x, top+float64(i)*lead+lineAscent(st.size, addressLeading), ln, st)
	}
}

// minAddressSize is the smallest type an address is set in.
const minAddressSize = 6.5

// fitAddress finds the largest size at which lines fit in b, wrapped when
// wrap is set, and returns the lines as they fit; nil when none does.
func (d *document) fitAddress(b box, lines []string, size float64, wrap bool) (inlineStyle, []string) {
	st := inlineStyle{size: size}
	for ; st.size >= minAddressSize; st.size -= 0.25 {
		fitted := lines
		if wrap {
			fitted = d.wrapAddress(lines, b.w, st)
		}
		if float64(len(fitted))*st.size*addressLeading > b.h {
			continue
		}
		if !slices.ContainsFunc(fitted, func(ln string) bool { return d.width(ln, st) > b.w }) {
			return st, fitted
		}
	}
	return st, nil
}

// wrapAddress breaks lines wider than w at spaces, in style st.
func (d *document) wrapAddress(lines []string, w float64, st inlineStyle) []string {
	var out []string
	for _, ln := range lines {
		cur := ""
		for _, word := range strings.Fields(ln) {
			switch {
			case cur == "":
				cur = word
			case d.width(cur+" "+word, st) <= w:
				cur += " " + word
			default:
				out = append(out, cur)
				cur = word
			}
		}
		out = append(out, cur)
	}
	return out
}

// imagePage puts an image on a page of its own: a raster image at 150
// dpi, an SVG at its own size, or smaller to fit within the margins,
// centred.
func (d *document) imagePage(mime string, data []byte) error {
	var w, h float64
	var svg *svgImage
	var p placedImage
	var err error
	if mime == "image/svg+xml" {
		if svg, err = readSVG(data); err != nil {
			return err
		}
		w, h = svg.wPt, svg.hPt
	} else {
		if p, err = d.registerImage("content", data); err != nil {
			return err
		}
		w, h = float64(p.px)*72/150, float64(p.py)*72/150
	}
	maxW, maxH := pageW-2*marginX, pageH-marginTop-marginBottom
	if scale := min(maxW/w, maxH/h); scale < 1 {
		w, h = w*scale, h*scale
	}
	if svg != nil {
		if p, err = d.registerSVG("content", svg, w, h); err != nil {
			return err
		}
	}
	d.newPage()
	d.pdf.ImageOptions("content", (pageW-w)/2, marginTop, w, h, false, fpdf.ImageOptions{ImageType: p.typ}, 0, "")
	return nil
}

func isYCbCrOrGray(img image.Image) bool {
	switch img.(type) {
	case *image.YCbCr, *image.Gray:
		return true
	}
	return false
}

// flatPNG draws img on white and encodes it as an 8-bit PNG, in colour or
// grey.
func flatPNG(img image.Image, colour bool) ([]byte, error) {
	b := img.Bounds()
	var dst draw.Image
	if colour {
		dst = image.NewRGBA(b)
	} else {
		dst = image.NewGray(b)
	}
	draw.Draw(dst, b, image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, b, img, b.Min, draw.Over)
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, dst); err != nil {
		return nil, fmt.Errorf("encode image: %w", err)
	}
	return out.Bytes(), nil
}
