package lettershop_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

func TestCreateLetterShape(t *testing.T) {
	e := newEnv(t, lettershop.WithBaseURL("https://mail.example.com/"))
	a, v := e.publishedTemplate(t, acct)
	in := letterInput(a.ID)
	in.ExternalID = "order-1"
	in.Metadata = lettershop.Metadata{{Key: "campaign", Value: "spring"}}
	in.Recipient.Address = lettershop.AddressInput{AddressLine1: "200 Oak Ave", City: "Chicago", State: "IL", ZipCode: "60601", Plus4Code: "1234"}
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	if !lettershop.ValidID("ltr_", l.ID) || strings.ToLower(l.ID) != l.ID {
		t.Errorf("id %q is not ltr_ plus a lower-case ULID", l.ID)
	}
	want := &lettershop.Letter{
		ID:     l.ID,
		Status: lettershop.StatusQueued,
		Sender: lettershop.Party{
			Organization:      "Acme Corp",
			Address:           lettershop.Address{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"},
			AddressComponents: &lettershop.AddressComponents{CassType: "none", City: "Springfield", State: "IL", ZipCode: "62701"},
		},
		Recipient: lettershop.Party{
			Individual:        &lettershop.Individual{FullName: "Jane Doe", FirstName: "Jane", LastName: "Doe"},
			Address:           lettershop.Address{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601-1234"},
			AddressComponents: &lettershop.AddressComponents{CassType: "none", City: "Chicago", State: "IL", ZipCode: "60601", Plus4Code: "1234"},
		},
		Content:    lettershop.LetterContent{Type: "asset", AssetID: a.ID, AssetVersionID: v.ID},
		UseType:    lettershop.UseTransactional,
		CreatedAt:  testStart,
		ModifiedAt: testStart,
		ExternalID: "order-1",
		URL:        "https://mail.example.com/letters/" + l.ID + "/download",
		Variables:  vars("name", "Jane"),
		Options: lettershop.LetterOptions{
			Print:            &lettershop.PrintOptions{Color: false},
			Mail:             &lettershop.MailOptions{Service: "firstClass", ExtraServices: []lettershop.ExtraService{}},
			VariableHandling: &lettershop.VariableHandling{ValidationScope: "asset"},
			// The effective options: the defaults are shown.
			AddressProcessing:       &lettershop.AddressProcessing{NcoaRecipient: "none"},
			DeliverabilityThreshold: "normal",
		},
		Metadata: lettershop.Metadata{{Key: "campaign", Value: "spring"}},
	}
	if len(l.Events) == 0 || l.Events[0].Status != "queued" || l.Events[0].Type != "status" || !l.Events[0].Timestamp.Equal(testStart) {
		t.Errorf("first event = %+v, want status queued at %v", l.Events, testStart)
	}
	got := *l
	got.Events = nil
	if diff := cmp.Diff(want, &got, cmp.AllowUnexported(lettershop.Letter{}, lettershop.MetadataPair{}), ignoreUnexported); diff != "" {
		t.Errorf("letter (-want +got):\n%s", diff)
	}
	fetched, err := e.svc.GetLetter(e.ctx, acct, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l, fetched, ignoreUnexported); diff != "" {
		t.Errorf("fetched letter differs from created (-created +fetched):\n%s", diff)
	}
}

var ignoreUnexported = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && !isExported(sf.Name())
}, cmp.Ignore())

func isExported(name string) bool { return name != "" && strings.ToUpper(name[:1]) == name[:1] }

