package lettershop

import (
	"context"
	"fmt"
	"html"
	"slices"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/render"
)

// What a letter prints, checked where the letter is made or changed: the
// render package says what its fonts can print, the rules here say which
// fields are printed and what may be asked of a PDF document.

// addressPlacements are the values of options.print.addressPlacement.
var addressPlacements = []string{string(render.InsertBlankPage), string(render.TopFirstPage)}

// checkLetterContent checks a letter's variables against its content:
// sets the values to merge, and resolves the images and fonts its
// variables of type asset name. err is the store's failure to read them,
// never the request's.
func (s *Service) checkLetterContent(ctx context.Context, account string, l *Letter, f fieldErrors) error {
	l.snapshot.Merge = checkLetterVariables(l, f)
	l.snapshot.Assets = nil
	template, err := s.checkMergedSize(ctx, account, l, f)
	if err != nil {
		return err
	}
	if len(resourceVariables(l.snapshot.Definitions)) > 0 {
		return s.checkVariableAssets(ctx, account, l, template, f)
	}
	return nil
}

// checkMergedSize refuses a letter whose template, with its variables
// merged, is larger than prints (render.MaxTemplateBytes): a value merged
// in many places multiplies. The template is read only when its length
// and the values' could make it so (a placeholder, {{x}}, is 5 bytes at
// least, so a template of n bytes merges values n/5 times at most); one
// kept at a URL is checked when it is fetched (printSources). It returns
// the template when it read it, for the checks that follow.
func (s *Service) checkMergedSize(ctx context.Context, account string, l *Letter, f fieldErrors) ([]byte, error) {
	if l.snapshot.Type != "text/html" || l.snapshot.url() != "" {
		return nil, nil
	}
	grow := 0
	for _, v := range l.snapshot.Merge {
		if v.Value != nil {
			grow = max(grow, len(html.EscapeString(*v.Value)))
		}
	}
	if n := l.templateLen; grow == 0 || n > 0 && n+grow*(n/5) <= render.MaxTemplateBytes {
		return nil, nil
	}
	tpl, err := s.store.GetContent(ctx, account, l.snapshot.Hash)
	if err != nil {
		return nil, storeErr("read template", err)
	}
	if n := mergedLength(string(tpl), l.snapshot.Merge, html.EscapeString); n > render.MaxTemplateBytes {
		f.add("variables", "the template with these values merged is %d bytes; at most %d print: shorten the values, or use them in fewer places", n, render.MaxTemplateBytes)
	}
	return tpl, nil
}

// checkLetterVariables checks a letter's variables against its content and
// returns the values to merge. A PDF document takes no variables: any is an
// error naming variables, unless the letter's validation scope is none.
func checkLetterVariables(l *Letter, f fieldErrors) []Variable {
	scope := l.Options.VariableHandling.ValidationScope
	if l.snapshot.Type == "application/pdf" {
		if len(l.Variables) > 0 && scope != "none" {
			f.add("variables", "a PDF document has no variables: leave variables out, or set options.variableHandling.validationScope to none")
		}
		return nil
	}
	for _, v := range l.Variables {
		if v.Value != nil {
			checkPrintable(f, "variables["+v.Name+"]", *v.Value)
		}
	}
	return checkVariables(l.snapshot.Definitions, l.Variables, string(scope), f)
}

// checkPrintableParty checks that the fields of a party that print on the
// letter are in scripts the letter fonts cover.
func checkPrintableParty(f fieldErrors, path string, p *PartyInput) {
	if p == nil {
		return
	}
	if ind := p.Individual; ind != nil {
		for _, fld := range [][2]string{
			{"fullName", ind.FullName}, {"prefix", ind.Prefix}, {"firstName", ind.FirstName},
			{"middleName", ind.MiddleName}, {"lastName", ind.LastName}, {"postfix", ind.Postfix},
		} {
			checkPrintableAt(f, path, ".individual.", fld[0], fld[1])
		}
	}
	checkPrintableAt(f, path, ".", "organization", p.Organization)
	checkPrintableAt(f, path, ".", "nonAddressData", p.NonAddressData)
	a := p.Address
	for _, fld := range [][2]string{
		{"addressLine1", a.AddressLine1}, {"addressLine2", a.AddressLine2}, {"lastLine", a.LastLine},
		{"city", a.City}, {"state", a.State}, {"zipCode", a.ZipCode}, {"urbanization", a.Urbanization},
	} {
		checkPrintableAt(f, path, ".address.", fld[0], fld[1])
	}
}

