package render

import (
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"runtime"
)

// Streams are compressed here rather than by fpdf, which makes a new
// compressor for each stream: one holds about 650 KB of state, far more
// than the few kilobytes a letter's page or font compresses to, so making
// one per stream cost more than the compression itself.

// deflaters keeps compressors for reuse, one for each processor that may
// be compressing at once. A channel rather than a sync.Pool: a pool drops
// what it holds at garbage collection, and what one processor puts in
// it another does not find, so compressors were made again every few
// letters.
var deflaters = make(chan *flate.Writer, runtime.GOMAXPROCS(0))

// zlibHeader starts a zlib stream of deflate data with a 32 KB window,
// compressed for speed.
var zlibHeader = []byte{0x78, 0x01}

// appendWriter is an io.Writer that appends to a byte slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// deflateRaw appends src to dst as the last blocks of a deflate stream.
// The same src always compresses to the same bytes, whichever compressor
// does it.
func deflateRaw(dst, src []byte) []byte {
	var zw *flate.Writer
	out := appendWriter{b: dst}
	select {
	case zw = <-deflaters:
		zw.Reset(&out)
	default:
		var err error
		if zw, err = flate.NewWriter(&out, flate.BestSpeed); err != nil {
			panic("render: deflate: " + err.Error())
		}
	}
	// Writing to memory can not fail.
	_, _ = zw.Write(src)
	_ = zw.Close()
	zw.Reset(nil)
	select {
	case deflaters <- zw:
	default:
	}
	return out.b
}

// deflate appends src to dst as a zlib stream (a PDF's FlateDecode).
func deflate(dst, src []byte) []byte {
	dst = append(dst, zlibHeader...)
	dst = deflateRaw(dst, src)
	return binary.BigEndian.AppendUint32(dst, adler32.Checksum(src))
}

// deflateFixed compresses src once, as small as deflate makes it, for a
// part of many streams: its blocks are not the last and end on a byte
// boundary, so that more blocks may follow, and refer to nothing before
// them, so that any may come first.
func deflateFixed(src []byte) []byte {
	var out appendWriter
	zw, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		panic("render: deflate: " + err.Error())
	}
	_, _ = zw.Write(src)
	_ = zw.Flush()
	return out.b
}

// deflateBest is src as a zlib stream as small as deflate makes it: for
// what is compressed once and embedded in every letter.
func deflateBest(src []byte) []byte {
	var out appendWriter
	zw, err := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if err != nil {
		panic("render: deflate: " + err.Error())
	}
	_, _ = zw.Write(src)
	_ = zw.Close()
	return out.b
}

// storedBlocks appends src to dst as uncompressed deflate blocks, not the
// last, from a byte boundary.
func storedBlocks(dst, src []byte) []byte {
	for {
		n := min(len(src), 0xFFFF)
		dst = append(dst, 0)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n))
		dst = binary.LittleEndian.AppendUint16(dst, ^uint16(n))
		dst = append(dst, src[:n]...)
		src = src[n:]
		if len(src) == 0 {
			return dst
		}
	}
}