func TestCreateLetterValidation(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	other, _ := e.publishedTemplate(t, "acct_other")
	draftAsset, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "Draft only"})
	if err != nil {
		t.Fatal(err)
	}
	draft, err := e.svc.CreateVersion(e.ctx, acct, draftAsset.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>draft</p>"},
	})
	if err != nil {
		t.Fatal(err)
	}
	archived, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>old</p>"}, Publish: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ArchiveVersion(e.ctx, acct, a.ID, archived.ID); err != nil {
		t.Fatal(err)
	}
	// Archiving the published version left the asset without one; publish
	// a fresh one so the base input is valid again.
	e.clock.Add(time.Second)
	if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: "text/html", Content: testTemplate},
		VariableDefinitions: testDefinitions, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	today := e.svc.Now().Format(time.DateOnly)
	yesterday := e.svc.Now().AddDate(0, 0, -1).Format(time.DateOnly)
	tomorrow := e.svc.Now().AddDate(0, 0, 1).Format(time.DateOnly)

	tests := []struct {
		name   string
		change func(*lettershop.CreateLetterInput)
		fields []string // nil: valid
	}{
		{"valid", func(*lettershop.CreateLetterInput) {}, nil},
		{"no sender", func(in *lettershop.CreateLetterInput) { in.Sender = nil }, []string{"sender"}},
		{"no recipient", func(in *lettershop.CreateLetterInput) { in.Recipient = nil }, []string{"recipient"}},
		{"no content", func(in *lettershop.CreateLetterInput) { in.Content = nil }, []string{"content"}},
		{"no useType", func(in *lettershop.CreateLetterInput) { in.UseType = "" }, []string{"useType"}},
		{"bad useType", func(in *lettershop.CreateLetterInput) { in.UseType = "spam" }, []string{"useType"}},
		{"marketing", func(in *lettershop.CreateLetterInput) { in.UseType = lettershop.UseMarketing }, nil},
		{"no addressLine1", func(in *lettershop.CreateLetterInput) { in.Recipient.Address.AddressLine1 = " " }, []string{"recipient.address.addressLine1"}},
		{"no last line", func(in *lettershop.CreateLetterInput) { in.Recipient.Address.LastLine = "" }, []string{"recipient.address.lastLine"}},
		{"last line in parts", func(in *lettershop.CreateLetterInput) {
			in.Recipient.Address = lettershop.AddressInput{AddressLine1: "1 A St", City: "Chicago", State: "IL", ZipCode: "60601"}
		}, nil},
		{"last line in incomplete parts", func(in *lettershop.CreateLetterInput) {
			in.Recipient.Address = lettershop.AddressInput{AddressLine1: "1 A St", City: "Chicago"}
		}, []string{"recipient.address.state", "recipient.address.zipCode"}},
		{"last line from parts at 64", func(in *lettershop.CreateLetterInput) {
			// "City, IL 60601-1234" is the city and 15 more characters.
			in.Recipient.Address = lettershop.AddressInput{AddressLine1: "1 A St", City: strings.Repeat("c", 49), State: "IL", ZipCode: "60601", Plus4Code: "1234"}
		}, nil},
		{"last line from parts at 65", func(in *lettershop.CreateLetterInput) {
			in.Recipient.Address = lettershop.AddressInput{AddressLine1: "1 A St", City: strings.Repeat("c", 50), State: "IL", ZipCode: "60601", Plus4Code: "1234"}
		}, []string{"recipient.address.city"}},
		{"state of 3 letters", func(in *lettershop.CreateLetterInput) {
			in.Recipient.Address = lettershop.AddressInput{AddressLine1: "1 A St", City: "Chicago", State: "ILL", ZipCode: "60601"}
		}, []string{"recipient.address.state"}},
		{"addressLine1 at 64", func(in *lettershop.CreateLetterInput) { in.Sender.Address.AddressLine1 = strings.Repeat("a", 64) }, nil},
		{"addressLine1 at 65", func(in *lettershop.CreateLetterInput) { in.Sender.Address.AddressLine1 = strings.Repeat("a", 65) }, []string{"sender.address.addressLine1"}},
		{"NUL in an address line", func(in *lettershop.CreateLetterInput) { in.Recipient.Address.AddressLine2 = "Apt\x001" }, []string{"recipient.address.addressLine2"}},
		{"invalid UTF-8 in a name", func(in *lettershop.CreateLetterInput) { in.Recipient.Individual.FirstName = "J\xffne" }, []string{"recipient.individual.firstName"}},
		{"NUL in the description", func(in *lettershop.CreateLetterInput) { in.Description = "\x00" }, []string{"description"}},
		{"nobody", func(in *lettershop.CreateLetterInput) { in.Recipient.Individual = nil }, []string{"recipient.individual"}},
		{"organization only", func(in *lettershop.CreateLetterInput) {
			in.Recipient.Individual, in.Recipient.Organization = nil, "Initech"
		}, nil},
		{"no first name", func(in *lettershop.CreateLetterInput) { in.Recipient.Individual.FirstName = "" }, []string{"recipient.individual.firstName"}},
		{"full name only", func(in *lettershop.CreateLetterInput) {
			in.Recipient.Individual = &lettershop.Individual{FullName: "Zoë Łukasiewicz"}
		}, nil},
		{"name at 64", func(in *lettershop.CreateLetterInput) { in.Recipient.Individual.LastName = strings.Repeat("ü", 64) }, nil},
		{"name at 65", func(in *lettershop.CreateLetterInput) { in.Recipient.Individual.LastName = strings.Repeat("ü", 65) }, []string{"recipient.individual.lastName"}},
		{"sender nonAddressData", func(in *lettershop.CreateLetterInput) { in.Sender.NonAddressData = "x" }, []string{"sender.nonAddressData"}},
		{"recipient nonAddressData", func(in *lettershop.CreateLetterInput) { in.Recipient.NonAddressData = "Account 123" }, nil},
		{"externalId at 99999", func(in *lettershop.CreateLetterInput) { in.ExternalID = strings.Repeat("x", 99999) }, nil},
		{"externalId at 100000", func(in *lettershop.CreateLetterInput) { in.ExternalID = strings.Repeat("x", 100000) }, []string{"externalId"}},
		{"description at 255", func(in *lettershop.CreateLetterInput) { in.Description = strings.Repeat("x", 255) }, nil},
		{"description at 256", func(in *lettershop.CreateLetterInput) { in.Description = strings.Repeat("x", 256) }, []string{"description"}},
		{"sendDate today", func(in *lettershop.CreateLetterInput) { in.SendDate = today }, nil},
		{"sendDate tomorrow", func(in *lettershop.CreateLetterInput) { in.SendDate = tomorrow }, nil},
		{"sendDate yesterday", func(in *lettershop.CreateLetterInput) { in.SendDate = yesterday }, []string{"sendDate"}},
		{"sendDate not a date", func(in *lettershop.CreateLetterInput) { in.SendDate = "03/02/2026" }, []string{"sendDate"}},
		{"sendDate with time", func(in *lettershop.CreateLetterInput) { in.SendDate = today + "T10:00:00Z" }, nil},
		{"content type", func(in *lettershop.CreateLetterInput) { in.Content.Type = "template" }, []string{"content.type"}},
		{"malformed asset id", func(in *lettershop.CreateLetterInput) { in.Content.AssetID = "asset-1" }, []string{"content.assetId"}},
		{"unknown asset", func(in *lettershop.CreateLetterInput) { in.Content.AssetID = "ast_01aaaaaaaaaaaaaaaaaaaaaaaa" }, []string{"content.assetId"}},
		{"another account's asset", func(in *lettershop.CreateLetterInput) { in.Content.AssetID = other.ID }, []string{"content.assetId"}},
		{"asset without published version", func(in *lettershop.CreateLetterInput) { in.Content.AssetID = draftAsset.ID }, []string{"content.assetId"}},
		{"draft version", func(in *lettershop.CreateLetterInput) {
			in.Content.AssetID, in.Content.AssetVersionID = draftAsset.ID, draft.ID
		}, []string{"content.assetVersionId"}},
		{"archived version", func(in *lettershop.CreateLetterInput) { in.Content.AssetVersionID = archived.ID }, []string{"content.assetVersionId"}},
		{"version of another asset", func(in *lettershop.CreateLetterInput) { in.Content.AssetVersionID = draft.ID }, []string{"content.assetVersionId"}},
		{"malformed version id", func(in *lettershop.CreateLetterInput) { in.Content.AssetVersionID = "v1" }, []string{"content.assetVersionId"}},
		{"every option value", func(in *lettershop.CreateLetterInput) {
			in.Options = &lettershop.LetterOptions{
				Print:            &lettershop.PrintOptions{Color: true},
				Mail:             &lettershop.MailOptions{Service: "standard", ExtraServices: []lettershop.ExtraService{lettershop.ExtraACS, lettershop.ExtraCertified, lettershop.ExtraCertifiedReturnReceipt, lettershop.ExtraRegistered}},
				VariableHandling: &lettershop.VariableHandling{ValidationScope: "none"},
				AddressProcessing: &lettershop.AddressProcessing{
					CassSender:    &lettershop.CassOptions{Type: "basic", Casing: "upper"},
					CassRecipient: &lettershop.CassOptions{Type: "basic", Casing: "proper"},
					NcoaRecipient: "none",
				},
				DeliverabilityThreshold: "relaxed",
				DeliverabilityValues:    []lettershop.Deliverability{lettershop.Deliverable, lettershop.DeliverableMissingUnit, lettershop.DeliverableIncorrectUnit, lettershop.DeliverableUnnecessaryUnit, lettershop.Undeliverable},
			}
		}, nil},
		{"bad option values", func(in *lettershop.CreateLetterInput) {
			in.Options = &lettershop.LetterOptions{
				Mail:             &lettershop.MailOptions{Service: "pigeon", ExtraServices: []lettershop.ExtraService{"acs", "express"}},
				VariableHandling: &lettershop.VariableHandling{ValidationScope: "all"},
				AddressProcessing: &lettershop.AddressProcessing{
					CassSender:    &lettershop.CassOptions{Type: "full", Casing: "lower"},
					CassRecipient: &lettershop.CassOptions{},
					NcoaRecipient: "oldAddress",
				},
				DeliverabilityThreshold: "lenient",
				DeliverabilityValues:    []lettershop.Deliverability{"maybe"},
			}
		}, []string{
			"options.mail.service", "options.mail.extraServices[1]", "options.variableHandling.validationScope",
			"options.addressProcessing.cassSender.type", "options.addressProcessing.cassSender.casing",
			"options.addressProcessing.cassRecipient.type", "options.addressProcessing.ncoaRecipient",
			"options.deliverabilityThreshold", "options.deliverabilityValues[0]",
		}},
		{"an extra service twice", func(in *lettershop.CreateLetterInput) {
			in.Options = &lettershop.LetterOptions{Mail: &lettershop.MailOptions{ExtraServices: []lettershop.ExtraService{lettershop.ExtraACS, lettershop.ExtraCertified, lettershop.ExtraACS}}}
		}, []string{"options.mail.extraServices[2]"}},
		{"every problem at once", func(in *lettershop.CreateLetterInput) {
			in.Sender.Address.AddressLine1 = ""
			in.Recipient.Individual.FirstName = ""
			in.UseType = ""
			in.SendDate = "soon"
			in.Metadata = lettershop.Metadata{{Key: "", Value: "x"}}
		}, []string{"sender.address.addressLine1", "recipient.individual.firstName", "useType", "sendDate", "metadata[0].key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := letterInput(a.ID)
			tc.change(&in)
			before := countLetters(t, e, acct)
			l, err := e.svc.CreateLetter(e.ctx, acct, in)
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				if l.Status != lettershop.StatusQueued {
					t.Errorf("status = %s, want queued", l.Status)
				}
				return
			}
			wantFields(t, err, tc.fields...)
			if after := countLetters(t, e, acct); after != before {
				t.Errorf("a refused letter was stored: %d letters before, %d after", before, after)
			}
		})
	}
}

