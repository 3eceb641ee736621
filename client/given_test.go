package client_test

import (
	"encoding/json"
	"testing"

	"github.com/lettershop/lettershop/client"
)

// TestGivenEmptyIsNotNull: a field of an update given as a pointer to a
// nil slice (a Metadata built by appending nothing, say) is given: it is
// sent as [], which empties it, not as null, which the API reads as not
// given and so left the old values silently.
func TestGivenEmptyIsNotNull(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL+"/v1", testKey)
	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome", Type: client.AssetTemplate,
		Metadata: client.Metadata{{Key: "team", Value: "north"}}})
	if err != nil {
		t.Fatal(err)
	}
	var none client.Metadata
	a, err = c.UpdateAsset(ctx, a.ID, &client.UpdateAssetRequest{Metadata: &none})
	if err != nil || len(a.Metadata) != 0 {
		t.Errorf("asset metadata after an empty Metadata: %v, %v; want none", a.Metadata, err)
	}

	v, err := c.CreateVersion(ctx, a.ID, &client.CreateVersionRequest{
		Content:             &client.VersionContent{Type: "text/html", Content: "<p>Hello</p>"},
		VariableDefinitions: []client.VariableDefinition{{Name: "name"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var noDefs []client.VariableDefinition
	if err := c.UpdateVersion(ctx, a.ID, v.ID, &client.UpdateVersionRequest{VariableDefinitions: &noDefs}); err != nil {
		t.Fatal(err)
	}
	if v, err = c.GetVersion(ctx, a.ID, v.ID); err != nil || len(v.VariableDefinitions) != 0 {
		t.Errorf("definitions after empty ones: %+v, %v; want none", v.VariableDefinitions, err)
	}
	if noDefs != nil {
		t.Errorf("the request given changed: %v", noDefs)
	}

	if _, err := c.PublishVersion(ctx, a.ID, v.ID); err != nil {
		t.Fatal(err)
	}
	in := letterRequest(a.ID)
	in.Options = &client.LetterOptions{VariableHandling: &client.VariableHandling{ValidationScope: client.ValidationScopeNone}}
	l, err := c.CreateLetter(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	var noVars []client.Variable
	if l, err = c.UpdateLetter(ctx, l.ID, &client.UpdateLetterRequest{Variables: &noVars}); err != nil || len(l.Variables) != 0 {
		t.Errorf("letter variables after empty ones: %+v, %v; want none", l.Variables, err)
	}

	wh, err := c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: "https://example.com/hook", Events: []client.WebhookEventType{client.WebhookLetterMailed}})
	if err != nil {
		t.Fatal(err)
	}
	var noEvents []client.WebhookEventType
	if wh, err = c.UpdateWebhook(ctx, wh.ID, &client.UpdateWebhookRequest{Events: &noEvents}); err != nil ||
		len(wh.Events) == 1 && wh.Events[0] == client.WebhookLetterMailed {
		t.Errorf("webhook events after empty ones: %v, %v; want every type", wh, err)
	}
}

// Value gives each variable a value of its own, "" as an empty value (not
// none), sent as the API takes it.
func TestValue(t *testing.T) {
	vs := []client.Variable{client.Value("a", "x"), client.Value("b", "")}
	if *vs[0].Value != "x" || vs[1].Value == nil || *vs[1].Value != "" || vs[0].Value == vs[1].Value {
		t.Fatalf("Value gave %+v", vs)
	}
	b, err := json.Marshal(vs)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"name":"a","value":"x"},{"name":"b","value":""}]`; string(b) != want {
		t.Errorf("sent %s, want %s", b, want)
	}
}
