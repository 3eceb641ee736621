package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
)

// seedLetters makes n letters in the account through the Service, the
// newest last, and returns their ids in that order.
func seedLetters(t *testing.T, s *server, n int) []string {
	t.Helper()
	c := context.Background()
	asset, err := s.Svc.CreateAsset(c, s.Account, lettershop.CreateAssetInput{Name: "Welcome"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Svc.CreateVersion(c, s.Account, asset.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>Hello</p>"}, Publish: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, n)
	for i := range n {
		l, err := s.Svc.CreateLetter(c, s.Account, lettershop.CreateLetterInput{
			Sender: &lettershop.PartyInput{Organization: "Acme Corp",
				Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
			Recipient: &lettershop.PartyInput{Organization: "Jane Doe",
				Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
			Content:    &lettershop.LetterContent{Type: "asset", AssetID: asset.ID},
			UseType:    lettershop.UseMarketing,
			ExternalID: fmt.Sprintf("seed-%03d", i),
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = l.ID
	}
	return ids
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func TestListLettersFollowsEveryPage(t *testing.T) {
	rec := &recorder{}
	s := newServer(t, wrapped(failing(rec, 0, nil)))
	ids := seedLetters(t, s, 250)
	c := newClient(s, newWaits())

	var got []string
	for l, err := range c.ListLetters(ctx, &client.ListLettersParams{PageSize: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l.ID)
	}
	if diff := cmp.Diff(reversed(ids), got); diff != "" {
		t.Errorf("letters, newest first (-want +got):\n%s", diff)
	}
	if n := len(rec.all()); n != 3 {
		t.Errorf("%d requests for 250 letters at 100 a page, want 3", n)
	}

	// The default page size, and a loop that stops early: only the pages
	// it needed are fetched.
	rec.reset()
	n := 0
	for _, err := range c.ListLetters(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 15 {
			break
		}
	}
	if len(rec.all()) != 2 {
		t.Errorf("%d requests for 15 letters at 10 a page, want 2", len(rec.all()))
	}
}

func TestListLettersPage(t *testing.T) {
	s := newServer(t)
	ids := seedLetters(t, s, 25)
	c := newClient(s, newWaits())
	var got []string
	params := &client.ListLettersParams{PageSize: 10}
	for pages := 0; ; pages++ {
		page, err := c.ListLettersPage(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range page.Items {
			got = append(got, l.ID)
		}
		if page.NextToken == "" {
			if pages != 2 {
				t.Errorf("%d pages after the first, want 2", pages)
			}
			break
		}
		params.NextToken = page.NextToken
	}
	if diff := cmp.Diff(reversed(ids), got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

// TestListLettersYieldsErrors: a bad token is an error yielded once, last.
func TestListLettersYieldsErrors(t *testing.T) {
	s := newServer(t)
	c := newClient(s, newWaits())
	var errs []error
	for _, err := range c.ListLetters(ctx, &client.ListLettersParams{NextToken: "tampered"}) {
		errs = append(errs, err)
	}
	var e *client.Error
	if len(errs) != 1 || !errors.As(errs[0], &e) || e.Fields["nextToken"] == "" {
		t.Fatalf("yielded %v, want one ErrInvalid naming nextToken", errs)
	}
}

func TestListLettersFilters(t *testing.T) {
	s := newServer(t)
	seedLetters(t, s, 3)
	c := newClient(s, newWaits())
	var got []string
	for l, err := range c.ListLetters(ctx, &client.ListLettersParams{ExternalID: "seed-001", Status: client.StatusQueued}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *l.ExternalID)
	}
	if diff := cmp.Diff([]string{"seed-001"}, got); diff != "" {
		t.Errorf("filtered (-want +got):\n%s", diff)
	}
}