func countLetters(t testing.TB, e *env, account string) int {
	t.Helper()
	n, token := 0, ""
	for {
		p, err := e.svc.ListLetters(e.ctx, account, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100, NextToken: token}})
		if err != nil {
			t.Fatal(err)
		}
		n += len(p.Items)
		if p.NextToken == "" {
			return n
		}
		token = p.NextToken
	}
}

func TestGetLetter(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.GetLetter(e.ctx, "acct_other", l.ID); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("another account's letter: got %v, want not found", err)
	}
	if _, err := e.svc.GetLetter(e.ctx, acct, "ltr_01aaaaaaaaaaaaaaaaaaaaaaaa"); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("unknown letter: got %v, want not found", err)
	}
	for _, id := range []string{"", "ltr_", "ast_01aaaa", "ltr_01-aaa", "ltr_01aa aa"} {
		_, err := e.svc.GetLetter(e.ctx, acct, id)
		wantFields(t, err, "id")
	}
}

func TestListLettersFilters(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	oa, _ := e.publishedTemplate(t, "acct_other")
	mk := func(account, assetID, ext string, md ...string) *lettershop.Letter {
		t.Helper()
		in := letterInput(assetID)
		in.ExternalID = ext
		for i := 0; i+1 < len(md); i += 2 {
			in.Metadata = append(in.Metadata, lettershop.MetadataPair{Key: md[i], Value: md[i+1]})
		}
		l, err := e.svc.CreateLetter(e.ctx, account, in)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l1 := mk(acct, a.ID, "a", "campaign", "spring", "flag", "")
	l2 := mk(acct, a.ID, "b", "campaign", "fall")
	l3 := mk(acct, a.ID, "a", "campaign", "spring")
	mk("acct_other", oa.ID, "a", "campaign", "spring")
	if _, err := e.svc.CancelLetter(e.ctx, acct, l3.ID); err != nil {
		t.Fatal(err)
	}
	ids := func(in lettershop.ListLettersInput) []string {
		t.Helper()
		p, err := e.svc.ListLetters(e.ctx, acct, in)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range p.Items {
			out = append(out, l.ID)
		}
		return out
	}
	md := func(kv ...string) lettershop.Metadata {
		var m lettershop.Metadata
		for i := 0; i+1 < len(kv); i += 2 {
			m = append(m, lettershop.MetadataPair{Key: kv[i], Value: kv[i+1]})
		}
		return m
	}
	tests := []struct {
		name string
		in   lettershop.ListLettersInput
		want []string
	}{
		{"all, newest first", lettershop.ListLettersInput{}, []string{l3.ID, l2.ID, l1.ID}},
		{"status queued", lettershop.ListLettersInput{Status: lettershop.StatusQueued}, []string{l2.ID, l1.ID}},
		{"status canceled", lettershop.ListLettersInput{Status: lettershop.StatusCanceled}, []string{l3.ID}},
		{"status mailed", lettershop.ListLettersInput{Status: lettershop.StatusMailed}, nil},
		{"externalId", lettershop.ListLettersInput{ExternalID: "a"}, []string{l3.ID, l1.ID}},
		{"metadata", lettershop.ListLettersInput{Metadata: md("campaign", "spring")}, []string{l3.ID, l1.ID}},
		{"metadata empty value", lettershop.ListLettersInput{Metadata: md("flag", "")}, []string{l1.ID}},
		{"two metadata pairs", lettershop.ListLettersInput{Metadata: md("campaign", "spring", "flag", "")}, []string{l1.ID}},
		{"metadata and status", lettershop.ListLettersInput{Metadata: md("campaign", "spring"), Status: lettershop.StatusQueued}, []string{l1.ID}},
		{"no match", lettershop.ListLettersInput{Metadata: md("campaign", "winter")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ids(tc.in)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
	_, err := e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{Status: "lost"})
	wantFields(t, err, "status")
}

func TestListLettersCassDetails(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	in := letterInput(a.ID)
	in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
		CassRecipient: &lettershop.CassOptions{Type: "basic"},
	}}
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	if l.Recipient.AddressAnalysis == nil || l.Recipient.AddressMetadata == nil {
		t.Fatalf("a processed recipient has no analysis or metadata: %+v", l.Recipient)
	}
	for _, include := range []bool{false, true} {
		p, err := e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{IncludeCassDetails: include})
		if err != nil {
			t.Fatal(err)
		}
		r := p.Items[0].Recipient
		if got := r.AddressAnalysis != nil && r.AddressMetadata != nil; got != include {
			t.Errorf("includeCassDetails=%v: details present = %v", include, got)
		}
		if r.AddressComponents == nil {
			t.Errorf("includeCassDetails=%v: addressComponents left out", include)
		}
	}
	got, err := e.svc.GetLetter(e.ctx, acct, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Recipient.AddressAnalysis == nil {
		t.Error("a fetched letter lacks its CASS details")
	}
}

func TestUpdateLetter(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Minute)
	md := lettershop.Metadata{{Key: "k", Value: "v"}}
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{
		Metadata:    &md,
		Description: str("updated"),
		Recipient: &lettershop.PartyInput{
			Organization: "Initech",
			Address:      lettershop.AddressInput{AddressLine1: "1 Infinite Loop", LastLine: "Cupertino, CA 95014"},
		},
		Variables: &[]lettershop.Variable{{Name: "name", Value: str("Bob")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Description != "updated" || u.Recipient.Organization != "Initech" || u.Recipient.Address.LastLine != "Cupertino, CA 95014" ||
		!u.ModifiedAt.Equal(testStart.Add(time.Minute)) || !u.CreatedAt.Equal(testStart) || *u.Variables[0].Value != "Bob" {
		t.Errorf("update not applied: %+v", u)
	}
	if u.Sender.Organization != "Acme Corp" {
		t.Errorf("sender changed though not given: %+v", u.Sender)
	}
	// Metadata is replaced as a whole, and can be emptied.
	empty := lettershop.Metadata{}
	u, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Metadata: &empty})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Metadata) != 0 || u.Description != "updated" {
		t.Errorf("metadata not replaced by an empty list, or description lost: %+v", u)
	}
	// Invalid changes are refused whole.
	_, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{
		Description: str(strings.Repeat("x", 256)),
		Variables:   &[]lettershop.Variable{{Name: "nope", Value: str("x")}},
	})
	wantFields(t, err, "description", "variables[name]", "variables[nope]")
	got, _ := e.svc.GetLetter(e.ctx, acct, l.ID)
	if got.Description != "updated" || *got.Variables[0].Value != "Bob" {
		t.Errorf("a refused update changed the letter: %+v", got)
	}
	if _, err := e.svc.UpdateLetter(e.ctx, "acct_other", l.ID, lettershop.UpdateLetterInput{Description: str("x")}); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("another account's letter: %v", err)
	}

	// Once the letter has left queued, only metadata, description and
	// externalId change.
	if _, err := e.svc.CancelLetter(e.ctx, acct, l.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{ExternalID: str("ext"), Description: str("late")}); err != nil {
		t.Errorf("externalId/description after cancel: %v", err)
	}
	for name, in := range map[string]lettershop.UpdateLetterInput{
		"sendDate":  {SendDate: str(testStart.AddDate(0, 0, 3).Format(time.DateOnly))},
		"recipient": {Recipient: letterInput(a.ID).Recipient},
		"options":   {Options: &lettershop.LetterOptions{Print: &lettershop.PrintOptions{Color: true}}},
		"variables": {Variables: &[]lettershop.Variable{{Name: "name", Value: str("X")}}},
		"useType":   {UseType: ptrTo(lettershop.UseMarketing)},
	} {
		_, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, in)
		if lettershop.ErrorCode(err) != lettershop.CodeConflict {
			t.Errorf("%s of a canceled letter: got %v, want conflict", name, err)
			continue
		}
		// The conflict names the field sent, and what may still change.
		if msg := err.Error(); !strings.Contains(msg, "canceled: "+name+" can change only while") || !strings.Contains(msg, "metadata, description and externalId") {
			t.Errorf("%s of a canceled letter: %q names neither the field nor what can change", name, msg)
		}
	}
}

