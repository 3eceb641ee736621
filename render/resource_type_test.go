package render_test

import (
	"testing"

	"github.com/lettershop/lettershop/render"
)

func TestResourceType(t *testing.T) {
	for _, tt := range []struct {
		name, data, want string
	}{
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"},
		{"jpeg", "\xFF\xD8\xFF\xE0\x00\x10JFIF", "image/jpeg"},
		{"truetype", "\x00\x01\x00\x00\x00\x0e", "font/ttf"},
		{"apple truetype", "true\x00\x0e", "font/ttf"},
		{"opentype", "OTTO\x00\x0e", "font/ttf"},
		{"pdf", "%PDF-1.7", ""},
		{"html", "<p>hi</p>", ""},
		{"png cut short", "\x89PNG\r\n", ""},
		{"empty", "", ""},
	} {
		if got := render.ResourceType([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: ResourceType = %q, want %q", tt.name, got, tt.want)
		}
	}
}