// checkPrintableAt is checkPrintable at path+sub+name, the path made only
// for a problem: a party has a dozen fields, rarely one that can not print.
func checkPrintableAt(f fieldErrors, path, sub, name, v string) {
	if msg := render.TextProblem(v); msg != "" {
		f.add(path+sub+name, "%s", msg)
	}
}

// checkPrintable adds an error at path when v has letters of a script the
// letter fonts do not cover: such a letter would print wrong.
func checkPrintable(f fieldErrors, path, v string) {
	if msg := render.TextProblem(v); msg != "" {
		f.add(path, "%s", msg)
	}
}

// assetRef is an image or font a letter's variable of type asset names, as
// the letter prints it: the content its asset had published when the
// letter was made or its content or variables last changed. A later
// version published of the asset does not change a letter made before,
// as a new version of its template does not.
type assetRef struct {
	Name      string `json:"name"`
	AssetID   string `json:"assetId"`
	VersionID string `json:"versionId"`
	Hash      string `json:"hash"`
	Type      string `json:"type"`
}

// checkVariableAssets checks the values of a letter's variables of type
// asset and externalUrl, and keeps in the letter's snapshot the content of
// each asset named. An asset must be an image or font of the account with
// a published version, of the kind the template uses it as (an image for
// <img>, a font for @font-face); an image must print at render.MinImageDPI
// or more at the size the template prints it. An externalUrl must be an
// http or https URL; it is fetched when the letter is printed. A template
// kept at a URL is not fetched here: how it shows the assets named is
// checked when it is fetched, as the letter is printed. Errors name
// variables[i].value, i the variable's place in the request (a preset
// value, which the request does not hold, is named by content.assetId,
// the message saying which version presets which variable to what).
// The images named must not cost more to draw, together, than a letter
// may (render.DrawingProblem), an error naming variables.
// template is the letter's stored template when already read (nil: it is
// read here when needed). A store that fails to read what is checked is
// err, not a field error.
func (s *Service) checkVariableAssets(ctx context.Context, account string, l *Letter, template []byte, f fieldErrors) error {
	var images, fonts []string
	parsed, held := false, 0
	res := map[string]render.Resource{}
	for _, d := range l.snapshot.Definitions {
		if d.Type != VariableTypeAsset && d.Type != VariableTypeExternalURL {
			continue
		}
		value, at := mergedValue(l, d.Name)
		if value == "" {
			continue
		}
		say := ""
		if at == "" {
			// A preset: the letter's content is what holds it.
			at, say = "content.assetId", fmt.Sprintf("version %s presets %s to %s: ", l.Content.AssetVersionID, d.Name, echo.Quote(value))
		}
		if d.Type == VariableTypeExternalURL {
			if msg := externalURLProblem(value); msg != "" {
				f.add(at, "%s%s", say, msg)
			}
			continue
		}
		if !parsed && l.snapshot.url() == "" {
			if template == nil {
				var err error
				if template, err = s.store.GetContent(ctx, account, l.snapshot.Hash); err != nil {
					return storeErr("read template", err)
				}
			}
			images, fonts = render.TemplateResources(template)
			parsed = true
		}
		ref, data, msg, err := s.resolveVariableAsset(ctx, account, template, d.Name, value, slices.Contains(images, d.Name), slices.Contains(fonts, d.Name))
		if err != nil {
			return err
		}
		if msg != "" {
			f.add(at, "%s%s", say, msg)
			continue
		}
		l.snapshot.Assets = append(l.snapshot.Assets, ref)
		res[value] = render.Resource{Type: ref.Type, Data: data}
		if held += len(data); held > render.MaxResourceBytes {
			break // render.DrawingProblem says so
		}
	}
	if template != nil && len(res) > 0 {
		d := drawing(l, template)
		d.Resources = res
		if msg := render.DrawingProblem(d); msg != "" {
			f.add("variables", "%s", msg)
		}
	}
	return nil
}

// mergedValue is the value a variable merges with, and the path of the
// request's variable that gave it ("" for a preset).
func mergedValue(l *Letter, name string) (value, at string) {
	for _, v := range l.snapshot.Merge {
		if v.Name == name && v.Value != nil {
			value = *v.Value
		}
	}
	for i, v := range l.Variables {
		if v.Name == name && v.Value != nil && *v.Value == value {
			at = fmt.Sprintf("variables[%d].value", i)
		}
	}
	return value, at
}

