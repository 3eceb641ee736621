package lettershop

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/storage"
)

// A version's content comes from a source: inline (sent in the request),
// import (downloaded once from a URL and kept) or externalUrl (kept at its
// URL and fetched when needed). What a version keeps of it is the same
// for every source: the source, the MIME type, the hash and length of the
// bytes stored (import and inline) and the URL it stays at (externalUrl).
// takeContent is where a source is read when a version is created or its
// content replaced; showVersion and GetVersionContent are where it is read
// back. Only inline content is taken yet.

// contentSources are the sources a request may name.
var contentSources = []ContentSource{ContentInline, ContentImport, ContentExternalURL}

// takeContent checks content c given for a version of an asset of type t,
// sets v's content from it and returns the bytes to store. Errors go to f,
// under the paths the request used (content.content, or content.data for
// the former name). A source that fetches (import, externalUrl) will take
// the request's context and the Service's outbound policy here, and go on
// to the same checks as inline content with the bytes it fetched.
func (s *Service) takeContent(f fieldErrors, t AssetType, c *VersionContent, v *AssetVersion) []byte {
	if c == nil {
		f.add("content", "content is required")
		return nil
	}
	if c.Content != "" && c.Data != "" {
		f.add("content.data", "data is the former name of content: give one of them, not both")
		return nil
	}
	source := c.Source
	if source == "" {
		source = ContentInline
	}
	switch source {
	case ContentInline:
	case ContentImport, ContentExternalURL:
		f.add("content.source", "%s content is not supported yet: send the content itself, with source inline", source)
		return nil
	default:
		enum(f, "content.source", source, contentSources)
		return nil
	}
	typ := c.Type
	if typ == "" {
		typ = contentTypes[t][0]
	}
	if !slices.Contains(contentTypes[t], typ) {
		f.add("content.type", "a %s asset holds %s, got %s", t, joinEnumWith(contentTypes[t], " or "), echo.Quote(string(typ)))
		return nil
	}
	text, path := c.given()
	if text == "" {
		f.add(path, "the content can not be empty")
		return nil
	}
	data := []byte(text)
	if binaryContent(string(typ)) {
		var err error
		if data, err = base64.StdEncoding.DecodeString(text); err != nil {
			f.add(path, "%s content must be base64-encoded: %v", typ, err)
			return nil
		}
	}
	if len(data) > MaxInlineContent {
		f.add(path, "inline content is at most %d bytes, got %d", MaxInlineContent, len(data))
		return nil
	}
	if msg := checkContent(string(typ), data, v.VariableDefinitions); msg != "" {
		f.add(path, "%s", msg)
		return nil
	}
	setContent(v, source, typ, data)
	return data
}

// setContent makes data, of MIME type typ from source, v's content. Content
// larger than inline content can be is left for showVersion to read, as it
// is shown only when the version is fetched.
func setContent(v *AssetVersion, source ContentSource, typ ContentType, data []byte) {
	sum := sha256.Sum256(data)
	v.Content = VersionContent{Source: source, Type: typ}
	if len(data) <= MaxInlineContent {
		v.Content.Content = encodeContent(string(typ), data)
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
	data := []byte(text)
	if binaryContent(string(typ)) {
		var err error
		if data, err = base64.StdEncoding.DecodeString(text); err != nil {
			return path
		}
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
		case v.Content.Content != "":
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
			text = encodeContent(string(v.Content.Type), data)
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
// the version's ContentURL serves. A version of another account is not
// found.
func (s *Service) GetVersionContent(ctx context.Context, account, versionID string) (ContentType, []byte, error) {
	if !ValidID(versionPrefix, versionID) {
		return "", nil, invalidField("versionId", "must be %s followed by letters and digits", versionPrefix)
	}
	rec, err := s.store.GetAssetVersion(ctx, account, "", versionID)
	if errors.Is(err, storage.ErrNotFound) {
		return "", nil, notFound("version", versionID)
	}
	if err != nil {
		return "", nil, storeErr("get version", err)
	}
	v, err := versionFromRecord(rec)
	if err != nil {
		return "", nil, internal("get version", err)
	}
	if v.Content.Source == ContentExternalURL {
		// Fetched from v.externalURL once such content is taken.
		return "", nil, errorf(CodeConflict, "version %s keeps its content at %s", v.ID, v.externalURL)
	}
	data, err := s.store.GetContent(ctx, account, v.contentHash)
	if err != nil {
		return "", nil, storeErr("get version content", err)
	}
	return v.Content.Type, data, nil
}
