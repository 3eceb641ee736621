package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
)

// What drawing a letter's images costs. Each image is bounded on its own
// (MaxImagePixels, and an SVG's limits in svg.go), but a template may show
// many, and an SVG is drawn afresh for each size it prints at: a letter of
// a hundred full-page SVGs at their limit took minutes to draw. So what a
// letter's images cost together is counted, from the template and the
// images alone, before anything is drawn, and a letter that costs more
// than MaxDrawingCost is not drawn.
//
// The cost is counted in pixels of a plain colour drawn once (about 12 ns
// each): every pixel of a picture made costs pictureCost (a raster image
// decoded, flattened on white and encoded once however often it prints;
// an SVG drawn at 300 dpi, once for each size it prints at); an SVG costs
// svgByteCost a byte to read, once; and each time an SVG is drawn its
// shapes cost the area they cover (a gradient's ten times, as in the
// limit of one SVG), pathCost each and segmentCost for each line segment
// of their outlines.

// MaxDrawingCost is the most a letter's images may cost to draw: four
// raster images of MaxImagePixels, or one full-page SVG at the limits of
// one SVG (141 million) and most of another; at most a few seconds.
const MaxDrawingCost = 16 * MaxImagePixels

// Costs of drawing, in pixels of a plain colour drawn.
const (
	// pictureCost is a pixel of a picture made: decoded or drawn, made
	// grey, flattened on white and encoded for the PDF.
	pictureCost = 4
	// segmentCost is a line segment of an SVG's outlines, drawn.
	segmentCost = 2
	// pathCost is a shape of an SVG drawn, besides its area and segments.
	pathCost = 300
	// svgByteCost is a byte of an SVG read into shapes and measured.
	svgByteCost = 8
)

// MaxResourceBytes is the most a letter's images and fonts (its
// Resources) may come to, in bytes: each is held whole while the letter
// prints, and a letter may show a hundred, each up to 10 MiB; one of
// thirty 10 MiB images (8 x 8 pixels and a padding chunk) held 650 MB.
const MaxResourceBytes = 40 << 20

// ErrDrawingCost is the error, wrapped, of a letter whose images cost more
// than MaxDrawingCost to draw.
var ErrDrawingCost = errors.New("the letter's images cost too much to draw")

// DrawingProblem says why the images of l, an HTML letter as Render takes
// it (its template merged, its images in Resources), can not be drawn, or
// "" when they can: its Resources come to more than MaxResourceBytes, they
// cost more than MaxDrawingCost, or one can not be read. Only the images
// given in l.Resources are counted, so a caller that has some of them
// (those it stores, not those at a URL) learns whether those alone cost
// too much. Nothing is drawn.
func DrawingProblem(l Letter) string {
	if l.Type != "text/html" {
		return ""
	}
	n := 0
	for _, r := range l.Resources {
		n += len(r.Data)
	}
	if n > MaxResourceBytes {
		return fmt.Sprintf("the letter's images and fonts come to more than %d MiB, the most one letter prints: show fewer, or smaller files", MaxResourceBytes>>20)
	}
	blocks, _ := parseTemplate(fontSafe(string(l.Content)))
	if _, err := readImages(blocks, l.Resources); err != nil {
		return err.Error()
	}
	return ""
}

// readImages counts what drawing the images blocks show from resources
// costs, reading each SVG once, and returns the SVGs read by source; it
// stops at the first image that can not be read, or that takes the cost
// past MaxDrawingCost (an error wrapping ErrDrawingCost). An image not in
// resources is not counted.
func readImages(blocks []block, resources map[string]Resource) (map[string]*svgImage, error) {
	svgs := map[string]*svgImage{}
	counted := map[string]bool{}
	var cost float64
	for _, b := range blocks {
		if b.image == nil || b.image.src == "" {
			continue
		}
		src := b.image.src
		res, given := resources[src]
		if !given {
			continue
		}
		var what float64
		if isSVGResource(res) {
			s, read := svgs[src]
			if !read {
				var err error
				if s, err = readSVG(res.Data); err != nil {
					return nil, err
				}
				svgs[src] = s
				cost += svgByteCost * float64(len(res.Data))
			}
			w, h := printedSize(*b.image, s.wPt, s.hPt, columnWidth(b.indent))
			key := src + "\x00" + svgSizeKey(w, h)
			if counted[key] {
				continue
			}
			counted[key] = true
			what = s.drawingCost(w, h)
		} else {
			if counted[src] {
				continue
			}
			counted[src] = true
			cfg, _, err := image.DecodeConfig(bytes.NewReader(res.Data))
			if err != nil {
				return nil, fmt.Errorf("decode image: %w", err)
			}
			what = pictureCost * float64(cfg.Width) * float64(cfg.Height)
		}
		if cost += what; cost > MaxDrawingCost {
			return nil, fmt.Errorf("%w: they cost at least %d million pixels drawn, and at most %d million are drawn for one letter; show fewer images or smaller ones, simplify the SVGs, or show each SVG at fewer sizes",
				ErrDrawingCost, int64(math.Floor(cost/1e6)), MaxDrawingCost/1_000_000)
		}
	}
	return svgs, nil
}

// isSVGResource reports whether an image given is an SVG.
func isSVGResource(res Resource) bool {
	return res.Type == "image/svg+xml" || ResourceType(res.Data) == "image/svg+xml"
}

// svgSizeKey names the size, in points, an SVG is drawn for: one drawing
// serves every place it prints at that size.
func svgSizeKey(w, h float64) string {
	return fmt.Sprintf("%.2fx%.2f", w, h)
}

// drawingCost is what drawing the SVG for w x h points costs: its picture
// at MinImageDPI, the area its shapes cover in it, the shapes and their
// segments.
func (s *svgImage) drawingCost(w, h float64) float64 {
	pw, ph := rasterSize(w, h)
	px := float64(pw) * float64(ph)
	return px*(pictureCost+s.overdraw) + pathCost*float64(len(s.icon.SVGPaths)) + segmentCost*float64(s.segments)
}
