package inbox

import (
	"encoding/base64"
	"html"
	"net/http"
	"net/url"
	"regexp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/render"
)

const assetPageSize = 25

// assetsView is the assets page's data.
type assetsView struct {
	Assets []*lettershop.Asset
	Next   string
	First  string
}

// assets is the table of the account's assets, newest first.
func (h *handler) assets(w http.ResponseWriter, s *session) {
	token := s.r.URL.Query().Get("token")
	pg, err := h.svc.ListAssets(s.ctx(), s.account(), lettershop.ListAssetsInput{
		PageRequest: lettershop.PageRequest{PageSize: assetPageSize, NextToken: token}})
	if err != nil {
		h.fail(w, s, err)
		return
	}
	v := &assetsView{Assets: pg.Items}
	if pg.NextToken != "" {
		v.Next = s.base + "/assets?" + url.Values{"token": {pg.NextToken}}.Encode()
	}
	if token != "" {
		v.First = s.base + "/assets"
	}
	p := h.newPage(s, "Assets")
	p.Nav = "assets"
	p.Data = v
	h.render(w, http.StatusOK, "assets.html", p)
}

// assetView is an asset page's data.
type assetView struct {
	Asset    *lettershop.Asset
	Versions []*lettershop.AssetVersion
	Next     string
	First    string
}

// asset is one asset and its versions, archived ones too.
func (h *handler) asset(w http.ResponseWriter, s *session) {
	a, err := h.svc.GetAsset(s.ctx(), s.account(), s.r.PathValue("id"))
	if err != nil {
		h.fail(w, s, err)
		return
	}
	token := s.r.URL.Query().Get("token")
	pg, err := h.svc.ListVersions(s.ctx(), s.account(), a.ID, lettershop.ListVersionsInput{
		PageRequest: lettershop.PageRequest{PageSize: assetPageSize, NextToken: token}, IncludeArchived: true})
	if err != nil {
		h.fail(w, s, err)
		return
	}
	v := &assetView{Asset: a, Versions: pg.Items}
	if pg.NextToken != "" {
		v.Next = s.base + "/assets/" + url.PathEscape(a.ID) + "?" + url.Values{"token": {pg.NextToken}}.Encode()
	}
	if token != "" {
		v.First = s.base + "/assets/" + url.PathEscape(a.ID)
	}
	p := h.newPage(s, "Asset "+a.Name)
	p.Nav = "assets"
	p.Data = v
	h.render(w, http.StatusOK, "asset.html", p)
}

// versionView is a version page's data.
type versionView struct {
	Asset   *lettershop.Asset
	Version *lettershop.AssetVersion
	// Source is an HTML template's text, shown escaped.
	Source     string
	ContentURL string
	Kind       string // "html", "image", "pdf" or "other": how it is previewed
	// Images are the variables an HTML template's images are drawn
	// from, which the preview shows as placeholders (placeholderImages).
	Images []string
}

// version is one version with a preview of its content.
func (h *handler) version(w http.ResponseWriter, s *session) {
	a, err := h.svc.GetAsset(s.ctx(), s.account(), s.r.PathValue("id"))
	if err != nil {
		h.fail(w, s, err)
		return
	}
	ver, err := h.svc.GetVersion(s.ctx(), s.account(), a.ID, s.r.PathValue("vid"))
	if err != nil {
		h.fail(w, s, err)
		return
	}
	v := &versionView{Asset: a, Version: ver, Kind: previewKind(ver.Content.Type),
		ContentURL: s.base + "/assets/" + url.PathEscape(a.ID) + "/versions/" + url.PathEscape(ver.ID) + "/content"}
	// A template kept at a URL is fetched by the preview alone: a page
	// never waits for another host.
	if v.Kind == "html" && ver.Content.Source != lettershop.ContentExternalURL {
		v.Source = ver.Content.Content
		v.Images, _ = render.TemplateResources([]byte(v.Source))
	}
	p := h.newPage(s, "Version "+ver.ID)
	p.Nav = "assets"
	p.Data = v
	h.render(w, http.StatusOK, "version.html", p)
}

