package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
)

// pngHeader is the start of a w x h PNG: enough to read its size, which
// is all the count of what a letter's images cost reads of a raster image.
func pngHeader(w, h int) []byte {
	var ihdr bytes.Buffer
	ihdr.WriteString("IHDR")
	binary.Write(&ihdr, binary.BigEndian, [2]uint32{uint32(w), uint32(h)})
	ihdr.Write([]byte{8, 0, 0, 0, 0}) // 8-bit grey, not interlaced
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(ihdr.Len()-4))
	b.Write(ihdr.Bytes())
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(ihdr.Bytes()))
	return b.Bytes()
}

// costLetter is an HTML letter showing each image of imgs (sources and
// their attributes) from resources.
func costLetter(resources map[string]Resource, imgs ...string) Letter {
	var tpl strings.Builder
	tpl.WriteString("<p>Images</p>")
	for _, img := range imgs {
		fmt.Fprintf(&tpl, "<img src=%s>", img)
	}
	return Letter{ID: "ltr_cost", Type: "text/html", Content: []byte(tpl.String()), Resources: resources,
		Sender: []string{"A", "Springfield, IL 62704"}, Recipient: []string{"B", "Portland, ME 04101"}}
}

// Raster images cost their pixels, pictureCost each, once however often
// they print: four of MaxImagePixels are what a letter may draw, and a
// pixel more is refused, before anything is decoded.
func TestDrawingCostOfRasterImages(t *testing.T) {
	full := pngHeader(4000, 4000) // MaxImagePixels
	res := map[string]Resource{
		"a": {Type: "image/png", Data: full}, "b": {Type: "image/png", Data: full},
		"c": {Type: "image/png", Data: full}, "d": {Type: "image/png", Data: full},
		"e": {Type: "image/png", Data: pngHeader(4000, 4001)},
		"f": {Type: "image/png", Data: pngHeader(1, 1)},
	}
	if 4*pictureCost*4000*4000 != MaxDrawingCost {
		t.Fatalf("four images of MaxImagePixels cost %d, not MaxDrawingCost", 4*pictureCost*4000*4000)
	}
	tests := []struct {
		name string
		imgs []string
		ok   bool
	}{
		{"four at MaxImagePixels", []string{"a", "b", "c", "d"}, true},
		{"each shown again and at other sizes", []string{"a", "b", "c", "d", "a width=100", "b width=200", "c", "d height=50"}, true},
		{"three and one a row larger", []string{"a", "b", "c", "e"}, false},
		{"four and one of a pixel", []string{"a", "b", "c", "d", "f"}, false},
		{"an image not given is not counted", []string{"a", "b", "c", "d", "https://cdn.example.com/x.png"}, true},
	}
	for _, tt := range tests {
		l := costLetter(res, tt.imgs...)
		msg := DrawingProblem(l)
		if tt.ok != (msg == "") {
			t.Errorf("%s: problem %q, want ok %v", tt.name, msg, tt.ok)
		}
		if tt.ok {
			continue
		}
		if !strings.Contains(msg, "at most 256 million are drawn for one letter") {
			t.Errorf("%s: problem %q, want it to say the limit", tt.name, msg)
		}
		// Render refuses it as it is: counting comes before decoding,
		// and these images are headers alone.
		if _, err := Render(l); !errors.Is(err, ErrDrawingCost) {
			t.Errorf("%s: Render = %v, want ErrDrawingCost", tt.name, err)
		}
	}
}

// fullPageSVG is a page-sized SVG that covers its area layers times in a
// plain colour.
func fullPageSVG(layers int) []byte {
	return []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="504pt" height="674pt" viewBox="0 0 504 674">` +
		strings.Repeat(`<rect width="504" height="674" fill="#888" fill-opacity="0.5"/>`, layers) + `</svg>`)
}

// An SVG is drawn for each size it prints at, and costs each time: its
// picture, the area its shapes cover and their segments. The sizes a
// letter may draw it at stop where their cost passes MaxDrawingCost.
func TestDrawingCostOfSVGSizes(t *testing.T) {
	data := fullPageSVG(19)
	s, err := readSVG(data)
	if err != nil {
		t.Fatal(err)
	}
	// The docs' figure: a full-page SVG at its limit.
	if c := s.drawingCost(504, 674); c < 135e6 || c > 145e6 {
		t.Errorf("a full-page SVG covering its area 19 times costs %.0f, want about 141 million", c)
	}
	res := map[string]Resource{"s": {Type: "image/svg+xml", Data: data}}
	var imgs []string
	var cost float64
	for w := 504; ; w-- {
		h := 674 * float64(w) / 504
		c := s.drawingCost(float64(w), h)
		if cost+c > MaxDrawingCost {
			break
		}
		cost += c
		imgs = append(imgs, fmt.Sprintf("s style=width:%dpt", w))
	}
	if n := len(imgs); n < 1 || n > 2 {
		t.Fatalf("%d sizes of a full-page SVG at its limit fit, want 1 or 2", n)
	}
	if msg := DrawingProblem(costLetter(res, imgs...)); msg != "" {
		t.Errorf("%d sizes costing %.0f: %s", len(imgs), cost, msg)
	}
	// The same sizes again cost nothing more: one drawing serves them.
	if msg := DrawingProblem(costLetter(res, append(imgs, imgs...)...)); msg != "" {
		t.Errorf("%d sizes, each twice: %s", len(imgs), msg)
	}
	over := append(imgs, fmt.Sprintf("s style=width:%dpt", 504-len(imgs)))
	if msg := DrawingProblem(costLetter(res, over...)); !strings.Contains(msg, "cost too much to draw") {
		t.Errorf("%d sizes: %q, want too much to draw", len(over), msg)
	}
	if _, err := Render(costLetter(res, over...)); !errors.Is(err, ErrDrawingCost) {
		t.Errorf("Render of %d sizes = %v, want ErrDrawingCost", len(over), err)
	}

	// A small SVG of many segments costs them each time it is drawn, at
	// however small a size.
	var path strings.Builder
	path.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="10pt" height="10pt" viewBox="0 0 100 100"><path fill="none" stroke="#000" d="M0 0`)
	for i := range 20000 {
		fmt.Fprintf(&path, " L%d %d", i*7%100, i*13%100)
	}
	path.WriteString(`"/></svg>`)
	small, err := readSVG([]byte(path.String()))
	if err != nil {
		t.Fatal(err)
	}
	if small.segments < 150_000 {
		t.Fatalf("%d segments, want nearly maxSVGSegments", small.segments)
	}
	per := segmentCost * float64(small.segments)
	n := int(MaxDrawingCost / per) // sizes whose segments alone fill the limit
	imgs = imgs[:0]
	for i := range n + 1 {
		imgs = append(imgs, fmt.Sprintf("m style=width:%.2fpt", 1+float64(i)/100))
	}
	res["m"] = Resource{Type: "image/svg+xml", Data: []byte(path.String())}
	if msg := DrawingProblem(costLetter(res, imgs...)); !strings.Contains(msg, "cost too much to draw") {
		t.Errorf("a 10 pt SVG of %d segments at %d sizes: %q, want too much to draw", small.segments, n+1, msg)
	}
	if msg := DrawingProblem(costLetter(res, imgs[:n/2]...)); msg != "" {
		t.Errorf("a 10 pt SVG of %d segments at %d sizes: %q", small.segments, n/2, msg)
	}
}

