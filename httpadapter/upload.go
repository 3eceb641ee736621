package httpadapter

import (
	"context"
	"mime"
	"net/http"

	"github.com/lettershop/lettershop"
)

// MaxUploadBody is the largest body of a content upload
// (PUT /assets/{id}/versions/{versionId}/content): the content itself, up to
// lettershop.MaxUploadContent. Only that route takes a body this large.
const MaxUploadBody = lettershop.MaxUploadContent

func (h *handler) uploadRoutes() {
	h.handle(route{method: "PUT", path: "/assets/{id}/versions/{versionId}/content", access: scoped, scope: ScopeAssetsWrite, serve: h.uploadContent})
}

// uploadContent replaces a draft version's content by the request body, as
// it is (not JSON, not base64), of the type its Content-Type names.
func (h *handler) uploadContent(w http.ResponseWriter, r *http.Request, c *call) {
	m := versionMutation(r, c, MaxUploadBody, http.StatusOK, func(ctx context.Context, aid, vid string, body []byte) (any, error) {
		if n := len(r.Header["Content-Type"]); n > 1 {
			// The server picks none: a proxy in front may have picked
			// another, as with two X-Api-Key.
			return nil, invalid("content.type", "give one Content-Type, the content's type; the request has %d Content-Type headers", n)
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil {
			return nil, invalid("content.type", "the Content-Type header must name the content's type, for example application/pdf")
		}
		return h.svc.UploadVersionContent(ctx, c.account, aid, vid, lettershop.ContentType(mt), body)
	})
	m.content = true
	h.mutate(w, r, c, m)
}

// bareType sets c's type to its media type alone, lower-cased and without
// parameters, as an upload's Content-Type is read: content.type is "the MIME
// type", and a client that types HTML as text/html; charset=utf-8 (what Go's
// http.DetectContentType says of it) or TEXT/HTML names the type a template
// holds. A type that does not parse is left as it is, for the Service to
// refuse naming content.type.
func bareType(c *lettershop.VersionContent) {
	if c == nil || c.Type == "" {
		return
	}
	if mt, _, err := mime.ParseMediaType(string(c.Type)); err == nil {
		c.Type = lettershop.ContentType(mt)
	}
}
