package lettershop_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/internal/pdftest"
)

// brandFont is a small TrueType font to use as a template's brand font.
func brandFont(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/gosmallcaps-ascii.ttf")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// logoTemplate shows {{logo}} 2 inches wide (192 CSS pixels) and sets its
// heading in the brand font {{brandFont}}.
const logoTemplate = `<html><head><style>
@font-face { font-family: Brand; src: url({{brandFont}}) }
h1 { font-family: Brand, sans-serif }
</style></head><body>
<img src="{{logo}}" width="192">
<h1>Brand News</h1>
<p>Dear {{name}}, our logo is above.</p>
</body></html>`

var logoDefinitions = []lettershop.VariableDefinition{
	{Name: "name", Behavior: lettershop.VariableRequired},
	{Name: "logo", Type: lettershop.VariableTypeAsset, Behavior: lettershop.VariableRequired},
	{Name: "brandFont", Type: lettershop.VariableTypeAsset, Behavior: lettershop.VariableOptional},
}

// assetIn makes an asset of the account with one version of content,
// published when publish is set.
func (e *env) assetIn(t testing.TB, account string, typ lettershop.AssetType, mime, data string, publish bool) *lettershop.Asset {
	t.Helper()
	a, err := e.svc.CreateAsset(e.ctx, account, lettershop.CreateAssetInput{Name: "Part", Type: typ})
	if err != nil {
		t.Fatalf("CreateAsset: %v", err)
	}
	if _, err := e.svc.CreateVersion(e.ctx, account, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentType(mime), Content: data}, Publish: publish,
	}); err != nil {
		t.Fatalf("CreateVersion: %v", err)
	}
	return a
}

func TestVariableDefinitionTypes(t *testing.T) {
	e := newRenderEnv(t)
	tests := []struct {
		name  string
		def   lettershop.VariableDefinition
		field string // "" when accepted
		want  string
	}{
		{"value", lettershop.VariableDefinition{Name: "x", Type: "value"}, "", ""},
		{"asset", lettershop.VariableDefinition{Name: "x", Type: "asset"}, "", ""},
		{"externalUrl", lettershop.VariableDefinition{Name: "x", Type: "externalUrl"}, "", ""},
		{"unknown type", lettershop.VariableDefinition{Name: "x", Type: "image"}, "variableDefinitions[0].type", "value, asset, externalUrl"},
		{"asset preset not an id", lettershop.VariableDefinition{Name: "x", Type: "asset", Behavior: lettershop.VariablePreset, PresetValue: sp("logo.png")},
			"variableDefinitions[0].presetValue", "asset id"},
		{"asset preset", lettershop.VariableDefinition{Name: "x", Type: "asset", Behavior: lettershop.VariablePreset, PresetValue: sp("ast_0123456789abcdefghjkmnpqrs")}, "", ""},
		{"url preset not http", lettershop.VariableDefinition{Name: "x", Type: "externalUrl", Behavior: lettershop.VariableOverridablePreset, PresetValue: sp("ftp://example.com/a.png")},
			"variableDefinitions[0].presetValue", "http or https URL, not ftp"},
		{"url preset", lettershop.VariableDefinition{Name: "x", Type: "externalUrl", Behavior: lettershop.VariableOverridablePreset, PresetValue: sp("https://example.com/a.png")}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "T"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
				Content:             &lettershop.VersionContent{Type: "text/html", Content: "<p>Hello</p>"},
				VariableDefinitions: []lettershop.VariableDefinition{tt.def},
			})
			if tt.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if msg := fieldsOf(t, err)[tt.field]; !strings.Contains(msg, tt.want) {
				t.Fatalf("fields = %v, want %s containing %q", fieldsOf(t, err), tt.field, tt.want)
			}
		})
	}
}

