package httpadapter

import (
	"net/http"
	"strconv"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/egress"
)

func (h *handler) fileRoutes() {
	h.handle(route{method: "GET", path: "/files/letters/{file}", access: public, serve: h.letterFile})
}

// letterFile serves a signed download link: no API key, the signature is
// the permission. An expired or altered link is 403, and so is a link
// fetched by lettershop itself: a letter whose content names a download
// link as its URL would otherwise have each render fetch the link, and
// so render again, until the links' limit stops it.
func (h *handler) letterFile(w http.ResponseWriter, r *http.Request, _ *call) {
	if r.Header.Get("User-Agent") == egress.UserAgent {
		h.fail(w, r, errorf(lettershop.CodeForbidden, "a letter's PDF is not content lettershop fetches: content given by URL can not be a download link"))
		return
	}
	// A part given twice is refused, never one of them picked: a cache or
	// proxy in front may have read the other.
	q, fields := r.URL.Query(), map[string]string{}
	expires, _ := single(q, "expires", fields)
	signature, _ := single(q, "signature", fields)
	if err := invalidFields(fields); err != nil {
		h.fail(w, r, err)
		return
	}
	file := r.PathValue("file")
	pdf, err := h.svc.OpenDownload(r.Context(), file, expires, signature)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/pdf")
	hd.Set("Content-Length", strconv.Itoa(len(pdf)))
	hd.Set("Content-Disposition", `inline; filename="`+safeFileName(file)+`"`)
	hd.Set("Cache-Control", "private, no-store")
	// A link followed from the PDF is not sent its URL, signature and all.
	hd.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pdf)
}

// safeFileName keeps the letters, digits and a few marks of name, so it can
// go in a quoted header parameter as it is.
func safeFileName(name string) string {
	b := []byte(name)
	out := b[:0]
	for _, c := range b {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' {
			out = append(out, c)
		}
	}
	return string(out)
}
