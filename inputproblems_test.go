package lettershop_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

// TestInputProblemsAreTheOperations: what InputProblems finds in an input
// is what its operation refuses it for, message for message, where the
// operation needs no stored object to say so; and it stores nothing.
func TestInputProblemsAreTheOperations(t *testing.T) {
	e := newEnv(t)
	letter := lettershop.CreateLetterInput{Description: strings.Repeat("d", 300), UseType: "spam"}
	_, err := e.svc.CreateLetter(e.ctx, acct, letter)
	if diff := cmp.Diff(fieldsOf(t, err), e.svc.InputProblems(acct, letter)); diff != "" {
		t.Errorf("letter (-CreateLetter +InputProblems):\n%s", diff)
	}
	asset := lettershop.CreateAssetInput{Type: "poster", Metadata: lettershop.Metadata{{Key: "", Value: "x"}}}
	_, err = e.svc.CreateAsset(e.ctx, acct, asset)
	if diff := cmp.Diff(fieldsOf(t, err), e.svc.InputProblems(acct, asset)); diff != "" {
		t.Errorf("asset (-CreateAsset +InputProblems):\n%s", diff)
	}
	hook := lettershop.CreateWebhookInput{URL: "ftp://example.com", Events: []lettershop.WebhookEventType{"letter.lost"}, Secret: "x"}
	_, err = e.svc.CreateWebhook(e.ctx, acct, hook)
	if diff := cmp.Diff(fieldsOf(t, err), e.svc.InputProblems(acct, hook)); diff != "" {
		t.Errorf("webhook (-CreateWebhook +InputProblems):\n%s", diff)
	}
	for _, in := range []any{letterInput("ast_1"), lettershop.CreateAssetInput{Name: "Welcome"}, lettershop.UpdateWebhookInput{}, "not an input", nil} {
		if got := e.svc.InputProblems(acct, in); got != nil {
			t.Errorf("InputProblems(%#v) = %v, want nil", in, got)
		}
	}
	assets, err := e.svc.ListAssets(e.ctx, acct, lettershop.ListAssetsInput{})
	if err != nil || len(assets.Items) != 0 {
		t.Errorf("after the checks: %d assets (%v), want none", len(assets.Items), err)
	}
}
