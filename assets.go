package lettershop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop/fetchbatch"
	"github.com/lettershop/lettershop/internal/pagetoken"
	"github.com/lettershop/lettershop/storage"
)

// AssetType is what kind of content an asset holds.
type AssetType string

// The asset types.
const (
	AssetTemplate AssetType = "template"
	AssetImage    AssetType = "image"
	AssetFont     AssetType = "font"
	AssetDocument AssetType = "document"
)

// VersionStatus is where an asset version is in its life: draft ->
// published | archived | deleted; published -> archived | deleted; archived
// -> published | deleted. Deleted versions are gone for good.
type VersionStatus string

// The version statuses. An asset's status is the first of these its
// versions have: published, draft, archived, deleted.
const (
	VersionDraft     VersionStatus = "draft"
	VersionPublished VersionStatus = "published"
	VersionArchived  VersionStatus = "archived"
	VersionDeleted   VersionStatus = "deleted"
)

// contentTypes are the MIME types each asset type holds; the first is the default.
var contentTypes = map[AssetType][]ContentType{
	AssetTemplate: {ContentHTML},
	AssetImage:    {ContentPNG, ContentJPEG, ContentGIF, ContentSVG},
	AssetDocument: {ContentPDF},
	AssetFont:     {ContentTTF, ContentOTF, ContentWOFF2},
}

// holdsMessage says what an asset of type t holds: "an image asset holds
// image/png, image/jpeg, image/gif or image/svg+xml".
func holdsMessage(t AssetType) string {
	types := joinEnum(contentTypes[t])
	if i := strings.LastIndex(types, ", "); i >= 0 {
		types = types[:i] + " or " + types[i+2:]
	}
	article := "a"
	if strings.IndexAny(string(t), "aeiou") == 0 {
		article = "an"
	}
	return fmt.Sprintf("%s %s asset holds %s", article, t, types)
}

var assetTypes = []string{string(AssetTemplate), string(AssetImage), string(AssetFont), string(AssetDocument)}

// Asset and version field limits.
const (
	MaxAssetName        = 255
	MaxAssetDescription = 255
	MaxVersionNotes     = 255
	// MaxInlineContent is the largest inline content, in bytes after any
	// base64 decoding.
	MaxInlineContent = 102400
)

// Asset is a piece of content letters are made from, kept in versions.
type Asset struct {
	ID                 string        `json:"id"`
	Name               string        `json:"name"`
	Description        string        `json:"description"`
	Type               AssetType     `json:"type"`
	Status             VersionStatus `json:"status"`
	VersionCount       int           `json:"versionCount"`
	PublishedVersionID string        `json:"publishedVersionId,omitempty"`
	Metadata           Metadata      `json:"metadata"`
	CreatedAt          time.Time     `json:"createdAt"`
	ModifiedAt         time.Time     `json:"modifiedAt"`

	counts   versionCounts
	revision int64
}

// versionCounts counts an asset's versions by status; deleted counts those
// deleted, which no longer exist.
type versionCounts struct {
	Draft     int `json:"draft,omitempty"`
	Published int `json:"published,omitempty"`
	Archived  int `json:"archived,omitempty"`
	Deleted   int `json:"deleted,omitempty"`
}

func (c *versionCounts) add(s VersionStatus, n int) {
	switch s {
	case VersionDraft:
		c.Draft += n
	case VersionPublished:
		c.Published += n
	case VersionArchived:
		c.Archived += n
	case VersionDeleted:
		c.Deleted += n
	}
}

// derive sets the fields that follow from the version counts.
func (a *Asset) derive() {
	c := a.counts
	a.VersionCount = c.Draft + c.Published + c.Archived
	switch {
	case c.Published > 0:
		a.Status = VersionPublished
	case c.Draft > 0:
		a.Status = VersionDraft
	case c.Archived > 0:
		a.Status = VersionArchived
	case c.Deleted > 0:
		a.Status = VersionDeleted
	default:
		a.Status = VersionDraft
	}
}

