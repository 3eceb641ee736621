package client_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
)

// A template, a letter made from it, and the list of letters, against a
// lettershop server run in the process.
func Example() {
	svc := lettershop.New(memstore.New())
	defer svc.Close()
	srv := httptest.NewServer(httpadapter.New(svc))
	defer srv.Close()

	ctx := context.Background()
	c := client.New(srv.URL+"/v1", "sk_test_example")

	asset, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome", Type: client.AssetTemplate})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.CreateVersion(ctx, asset.ID, &client.CreateVersionRequest{
		Content:             &client.VersionContent{Type: "text/html", Content: "<p>Dear {{name}},</p>"},
		VariableDefinitions: []client.VariableDefinition{{Name: "name", Behavior: "required"}},
		Publish:             true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	name := "Jane"
	letter, err := c.CreateLetter(ctx, &client.CreateLetterRequest{
		Sender: &client.PartyInput{Organization: "Acme Corp",
			Address: client.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &client.PartyInput{Individual: &client.Individual{FirstName: "Jane", LastName: "Doe"},
			Address: client.AddressInput{AddressLine1: "200 Oak Ave", City: "Chicago", State: "IL", ZipCode: "60601"}},
		Content:   &client.LetterContent{Type: "asset", AssetID: asset.ID},
		UseType:   client.UseTransactional,
		Variables: []client.Variable{client.Value("name", name)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(letter.Status, letter.Recipient.Address.LastLine)

	for l, err := range c.ListLetters(ctx, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(l.ID == letter.ID, l.Recipient.Individual.FullName)
	}

	_, err = c.GetLetter(ctx, "ltr_01kjqh0cc0abyzr1s1gch2evrn")
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, client.ErrNotFound), e.StatusCode, e.Code)
	}
	// Output:
	// queued Chicago, IL 60601
	// true Jane Doe
	// true 404 not-found
}

// Branching on a problem's code: Error.Code is one of the Code constants.
func ExampleError_code() {
	svc := lettershop.New(memstore.New())
	defer svc.Close()
	srv := httptest.NewServer(httpadapter.New(svc))
	defer srv.Close()
	c := client.New(srv.URL+"/v1", "sk_test_example")

	_, err := c.CreateLetter(context.Background(), &client.CreateLetterRequest{UseType: client.UseMarketing})
	var e *client.Error
	if errors.As(err, &e) {
		switch e.Code {
		case client.CodeInvalidRequest:
			for _, field := range slices.Sorted(maps.Keys(e.Fields)) {
				fmt.Println(field+":", e.Fields[field])
			}
		case client.CodeRateLimited, client.CodeUnavailable:
			fmt.Println("try again after", e.RetryAfter)
		default:
			fmt.Println(e.Code)
		}
	}
	// Output:
	// content: content is required
	// recipient: recipient is required
	// sender: sender is required
}
