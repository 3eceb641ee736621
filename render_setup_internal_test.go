package lettershop

import (
	"testing"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/render"
	"github.com/lettershop/lettershop/rendercache"
)

// pdfRenderer is a Renderer of its own, to tell from the built-in one.
type pdfRenderer struct{}

func (pdfRenderer) Render(render.Letter) ([]byte, error) { return []byte("%PDF"), nil }

// New makes the renderer and the render cache the options chose, once:
// the built-in renderer unless WithRenderer gave another (nil is the
// built-in one), and a cache of WithRenderCacheSize's size, else
// DefaultRenderCacheSize.
func TestNewSetsUpRendering(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     []Option
		renderer Renderer
		// renders is how many times getting three letters, the first
		// again, renders.
		renders int64
	}{
		{"by default", nil, builtinRenderer{}, 2},
		{"nil renderer", []Option{WithRenderer(nil)}, builtinRenderer{}, 2},
		{"a renderer", []Option{WithRenderer(pdfRenderer{})}, pdfRenderer{}, 2},
		{"a cache of one", []Option{WithRenderCacheSize(1)}, builtinRenderer{}, 3},
		{"no cache", []Option{WithRenderCacheSize(0)}, builtinRenderer{}, 3},
	} {
		s := New(memstore.New(), c.opts...)
		if s.render.renderer != c.renderer {
			t.Errorf("%s: renderer %#v, want %#v", c.name, s.render.renderer, c.renderer)
		}
		if s.render.cache == nil {
			t.Fatalf("%s: no render cache", c.name)
		}
		for _, id := range []string{"ltr_1", "ltr_2", "ltr_1"} {
			if _, _, err := s.render.cache.Get(rendercache.Key{Account: "acct", ID: id}, func() ([]byte, error) { return []byte("%PDF"), nil }); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.render.cache.Rendered(); got != c.renders {
			t.Errorf("%s: rendered %d times, want %d", c.name, got, c.renders)
		}
		_ = s.Close()
	}
}
