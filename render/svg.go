package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/fyne-io/oksvg"
	"github.com/srwiley/rasterx"
	"golang.org/x/image/math/fixed"
	"golang.org/x/net/html/charset"
)

// SVG images. An SVG is untrusted input: it is read here into a drawing of
// shapes alone (paths, basic shapes, groups, gradients and <use> of its own
// definitions), and nothing it names is ever fetched. What would draw
// wrongly (text, embedded images, clipping, masks, patterns, markers,
// filters) is refused when the SVG is stored, as is one too large or too
// complex to draw in good time, so that a letter never fails when it is
// printed. An SVG prints as a picture drawn at MinImageDPI for the size it
// prints at, so it is always sharp: the DPI rule of raster images never
// refuses it.

// MaxSVGBytes is the largest SVG that prints.
const MaxSVGBytes = 1 << 20

// Limits on an SVG's complexity: its elements (after <use> is expanded),
// how deep they nest, the line segments its outlines make, the area its
// shapes cover, in times the picture's own area (each shape costs the area
// of its bounding box to draw), and the stops of a gradient (every pixel a
// gradient fills looks its colour up among them, one after another).
const (
	maxSVGElements      = 10000
	maxSVGDepth         = 64
	maxSVGSegments      = 250_000
	maxSVGOverdraw      = 20
	maxSVGGradientStops = 32
)

// svgGradientCost is what a pixel a gradient fills costs to draw, in pixels
// of a plain colour: its colour is worked out pixel by pixel, about ten
// times the work (a full page drawn over 19 times takes 1.2 s in a plain
// colour, 12 s in a linear or radial gradient).
const svgGradientCost = 10

// svgNS is the SVG namespace.
const svgNS = "http://www.w3.org/2000/svg"

// svgKept are the elements drawn: each kept, under its own name.
var svgKept = map[string]bool{
	"svg": true, "g": true, "path": true, "rect": true, "circle": true, "ellipse": true,
	"line": true, "polyline": true, "polygon": true, "defs": true, "linearGradient": true,
	"radialGradient": true, "stop": true, "use": true, "style": true, "title": true, "desc": true,
}

// svgAsGroup are containers drawn as a group.
var svgAsGroup = map[string]bool{"a": true, "switch": true}

// svgRefused are the elements that would draw wrongly, and what to do
// instead.
var svgRefused = map[string]string{
	"text":          "convert text to outlines (paths)",
	"tspan":         "convert text to outlines (paths)",
	"textPath":      "convert text to outlines (paths)",
	"image":         "an SVG may not embed or link images: upload the image as an image asset of its own",
	"foreignObject": "an SVG may hold shapes only",
	"clipPath":      "apply the clipping to the shapes (flatten it)",
	"mask":          "apply the mask to the shapes (flatten it)",
	"pattern":       "fill with a colour or gradient instead",
	"marker":        "convert markers to shapes",
	"symbol":        "use <g> in <defs> instead",
	"filter":        "an SVG may not use filter effects",
}

// svgImage is an SVG read: its drawing, its viewBox, its size in points,
// and what it costs to draw (checkCost): the line segments its outlines
// make and the area its shapes cover, in times its own area, at the
// largest size it is drawn at.
type svgImage struct {
	icon     *oksvg.SvgIcon
	vx, vy   float64
	vw, vh   float64
	wPt, hPt float64
	segments int
	overdraw float64
}

// readSVG reads an SVG, or says in words a person can act on why it does
// not print.
func readSVG(data []byte) (img *svgImage, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, errors.New("the SVG can not be read: it is damaged")
		}
	}()
	if len(data) > MaxSVGBytes {
		return nil, fmt.Errorf("the SVG is %d bytes; at most %d are allowed", len(data), MaxSVGBytes)
	}
	clean, root, err := cleanSVG(data)
	if err != nil {
		return nil, err
	}
	icon, err := oksvg.ReadIconStream(bytes.NewReader(clean), oksvg.StrictErrorMode)
	if err != nil {
		return nil, fmt.Errorf("the SVG can not be read: %w", err)
	}
	img = &svgImage{icon: icon}
	if err := img.size(root); err != nil {
		return nil, err
	}
	if err := img.checkCost(); err != nil {
		return nil, err
	}
	return img, nil
}