func TestTemplateImagesAndFontsComeFromAssetVariables(t *testing.T) {
	e := newRenderEnv(t)
	asset := func(names ...string) []lettershop.VariableDefinition {
		var defs []lettershop.VariableDefinition
		for _, n := range names {
			defs = append(defs, lettershop.VariableDefinition{Name: n, Type: lettershop.VariableTypeAsset})
		}
		return defs
	}
	tests := []struct {
		name string
		tpl  string
		defs []lettershop.VariableDefinition
		want string // "" when accepted
	}{
		{"image from an asset variable", `<img src="{{logo}}"><p>Hi</p>`, asset("logo"), ""},
		{"image from an externalUrl variable", `<img src="{{logo}}"><p>Hi</p>`,
			[]lettershop.VariableDefinition{{Name: "logo", Type: lettershop.VariableTypeExternalURL}}, ""},
		{"font from an asset variable", `<style>@font-face{font-family:B;src:url("{{f}}")}</style><p style="font-family:B">Hi</p>`, asset("f"), ""},
		{"image from a value variable", `<img src="{{logo}}"><p>Hi</p>`,
			[]lettershop.VariableDefinition{{Name: "logo"}}, "define logo as a variable of type asset"},
		{"image from an undefined variable", `<img src="{{logo}}"><p>Hi</p>`, nil, "define logo as a variable of type asset"},
		{"image from a fixed source", `<img src="https://example.com/logo.png"><p>Hi</p>`, asset("logo"), "an <img>'s src must be a variable"},
		{"font from a fixed source", `<style>@font-face{font-family:B;src:url(brand.ttf)}</style><p>Hi</p>`, nil, "an @font-face's src must be a variable"},
		{"asset variable as text", `<img src="{{logo}}"><p>{{logo}}</p>`, asset("logo"), "{{logo}} names an image or a font"},
		{"image in a table", `<table><tr><td><img src="{{logo}}"></td></tr></table>`, asset("logo"), "an image can not be placed in a table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "T"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Type: "text/html", Content: tt.tpl}, VariableDefinitions: tt.defs,
			})
			checkContentErr(t, err, tt.want)
		})
	}

	// Definitions changed alone are checked against the stored template.
	a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "T"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: `<img src="{{logo}}"><p>Hi</p>`}, VariableDefinitions: asset("logo"),
	})
	if err != nil {
		t.Fatal(err)
	}
	valueDefs := []lettershop.VariableDefinition{{Name: "logo"}}
	_, err = e.svc.UpdateVersion(e.ctx, renderAccount, a.ID, v.ID, lettershop.UpdateVersionInput{VariableDefinitions: &valueDefs})
	if msg := fieldsOf(t, err)["variableDefinitions"]; !strings.Contains(msg, "define logo as a variable of type asset") {
		t.Fatalf("update of definitions: %v", err)
	}
}

// logoEnv is a render env with the logo template published, and a 600 x
// 150 pixel logo (300 DPI at 2 inches wide) and the brand font as
// published assets.
type logoEnv struct {
	*env
	template, logo, font *lettershop.Asset
}

func newLogoEnv(t testing.TB, opts ...lettershop.Option) *logoEnv {
	t.Helper()
	e := newRenderEnv(t, opts...)
	tpl, _ := e.version(t, lettershop.AssetTemplate, "text/html", logoTemplate, logoDefinitions...)
	return &logoEnv{
		env:      e,
		template: tpl,
		logo:     e.assetIn(t, renderAccount, lettershop.AssetImage, "image/png", pdftest.PNG(t, 600, 150), true),
		font:     e.assetIn(t, renderAccount, lettershop.AssetFont, "font/ttf", base64.StdEncoding.EncodeToString(brandFont(t)), true),
	}
}

func TestLetterAssetVariablesAreChecked(t *testing.T) {
	e := newLogoEnv(t)
	other := e.assetIn(t, "acct_other", lettershop.AssetImage, "image/png", pdftest.PNG(t, 600, 150), true)
	draft := e.assetIn(t, renderAccount, lettershop.AssetImage, "image/png", pdftest.PNG(t, 600, 150), false)
	tests := []struct {
		name       string
		logo, font string
		field      string // "" when accepted
		want       string
	}{
		{"image and font", e.logo.ID, e.font.ID, "", ""},
		{"no font: the letter fonts", e.logo.ID, "", "", ""},
		{"not an asset id", "logo.png", "", "variables[1].value", "asset id"},
		{"missing asset", "ast_0123456789abcdefghjkmnpqrs", "", "variables[1].value", "not found"},
		{"another account's asset", other.ID, "", "variables[1].value", "not found"},
		{"draft-only asset", draft.ID, "", "variables[1].value", "has no published version"},
		{"template asset", e.template.ID, "", "variables[1].value", "is a template asset"},
		{"font shown as an image", e.font.ID, "", "variables[1].value", "shows {{logo}} as an image"},
		{"image used as a font", e.logo.ID, e.logo.ID, "variables[2].value", "uses {{brandFont}} as a font"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := []string{"name", "Ada", "logo", tt.logo}
			if tt.font != "" {
				vars = append(vars, "brandFont", tt.font)
			}
			_, err := e.svc.CreateLetter(e.ctx, renderAccount, renderLetterInput(e.template.ID, vars...))
			if tt.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if msg := fieldsOf(t, err)[tt.field]; !strings.Contains(msg, tt.want) {
				t.Fatalf("fields = %v, want %s containing %q", fieldsOf(t, err), tt.field, tt.want)
			}
		})
	}
}

