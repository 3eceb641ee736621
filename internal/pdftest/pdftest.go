// Package pdftest reads rendered PDFs back for tests: the text of each
// page, the fonts and whether they are embedded, the colours text is
// printed in, images, links and dates; and makes images to print.
package pdftest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// PDF is what a test learns from a PDF by reading it back.
type PDF struct {
	// Pages holds the text of each page, a line per text row.
	Pages []string
	// Fonts maps each font's BaseFont to whether its glyphs are embedded.
	Fonts map[string]bool
	// Colors are the distinct fill colours text is printed in, "r g b".
	Colors []string
	// Images are the image XObjects of each page: "page:colorspace:filter".
	Images []string
	// ImageSizes are their sizes in pixels, in the same order: "WxH".
	ImageSizes []string
	// Links are the URIs of the link annotations.
	Links []string
	// CreationDate and ModDate are the document information dates.
	CreationDate, ModDate string
}

// Read reads b back, failing the test unless it is a readable PDF.
func Read(t testing.TB, b []byte) PDF {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.20q", b)
	}
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("read PDF: %v", err)
	}
	out := PDF{Fonts: map[string]bool{}}
	info := r.Trailer().Key("Info")
	out.CreationDate, out.ModDate = info.Key("CreationDate").Text(), info.Key("ModDate").Text()
	for n := 1; n <= r.NumPage(); n++ {
		p := r.Page(n)
		fonts := p.Resources().Key("Font")
		for _, name := range fonts.Keys() {
			f := fonts.Key(name)
			desc := f.Key("DescendantFonts").Index(0).Key("FontDescriptor")
			out.Fonts[f.Key("BaseFont").Name()] = !desc.Key("FontFile2").IsNull()
		}
		annots := p.V.Key("Annots")
		for i := 0; i < annots.Len(); i++ {
			out.Links = append(out.Links, annots.Index(i).Key("A").Key("URI").RawString())
		}
		text, images := pageText(p, fonts, &out.Colors)
		out.Pages = append(out.Pages, text)
		for _, x := range images {
			out.Images = append(out.Images, strconv.Itoa(n)+":"+x.Key("ColorSpace").Name()+":"+x.Key("Filter").Name())
			out.ImageSizes = append(out.ImageSizes, x.Key("Width").String()+"x"+x.Key("Height").String())
		}
	}
	return out
}

// pageText reads the text a page prints, and the images it draws. fpdf
// prints UTF-8 text in Type0 fonts whose codes are the characters' UTF-16
// units, so strings in those fonts are decoded as UTF-16BE.
func pageText(p pdf.Page, fonts pdf.Value, colors *[]string) (string, []pdf.Value) {
	var images []pdf.Value
	var (
		text    strings.Builder
		utf16BE bool
		lastY   = -1.0
		fill    string
	)
	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "Do":
			if x := p.Resources().Key("XObject").Key(args[0].Name()); x.Key("Subtype").Name() == "Image" {
				images = append(images, x)
			}
		case "rg":
			fill = args[0].String() + " " + args[1].String() + " " + args[2].String()
		case "Tf":
			utf16BE = fonts.Key(args[0].Name()).Key("Encoding").Name() == "Identity-H"
		case "Td":
			if y := args[1].Float64(); y != lastY {
				if lastY >= 0 {
					text.WriteString("\n")
				}
				lastY = y
			}
		case "Tj":
			s := args[0].RawString()
			if utf16BE {
				u := make([]uint16, len(s)/2)
				for i := range u {
					u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
				}
				s = string(utf16.Decode(u))
			}
			text.WriteString(s)
			if fill != "" && !slices.Contains(*colors, fill) {
				*colors = append(*colors, fill)
			}
		}
	})
	return text.String(), images
}

// PNG returns a w by h PNG image, base64-encoded as version content is.
func PNG(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// JPEG returns a w by h JPEG image, base64-encoded as version content is.
func JPEG(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), 90, uint8(y), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// GIF returns a w by h GIF image of two frames, base64-encoded as version
// content is: the first frame's left half transparent.
func GIF(t testing.TB, w, h int) string {
	t.Helper()
	frame := func(c uint8, clearLeft bool) *image.Paletted {
		img := image.NewPaletted(image.Rect(0, 0, w, h), append(color.Palette{color.Transparent}, palette.Plan9[:255]...))
		for y := range h {
			for x := range w {
				if clearLeft && x < w/2 {
					continue // index 0: transparent
				}
				img.Set(x, y, color.RGBA{uint8(x), c, uint8(y), 255})
			}
		}
		return img
	}
	first := frame(40, true)
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{first, frame(220, false)}, Delay: []int{50, 50}}); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}
