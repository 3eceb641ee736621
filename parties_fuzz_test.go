package lettershop_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// FuzzNameInPartsAndUrbanization holds a letter whose recipient's name is
// given in parts, at an address that may be Puerto Rico's with an
// urbanization, to the service's promise for any text: it is made or
// refused as invalid input naming its fields; made, it renders; sent back
// as it reads with its name's parts changed, as a client updates it, the
// update is taken or refused the same way, the name made of the new parts,
// and the letter renders again.
func FuzzNameInPartsAndUrbanization(f *testing.F) {
	f.Add("Dr.", "Ana", "M", "Rivera", "Jr.", "Luis", "URB LAS GLADIOLAS", "150 Calle A", "PR", false)
	f.Add("", "José", "", "Müller", "", "Zoë", "Urb Las Gladiolas", "Urb Las Gladiolas", "pr", false)
	f.Add("", "Ana", "", "Rivera", "", "", "URB", "puerto rico", "PR", true)
	f.Add(" ", "\u202eA", "\x00", "B\nC", "😀", "   ", strings.Repeat("u", 64), "1 Main St", "VA", false)
	e := newRenderEnv(f)
	a, _ := e.version(f, lettershop.AssetTemplate, "text/html", "<p>Notice</p>")
	f.Fuzz(func(t *testing.T, prefix, first, middle, last, postfix, newFirst, urb, line1, state string, cass bool) {
		in := renderLetterInput(a.ID)
		in.Recipient.Individual = &lettershop.Individual{Prefix: prefix, FirstName: first, MiddleName: middle, LastName: last, Postfix: postfix}
		in.Recipient.Address = lettershop.AddressInput{AddressLine1: line1, Urbanization: urb, City: "San Juan", State: state, ZipCode: "00926"}
		if cass {
			in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
				CassRecipient: &lettershop.CassOptions{Type: "basic", Casing: "upper"}}}
		}
		l, err := e.svc.CreateLetter(e.ctx, renderAccount, in)
		if err != nil {
			wantInvalid(t, "CreateLetter", err)
			return
		}
		if _, err := e.svc.RenderLetter(e.ctx, renderAccount, l.ID); err != nil {
			t.Fatalf("a letter made does not render: %v", err)
		}
		// The recipient as a client reads it and sends it back, its first
		// name changed.
		b, err := json.Marshal(l.Recipient)
		if err != nil {
			t.Fatal(err)
		}
		var back lettershop.PartyInput
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Individual == nil {
			t.Fatalf("the recipient reads without its name: %s", b)
		}
		back.Individual.FirstName = newFirst
		u, err := e.svc.UpdateLetter(e.ctx, renderAccount, l.ID, lettershop.UpdateLetterInput{Recipient: &back})
		if err != nil {
			wantInvalid(t, "UpdateLetter", err)
			return
		}
		if f := strings.TrimSpace(newFirst); f != "" && u.Recipient.Individual.FullName == l.Recipient.Individual.FullName &&
			!strings.Contains(u.Recipient.Individual.FullName, f) {
			t.Errorf("the first name changed to %q, the letter still reads %q", newFirst, u.Recipient.Individual.FullName)
		}
		if _, err := e.svc.RenderLetter(e.ctx, renderAccount, u.ID); err != nil {
			t.Fatalf("a letter updated does not render: %v", err)
		}
	})
}

// wantInvalid fails t unless err is invalid input naming each field at
// fault.
func wantInvalid(t *testing.T, op string, err error) {
	t.Helper()
	var le *lettershop.Error
	if !errors.As(err, &le) || le.Code != lettershop.CodeInvalid || len(le.Fields) == 0 {
		t.Fatalf("%s: %v, want invalid input naming its fields", op, err)
	}
	for path, msg := range le.Fields {
		if path == "" || msg == "" {
			t.Fatalf("%s: a problem names no field: %q", op, le.Fields)
		}
	}
}
