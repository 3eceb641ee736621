package lettershop

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/internal/pagetoken"
	"github.com/lettershop/lettershop/storage"
)

// Webhooks tell an account of its letters' changes as they happen: one
// event for every change a letter makes (letter.created, then letter. and
// the new status or the tracking event's status), posted, signed, to each
// enabled webhook whose events take it, and retried on the account's clock
// until the receiver answers 2xx (a Deliverer sends them: deliveries.go).
// The events of one letter go out in order. An event is made in the same
// store write as the change it tells of: the change's notice (see
// storage.WebhookStorage).

// WebhookEventType is what a webhook event tells of.
type WebhookEventType string

// The event types.
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

// WebhookEventTypes are every event type, in the order a letter's life
// meets them. (letter.queued is a letter at issue queued again.)
var WebhookEventTypes = []WebhookEventType{
	WebhookLetterCreated, WebhookLetterQueued, WebhookLetterReady, WebhookLetterInProduction, WebhookLetterMailed,
	WebhookLetterIssue, WebhookLetterCanceled, WebhookLetterInTransit, WebhookLetterInLocalArea,
	WebhookLetterProcessedForDelivery, WebhookLetterDelivered, WebhookLetterReRouted, WebhookLetterReturnedToSender,
}

// WebhookStatus says whether a webhook is sent events.
type WebhookStatus string

// Webhook statuses.
const (
	// WebhookEnabled: events are made for the webhook and sent.
	WebhookEnabled WebhookStatus = storage.WebhookEnabled
	// WebhookDisabled: no events are made for it, and those it has wait
	// until it is enabled again.
	WebhookDisabled WebhookStatus = storage.WebhookDisabled
)

var webhookStatuses = []WebhookStatus{WebhookEnabled, WebhookDisabled}

// Limits of webhooks.
const (
	// MaxWebhooks is how many webhooks an account may have.
	MaxWebhooks = 16
	// MaxWebhookURL is the longest url, in bytes.
	MaxWebhookURL = 2048
	// MaxWebhookDescription is the longest description, in characters.
	MaxWebhookDescription = 500
	// WebhookRetryPeriod is how long, on the account's clock, a delivery is
	// retried before it is given up as failed.
	WebhookRetryPeriod = 72 * time.Hour
)

const (
	webhookPrefix = "wh_"
	secretPrefix  = "whsec_"
	// funcScheme is the scheme of a webhook served by a function of this
	// process (SubscribeFunc), not over HTTP.
	funcScheme = "go"
)

