package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Images in templates: <img src="{{logo}}">, whose variable names an image
// given with the letter (Letter.Resources). An image is a block of its own,
// as wide as its width and height ask (attributes in CSS pixels, or style
// width and height in px, pt, in, cm, mm or % of the column), its aspect
// kept when only one is given; given neither, it prints at MinImageDPI,
// one image pixel a 300th of an inch (an SVG at its own size: its width
// and height, in CSS pixels when bare). It is made smaller, never larger, to
// fit the column and the page.

// MinImageDPI is the least resolution, in dots (image pixels) per inch at
// the size printed, that an image in a template may have: below it, print
// shows the pixels.
const MinImageDPI = 300

// Resource is an image or a font a template shows from a variable: its
// MIME type and its bytes.
type Resource struct {
	Type string
	Data []byte
}

// imageSpec is an <img> of a template.
type imageSpec struct {
	// src is the image's source as merged: a variable's value, the key of
	// its Resource.
	src  string
	w, h length
}

// length is a size asked for: points, or a percentage of the column's
// width; zero when not asked.
type length struct {
	v   float64
	pct bool
}

// imageSpecOf reads an <img>: style width and height win over the
// attributes, as in CSS.
func imageSpecOf(n *xhtml.Node) imageSpec {
	s := imageSpec{src: strings.TrimSpace(attr(n, "src"))}
	s.w, _ = parseLength(attr(n, "width"), true)
	s.h, _ = parseLength(attr(n, "height"), true)
	props := styleProps(n)
	if l, ok := parseLength(props["width"], false); ok {
		s.w = l
	}
	if l, ok := parseLength(props["height"], false); ok {
		s.h = l
	}
	if s.h.pct {
		// A percentage of a height the page does not fix: auto, as in CSS.
		s.h = length{}
	}
	return s
}

// cssUnits are points per unit.
var cssUnits = map[string]float64{"px": 0.75, "pt": 1, "in": 72, "cm": 72 / 2.54, "mm": 72 / 25.4, "pc": 12}

// parseLength reads a CSS length; bare numbers are pixels when bare is
// set (an HTML attribute). It reports false for what it can not read,
// auto included.
func parseLength(s string, bare bool) (length, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return length{}, false
	}
	if num, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || v <= 0 || math.IsInf(v, 0) {
			return length{}, false
		}
		return length{v: v, pct: true}, true
	}
	num, unit := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }); i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	if unit == "" {
		if !bare {
			return length{}, false
		}
		unit = "px"
	}
	per, ok := cssUnits[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || v <= 0 || math.IsInf(v, 0) {
		return length{}, false
	}
	return length{v: v * per}, true
}

// points is l in points in a column maxW wide.
func (l length) points(maxW float64) float64 {
	if l.pct {
		return l.v / 100 * maxW
	}
	return l.v
}

// atMinDPI is the size, in points, of a raster image of px x py pixels
// at MinImageDPI: its own size, which printedSize starts from.
func atMinDPI(px, py int) (w, h float64) {
	return float64(px) * 72 / MinImageDPI, float64(py) * 72 / MinImageDPI
}

// imageMaxH is the tallest an image prints: a page's text height.
const imageMaxH = pageH - marginTop - marginBottom

// printedSize is the size, in points, an image whose own size is natW x
// natH points prints at as s asks, in a column maxW wide. A raster
// image's own size is its pixels at MinImageDPI.
func printedSize(s imageSpec, natW, natH, maxW float64) (w, h float64) {
	w, h = s.w.points(maxW), s.h.points(maxW)
	switch {
	case w > 0 && h > 0:
	case w > 0:
		h = w * natH / natW
	case h > 0:
		w = h * natW / natH
	default:
		w, h = natW, natH
	}
	if w > maxW {
		w, h = maxW, h*maxW/w
	}
	if h > imageMaxH {
		w, h = w*imageMaxH/h, imageMaxH
	}
	return w, h
}

// dpi is the resolution of px x py pixels printed w x h points: the lower
// of the two directions'.
func dpi(px, py int, w, h float64) float64 {
	return min(float64(px)/(w/72), float64(py)/(h/72))
}

// ImageDPI returns the lowest resolution, in dots per inch, at which an
// HTML template prints an image of px x py pixels shown as <img
// src="{{name}}">, and false when the template shows no image from name.
// The template is as stored, before its variables are merged.
func ImageDPI(template []byte, name string, px, py int) (float64, bool) {
	if px <= 0 || py <= 0 {
		return 0, false
	}
	blocks, _ := parseTemplate(string(template))
	lowest, found := math.Inf(1), false
	for _, b := range blocks {
		if b.image == nil {
			continue
		}
		m := placeholderAt.FindStringSubmatch(b.image.src)
		if m == nil || len(m[0]) != len(b.image.src) || m[1] != name {
			continue
		}
		natW, natH := atMinDPI(px, py)
		w, h := printedSize(*b.image, natW, natH, columnWidth(b.indent))
		lowest, found = min(lowest, dpi(px, py, w, h)), true
	}
	return lowest, found
}