func previewKind(t lettershop.ContentType) string {
	switch t {
	case lettershop.ContentHTML:
		return "html"
	case lettershop.ContentPNG, lettershop.ContentJPEG, lettershop.ContentGIF, lettershop.ContentSVG:
		return "image"
	case lettershop.ContentPDF:
		return "pdf"
	}
	return "other"
}

// contentCSP is the policy of a version's HTML shown in a frame: a sandbox
// (no script, no same origin, no forms), its own inline styles and images
// in data: URLs, nothing fetched.
const contentCSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; frame-ancestors 'self'"

// versionContent is a version's content as itself, for the preview's frame
// or image: HTML sandboxed, a font as a download.
func (h *handler) versionContent(w http.ResponseWriter, s *session) {
	ver, err := h.svc.GetVersion(s.ctx(), s.account(), s.r.PathValue("id"), s.r.PathValue("vid"))
	if err != nil {
		h.fail(w, s, err)
		return
	}
	// As the API's contentUrl serves it: the bytes themselves (an SVG is
	// shown as its text, other images and fonts base64-encoded), fetched
	// and checked when kept at a URL.
	_, data, err := h.svc.GetVersionContent(s.ctx(), s.account(), ver.ID)
	if err != nil {
		framedFail(h, w, s, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", string(ver.Content.Type))
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	switch previewKind(ver.Content.Type) {
	case "html":
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Content-Security-Policy", contentCSP)
		data = placeholderImages(data, ver.VariableDefinitions)
	case "pdf":
		hd.Set("Content-Security-Policy", pdfCSP)
	case "image":
		// An SVG opened in a tab is a document of the inbox's origin:
		// sandboxed, as the API serves it. An <img> is not affected.
		hd.Set("Content-Security-Policy", "sandbox; default-src 'none'; frame-ancestors 'self'")
	default:
		hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
		hd.Set("Content-Disposition", "attachment; filename=\""+ver.ID+"\"")
	}
	_, _ = w.Write(data)
}

// variableAt matches {{name}} as the service merges variables.
var variableAt = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// placeholderImages shows each image of an HTML template that a variable
// draws (<img src="{{logo}}">) as a placeholder naming the variable. Its
// value (an asset, a URL) comes with each letter, and the preview's frame
// fetches nothing: without it, such an image is an empty box that says
// neither what goes there nor that anything does.
func placeholderImages(tpl []byte, defs []lettershop.VariableDefinition) []byte {
	images, _ := render.TemplateResources(tpl)
	if len(images) == 0 {
		return tpl
	}
	urls := make(map[string][]byte, len(images))
	for _, name := range images {
		what := "image variable"
		for _, d := range defs {
			if d.Name == name {
				what = "image · " + string(d.Type)
				if d.PresetValue != nil {
					what += " · preset"
				}
			}
		}
		urls[name] = []byte(placeholderImage(name, what))
	}
	return variableAt.ReplaceAllFunc(tpl, func(m []byte) []byte {
		if u, ok := urls[string(variableAt.FindSubmatch(m)[1])]; ok {
			return u
		}
		return m
	})
}

// placeholderImage is a data: URL of an SVG image that fills the box its
// <img> is given (300 by 150 pixels when none) with a dashed frame and
// the variable's name. base64, so that it stands in any attribute value,
// quoted or not.
func placeholderImage(name, what string) string {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%">` +
		`<rect width="100%" height="100%" fill="#eef1f5" stroke="#8a94a6" stroke-width="3" stroke-dasharray="6 4"/>` +
		`<text x="50%" y="50%" text-anchor="middle" font-family="sans-serif" fill="#3d4656">` +
		`<tspan x="50%" dy="-0.2em" font-size="14" font-weight="bold">{{` + html.EscapeString(name) + `}}</tspan>` +
		`<tspan x="50%" dy="1.3em" font-size="11">` + html.EscapeString(what) + `</tspan></text></svg>`
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg))
}
