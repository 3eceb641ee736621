package httpadapter

import (
	"net/http"
	"strconv"

	"github.com/lettershop/lettershop/openapi"
)

// docRoutes serves the OpenAPI document, without an API key and only bare:
// it describes the /v1 paths itself.
func (h *handler) docRoutes() {
	for _, d := range []struct {
		path, contentType string
		body              []byte
	}{
		{"/openapi.yaml", "application/yaml", openapi.YAML},
		{"/openapi.json", "application/json", openapi.JSON},
	} {
		rt := route{method: "GET", path: d.path, access: public, serve: func(w http.ResponseWriter, _ *http.Request, _ *call) {
			hd := w.Header()
			hd.Set("Content-Type", d.contentType)
			hd.Set("Content-Length", strconv.Itoa(len(d.body)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(d.body)
		}}
		h.mux.route(rt, "")
	}
}