// TemplateResources returns the variables an HTML template shows as
// images (<img src="{{name}}">) and uses as fonts (@font-face src:
// url({{name}})), each once, in order of first use.
func TemplateResources(template []byte) (images, fonts []string) {
	z := xhtml.NewTokenizer(bytes.NewReader(template))
	add := func(list []string, src string) []string {
		m := placeholderAt.FindStringSubmatch(strings.TrimSpace(src))
		if m == nil {
			return list
		}
		for _, n := range list {
			if n == m[1] {
				return list
			}
		}
		return append(list, m[1])
	}
	inStyle := false
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return images, fonts
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			inStyle = tok.DataAtom == atom.Style
			if tok.DataAtom == atom.Img {
				for _, a := range tok.Attr {
					if a.Key == "src" {
						images = add(images, a.Val)
					}
				}
			}
		case xhtml.TextToken:
			if inStyle {
				for _, src := range fontSources(string(z.Text())) {
					fonts = add(fonts, src)
				}
			}
		case xhtml.EndTagToken:
			inStyle = false
		}
	}
}

// columnWidth is the width of the text column at an indent.
func columnWidth(indent float64) float64 {
	x0 := marginX + min(indent, (pageW-2*marginX)/2)
	return pageW - marginX - x0
}

// placedImage is an image registered with fpdf for a letter; for an SVG,
// the SVG read, registered at each size it prints at (by name and size).
type placedImage struct {
	name   string
	typ    string
	px, py int
	svg    *svgImage
}

// registerImage decodes an image and hands it to fpdf under name: a JPEG
// in colour as it is, anything else as an 8-bit PNG on white, grey unless
// the letter is in colour.
func (d *document) registerImage(name string, data []byte) (placedImage, error) {
	if msg := jpegProblem(data); msg != "" {
		return placedImage{}, errors.New(msg)
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return placedImage{}, fmt.Errorf("decode image: %w", err)
	}
	return d.registerPicture(name, img, format, data)
}

// registerSVG draws an SVG for w x h points at MinImageDPI and hands it
// to fpdf under name.
func (d *document) registerSVG(name string, s *svgImage, w, h float64) (placedImage, error) {
	p, err := d.registerPicture(name, s.raster(w, h), "svg", nil)
	p.svg = s
	return p, err
}

// registerPicture hands a decoded image to fpdf under name: one decoded
// from JPEG data in colour as data, anything else as an 8-bit PNG.
func (d *document) registerPicture(name string, img image.Image, format string, data []byte) (placedImage, error) {
	var reg []byte
	var err error
	typ := "png"
	switch {
	case d.color && format == "jpeg" && isYCbCrOrGray(img):
		reg, typ = data, "jpg"
	default:
		// fpdf reads neither interlaced nor 16-bit PNGs, and greyscale is
		// done here.
		reg, err = flatPNG(img, d.color)
		if err != nil {
			return placedImage{}, err
		}
	}
	d.pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: typ}, bytes.NewReader(reg))
	if d.pdf.Err() {
		return placedImage{}, d.pdf.Error()
	}
	b := img.Bounds()
	return placedImage{name: name, typ: typ, px: b.Dx(), py: b.Dy()}, nil
}

// drawImage prints a template's image from the current position, in a
// column at x0 maxW wide, aligned as the text around it. An image whose
// source is empty (a variable with no value) prints nothing.
func (d *document) drawImage(s imageSpec, align string, x0, maxW float64) error {
	if s.src == "" {
		return nil
	}
	p, ok := d.images[s.src]
	if !ok {
		res, given := d.resources[s.src]
		if !given {
			return fmt.Errorf("the image %q was not given", s.src)
		}
		var err error
		name := fmt.Sprintf("img%d", len(d.images))
		if isSVGResource(res) {
			svg, read := d.svgs[s.src]
			if !read {
				if svg, err = readSVG(res.Data); err != nil {
					return err
				}
			}
			p = placedImage{name: name, svg: svg}
		} else if p, err = d.registerImage(name, res.Data); err != nil {
			return err
		}
		d.images[s.src] = p
	}
	natW, natH := atMinDPI(p.px, p.py)
	if p.svg != nil {
		natW, natH = p.svg.wPt, p.svg.hPt
	}
	w, h := printedSize(s, natW, natH, maxW)
	if p.svg != nil {
		// Drawn for the size it prints at, once for each size.
		name := p.name + "-" + svgSizeKey(w, h)
		sized, done := d.svgSizes[name]
		if !done {
			var err error
			if sized, err = d.registerSVG(name, p.svg, w, h); err != nil {
				return err
			}
			d.svgSizes[name] = sized
		}
		p = sized
	}
	if d.y+h > pageH-marginBottom && d.y > marginTop {
		d.newPage()
	}
	x := x0
	switch align {
	case "center":
		x += (maxW - w) / 2
	case "right":
		x += maxW - w
	}
	d.pdf.ImageOptions(p.name, x, d.y, w, h, false, fpdf.ImageOptions{ImageType: p.typ}, 0, "")
	d.y += h
	return nil
}
