// Package welcome is a small application that mails a welcome letter
// through the letter API, and takes the webhook events that follow: an
// example of a user of lettershop, tested with lettershoptest and the
// client as any module outside this one would be (it imports only their
// public APIs).
package welcome

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/webhook"
)

// template is the welcome letter.
const template = "<p>Dear {{name}},</p><p>Welcome aboard.</p>"

// Mailer sends welcome letters with c.
type Mailer struct {
	c       *client.Client
	assetID string
}

// NewMailer publishes the welcome template with c and returns a Mailer.
func NewMailer(ctx context.Context, c *client.Client) (*Mailer, error) {
	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome", Type: client.AssetTemplate})
	if err != nil {
		return nil, err
	}
	if _, err := c.CreateVersion(ctx, a.ID, &client.CreateVersionRequest{
		Content:             &client.VersionContent{Type: "text/html", Content: template},
		VariableDefinitions: []client.VariableDefinition{{Name: "name", Behavior: client.VariableRequired}},
		Publish:             true,
	}); err != nil {
		return nil, err
	}
	return &Mailer{c: c, assetID: a.ID}, nil
}

// ForAsset returns a Mailer of a template published before.
func ForAsset(c *client.Client, assetID string) *Mailer { return &Mailer{c: c, assetID: assetID} }

// SendWelcome mails a welcome letter to name and returns its id. The
// idempotency key makes a retry of a lost answer send one letter.
func (m *Mailer) SendWelcome(ctx context.Context, name string) (string, error) {
	l, err := m.c.CreateLetter(ctx, &client.CreateLetterRequest{
		Sender: &client.PartyInput{Organization: "Acme Corp",
			Address: client.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &client.PartyInput{Individual: &client.Individual{FirstName: name, LastName: "Doe"},
			Address: client.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &client.LetterContent{Type: client.LetterContentAsset, AssetID: m.assetID},
		UseType:   client.UseTransactional,
		Variables: []client.Variable{client.Value("name", name)},
	}, client.IdempotencyKey("welcome-"+name))
	if err != nil {
		return "", err
	}
	return l.ID, nil
}

// WebhookHandler takes the letter events the API posts, signed with
// secret, and tells delivered of each letter delivered.
func WebhookHandler(secret string, delivered func(letterID string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, 5*time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var e client.WebhookEvent
		if err := json.Unmarshal(body, &e); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if e.Type == client.WebhookLetterDelivered {
			delivered(e.Data.Object.ID)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
