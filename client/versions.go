package client

import (
	"context"
	"iter"
	"net/url"
)

func versionsPath(assetID string) string { return "/assets/" + url.PathEscape(assetID) + "/versions" }

func versionPath(assetID, versionID string) string {
	return versionsPath(assetID) + "/" + url.PathEscape(versionID)
}

// CreateVersion creates a version of an asset, a draft unless in.Publish
// (POST /assets/{id}/versions).
func (c *Client) CreateVersion(ctx context.Context, assetID string, in *CreateVersionRequest, opts ...RequestOption) (*AssetVersion, error) {
	return c.versionCall(ctx, request{method: "POST", path: versionsPath(assetID), body: in, write: true, opts: opts})
}

// GetVersion fetches a version with its content
// (GET /assets/{id}/versions/{versionId}).
func (c *Client) GetVersion(ctx context.Context, assetID, versionID string) (*AssetVersion, error) {
	return c.versionCall(ctx, request{method: "GET", path: versionPath(assetID, versionID)})
}

// UpdateVersion changes a version (PUT /assets/{id}/versions/{versionId}):
// a draft anything, a published version only its notes, an archived one
// only Publish true, which republishes it (with new notes, as a published
// version takes them). The server answers 202 without a body: GetVersion
// reads the version updated.
func (c *Client) UpdateVersion(ctx context.Context, assetID, versionID string, in *UpdateVersionRequest, opts ...RequestOption) error {
	if in == nil {
		in = &UpdateVersionRequest{}
	}
	if in.VariableDefinitions != nil && *in.VariableDefinitions == nil {
		cp := *in
		cp.VariableDefinitions = &[]VariableDefinition{}
		in = &cp
	}
	_, err := c.call(ctx, request{method: "PUT", path: versionPath(assetID, versionID), body: in, write: true, opts: opts}, nil)
	return err
}

// GetVersionContent reads a version's content as itself, not base64, and
// its MIME type (GET {base}/assets/{versionId}/content, a version's
// ContentURL). The content of an externalUrl version is fetched by the
// server from its URL each time: when that fails the answer is a 502
// (errors.Is(err, ErrServer)) whose message names the URL and what failed.
func (c *Client) GetVersionContent(ctx context.Context, versionID string) (content []byte, contentType string, err error) {
	resp, err := c.call(ctx, request{method: "GET", path: "/assets/" + url.PathEscape(versionID) + "/content"}, nil)
	if err != nil {
		return nil, "", err
	}
	return resp.body, resp.header.Get("Content-Type"), nil
}

// UploadVersionContent replaces a draft version's content with content as
// it is, up to 10 MiB, of the MIME type contentType (text/html, image/png,
// application/pdf, ...), without the JSON and base64 of UpdateVersion
// (PUT /assets/{id}/versions/{versionId}/content). The version returned
// leaves Content.Content empty for content over 102,400 bytes.
func (c *Client) UploadVersionContent(ctx context.Context, assetID, versionID, contentType string, content []byte, opts ...RequestOption) (*AssetVersion, error) {
	if content == nil {
		content = []byte{}
	}
	return c.versionCall(ctx, request{
		method: "PUT", path: versionPath(assetID, versionID) + "/content",
		raw: content, contentType: contentType, write: true, opts: opts,
	})
}

// DeleteVersion deletes a version permanently
// (DELETE /assets/{id}/versions/{versionId}).
func (c *Client) DeleteVersion(ctx context.Context, assetID, versionID string, opts ...RequestOption) error {
	_, err := c.call(ctx, request{method: "DELETE", path: versionPath(assetID, versionID), write: true, opts: opts}, nil)
	return err
}

// PublishVersion publishes a version; the one published before is archived
// (POST /assets/{id}/versions/{versionId}/publish).
func (c *Client) PublishVersion(ctx context.Context, assetID, versionID string, opts ...RequestOption) (*AssetVersion, error) {
	return c.versionCall(ctx, request{method: "POST", path: versionPath(assetID, versionID) + "/publish", write: true, opts: opts})
}

// ArchiveVersion archives a version
// (POST /assets/{id}/versions/{versionId}/archive).
func (c *Client) ArchiveVersion(ctx context.Context, assetID, versionID string, opts ...RequestOption) error {
	_, err := c.call(ctx, request{method: "POST", path: versionPath(assetID, versionID) + "/archive", write: true, opts: opts}, nil)
	return err
}

// CloneVersion makes a new version with a version's content and variable
// definitions (POST /assets/{id}/versions/{versionId}/clone). in may be
// nil.
func (c *Client) CloneVersion(ctx context.Context, assetID, versionID string, in *CloneVersionRequest, opts ...RequestOption) (*AssetVersion, error) {
	if in == nil {
		in = &CloneVersionRequest{}
	}
	return c.versionCall(ctx, request{method: "POST", path: versionPath(assetID, versionID) + "/clone", body: in, write: true, opts: opts})
}

// ListVersions returns an iterator over an asset's versions, newest first,
// each with its content (but content over 102,400 bytes, which
// GetVersionContent reads). params may be nil.
func (c *Client) ListVersions(ctx context.Context, assetID string, params *ListVersionsParams) iter.Seq2[AssetVersion, error] {
	p := ListVersionsParams{}
	if params != nil {
		p = *params
	}
	return paginate(p.NextToken, func(token string) (*Page[AssetVersion], error) {
		q := p
		q.NextToken = token
		return c.ListVersionsPage(ctx, assetID, &q)
	})
}

// ListVersionsPage fetches one page of an asset's versions
// (GET /assets/{id}/versions).
func (c *Client) ListVersionsPage(ctx context.Context, assetID string, params *ListVersionsParams) (*Page[AssetVersion], error) {
	q := url.Values{}
	if p := params; p != nil {
		pageQuery(q, p.PageSize, p.NextToken)
		if p.IncludeArchived {
			q.Set("includeArchived", "true")
		}
	}
	var page Page[AssetVersion]
	if _, err := c.call(ctx, request{method: "GET", path: versionsPath(assetID), query: q}, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

func (c *Client) versionCall(ctx context.Context, r request) (*AssetVersion, error) {
	var v AssetVersion
	if _, err := c.call(ctx, r, &v); err != nil {
		return nil, err
	}
	return &v, nil
}
