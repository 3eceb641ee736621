package client

import (
	"context"
	"iter"
	"net/url"
)

// CreateAsset creates an asset (POST /assets).
func (c *Client) CreateAsset(ctx context.Context, in *CreateAssetRequest, opts ...RequestOption) (*Asset, error) {
	var a Asset
	if _, err := c.call(ctx, request{method: "POST", path: "/assets", body: in, write: true, opts: opts}, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// GetAsset fetches an asset (GET /assets/{id}).
func (c *Client) GetAsset(ctx context.Context, id string) (*Asset, error) {
	var a Asset
	if _, err := c.call(ctx, request{method: "GET", path: "/assets/" + url.PathEscape(id)}, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// UpdateAsset changes an asset's name, description or metadata
// (PUT /assets/{id}).
func (c *Client) UpdateAsset(ctx context.Context, id string, in *UpdateAssetRequest, opts ...RequestOption) (*Asset, error) {
	if in == nil {
		in = &UpdateAssetRequest{}
	}
	var a Asset
	if _, err := c.call(ctx, request{method: "PUT", path: "/assets/" + url.PathEscape(id), body: in, write: true, opts: opts}, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// DeleteAsset deletes an asset and its versions (DELETE /assets/{id}).
func (c *Client) DeleteAsset(ctx context.Context, id string, opts ...RequestOption) error {
	_, err := c.call(ctx, request{method: "DELETE", path: "/assets/" + url.PathEscape(id), write: true, opts: opts}, nil)
	return err
}

// ListAssets returns an iterator over the assets params selects, newest
// first. params may be nil.
func (c *Client) ListAssets(ctx context.Context, params *ListAssetsParams) iter.Seq2[Asset, error] {
	p := ListAssetsParams{}
	if params != nil {
		p = *params
	}
	return paginate(p.NextToken, func(token string) (*Page[Asset], error) {
		q := p
		q.NextToken = token
		return c.ListAssetsPage(ctx, &q)
	})
}

// ListAssetsPage fetches one page of assets (GET /assets).
func (c *Client) ListAssetsPage(ctx context.Context, params *ListAssetsParams) (*Page[Asset], error) {
	q := url.Values{}
	if p := params; p != nil {
		pageQuery(q, p.PageSize, p.NextToken)
		metadataQuery(q, p.Metadata)
	}
	var page Page[Asset]
	if _, err := c.call(ctx, request{method: "GET", path: "/assets", query: q}, &page); err != nil {
		return nil, err
	}
	return &page, nil
}
