package client

import (
	"context"
	"errors"
	"iter"
	"net/url"
	"time"
)

// WebhookEventType is what a webhook event tells of: "letter.created", or
// "letter." and a letter's new status or tracking event's status.
type WebhookEventType string

// The webhook event types: one for a letter's creation, one for each status
// it moves to, and one for each tracking event.
const (
	WebhookLetterCreated              WebhookEventType = "letter.created"
	WebhookLetterQueued               WebhookEventType = "letter.queued"
	WebhookLetterReady                WebhookEventType = "letter.ready"
	WebhookLetterInProduction         WebhookEventType = "letter.inProduction"
	WebhookLetterMailed               WebhookEventType = "letter.mailed"
	WebhookLetterIssue                WebhookEventType = "letter.issue"
	WebhookLetterCanceled             WebhookEventType = "letter.canceled"
	WebhookLetterInTransit            WebhookEventType = "letter.inTransit"
	WebhookLetterInLocalArea          WebhookEventType = "letter.inLocalArea"
	WebhookLetterProcessedForDelivery WebhookEventType = "letter.processedForDelivery"
	WebhookLetterDelivered            WebhookEventType = "letter.delivered"
	WebhookLetterReRouted             WebhookEventType = "letter.reRouted"
	WebhookLetterReturnedToSender     WebhookEventType = "letter.returnedToSender"
)

// WebhookEventTypes are every webhook event type, in the order above.
var WebhookEventTypes = []WebhookEventType{
	WebhookLetterCreated, WebhookLetterQueued, WebhookLetterReady, WebhookLetterInProduction, WebhookLetterMailed,
	WebhookLetterIssue, WebhookLetterCanceled, WebhookLetterInTransit, WebhookLetterInLocalArea,
	WebhookLetterProcessedForDelivery, WebhookLetterDelivered, WebhookLetterReRouted, WebhookLetterReturnedToSender,
}

// WebhookEventFor is the webhook event type of a letter event of type
// status or tracking with status s: WebhookEventFor(EventDelivered) is
// WebhookLetterDelivered, WebhookEventFor(EventStatus(StatusMailed))
// WebhookLetterMailed.
func WebhookEventFor(s EventStatus) WebhookEventType { return WebhookEventType("letter." + string(s)) }

// WebhookStatus says whether a webhook is sent new events.
type WebhookStatus string

// The webhook statuses.
const (
	WebhookEnabled  WebhookStatus = "enabled"
	WebhookDisabled WebhookStatus = "disabled"
)

// DeliveryStatus is where a webhook delivery's attempts stand.
type DeliveryStatus string

// The delivery statuses: pending until an attempt succeeds, or until its
// retries run out (failed).
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliverySucceeded DeliveryStatus = "succeeded"
	DeliveryFailed    DeliveryStatus = "failed"
)

// Webhook is where an account's letter events are posted. Secret, which
// signs them, is set only in the answer to CreateWebhook.
type Webhook struct {
	ID          string             `json:"id"`
	URL         string             `json:"url"`
	Events      []WebhookEventType `json:"events"`
	Description string             `json:"description,omitempty"`
	Metadata    Metadata           `json:"metadata"`
	Status      WebhookStatus      `json:"status"`
	Secret      string             `json:"secret,omitempty"`
	CreatedAt   time.Time          `json:"createdAt"`
	ModifiedAt  time.Time          `json:"modifiedAt"`
}

// CreateWebhookRequest is the body of CreateWebhook. URL is required;
// Events left empty sends every type. Secret, with a test key (sk_test_)
// only, chooses the webhook's secret ("whsec_" and 16 to 100 letters,
// digits, "-" or "_"), so a test can build its receiver with the secret
// before the webhook exists; left empty, the server makes one.
type CreateWebhookRequest struct {
	URL         string             `json:"url"`
	Events      []WebhookEventType `json:"events,omitempty"`
	Description string             `json:"description,omitempty"`
	Metadata    Metadata           `json:"metadata,omitempty"`
	Secret      string             `json:"secret,omitempty"`
}

// UpdateWebhookRequest is the body of UpdateWebhook: what is nil stays as
// it is (a pointer to a nil slice is not nil: Events empty is every type,
// as on create). Status is "enabled" or "disabled".
type UpdateWebhookRequest struct {
	URL         *string             `json:"url,omitempty"`
	Events      *[]WebhookEventType `json:"events,omitempty"`
	Description *string             `json:"description,omitempty"`
	Metadata    *Metadata           `json:"metadata,omitempty"`
	Status      *WebhookStatus      `json:"status,omitempty"`
}

// WebhookDelivery is one event sent to one webhook, and where its attempts
// stand: Status "pending", "succeeded" or "failed".
type WebhookDelivery struct {
	ID            string           `json:"id"`
	WebhookID     string           `json:"webhookId"`
	EventID       string           `json:"eventId"`
	Type          WebhookEventType `json:"type"`
	LetterID      string           `json:"letterId"`
	Status        DeliveryStatus   `json:"status"`
	Attempt       int              `json:"attempt"`
	StatusCode    *int             `json:"statusCode"`
	Error         *string          `json:"error"`
	CreatedAt     time.Time        `json:"createdAt"`
	LastAttemptAt *time.Time       `json:"lastAttemptAt"`
	NextAttemptAt *time.Time       `json:"nextAttemptAt"`
}

