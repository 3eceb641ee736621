package lettershop_test

import (
	"testing"

	"github.com/lettershop/lettershop"
)

// Every read by id answers an id of the wrong form as invalid input at
// the id's field, saying the form, and a well-formed id of nothing as not
// found.
func TestReadsByID(t *testing.T) {
	e := newEnv(t)
	const (
		asset   = "ast_01aaaaaaaaaaaaaaaaaaaaaaaa"
		version = "astv_01aaaaaaaaaaaaaaaaaaaaaaaa"
		webhook = "wh_01aaaaaaaaaaaaaaaaaaaaaaaa"
	)
	read := map[string]func(id string) error{
		"letter": func(id string) error { _, err := e.svc.GetLetter(e.ctx, acct, id); return err },
		"asset":  func(id string) error { _, err := e.svc.GetAsset(e.ctx, acct, id); return err },
		"version": func(id string) error {
			_, err := e.svc.GetVersion(e.ctx, acct, asset, id)
			return err
		},
		"version content": func(id string) error {
			_, _, err := e.svc.GetVersionContent(e.ctx, acct, id)
			return err
		},
		"webhook": func(id string) error { _, err := e.svc.GetWebhook(e.ctx, acct, id); return err },
	}
	for _, c := range []struct {
		what, good, bad, field, prefix string
	}{
		{"letter", "ltr_01aaaaaaaaaaaaaaaaaaaaaaaa", "ltr_01-aaa", "id", "ltr_"},
		{"asset", asset, "ltr_01aaaaaaaaaaaaaaaaaaaaaaaa", "id", "ast_"},
		{"version", version, "astv_", "versionId", "astv_"},
		{"version content", version, "ast_01aaaaaaaaaaaaaaaaaaaaaaaa", "versionId", "astv_"},
		{"webhook", webhook, "wh_01aa aa", "id", "wh_"},
	} {
		fields := fieldsOf(t, read[c.what](c.bad))
		if want := "must be " + c.prefix + " followed by letters and digits"; len(fields) != 1 || fields[c.field] != want {
			t.Errorf("%s %q: fields %v, want %s: %q", c.what, c.bad, fields, c.field, want)
		}
		if err := read[c.what](c.good); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
			t.Errorf("%s %q: got %v, want not found", c.what, c.good, err)
		}
	}
	// A delivery's two ids are both checked before either is looked up.
	_, err := e.svc.GetDelivery(e.ctx, acct, "wh_", "dlv_")
	wantFields(t, err, "id", "deliveryId")
	_, err = e.svc.GetDelivery(e.ctx, acct, webhook, "dlv_01aaaaaaaaaaaaaaaaaaaaaaaa")
	wantCode(t, err, lettershop.CodeNotFound)
}