func TestImageDPIAtTheBoundary(t *testing.T) {
	e := newLogoEnv(t)
	tests := []struct {
		name   string
		tpl    string
		w, h   int
		refuse string // "" when accepted
	}{
		{"300 DPI at 2 in", `<img src="{{logo}}" width="192"><p>x</p>`, 600, 150, ""},
		{"299 DPI at 2 in", `<img src="{{logo}}" width="192"><p>x</p>`, 598, 150, "prints it at 299 DPI"},
		{"300 DPI by CSS inches", `<img src="{{logo}}" style="width: 2in"><p>x</p>`, 600, 150, ""},
		{"299 DPI by CSS inches", `<img src="{{logo}}" style="width: 2in"><p>x</p>`, 598, 150, "299 DPI"},
		{"height too: 300 DPI", `<img src="{{logo}}" width="192" height="96"><p>x</p>`, 600, 300, ""},
		{"height too: 299 DPI", `<img src="{{logo}}" width="192" height="96"><p>x</p>`, 600, 299, "299 DPI"},
		{"half the column", `<img src="{{logo}}" width="50%"><p>x</p>`, 1050, 100, ""},
		{"half the column, short of it", `<img src="{{logo}}" width="50%"><p>x</p>`, 1049, 100, "299 DPI"},
		{"no size: 300 DPI as it is", `<img src="{{logo}}"><p>x</p>`, 40, 40, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, _ := e.version(t, lettershop.AssetTemplate, "text/html", tt.tpl,
				lettershop.VariableDefinition{Name: "logo", Type: lettershop.VariableTypeAsset})
			img := e.assetIn(t, renderAccount, lettershop.AssetImage, "image/png", pdftest.PNG(t, tt.w, tt.h), true)
			_, err := e.svc.CreateLetter(e.ctx, renderAccount, renderLetterInput(tpl.ID, "logo", img.ID))
			if tt.refuse == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if msg := fieldsOf(t, err)["variables[0].value"]; !strings.Contains(msg, tt.refuse) {
				t.Fatalf("fields = %v, want variables[0].value containing %q", fieldsOf(t, err), tt.refuse)
			}
		})
	}
}