// Webhook is a subscription to an account's letter events.
type Webhook struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Events are the event types sent; empty sends every type.
	Events      []WebhookEventType `json:"events"`
	Description string             `json:"description,omitempty"`
	Metadata    Metadata           `json:"metadata"`
	Status      WebhookStatus      `json:"status"`
	// Secret signs every event sent (see package webhook). It is shown
	// once, when the webhook is made; reads leave it out.
	Secret     string    `json:"secret,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	ModifiedAt time.Time `json:"modifiedAt"`

	secret   string
	revision int64
}

// CreateWebhookInput makes a webhook: where to post events, which (empty:
// all), and a description and metadata of the caller's. Secret, when set,
// is the webhook's secret instead of a new random one: "whsec_" and 16 to
// 100 letters, digits, "-" or "_". It is for tests, which build their
// receiver with the secret before the webhook exists; the HTTP API takes
// it from test keys only.
type CreateWebhookInput struct {
	URL         string             `json:"url"`
	Events      []WebhookEventType `json:"events,omitempty"`
	Description string             `json:"description,omitempty"`
	Metadata    Metadata           `json:"metadata,omitempty"`
	Secret      string             `json:"secret,omitempty"`
}

// UpdateWebhookInput changes a webhook; fields left nil stay. ID, Secret,
// CreatedAt and ModifiedAt are read-only: given with the webhook's value
// (a webhook fetched and sent back) they are ignored, with another refused.
type UpdateWebhookInput struct {
	URL         *string             `json:"url,omitempty"`
	Events      *[]WebhookEventType `json:"events,omitempty"`
	Description *string             `json:"description,omitempty"`
	Metadata    *Metadata           `json:"metadata,omitempty"`
	Status      *WebhookStatus      `json:"status,omitempty"`

	ID         *string    `json:"id,omitempty"`
	Secret     *string    `json:"secret,omitempty"`
	CreatedAt  *time.Time `json:"createdAt,omitempty"`
	ModifiedAt *time.Time `json:"modifiedAt,omitempty"`
}

// ListWebhooksInput selects a page of webhooks.
type ListWebhooksInput struct {
	PageRequest
}

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

// Delivery statuses.
const (
	// DeliveryPending: not yet answered 2xx; attempted when due.
	DeliveryPending DeliveryStatus = storage.DeliveryPending
	// DeliverySucceeded: the receiver answered 2xx.
	DeliverySucceeded DeliveryStatus = storage.DeliverySucceeded
	// DeliveryFailed: retried for WebhookRetryPeriod without success.
	DeliveryFailed DeliveryStatus = storage.DeliveryFailed
)

// WebhookDelivery is one event sent to one webhook, and where its attempts
// stand.
type WebhookDelivery struct {
	ID        string           `json:"id"`
	WebhookID string           `json:"webhookId"`
	EventID   string           `json:"eventId"`
	Type      WebhookEventType `json:"type"`
	LetterID  string           `json:"letterId"`
	Status    DeliveryStatus   `json:"status"`
	// Attempt is how many attempts were made.
	Attempt int `json:"attempt"`
	// StatusCode is the last attempt's HTTP status; nil when it got none.
	StatusCode *int `json:"statusCode"`
	// Error says what was wrong with the last attempt; nil when nothing.
	Error *string `json:"error"`
	// CreatedAt is when the event happened, on the account's clock.
	CreatedAt     time.Time  `json:"createdAt"`
	LastAttemptAt *time.Time `json:"lastAttemptAt"`
	// NextAttemptAt is when a pending delivery is attempted next.
	NextAttemptAt *time.Time `json:"nextAttemptAt"`

	revision int64
}

// ListDeliveriesInput selects a page of a webhook's deliveries.
type ListDeliveriesInput struct {
	PageRequest
}

// WebhookEvent is what is posted to a webhook: an event and the letter as
// it stood right after the change (as GetLetter shows it).
type WebhookEvent struct {
	ID        string           `json:"id"`
	Type      WebhookEventType `json:"type"`
	CreatedAt time.Time        `json:"createdAt"`
	Data      WebhookEventData `json:"data"`
}

// WebhookEventData is the event's subject.
type WebhookEventData struct {
	Object *Letter `json:"object"`
}

// CreateWebhook makes a webhook in the account. Its secret is in the
// answer, and only there: a replay under an idempotency key leaves it out.
func (s *Service) CreateWebhook(ctx context.Context, account string, in CreateWebhookInput) (*Webhook, error) {
	return idempotent(ctx, s, account, "createWebhook", in, func(ctx context.Context) (*Webhook, error) {
		f := fieldErrors{}
		s.checkCreateWebhook(f, in)
		if err := f.err(); err != nil {
			return nil, err
		}
		return s.createWebhook(ctx, account, in.URL, in)
	})
}

// checkCreateWebhook checks a webhook to create; its host is judged as an
// address or a name, without a lookup.
func (s *Service) checkCreateWebhook(f fieldErrors, in CreateWebhookInput) {
	s.validateWebhookURL(f, in.URL)
	validateWebhookEvents(f, in.Events)
	validateWebhookDescription(f, in.Description)
	validateWebhookSecret(f, in.Secret)
	in.Metadata.validate("metadata", f)
}

// checkUpdateWebhook checks the fields a webhook's update gives, but its
// url: a url the webhook has already is no change, even one no request
// could give (SubscribeFunc's), so the url is checked against the stored
// webhook.
func checkUpdateWebhook(f fieldErrors, in UpdateWebhookInput) {
	if in.Events != nil {
		validateWebhookEvents(f, *in.Events)
	}
	if in.Description != nil {
		validateWebhookDescription(f, *in.Description)
	}
	if in.Metadata != nil {
		in.Metadata.validate("metadata", f)
	}
	if in.Status != nil {
		enum(f, "status", *in.Status, webhookStatuses)
	}
}

// Bounds of a secret a caller chooses, after its prefix.
const (
	minChosenSecret = 16
	maxChosenSecret = 100
)

// validateWebhookSecret checks a secret the caller chose: long enough not
// to be guessed by chance, and of characters a header and a shell carry
// as they are.
func validateWebhookSecret(f fieldErrors, secret string) {
	if secret == "" {
		return
	}
	rest, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok || len(rest) < minChosenSecret || len(rest) > maxChosenSecret || strings.ContainsFunc(rest, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
	}) {
		f.add("secret", "must be %s followed by %d to %d letters, digits, - or _ (%d bytes given)",
			secretPrefix, minChosenSecret, maxChosenSecret, len(secret))
	}
}

func (s *Service) createWebhook(ctx context.Context, account, target string, in CreateWebhookInput) (*Webhook, error) {
	secret := in.Secret
	if secret == "" {
		var err error
		if secret, err = s.newSecret(); err != nil {
			return nil, internal("create webhook", err)
		}
	}
	now := s.now(account)
	w := &Webhook{
		ID: s.newID(webhookPrefix, now), URL: target, Events: slices.Clone(in.Events), Description: in.Description,
		Metadata: in.Metadata.clone(), Status: WebhookEnabled, CreatedAt: now, ModifiedAt: now, secret: secret,
	}
	if w.Events == nil {
		w.Events = []WebhookEventType{}
	}
	out := *w
	out.Secret = secret
	stored, err := withCompletion(ctx, &out, func(c *storage.Completion) (storage.Webhook, error) {
		// The store counts the account's webhooks in the create's own step,
		// so creates at once never take it past MaxWebhooks.
		return s.store.WriteWebhook(ctx, webhookRecord(account, w), MaxWebhooks, c)
	})
	if errors.Is(err, storage.ErrLimit) {
		return nil, errorf(CodeConflict, "an account has at most %d webhooks; delete one first", MaxWebhooks)
	}
	if err != nil {
		return nil, storeErr("create webhook", err)
	}
	out.revision = stored.Revision
	s.deliveries.activate()
	return &out, nil
}

// newSecret returns a new webhook secret: whsec_ and 32 random bytes.
func (s *Service) newSecret() (string, error) {
	b := make([]byte, 32)
	if err := s.ids.Read(b); err != nil {
		return "", err
	}
	return secretPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// GetWebhook returns a webhook of the account, without its secret.
func (s *Service) GetWebhook(ctx context.Context, account, id string) (*Webhook, error) {
	return s.getWebhook(ctx, account, id)
}

func (s *Service) getWebhook(ctx context.Context, account, id string) (*Webhook, error) {
	if err := idErr("id", webhookPrefix, id); err != nil {
		return nil, err
	}
	rec, err := s.store.GetWebhook(ctx, account, id)
	if err != nil {
		return nil, objectErr(err, "webhook", id, "get webhook")
	}
	return webhookFromRecord(rec), nil
}

// ListWebhooks returns a page of the account's webhooks, newest first.
func (s *Service) ListWebhooks(ctx context.Context, account string, in ListWebhooksInput) (Page[*Webhook], error) {
	f := fieldErrors{}
	c := s.openPage(in.PageRequest, pagetoken.Scope(account, "webhooks"), f)
	if err := f.err(); err != nil {
		return Page[*Webhook]{}, err
	}
	recs, err := s.store.ListWebhooks(ctx, storage.WebhookQuery{Account: account, Before: c.before, Limit: c.limit + 1})
	if err != nil {
		return Page[*Webhook]{}, storeErr("list webhooks", err)
	}
	items := make([]*Webhook, 0, len(recs))
	for _, r := range recs {
		items = append(items, webhookFromRecord(r))
	}
	return closePage(s, c, items, func(w *Webhook) string { return w.ID }), nil
}

// UpdateWebhook changes a webhook's url, events, description, metadata or
// status. A url it has already is no change, even one SubscribeFunc made.
func (s *Service) UpdateWebhook(ctx context.Context, account, id string, in UpdateWebhookInput) (*Webhook, error) {
	return idempotent(ctx, s, account, "updateWebhook:"+id, in, func(ctx context.Context) (*Webhook, error) {
		f := fieldErrors{}
		checkUpdateWebhook(f, in)
		if err := f.err(); err != nil {
			return nil, err
		}
		w, err := storage.RetryConflicts(maxRetries, func() (*Webhook, error) {
			w, err := s.getWebhook(ctx, account, id)
			if err != nil {
				return nil, err
			}
			f := fieldErrors{}
			checkWebhookReadOnly(f, in, w)
			if in.URL != nil && *in.URL != w.URL {
				s.validateWebhookURL(f, *in.URL)
			}
			if err := f.err(); err != nil || !applyWebhookChange(w, in) {
				return w, err
			}
			w.ModifiedAt = s.now(account)
			stored, err := withCompletion(ctx, w, func(c *storage.Completion) (storage.Webhook, error) {
				return s.store.WriteWebhook(ctx, webhookRecord(account, w), 0, c)
			})
			if err != nil {
				return nil, err
			}
			w.revision = stored.Revision
			if w.Status == WebhookEnabled {
				s.deliveries.activate()
				s.deliveries.deliverer.Wake()
			}
			return w, nil
		})
		if err != nil {
			return nil, objectErr(err, "webhook", id, "update webhook")
		}
		return w, nil
	})
}

// applyWebhookChange applies in to w and reports whether anything changed.
func applyWebhookChange(w *Webhook, in UpdateWebhookInput) bool {
	changed := false
	if in.URL != nil && *in.URL != w.URL {
		w.URL, changed = *in.URL, true
	}
	if in.Events != nil && !slices.Equal(*in.Events, w.Events) {
		w.Events, changed = slices.Clone(*in.Events), true
		if w.Events == nil {
			w.Events = []WebhookEventType{}
		}
	}
	if in.Description != nil && *in.Description != w.Description {
		w.Description, changed = *in.Description, true
	}
	if in.Metadata != nil && !slices.Equal(*in.Metadata, w.Metadata) {
		w.Metadata, changed = in.Metadata.clone(), true
	}
	if in.Status != nil && *in.Status != w.Status {
		w.Status, changed = *in.Status, true
	}
	return changed
}

func checkWebhookReadOnly(f fieldErrors, in UpdateWebhookInput, w *Webhook) {
	sameString(f, "id", in.ID, w.ID)
	sameTime(f, "createdAt", in.CreatedAt, w.CreatedAt)
	sameTime(f, "modifiedAt", in.ModifiedAt, w.ModifiedAt)
	if in.Secret != nil && *in.Secret != w.secret {
		// Not readOnly: its message would show the secret.
		f.add("secret", "secret is read-only: leave it out")
	}
}

// DeleteWebhook deletes a webhook and its deliveries: nothing more is sent
// to it.
func (s *Service) DeleteWebhook(ctx context.Context, account, id string) error {
	_, err := idempotent(ctx, s, account, "deleteWebhook:"+id, nil, func(ctx context.Context) (*Webhook, error) {
		w, err := storage.RetryConflicts(maxRetries, func() (*Webhook, error) {
			w, err := s.getWebhook(ctx, account, id)
			if err != nil {
				return nil, err
			}
			_, err = withCompletion(ctx, nil, func(c *storage.Completion) (struct{}, error) {
				return struct{}{}, s.store.DeleteWebhook(ctx, account, id, w.revision, c)
			})
			return w, err
		})
		if err != nil {
			return nil, objectErr(err, "webhook", id, "delete webhook")
		}
		s.deliveries.funcs.Delete(w.URL) // a function's, if it was SubscribeFunc's
		return nil, nil
	})
	return err
}

// ListDeliveries returns a page of a webhook's deliveries, newest first.
// Unlike a read of letters it does not catch up first: after a test moved
// its clock, the deliveries of letter steps that fell due appear once a
// read of letters, RunDue or await.Deliveries has stored those steps.
func (s *Service) ListDeliveries(ctx context.Context, account, webhookID string, in ListDeliveriesInput) (Page[*WebhookDelivery], error) {
	f := fieldErrors{}
	c := s.openPage(in.PageRequest, pagetoken.Scope(account, "deliveries", webhookID), f)
	if err := f.err(); err != nil {
		return Page[*WebhookDelivery]{}, err
	}
	if _, err := s.getWebhook(ctx, account, webhookID); err != nil {
		return Page[*WebhookDelivery]{}, err
	}
	recs, err := s.store.ListDeliveries(ctx, storage.DeliveryQuery{Account: account, WebhookID: webhookID, Before: c.before, Limit: c.limit + 1})
	if err != nil {
		return Page[*WebhookDelivery]{}, storeErr("list deliveries", err)
	}
	items := make([]*WebhookDelivery, 0, len(recs))
	for _, r := range recs {
		items = append(items, deliveryFromRecord(r))
	}
	return closePage(s, c, items, func(d *WebhookDelivery) string { return d.ID }), nil
}

// GetDelivery returns one delivery of a webhook.
func (s *Service) GetDelivery(ctx context.Context, account, webhookID, id string) (*WebhookDelivery, error) {
	d, err := s.getDelivery(ctx, account, webhookID, id)
	if err != nil {
		return nil, err
	}
	return deliveryFromRecord(d), nil
}

func (s *Service) getDelivery(ctx context.Context, account, webhookID, id string) (storage.Delivery, error) {
	f := fieldErrors{}
	f.id("id", webhookPrefix, webhookID)
	f.id("deliveryId", deliveryPrefix, id)
	if err := f.err(); err != nil {
		return storage.Delivery{}, err
	}
	if _, err := s.getWebhook(ctx, account, webhookID); err != nil {
		return storage.Delivery{}, err
	}
	d, err := s.store.GetDelivery(ctx, account, webhookID, id)
	if err != nil {
		return storage.Delivery{}, objectErr(err, "delivery", id, "get delivery")
	}
	return d, nil
}

const deliveryPrefix = "dlv_"

// RetryDelivery attempts a delivery again now, whatever its status: a
// failure is then retried on the usual schedule, for WebhookRetryPeriod
// from now. A delivery under way is a CodeConflict.
func (s *Service) RetryDelivery(ctx context.Context, account, webhookID, id string) (*WebhookDelivery, error) {
	return idempotent(ctx, s, account, "retryDelivery:"+webhookID+"/"+id, nil, func(ctx context.Context) (*WebhookDelivery, error) {
		stored, err := storage.RetryConflicts(maxRetries, func() (storage.Delivery, error) {
			d, err := s.getDelivery(ctx, account, webhookID, id)
			if err != nil {
				return d, err
			}
			if d.LeasedUntil.After(s.wall.Now()) {
				return d, errorf(CodeConflict, "delivery %s is being attempted; wait for the attempt to end", id)
			}
			now := s.now(account)
			d.Status, d.NextAttemptAt, d.RetryUntil = storage.DeliveryPending, now, now.Add(WebhookRetryPeriod)
			return withCompletion(ctx, deliveryFromRecord(d), func(c *storage.Completion) (storage.Delivery, error) {
				return s.store.UpdateDelivery(ctx, d, c)
			})
		})
		if err != nil {
			return nil, objectErr(err, "delivery", id, "retry delivery")
		}
		s.deliveries.activate()
		s.deliveries.deliverer.Wake()
		return deliveryFromRecord(stored), nil
	})
}

// validateWebhookURL checks a url given for a webhook: without a fragment,
// a URL the egress policy takes (egress.Policy.CheckURL: absolute http or
// https, a port from 1 to 65535, no credentials nor spaces), with a host the
// Deliverer (a HostChecker) allows too (an address is decided now; a name,
// when it is dialled).
func (s *Service) validateWebhookURL(f fieldErrors, raw string) {
	if msg := badText(raw); msg != "" {
		f.add("url", "%s", msg)
		return
	}
	if raw == "" {
		f.add("url", "url is required: where to post events, such as https://example.com/webhooks")
		return
	}
	if len(raw) > MaxWebhookURL {
		f.add("url", "must be at most %d bytes, got %d", MaxWebhookURL, len(raw))
		return
	}
	if strings.Contains(raw, "#") {
		f.add("url", "must not have a fragment (#...), got %s", echo.Quote(raw))
		return
	}
	// The rules of every URL lettershop requests (scheme, host, port,
	// credentials, spaces), then the hosts the Deliverer posts to.
	u, err := s.egress.CheckURL(raw)
	if err == nil {
		err = s.deliveries.checkHost(u.Hostname())
	}
	if err != nil {
		f.add("url", "%v", err)
	}
}

func validateWebhookEvents(f fieldErrors, events []WebhookEventType) {
	seen := map[WebhookEventType]bool{}
	for i, e := range events {
		path := fmt.Sprintf("events[%d]", i)
		switch {
		case !slices.Contains(WebhookEventTypes, e):
			f.add(path, "must be one of %s, got %s", joinEnum(WebhookEventTypes), echo.Quote(string(e)))
		case seen[e]:
			f.add(path, "%s is given twice", e)
		}
		seen[e] = true
	}
}

func validateWebhookDescription(f fieldErrors, d string) {
	maxLen(f, "description", d, MaxWebhookDescription)
}

func webhookRecord(account string, w *Webhook) storage.Webhook {
	events := make([]string, len(w.Events))
	for i, e := range w.Events {
		events[i] = string(e)
	}
	return storage.Webhook{
		ID: w.ID, Account: account, URL: w.URL, Events: events, Description: w.Description,
		Metadata: metadataRecords(w.Metadata), Status: string(w.Status), Secret: w.secret,
		CreatedAt: w.CreatedAt, ModifiedAt: w.ModifiedAt, Revision: w.revision,
	}
}

func webhookFromRecord(r storage.Webhook) *Webhook {
	events := make([]WebhookEventType, len(r.Events))
	for i, e := range r.Events {
		events[i] = WebhookEventType(e)
	}
	return &Webhook{
		ID: r.ID, URL: r.URL, Events: events, Description: r.Description, Metadata: metadataOf(r.Metadata),
		Status: WebhookStatus(r.Status), CreatedAt: r.CreatedAt.UTC(), ModifiedAt: r.ModifiedAt.UTC(),
		secret: r.Secret, revision: r.Revision,
	}
}

func deliveryFromRecord(r storage.Delivery) *WebhookDelivery {
	d := &WebhookDelivery{
		ID: r.ID, WebhookID: r.WebhookID, EventID: r.EventID, Type: WebhookEventType(r.Type), LetterID: r.LetterID,
		Status: DeliveryStatus(r.Status), Attempt: r.Attempts, CreatedAt: r.EventAt.UTC(), revision: r.Revision,
	}
	if r.StatusCode != 0 {
		d.StatusCode = &r.StatusCode
	}
	if r.Error != "" {
		d.Error = &r.Error
	}
	if !r.LastAttemptAt.IsZero() {
		t := r.LastAttemptAt.UTC()
		d.LastAttemptAt = &t
	}
	if r.Status == storage.DeliveryPending {
		t := r.NextAttemptAt.UTC()
		d.NextAttemptAt = &t
	}
	return d
}

// noticesOf are the notices of a letter's events from the first the store
// does not hold yet: what a write of the letter tells its webhooks.
func noticesOf(letterID string, events []Event, from int) []storage.Notice {
	if from >= len(events) {
		return nil
	}
	out := make([]storage.Notice, 0, len(events)-from)
	for i := from; i < len(events); i++ {
		out = append(out, noticeOf(events[i], i))
	}
	return out
}

// noticeOf is the notice of a letter's n-th event.
func noticeOf(e Event, n int) storage.Notice {
	return storage.Notice{EventID: e.ID, Type: noticeType(e.Status, n), Seq: n, At: e.Timestamp, RetryUntil: e.Timestamp.Add(WebhookRetryPeriod)}
}

// noticeType is the webhook event type of a letter's n-th event, which
// reached status.
func noticeType(status EventStatus, n int) string {
	if n == 0 {
		return string(WebhookLetterCreated)
	}
	if t, ok := noticeTypes[status]; ok {
		return t
	}
	return "letter." + string(status)
}

// noticeTypes are the webhook event types of the statuses (every type but
// letter.created is "letter." and its status), made once.
var noticeTypes = func() map[EventStatus]string {
	m := map[EventStatus]string{}
	for _, t := range WebhookEventTypes {
		if t != WebhookLetterCreated {
			m[EventStatus(strings.TrimPrefix(string(t), "letter."))] = string(t)
		}
	}
	return m
}()

// letterAt is l as it stood right after its event seq: its events up to
// that one, and the status they gave it.
func letterAt(l *Letter, seq int) *Letter {
	if seq < 0 || seq >= len(l.Events) {
		return l
	}
	c := *l
	c.Events = l.Events[:seq+1]
	for _, e := range c.Events {
		if e.Type == EventTypeStatus {
			c.Status = LetterStatus(e.Status)
		}
	}
	if at := c.Events[seq].Timestamp; at.After(c.CreatedAt) {
		c.ModifiedAt = at
	} else {
		c.ModifiedAt = c.CreatedAt
	}
	if c.Status != StatusIssue {
		c.IssueMessage = ""
	}
	return &c
}
