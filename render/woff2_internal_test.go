package render

import (
	"bytes"
	"encoding/binary"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// TestWOFF2IsItsTrueTypeFont: a WOFF2 font decodes to a font that
// measures and maps characters as the TrueType font it was made from.
func TestWOFF2IsItsTrueTypeFont(t *testing.T) {
	ttf, err := os.ReadFile("../testdata/gosmallcaps-ascii.ttf")
	if err != nil {
		t.Fatal(err)
	}
	want, err := loadBrandFace("ttf", ttf)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"testdata/gosmallcaps-ascii.woff2", "testdata/gosmallcaps-ascii-hmtx.woff2"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := loadBrandFace("woff2", data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got.widths, want.widths) || !slices.Equal(got.gids, want.gids) {
			t.Errorf("%s: widths or glyphs differ from the TrueType font's", name)
		}
		if len(got.file.loca) != len(want.file.loca) {
			t.Errorf("%s: %d glyphs, want %d", name, len(got.file.loca)-1, len(want.file.loca)-1)
		}
	}
}

// TestWOFF2RefusesABomb: tables that decompress past the sizes they
// declare are refused before they are decompressed in full.
func TestWOFF2RefusesABomb(t *testing.T) {
	data, err := os.ReadFile("testdata/gosmallcaps-ascii.woff2")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkWOFF2Size(data); err != nil {
		t.Fatalf("the font itself: %v", err)
	}
	// The font's tables, then 64 MiB of zeros.
	be := binary.BigEndian
	start, compressed, _, err := woff2Stream(data)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := brotliAll(data[start : start+compressed])
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := brotli.NewWriterLevel(&z, 1)
	w.Write(tables)
	w.Write(make([]byte, 64<<20))
	w.Close()
	bomb := append(slices.Clone(data[:start]), z.Bytes()...)
	be.PutUint32(bomb[8:], uint32(len(bomb)))
	be.PutUint32(bomb[20:], uint32(z.Len()))
	err = checkWOFF2Size(bomb)
	if err == nil || !strings.Contains(err.Error(), "do not decompress to the sizes they declare") {
		t.Fatalf("bomb: %v", err)
	}
	if msg := CheckFont(bomb); !strings.HasPrefix(msg, "the WOFF2 font can not be read: ") {
		t.Errorf("CheckFont: %q", msg)
	}
}

func brotliAll(b []byte) ([]byte, error) {
	var out bytes.Buffer
	_, err := out.ReadFrom(brotli.NewReader(bytes.NewReader(b)))
	return out.Bytes(), err
}
