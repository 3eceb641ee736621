package lettershoptest_test

import (
	"context"
	"testing"

	"github.com/lettershop/lettershop"
)

// sendWelcome makes a welcome letter to name in the account, through the
// Service, and returns its id.
func sendWelcome(t testing.TB, svc *lettershop.Service, account, name string) string {
	t.Helper()
	ctx := context.Background()
	asset, err := svc.CreateAsset(ctx, account, lettershop.CreateAssetInput{Name: "Welcome"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, account, asset.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Dear {{name}},</p><p>Welcome aboard.</p>"},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired}},
		Publish:             true,
	}); err != nil {
		t.Fatal(err)
	}
	l, err := svc.CreateLetter(ctx, account, lettershop.CreateLetterInput{
		Sender: &lettershop.PartyInput{
			Organization: "Acme Corp",
			Address:      lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"},
		},
		Recipient: &lettershop.PartyInput{
			Individual: &lettershop.Individual{FirstName: name, LastName: "Doe"},
			Address:    lettershop.AddressInput{AddressLine1: "200 Oak Ave", City: "Chicago", State: "IL", ZipCode: "60601"},
		},
		Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: asset.ID},
		UseType:   lettershop.UseTransactional,
		Variables: []lettershop.Variable{{Name: "name", Value: &name}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return l.ID
}