func TestCancelLetter(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Second)
	c, err := e.svc.CancelLetter(e.ctx, acct, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := c.Events[len(c.Events)-1]
	if c.Status != lettershop.StatusCanceled || last.Status != "canceled" || last.Type != "status" || !last.Timestamp.Equal(testStart.Add(time.Second)) {
		t.Errorf("after cancel: status %s, last event %+v", c.Status, last)
	}
	e.clock.Add(time.Second)
	again, err := e.svc.CancelLetter(e.ctx, acct, l.ID)
	if err != nil {
		t.Fatalf("canceling a canceled letter: %v", err)
	}
	if len(again.Events) != len(c.Events) || !again.ModifiedAt.Equal(c.ModifiedAt) {
		t.Errorf("canceling again changed the letter: %d events, modified %v", len(again.Events), again.ModifiedAt)
	}
	if _, err := e.svc.CancelLetter(e.ctx, "acct_other", l.ID); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("another account's letter: %v", err)
	}
}

// An update that leaves a party alone keeps its processing results: its
// corrections describe what the caller first sent, not the stored form.
func TestUpdateKeepsUnchangedParties(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	in := letterInput(a.ID)
	in.Recipient.Address = lettershop.AddressInput{AddressLine1: "200 oak avenue", LastLine: "chicago il 60601"}
	in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
		CassRecipient: &lettershop.CassOptions{Type: "basic"},
	}}
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Recipient.AddressCorrections) == 0 {
		t.Fatalf("no corrections for a lower-case address: %+v", l.Recipient)
	}
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{
		SendDate: str(testStart.AddDate(0, 0, 2).Format(time.DateOnly)),
		Sender:   &lettershop.PartyInput{Organization: "New Sender", Address: lettershop.AddressInput{AddressLine1: "1 A St", LastLine: "Springfield, IL 62701"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l.Recipient, u.Recipient); diff != "" {
		t.Errorf("the recipient changed though not given (-before +after):\n%s", diff)
	}
	if u.Sender.Organization != "New Sender" {
		t.Errorf("sender not replaced: %+v", u.Sender)
	}
}

func TestTimesKeepMilliseconds(t *testing.T) {
	e := newEnv(t)
	e.clock.Add(123456789 * time.Nanosecond)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := testStart.Add(123 * time.Millisecond); !a.CreatedAt.Equal(want) {
		t.Errorf("createdAt = %v, want %v", a.CreatedAt, want)
	}
}

func TestLastLineAndPartsMustAgree(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	tests := []struct {
		name   string
		addr   lettershop.AddressInput
		fields []string
	}{
		{"parts that agree", lettershop.AddressInput{LastLine: "Chicago, IL 60601-1234", City: "chicago", State: "il", ZipCode: "60601", Plus4Code: "1234"}, nil},
		{"a city of two words", lettershop.AddressInput{LastLine: "SAINT  LOUIS MO 63101", City: "Saint Louis"}, nil},
		{"a city with punctuation", lettershop.AddressInput{LastLine: "St. Louis, MO 63101", City: "ST LOUIS", State: "mo"}, nil},
		{"a part the last line lacks", lettershop.AddressInput{LastLine: "Chicago IL", ZipCode: "60601"}, nil},
		{"an unreadable last line", lettershop.AddressInput{LastLine: "somewhere", City: "Chicago", State: "IL", ZipCode: "60601"}, nil},
		{"city", lettershop.AddressInput{LastLine: "Chicago, IL 60601", City: "Springfield"}, []string{"recipient.address"}},
		{"state", lettershop.AddressInput{LastLine: "Chicago, IL 60601", State: "IN"}, []string{"recipient.address"}},
		{"zipCode", lettershop.AddressInput{LastLine: "Chicago, IL 60601", City: "Chicago", State: "IL", ZipCode: "60602"}, []string{"recipient.address"}},
		{"plus4Code", lettershop.AddressInput{LastLine: "Chicago, IL 60601-1234", ZipCode: "60601", Plus4Code: "4321"}, []string{"recipient.address"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := letterInput(a.ID)
			tt.addr.AddressLine1 = "200 Oak Ave"
			in.Recipient.Address = tt.addr
			l, err := e.svc.CreateLetter(e.ctx, acct, in)
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("CreateLetter: %v", err)
				}
				if l.Recipient.Address.LastLine != tt.addr.LastLine {
					t.Errorf("lastLine %q, want %q as given", l.Recipient.Address.LastLine, tt.addr.LastLine)
				}
				return
			}
			wantFields(t, err, tt.fields...)
			if msg := fieldsOf(t, err)["recipient.address"]; !strings.Contains(msg, "disagrees with "+strings.Fields(tt.name)[0]) {
				t.Errorf("message %q does not name the part", msg)
			}
		})
	}
	// An update is held to the same rule.
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	sender := letterInput(a.ID).Sender
	sender.Address.State = "WI"
	_, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Sender: sender})
	wantFields(t, err, "sender.address")
}