// cleanSVG rewrites an SVG as the elements oksvg draws and nothing else,
// checking its limits: elements of other namespaces and those that draw
// nothing (metadata, scripts, animation) are left out, those that would
// draw wrongly refused. It returns the SVG rewritten and its root.
func cleanSVG(data []byte) ([]byte, xml.StartElement, error) {
	var root xml.StartElement
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = charset.NewReaderLabel
	var out bytes.Buffer
	enc := xml.NewEncoder(&out)
	var stack []bool // whether each open element is written
	skipping := 0    // depth inside an element left out
	elements, uses, inDefs, defsElements := 0, 0, 0, 0
	stops := 0 // of the gradient last opened
	readErr := func(err error) error { return fmt.Errorf("the SVG can not be read: %w", err) }
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, root, readErr(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elements++
			if elements > maxSVGElements {
				return nil, root, fmt.Errorf("the SVG has more than %d elements; simplify it", maxSVGElements)
			}
			if len(stack) >= maxSVGDepth {
				return nil, root, fmt.Errorf("the SVG nests elements more than %d deep; simplify it", maxSVGDepth)
			}
			name := t.Name.Local
			ours := t.Name.Space == "" || t.Name.Space == svgNS
			if len(stack) == 0 {
				if !ours || name != "svg" {
					return nil, root, fmt.Errorf("the data is not an SVG image: its root element is <%s>, not <svg>", name)
				}
				root = t
			} else if ours && name == "svg" {
				return nil, root, errors.New("the SVG has an <svg> inside another; flatten it")
			}
			if ours {
				if how, refused := svgRefused[name]; refused && skipping == 0 {
					return nil, root, fmt.Errorf("the SVG has a <%s> element, which a letter can not print: %s", name, how)
				}
			}
			keep := skipping == 0 && ours && (svgKept[name] || svgAsGroup[name])
			if !keep {
				skipping++
				stack = append(stack, false)
				continue
			}
			if svgAsGroup[name] {
				name = "g"
			}
			switch name {
			case "defs":
				inDefs++
			case "use":
				if inDefs > 0 {
					return nil, root, errors.New("the SVG has a <use> inside <defs>, which a letter can not print; use the shapes themselves")
				}
				uses++
			case "linearGradient", "radialGradient":
				stops = 0
			case "stop":
				if stops++; stops > maxSVGGradientStops {
					return nil, root, fmt.Errorf("the SVG has a gradient of more than %d stops; simplify it", maxSVGGradientStops)
				}
			}
			if inDefs > 0 {
				defsElements++
			}
			el := xml.StartElement{Name: xml.Name{Local: name}}
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "" && a.Name.Local != "xmlns":
				case a.Name.Local == "href" && a.Name.Space != "xmlns":
					// xlink:href, as SVG 2's href.
				default:
					continue
				}
				if a.Name.Local == "href" && name != "use" {
					// A link, or a reference oksvg does not follow.
					continue
				}
				if a.Name.Local == "href" && !strings.HasPrefix(a.Value, "#") {
					return nil, root, fmt.Errorf("the SVG refers to %q; an SVG may refer only to its own parts (#id)", a.Value)
				}
				if len(stack) == 0 && (a.Name.Local == "width" || a.Name.Local == "height" || a.Name.Local == "x" || a.Name.Local == "y") {
					// The root's size is read here (size), in more units
					// than oksvg knows.
					continue
				}
				el.Attr = append(el.Attr, xml.Attr{Name: xml.Name{Local: a.Name.Local}, Value: a.Value})
			}
			if name == "rect" {
				el.Attr = roundedRect(el.Attr)
			}
			if err := enc.EncodeToken(el); err != nil {
				return nil, root, readErr(err)
			}
			stack = append(stack, true)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, root, readErr(errors.New("unbalanced end tag"))
			}
			kept := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !kept {
				skipping--
				continue
			}
			name := t.Name.Local
			if svgAsGroup[name] {
				name = "g"
			}
			if name == "defs" {
				inDefs--
			}
			if err := enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: name}}); err != nil {
				return nil, root, readErr(err)
			}
		case xml.CharData:
			if skipping == 0 && len(stack) > 0 {
				if err := enc.EncodeToken(t); err != nil {
					return nil, root, readErr(err)
				}
			}
		}
	}
	if root.Name.Local == "" {
		return nil, root, errors.New("the data is not an SVG image: it has no <svg> element")
	}
	if elements+uses*defsElements > maxSVGElements {
		return nil, root, fmt.Errorf("the SVG has more than %d elements once its <use> elements are expanded; simplify it", maxSVGElements)
	}
	if err := enc.Flush(); err != nil {
		return nil, root, readErr(err)
	}
	return out.Bytes(), root, nil
}

