package inbox_test

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// TestPreviewImagePlaceholders: a template's images drawn from variables,
// whose values come with each letter, are previewed as placeholders naming
// the variable and its type (an SVG in a data: URL, which the frame's
// policy lets it show), in place of an empty box; the rest of the
// template, and a {{name}} that is not an image, are left as they are.
func TestPreviewImagePlaceholders(t *testing.T) {
	e := newEnv(t)
	c := e.loggedIn(testKey)
	a := e.template()
	const tpl = `<img src="{{logo}}" width="200" height="80"><p>Dear {{name}},</p><img alt="banner" src={{banner}}><img src="{{ logo }}">`
	v, err := e.svc.CreateVersion(e.ctx, e.account, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: tpl},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name"},
			{Name: "logo", Type: lettershop.VariableTypeAsset, Behavior: lettershop.VariableRequired},
			{Name: "banner", Type: lettershop.VariableTypeExternalURL}}})
	if err != nil {
		t.Fatal(err)
	}
	content := c.get("/inbox/assets/" + a.ID + "/versions/" + v.ID + "/content")
	wantStatus(t, content, http.StatusOK)
	if csp := content.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src data:") {
		t.Fatalf("CSP %q does not let the frame show a data: image", csp)
	}
	wantContains(t, content.Body, `width="200" height="80"><p>Dear {{name}},</p><img alt="banner" src=data:image/svg+xml;base64,`)
	wantLacks(t, content.Body, "{{logo}}", "{{banner}}")
	srcs := regexp.MustCompile(`src="?data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)`).FindAllStringSubmatch(content.Body, -1)
	if len(srcs) != 3 {
		t.Fatalf("%d placeholders in %s, want 3", len(srcs), content.Body)
	}
	for i, want := range []string{"{{logo}}</tspan>", "{{banner}}</tspan>", "{{logo}}</tspan>"} {
		svg, err := base64.StdEncoding.DecodeString(srcs[i][1])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(svg), "<svg ") || !strings.Contains(string(svg), want) {
			t.Errorf("placeholder %d: %s, want an SVG naming %s", i, svg, want)
		}
	}
	if svg, _ := base64.StdEncoding.DecodeString(srcs[1][1]); !strings.Contains(string(svg), "image · externalUrl") {
		t.Errorf("banner's placeholder %s does not say its type", svg)
	}
	wantContains(t, c.get("/inbox/assets/"+a.ID+"/versions/"+v.ID).Body,
		`id="image-variables">Images drawn from a variable (<code>logo</code>, <code>banner</code>)`)

	// A template without such images is served as it is, and says nothing
	// of placeholders.
	plain, err := e.svc.CreateVersion(e.ctx, e.account, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: `<p>Dear {{name}},</p>`},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.get("/inbox/assets/" + a.ID + "/versions/" + plain.ID + "/content").Body; got != `<p>Dear {{name}},</p>` {
		t.Errorf("a template without images served as %q", got)
	}
	wantLacks(t, c.get("/inbox/assets/"+a.ID+"/versions/"+plain.ID).Body, `id="image-variables"`)
}
