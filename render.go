package lettershop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // decodes JPEG content
	"image/png"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/image/font/sfnt"

	"github.com/lettershop/lettershop/storage"
)

// Rendering defaults.
const (
	// DefaultDownloadTTL is how long a download link lasts unless
	// WithDownloadTTL says otherwise.
	DefaultDownloadTTL = 15 * time.Minute
	// DefaultRenderCacheSize is how many rendered letters are kept unless
	// WithRenderCacheSize says otherwise.
	DefaultRenderCacheSize = 256
	// MaxImagePixels is the largest image (width times height) a version
	// can hold: decoding one takes four bytes a pixel, and 16 megapixels
	// is well above a full page at 300 dpi (8.4 megapixels).
	MaxImagePixels = 16_000_000
)

// WithDownloadTTL sets how long a link from DownloadURL stays good. The
// default is DefaultDownloadTTL.
func WithDownloadTTL(d time.Duration) Option {
	return func(s *Service) { s.render.ttl = d }
}

// WithRenderCacheSize sets how many rendered letters are kept in memory, so
// repeated downloads of a letter are not rendered again. Zero or less turns
// the cache off. The default is DefaultRenderCacheSize.
func WithRenderCacheSize(n int) Option {
	return func(s *Service) { s.render.cacheSize, s.render.cacheSet = n, true }
}

// renderState is the Service's rendering and download-link state, set up on
// first use so that New need not know about it.
type renderState struct {
	ttl       time.Duration
	cacheSize int
	cacheSet  bool

	once    sync.Once
	cache   *lru.Cache[string, []byte]
	encKey  []byte
	signKey []byte
}

func (s *Service) renders() *renderState {
	r := &s.render
	r.once.Do(func() {
		if r.ttl <= 0 {
			r.ttl = DefaultDownloadTTL
		}
		if !r.cacheSet {
			r.cacheSize = DefaultRenderCacheSize
		}
		if r.cacheSize > 0 {
			r.cache, _ = lru.New[string, []byte](r.cacheSize)
		}
		// A key of its own, derived from the token key under a distinct label:
		// servers sharing WithTokenKey share links, and a pagination token can
		// never pass for a link signature or the other way round.
		link := hmacSum(s.tokenKey, []byte("lettershop download link v1"))
		r.encKey = hmacSum(link, []byte("encrypt"))
		r.signKey = hmacSum(link, []byte("sign"))
	})
	return r
}

// checkContent returns what is wrong with content of a MIME type, or "" when
// it can be stored: for a template, an image or a document, when it can be
// printed. It runs when a version is created or changed, so that a letter
// never fails at download time.
func checkContent(mime string, data []byte) string {
	switch mime {
	case "text/html":
		return checkTemplate(data)
	case "image/png", "image/jpeg":
		return checkImage(mime, data)
	case "application/pdf":
		// Imported pages (fpdf's gofpdi contrib) come out in a different object
		// order on every run, so a letter would not render to the same bytes
		// twice; refusing is clearer than printing something unrepeatable.
		return "PDF documents can not be printed: give the pages as PNG or JPEG images (one image asset each) or as an HTML template"
	case "font/ttf", "font/otf":
		if _, err := sfnt.Parse(data); err != nil {
			return "the font can not be read: " + err.Error()
		}
	}
	return ""
}

// printableContent returns why a letter can not be printed from content of a
// MIME type, or "" when it can.
func printableContent(mime string) string {
	switch mime {
	case "text/html", "image/png", "image/jpeg":
		return ""
	case "font/ttf", "font/otf":
		return "a font can not be printed on its own: use a template, image or document asset"
	default:
		return fmt.Sprintf("content of type %s can not be printed", mime)
	}
}

func checkImage(mime string, data []byte) string {
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
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
		return "the image can not be read: " + err.Error()
	}
	return ""
}

// RenderLetter returns the letter as it would be printed: a US Letter PDF
// whose first page carries the return address and the recipient in the
// windows of a #10 double-window envelope, followed by the content. The same
// letter always renders to the same bytes: every date in it comes from the
// letter (its sendDate, else its creation time), never from the clock.
func (s *Service) RenderLetter(ctx context.Context, account, id string) ([]byte, error) {
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return s.renderObserved(ctx, account, l)
}