// WebhookEvent is what a webhook receives: decode a request's body into
// it, after checking its signature (package webhook's Verify).
type WebhookEvent struct {
	ID        string           `json:"id"`
	Type      WebhookEventType `json:"type"`
	CreatedAt time.Time        `json:"createdAt"`
	Data      WebhookEventData `json:"data"`
}

// WebhookEventData is an event's subject: the letter as it stood right
// after the change.
type WebhookEventData struct {
	Object Letter `json:"object"`
}

// ListParams pages a list that has no filters.
type ListParams struct {
	PageSize  int
	NextToken string
}

// ErrSecretLost is returned by CreateWebhook, with the webhook, when the
// webhook was made but the answer that showed its secret was lost: the
// server answered a retry of the request (or a repeat of its
// IdempotencyKey) from its record, which keeps no secret. Delete the
// webhook and create another.
var ErrSecretLost = errors.New("lettershop: the webhook was created, but the answer with its secret was lost; delete it and create another")

// CreateWebhook makes a webhook (POST /webhooks); the answer holds its
// secret, which no later read shows. When a retry's answer, a replay of
// the first, leaves the secret out, the secret in is given, or else the
// webhook comes with ErrSecretLost.
func (c *Client) CreateWebhook(ctx context.Context, in *CreateWebhookRequest, opts ...RequestOption) (*Webhook, error) {
	var w Webhook
	resp, err := c.call(ctx, request{method: "POST", path: "/webhooks", body: in, write: true, opts: opts}, &w)
	if err != nil {
		return nil, err
	}
	if w.Secret == "" && resp.header.Get("Idempotent-Replayed") == "true" {
		if in == nil || in.Secret == "" {
			return &w, ErrSecretLost
		}
		w.Secret = in.Secret
	}
	return &w, nil
}

// GetWebhook fetches a webhook (GET /webhooks/{id}).
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	if _, err := c.call(ctx, request{method: "GET", path: "/webhooks/" + url.PathEscape(id)}, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// UpdateWebhook changes a webhook (PUT /webhooks/{id}).
func (c *Client) UpdateWebhook(ctx context.Context, id string, in *UpdateWebhookRequest, opts ...RequestOption) (*Webhook, error) {
	if in == nil {
		in = &UpdateWebhookRequest{}
	}
	if in.Events != nil && *in.Events == nil {
		cp := *in
		cp.Events = &[]WebhookEventType{}
		in = &cp
	}
	var w Webhook
	if _, err := c.call(ctx, request{method: "PUT", path: "/webhooks/" + url.PathEscape(id), body: in, write: true, opts: opts}, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// DeleteWebhook deletes a webhook and its deliveries (DELETE /webhooks/{id}).
func (c *Client) DeleteWebhook(ctx context.Context, id string, opts ...RequestOption) error {
	_, err := c.call(ctx, request{method: "DELETE", path: "/webhooks/" + url.PathEscape(id), write: true, opts: opts}, nil)
	return err
}

// ListWebhooks returns an iterator over the account's webhooks, newest
// first. params may be nil.
func (c *Client) ListWebhooks(ctx context.Context, params *ListParams) iter.Seq2[Webhook, error] {
	p := ListParams{}
	if params != nil {
		p = *params
	}
	return paginate(p.NextToken, func(token string) (*Page[Webhook], error) {
		q := p
		q.NextToken = token
		return c.ListWebhooksPage(ctx, &q)
	})
}

// ListWebhooksPage fetches one page of webhooks (GET /webhooks).
func (c *Client) ListWebhooksPage(ctx context.Context, params *ListParams) (*Page[Webhook], error) {
	return listPage[Webhook](ctx, c, "/webhooks", params)
}

// ListDeliveries returns an iterator over a webhook's deliveries, newest
// first. params may be nil.
func (c *Client) ListDeliveries(ctx context.Context, webhookID string, params *ListParams) iter.Seq2[WebhookDelivery, error] {
	p := ListParams{}
	if params != nil {
		p = *params
	}
	return paginate(p.NextToken, func(token string) (*Page[WebhookDelivery], error) {
		q := p
		q.NextToken = token
		return c.ListDeliveriesPage(ctx, webhookID, &q)
	})
}

// ListDeliveriesPage fetches one page of a webhook's deliveries
// (GET /webhooks/{id}/deliveries).
func (c *Client) ListDeliveriesPage(ctx context.Context, webhookID string, params *ListParams) (*Page[WebhookDelivery], error) {
	return listPage[WebhookDelivery](ctx, c, "/webhooks/"+url.PathEscape(webhookID)+"/deliveries", params)
}

// RetryDelivery asks for a delivery to be attempted again now
// (POST /webhooks/{id}/deliveries/{deliveryId}/retry); the attempt follows
// the answer.
func (c *Client) RetryDelivery(ctx context.Context, webhookID, deliveryID string, opts ...RequestOption) (*WebhookDelivery, error) {
	var d WebhookDelivery
	path := "/webhooks/" + url.PathEscape(webhookID) + "/deliveries/" + url.PathEscape(deliveryID) + "/retry"
	if _, err := c.call(ctx, request{method: "POST", path: path, write: true, opts: opts}, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// listPage fetches one page of an unfiltered list at path.
func listPage[T any](ctx context.Context, c *Client, path string, params *ListParams) (*Page[T], error) {
	q := url.Values{}
	if params != nil {
		pageQuery(q, params.PageSize, params.NextToken)
	}
	var page Page[T]
	if _, err := c.call(ctx, request{method: "GET", path: path, query: q}, &page); err != nil {
		return nil, err
	}
	return &page, nil
}
