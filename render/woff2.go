package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/tdewolff/font"
)

// WOFF2 fonts: a web font, an SFNT (TrueType or OpenType) font whose
// tables are Brotli-compressed and, for TrueType outlines, transformed.
// A WOFF2 font is decoded back to its SFNT font (tdewolff/font reverses
// the glyf, loca and hmtx transforms) and is from then on treated as that
// font is.

// maxWOFF2Tables is the most tables a WOFF2 font may have; the SFNT
// format's own tables number about fifty.
const maxWOFF2Tables = 256

// maxSFNTBytes is the largest font a WOFF2 font may decode to.
const maxSFNTBytes = 16 << 20

// isWOFF2 reports whether data starts as a WOFF2 font does.
func isWOFF2(data []byte) bool { return bytes.HasPrefix(data, []byte("wOF2")) }

// sfntOf returns a font file as SFNT: a WOFF2 font decoded, anything else
// as it is.
func sfntOf(data []byte) ([]byte, error) {
	if !isWOFF2(data) {
		return data, nil
	}
	return decodeWOFF2(data)
}

// decodeWOFF2 decodes a WOFF2 font to the SFNT font it holds.
func decodeWOFF2(data []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, errors.New("the WOFF2 font can not be read: it is damaged")
		}
	}()
	if err := checkWOFF2Size(data); err != nil {
		return nil, fmt.Errorf("the WOFF2 font can not be read: %w", err)
	}
	out, err = font.ParseWOFF2(data)
	if err != nil {
		return nil, fmt.Errorf("the WOFF2 font can not be read: %w", err)
	}
	return out, nil
}

// woff2Stream reads a WOFF2 font's header and table directory: where its
// compressed stream starts, its length, and the length of the tables it
// declares.
func woff2Stream(data []byte) (start, length int, tables int64, err error) {
	if len(data) < 48 {
		return 0, 0, 0, errors.New("it is shorter than a WOFF2 header")
	}
	be := binary.BigEndian
	if be.Uint32(data[8:]) != uint32(len(data)) {
		return 0, 0, 0, errors.New("the length in its header is not its size")
	}
	numTables := int(be.Uint16(data[12:]))
	if numTables == 0 || numTables > maxWOFF2Tables {
		return 0, 0, 0, fmt.Errorf("it has %d tables", numTables)
	}
	if be.Uint32(data[16:]) > maxSFNTBytes {
		return 0, 0, 0, fmt.Errorf("it would decode to more than %d bytes", maxSFNTBytes)
	}
	compressed := int64(be.Uint32(data[20:]))
	pos := 48
	var total int64
	for range numTables {
		if pos >= len(data) {
			return 0, 0, 0, errors.New("its table directory is cut short")
		}
		flags := data[pos]
		pos++
		// Only glyf and loca are told apart: their transforms are marked
		// the other way round from every other table's.
		tag := ""
		switch flags & 0x3F {
		case 10:
			tag = "glyf"
		case 11:
			tag = "loca"
		case 63:
			if pos+4 > len(data) {
				return 0, 0, 0, errors.New("its table directory is cut short")
			}
			tag = string(data[pos : pos+4])
			pos += 4
		}
		orig, n, err := uintBase128(data[pos:])
		if err != nil {
			return 0, 0, 0, err
		}
		pos += n
		version := flags >> 6
		glyfLoca := tag == "glyf" || tag == "loca"
		if glyfLoca && version == 0 || !glyfLoca && version != 0 {
			length, n, err := uintBase128(data[pos:])
			if err != nil {
				return 0, 0, 0, err
			}
			pos += n
			total += int64(length)
		} else if tag != "loca" || version != 0 {
			total += int64(orig)
		}
		if total > maxSFNTBytes {
			return 0, 0, 0, fmt.Errorf("it would decode to more than %d bytes", maxSFNTBytes)
		}
	}
	if int64(len(data)-pos) < compressed {
		return 0, 0, 0, errors.New("its compressed data is cut short")
	}
	return pos, int(compressed), total, nil
}

// checkWOFF2Size reads a WOFF2 font's header and table directory, and
// decompresses its tables no further than the sizes they declare: the
// decoder reads the Brotli stream to its end, which for a stream made to
// swell could be gigabytes.
func checkWOFF2Size(data []byte) error {
	pos, compressed, total, err := woff2Stream(data)
	if err != nil {
		return err
	}
	r := brotli.NewReader(bytes.NewReader(data[pos : pos+compressed]))
	n, err := io.Copy(io.Discard, io.LimitReader(r, total+1))
	if err != nil {
		return fmt.Errorf("its compressed data can not be read: %w", err)
	}
	if n != total {
		return errors.New("its tables do not decompress to the sizes they declare")
	}
	return nil
}

// uintBase128 reads a WOFF2 UIntBase128 and says how many bytes it took.
func uintBase128(b []byte) (uint32, int, error) {
	var v uint32
	for i := range min(len(b), 5) {
		c := b[i]
		if i == 0 && c == 0x80 || v&0xFE000000 != 0 {
			return 0, 0, errors.New("it has a malformed number")
		}
		v = v<<7 | uint32(c&0x7F)
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("it has a malformed number")
}
