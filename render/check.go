package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"strings"

	"golang.org/x/image/font/sfnt"
)

// Checks of content against how a letter prints it: content stored or
// fetched, as a whole (CheckContent, FetchedProblem), and an image or font
// against where a template shows it from a variable (CheckResource,
// UseProblem, FetchedResource), and text a letter prints (TextProblem). Each returns what keeps the content from
// printing, in words a person can act on, or "" when it prints.

// CheckContent returns what is wrong with content of a MIME type, or ""
// when it can be stored: for a template, whose variables named resources
// may hold images or fonts, an image or a document, when it can be
// printed; a font, when it can be read. It runs where content is taken,
// so that a letter never fails when it is printed. No more content is
// checked at once than there are cores (checking): a check waits for a
// slot as long as ctx lets it, and returns ctx's error, checking nothing,
// when ctx ends first.
func CheckContent(ctx context.Context, mime string, data []byte, resources []string) (string, error) {
	if err := checking.Enter(ctx); err != nil {
		return "", err
	}
	defer checking.Leave()
	return checkContent(mime, data, resources), nil
}

// checkContent is CheckContent, for a caller holding a slot of checking.
func checkContent(mime string, data []byte, resources []string) string {
	switch mime {
	case "text/html":
		return CheckTemplate(data, resources)
	case "image/png", "image/jpeg", "image/gif", "image/svg+xml":
		return CheckImage(mime, data)
	case "application/pdf":
		return checkPDFPrints(data).Problem
	case "font/ttf", "font/otf":
		if isWOFF2(data) {
			return "the data is a WOFF2 font, not " + mime + ": store it as font/woff2"
		}
		if _, err := sfnt.Parse(data); err != nil {
			return "the font can not be read: " + err.Error()
		}
	case "font/woff2":
		if !isWOFF2(data) {
			return "the data is not a WOFF2 font: it does not start with wOF2"
		}
		sf, err := decodeWOFF2(data)
		if err != nil {
			return err.Error()
		}
		if _, err := sfnt.Parse(sf); err != nil {
			return "the font in the WOFF2 font can not be read: " + err.Error()
		}
	}
	return ""
}

// fetchedAs are the media types, besides its own, that a server may give
// content of each MIME type as: names in use before the types were
// registered, and application/octet-stream, bytes of no stated kind, which
// the checks of the content then judge alone (and, for an SVG, text/plain:
// what one with no XML declaration served with no type sniffs as). A
// template must come as text/html.
var fetchedAs = map[string][]string{
	"image/png":       {"application/octet-stream"},
	"image/jpeg":      {"image/jpg", "image/pjpeg", "application/octet-stream"},
	"image/gif":       {"application/octet-stream"},
	"image/svg+xml":   {"image/svg", "application/svg+xml", "text/xml", "application/xml", "text/plain", "application/octet-stream"},
	"application/pdf": {"application/x-pdf", "application/octet-stream"},
	"font/ttf":        {"font/sfnt", "application/font-sfnt", "application/x-font-ttf", "application/x-font-truetype", "application/octet-stream"},
	"font/otf":        {"font/sfnt", "application/font-sfnt", "application/x-font-opentype", "application/vnd.ms-opentype", "application/octet-stream"},
	"font/woff2":      {"application/font-woff2", "application/x-font-woff2", "application/octet-stream"},
}

// FetchedProblem says what keeps content fetched to stand as content of
// MIME type mime, served as mediaType, from doing so, or "": the media
// type must be mime (or a name of it), and the bytes pass the checks
// content given inline passes (CheckContent, waiting for a slot as long as
// ctx lets it: ctx's error when it ends first).
func FetchedProblem(ctx context.Context, mime, mediaType string, data []byte, resources []string) (string, error) {
	if mediaType != mime && !slices.Contains(fetchedAs[mime], mediaType) {
		if mediaType == "" {
			mediaType = "no type"
		}
		return fmt.Sprintf("the server gave %s, and the version holds %s: serve it as %s", mediaType, mime, mime), nil
	}
	if len(data) == 0 {
		return "the server gave no content", nil
	}
	return CheckContent(ctx, mime, data, resources)
}

// CheckStoredResource is CheckResource for content that passed
// CheckContent when it was stored: an SVG, checked whole then and in a way
// that does not depend on the template, is not read again here (what a
// letter's SVGs cost together is DrawingProblem's to count, reading each
// once, and stopping at the budget).
func CheckStoredResource(template []byte, name, mime string, data []byte) string {
	if mime == "image/svg+xml" {
		return ""
	}
	return CheckResource(template, name, mime, data)
}

// CheckResource says what keeps an image or a font of MIME type mime from
// printing where template uses it as {{name}}, or "" when it prints: a
// raster image must print at MinImageDPI or more (an SVG is drawn at that
// resolution for the size it prints at), a font must be one a letter can
// embed.
func CheckResource(template []byte, name, mime string, data []byte) string {
	if strings.HasPrefix(mime, "font/") {
		return CheckFont(data)
	}
	if mime == "image/svg+xml" {
		return CheckSVG(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "the image can not be read: " + err.Error()
	}
	dpi, shown := ImageDPI(template, name, cfg.Width, cfg.Height)
	if shown && dpi < MinImageDPI-1e-9 {
		return fmt.Sprintf("the image is %d x %d pixels and the template prints it at %d DPI; an image must print at %d DPI or more: use a larger image, or print it smaller",
			cfg.Width, cfg.Height, int(math.Floor(dpi+1e-9)), MinImageDPI)
	}
	return ""
}

// UseProblem says what keeps an image or font of MIME type mime, shown
// from variable name, from printing where template uses it, or "": the
// template must use it as what it is (an image in <img>, a font in
// @font-face), and it must pass CheckResource.
func UseProblem(template []byte, name, mime string, data []byte) string {
	images, fonts := TemplateResources(template)
	switch {
	case slices.Contains(images, name) && !strings.HasPrefix(mime, "image/"):
		return fmt.Sprintf("the template shows {{%s}} as an image, and the asset is a font", name)
	case slices.Contains(fonts, name) && !strings.HasPrefix(mime, "font/"):
		return fmt.Sprintf("the template uses {{%s}} as a font, and the asset is an image", name)
	}
	return CheckResource(template, name, mime, data)
}

// TextProblem says what keeps s, text a letter prints in its fonts, from
// printing, or "" when it prints: letters of a script the fonts do not
// cover (Unprintable).
func TextProblem(s string) string {
	missing := Unprintable(s)
	if len(missing) == 0 {
		return ""
	}
	var list []string
	for _, r := range missing {
		list = append(list, fmt.Sprintf("%q (U+%04X)", r, r))
	}
	return "can not be printed: the letter fonts cover Latin, Greek and Cyrillic, and have no " + strings.Join(list, ", ")
}

// FetchedResource is body, fetched for the variable name of template,
// as the Resource it prints, checked as an image or font stored would be
// (CheckImage, CheckResource), or what is wrong with it. Its type is the
// one its bytes show (ResourceType), whatever the server called it.
func FetchedResource(template []byte, name string, body []byte) (Resource, string) {
	mime := ResourceType(body)
	if mime == "" {
		return Resource{}, "it is neither a PNG, JPEG, GIF or SVG image nor a TrueType or WOFF2 font"
	}
	if strings.HasPrefix(mime, "image/") {
		if msg := CheckImage(mime, body); msg != "" {
			return Resource{}, msg
		}
	}
	if msg := CheckResource(template, name, mime, body); msg != "" {
		return Resource{}, msg
	}
	return Resource{Type: mime, Data: body}, ""
}