// AssetVersion is one version of an asset's content, in the one shape
// every operation shows it in. ContentType repeats Content.Type; ContentURL
// is where the content itself is fetched ({base}/assets/{versionId}/content,
// a path when the Service has no base URL); Publish says whether the version
// is its asset's published one.
type AssetVersion struct {
	ID                  string               `json:"id"`
	AssetID             string               `json:"assetId"`
	Status              VersionStatus        `json:"status"`
	Notes               string               `json:"notes"`
	Content             VersionContent       `json:"content"`
	VariableDefinitions []VariableDefinition `json:"variableDefinitions"`
	ContentType         ContentType          `json:"contentType"`
	ContentLength       int                  `json:"contentLength"`
	ContentURL          string               `json:"contentUrl"`
	Publish             bool                 `json:"publish"`
	CreatedAt           time.Time            `json:"createdAt"`
	ModifiedAt          time.Time            `json:"modifiedAt"`

	// contentHash names the stored bytes of inline (and imported) content.
	contentHash string
	// externalURL is where the content of an externalUrl version stays.
	externalURL string
}

// hasContent reports whether v has its content: a version made without
// content is a draft until it is given some, and only then published.
func (v *AssetVersion) hasContent() bool { return v.contentHash != "" || v.externalURL != "" }

// VersionContent is a version's content: where it comes from (Source,
// inline when left out), its MIME type (Type, by default the first its
// asset's type holds) and Content, the content itself: an HTML template's
// text, or the base64 encoding of binary content (PNG, JPEG, TTF, OTF,
// PDF).
type VersionContent struct {
	Source  ContentSource `json:"source"`
	Type    ContentType   `json:"type"`
	Content string        `json:"content"`
	// Deprecated: Data is the former name of Content, still read from
	// requests (an error then names content.data); a request gives one or
	// the other. The Service never sets it.
	Data string `json:"data,omitempty"`
}

// given is the content c carries, under either name, and the path of the
// member it came in.
func (c *VersionContent) given() (text, path string) {
	if c.Content == "" && c.Data != "" {
		return c.Data, "content.data"
	}
	return c.Content, "content.content"
}

// CreateAssetInput is a request to create an asset. Name is required; Type
// defaults to template.
type CreateAssetInput struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Type        AssetType `json:"type,omitempty"`
	Metadata    Metadata  `json:"metadata,omitempty"`
}

// UpdateAssetInput changes an asset: each field given replaces the asset's.
// ID, Type, Status, VersionCount, PublishedVersionID, CreatedAt and
// ModifiedAt are read-only: given with the asset's current value (an asset
// fetched and sent back) they are ignored; with another, the update is
// refused naming the field.
type UpdateAssetInput struct {
	Name        *string   `json:"name,omitempty"`
	Description *string   `json:"description,omitempty"`
	Metadata    *Metadata `json:"metadata,omitempty"`

	ID                 *string        `json:"id,omitempty"`
	Type               *AssetType     `json:"type,omitempty"`
	Status             *VersionStatus `json:"status,omitempty"`
	VersionCount       *int           `json:"versionCount,omitempty"`
	PublishedVersionID *string        `json:"publishedVersionId,omitempty"`
	CreatedAt          *time.Time     `json:"createdAt,omitempty"`
	ModifiedAt         *time.Time     `json:"modifiedAt,omitempty"`
}

// ListAssetsInput selects assets.
type ListAssetsInput struct {
	PageRequest
	Metadata Metadata
}

// CreateVersionInput is a request to create a version: a draft, or
// published at once with Publish. It takes a whole version as a fetch
// shows it: the fields the Service sets (ReadOnlyVersionFields) are
// ignored, whatever they hold.
type CreateVersionInput struct {
	Notes               string               `json:"notes,omitempty"`
	Content             *VersionContent      `json:"content"`
	VariableDefinitions []VariableDefinition `json:"variableDefinitions,omitempty"`
	Publish             bool                 `json:"publish,omitempty"`

	ReadOnlyVersionFields
}

