package client

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// CreateLetter creates a letter (POST /letters).
func (c *Client) CreateLetter(ctx context.Context, in *CreateLetterRequest, opts ...RequestOption) (*Letter, error) {
	var l Letter
	if _, err := c.call(ctx, request{method: "POST", path: "/letters", body: in, write: true, opts: opts}, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// GetLetter fetches a letter with its CASS details (GET /letters/{id}).
func (c *Client) GetLetter(ctx context.Context, id string) (*Letter, error) {
	var l Letter
	if _, err := c.call(ctx, request{method: "GET", path: "/letters/" + url.PathEscape(id)}, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// UpdateLetter changes a letter (PUT /letters/{id}): what in leaves nil
// stays as it is. Letter.UpdateRequest gives a fetched letter back whole,
// to change a field of.
func (c *Client) UpdateLetter(ctx context.Context, id string, in *UpdateLetterRequest, opts ...RequestOption) (*Letter, error) {
	if in == nil {
		in = &UpdateLetterRequest{}
	}
	if in.Variables != nil && *in.Variables == nil {
		cp := *in
		cp.Variables = &[]Variable{}
		in = &cp
	}
	var l Letter
	if _, err := c.call(ctx, request{method: "PUT", path: "/letters/" + url.PathEscape(id), body: in, write: true, opts: opts}, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// CancelLetter cancels a letter (POST /letters/{id}/cancel). It is allowed
// while the letter is queued, ready or at issue, and again once it is
// canceled; later, it is an ErrConflict.
func (c *Client) CancelLetter(ctx context.Context, id string, opts ...RequestOption) error {
	_, err := c.call(ctx, request{method: "POST", path: "/letters/" + url.PathEscape(id) + "/cancel", write: true, opts: opts}, nil)
	return err
}

// ListLetters returns an iterator over the letters params selects, newest
// first, fetching page after page. params may be nil; its NextToken, if
// set, is where the walk starts.
func (c *Client) ListLetters(ctx context.Context, params *ListLettersParams) iter.Seq2[Letter, error] {
	p := ListLettersParams{}
	if params != nil {
		p = *params
	}
	return paginate(p.NextToken, func(token string) (*Page[Letter], error) {
		q := p
		q.NextToken = token
		return c.ListLettersPage(ctx, &q)
	})
}

// ListLettersPage fetches one page of letters (GET /letters).
func (c *Client) ListLettersPage(ctx context.Context, params *ListLettersParams) (*Page[Letter], error) {
	q := url.Values{}
	if p := params; p != nil {
		pageQuery(q, p.PageSize, p.NextToken)
		if p.IncludeCassDetails {
			q.Set("includeCassDetails", "true")
		}
		if p.Status != "" {
			q.Set("status", string(p.Status))
		}
		if p.ExternalID != "" {
			q.Set("externalId", p.ExternalID)
		}
		metadataQuery(q, p.Metadata)
	}
	var page Page[Letter]
	if _, err := c.call(ctx, request{method: "GET", path: "/letters", query: q}, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// DownloadURL returns a fresh signed link to the letter's rendered PDF
// (GET /letters/{id}/download answers 302 to it). The link needs no API
// key and expires; every call makes a new one.
func (c *Client) DownloadURL(ctx context.Context, id string) (string, error) {
	path := "/letters/" + url.PathEscape(id) + "/download"
	resp, err := c.send(ctx, request{method: "GET", path: path})
	if err != nil {
		return "", err
	}
	if resp.status != http.StatusFound {
		if resp.status >= 200 && resp.status <= 299 {
			return "", fmt.Errorf("lettershop: GET %s: answered %d, not a redirect", path, resp.status)
		}
		return "", resp.problem()
	}
	loc := resp.header.Get("Location")
	if loc == "" {
		return "", fmt.Errorf("lettershop: GET %s: %w", path, errNoLocation)
	}
	base, err := url.Parse(c.base + path)
	if err != nil {
		return "", fmt.Errorf("lettershop: GET %s: %w", path, err)
	}
	u, err := base.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("lettershop: GET %s: Location %q: %w", path, loc, err)
	}
	return u.String(), nil
}

// Download returns the letter's rendered PDF: it asks for a signed link
// (DownloadURL) and fetches it, without the API key.
func (c *Client) Download(ctx context.Context, id string) ([]byte, error) {
	link, err := c.DownloadURL(ctx, id)
	if err != nil {
		return nil, err
	}
	resp, err := c.call(ctx, request{method: "GET", url: link, path: "/letters/" + id + ".pdf", public: true}, nil)
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// paginate walks a list from start, one page at a time, yielding each item;
// an error is yielded once, last.
func paginate[T any](start string, page func(token string) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		token := start
		for {
			p, err := page(token)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.NextToken == "" {
				return
			}
			token = p.NextToken
		}
	}
}

func pageQuery(q url.Values, size int, token string) {
	if size > 0 {
		q.Set("pageSize", strconv.Itoa(size))
	}
	if token != "" {
		q.Set("nextToken", token)
	}
}

func metadataQuery(q url.Values, m map[string]string) {
	for k, v := range m {
		q.Set("metadata["+k+"]", v)
	}
}

// UpdateRequest is the letter as fetched, as the body of UpdateLetter:
// change the fields to change and send it. The fields left as they were
// are no change to the server, whatever the letter's status (a mailed
// letter sent back with new Metadata is updated); the fields the server
// sets (ID, Status, Events, ...) are not sent. It shares nothing with l.
func (l *Letter) UpdateRequest() *UpdateLetterRequest {
	content, useType, options := l.Content, l.UseType, l.Options.clone()
	vars := append([]Variable(nil), l.Variables...)
	meta := append(Metadata{}, l.Metadata...)
	return &UpdateLetterRequest{
		Sender: l.Sender.Input(), Recipient: l.Recipient.Input(),
		Content: &content, UseType: &useType, ExternalID: l.ExternalID, SendDate: l.SendDate,
		Description: l.Description, Variables: &vars, Options: &options, Metadata: &meta,
	}
}

// Input is the party as a request gives it: its address lines, last line,
// names and nonAddressData, for a letter sent back (Letter.UpdateRequest)
// or a new letter to the same party.
func (p *Party) Input() *PartyInput {
	in := &PartyInput{
		Address:        AddressInput{AddressLine1: p.Address.AddressLine1, AddressLine2: deref(p.Address.AddressLine2), LastLine: p.Address.LastLine},
		Organization:   deref(p.Organization),
		NonAddressData: deref(p.NonAddressData),
	}
	if p.Individual != nil {
		ind := *p.Individual
		in.Individual = &ind
	}
	return in
}

// clone copies o and what it points to, so that a change of the copy
// leaves o as it is.
func (o LetterOptions) clone() LetterOptions {
	if o.Print != nil {
		p := *o.Print
		o.Print = &p
	}
	if o.Mail != nil {
		m := *o.Mail
		m.ExtraServices = append([]string(nil), m.ExtraServices...)
		o.Mail = &m
	}
	if o.VariableHandling != nil {
		v := *o.VariableHandling
		o.VariableHandling = &v
	}
	if o.AddressProcessing != nil {
		a := *o.AddressProcessing
		for _, cass := range []**CassOptions{&a.CassSender, &a.CassRecipient} {
			if *cass != nil {
				c := **cass
				*cass = &c
			}
		}
		o.AddressProcessing = &a
	}
	o.DeliverabilityValues = append([]string(nil), o.DeliverabilityValues...)
	return o
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
