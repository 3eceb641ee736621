package lettershop

import (
	"context"
	"errors"
	"fmt"
	"html"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lettershop/lettershop/fetchbatch"
	"github.com/lettershop/lettershop/render"
	"github.com/lettershop/lettershop/rendercache"
	"github.com/lettershop/lettershop/storage"
)

// Rendering defaults.
const (
	// DefaultRenderCacheSize is how many rendered letters are kept unless
	// WithRenderCacheSize says otherwise.
	DefaultRenderCacheSize = rendercache.DefaultSize
	// MaxImagePixels is the largest image (width times height) a version
	// can hold.
	MaxImagePixels = render.MaxImagePixels
)

// WithRenderCacheSize sets how many rendered letters are kept in memory, so
// repeated downloads of a letter are not rendered again. Zero or less turns
// the cache off. The default is DefaultRenderCacheSize.
func WithRenderCacheSize(n int) Option {
	return func(s *Service) { s.render.cacheSize = n }
}

// Renderer draws a letter, mapped to render's values, into its PDF. It
// must be deterministic for a given letter and safe for concurrent use.
// The default draws with package render; WithRenderer puts another in its
// place, for example a print provider's proofs.
type Renderer interface {
	Render(l render.Letter) ([]byte, error)
}

// builtinRenderer draws with package render.
type builtinRenderer struct{}

func (builtinRenderer) Render(l render.Letter) ([]byte, error) { return render.Render(l) }

// WithRenderer replaces the built-in renderer (package render).
func WithRenderer(r Renderer) Option {
	return func(s *Service) { s.render.renderer = r }
}

// Fetcher fetches content given by URL: a version's content imported
// (when the version is made) or kept at a URL (externalUrl, when a letter
// is printed or the content read), and the image or font a variable of
// type externalUrl names, when the letter is printed. Fetch returns the
// body of a public URL and its media type, or an error for a URL that can
// not be fetched or a body longer than maxBytes; it must honour ctx's
// deadline and be safe for concurrent use. The default fetches through
// the Service's egress policy (WithEgress).
type Fetcher interface {
	Fetch(ctx context.Context, url string, maxBytes int64) (body []byte, mediaType string, err error)
}

// WithFetcher sets how content given by URL is fetched (see Fetcher).
func WithFetcher(f Fetcher) Option {
	return func(s *Service) { s.render.fetcher = f }
}

// Limits of content fetched from a URL: an externalUrl version's content
// and an externalUrl variable's image or font, fetched when a letter is
// printed or the content read. (An import takes up to MaxUploadContent.)
const (
	// MaxExternalContent is the largest content fetched, in bytes.
	MaxExternalContent = 10 << 20
	// ExternalFetchTimeout bounds one fetch, an import's too.
	ExternalFetchTimeout = 10 * time.Second
	// MaxLetterExternalContent is the most a letter's images and fonts at
	// URLs come to, in bytes: each is held while the letter prints, and a
	// hundred of 10 MiB held a gigabyte.
	MaxLetterExternalContent = 4 * MaxExternalContent
)

// renderState is the Service's rendering state: its options, and the
// cache of rendered letters by their stored state.
type renderState struct {
	renderer  Renderer
	fetcher   Fetcher
	cacheSize int
	cache     *rendercache.Cache
	// gate lets as many letters render at once as there are cores.
	gate *render.Gate
}

// setUp makes what the options chose, once, as the Service is made: the
// built-in renderer unless WithRenderer gave another, and the cache.
func (r *renderState) setUp() {
	if r.renderer == nil {
		r.renderer = builtinRenderer{}
	}
	r.cache = rendercache.New(r.cacheSize)
	r.gate = render.NewGate(runtime.GOMAXPROCS(0))
}

// checkContent returns what is wrong with content of a MIME type, or ""
// when it can be stored: render.CheckContent, the variables of defs that
// name images or fonts allowed in a template. It runs when a version is
// created or changed, so that a letter never fails at download time. err
// is ctx ended while the check waited for its turn (CodeCanceled).
func checkContent(ctx context.Context, mime string, data []byte, defs []VariableDefinition) (string, error) {
	msg, err := render.CheckContent(ctx, mime, data, resourceVariables(defs))
	return msg, storeErr("wait to check content", err)
}