// UpdateVersionInput changes a version: a draft entirely, a published
// version only its notes; an archived version not at all. Content and
// VariableDefinitions given with the version's current value are no
// change; Publish true publishes a draft, and is otherwise no change. It
// takes a whole version as a fetch shows it: the fields the Service sets
// (ReadOnlyVersionFields) are ignored, whatever they hold.
type UpdateVersionInput struct {
	Notes               *string               `json:"notes,omitempty"`
	Content             *VersionContent       `json:"content,omitempty"`
	VariableDefinitions *[]VariableDefinition `json:"variableDefinitions,omitempty"`
	Publish             *bool                 `json:"publish,omitempty"`

	ReadOnlyVersionFields
}

// ReadOnlyVersionFields are the fields of a version the Service sets,
// which a request to create or update one may carry (a version as fetched,
// or as the real service's examples show one) and which are ignored: an
// example's createdAt from another year, contentLength that does not match
// or contentUrl on another host is no reason to refuse it.
type ReadOnlyVersionFields struct {
	ID            *string        `json:"id,omitempty"`
	AssetID       *string        `json:"assetId,omitempty"`
	Status        *VersionStatus `json:"status,omitempty"`
	ContentType   *ContentType   `json:"contentType,omitempty"`
	ContentLength *int           `json:"contentLength,omitempty"`
	ContentURL    *string        `json:"contentUrl,omitempty"`
	CreatedAt     *time.Time     `json:"createdAt,omitempty"`
	ModifiedAt    *time.Time     `json:"modifiedAt,omitempty"`
}

// CloneVersionInput makes a new draft (or, with Publish, a published
// version) with a version's content and definitions.
type CloneVersionInput struct {
	Notes   *string `json:"notes,omitempty"`
	Publish bool    `json:"publish,omitempty"`
}

// ListVersionsInput selects versions of an asset. Archived versions are left
// out unless IncludeArchived.
type ListVersionsInput struct {
	PageRequest
	IncludeArchived bool
}

// CreateAsset stores a new asset, without versions.
func (s *Service) CreateAsset(ctx context.Context, account string, in CreateAssetInput) (*Asset, error) {
	return idempotent(ctx, s, account, "createAsset", in, func(ctx context.Context) (*Asset, error) {
		f := fieldErrors{}
		if in.Type == "" {
			in.Type = AssetTemplate
		}
		checkCreateAsset(f, in)
		if err := f.err(); err != nil {
			return nil, err
		}
		now := s.now(account)
		a := &Asset{
			ID: s.newID(assetPrefix, now), Name: in.Name, Description: in.Description, Type: in.Type,
			Metadata: in.Metadata.clone(), CreatedAt: now, ModifiedAt: now,
		}
		a.derive()
		if err := s.writeAssetChange(ctx, account, a, &assetChange{}, a); err != nil {
			return nil, err
		}
		return a, nil
	})
}

// GetAsset returns an asset of the account.
func (s *Service) GetAsset(ctx context.Context, account, id string) (*Asset, error) {
	return s.getAsset(ctx, account, id)
}

func (s *Service) getAsset(ctx context.Context, account, id string) (*Asset, error) {
	if err := idErr("id", assetPrefix, id); err != nil {
		return nil, err
	}
	rec, err := s.store.GetAsset(ctx, account, id)
	if err != nil {
		return nil, objectErr(err, "asset", id, "get asset")
	}
	a, err := assetFromRecord(rec)
	if err != nil {
		return nil, internal("get asset", err)
	}
	return a, nil
}