// resolveVariableAsset resolves the asset id a variable holds to the
// content it prints (ref, and data, its bytes), or says what is wrong with
// it (msg); err is the store's failure to read it.
func (s *Service) resolveVariableAsset(ctx context.Context, account string, template []byte, name, id string, asImage, asFont bool) (ref assetRef, data []byte, msg string, err error) {
	if !ValidID(assetPrefix, id) {
		return assetRef{}, nil, fmt.Sprintf("a variable of type asset holds an asset id, %s followed by letters and digits", assetPrefix), nil
	}
	a, err := s.getAsset(ctx, account, id)
	if ErrorCode(err) == CodeNotFound {
		return assetRef{}, nil, fmt.Sprintf("asset %s not found", id), nil
	} else if err != nil {
		return assetRef{}, nil, "", err
	}
	switch {
	case a.Type != AssetImage && a.Type != AssetFont:
		return assetRef{}, nil, fmt.Sprintf("asset %s is a %s asset: a variable of type asset names an image or a font asset", id, a.Type), nil
	case asImage && a.Type != AssetImage:
		return assetRef{}, nil, fmt.Sprintf("asset %s is a %s asset, and the template shows {{%s}} as an image: name an image asset", id, a.Type, name), nil
	case asFont && a.Type != AssetFont:
		return assetRef{}, nil, fmt.Sprintf("asset %s is an %s asset, and the template uses {{%s}} as a font: name a font asset", id, a.Type, name), nil
	case a.PublishedVersionID == "":
		return assetRef{}, nil, fmt.Sprintf("asset %s has no published version: publish one first", id), nil
	}
	v, err := s.getVersion(ctx, account, id, a.PublishedVersionID)
	if ErrorCode(err) == CodeNotFound {
		// Deleted since the asset was read.
		return assetRef{}, nil, fmt.Sprintf("asset %s not found", id), nil
	} else if err != nil {
		return assetRef{}, nil, "", err
	}
	data, err = s.store.GetContent(ctx, account, v.contentHash)
	if err != nil {
		return assetRef{}, nil, "", storeErr("read the content of asset "+id, err)
	}
	if msg := render.CheckStoredResource(template, name, string(v.Content.Type), data); msg != "" {
		return assetRef{}, nil, fmt.Sprintf("asset %s: %s", id, msg), nil
	}
	return assetRef{Name: name, AssetID: id, VersionID: v.ID, Hash: v.contentHash, Type: string(v.Content.Type)}, data, "", nil
}

// resolveContent checks the letter's content names an asset of the account
// and a published version of it (its published one when none is named), and
// snapshots what the letter will be printed from. It reports whether it
// could; err is the store's failure to tell (an internal or cancelled
// error), never the request's.
func (s *Service) resolveContent(ctx context.Context, account string, l *Letter, f fieldErrors) (resolved bool, err error) {
	c := &l.Content
	ok := true
	if c.Type != LetterContentAsset {
		f.add("content.type", "must be asset")
		ok = false
	}
	if !f.id("content.assetId", assetPrefix, c.AssetID) {
		return false, nil
	}
	if c.AssetVersionID != "" && !f.id("content.assetVersionId", versionPrefix, c.AssetVersionID) {
		return false, nil
	}
	a, err := s.getAsset(ctx, account, c.AssetID)
	if ErrorCode(err) == CodeNotFound {
		f.add("content.assetId", "asset %s not found", c.AssetID)
		return false, nil
	} else if err != nil {
		return false, err
	}
	vid := c.AssetVersionID
	if vid == "" {
		if a.PublishedVersionID == "" {
			f.add("content.assetId", "asset %s has no published version", c.AssetID)
			return false, nil
		}
		vid = a.PublishedVersionID
	}
	v, err := s.getVersion(ctx, account, c.AssetID, vid)
	if ErrorCode(err) == CodeNotFound {
		f.add("content.assetVersionId", "version %s of asset %s not found", vid, c.AssetID)
		return false, nil
	} else if err != nil {
		return false, err
	}
	if v.Status != VersionPublished {
		f.add("content.assetVersionId", "version %s is %s: only a published version can be mailed", vid, v.Status)
		return false, nil
	}
	if why := printableContent(string(v.Content.Type)); why != "" {
		f.add("content.assetId", "%s", why)
		return false, nil
	}
	c.AssetVersionID = vid
	l.templateLen = v.ContentLength
	hash := v.contentHash
	if v.Content.Source == ContentExternalURL {
		hash = v.externalURL
	}
	l.snapshot = contentSnapshot{
		Hash:        hash,
		Type:        string(v.Content.Type),
		Definitions: slices.Clone(v.VariableDefinitions),
	}
	return ok, nil
}
