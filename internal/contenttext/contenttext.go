// Package contenttext knows how a version's content travels as text in the
// API: a template's HTML and an SVG's XML as themselves, other content
// (images, fonts, PDF documents) base64-encoded. A request may also send
// an SVG base64-encoded, as other images are.
package contenttext

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// svg is the MIME type of an SVG image, text that is shown as itself.
const svg = "image/svg+xml"

// binary reports whether content of a MIME type travels base64-encoded:
// all but text, and SVG, which is XML text.
func binary(mime string) bool {
	return !strings.HasPrefix(mime, "text/") && mime != svg
}

// Encode is content of a MIME type as the API shows it.
func Encode(mime string, data []byte) string {
	if binary(mime) {
		return base64.StdEncoding.EncodeToString(data)
	}
	return string(data)
}

// Decode reads content of a MIME type as a request gives it: base64 for a
// binary type; an SVG as its text, or base64-encoded (base64 has no "<",
// which an SVG's text has). Its error is the message for the content's
// field.
func Decode(mime, text string) ([]byte, error) {
	isSVG := mime == svg
	if !binary(mime) && (!isSVG || strings.Contains(text, "<")) {
		return []byte(text), nil
	}
	data, err := base64.StdEncoding.DecodeString(text)
	switch {
	case err != nil && isSVG:
		return nil, fmt.Errorf("%s content is the SVG's text, or that text base64-encoded; this is neither (%w)", mime, err)
	case err != nil:
		return nil, fmt.Errorf("%s content must be base64-encoded: %w", mime, err)
	}
	return data, nil
}