// ListAssets returns a page of the account's assets, newest first.
func (s *Service) ListAssets(ctx context.Context, account string, in ListAssetsInput) (Page[*Asset], error) {
	f := fieldErrors{}
	in.Metadata.CheckFilter(f)
	var scope []string
	for _, m := range in.Metadata {
		scope = append(scope, m.Key, m.Value)
	}
	c := s.openPage(in.PageRequest, pagetoken.Scope(account, "assets", scope...), f)
	if err := f.err(); err != nil {
		return Page[*Asset]{}, err
	}
	recs, err := s.store.ListAssets(ctx, storage.AssetQuery{
		Account: account, Metadata: metadataRecords(in.Metadata), Before: c.before, Limit: c.limit + 1,
	})
	if err != nil {
		return Page[*Asset]{}, storeErr("list assets", err)
	}
	items := make([]*Asset, 0, len(recs))
	for _, r := range recs {
		a, err := assetFromRecord(r)
		if err != nil {
			return Page[*Asset]{}, internal("list assets", err)
		}
		items = append(items, a)
	}
	return closePage(s, c, items, func(a *Asset) string { return a.ID }), nil
}

// checkCreateAsset checks an asset to create; an asset's rules need no
// stored object.
func checkCreateAsset(f fieldErrors, in CreateAssetInput) {
	validateAssetName(f, in.Name)
	maxLen(f, "description", in.Description, MaxAssetDescription)
	if in.Type != "" {
		enum(f, "type", string(in.Type), assetTypes)
	}
	in.Metadata.validate("metadata", f)
}

// checkUpdateAsset checks the fields an asset's update gives; those that
// must match the stored asset are checked against it.
func checkUpdateAsset(f fieldErrors, in UpdateAssetInput) {
	if in.Name != nil {
		validateAssetName(f, *in.Name)
	}
	if in.Description != nil {
		maxLen(f, "description", *in.Description, MaxAssetDescription)
	}
	if in.Metadata != nil {
		in.Metadata.validate("metadata", f)
	}
}

// UpdateAsset changes an asset's name, description or metadata.
func (s *Service) UpdateAsset(ctx context.Context, account, id string, in UpdateAssetInput) (*Asset, error) {
	return idempotent(ctx, s, account, "updateAsset:"+id, in, func(ctx context.Context) (*Asset, error) {
		f := fieldErrors{}
		checkUpdateAsset(f, in)
		if err := f.err(); err != nil {
			return nil, err
		}
		a, err := s.changeAsset(ctx, account, id, func(a *Asset, w *assetChange) error {
			f := fieldErrors{}
			stored := *a
			stored.ModifiedAt = w.modifiedAt
			checkAssetReadOnly(f, in, &stored)
			if err := f.err(); err != nil {
				return err
			}
			changed := false
			if in.Name != nil && *in.Name != a.Name {
				a.Name = *in.Name
				changed = true
			}
			if in.Description != nil && *in.Description != a.Description {
				a.Description = *in.Description
				changed = true
			}
			if in.Metadata != nil && !slices.Equal(*in.Metadata, a.Metadata) {
				a.Metadata = in.Metadata.clone()
				changed = true
			}
			if !changed {
				return errUnchanged
			}
			return nil
		}, nil)
		if errors.Is(err, errUnchanged) {
			return a, nil
		}
		return a, err
	})
}

// DeleteAsset deletes an asset and every version of it. Letters made from it
// keep their content.
func (s *Service) DeleteAsset(ctx context.Context, account, id string) error {
	_, err := idempotent(ctx, s, account, "deleteAsset:"+id, nil, func(ctx context.Context) (*Asset, error) {
		_, err := storage.RetryConflicts(maxRetries, func() (struct{}, error) {
			a, err := s.getAsset(ctx, account, id)
			if err != nil {
				return struct{}{}, err
			}
			return withCompletion(ctx, nil, func(c *storage.Completion) (struct{}, error) {
				return struct{}{}, s.store.DeleteAsset(ctx, account, id, a.revision, c)
			})
		})
		if err != nil {
			return nil, objectErr(err, "asset", id, "delete asset")
		}
		return nil, nil
	})
	return err
}

