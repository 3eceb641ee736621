package render

import (
	"image"
	"runtime"
	"testing"
	"time"
)

// An SVG kept to be drawn again, at another size, does not keep the
// picture it was last drawn on: a letter keeps every SVG it shows while it
// is drawn, and a full page is 24 MB of picture and as much of buffers.
func TestDrawnSVGKeepsNoPicture(t *testing.T) {
	s, err := readSVG([]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="2in" height="2in" viewBox="0 0 10 10">` +
		`<rect width="10" height="10" fill="#888"/><path d="M0 0 L10 10" stroke="#000"/></svg>`))
	if err != nil {
		t.Fatal(err)
	}
	freed := make(chan bool, 1)
	func() {
		img := s.raster(144, 144).(*image.RGBA)
		runtime.SetFinalizer(img, func(*image.RGBA) { freed <- true })
	}()
	deadline := time.After(5 * time.Second)
	for {
		runtime.GC()
		select {
		case <-freed:
			runtime.KeepAlive(s)
			return
		case <-deadline:
			t.Fatal("the picture an SVG was drawn on is kept as long as the SVG")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
