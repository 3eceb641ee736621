package render

import (
	"compress/zlib"
	"sync"
)

// deflaters keeps zlib writers between streams and letters: a writer holds
// about 650 KB of compressor state, far more than the few kilobytes a
// letter's page or font compresses to, so making one per stream would cost
// more than the compression itself.
var deflaters = sync.Pool{New: func() any {
	w, err := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	if err != nil {
		panic("render: zlib writer: " + err.Error())
	}
	return w
}}

// appendWriter is an io.Writer that appends to a byte slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// deflate appends src, zlib-compressed, to dst. The same src always
// compresses to the same bytes, whichever pooled writer does it.
func deflate(dst, src []byte) []byte {
	zw := deflaters.Get().(*zlib.Writer)
	out := appendWriter{b: dst}
	zw.Reset(&out)
	// Writing to memory can not fail.
	_, _ = zw.Write(src)
	_ = zw.Close()
	zw.Reset(nil)
	deflaters.Put(zw)
	return out.b
}

// deflateBest is src zlib-compressed as small as zlib makes it: for what is
// compressed once and embedded in every letter.
func deflateBest(src []byte) []byte {
	var out appendWriter
	zw, err := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if err != nil {
		panic("render: zlib writer: " + err.Error())
	}
	_, _ = zw.Write(src)
	_ = zw.Close()
	return out.b
}
