package contenttext_test

import (
	"strings"
	"testing"

	"github.com/lettershop/lettershop/internal/contenttext"
)

func TestEncodeDecode(t *testing.T) {
	const drawing = `<svg xmlns="http://www.w3.org/2000/svg"/>`
	for _, tt := range []struct {
		mime, data, shown string
	}{
		{"text/html", "<p>Hi</p>", "<p>Hi</p>"},
		{"image/svg+xml", drawing, drawing},
		{"image/png", "\x89PNG", "iVBORw=="},
		{"font/ttf", "\x00\x01", "AAE="},
	} {
		if got := contenttext.Encode(tt.mime, []byte(tt.data)); got != tt.shown {
			t.Errorf("Encode(%s) = %q, want %q", tt.mime, got, tt.shown)
		}
		if got, err := contenttext.Decode(tt.mime, tt.shown); err != nil || string(got) != tt.data {
			t.Errorf("Decode(%s, %q) = %q, %v; want %q", tt.mime, tt.shown, got, err, tt.data)
		}
	}
	// An SVG may come base64-encoded too.
	if got, err := contenttext.Decode("image/svg+xml", contenttext.Encode("image/png", []byte(drawing))); err != nil || string(got) != drawing {
		t.Errorf("an SVG base64-encoded: %q, %v", got, err)
	}
	for _, tt := range []struct{ mime, text, want string }{
		{"image/png", "%%%", "image/png content must be base64-encoded"},
		{"image/svg+xml", "%%%", "image/svg+xml content is the SVG's text, or that text base64-encoded"},
	} {
		if _, err := contenttext.Decode(tt.mime, tt.text); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Decode(%s, %q) = %v, want %q", tt.mime, tt.text, err, tt.want)
		}
	}
}
