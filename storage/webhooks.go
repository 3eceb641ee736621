package storage

import (
	"context"
	"errors"
	"time"
)

// Webhooks are kept as the letters are: records of the account's webhooks,
// and a delivery per webhook and letter change, which the service attempts
// and retries. The changes themselves arrive with the letters: a letter
// written with Notices (by CreateLetter, UpdateLetter, or what
// ProcessDueLetters' fn leaves) gets, in the same atomic write, a pending
// delivery of each notice to every enabled webhook of its account whose
// Events take the notice's Type. So a change is never written without its
// deliveries, nor a delivery without its change.

// WebhookStorage is the part of Storage that keeps webhooks and their
// deliveries.
type WebhookStorage interface {
	// WriteWebhook stores w: Revision 0 creates it (Revision 1), any other
	// replaces the webhook whose Account and ID match if its stored Revision
	// equals w.Revision, and increments it. ID, Account, Secret and
	// CreatedAt of a stored webhook never change. A create is refused when
	// w's account holds limit webhooks already (limit below 1: no limit),
	// counted in the same atomic step as the create: however many creates
	// run at once, an account never holds more than limit. It returns the
	// stored webhook.
	// Errors: ErrAlreadyExists when creating an id that exists; ErrLimit;
	// ErrNotFound when replacing one that does not; ErrConflict;
	// ErrClaimLost.
	WriteWebhook(ctx context.Context, w Webhook, limit int, c *Completion) (Webhook, error)
	// HasWebhooks reports whether any account has a webhook: a service
	// that finds none does no webhook work until one is made.
	HasWebhooks(ctx context.Context) (bool, error)
	// GetWebhook returns the webhook with that id in that account.
	// Errors: ErrNotFound.
	GetWebhook(ctx context.Context, account, id string) (Webhook, error)
	// ListWebhooks returns up to q.Limit webhooks of q.Account, newest
	// (highest id) first, starting after q.Before.
	ListWebhooks(ctx context.Context, q WebhookQuery) ([]Webhook, error)
	// DeleteWebhook removes the webhook and its deliveries if its stored
	// Revision equals revision.
	// Errors: ErrNotFound; ErrConflict; ErrClaimLost.
	DeleteWebhook(ctx context.Context, account, id string, revision int64, c *Completion) error

	// GetDelivery returns one delivery of one webhook of the account.
	// Errors: ErrNotFound.
	GetDelivery(ctx context.Context, account, webhookID, id string) (Delivery, error)
	// ListDeliveries returns up to q.Limit deliveries of q.WebhookID in
	// q.Account, newest (highest id) first, starting after q.Before; none
	// (not an error) for a webhook that does not exist in the account.
	ListDeliveries(ctx context.Context, q DeliveryQuery) ([]Delivery, error)
	// UpdateDelivery replaces the delivery whose Account, WebhookID and ID
	// match d if its stored Revision equals d.Revision, and returns it with
	// the Revision incremented. Only Status, Attempts, NextAttemptAt,
	// RetryUntil, LeasedUntil, LastAttemptAt, StatusCode and Error change.
	// Errors: ErrNotFound; ErrConflict; ErrClaimLost.
	UpdateDelivery(ctx context.Context, d Delivery, c *Completion) (Delivery, error)
	// ProcessDueDeliveries takes up to q.Limit deliveries that are due: of
	// the accounts q selects, pending, NextAttemptAt not after q.Now,
	// LeasedUntil not after q.Leased, of an enabled webhook, and with no
	// pending delivery of the same webhook and letter at a lower Seq (the
	// changes of one letter go out in order). Earliest NextAttemptAt first,
	// then lowest WebhookID and ID. It calls fn with a copy of each and
	// writes what fn leaves (as UpdateDelivery does, Revision incremented);
	// when fn returns an error nothing more is written. It returns the
	// written deliveries, with fn's error if there was one. A delivery is
	// never handed to two concurrent callers at the same revision. fn must
	// not call the store.
	ProcessDueDeliveries(ctx context.Context, q DeliveryDueQuery, fn func(*Delivery) error) ([]Delivery, error)
	// DeliveryAccounts returns the accounts that have deliveries
	// ProcessDueDeliveries would take once they are due (pending, LeasedUntil
	// not after q.Leased, of an enabled webhook, and first of their
	// letter's to their webhook), each with the earliest NextAttemptAt of
	// those: when, on the account's clock, its next delivery falls due. Up
	// to q.Limit accounts, in account order, after q.After; with q.Until
	// set, only deliveries whose NextAttemptAt is not after it count. Its
	// cost follows the accounts with pending deliveries, not every
	// account, nor every delivery: a store may look at only an account's
	// first few pending deliveries, earliest first, and when none of them
	// can be taken (under way, waiting behind an earlier one of their
	// letter, of a disabled webhook) name the account with the last one's
	// NextAttemptAt, no later than its earliest to take; a take then finds
	// what there is.
	DeliveryAccounts(ctx context.Context, q DeliveryAccountQuery) ([]DeliveryAccount, error)
}

