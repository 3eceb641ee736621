package render

import (
	"encoding/binary"
	"fmt"
)

// JPEG images are read by image/jpeg, which bounds neither the scans an
// image has nor what a progressive image holds while it is decoded. Each
// scan walks every block of its components, however few bytes it takes:
// an end-of-band run skips 32,767 blocks in two bytes, so a 96 KB
// progressive JPEG of 4000 x 4000 pixels and 3,000 scans took a minute to
// decode. And a progressive image is kept whole as coefficients, 4 bytes
// a sample, until its last scan: 16 million pixels in CMYK held 256 MiB
// for a file of 283 bytes. So the markers are read first (jpegProblem),
// and such images are refused before they are decoded.

// Limits of a JPEG image that prints.
const (
	// MaxJPEGScans is the most scans a JPEG image may have. A progressive
	// JPEG from a camera, an image editor or jpegtran has about ten; a
	// baseline one has one, or one for each component.
	MaxJPEGScans = 64
	// MaxProgressiveSamples is the most samples (pixels times components,
	// a subsampled component counting its own) a progressive JPEG may
	// have, twice MaxImagePixels: a page at 300 dpi in colour, or 16
	// million pixels in grey or in colour with its chroma halved both ways
	// (4:2:0), which hold 128 MiB while they are decoded.
	MaxProgressiveSamples = 2 * MaxImagePixels
)

// jpegProblem reads the markers of a JPEG image and says what keeps it from
// decoding in good time and memory (more than MaxJPEGScans scans, a
// progressive image of more than MaxProgressiveSamples samples), or "".
// It reads markers as image/jpeg does, and leaves what it can not read to
// the decoder.
func jpegProblem(data []byte) string {
	if len(data) < 2 || data[0] != 0xFF || data[1] != 0xD8 {
		return ""
	}
	scans := 0
	progressive := false
	var samples int64
	for p := 2; p < len(data); {
		// A marker is 0xFF, any fill bytes 0xFF, then its code; the decoder
		// skips what else stands between segments.
		if data[p] != 0xFF {
			p++
			continue
		}
		for p < len(data) && data[p] == 0xFF {
			p++
		}
		if p >= len(data) {
			break
		}
		m := data[p]
		p++
		switch {
		case m == 0xD9: // end of image
			return ""
		case m == 0x00, m == 0x01, m >= 0xD0 && m <= 0xD8:
			continue // no length: stuffing, TEM, restarts, start of image
		}
		if p+2 > len(data) {
			break
		}
		n := int(binary.BigEndian.Uint16(data[p:]))
		if n < 2 || p+n > len(data) {
			break
		}
		seg := data[p+2 : p+n]
		p += n
		switch m {
		case 0xC0, 0xC1, 0xC2:
			progressive = m == 0xC2
			samples = jpegSamples(seg)
		case 0xDA:
			scans++
			// The entropy-coded data runs to the next marker: a 0xFF
			// not followed by 0x00 (a stuffed byte) or a restart.
			for p+1 < len(data) && (data[p] != 0xFF || data[p+1] == 0x00 || data[p+1] >= 0xD0 && data[p+1] <= 0xD7) {
				p++
			}
		}
		if scans > MaxJPEGScans {
			return fmt.Sprintf("the JPEG image has more than %d scans, which take too long to decode: save it again as a baseline (not progressive) JPEG", MaxJPEGScans)
		}
		if progressive && samples > MaxProgressiveSamples {
			return fmt.Sprintf("the JPEG image is progressive with %d samples (pixels times colour components); a progressive JPEG may have at most %d: save it again as a baseline (not progressive) JPEG, or smaller", samples, MaxProgressiveSamples)
		}
	}
	return ""
}

// jpegSamples is the number of samples a frame header (SOF) declares, as
// image/jpeg allocates them for a progressive image: each component's
// blocks over whole MCUs, 64 samples a block.
func jpegSamples(sof []byte) int64 {
	if len(sof) < 6 {
		return 0
	}
	h, w, nc := int64(binary.BigEndian.Uint16(sof[1:])), int64(binary.BigEndian.Uint16(sof[3:])), int(sof[5])
	if len(sof) < 6+3*nc {
		return 0
	}
	var hmax, vmax int64 = 1, 1
	for i := range nc {
		hv := sof[6+3*i+1]
		hmax, vmax = max(hmax, int64(hv>>4)), max(vmax, int64(hv&0x0F))
	}
	mxx, myy := (w+8*hmax-1)/(8*hmax), (h+8*vmax-1)/(8*vmax)
	var blocks int64
	for i := range nc {
		hv := sof[6+3*i+1]
		blocks += mxx * myy * int64(hv>>4) * int64(hv&0x0F)
	}
	return 64 * blocks
}
