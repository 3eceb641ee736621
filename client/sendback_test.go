package client_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/client"
)

// TestSendBackWhatWasFetched: a fetched letter, as UpdateRequest gives it
// back with one field changed, updates that field alone, also once it is
// mailed; its parties, as Input gives them, make a new letter to the same
// people.
func TestSendBackWhatWasFetched(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL+"/v1", testKey)
	a, _ := publishedAsset(t, c)
	in := letterRequest(a.ID)
	in.Sender.Address.AddressLine2 = "Suite 5"
	in.Recipient.NonAddressData = "Account 1001"
	created, err := c.CreateLetter(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Test.AdvanceLetter(ctx, created.ID, &client.AdvanceLetterRequest{Status: client.StatusMailed}); err != nil {
		t.Fatal(err)
	}
	l, err := c.GetLetter(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	up := l.UpdateRequest()
	up.Metadata = &client.Metadata{{Key: "customer", Value: "c-2002"}}
	u, err := c.UpdateLetter(ctx, l.ID, up)
	if err != nil {
		t.Fatalf("a mailed letter sent back with new metadata: %v", err)
	}
	if diff := cmp.Diff(*up.Metadata, u.Metadata); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(l.Recipient, u.Recipient); diff != "" {
		t.Errorf("recipient changed (-before +after):\n%s", diff)
	}

	again := &client.CreateLetterRequest{Sender: l.Sender.Input(), Recipient: l.Recipient.Input(),
		Content: &client.LetterContent{Type: client.LetterContentAsset, AssetID: a.ID}, UseType: l.UseType, Variables: l.Variables}
	l2, err := c.CreateLetter(ctx, again)
	if err != nil {
		t.Fatalf("a letter to the parties of another: %v", err)
	}
	if diff := cmp.Diff(l.Sender.Address, l2.Sender.Address); diff != "" {
		t.Errorf("sender address (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(l.Recipient.Individual, l2.Recipient.Individual); diff != "" {
		t.Errorf("recipient (-first +second):\n%s", diff)
	}
	if *l2.Recipient.NonAddressData != "Account 1001" {
		t.Errorf("nonAddressData %q", *l2.Recipient.NonAddressData)
	}
}

// TestUpdateRequestSharesNothing: changing the request UpdateRequest gives
// leaves the letter it came from as it is.
func TestUpdateRequestSharesNothing(t *testing.T) {
	l := &client.Letter{
		Recipient: client.Party{Individual: &client.Individual{FirstName: "Jane"}},
		Variables: []client.Variable{{Name: "name", Value: str("Jane")}},
		Metadata:  client.Metadata{{Key: "k", Value: "v"}},
		Options: client.LetterOptions{Mail: &client.MailOptions{Service: client.MailFirstClass, ExtraServices: []string{client.ExtraACS}},
			AddressProcessing: &client.AddressProcessing{CassRecipient: &client.CassOptions{Type: client.CassBasic}}},
	}
	before := *l
	up := l.UpdateRequest()
	up.Recipient.Individual.FirstName = "John"
	(*up.Variables)[0].Name = "other"
	(*up.Metadata)[0].Value = "w"
	up.Options.Mail.ExtraServices[0] = client.ExtraCertified
	up.Options.AddressProcessing.CassRecipient.Casing = client.CasingUpper
	if l.Recipient.Individual.FirstName != "Jane" || l.Variables[0].Name != "name" || l.Metadata[0].Value != "v" ||
		l.Options.Mail.ExtraServices[0] != client.ExtraACS || l.Options.AddressProcessing.CassRecipient.Casing != "" {
		t.Errorf("the letter changed with its request: %+v, was %+v", l, before)
	}
}