// renderLetter renders l, from the cache when it was rendered since it last
// changed.
func (s *Service) renderLetter(ctx context.Context, account string, l *Letter) ([]byte, error) {
	r := s.renders()
	// The revision tells apart two changes made at one instant (a stopped
	// clock, or a store that keeps coarser times).
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%d", account, l.ID, l.ModifiedAt.UnixNano(), l.revision)
	if r.cache != nil {
		if b, ok := r.cache.Get(key); ok {
			noteCacheHit(ctx)
			return bytes.Clone(b), nil
		}
	}
	content, err := s.store.GetContent(ctx, account, l.snapshot.Hash)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, internal("render letter "+l.ID, fmt.Errorf("content %s is gone: %w", l.snapshot.Hash, err))
	}
	if err != nil {
		return nil, storeErr("render letter", err)
	}
	b, err := renderPDF(l, content)
	if err != nil {
		return nil, internal("render letter "+l.ID, err)
	}
	if r.cache != nil {
		r.cache.Add(key, bytes.Clone(b))
	}
	return b, nil
}

// letterDate is the date a letter carries: its send date, else the day it
// was made.
func letterDate(l *Letter) time.Time {
	if t, err := time.Parse(time.DateOnly, l.SendDate); err == nil {
		return t
	}
	return l.CreatedAt.UTC()
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

// renderPDF lays out a letter printed from content, which is of the type
// its snapshot says.
func renderPDF(l *Letter, content []byte) (out []byte, err error) {
	defer func() {
		// The layout code is ours and should not panic; if it ever does on
		// some input, that input fails alone rather than the server.
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("render panicked: %v", p)
		}
	}()
	color := l.Options.Print != nil && l.Options.Print.Color
	d := newDocument(l, color)
	d.addressPage(l)
	switch l.snapshot.Type {
	case "text/html":
		if !utf8.Valid(content) {
			return nil, errors.New("template is not UTF-8")
		}
		merged := MergeTemplate(string(content), l.snapshot.Merge, escapeHTML)
		d.flow(parseTemplate(fontSafe(merged)))
	case "image/png", "image/jpeg":
		if err := d.imagePage(content); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s", printableContent(l.snapshot.Type))
	}
	return d.finish()
}

// document is a PDF being made.
type document struct {
	pdf   *fpdf.Fpdf
	color bool
	fonts map[string]bool
	// y is where the next line goes on the current page.
	y float64
	// date is the letter's date as printed.
	date string
}

func newDocument(l *Letter, color bool) *document {
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: pageW, Ht: pageH}})
	when := letterDate(l)
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
	return &document{pdf: p, color: color, fonts: map[string]bool{}, date: when.Format("January 2, 2006")}
}