// roundedRect gives a <rect> with one of rx and ry the other too, as SVG
// does: oksvg takes the one missing as 0, a square corner.
func roundedRect(attrs []xml.Attr) []xml.Attr {
	var rx, ry *xml.Attr
	for i := range attrs {
		switch attrs[i].Name.Local {
		case "rx":
			rx = &attrs[i]
		case "ry":
			ry = &attrs[i]
		}
	}
	switch {
	case rx != nil && ry == nil:
		return append(attrs, xml.Attr{Name: xml.Name{Local: "ry"}, Value: rx.Value})
	case ry != nil && rx == nil:
		return append(attrs, xml.Attr{Name: xml.Name{Local: "rx"}, Value: ry.Value})
	}
	return attrs
}

// svgUnits are points per unit of an SVG's width and height.
var svgUnits = map[string]float64{"": 0.75, "px": 0.75, "pt": 1, "pc": 12, "in": 72, "cm": 72 / 2.54, "mm": 72 / 25.4}

// svgLength reads an SVG's width or height, in points; false for what is
// not an absolute length (a percentage, or nothing).
func svgLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool {
		return (r < '0' || r > '9') && r != '.' && r != 'e' && r != 'E' && r != '+' && r != '-'
	})
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	per, ok := svgUnits[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || v <= 0 || math.IsInf(v, 0) {
		return 0, false
	}
	return v * per, true
}

// maxSVGSide is the longest side an SVG may declare, in points: 200 inches.
const maxSVGSide = 200 * 72

// size sets the SVG's viewBox and its size in points: its width and height
// (absolute lengths; CSS pixels when bare), the one missing from the
// viewBox's proportions, or the viewBox's own in CSS pixels.
func (s *svgImage) size(root xml.StartElement) error {
	var w, h float64
	var wOK, hOK, vbOK bool
	for _, a := range root.Attr {
		if a.Name.Space != "" {
			continue
		}
		switch a.Name.Local {
		case "width":
			w, wOK = svgLength(a.Value)
		case "height":
			h, hOK = svgLength(a.Value)
		case "viewBox":
			f := strings.FieldsFunc(a.Value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
			if len(f) != 4 {
				return fmt.Errorf("the SVG's viewBox %q is not four numbers", a.Value)
			}
			var v [4]float64
			for i, x := range f {
				n, err := strconv.ParseFloat(x, 64)
				if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
					return fmt.Errorf("the SVG's viewBox %q is not four numbers", a.Value)
				}
				v[i] = n
			}
			if v[2] <= 0 || v[3] <= 0 {
				return fmt.Errorf("the SVG's viewBox %q has no area", a.Value)
			}
			s.vx, s.vy, s.vw, s.vh, vbOK = v[0], v[1], v[2], v[3], true
		}
	}
	switch {
	case wOK && hOK:
	case wOK && vbOK:
		h = w * s.vh / s.vw
	case hOK && vbOK:
		w = h * s.vw / s.vh
	case vbOK:
		w, h = s.vw*0.75, s.vh*0.75
	default:
		return errors.New("the SVG's size is unknown: give its <svg> a viewBox, or a width and height")
	}
	if !vbOK {
		s.vw, s.vh = w/0.75, h/0.75
	}
	if w > maxSVGSide || h > maxSVGSide || w < 1 || h < 1 {
		return fmt.Errorf("the SVG is %.0f x %.0f points; each side must be from 1 point to %d inches", w, h, maxSVGSide/72)
	}
	s.wPt, s.hPt = w, h
	return nil
}

