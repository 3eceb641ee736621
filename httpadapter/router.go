package httpadapter

import (
	"hash/maphash"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// router holds the routes of one handler. An http.ServeMux parses every
// pattern registered with it, checks it against every other and records
// where it was registered from: for the hundred patterns of the API that
// cost more than the rest of making a handler, and a test suite makes a
// handler per test. So a ServeMux is made once for each list of patterns
// and shared by every handler registering that list, in that order; each
// handler keeps only its own list of what serves each pattern (one slice,
// no closure per route), and the shared ServeMux hands a request to the
// entry at the matched pattern's place.
type router struct {
	entries []entry
	// serve serves a route entry: the handler's serveRoute.
	serve  func(w http.ResponseWriter, r *http.Request, rt route, prefix string)
	shared *sharedMux
}

// entry is what serves one pattern: a route, served under prefix, or a
// handler of its own, whose pattern is then rt.path. The pattern's parts
// are the route's own, not copied: an entry is 120 bytes, and a handler
// has 79.
type entry struct {
	prefix  string
	rt      route
	handler http.Handler
}

func (e *entry) key() patternKey { return patternKey{e.rt.method, e.prefix, e.rt.path} }

// patternKey is a pattern in parts, so that a router compares its list
// with a shared one without making the pattern strings.
type patternKey struct {
	method, prefix, path string
}

func (k patternKey) pattern() string {
	if k.method == "" {
		return k.prefix + k.path
	}
	return k.method + " " + k.prefix + k.path
}

// sharedMux is a ServeMux made for one list of patterns, whose handler for
// each is a slot.
type sharedMux struct {
	keys []patternKey
	mux  *http.ServeMux
}

// slot is the shared ServeMux's handler of the i-th pattern: it serves the
// request with the entry at that place in the router the request came
// through.
type slot int

// routed is the ResponseWriter the shared ServeMux serves through: it
// carries the router to the slot, which serves the entry with the writer
// the request came with.
type routed struct {
	http.ResponseWriter
	rt *router
}

func (i slot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := w.(*routed)
	e := &rw.rt.entries[i]
	if e.handler != nil {
		e.handler.ServeHTTP(rw.ResponseWriter, r)
		return
	}
	rw.rt.serve(rw.ResponseWriter, r, e.rt, e.prefix)
}

// sharedMuxes holds the ServeMuxes made, by the hash of their list of
// patterns. A process makes handlers of a few configurations (test routes
// or not, a metrics path), so it holds a few; past maxSharedMuxes, a
// handler makes a ServeMux of its own.
var (
	sharedMuxesMu sync.Mutex
	sharedMuxes   = map[uint64][]*sharedMux{}
	sharedCount   int
	patternSeed   = maphash.MakeSeed()
)

const maxSharedMuxes = 64

// lastRouteCount is how many routes the router sealed last had: the room a
// new router makes for its entries, which a handler of the same options
// fills exactly (a test suite makes one per test, and an entry is 120
// bytes).
var lastRouteCount atomic.Int32

// route registers rt under prefix ("" or "/v1").
func (rt *router) route(r route, prefix string) {
	rt.add(entry{prefix: prefix, rt: r})
}

// HandleFunc registers f for pattern, as http.ServeMux's does.
func (rt *router) HandleFunc(pattern string, f func(http.ResponseWriter, *http.Request)) {
	rt.Handle(pattern, http.HandlerFunc(f))
}

// Handle registers h for pattern, as http.ServeMux's does.
func (rt *router) Handle(pattern string, h http.Handler) {
	rt.add(entry{rt: route{path: pattern}, handler: h})
}

func (rt *router) add(e entry) {
	if rt.shared != nil {
		panic("httpadapter: route " + e.key().pattern() + " registered after the router was sealed")
	}
	if rt.entries == nil {
		rt.entries = make([]entry, 0, max(int(lastRouteCount.Load()), 16))
	}
	rt.entries = append(rt.entries, e)
}

// seal ends the registrations: it finds the ServeMux made for the
// router's patterns, or makes it. A pattern that conflicts with another
// panics, as it does on a ServeMux.
func (rt *router) seal() {
	var h maphash.Hash
	h.SetSeed(patternSeed)
	for i := range rt.entries {
		e := &rt.entries[i]
		h.WriteString(e.rt.method)
		h.WriteByte(0)
		h.WriteString(e.prefix)
		h.WriteByte(0)
		h.WriteString(e.rt.path)
		h.WriteByte(0)
	}
	sum := h.Sum64()
	lastRouteCount.Store(int32(len(rt.entries)))
	sharedMuxesMu.Lock()
	defer sharedMuxesMu.Unlock()
	for _, sm := range sharedMuxes[sum] {
		if slices.EqualFunc(sm.keys, rt.entries, func(k patternKey, e entry) bool { return k == e.key() }) {
			rt.shared = sm
			return
		}
	}
	sm := &sharedMux{mux: http.NewServeMux(), keys: make([]patternKey, len(rt.entries))}
	for i := range rt.entries {
		sm.keys[i] = rt.entries[i].key()
		sm.mux.Handle(sm.keys[i].pattern(), slot(i))
	}
	if sharedCount < maxSharedMuxes {
		sharedMuxes[sum] = append(sharedMuxes[sum], sm)
		sharedCount++
	}
	rt.shared = sm
}

// Handler returns the handler that would serve r and its pattern, as
// http.ServeMux's does: a slot when a pattern matches, the ServeMux's own
// answer (404, 405, a redirect) when none does.
func (rt *router) Handler(r *http.Request) (http.Handler, string) {
	return rt.shared.mux.Handler(r)
}

// ServeHTTP serves r with the router's entry of the pattern that matches
// it, its path values set.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt.shared.mux.ServeHTTP(&routed{ResponseWriter: w, rt: rt}, r)
}