// finish puts page numbers on a letter of more than one page and returns
// the PDF.
func (d *document) finish() ([]byte, error) {
	if n := d.pdf.PageCount(); n > 1 {
		st := inlineStyle{size: 8.5, color: rgb{110, 110, 110}}
		for i := 1; i <= n; i++ {
			d.pdf.SetPage(i)
			d.setFont(st)
			d.setTextColor(st.color)
			label := fmt.Sprintf("Page %d of %d", i, n)
			d.pdf.Text(pageW-marginX-d.pdf.GetStringWidth(label), pageH-marginBottom/2, label)
		}
	}
	var b bytes.Buffer
	if err := d.pdf.Output(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (d *document) newPage() {
	d.pdf.AddPage()
	d.y = marginTop
}

// addressPage starts page one: the return address and the recipient in the
// envelope windows, and the date.
func (d *document) addressPage(l *Letter) {
	d.newPage()
	d.addressBlock(returnWindow, partyLines(l.Sender, ""), 8.5)
	d.addressBlock(recipientWindow, partyLines(l.Recipient, l.Recipient.NonAddressData), 10.5)
	st := inlineStyle{size: 10.5, color: rgb{}}
	d.setFont(st)
	d.setTextColor(st.color)
	w := d.pdf.GetStringWidth(d.date)
	d.pdf.Text(pageW-marginX-w, bodyTop+lineAscent(st.size, bodyLeading), d.date)
	d.y = bodyTop + 2*st.size*bodyLeading
}

// partyLines are the lines of a party's address block, in USPS order:
// above (the recipient's nonAddressData), name, organization, address.
func partyLines(p Party, above string) []string {
	var lines []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, fontSafe(s))
		}
	}
	add(above)
	if ind := p.Individual; ind != nil {
		name := ind.FullName
		if strings.TrimSpace(name) == "" {
			name = joinNonEmpty(" ", ind.Prefix, ind.FirstName, ind.MiddleName, ind.LastName, ind.Postfix)
		}
		// A title is not part of a postal address; it would only crowd the
		// window.
		add(name)
	}
	add(p.Organization)
	add(p.Address.AddressLine1)
	add(p.Address.AddressLine2)
	add(p.Address.LastLine)
	return lines
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
		d.setFont(st)
		fitted = d.wrapAddress(lines, b.w)
		// Lines that can not fit go from the top: the last line (city,
		// state, ZIP) matters most to the postal service.
		fitted = fitted[max(0, len(fitted)-int(b.h/(st.size*addressLeading))):]
	}
	d.setFont(st)
	d.setTextColor(rgb{})
	lead := st.size * addressLeading
	top := b.y + b.h - float64(len(fitted))*lead
	for i, ln := range fitted {
		for d.pdf.GetStringWidth(ln) > b.w && ln != "" {
			_, n := utf8.DecodeLastRuneInString(ln)
			ln = ln[:len(ln)-n]
		}
		d.pdf.Text(b.x, top+float64(i)*lead+lineAscent(st.size, addressLeading), ln)
	}
}

// minAddressSize is the smallest type an address is set in.
const minAddressSize = 6.5

// fitAddress finds the largest size at which lines fit in b, wrapped when
// wrap is set, and returns the lines as they fit; nil when none does.
func (d *document) fitAddress(b box, lines []string, size float64, wrap bool) (inlineStyle, []string) {
	st := inlineStyle{size: size}
	for ; st.size >= minAddressSize; st.size -= 0.25 {
		d.setFont(st)
		fitted := lines
		if wrap {
			fitted = d.wrapAddress(lines, b.w)
		}
		if float64(len(fitted))*st.size*addressLeading > b.h {
			continue
		}
		if !slices.ContainsFunc(fitted, func(ln string) bool { return d.pdf.GetStringWidth(ln) > b.w }) {
			return st, fitted
		}
	}
	return st, nil
}

// wrapAddress breaks lines wider than w at spaces, in the current font.
func (d *document) wrapAddress(lines []string, w float64) []string {
	var out []string
	for _, ln := range lines {
		cur := ""
		for _, word := range strings.Fields(ln) {
			switch {
			case cur == "":
				cur = word
			case d.pdf.GetStringWidth(cur+" "+word) <= w:
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

// imagePage puts an image on a page of its own: at 150 dpi, or smaller to
// fit within the margins, centred.
func (d *document) imagePage(data []byte) error {
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("decode image: %w", err)
	}
	var reg []byte
	typ := "png"
	switch {
	case d.color && format == "jpeg" && isYCbCrOrGray(img):
		reg, typ = data, "jpg"
	default:
		// Re-encoded as 8-bit PNG on a white ground: fpdf reads neither
		// interlaced nor 16-bit PNGs, and greyscale is done here.
		reg, err = flatPNG(img, d.color)
		if err != nil {
			return err
		}
	}
	d.pdf.RegisterImageOptionsReader("content", fpdf.ImageOptions{ImageType: typ}, bytes.NewReader(reg))
	if d.pdf.Err() {
		return d.pdf.Error()
	}
	bounds := img.Bounds()
	w, h := float64(bounds.Dx())*72/150, float64(bounds.Dy())*72/150
	maxW, maxH := pageW-2*marginX, pageH-marginTop-marginBottom
	if scale := min(maxW/w, maxH/h); scale < 1 {
		w, h = w*scale, h*scale
	}
	d.newPage()
	d.pdf.ImageOptions("content", (pageW-w)/2, marginTop, w, h, false, fpdf.ImageOptions{ImageType: typ}, 0, "")
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
