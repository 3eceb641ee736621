package lettershop_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// TestFieldErrorsAreBounded: an input with more bad values than
// MaxFieldErrors is refused naming that many, each message within
// MaxFieldMessage and quoting a cut prefix of its value; the error the
// Go API returns is as small as the problem the HTTP layer answers.
func TestFieldErrorsAreBounded(t *testing.T) {
	e := newEnv(t)
	for _, n := range []int{lettershop.MaxFieldErrors, lettershop.MaxFieldErrors + 1} {
		var events []lettershop.WebhookEventType
		for i := range n {
			events = append(events, lettershop.WebhookEventType(fmt.Sprintf("%03d%s", i, strings.Repeat("e", 10_000))))
		}
		_, err := e.svc.CreateWebhook(context.Background(), acct, lettershop.CreateWebhookInput{URL: "https://example.com/hook", Events: events})
		fields := fieldsOf(t, err)
		if len(fields) != lettershop.MaxFieldErrors {
			t.Errorf("%d bad events: %d field errors, want %d", n, len(fields), lettershop.MaxFieldErrors)
		}
		for path, msg := range fields {
			if len(msg) > lettershop.MaxFieldMessage || !strings.HasSuffix(msg, `…" (10003 bytes)`) {
				t.Errorf("%s: %d bytes, %.80s…; want a cut quote within %d bytes", path, len(msg), msg, lettershop.MaxFieldMessage)
			}
		}
		if len(err.Error()) > lettershop.MaxFieldErrors*(lettershop.MaxFieldPath+lettershop.MaxFieldMessage+4) {
			t.Errorf("the error's text takes %d bytes", len(err.Error()))
		}
	}
}