// svgCostRef is the longer side, in pixels, the SVG is drawn at to count
// what drawing it costs: the most it is drawn at, a page's text height at
// MinImageDPI.
const svgCostRef = imageMaxH * MinImageDPI / 72

// checkCost draws the SVG with a scanner that counts instead of drawing,
// and refuses it when drawing would cost too much: at the largest size it
// is drawn at, where a stroke's dashes are the most.
func (s *svgImage) checkCost() (err error) {
	pw, ph := s.pixels(svgCostRef/max(s.wPt, s.hPt), 1)
	c := &costScanner{}
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(error); !ok || !errors.Is(e, errSVGTooComplex) {
				panic(p) // readSVG's recover says the SVG is damaged
			}
			err = fmt.Errorf("the SVG draws more than %d line segments; simplify it", maxSVGSegments)
		}
	}()
	s.draw(c, pw, ph)
	s.segments, s.overdraw = c.segments, c.area/(float64(pw)*float64(ph))
	if c.area > maxSVGOverdraw*float64(pw)*float64(ph) {
		return fmt.Errorf("the SVG's shapes cover its area more than %d times over; simplify it", maxSVGOverdraw)
	}
	return nil
}

// pixels is the size in pixels of the SVG drawn at scale pixels a point,
// at least min on each side.
func (s *svgImage) pixels(scale float64, least int) (int, int) {
	return max(least, int(math.Ceil(s.wPt*scale-1e-9))), max(least, int(math.Ceil(s.hPt*scale-1e-9)))
}

// draw draws the SVG onto a pw x ph pixel picture through scanner, the
// viewBox fitted and centred (preserveAspectRatio's default).
func (s *svgImage) draw(scanner rasterx.Scanner, pw, ph int) {
	k := min(float64(pw)/s.vw, float64(ph)/s.vh)
	ox, oy := (float64(pw)-s.vw*k)/2, (float64(ph)-s.vh*k)/2
	t := rasterx.Identity.Translate(ox, oy).Scale(k, k).Translate(-s.vx, -s.vy)
	dasher := rasterx.NewDasher(pw, ph, scanner)
	for i := range s.icon.SVGPaths {
		p := &s.icon.SVGPaths[i]
		// oksvg strokes the outline once it is transformed, with the
		// line's width and dashes as they were given: they are scaled
		// here as the outline is.
		f := k * pathScale(p)
		width, offset, dash := p.LineWidth, p.DashOffset, p.Dash
		p.LineWidth, p.DashOffset, p.Dash = width*f, offset*f, make([]float64, len(dash))
		for j, v := range dash {
			p.Dash[j] = v * f
		}
		p.DrawTransformed(dasher, 1, t)
		p.LineWidth, p.DashOffset, p.Dash = width, offset, dash
	}
	// Each path keeps the last it was drawn with (oksvg's adder), and so
	// the picture and the rasterizer's buffers, as long as the SVG is kept:
	// a letter keeps every SVG it shows while it is drawn.
	dasher.Scanner = nil
}

// pathScale is how much a path's own transform (its transform attributes
// and its groups') scales lengths: the square root of the determinant.
// oksvg keeps the transform unexported; it is read, never changed.
func pathScale(p *oksvg.SvgPath) float64 {
	m := reflect.ValueOf(&p.PathStyle).Elem().FieldByName("mAdder").FieldByName("M")
	if !m.IsValid() {
		return 1
	}
	a, b, c, d := m.FieldByName("A").Float(), m.FieldByName("B").Float(), m.FieldByName("C").Float(), m.FieldByName("D").Float()
	if det := math.Abs(a*d - b*c); det > 0 && !math.IsInf(det, 0) {
		return math.Sqrt(det)
	}
	return 1
}

// raster draws the SVG at w x h points, at MinImageDPI, on a transparent
// ground.
func (s *svgImage) raster(w, h float64) image.Image {
	pw, ph := rasterSize(w, h)
	rgba := image.NewRGBA(image.Rect(0, 0, pw, ph))
	s.draw(rasterx.NewScannerGV(pw, ph, rgba, rgba.Bounds()), pw, ph)
	return rgba
}

