package lettershop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/lettershop/lettershop/fetchbatch"
	"github.com/lettershop/lettershop/internal/contenttext"
	"github.com/lettershop/lettershop/internal/echo"
)

// A version's content comes from a source: inline (sent in the request),
// import (downloaded once from a URL and kept) or externalUrl (kept at its
// URL and fetched when needed). What a version keeps of it is the same
// for every source: the source, the MIME type, the hash and length of the
// bytes stored (import and inline) and the URL it stays at (externalUrl).
// takeContent is where a source is read when a version is created or its
// content replaced; showVersion and GetVersionContent are where it is read
// back. Content fetched from a URL is checked as inline content is, each
// time it is fetched (content_fetch.go).

// contentSources are the sources a request may name.
var contentSources = []ContentSource{ContentInline, ContentImport, ContentExternalURL}

// MaxContentURL is the longest URL import and externalUrl content takes,
// in bytes.
const MaxContentURL = 2048

// takeContent checks content c given for a version of an asset of type t,
// sets v's content from it and returns the bytes to store (none for
// externalUrl content). Errors go to f, under the paths the request used
// (content.content, or content.data for the former name). Import content
// is downloaded here, with fetch: the bytes are checked as inline content
// is, up to MaxUploadContent, as large as an upload. externalUrl content
// is not fetched: its URL is checked (a form and a host this server may
// reach), and the content is fetched and checked whenever it is needed.
// err is a fetch the caller's context cut off, never the request's fault.
//
// With later (a version being made), content may be left for later: none
// given, or inline content without its text, makes v a version without
// content (hasContent), of the type given or the asset's first; it gets
// its content by an update or an upload, and is published only once it
// has it (the reference: inline content "can be provided upon creation
// or added/edited later").
func (s *Service) takeContent(ctx context.Context, f fieldErrors, t AssetType, c *VersionContent, v *AssetVersion, fetch fetchbatch.Func, later bool) ([]byte, error) {
	if c == nil {
		if !later {
			f.add("content", "content is required")
			return nil, nil
		}
		c = &VersionContent{}
	}
	if c.Content != "" && c.Data != "" {
		f.add("content.data", "data is the former name of content: give one of them, not both")
		return nil, nil
	}
	source := c.Source
	if source == "" {
		source = ContentInline
	}
	if !slices.Contains(contentSources, source) {
		enum(f, "content.source", source, contentSources)
		return nil, nil
	}
	typ := c.Type
	if typ == "" {
		typ = contentTypes[t][0]
	}
	if !slices.Contains(contentTypes[t], typ) {
		f.add("content.type", "%s, got %s", holdsMessage(t), echo.Quote(string(typ)))
		return nil, nil
	}
	text, path := c.given()
	if source != ContentInline {
		return s.takeURLContent(ctx, f, source, typ, text, path, v, fetch)
	}
	if text == "" {
		if later {
			v.Content = VersionContent{Source: source, Type: typ}
			return nil, nil
		}
		f.add(path, "the content can not be empty")
		return nil, nil
	}
	data, err := contenttext.Decode(string(typ), text)
	if err != nil {
		f.add(path, "%v", err)
		return nil, nil
	}
	if len(data) > MaxInlineContent {
		f.add(path, "inline content is at most %d bytes, got %d", MaxInlineContent, len(data))
		return nil, nil
	}
	if msg, err := checkContent(ctx, string(typ), data, v.VariableDefinitions); err != nil {
		return nil, err
	} else if msg != "" {
		f.add(path, "%s", msg)
		return nil, nil
	}
	setContent(v, source, typ, data)
	return data, nil
}

// takeURLContent is takeContent for import and externalUrl content, whose
// text is a URL.
func (s *Service) takeURLContent(ctx context.Context, f fieldErrors, source ContentSource, typ ContentType, url, path string, v *AssetVersion, fetch fetchbatch.Func) ([]byte, error) {
	switch {
	case url == "":
		f.add(path, "%s content is the http or https URL of the content: give it here", source)
		return nil, nil
	case len(url) > MaxContentURL:
		f.add(path, "the URL is at most %d bytes, got %d", MaxContentURL, len(url))
		return nil, nil
	}
	if _, err := s.egress.CheckURL(url); err != nil {
		f.add(path, "%v", err)
		return nil, nil
	}
	if source == ContentExternalURL {
		v.Content = VersionContent{Source: source, Type: typ}
		v.ContentLength, v.contentHash, v.externalURL = 0, "", url
		return nil, nil
	}
	data, mediaType, err := fetch(ctx, url)
	if fetchbatch.NotFetched(err) {
		// Cut off by the caller: nothing is known of the URL.
		return nil, storeErr("fetch "+path, err)
	}
	if err != nil {
		f.add(path, "the url in %s could not be fetched: %s", path, fetchFailure(err))
		return nil, nil
	}
	if msg, err := fetchedContentProblem(ctx, string(typ), mediaType, data, v.VariableDefinitions); err != nil {
		return nil, err
	} else if msg != "" {
		f.add(path, "the content at the url in %s can not be taken: %s", path, msg)
		return nil, nil
	}
	setContent(v, ContentImport, typ, data)
	return data, nil
}

// importContent is the fetch of import content: up to MaxUploadContent
// bytes, as an upload takes.
func (s *Service) importContent(ctx context.Context, url string) ([]byte, string, error) {
	return s.fetchURL(ctx, url, MaxUploadContent)
}