// printableContent returns why a letter can not be printed from content of a
// MIME type, or "" when it can.
func printableContent(mime string) string {
	switch {
	case render.Printable(mime):
		return ""
	case strings.HasPrefix(mime, "font/"):
		return "a font can not be printed on its own: use a template, image or document asset"
	default:
		return fmt.Sprintf("content of type %s can not be printed", mime)
	}
}

// RenderLetter returns the letter as it would be printed: a US Letter PDF
// whose first page carries the return address and the recipient in the
// windows of a #10 double-window envelope, followed by the content. The same
// letter always renders to the same bytes: every date in it comes from the
// letter (its sendDate, else its creation time), never from the clock.
func (s *Service) RenderLetter(ctx context.Context, account, id string) ([]byte, error) {
	ctx, erasures := s.Erasures(ctx, account)
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return s.renderLetter(ctx, account, l, erasures)
}

// renderLetter renders l, read at the account's count of erasures
// (Erasures), from the cache when it was rendered since it last changed,
// and tells the Render hook.
func (s *Service) renderLetter(ctx context.Context, account string, l *Letter, erasures uint64) ([]byte, error) {
	key := rendercache.Key{Account: account, ID: l.ID, Modified: l.ModifiedAt.UnixNano(), Revision: l.revision, Erasures: erasures}
	return s.render.cache.Observed(key, s.hooks.Render, func() ([]byte, error) {
		content, res, problem, err := s.printSources(ctx, account, l, s.fetchContent)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			return nil, s.contentIssue(ctx, account, l, problem)
		}
		if err := s.render.gate.Enter(ctx); err != nil {
			return nil, storeErr("wait to render letter "+l.ID, err)
		}
		defer s.render.gate.Leave()
		d := drawing(l, content)
		d.Resources = res
		b, err := s.render.renderer.Render(d)
		if errors.Is(err, render.ErrDrawingCost) {
			// A letter made before its images were counted.
			return nil, s.contentIssue(ctx, account, l, err.Error()+"; then update the letter's variables to queue it again")
		}
		if err != nil {
			return nil, internal("render letter "+l.ID, err)
		}
		return b, nil
	})
}

// letterDate is the date a letter carries: its send date, else the day it
// was made.
func letterDate(l *Letter) time.Time {
	if t, err := time.Parse(time.DateOnly, l.SendDate); err == nil {
		return t
	}
	return l.CreatedAt.UTC()
}

// drawing is what the render package draws for l, printed from content.
func drawing(l *Letter, content []byte) render.Letter {
	d := render.Letter{
		ID:          l.ID,
		Description: l.Description,
		Date:        letterDate(l),
		Color:       l.Options.Print != nil && l.Options.Print.Color,
		Sender:      partyLines(l.Sender, ""),
		Recipient:   partyLines(l.Recipient, l.Recipient.NonAddressData),
		Type:        l.snapshot.Type,
		Content:     content,
	}
	if l.Options.Print != nil {
		d.Placement = render.Placement(l.Options.Print.AddressPlacement)
	}
	if d.Type == "text/html" && utf8.Valid(content) {
		d.Content = []byte(MergeTemplate(string(content), l.snapshot.Merge, html.EscapeString))
	}
	return d
}

// partyLines are the lines of a party's address block, in USPS order:
// above (the recipient's nonAddressData), name, organization, address.
func partyLines(p Party, above string) []string {
	var lines []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	add(above)
	if ind := p.Individual; ind != nil {
		name := ind.FullName
		if strings.TrimSpace(name) == "" {
			name = joinNonEmpty(" ", ind.Prefix, ind.FirstName, ind.MiddleName, ind.LastName, ind.Postfix)
		}
		// A title is not part of a postal address; it would only crowd the
		// window.
		add(name)
	}
	add(p.Organization)
	add(urbanizationLine(p))
	add(p.Address.AddressLine1)
	add(p.Address.AddressLine2)
	add(p.Address.LastLine)
	return lines
}