func TestLetterPrintsItsLogoAndBrandFont(t *testing.T) {
	e := newLogoEnv(t)
	in := renderLetterInput(e.template.ID, "name", "Ada", "logo", e.logo.ID, "brandFont", e.font.ID)
	in.Options = &lettershop.LetterOptions{Print: &lettershop.PrintOptions{Color: true}}
	l := e.letter(t, in)
	b := e.render(t, l.ID)
	got := pdftest.Read(t, b)
	if len(got.Images) != 1 || !strings.HasPrefix(got.Images[0], "1:DeviceRGB:FlateDecode") {
		t.Errorf("images = %v, want the logo on page 1", got.Images)
	}
	if !got.Fonts["GoSmallcaps"] {
		t.Errorf("fonts = %v, want GoSmallcaps embedded", got.Fonts)
	}
	if !strings.Contains(got.Pages[0], "Brand News") || !strings.Contains(got.Pages[0], "Dear Ada") {
		t.Errorf("page 1 = %q", got.Pages[0])
	}
	if os.Getenv("LETTERSHOP_WRITE_LOGO_LETTER") != "" {
		if err := os.WriteFile(os.Getenv("LETTERSHOP_WRITE_LOGO_LETTER"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The letter prints the logo published when it was made: a JPEG
	// published since changes letters made after, not it.
	if _, err := e.svc.CreateVersion(e.ctx, renderAccount, e.logo.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "image/jpeg", Content: pdftest.JPEG(t, 600, 150)}, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	if again := pdftest.Read(t, e.render(t, l.ID)); !strings.HasSuffix(again.Images[0], ":FlateDecode") {
		t.Errorf("images after a new logo = %v, want the PNG it was made with", again.Images)
	}
	later := e.letter(t, in)
	if got := pdftest.Read(t, e.render(t, later.ID)); len(got.Images) != 1 || !strings.HasSuffix(got.Images[0], ":DCTDecode") {
		t.Errorf("images of a letter made after = %v, want the JPEG", got.Images)
	}
}

// fakeFetcher serves bodies by URL; a URL it does not know fails.
type fakeFetcher struct {
	mu     sync.Mutex
	bodies map[string][]byte
	asked  []int64
}

func (f *fakeFetcher) Fetch(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, maxBytes)
	if _, ok := ctx.Deadline(); !ok {
		return nil, "", errors.New("no deadline")
	}
	b, ok := f.bodies[url]
	if !ok {
		return nil, "", errors.New("404 Not Found")
	}
	return b, "application/octet-stream", nil
}

func TestExternalURLVariables(t *testing.T) {
	png, err := base64.StdEncoding.DecodeString(pdftest.PNG(t, 600, 150))
	if err != nil {
		t.Fatal(err)
	}
	fetcher := &fakeFetcher{bodies: map[string][]byte{"https://cdn.example.com/logo.png": png}}
	e := newRenderEnv(t, lettershop.WithFetcher(fetcher))
	tpl, _ := e.version(t, lettershop.AssetTemplate, "text/html", `<img src="{{logo}}" width="192"><p>Hello</p>`,
		lettershop.VariableDefinition{Name: "logo", Type: lettershop.VariableTypeExternalURL, Behavior: lettershop.VariableRequired})

	for _, bad := range []string{"ftp://cdn.example.com/logo.png", "logo.png", "https://user:pw@cdn.example.com/logo.png", "https:///logo.png"} {
		_, err := e.svc.CreateLetter(e.ctx, renderAccount, renderLetterInput(tpl.ID, "logo", bad))
		if msg := fieldsOf(t, err)["variables[0].value"]; !strings.Contains(msg, "URL") {
			t.Errorf("logo %q: fields = %v, want variables[0].value about the URL", bad, fieldsOf(t, err))
		}
	}

	l := e.letter(t, renderLetterInput(tpl.ID, "logo", "https://cdn.example.com/logo.png"))
	if got := pdftest.Read(t, e.render(t, l.ID)); len(got.Images) != 1 {
		t.Errorf("images = %v, want the fetched logo", got.Images)
	}
	if len(fetcher.asked) != 1 || fetcher.asked[0] != lettershop.MaxExternalContent {
		t.Errorf("fetches = %v, want one of at most %d bytes", fetcher.asked, lettershop.MaxExternalContent)
	}

	// A fetch that fails puts the letter at issue, saying why, and an
	// update of its variables queues it again.
	gone := e.letter(t, renderLetterInput(tpl.ID, "logo", "https://cdn.example.com/gone.png"))
	_, err = e.svc.RenderLetter(e.ctx, renderAccount, gone.ID)
	if lettershop.ErrorCode(err) != lettershop.CodeConflict || !strings.Contains(err.Error(), "404 Not Found") {
		t.Fatalf("render = %v, want a conflict saying the fetch failed", err)
	}
	at, err := e.svc.GetLetter(e.ctx, renderAccount, gone.ID)
	if err != nil {
		t.Fatal(err)
	}
	if at.Status != lettershop.StatusIssue || !strings.Contains(at.IssueMessage, "https://cdn.example.com/gone.png") || !strings.Contains(at.IssueMessage, "update the letter's variables") {
		t.Fatalf("letter = %s %q, want at issue naming the URL and what to do", at.Status, at.IssueMessage)
	}
	fixed := []lettershop.Variable{{Name: "logo", Value: sp("https://cdn.example.com/logo.png")}}
	up, err := e.svc.UpdateLetter(e.ctx, renderAccount, gone.ID, lettershop.UpdateLetterInput{Variables: &fixed})
	if err != nil {
		t.Fatal(err)
	}
	if up.Status != lettershop.StatusQueued || up.IssueMessage != "" {
		t.Fatalf("after the update: %s %q, want queued", up.Status, up.IssueMessage)
	}
	if got := pdftest.Read(t, e.render(t, gone.ID)); len(got.Images) != 1 {
		t.Errorf("images = %v, want the fetched logo", got.Images)
	}

	// A fetched image is held to the same resolution as an asset.
	fetcher.bodies["https://cdn.example.com/small.png"], _ = base64.StdEncoding.DecodeString(pdftest.PNG(t, 598, 150))
	small := e.letter(t, renderLetterInput(tpl.ID, "logo", "https://cdn.example.com/small.png"))
	if _, err := e.svc.RenderLetter(e.ctx, renderAccount, small.ID); !strings.Contains(err.Error(), "299 DPI") {
		t.Errorf("render = %v, want the image refused at 299 DPI", err)
	}
}

// Without a Fetcher, content is fetched through the egress policy: a host
// it does not allow is refused without a request, and the letter goes to
// issue saying so.
func TestExternalURLThroughEgress(t *testing.T) {
	p, err := egress.Allow("files.example.com")
	if err != nil {
		t.Fatal(err)
	}
	e := newRenderEnv(t, lettershop.WithEgress(p))
	tpl, _ := e.version(t, lettershop.AssetTemplate, "text/html", `<img src="{{logo}}"><p>Hello</p>`,
		lettershop.VariableDefinition{Name: "logo", Type: lettershop.VariableTypeExternalURL})
	l := e.letter(t, renderLetterInput(tpl.ID, "logo", "https://cdn.example.com/logo.png"))
	_, err = e.svc.RenderLetter(e.ctx, renderAccount, l.ID)
	if lettershop.ErrorCode(err) != lettershop.CodeConflict || !strings.Contains(err.Error(), "cdn.example.com") {
		t.Fatalf("render = %v, want a conflict naming the host", err)
	}
	if got, _ := e.svc.GetLetter(e.ctx, renderAccount, l.ID); got.Status != lettershop.StatusIssue {
		t.Fatalf("status = %s, want issue", got.Status)
	}
}

// TestPresetAssetVariableIsNamed checks that a letter whose template
// presets an asset variable to an asset that can not be printed is refused
// under content.assetId (the request holds no such variable) with a message
// that names the variable and its preset, not as though the letter's own
// content.assetId were missing.
func TestPresetAssetVariableIsNamed(t *testing.T) {
	e := newRenderEnv(t)
	missing := "ast_0123456789abcdefghjkmnpqrs"
	tpl, v := e.version(t, lettershop.AssetTemplate, "text/html", `<img src="{{logo}}"><p>x</p>`,
		lettershop.VariableDefinition{Name: "logo", Type: "asset", Behavior: lettershop.VariablePreset, PresetValue: sp(missing)})
	_, err := e.svc.CreateLetter(e.ctx, renderAccount, renderLetterInput(tpl.ID))
	msg := fieldsOf(t, err)["content.assetId"]
	for _, want := range []string{"logo", "preset", v.ID, missing + " not found"} {
		if !strings.Contains(msg, want) {
			t.Errorf("content.assetId = %q, want it to contain %q", msg, want)
		}
	}
}

// greyPNG is a w by h PNG of one grey, as version content is: small to
// store however many pixels it has.
func greyPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// What a letter's images cost to draw together is bounded
// (render.MaxDrawingCost, four images of render.MaxImagePixels): the
// images it stores are counted when it is made, a 400 naming variables;
// an image at a URL when it is fetched, putting the letter at issue.
func TestLetterImagesCostToDraw(t *testing.T) {
	full, dot := greyPNG(t, 4000, 4000), greyPNG(t, 1, 1)
	fetcher := &fakeFetcher{bodies: map[string][]byte{"https://cdn.example.com/full.png": full, "https://cdn.example.com/dot.png": dot}}
	e := newRenderEnv(t, lettershop.WithFetcher(fetcher))
	var defs []lettershop.VariableDefinition
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		defs = append(defs, lettershop.VariableDefinition{Name: name, Type: lettershop.VariableTypeAsset})
	}
	defs = append(defs, lettershop.VariableDefinition{Name: "url", Type: lettershop.VariableTypeExternalURL})
	tpl, _ := e.version(t, lettershop.AssetTemplate, "text/html",
		`<img src="{{a}}"><img src="{{b}}"><img src="{{c}}"><img src="{{d}}"><img src="{{e}}"><img src="{{url}}"><p>Hello</p>`, defs...)
	image := func(data []byte) string {
		return e.assetIn(t, renderAccount, lettershop.AssetImage, "image/png", base64.StdEncoding.EncodeToString(data), true).ID
	}
	a, b, c, d, one := image(full), image(full), image(full), image(full), image(dot)

	e.letter(t, renderLetterInput(tpl.ID, "a", a, "b", b, "c", c, "d", d))
	_, err := e.svc.CreateLetter(e.ctx, renderAccount, renderLetterInput(tpl.ID, "a", a, "b", b, "c", c, "d", d, "e", one))
	if msg := fieldsOf(t, err)["variables"]; !strings.Contains(msg, "cost too much to draw") || !strings.Contains(msg, "at most 256 million") {
		t.Errorf("and a pixel: fields = %v, want variables saying the images cost too much to draw", fieldsOf(t, err))
	}

	// An image at a URL is counted when it is fetched: before production,
	// or for a download.
	at := e.letter(t, renderLetterInput(tpl.ID, "a", a, "b", b, "c", c, "url", "https://cdn.example.com/full.png"))
	if got, err := e.svc.Simulate(e.ctx, renderAccount, at.ID, lettershop.SimulateTarget{Status: lettershop.StatusInProduction}); err != nil || got.Status != lettershop.StatusInProduction {
		t.Errorf("four images of MaxImagePixels, one at a URL: %v, want inProduction", err)
	}
	past := e.letter(t, renderLetterInput(tpl.ID, "a", a, "b", b, "c", c, "d", d, "url", "https://cdn.example.com/dot.png"))
	_, err = e.svc.RenderLetter(e.ctx, renderAccount, past.ID)
	if lettershop.ErrorCode(err) != lettershop.CodeConflict || !strings.Contains(err.Error(), "cost too much to draw") {
		t.Fatalf("and a pixel at a URL: render = %v, want a conflict saying the images cost too much to draw", err)
	}
	got, err := e.svc.GetLetter(e.ctx, renderAccount, past.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != lettershop.StatusIssue || !strings.Contains(got.IssueMessage, "cost too much to draw") || !strings.Contains(got.IssueMessage, "update the letter's variables") {
		t.Errorf("letter = %s %q, want at issue saying the images cost too much and what to do", got.Status, got.IssueMessage)
	}
}

// TestLetterExternalContentIsBounded: the images and fonts a letter
// fetches are held while it prints, so together they may come to
// MaxLetterExternalContent at most; a letter of thirty 10 MiB images at
// URLs held 420 MB for its download.
func TestLetterExternalContentIsBounded(t *testing.T) {
	logo, err := base64.StdEncoding.DecodeString(pdftest.PNG(t, 600, 150))
	if err != nil {
		t.Fatal(err)
	}
	// The image with a chunk of its own before its end, to 10 MiB.
	pad := make([]byte, 8+lettershop.MaxExternalContent-len(logo)-12)
	binary.BigEndian.PutUint32(pad, uint32(len(pad)-8))
	copy(pad[4:], "zzZz")
	big := slices.Concat(logo[:len(logo)-12], pad, binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(pad[4:])), logo[len(logo)-12:])
	fetcher := &fakeFetcher{bodies: map[string][]byte{}}
	var defs []lettershop.VariableDefinition
	var tpl strings.Builder
	var values []string
	n := lettershop.MaxLetterExternalContent/lettershop.MaxExternalContent + 1
	for i := range n {
		name, url := fmt.Sprintf("v%d", i), fmt.Sprintf("https://cdn.example.com/%d.png", i)
		fetcher.bodies[url] = big
		defs = append(defs, lettershop.VariableDefinition{Name: name, Type: lettershop.VariableTypeExternalURL, Behavior: lettershop.VariableRequired})
		fmt.Fprintf(&tpl, `<img src="{{%s}}" width="1">`, name)
		values = append(values, name, url)
	}
	e := newRenderEnv(t, lettershop.WithFetcher(fetcher))
	v, _ := e.version(t, lettershop.AssetTemplate, "text/html", tpl.String()+"<p>Hello</p>", defs...)
	l := e.letter(t, renderLetterInput(v.ID, values...))
	_, err = e.svc.RenderLetter(e.ctx, renderAccount, l.ID)
	want := fmt.Sprintf("images and fonts at URLs come to more than %d MiB", lettershop.MaxLetterExternalContent>>20)
	if lettershop.ErrorCode(err) != lettershop.CodeConflict || !strings.Contains(err.Error(), want) {
		t.Fatalf("render = %v, want a conflict saying %q", err, want)
	}
	if len(fetcher.asked) != n {
		t.Errorf("fetches = %d, want %d", len(fetcher.asked), n)
	}
}