// setContent makes data, of MIME type typ from source, v's content. Content
// larger than inline content can be is left for showVersion to read, as it
// is shown only when the version is fetched.
func setContent(v *AssetVersion, source ContentSource, typ ContentType, data []byte) {
	sum := sha256.Sum256(data)
	v.Content = VersionContent{Source: source, Type: typ}
	if len(data) <= MaxInlineContent {
		v.Content.Content = contenttext.Encode(string(typ), data)
	}
	v.ContentLength = len(data)
	v.contentHash = hex.EncodeToString(sum[:])
	v.externalURL = ""
}

// contentChange returns the path of the first member of content c, given
// for a version of an asset of type t, that differs from v's, or "" when c
// is v's content: the same source and type (defaults filled) and the same
// bytes. Content without its content member (a big one as a list shows it)
// is v's when its source and type are.
func contentChange(c *VersionContent, t AssetType, v *AssetVersion) string {
	source, typ := c.Source, c.Type
	if source == "" {
		source = ContentInline
	}
	if typ == "" && len(contentTypes[t]) > 0 {
		typ = contentTypes[t][0]
	}
	text, path := c.given()
	switch {
	case source != v.Content.Source:
		return "content.source"
	case typ != v.Content.Type:
		return "content.type"
	case text == "":
		return ""
	case source == ContentExternalURL:
		if text != v.externalURL {
			return path
		}
		return ""
	}
	data, err := contenttext.Decode(string(typ), text)
	if err != nil {
		return path
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != v.contentHash {
		return path
	}
	return ""
}

// showVersion fills in what a version shows beyond what it keeps:
// ContentType, ContentURL, Publish and its content, read from the store
// unless it is already there. Content over MaxInlineContent (which only an
// upload stores) is read only when whole is set, for a fetch of the
// version: elsewhere a client reads it from ContentURL.
func (s *Service) showVersion(ctx context.Context, account string, v *AssetVersion, whole bool) error {
	return s.showVersions(ctx, account, []*AssetVersion{v}, whole)
}

// showVersions is showVersion for several versions, reading content that
// several share (clones) once.
func (s *Service) showVersions(ctx context.Context, account string, vs []*AssetVersion, whole bool) error {
	var read map[string]string
	for _, v := range vs {
		v.ContentType = v.Content.Type
		v.ContentURL = s.baseURL + "/assets/" + v.ID + "/content"
		v.Publish = v.Status == VersionPublished
		switch {
		case v.Content.Content != "" || !v.hasContent():
			continue
		case v.Content.Source == ContentExternalURL:
			v.Content.Content = v.externalURL
			continue
		case !whole && v.ContentLength > MaxInlineContent:
			continue
		}
		text, ok := read[v.contentHash]
		if !ok {
			data, err := s.store.GetContent(ctx, account, v.contentHash)
			if err != nil {
				return storeErr("get version content", err)
			}
			text = contenttext.Encode(string(v.Content.Type), data)
			if read == nil {
				read = make(map[string]string, len(vs))
			}
			read[v.contentHash] = text
		}
		v.Content.Content = text
	}
	return nil
}

// GetVersionContent returns the content of a version of any of the
// account's assets as itself (not base64-encoded), with its MIME type: what
// the version's ContentURL serves. The content of an externalUrl version is
// fetched, and checked as it is when a letter is printed: content that can
// not be fetched, or is not of the version's type or does not pass its
// checks, is a CodeUpstream error saying why. A version of another account
// is not found.
func (s *Service) GetVersionContent(ctx context.Context, account, versionID string) (ContentType, []byte, error) {
	if err := idErr("versionId", versionPrefix, versionID); err != nil {
		return "", nil, err
	}
	rec, err := s.store.GetAssetVersion(ctx, account, "", versionID)
	if err != nil {
		return "", nil, objectErr(err, "version", versionID, "get version")
	}
	v, err := versionFromRecord(rec)
	if err != nil {
		return "", nil, internal("get version", err)
	}
	if v.Content.Source == ContentExternalURL {
		return s.externalContent(ctx, v)
	}
	if !v.hasContent() {
		return v.Content.Type, []byte{}, nil
	}
	data, err := s.store.GetContent(ctx, account, v.contentHash)
	if err != nil {
		return "", nil, storeErr("get version content", err)
	}
	return v.Content.Type, data, nil
}

// externalContent fetches the content of an externalUrl version for
// GetVersionContent.
func (s *Service) externalContent(ctx context.Context, v *AssetVersion) (ContentType, []byte, error) {
	data, mediaType, err := s.fetchContent(ctx, v.externalURL)
	if fetchbatch.NotFetched(err) {
		return "", nil, storeErr("fetch version content", err)
	}
	if err != nil {
		return "", nil, errorf(CodeUpstream, "the content of version %s could not be fetched from %s: %s", v.ID, v.externalURL, fetchFailure(err))
	}
	if msg, err := fetchedContentProblem(ctx, string(v.Content.Type), mediaType, data, v.VariableDefinitions); err != nil {
		return "", nil, err
	} else if msg != "" {
		return "", nil, errorf(CodeUpstream, "the content of version %s fetched from %s is not usable: %s", v.ID, v.externalURL, msg)
	}
	return v.Content.Type, data, nil
}