// rasterSize is the size in pixels an SVG is drawn at for w x h points:
// MinImageDPI, at most MaxImagePixels.
func rasterSize(w, h float64) (pw, ph int) {
	scale := float64(MinImageDPI) / 72
	pw, ph = max(1, int(math.Ceil(w*scale-1e-9))), max(1, int(math.Ceil(h*scale-1e-9)))
	if n := float64(pw) * float64(ph); n > MaxImagePixels {
		f := math.Sqrt(MaxImagePixels / n)
		pw, ph = max(1, int(float64(pw)*f)), max(1, int(float64(ph)*f))
	}
	return pw, ph
}

// errSVGTooComplex stops a count of what drawing an SVG costs.
var errSVGTooComplex = errors.New("too complex")

// costScanner counts the line segments a drawing makes and the area of
// the bounding boxes of the shapes it fills, in pixels, those filled with a
// gradient at svgGradientCost times theirs.
type costScanner struct {
	segments   int
	area       float64
	minX, minY fixed.Int26_6
	maxX, maxY fixed.Int26_6
	open       bool
	gradient   bool // the colour set is a gradient's
}

func (c *costScanner) add(p fixed.Point26_6) {
	c.segments++
	if c.segments > maxSVGSegments {
		panic(errSVGTooComplex)
	}
	if !c.open {
		c.minX, c.maxX, c.minY, c.maxY, c.open = p.X, p.X, p.Y, p.Y, true
		return
	}
	c.minX, c.maxX = min(c.minX, p.X), max(c.maxX, p.X)
	c.minY, c.maxY = min(c.minY, p.Y), max(c.maxY, p.Y)
}

// Start begins a subpath.
func (c *costScanner) Start(a fixed.Point26_6) { c.add(a) }

// Line adds a line segment.
func (c *costScanner) Line(b fixed.Point26_6) { c.add(b) }

// Draw counts the area of the shape's bounding box.
func (c *costScanner) Draw() {
	if c.open {
		a := (float64(c.maxX-c.minX)/64 + 1) * (float64(c.maxY-c.minY)/64 + 1)
		if c.gradient {
			a *= svgGradientCost
		}
		c.area += a
	}
	c.open = false
}

// GetPathExtent is the shape's bounding box.
func (c *costScanner) GetPathExtent() fixed.Rectangle26_6 {
	return fixed.Rectangle26_6{Min: fixed.Point26_6{X: c.minX, Y: c.minY}, Max: fixed.Point26_6{X: c.maxX, Y: c.maxY}}
}

// SetBounds does nothing.
func (c *costScanner) SetBounds(int, int) {}

// SetColor notes whether the shapes are filled with a gradient: rasterx
// gives a gradient as a function of the pixel, a plain colour as itself.
func (c *costScanner) SetColor(clr any) {
	_, c.gradient = clr.(rasterx.ColorFunc)
}

// SetWinding does nothing.
func (c *costScanner) SetWinding(bool) {}

// Clear forgets the shape.
func (c *costScanner) Clear() { c.open = false }

// SetClip does nothing.
func (c *costScanner) SetClip(image.Rectangle) {}

// isSVG reports whether data starts as an SVG does: an <svg> element,
// perhaps after an XML declaration, comments and a document type.
func isSVG(data []byte) bool {
	head := data[:min(len(data), 4096)]
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(head, []byte("<svg")) {
		return true
	}
	if !bytes.HasPrefix(head, []byte("<?xml")) && !bytes.HasPrefix(head, []byte("<!--")) && !bytes.HasPrefix(head, []byte("<!DOCTYPE")) {
		return false
	}
	return bytes.Contains(head, []byte("<svg"))
}

// CheckSVG returns what keeps an SVG image from printing, or "" when it
// prints.
func CheckSVG(data []byte) string {
	s, err := readSVG(data)
	if err != nil {
		return err.Error()
	}
	// Drawn once small, so that nothing in it fails when it is printed.
	if err := s.tryRaster(); err != nil {
		return err.Error()
	}
	return ""
}

// tryRaster draws the SVG small, turning a failure into an error.
func (s *svgImage) tryRaster() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("the SVG can not be drawn: it is damaged")
		}
	}()
	// 64 pixels on the longer side.
	k := 64 * 72 / MinImageDPI / max(s.wPt, s.hPt)
	s.raster(s.wPt*k, s.hPt*k)
	return nil
}