// CreateVersion adds a version to an asset: a draft, or published at once
// (archiving the version published before) with in.Publish.
func (s *Service) CreateVersion(ctx context.Context, account, assetID string, in CreateVersionInput) (*AssetVersion, error) {
	return idempotent(ctx, s, account, "createVersion:"+assetID, in, func(ctx context.Context) (*AssetVersion, error) {
		a, err := s.getAsset(ctx, account, assetID)
		if err != nil {
			return nil, err
		}
		if err := takesVersions(a); err != nil {
			return nil, err
		}
		f := fieldErrors{}
		maxLen(f, "notes", in.Notes, MaxVersionNotes)
		v := &AssetVersion{AssetID: assetID, Status: VersionDraft, Notes: in.Notes}
		// Definitions first: the content is checked against them.
		v.VariableDefinitions = validateDefinitions("variableDefinitions", in.VariableDefinitions, f)
		data, err := s.takeContent(ctx, f, a.Type, in.Content, v, s.importContent, true)
		if err != nil {
			return nil, err
		}
		if in.Publish && !v.hasContent() && v.Content.Source != "" {
			// Taken without content (a source is set once content is taken).
			f.add("content", "a version published as it is made needs its content")
		}
		if err := f.err(); err != nil {
			return nil, err
		}
		now := s.now(account)
		v.ID, v.CreatedAt, v.ModifiedAt = s.newID(versionPrefix, now), now, now
		var content *storage.Content
		if data != nil {
			content = &storage.Content{Account: account, Hash: v.contentHash, Data: data}
		}
		return s.putVersion(ctx, account, assetID, v, in.Publish, content)
	})
}