// urbanizationLine is the line a Puerto Rico address prints above its
// delivery line (Publication 28 section 29): its urbanization, which tells
// apart the same street in two urbanizations of one ZIP Code. None outside
// Puerto Rico, where there is none, nor when an address line holds it.
func urbanizationLine(p Party) string {
	c := p.AddressComponents
	if c == nil || !strings.EqualFold(c.State, "PR") || strings.TrimSpace(c.Urbanization) == "" {
		return ""
	}
	for _, l := range []string{p.Address.AddressLine1, p.Address.AddressLine2} {
		if strings.EqualFold(strings.TrimSpace(l), strings.TrimSpace(c.Urbanization)) {
			return ""
		}
	}
	return c.Urbanization
}

// recheckContent checks a version's stored template against its new
// variable definitions, which say which variables may be images or fonts.
// A template kept at a URL is checked against them when it is fetched. err
// is the store's failure to read the template, never the request's.
func (s *Service) recheckContent(ctx context.Context, account string, v *AssetVersion, f fieldErrors) error {
	if v.Content.Type != ContentHTML || v.Content.Source == ContentExternalURL || !v.hasContent() {
		return nil
	}
	data, err := s.store.GetContent(ctx, account, v.contentHash)
	if err != nil {
		return storeErr("recheck version content", err)
	}
	if msg, err := checkContent(ctx, string(v.Content.Type), data, v.VariableDefinitions); err != nil {
		return err
	} else if msg != "" {
		f.add("variableDefinitions", "the template does not print with these definitions: %s", msg)
	}
	return nil
}

// printSources reads what l prints: its content (stored, or fetched from
// the URL its version keeps it at) and the images and fonts its template
// shows from variables (the asset content kept when the letter was made,
// and the content of externalUrl variables, fetched). Each URL is fetched
// with fetch, and what it gives is checked as content stored in the
// service is. problem says why the letter can not be printed, for its
// sender to act on; err is a failure of the service (its store, or ctx
// ended), after which nothing is known of the letter's content.
func (s *Service) printSources(ctx context.Context, account string, l *Letter, fetch fetchbatch.Func) (content []byte, res map[string]render.Resource, problem string, err error) {
	if u := l.snapshot.url(); u != "" {
		body, mediaType, ferr := fetch(ctx, u)
		switch {
		case fetchbatch.NotFetched(ferr):
			return nil, nil, "", storeErr("fetch letter content", ferr)
		case ferr != nil:
			return nil, nil, fmt.Sprintf("the content of version %s could not be fetched from %s (%s). Make sure the host answers at that URL with %s of at most %d MiB; then update the letter, giving its content again, to queue it again",
				l.Content.AssetVersionID, u, fetchFailure(ferr), l.snapshot.Type, MaxExternalContent>>20), nil
		}
		msg, err := fetchedContentProblem(ctx, l.snapshot.Type, mediaType, body, l.snapshot.Definitions)
		if err != nil {
			return nil, nil, "", err
		}
		if msg == "" && l.snapshot.Type == "text/html" {
			if n := mergedLength(string(body), l.snapshot.Merge, html.EscapeString); n > render.MaxTemplateBytes {
				msg = fmt.Sprintf("with the letter's values merged it is %d bytes, and at most %d print", n, render.MaxTemplateBytes)
			}
		}
		if msg != "" {
			return nil, nil, fmt.Sprintf("the content of version %s fetched from %s can not be printed: %s. Fix the content at that URL; then update the letter, giving its content again, to queue it again",
				l.Content.AssetVersionID, u, msg), nil
		}
		content = body
	} else {
		content, err = s.store.GetContent(ctx, account, l.snapshot.Hash)
		if errors.Is(err, storage.ErrNotFound) {
			return nil, nil, "", internal("render letter "+l.ID, fmt.Errorf("content %s is gone: %w", l.snapshot.Hash, err))
		}
		if err != nil {
			return nil, nil, "", storeErr("render letter", err)
		}
	}
	res, problem, err = s.letterResources(ctx, account, l, content, fetch)
	return content, res, problem, err
}

