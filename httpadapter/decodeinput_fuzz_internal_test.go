package httpadapter

import (
	"errors"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

// inputBodies seed FuzzDecodeInput: each operation's body as a client
// sends it, and bodies of the wrong shape whose rest is checked as a
// partial input (nil parties, half a party, a party that is a number).
var inputBodies = []string{
	fastLetter,
	`{"sender":{"address":{"addressLine1":"1 A St","city":"San Juan","state":"PR","zipCode":"00926","urbanization":"URB Las Gladiolas"},"individual":{"firstName":"Ana","lastName":"Rivera"}},"recipient":5,"useType":"transactional"}`,
	`{"recipient":{"address":7,"individual":{"firstName":1}},"sender":{"individual":null},"content":{"type":"asset","assetId":[]},"options":{"print":"x","mail":{"extraServices":[1,"certified"]}}}`,
	`{"variables":[{"name":"a","value":1},{"name":2},null],"metadata":[{"key":"k","value":{}}],"options":{"addressProcessing":{"cassSender":{"type":1},"cassRecipient":null}}}`,
	`{"recipient":{"individual":{"fullName":"Dr. Ana Rivera","prefix":"Dr.","firstName":"Ana","lastName":"Rivera"},"address":{"addressLine1":"1 A St","lastLine":"San Juan PR 00926","state":5}},"status":"mailed","events":[{"id":1}],"createdAt":"yesterday"}`,
	`{"name":"Welcome","type":"template","metadata":[{"key":"k","value":"v"}],"description":5}`,
	`{"name":7,"versionCount":"1","publishedVersionId":null,"createdAt":"2026-03-02T15:00:00Z"}`,
	`{"notes":"n","content":{"type":"text/html","content":"<p>{{name}}</p>"},"variableDefinitions":[{"name":"name","behavior":"required"},{"name":3}],"publish":"yes"}`,
	`{"notes":1,"variableDefinitions":{"name":"x"},"contentLength":1e99}`,
	`{"url":"https://example.com/hook","events":["letter.mailed",5],"secret":[]}`,
	`{"url":5,"events":null,"status":"disabled","metadata":[{}]}`,
	`{"":1,"a":{"":2},"recipient":{"":{"":3}}}`,
	`[1]`, `"x"`, `null`, `{}`, `{"recipient":null,"sender":null}`,
}

// FuzzDecodeInput holds decodeInput, with the Service's own checks run on
// what is left of a body of the wrong shape, to the API's promise for any
// body: it decodes, or it is a validation error naming each field at
// fault; never a panic, whatever partial input the checks are given.
func FuzzDecodeInput(f *testing.F) {
	for _, b := range inputBodies {
		f.Add([]byte(b))
	}
	svc := lettershop.New(memstore.New())
	f.Cleanup(func() { svc.Close() })
	problems := func(in any) map[string]string { return svc.InputProblems("acct_fuzz", in) }
	f.Fuzz(func(t *testing.T, body []byte) {
		checkInput[lettershop.CreateLetterInput](t, body, problems)
		checkInput[lettershop.UpdateLetterInput](t, body, problems)
		checkInput[lettershop.CreateAssetInput](t, body, problems)
		checkInput[lettershop.UpdateAssetInput](t, body, problems)
		checkInput[lettershop.CreateVersionInput](t, body, problems)
		checkInput[lettershop.UpdateVersionInput](t, body, problems)
		checkInput[lettershop.CloneVersionInput](t, body, problems)
		checkInput[lettershop.CreateWebhookInput](t, body, problems)
		checkInput[lettershop.UpdateWebhookInput](t, body, problems)
	})
}

func checkInput[T any](t *testing.T, body []byte, problems func(any) map[string]string) {
	t.Helper()
	var in T
	err := decodeInput(body, &in, problems)
	if err == nil {
		return
	}
	var e *lettershop.Error
	if !errors.As(err, &e) || e.Code != lettershop.CodeInvalid || len(e.Fields) == 0 {
		t.Fatalf("%T from %q: %v, want a validation error naming its fields", in, body, err)
	}
	for path, msg := range e.Fields {
		if path == "" || msg == "" {
			t.Fatalf("%T from %q: a problem names no field: %q", in, body, e.Fields)
		}
	}
}