// putVersion stores a new version, published at once when publish is set.
func (s *Service) putVersion(ctx context.Context, account, assetID string, v *AssetVersion, publish bool, content *storage.Content) (*AssetVersion, error) {
	var out *AssetVersion
	_, err := s.changeAsset(ctx, account, assetID, func(a *Asset, w *assetChange) error {
		if err := takesVersions(a); err != nil {
			return err
		}
		nv := *v
		nv.Status = VersionDraft
		a.counts.add(VersionDraft, 1)
		w.put(a, &nv)
		if content != nil {
			w.content = append(w.content, *content)
		}
		if publish {
			if err := s.publishIn(ctx, account, a, w, &nv); err != nil {
				return err
			}
		}
		out = &nv
		return s.showVersion(ctx, account, out, false)
	}, func(a *Asset) any { return out })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// takesVersions answers CodeConflict for an asset whose versions have all
// been deleted: deleted is an asset's terminal status.
func takesVersions(a *Asset) error {
	if a.Status == VersionDeleted {
		return errorf(CodeConflict, "asset %s is deleted: every version of it was deleted, and a deleted asset takes no new version", a.ID)
	}
	return nil
}

// GetVersion returns one version of an asset, with its content.
func (s *Service) GetVersion(ctx context.Context, account, assetID, versionID string) (*AssetVersion, error) {
	v, err := s.getVersion(ctx, account, assetID, versionID)
	if err != nil {
		return nil, err
	}
	if err := s.showVersion(ctx, account, v, true); err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Service) getVersion(ctx context.Context, account, assetID, versionID string) (*AssetVersion, error) {
	if err := idErr("id", assetPrefix, assetID); err != nil {
		return nil, err
	}
	if err := idErr("versionId", versionPrefix, versionID); err != nil {
		return nil, err
	}
	rec, err := s.store.GetAssetVersion(ctx, account, assetID, versionID)
	if err != nil {
		return nil, objectErr(err, "version", versionID, "get version")
	}
	v, err := versionFromRecord(rec)
	if err != nil {
		return nil, internal("get version", err)
	}
	return v, nil
}

// ListVersions returns a page of an asset's versions, newest first, each
// with its content unless it is larger than inline content can be.
func (s *Service) ListVersions(ctx context.Context, account, assetID string, in ListVersionsInput) (Page[*AssetVersion], error) {
	f := fieldErrors{}
	c := s.openPage(in.PageRequest, pagetoken.Scope(account, "versions", assetID, boolScope(in.IncludeArchived)), f)
	if err := f.err(); err != nil {
		return Page[*AssetVersion]{}, err
	}
	if _, err := s.getAsset(ctx, account, assetID); err != nil {
		return Page[*AssetVersion]{}, err
	}
	q := storage.VersionQuery{Account: account, AssetID: assetID, Before: c.before, Limit: c.limit + 1}
	if !in.IncludeArchived {
		q.ExcludeStatuses = []string{string(VersionArchived)}
	}
	recs, err := s.store.ListAssetVersions(ctx, q)
	if err != nil {
		return Page[*AssetVersion]{}, storeErr("list versions", err)
	}
	items := make([]*AssetVersion, 0, len(recs))
	for _, r := range recs {
		v, err := versionFromRecord(r)
		if err != nil {
			return Page[*AssetVersion]{}, internal("list versions", err)
		}
		items = append(items, v)
	}
	if err := s.showVersions(ctx, account, items[:min(len(items), c.limit)], false); err != nil {
		return Page[*AssetVersion]{}, err
	}
	return closePage(s, c, items, func(v *AssetVersion) string { return v.ID }), nil
}

func boolScope(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// UpdateVersion changes a version: anything of a draft, which "publish":
// true then publishes; only the notes of a published version (another
// change is refused, naming the field); of an archived version only
// "publish": true, which republishes it, with new notes as on a published
// one (anything else is a conflict).
func (s *Service) UpdateVersion(ctx context.Context, account, assetID, versionID string, in UpdateVersionInput) (*AssetVersion, error) {
	return idempotent(ctx, s, account, "updateVersion:"+assetID+"/"+versionID, in, func(ctx context.Context) (*AssetVersion, error) {
		fetch := fetchbatch.Once(s.importContent)
		return s.changeVersion(ctx, account, assetID, versionID, func(a *Asset, w *assetChange, v *AssetVersion) error {
			if republish := v.Status == VersionArchived && in.Publish != nil && *in.Publish; v.Status != VersionDraft && v.Status != VersionPublished && !republish {
				return errorf(CodeConflict, "version %s is %s: only draft and published versions can be updated, or an archived one republished with \"publish\": true; clone it to make a new draft", v.ID, v.Status)
			}
			f := fieldErrors{}
			if in.Notes != nil {
				maxLen(f, "notes", *in.Notes, MaxVersionNotes)
			}
			// Content and definitions given as they are change nothing.
			contentPath := ""
			if in.Content != nil {
				contentPath = contentChange(in.Content, a.Type, v)
			}
			content := contentPath != ""
			defs := false
			if in.VariableDefinitions != nil {
				checked := validateDefinitions("variableDefinitions", *in.VariableDefinitions, f)
				if defs = !sameDefinitions(checked, v.VariableDefinitions); defs {
					if v.Status != VersionDraft {
						f.add("variableDefinitions", "version %s is %s: only its notes can change; clone it to make a new draft", v.ID, v.Status)
					}
					v.VariableDefinitions = checked
				}
			}
			var data []byte
			switch {
			case content && v.Status != VersionDraft:
				f.add(contentPath, "version %s is %s: only its notes can change; clone it to make a new draft", v.ID, v.Status)
			case content:
				var err error
				if data, err = s.takeContent(ctx, f, a.Type, in.Content, v, fetch, false); err != nil {
					return err
				}
			case defs:
				if err := s.recheckContent(ctx, account, v, f); err != nil {
					return err
				}
			}
			if err := f.err(); err != nil {
				return err
			}
			notes := in.Notes != nil && *in.Notes != v.Notes
			if notes {
				v.Notes = *in.Notes
			}
			if data != nil {
				w.content = append(w.content, storage.Content{Account: account, Hash: v.contentHash, Data: data})
			}
			publish := in.Publish != nil && *in.Publish && v.Status != VersionPublished
			if publish {
				if err := s.publishIn(ctx, account, a, w, v); err != nil {
					return err
				}
			}
			if !notes && !content && !defs && !publish {
				return errUnchanged
			}
			return nil
		})
	})
}

// PublishVersion publishes a draft or archived version; the version
// published before is archived. Publishing the published version changes
// nothing.
func (s *Service) PublishVersion(ctx context.Context, account, assetID, versionID string) (*AssetVersion, error) {
	return idempotent(ctx, s, account, "publishVersion:"+assetID+"/"+versionID, nil, func(ctx context.Context) (*AssetVersion, error) {
		return s.changeVersion(ctx, account, assetID, versionID, func(a *Asset, w *assetChange, v *AssetVersion) error {
			if v.Status == VersionPublished {
				return errUnchanged
			}
			return s.publishIn(ctx, account, a, w, v)
		})
	})
}

// publishIn publishes v within the change w, archiving the version published
// before.
func (s *Service) publishIn(ctx context.Context, account string, a *Asset, w *assetChange, v *AssetVersion) error {
	if !v.hasContent() {
		return errorf(CodeConflict, "a version without content is not published: give it its content first (an update, or an upload)")
	}
	if prev := a.PublishedVersionID; prev != "" && prev != v.ID {
		old, err := s.getVersion(ctx, account, a.ID, prev)
		if err != nil {
			return err
		}
		w.setStatus(a, old, VersionArchived)
		w.put(a, old)
	}
	w.setStatus(a, v, VersionPublished)
	a.PublishedVersionID = v.ID
	w.put(a, v)
	return nil
}

// ArchiveVersion archives a draft or published version. Archiving an
// archived version changes nothing.
func (s *Service) ArchiveVersion(ctx context.Context, account, assetID, versionID string) (*AssetVersion, error) {
	return idempotent(ctx, s, account, "archiveVersion:"+assetID+"/"+versionID, nil, func(ctx context.Context) (*AssetVersion, error) {
		return s.changeVersion(ctx, account, assetID, versionID, func(a *Asset, w *assetChange, v *AssetVersion) error {
			if v.Status == VersionArchived {
				return errUnchanged
			}
			if a.PublishedVersionID == v.ID {
				a.PublishedVersionID = ""
			}
			w.setStatus(a, v, VersionArchived)
			return nil
		})
	})
}

// CloneVersion makes a new draft (published with in.Publish) with the
// content and variable definitions of a version.
func (s *Service) CloneVersion(ctx context.Context, account, assetID, versionID string, in CloneVersionInput) (*AssetVersion, error) {
	return idempotent(ctx, s, account, "cloneVersion:"+assetID+"/"+versionID, in, func(ctx context.Context) (*AssetVersion, error) {
		src, err := s.getVersion(ctx, account, assetID, versionID)
		if err != nil {
			return nil, err
		}
		v := *src
		v.VariableDefinitions = slices.Clone(src.VariableDefinitions)
		if in.Notes != nil {
			f := fieldErrors{}
			maxLen(f, "notes", *in.Notes, MaxVersionNotes)
			if err := f.err(); err != nil {
				return nil, err
			}
			v.Notes = *in.Notes
		}
		now := s.now(account)
		v.ID, v.CreatedAt, v.ModifiedAt = s.newID(versionPrefix, now), now, now
		return s.putVersion(ctx, account, assetID, &v, in.Publish, nil)
	})
}

// DeleteVersion deletes a version for good. Letters made from it keep their
// content.
func (s *Service) DeleteVersion(ctx context.Context, account, assetID, versionID string) error {
	_, err := idempotent(ctx, s, account, "deleteVersion:"+assetID+"/"+versionID, nil, func(ctx context.Context) (*AssetVersion, error) {
		_, err := s.changeVersion(ctx, account, assetID, versionID, func(a *Asset, w *assetChange, v *AssetVersion) error {
			if a.PublishedVersionID == v.ID {
				a.PublishedVersionID = ""
			}
			a.counts.add(v.Status, -1)
			a.counts.add(VersionDeleted, 1)
			w.deletes = append(w.deletes, v.ID)
			return nil
		})
		return nil, err
	})
	return err
}