// ErrLimit: a create would take its account past the limit the caller
// set. Nothing was written.
var ErrLimit = errors.New("storage: limit reached")

// Webhook is a stored webhook: where an account's letter changes are sent.
type Webhook struct {
	ID      string
	Account string
	URL     string
	// Events are the notice types sent; empty sends every type.
	Events      []string
	Description string
	Metadata    []Metadata
	// Status is "enabled" or "disabled": a disabled webhook gets no new
	// deliveries, and its pending ones wait until it is enabled again.
	Status string
	// Secret signs what is sent.
	Secret     string
	CreatedAt  time.Time
	ModifiedAt time.Time
	// Revision is set by the store: 1 on create, incremented by each write.
	Revision int64
}

// Webhook statuses the store acts on.
const (
	WebhookEnabled  = "enabled"
	WebhookDisabled = "disabled"
)

// WebhookQuery selects webhooks of one account.
type WebhookQuery struct {
	Account string
	Before  string
	Limit   int
}

// Notice is a change of a letter, written with it, that the account's
// webhooks are sent (see WebhookStorage).
type Notice struct {
	// EventID identifies the change: at most one delivery is made per
	// webhook and EventID, however often the notice is written.
	EventID string
	// Type is what the change is, matched against a webhook's Events.
	Type string
	// Seq is the change's place in its letter's history: the deliveries of
	// one letter to one webhook are attempted in Seq order.
	Seq int
	// At is when the change happened, on the account's clock: the first
	// attempt of its deliveries is due then.
	At time.Time
	// RetryUntil is when its deliveries stop being retried.
	RetryUntil time.Time
}

// Delivery is one notice to one webhook, and where its attempts stand.
type Delivery struct {
	// ID is unique within its webhook: "dlv_" and the part of EventID
	// after "evt_", so ids sort as the changes happened: by time, and a
	// letter's of one instant by Seq.
	ID        string
	Account   string
	WebhookID string
	EventID   string
	Type      string
	LetterID  string
	Seq       int
	EventAt   time.Time
	// Status is "pending", "succeeded" or "failed".
	Status string
	// Attempts is how many attempts were made (or begun).
	Attempts int
	// NextAttemptAt is when a pending delivery is next due, on the
	// account's clock; RetryUntil is when it stops being retried.
	NextAttemptAt time.Time
	RetryUntil    time.Time
	// LeasedUntil holds an attempt under way: the delivery is not taken
	// again before this time, on the time the caller leases by.
	LeasedUntil   time.Time
	LastAttemptAt time.Time
	// StatusCode is the last attempt's HTTP status, 0 when it got none;
	// Error what went wrong with it.
	StatusCode int
	Error      string
	// Revision is set by the store: 1 when the delivery is made,
	// incremented by each write.
	Revision int64
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// DeliveryID is the id of the delivery of the notice with eventID.
func DeliveryID(eventID string) string {
	if len(eventID) > 4 && eventID[:4] == "evt_" {
		return "dlv_" + eventID[4:]
	}
	return "dlv_" + eventID
}

// DeliveryQuery selects deliveries of one webhook.
type DeliveryQuery struct {
	Account   string
	WebhookID string
	Before    string
	Limit     int
}

// DeliveryDueQuery selects the deliveries ProcessDueDeliveries takes.
type DeliveryDueQuery struct {
	DueQuery
	// Leased is the time leases are judged at: a delivery whose LeasedUntil
	// is after it is under way and passed over.
	Leased time.Time
}

// DeliveryAccountQuery selects the accounts DeliveryAccounts returns.
type DeliveryAccountQuery struct {
	// Leased is the time leases are judged at, as in DeliveryDueQuery: a
	// delivery under way does not count.
	Leased time.Time
	// Until, when set, leaves out deliveries due after it.
	Until time.Time
	// After is the account the page starts after; "" starts at the first.
	After string
	// Limit is how many accounts one call returns at most; below 1, none.
	Limit int
}

// DeliveryAccount is an account with deliveries to take, and when the
// earliest of them is due on its clock.
type DeliveryAccount struct {
	Account string
	Next    time.Time
}
