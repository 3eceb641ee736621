package render

import (
	"bytes"
	"image"
	"image/jpeg"
	"strings"
	"testing"
)

// progressiveJPEG makes a progressive JPEG of w x h pixels whose
// components (1 grey, 3 YCbCr, 4 CMYK) are not subsampled, with a first
// AC scan of each component and then refinement scans, scans in all: each
// skips every block with end-of-band runs of 32,767 blocks, so the file is
// small whatever its size and scans.
func progressiveJPEG(w, h, comps, scans int) []byte {
	seg := func(m byte, p []byte) []byte {
		return append([]byte{0xFF, m, byte((len(p) + 2) >> 8), byte(len(p) + 2)}, p...)
	}
	out := []byte{0xFF, 0xD8}
	if comps == 4 {
		out = append(out, seg(0xEE, []byte("Adobe\x00\x64\x00\x00\x00\x00\x00"))...)
	}
	out = append(out, seg(0xDB, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...))...)
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(comps)}
	for c := range comps {
		sof = append(sof, byte(c+1), 0x11, 0)
	}
	out = append(out, seg(0xC2, sof)...)
	// One AC code, 0 for symbol 0xE0: an end-of-band run of 2^14 blocks and
	// 14 bits more.
	out = append(out, seg(0xC4, append(append([]byte{0x10, 1}, make([]byte, 15)...), 0xE0))...)
	var data []byte
	var acc, n uint32
	bit := func(b uint32) {
		acc, n = acc<<1|b, n+1
		if n == 8 {
			data = append(data, byte(acc))
			if acc == 0xFF {
				data = append(data, 0)
			}
			acc, n = 0, 0
		}
	}
	blocks := ((w + 7) / 8) * ((h + 7) / 8)
	for range (blocks + 32766) / 32767 {
		bit(0)
		for range 14 {
			bit(1)
		}
	}
	for n != 0 {
		bit(1)
	}
	for s := range scans {
		c := s % comps
		ahal := byte(0x10) // refine: Ah 1, Al 0
		if s < comps {
			ahal = 0x01 // first: Ah 0, Al 1
		}
		out = append(out, seg(0xDA, []byte{1, byte(c + 1), 0x00, 1, 63, ahal})...)
		out = append(out, data...)
	}
	return append(out, 0xFF, 0xD9)
}

// TestJPEGScans: a JPEG of MaxJPEGScans scans prints; one more is refused
// before it is decoded. 3,000 scans in 96 KB took a minute to decode at
// 4000 x 4000 pixels.
func TestJPEGScans(t *testing.T) {
	ok := progressiveJPEG(64, 64, 1, MaxJPEGScans)
	if _, err := jpeg.Decode(bytes.NewReader(ok)); err != nil {
		t.Fatalf("the test image does not decode: %v", err)
	}
	if msg := CheckImage("image/jpeg", ok); msg != "" {
		t.Errorf("%d scans: %s", MaxJPEGScans, msg)
	}
	msg := CheckImage("image/jpeg", progressiveJPEG(64, 64, 1, MaxJPEGScans+1))
	if !strings.Contains(msg, "more than 64 scans") {
		t.Errorf("%d scans: %q, want it refused for its scans", MaxJPEGScans+1, msg)
	}
	// Refused when printed too, whatever checked it.
	d := newDocument(Letter{})
	if _, err := d.registerImage("img", progressiveJPEG(64, 64, 1, MaxJPEGScans+1)); err == nil {
		t.Error("registerImage drew a JPEG of too many scans")
	}
}

// TestProgressiveJPEGSamples: a progressive JPEG of MaxProgressiveSamples
// samples prints; one of a block more is refused, as is one of 16 million
// pixels in CMYK (a file of 283 bytes that held 256 MiB to decode), while
// a baseline JPEG of as many samples prints.
func TestProgressiveJPEGSamples(t *testing.T) {
	// CMYK, 4 samples a pixel: 4000 x 2000 is 32,000,000 samples.
	if got := jpegProblem(progressiveJPEG(4000, 2000, 4, 4)); got != "" {
		t.Errorf("4000 x 2000 CMYK: %s", got)
	}
	if got := jpegProblem(progressiveJPEG(4008, 2000, 4, 4)); !strings.Contains(got, "progressive") {
		t.Errorf("4008 x 2000 CMYK: %q, want it refused as progressive", got)
	}
	if got := CheckImage("image/jpeg", progressiveJPEG(4000, 4000, 4, 4)); !strings.Contains(got, "at most 32000000") {
		t.Errorf("4000 x 4000 CMYK: %q, want it refused for its samples", got)
	}
	if got := CheckImage("image/jpeg", progressiveJPEG(2000, 2000, 3, 3)); got != "" {
		t.Errorf("2000 x 2000 YCbCr: %s", got)
	}
	var baseline bytes.Buffer
	if err := jpeg.Encode(&baseline, image.NewGray(image.Rect(0, 0, 4000, 4000)), &jpeg.Options{Quality: 1}); err != nil {
		t.Fatal(err)
	}
	if got := jpegProblem(baseline.Bytes()); got != "" {
		t.Errorf("baseline 4000 x 4000: %s", got)
	}
}