// letterResources gathers the images and fonts a letter's template shows
// from its variables, by the value merged in each one's place: the asset
// content kept when the letter was made, and the content of externalUrl
// variables, fetched. A template fetched from a URL was not at hand when
// the letter was made: how it shows the assets is checked here, and what
// all the images cost to draw (those at a URL were not at hand either).
func (s *Service) letterResources(ctx context.Context, account string, l *Letter, template []byte, fetch fetchbatch.Func) (map[string]render.Resource, string, error) {
	if l.snapshot.Type != "text/html" || len(resourceVariables(l.snapshot.Definitions)) == 0 {
		return nil, "", nil
	}
	res, fetched, held := map[string]render.Resource{}, false, 0
	for _, ref := range l.snapshot.Assets {
		data, err := s.store.GetContent(ctx, account, ref.Hash)
		if err != nil {
			return nil, "", internal("render letter "+l.ID, fmt.Errorf("content %s of asset %s: %w", ref.Hash, ref.AssetID, err))
		}
		if external := l.snapshot.url(); external != "" {
			if msg := render.UseProblem(template, ref.Name, ref.Type, data); msg != "" {
				return nil, fmt.Sprintf("asset %s, the value of variable %s, does not print in the template fetched from %s: %s. Update the letter's variables, or the template at that URL",
					ref.AssetID, ref.Name, external, msg), nil
			}
		}
		res[ref.AssetID] = render.Resource{Type: ref.Type, Data: data}
	}
	for _, d := range l.snapshot.Definitions {
		if d.Type != VariableTypeExternalURL {
			continue
		}
		url := ""
		for _, v := range l.snapshot.Merge {
			if v.Name == d.Name && v.Value != nil {
				url = *v.Value
			}
		}
		if url == "" {
			continue
		}
		body, _, err := fetch(ctx, url)
		if fetchbatch.NotFetched(err) {
			return nil, "", storeErr("fetch letter content", err)
		}
		problem := ""
		if err != nil {
			problem = "the fetch failed (" + fetchFailure(err) + ")"
		} else if held += len(body); held > MaxLetterExternalContent {
			problem = fmt.Sprintf("with it the letter's images and fonts at URLs come to more than %d MiB", MaxLetterExternalContent>>20)
		}
		var r render.Resource
		if problem == "" {
			r, problem = render.FetchedResource(template, d.Name, body)
		}
		if problem != "" {
			return nil, fmt.Sprintf("the image or font of variable %s could not be used from %s: %s. Make sure the host answers at that URL with a PNG or JPEG image, or a TrueType font, of at most %d MiB, or use a variable of type asset; then update the letter's variables (giving them again is enough) to queue it again",
				d.Name, url, problem, MaxExternalContent>>20), nil
		}
		res[url] = r
		fetched = true
	}
	if !fetched && l.snapshot.url() == "" {
		// Stored images in a stored template: counted when the letter was
		// made or its variables changed, and not read again here.
		return res, "", nil
	}
	d := drawing(l, template)
	d.Resources = res
	if msg := render.DrawingProblem(d); msg != "" {
		return nil, msg + "; then update the letter's variables (giving them again is enough) to queue it again", nil
	}
	return res, "", nil
}

// contentIssuePrefix begins the issueMessage of a letter whose content
// could not be printed; an update of its content or variables clears it.
const contentIssuePrefix = "The letter can not be printed: "

// contentIssue puts a queued or ready letter at issue, because its
// content can not be printed for the reason why, and returns the error
// for the request that found it. A letter at issue already keeps its
// message; one further on keeps its status.
func (s *Service) contentIssue(ctx context.Context, account string, l *Letter, why string) error {
	msg := contentIssuePrefix + why
	_, err := s.modifyLetter(ctx, account, l.ID, func(l *Letter) error {
		if l.Status != StatusQueued && l.Status != StatusReady {
			return errUnchanged
		}
		l.IssueMessage = msg
		s.life.transition(l, StatusIssue, s.now(account), msg)
		return nil
	})
	if err != nil {
		s.logger.Error("put letter at issue", "letter", l.ID, "err", err)
	}
	return errorf(CodeConflict, "letter %s can not be printed: %s", l.ID, why)
}