// An SVG costs its bytes to read, once however often it is drawn: a
// letter of many large SVGs shown small is refused for reading them.
func TestDrawingCostOfReadingSVGs(t *testing.T) {
	svg := func(i int) []byte {
		return []byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="10pt" height="10pt"><desc>%d %s</desc><rect width="5" height="5"/></svg>`,
			i, strings.Repeat("x", MaxSVGBytes-200)))
	}
	s, err := readSVG(svg(0))
	if err != nil {
		t.Fatal(err)
	}
	per := svgByteCost*float64(len(svg(0))) + s.drawingCost(10, 10)
	n := int(MaxDrawingCost / per)
	res := map[string]Resource{}
	var imgs []string
	for i := range n + 1 {
		src := fmt.Sprint("s", i)
		res[src] = Resource{Type: "image/svg+xml", Data: svg(i)}
		imgs = append(imgs, src, src) // shown twice, read once
	}
	if msg := DrawingProblem(costLetter(res, imgs[:2*n]...)); msg != "" {
		t.Errorf("%d SVGs of 1 MiB: %s", n, msg)
	}
	if msg := DrawingProblem(costLetter(res, imgs...)); !strings.Contains(msg, "cost too much to draw") {
		t.Errorf("%d SVGs of 1 MiB: %q, want too much to draw", n+1, msg)
	}
}

// Each shape costs something to draw, however small: an SVG of many
// shapes shown at many sizes is refused where its shapes add up.
func TestDrawingCostOfShapes(t *testing.T) {
	data := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10pt" height="10pt" viewBox="0 0 100 100">` +
		strings.Repeat(`<rect x="1" y="1" width="1" height="1"/>`, 9000) + `</svg>`)
	s, err := readSVG(data)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]Resource{"s": {Type: "image/svg+xml", Data: data}}
	cost := svgByteCost * float64(len(data))
	var imgs []string
	for i := 0; ; i++ {
		w := 1 + float64(i)/100
		c := s.drawingCost(w, w)
		if cost+c > MaxDrawingCost {
			break
		}
		cost += c
		imgs = append(imgs, fmt.Sprintf("s style=width:%.2fpt", w))
	}
	if msg := DrawingProblem(costLetter(res, imgs...)); msg != "" {
		t.Errorf("%d sizes: %s", len(imgs), msg)
	}
	over := append(imgs, fmt.Sprintf("s style=width:%.2fpt", 1+float64(len(imgs))/100))
	if msg := DrawingProblem(costLetter(res, over...)); !strings.Contains(msg, "cost too much to draw") {
		t.Errorf("%d sizes: %q, want too much to draw", len(over), msg)
	}
}

// A letter's images and fonts are held whole while it prints, so they may
// come to MaxResourceBytes at most, whatever they cost to draw: thirty
// 10 MiB images of 8 x 8 pixels held 650 MB.
func TestDrawingProblemOfResourceBytes(t *testing.T) {
	small := pngHeader(8, 8)
	padded := func(n int) []byte { return append(slices.Clip(small), make([]byte, n-len(small))...) }
	res := map[string]Resource{
		"a": {Type: "image/png", Data: padded(MaxResourceBytes / 2)},
		"b": {Type: "image/png", Data: padded(MaxResourceBytes / 2)},
	}
	if msg := DrawingProblem(costLetter(res, "a", "b")); msg != "" {
		t.Fatalf("MaxResourceBytes: %s, want none", msg)
	}
	res["c"] = Resource{Type: "font/ttf", Data: []byte{0}}
	if msg := DrawingProblem(costLetter(res, "a", "b")); !strings.Contains(msg, "come to more than 40 MiB") {
		t.Errorf("a byte more: %q, want the bytes named", msg)
	}
}
