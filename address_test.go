package lettershop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

// apParty is a party the way the service hands it to the processor: the
// address as given, the full name filled in, components "none".
func apParty(line1, line2, last string) lettershop.Party {
	return lettershop.Party{
		Address:           lettershop.Address{AddressLine1: line1, AddressLine2: line2, LastLine: last},
		Individual:        &lettershop.Individual{FirstName: "Jane", LastName: "Doe", FullName: "Jane Doe"},
		AddressComponents: &lettershop.AddressComponents{CassType: "none"},
	}
}

var (
	apCassProper = &lettershop.CassOptions{Type: "basic", Casing: "proper"}
	apCassUpper  = &lettershop.CassOptions{Type: "basic", Casing: "upper"}
)

func apProcess(t testing.TB, p lettershop.AddressProcessor, req lettershop.AddressRequest) lettershop.AddressResult {
	t.Helper()
	if req.Account == "" {
		req.Account = "acct"
	}
	if req.Role == "" {
		req.Role = lettershop.RoleRecipient
	}
	r, err := p.Process(context.Background(), req)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	return r
}

// apOutcome is what a test compares of a processed party.
type apOutcome struct {
	Deliverability lettershop.Deliverability
	Address        lettershop.Address
	Components     lettershop.AddressComponents
	Match          string
	Footnotes      []string
	RecordType     string
	ZipCodeType    string
	RouteType      string
	TimeZone       string
}

func apOutcomeOf(r lettershop.AddressResult) apOutcome {
	o := apOutcome{Deliverability: r.Deliverability, Address: r.Party.Address}
	if c := r.Party.AddressComponents; c != nil {
		o.Components = *c
	}
	if a := r.Party.AddressAnalysis; a != nil {
		o.Match, o.Footnotes = a.DpvMatchCode, a.DpvFootnotes
	}
	if m := r.Party.AddressMetadata; m != nil {
		o.RecordType, o.ZipCodeType, o.RouteType, o.TimeZone = m.RecordType, m.ZipCodeType, m.CarrierRouteType, m.TimeZone
	}
	return o
}

func apAddr(l1, l2, last string) lettershop.Address {
	return lettershop.Address{AddressLine1: l1, AddressLine2: l2, LastLine: last}
}

func apComps(city, state, zip, plus4 string) lettershop.AddressComponents {
	return lettershop.AddressComponents{CassType: "basic", City: city, State: state, ZipCode: zip, Plus4Code: plus4}
}

func TestTestAddresses(t *testing.T) {
	const anyLast = "Anytown, CA 90210"
	cases := []struct {
		line1 string
		cass  *lettershop.CassOptions
		want  apOutcome
	}{
		{"deliverable", apCassProper, apOutcome{lettershop.Deliverable, apAddr("1 Old State Capitol Plz", "", "Springfield IL 62701-1507"),
			apComps("Springfield", "IL", "62701", "1507"), "Y", []string{"AA", "BB"}, "street", "standard", "cityDelivery", "America/Chicago"}},
		{"DELIVERABLE", apCassUpper, apOutcome{lettershop.Deliverable, apAddr("1 OLD STATE CAPITOL PLZ", "", "SPRINGFIELD IL 62701-1507"),
			apComps("SPRINGFIELD", "IL", "62701", "1507"), "Y", []string{"AA", "BB"}, "street", "standard", "cityDelivery", "America/Chicago"}},
		{"Missing  Unit", apCassProper, apOutcome{lettershop.DeliverableMissingUnit, apAddr("500 E Capitol Ave", "", "Springfield IL 62701-1000"),
			apComps("Springfield", "IL", "62701", "1000"), "D", []string{"AA", "N1"}, "highrise", "standard", "cityDelivery", "America/Chicago"}},
		{"incorrect unit", apCassProper, apOutcome{lettershop.DeliverableIncorrectUnit, apAddr("500 E Capitol Ave Apt 9999", "", "Springfield IL 62701-1000"),
			apComps("Springfield", "IL", "62701", "1000"), "S", []string{"AA", "BB", "C1"}, "highrise", "standard", "cityDelivery", "America/Chicago"}},
		{"unnecessary unit", apCassProper, apOutcome{lettershop.DeliverableUnnecessaryUnit, apAddr("742 Evergreen Ter Apt 2", "", "Springfield IL 62704-1234"),
			apComps("Springfield", "IL", "62704", "1234"), "S", []string{"AA", "BB", "CC"}, "street", "standard", "cityDelivery", "America/Chicago"}},
		{"undeliverable block match", apCassProper, apOutcome{lettershop.Undeliverable, apAddr("9999 N Main St", "", "Springfield IL 62702-4401"),
			apComps("Springfield", "IL", "62702", "4401"), "N", []string{"AA", "M3"}, "street", "standard", "cityDelivery", "America/Chicago"}},
		{"undeliverable no match", apCassProper, apOutcome{lettershop.Undeliverable, apAddr("1 Nowhere Ln", "", "Springfield IL 62701"),
			apComps("Springfield", "IL", "62701", ""), "N", []string{"A1"}, "", "standard", "", "America/Chicago"}},
		{"residential house", apCassProper, apOutcome{lettershop.Deliverable, apAddr("742 Evergreen Ter", "", "Springfield IL 62704-1234"),
			apComps("Springfield", "IL", "62704", "1234"), "Y", []string{"AA", "BB"}, "street", "standard", "cityDelivery", "America/Chicago"}},
		{"commercial highrise", apCassProper, apOutcome{lettershop.Deliverable, apAddr("500 E Capitol Ave Ste 1200", "", "Springfield IL 62701-1212"),
			apComps("Springfield", "IL", "62701", "1212"), "Y", []string{"AA", "BB"}, "highrise", "standard", "cityDelivery", "America/Chicago"}},
		{"po box", apCassProper, apOutcome{lettershop.Deliverable, apAddr("PO Box 19276", "", "Springfield IL 62794-9276"),
			apComps("Springfield", "IL", "62794", "9276"), "Y", []string{"AA", "BB"}, "poBox", "poBox", "poBox", "America/Chicago"}},
		{"rural route", apCassProper, apOutcome{lettershop.Deliverable, apAddr("RR 2 Box 45", "", "Chatham IL 62629-9802"),
			apComps("Chatham", "IL", "62629", "9802"), "Y", []string{"AA", "BB"}, "ruralRoute", "standard", "ruralRoute", "America/Chicago"}},
		{"military", apCassProper, apOutcome{lettershop.Deliverable, apAddr("Unit 2050 Box 4190", "", "APO AP 96278-4190"),
			apComps("APO", "AP", "96278", "4190"), "Y", []string{"AA", "BB", "F1"}, "street", "military", "cityDelivery", ""}},
		{"puerto rico", apCassUpper, apOutcome{lettershop.Deliverable, apAddr("150 CALLE A", "", "SAN JUAN PR 00926-3232"),
			lettershop.AddressComponents{CassType: "basic", Urbanization: "URB LAS GLADIOLAS", City: "SAN JUAN", State: "PR", ZipCode: "00926", Plus4Code: "3232"},
			"Y", []string{"AA", "BB"}, "street", "standard", "cityDelivery", "America/Puerto_Rico"}},
	}
	p := lettershop.NewAddressProcessor()
	for _, c := range cases {
		t.Run(c.line1, func(t *testing.T) {
			r := apProcess(t, p, lettershop.AddressRequest{Party: apParty(c.line1, "Suite 9", anyLast), CASS: c.cass})
			if diff := cmp.Diff(c.want, apOutcomeOf(r), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if r.Reason == "" {
				t.Error("no reason given")
			}
			// A result is the caller's own: changing it changes no later one.
			r.Party.AddressAnalysis.DpvFootnotes[0] = "XX"
			again := apProcess(t, p, lettershop.AddressRequest{Party: apParty(c.line1, "Suite 9", anyLast), CASS: c.cass})
			if again.Party.AddressAnalysis.DpvFootnotes[0] == "XX" {
				t.Error("results share their footnotes")
			}
			// Every correction names a field and shows the change.
			for _, corr := range r.Party.AddressCorrections {
				if corr.Input == corr.Corrected {
					t.Errorf("correction %+v changes nothing", corr)
				}
			}
		})
	}
}

// TestTestAddressDeliverableInFull pins every field of one result.
func TestTestAddressDeliverableInFull(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	r := apProcess(t, p, lettershop.AddressRequest{Party: apParty("deliverable", "", "Anytown, CA 90210"), CASS: apCassProper})
	want := lettershop.Party{
		Address:    apAddr("1 Old State Capitol Plz", "", "Springfield IL 62701-1507"),
		Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe", FullName: "Jane Doe"},
		AddressComponents: &lettershop.AddressComponents{CassType: "basic", City: "Springfield", State: "IL",
			ZipCode: "62701", Plus4Code: "1507"},
		AddressAnalysis: &lettershop.AddressAnalysis{
			DpvMatchCode: "Y", DpvFootnotes: []string{"AA", "BB"}, DpvCmra: "N", DpvVacant: "N", DpvNoStat: "N",
			DpvActive: "Y", DpvThrowback: "N", DpvNonDeliveryDayIndicator: "N", DpvNoSecureLocation: "N",
			DpvDoorNotAccessible: "N",
		},
		AddressCorrections: []lettershop.AddressCorrection{
			{Name: "addressLine1", Input: "deliverable", Corrected: "1 Old State Capitol Plz"},
			{Name: "lastLine", Input: "Anytown, CA 90210", Corrected: "Springfield IL 62701-1507"},
			{Name: "city", Input: "Anytown", Corrected: "Springfield"},
			{Name: "state", Input: "CA", Corrected: "IL"},
			{Name: "zipCode", Input: "90210", Corrected: "62701"},
			{Name: "plus4Code", Input: "", Corrected: "1507"},
		},
		AddressMetadata: &lettershop.AddressMetadata{
			RecordType: "street", AddressType: "commercial", ZipCodeType: "standard", County: "SANGAMON",
			CountyFips: "17167", CarrierRoute: "C007", CarrierRouteType: "cityDelivery", CongressionalDistrict: "13",
			ElotSequence: "0042", ElotSort: "A", Latitude: 39.80151, Longitude: -89.64952, Precision: "deliverablePoint",
			UspsFinanceNumber: "167380", TimeZone: "America/Chicago",
		},
	}
	if diff := cmp.Diff(want, r.Party); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r.Deliverability != lettershop.Deliverable {
		t.Errorf("deliverability %q", r.Deliverability)
	}
}

// A test address gives its fixed last line even for one that cannot be
// read, which an ordinary address keeps as written.
func TestTestAddressUnreadableLastLine(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	for _, c := range []struct{ line1, want string }{
		{"deliverable", "Springfield IL 62701-1507"},
		{"123 Main St", "somewhere"},
	} {
		r := apProcess(t, p, lettershop.AddressRequest{Party: apParty(c.line1, "", "somewhere"), CASS: apCassProper})
		if got := r.Party.Address.LastLine; got != c.want {
			t.Errorf("%s: lastLine %q, want %q", c.line1, got, c.want)
		}
	}
}

func TestOrdinaryAddresses(t *testing.T) {
	cases := []struct {
		name               string
		line1, line2, last string
		want               apOutcome
		reason             string // a part of the reason
	}{
		{name: "well-formed street address", line1: "123 north main street", last: "springfield, il 62701",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB"}, RecordType: "street", ZipCodeType: "standard", RouteType: "cityDelivery", TimeZone: "America/Chicago"},
			reason: "confirmed delivery point"},
		{name: "apartment given", line1: "123 Main St", line2: "Apt 4B", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB"}, RecordType: "highrise", ZipCodeType: "standard", RouteType: "cityDelivery", TimeZone: "America/Chicago"},
			reason: "confirmed"},
		{name: "ZIP Code of another state", line1: "123 Main St", last: "Los Angeles, CA 62701",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1"}},
			reason: "ZIP Code 62701 is in IL, not in CA"},
		{name: "ZIP Code prefix not in use", line1: "123 Main St", last: "Springfield, IL 00123",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1"}},
			reason: "no post office has the prefix 001"},
		{name: "no ZIP Code", line1: "123 Main St", last: "Springfield, IL",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1"}},
			reason: "no ZIP Code"},
		{name: "apartment building without a unit", line1: "Parkview Apartments", line2: "123 Main St", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.DeliverableMissingUnit, Match: "D", Footnotes: []string{"AA", "N1"}, RecordType: "highrise", ZipCodeType: "standard", RouteType: "cityDelivery", TimeZone: "America/Chicago"},
			reason: "multi-unit building"},
		{name: "apartment building with a unit", line1: "Parkview Apartments", line2: "123 Main St Apt 12", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB"}, RecordType: "highrise", ZipCodeType: "standard", RouteType: "cityDelivery", TimeZone: "America/Chicago"},
			reason: "confirmed"},
		{name: "unit designator without its number", line1: "123 Main St Apt", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.DeliverableMissingUnit, Match: "D", Footnotes: []string{"AA", "N1"}, RecordType: "highrise", ZipCodeType: "standard", RouteType: "cityDelivery", TimeZone: "America/Chicago"},
			reason: "no number"},
		{name: "no house number", line1: "Main Street", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1", "M1"}, ZipCodeType: "standard", TimeZone: "America/Chicago"},
			reason: "no house or building number"},
		{name: "PO box without its number", line1: "P.O. Box", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1", "P1"}, ZipCodeType: "standard", TimeZone: "America/Chicago"},
			reason: "PO box has no box number"},
		{name: "PO box", line1: "P.O. Box 12", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB"}, RecordType: "poBox", ZipCodeType: "standard", RouteType: "poBox", TimeZone: "America/Chicago"},
			reason: "confirmed"},
		{name: "highway contract", line1: "Star Route 5 Box 12", last: "Ely NV 89301",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB"}, RecordType: "ruralRoute", ZipCodeType: "standard", RouteType: "highwayContract", TimeZone: "America/Los_Angeles"},
			reason: "confirmed"},
		{name: "private mailbox", line1: "123 Main St Ste 100 PMB 12", last: "Springfield, IL 62701",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB", "RR"}, RecordType: "highrise", ZipCodeType: "standard", RouteType: "cityDelivery", TimeZone: "America/Chicago"},
			reason: "confirmed"},
		{name: "military", line1: "PSC 802 Box 74", last: "APO AE 09499",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB", "F1"}, RecordType: "street", ZipCodeType: "military", RouteType: "cityDelivery"},
			reason: "confirmed"},
		{name: "military city with a civilian state", line1: "PSC 802 Box 74", last: "APO NY 10001",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1"}},
			reason: "APO mail goes to AA, AE or AP"},
		{name: "military line in a civilian city", line1: "PSC 802 Box 74", last: "Springfield IL 62701",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1"}},
			reason: "delivered through APO, FPO or DPO"},
		{name: "last line without a state", line1: "123 Main St", last: "Springfield 62701",
			want:   apOutcome{Deliverability: lettershop.Undeliverable, Match: "N", Footnotes: []string{"A1"}},
			reason: "the last line could not be read"},
		{name: "time zone by ZIP Code in a state of two zones", line1: "100 Main St", last: "El Paso TX 79901",
			want:   apOutcome{Deliverability: lettershop.Deliverable, Match: "Y", Footnotes: []string{"AA", "BB"}, RecordType: "street", ZipCodeType: "standard", RouteType: "cityDelivery", TimeZone: "America/Denver"},
			reason: "confirmed"},
	}
	p := lettershop.NewAddressProcessor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := apProcess(t, p, lettershop.AddressRequest{Party: apParty(c.line1, c.line2, c.last), CASS: apCassProper})
			got := apOutcomeOf(r)
			// The lines and components are covered by the usps tables;
			// here the verdict counts.
			got.Address, got.Components = lettershop.Address{}, lettershop.AddressComponents{}
			if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(r.Reason, c.reason) {
				t.Errorf("reason %q does not say %q", r.Reason, c.reason)
			}
			if r.Party.AddressComponents.CassType != "basic" {
				t.Errorf("cassType %q", r.Party.AddressComponents.CassType)
			}
		})
	}
}

func TestOrdinaryAddressIsStandardizedAndCorrected(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	r := apProcess(t, p, lettershop.AddressRequest{
		Party: apParty("123 north main street", "apt. 4b", "springfield, illinois 62701"), CASS: apCassProper,
	})
	wantAddr := apAddr("123 N Main St Apt 4B", "", "Springfield IL 62701-"+r.Party.AddressComponents.Plus4Code)
	if diff := cmp.Diff(wantAddr, r.Party.Address); diff != "" {
		t.Errorf("address (-want +got):\n%s", diff)
	}
	plus4 := r.Party.AddressComponents.Plus4Code
	if len(plus4) != 4 || strings.Trim(plus4, "0123456789") != "" {
		t.Errorf("plus4Code %q is not four digits", plus4)
	}
	want := []lettershop.AddressCorrection{
		{Name: "addressLine1", Input: "123 north main street", Corrected: "123 N Main St Apt 4B"},
		{Name: "addressLine2", Input: "apt. 4b", Corrected: ""},
		{Name: "lastLine", Input: "springfield, illinois 62701", Corrected: "Springfield IL 62701-" + plus4},
		{Name: "city", Input: "springfield", Corrected: "Springfield"},
		{Name: "plus4Code", Input: "", Corrected: plus4},
	}
	if diff := cmp.Diff(want, r.Party.AddressCorrections); diff != "" {
		t.Errorf("corrections (-want +got):\n%s", diff)
	}
	// Deterministic: the same address gives the same result, from another
	// processor too.
	again := apProcess(t, lettershop.NewAddressProcessor(), lettershop.AddressRequest{
		Party: apParty("123 north main street", "apt. 4b", "springfield, illinois 62701"), CASS: apCassProper,
	})
	if diff := cmp.Diff(r, again); diff != "" {
		t.Errorf("second run differs (-first +second):\n%s", diff)
	}
	// Upper casing simulates the same values.
	upper := apProcess(t, p, lettershop.AddressRequest{
		Party: apParty("123 north main street", "apt. 4b", "springfield, illinois 62701"), CASS: apCassUpper,
	})
	if upper.Party.AddressComponents.Plus4Code != plus4 || *upper.Party.AddressMetadata != *r.Party.AddressMetadata {
		t.Errorf("upper casing simulated other values: %+v, %+v", upper.Party.AddressComponents, upper.Party.AddressMetadata)
	}
	// Processing the result again changes nothing more.
	third := apProcess(t, p, lettershop.AddressRequest{Party: r.Party, CASS: apCassProper})
	if third.Party.AddressCorrections != nil || third.Party.Address != r.Party.Address {
		t.Errorf("reprocessing made corrections %+v, address %+v", third.Party.AddressCorrections, third.Party.Address)
	}
}

// Standardizing keeps an address line within a letter's 64 characters: a
// numbered road is written out only while it fits, so a processed
// recipient can be given back as it is.
func TestStandardizedLineFitsTheLineLimit(t *testing.T) {
	// "1 " + name + " Highway 66": 64 characters with a 51-letter name.
	for _, c := range []struct {
		name int
		want string
	}{
		{51, "1 " + strings.Repeat("A", 51) + " Highway 66"},
		{52, "1 " + strings.Repeat("A", 52) + " Hwy 66"},
	} {
		line := "1 " + strings.Repeat("a", c.name) + " hwy 66"
		r := apProcess(t, lettershop.NewAddressProcessor(), lettershop.AddressRequest{
			Party: apParty(line, "", "Springfield IL 62701"), CASS: &lettershop.CassOptions{Type: "basic", Casing: "upper"},
		})
		if got := r.Party.Address.AddressLine1; got != strings.ToUpper(c.want) {
			t.Errorf("%q: addressLine1 %q (%d characters), want %q", line, got, len(got), strings.ToUpper(c.want))
		}
	}
	e := newAPEnv(t)
	in := apPartyInput("1 "+strings.Repeat("a", 52)+" hwy 66", "Springfield IL 62701")
	l := e.letter(t, in, apCASS(""))
	back := &lettershop.PartyInput{
		Address:    lettershop.AddressInput{AddressLine1: l.Recipient.Address.AddressLine1, LastLine: l.Recipient.Address.LastLine},
		Individual: l.Recipient.Individual,
	}
	if _, err := e.svc.UpdateLetter(e.ctx, "acct", l.ID, lettershop.UpdateLetterInput{Recipient: back}); err != nil {
		t.Errorf("the processed recipient given back: %v", err)
	}
}

func TestComponentsGivenInParts(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	in := apParty("123 Main St", "", "springfield, il 62701-1234")
	in.AddressComponents = &lettershop.AddressComponents{CassType: "none", City: "springfield", State: "il", ZipCode: "62701", Plus4Code: "1234"}
	r := apProcess(t, p, lettershop.AddressRequest{Party: in, CASS: apCassUpper})
	if diff := cmp.Diff(apComps("SPRINGFIELD", "IL", "62701", "1234"), *r.Party.AddressComponents); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	if r.Party.Address.LastLine != "SPRINGFIELD IL 62701-1234" {
		t.Errorf("lastLine %q", r.Party.Address.LastLine)
	}
	// A last line that cannot be read gives way to the parts, when they
	// have a city and a state.
	for _, c := range []struct {
		state, want string
		d           lettershop.Deliverability
	}{
		{"il", "SPRINGFIELD IL 62701-1234", lettershop.Deliverable},
		{"", "somewhere", lettershop.Undeliverable},
	} {
		in := apParty("123 Main St", "", "somewhere")
		in.AddressComponents = &lettershop.AddressComponents{CassType: "none", City: "springfield", State: c.state, ZipCode: "62701", Plus4Code: "1234"}
		r := apProcess(t, p, lettershop.AddressRequest{Party: in, CASS: apCassUpper})
		if r.Party.Address.LastLine != c.want || r.Deliverability != c.d {
			t.Errorf("state %q: lastLine %q, %s; want %q, %s", c.state, r.Party.Address.LastLine, r.Deliverability, c.want, c.d)
		}
	}
}

func TestWithoutCASSNothingIsAnalysed(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	for _, line1 := range []string{"123 main st", "undeliverable no match"} {
		r := apProcess(t, p, lettershop.AddressRequest{Party: apParty(line1, "", "springfield, il 62701-1234")})
		want := lettershop.AddressResult{Party: apParty(line1, "", "springfield, il 62701-1234")}
		want.Party.AddressComponents = &lettershop.AddressComponents{CassType: "none", City: "springfield", State: "IL", ZipCode: "62701", Plus4Code: "1234"}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", line1, diff)
		}
	}
	// An unreadable last line is kept as given.
	r := apProcess(t, p, lettershop.AddressRequest{Party: apParty("123 main st", "", "somewhere")})
	if r.Party.Address.LastLine != "somewhere" || r.Deliverability != "" || r.Party.AddressComponents.CassType != "none" {
		t.Errorf("got %+v", r)
	}
}

// The sender is standardized when asked but never forwarded.
func TestSenderIsNotForwarded(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	r := apProcess(t, p, lettershop.AddressRequest{Role: lettershop.RoleSender, Party: apParty("NCOA", "", "Springfield IL 62701"), NCOA: true})
	if r.Party.Address.AddressLine1 != "NCOA" || len(r.Party.AddressCorrections) != 0 {
		t.Errorf("sender forwarded: %+v", r.Party)
	}
}

func apRegister(t testing.TB, p lettershop.AddressProcessor, account string, m lettershop.Move) {
	t.Helper()
	if err := p.(lettershop.MoveRegistry).RegisterMove(context.Background(), account, m); err != nil {
		t.Fatalf("RegisterMove(%+v): %v", m, err)
	}
}

func apMove(name, fromLine, fromLast, toLine, toLast string) lettershop.Move {
	return lettershop.Move{
		Name: name,
		From: lettershop.AddressInput{AddressLine1: fromLine, LastLine: fromLast},
		To:   lettershop.AddressInput{AddressLine1: toLine, LastLine: toLast},
	}
}

func TestNCOA(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	apRegister(t, p, "acct", apMove("", "123 Main Street", "Springfield, IL 62701", "77 Oak Ave", "Chicago, IL 60601"))
	apRegister(t, p, "acct", apMove("Jane Doe", "9 Elm St", "Springfield, IL 62704", "1 Lake St", "Peoria, IL 61602"))
	apRegister(t, p, "other", apMove("", "5 Pine St", "Springfield, IL 62701", "6 Pine St", "Springfield, IL 62701"))

	ncoaLines := func(fromLine, fromLast, toLine, toLast string) []lettershop.AddressCorrection {
		return []lettershop.AddressCorrection{
			{Name: "ncoa.addressLine1", Input: fromLine, Corrected: toLine},
			{Name: "ncoa.lastLine", Input: fromLast, Corrected: toLast},
		}
	}
	cases := []struct {
		name    string
		account string
		in      lettershop.Party
		ncoa    bool
		want    lettershop.Address
		corr    []lettershop.AddressCorrection
	}{
		{"registered move, matched after standardization", "acct", apParty("123 MAIN ST.", "", "springfield il 62701-9999"), true,
			apAddr("77 Oak Ave", "", "Chicago, IL 60601"), ncoaLines("123 MAIN ST.", "springfield il 62701-9999", "77 Oak Ave", "Chicago, IL 60601")},
		{"NCOA not asked for", "acct", apParty("123 Main St", "", "Springfield, IL 62701"), false,
			apAddr("123 Main St", "", "Springfield, IL 62701"), nil},
		{"another account's move", "acct", apParty("5 Pine St", "", "Springfield, IL 62701"), true,
			apAddr("5 Pine St", "", "Springfield, IL 62701"), nil},
		{"move limited to a name, that name", "acct", apParty("9 Elm Street", "", "Springfield, IL 62704"), true,
			apAddr("1 Lake St", "", "Peoria, IL 61602"), ncoaLines("9 Elm Street", "Springfield, IL 62704", "1 Lake St", "Peoria, IL 61602")},
		{"move limited to a name, another name", "acct", func() lettershop.Party {
			p := apParty("9 Elm Street", "", "Springfield, IL 62704")
			p.Individual = &lettershop.Individual{FullName: "John Roe"}
			return p
		}(), true, apAddr("9 Elm Street", "", "Springfield, IL 62704"), nil},
		{"fixed NCOA test address", "acct", apParty("ncoa", "Apt 1", "Anytown, CA 90210"), true,
			apAddr("300 S 2nd St", "", "Springfield IL 62701"), []lettershop.AddressCorrection{
				{Name: "ncoa.addressLine1", Input: "ncoa", Corrected: "300 S 2nd St"},
				{Name: "ncoa.addressLine2", Input: "Apt 1", Corrected: ""},
				{Name: "ncoa.lastLine", Input: "Anytown, CA 90210", Corrected: "Springfield IL 62701"},
			}},
		{"same street, another ZIP Code", "acct", apParty("123 Main St", "", "Springfield, IL 62702"), true,
			apAddr("123 Main St", "", "Springfield, IL 62702"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := apProcess(t, p, lettershop.AddressRequest{Account: c.account, Party: c.in, NCOA: c.ncoa})
			if diff := cmp.Diff(c.want, r.Party.Address); diff != "" {
				t.Errorf("address (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.corr, r.Party.AddressCorrections, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("corrections (-want +got):\n%s", diff)
			}
		})
	}
}

// With CASS, the forwarding address is standardized and analysed, and the
// corrections show both steps.
func TestNCOAThenCASS(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	apRegister(t, p, "acct", apMove("", "123 Main Street", "Springfield, IL 62701", "77 oak avenue", "Chicago, IL 60601"))
	r := apProcess(t, p, lettershop.AddressRequest{Party: apParty("123 Main St", "", "Springfield IL 62701"), NCOA: true, CASS: apCassUpper})
	plus4 := r.Party.AddressComponents.Plus4Code
	want := []lettershop.AddressCorrection{
		{Name: "ncoa.addressLine1", Input: "123 Main St", Corrected: "77 oak avenue"},
		{Name: "ncoa.lastLine", Input: "Springfield IL 62701", Corrected: "Chicago, IL 60601"},
		{Name: "addressLine1", Input: "77 oak avenue", Corrected: "77 OAK AVE"},
		{Name: "lastLine", Input: "Chicago, IL 60601", Corrected: "CHICAGO IL 60601-" + plus4},
		{Name: "city", Input: "Chicago", Corrected: "CHICAGO"},
		{Name: "plus4Code", Input: "", Corrected: plus4},
	}
	if diff := cmp.Diff(want, r.Party.AddressCorrections); diff != "" {
		t.Errorf("corrections (-want +got):\n%s", diff)
	}
	if r.Deliverability != lettershop.Deliverable {
		t.Errorf("deliverability %q", r.Deliverability)
	}
}

func TestRegisterMoveValidation(t *testing.T) {
	ok := lettershop.AddressInput{AddressLine1: "1 Main St", LastLine: "Springfield IL 62701"}
	cases := []struct {
		name   string
		m      lettershop.Move
		fields []string
	}{
		{"empty", lettershop.Move{}, []string{"from.addressLine1", "from.lastLine", "to.addressLine1", "to.lastLine"}},
		{"no state", lettershop.Move{From: lettershop.AddressInput{AddressLine1: "1 Main St", LastLine: "Springfield 62701"}, To: ok}, []string{"from.lastLine"}},
		{"no ZIP Code", lettershop.Move{From: ok, To: lettershop.AddressInput{AddressLine1: "2 Main St", LastLine: "Springfield IL"}}, []string{"to.lastLine"}},
		{"same address", lettershop.Move{From: ok, To: lettershop.AddressInput{AddressLine1: "1 MAIN STREET", City: "Springfield", State: "IL", ZipCode: "62701"}}, []string{"to"}},
		{"name too long", lettershop.Move{Name: strings.Repeat("n", 65), From: ok, To: lettershop.AddressInput{AddressLine1: "2 Main St", LastLine: "Springfield IL 62701"}}, []string{"name"}},
		{"line too long", lettershop.Move{From: ok, To: lettershop.AddressInput{AddressLine1: "2 Main St " + strings.Repeat("x", 55), LastLine: "Springfield IL 62701"}}, []string{"to.addressLine1"}},
		{"parts too long", lettershop.Move{From: ok, To: lettershop.AddressInput{AddressLine1: "2 Main St", City: strings.Repeat("c", 65),
			State: "ILL", ZipCode: "627011", Plus4Code: "12345", Urbanization: strings.Repeat("u", 65)}},
			[]string{"to.city", "to.state", "to.zipCode", "to.plus4Code", "to.urbanization"}},
	}
	p := lettershop.NewAddressProcessor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := p.(lettershop.MoveRegistry).RegisterMove(context.Background(), "acct", c.m)
			var fields []string
			if e := (*lettershop.Error)(nil); errors.As(err, &e) && e.Code == lettershop.CodeInvalid {
				for k := range e.Fields {
					fields = append(fields, k)
				}
			} else {
				t.Fatalf("got %v, want an invalid-input error", err)
			}
			if diff := cmp.Diff(c.fields, fields, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
	// The limits, on their good side.
	good := lettershop.Move{Name: strings.Repeat("n", 64), From: ok, To: lettershop.AddressInput{AddressLine1: "2 Main St " + strings.Repeat("x", 54), LastLine: "Springfield IL 62701"}}
	apRegister(t, p, "acct", good)
	parts := lettershop.Move{From: ok, To: lettershop.AddressInput{AddressLine1: "3 Main St", City: strings.Repeat("c", 64),
		State: "IL", ZipCode: "62701", Plus4Code: "1234", Urbanization: strings.Repeat("u", 64)}}
	apRegister(t, p, "acct", parts)
}

func TestRegisterMoveLimit(t *testing.T) {
	p := lettershop.NewAddressProcessor()
	reg := p.(lettershop.MoveRegistry)
	for i := range lettershop.MaxMovesPerAccount {
		apRegister(t, p, "acct", apMove("", fmt.Sprintf("%d Main St", i+1), "Springfield IL 62701", "1 Oak St", "Springfield IL 62702"))
	}
	// Replacing a move at the limit is fine; a new one is not.
	apRegister(t, p, "acct", apMove("", "1 Main St", "Springfield IL 62701", "2 Oak St", "Springfield IL 62702"))
	err := reg.RegisterMove(context.Background(), "acct", apMove("", "0 Main St", "Springfield IL 62701", "1 Oak St", "Springfield IL 62702"))
	if lettershop.ErrorCode(err) != lettershop.CodeConflict {
		t.Fatalf("move %d: got %v, want a conflict", lettershop.MaxMovesPerAccount+1, err)
	}
	// The limit is per account.
	apRegister(t, p, "other", apMove("", "0 Main St", "Springfield IL 62701", "1 Oak St", "Springfield IL 62702"))
	r := apProcess(t, p, lettershop.AddressRequest{Party: apParty("1 Main St", "", "Springfield IL 62701"), NCOA: true})
	if r.Party.Address.AddressLine1 != "2 Oak St" {
		t.Errorf("replaced move not used: %+v", r.Party.Address)
	}
}

// The move JSON shape documented in docs/addresses.md.
func TestMoveJSON(t *testing.T) {
	var m lettershop.Move
	body := `{"name":"Jane Doe","from":{"addressLine1":"123 Main St","lastLine":"Springfield, IL 62701"},
		"to":{"addressLine1":"77 Oak Ave","addressLine2":"Apt 3","city":"Chicago","state":"IL","zipCode":"60601"}}`
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	want := lettershop.Move{Name: "Jane Doe",
		From: lettershop.AddressInput{AddressLine1: "123 Main St", LastLine: "Springfield, IL 62701"},
		To:   lettershop.AddressInput{AddressLine1: "77 Oak Ave", AddressLine2: "Apt 3", City: "Chicago", State: "IL", ZipCode: "60601"}}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p := lettershop.NewAddressProcessor()
	apRegister(t, p, "acct", m)
	r := apProcess(t, p, lettershop.AddressRequest{Party: apParty("123 Main St", "", "Springfield IL 62701"), NCOA: true})
	if got := r.Party.Address; got != apAddr("77 Oak Ave", "Apt 3", "Chicago, IL 60601") {
		t.Errorf("forwarded to %+v", got)
	}
}

func BenchmarkProcess(b *testing.B) {
	p := lettershop.NewAddressProcessor()
	for i := range 100 {
		apRegister(b, p, "acct", apMove("", fmt.Sprintf("%d Elm St", i+1), "Springfield IL 62704", "77 Oak Ave", "Chicago IL 60601"))
	}
	req := lettershop.AddressRequest{Account: "acct", Role: lettershop.RoleRecipient, NCOA: true, CASS: apCassProper,
		Party: apParty("123 north main street", "apt 4b", "springfield, il 62701")}
	ctx := context.Background()
	for b.Loop() {
		if _, err := p.Process(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// apEnv is a Service over a fresh memstore, with one published template.
type apEnv struct {
	svc   *lettershop.Service
	ctx   context.Context
	asset string
}

func newAPEnv(t testing.TB, opts ...lettershop.Option) *apEnv {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	opts = append([]lettershop.Option{lettershop.WithClock(mc), lettershop.WithEntropy(rand.New(rand.NewSource(7)))}, opts...)
	svc := lettershop.New(memstore.New(), opts...)
	t.Cleanup(func() { svc.Close() })
	e := &apEnv{svc: svc, ctx: context.Background()}
	a, err := svc.CreateAsset(e.ctx, "acct", lettershop.CreateAssetInput{Name: "Notice", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatalf("CreateAsset: %v", err)
	}
	if _, err := svc.CreateVersion(e.ctx, "acct", a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>Hello</p>"}, Publish: true,
	}); err != nil {
		t.Fatalf("CreateVersion: %v", err)
	}
	e.asset = a.ID
	return e
}

func apPartyInput(line1, last string) *lettershop.PartyInput {
	return &lettershop.PartyInput{
		Address:    lettershop.AddressInput{AddressLine1: line1, LastLine: last},
		Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"},
	}
}

// letter creates a letter from the sender's fixed address to recipient
// with opts.
func (e *apEnv) letter(t testing.TB, recipient *lettershop.PartyInput, opts *lettershop.LetterOptions) *lettershop.Letter {
	t.Helper()
	l, err := e.svc.CreateLetter(e.ctx, "acct", lettershop.CreateLetterInput{
		Sender:    &lettershop.PartyInput{Address: lettershop.AddressInput{AddressLine1: "1 Sender Way", LastLine: "Peoria IL 61602"}, Organization: "Acme"},
		Recipient: recipient,
		Content:   &lettershop.LetterContent{Type: "asset", AssetID: e.asset},
		UseType:   lettershop.UseTransactional,
		Options:   opts,
	})
	if err != nil {
		t.Fatalf("CreateLetter: %v", err)
	}
	return l
}

func apCASS(threshold lettershop.DeliverabilityThreshold, values ...lettershop.Deliverability) *lettershop.LetterOptions {
	return &lettershop.LetterOptions{
		AddressProcessing:       &lettershop.AddressProcessing{CassRecipient: &lettershop.CassOptions{Type: "basic"}},
		DeliverabilityThreshold: threshold,
		DeliverabilityValues:    values,
	}
}

func TestCreateLetterWithAddressProcessing(t *testing.T) {
	e := newAPEnv(t)
	if err := e.svc.RegisterMove(e.ctx, "acct", apMove("", "12 Elm St", "Springfield IL 62704", "77 Oak Ave", "Chicago IL 60601")); err != nil {
		t.Fatalf("RegisterMove: %v", err)
	}
	ncoa := func(o *lettershop.LetterOptions) *lettershop.LetterOptions {
		if o == nil {
			o = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{}}
		}
		o.AddressProcessing.NcoaRecipient = "newAddress"
		return o
	}
	type want struct {
		status    lettershop.LetterStatus
		issue     string // a part of issueMessage; "" for none
		recipient lettershop.Address
		cassType  string
		analysed  bool
	}
	cases := []struct {
		name      string
		recipient *lettershop.PartyInput
		opts      *lettershop.LetterOptions
		want      want
	}{
		{"standardized and deliverable", apPartyInput("123 north main street apt 4", "springfield, il 62701"), apCASS(""),
			want{lettershop.StatusQueued, "", lettershop.Address{AddressLine1: "123 N Main St Apt 4"}, "basic", true}},
		{"ZIP Code of another state", apPartyInput("123 Main St", "Los Angeles, CA 62701"), apCASS(""),
			want{lettershop.StatusIssue, "the recipient address is undeliverable (ZIP Code 62701 is in IL, not in CA), which the deliverability threshold normal does not accept (it accepts deliverable, deliverableUnnecessaryUnit, deliverableIncorrectUnit)",
				lettershop.Address{AddressLine1: "123 Main St", LastLine: "Los Angeles CA 62701"}, "basic", true}},
		{"apartment building without unit, strict", apPartyInput("1 Harbor Towers", "Springfield IL 62701"), apCASS("strict"),
			want{lettershop.StatusIssue, "is deliverableMissingUnit (the address names a multi-unit building but no apartment or suite number), which the deliverability threshold strict",
				lettershop.Address{AddressLine1: "1 Harbor Towers"}, "basic", true}},
		{"test address undeliverable", apPartyInput("undeliverable no match", "Anytown CA 90210"), apCASS("relaxed"),
			want{lettershop.StatusIssue, "undeliverable (the address was not found), which the deliverability threshold relaxed",
				lettershop.Address{AddressLine1: "1 Nowhere Ln", LastLine: "Springfield IL 62701"}, "basic", true}},
		{"explicit values", apPartyInput("missing unit", "Anytown CA 90210"), apCASS("relaxed", "deliverable"),
			want{lettershop.StatusIssue, "the recipient address is deliverableMissingUnit (the address is a building with several units and no apartment or suite number was given), which deliverabilityValues does not accept (it accepts deliverable)",
				lettershop.Address{AddressLine1: "500 E Capitol Ave", LastLine: "Springfield IL 62701-1000"}, "basic", true}},
		{"threshold without CASS checks nothing", apPartyInput("undeliverable no match", "Anytown CA 90210"),
			&lettershop.LetterOptions{DeliverabilityThreshold: "strict", DeliverabilityValues: []lettershop.Deliverability{lettershop.Deliverable}},
			want{lettershop.StatusQueued, "", lettershop.Address{AddressLine1: "undeliverable no match", LastLine: "Anytown CA 90210"}, "none", false}},
		{"NCOA from the registry", apPartyInput("12 ELM STREET", "Springfield, IL 62704"), ncoa(nil),
			want{lettershop.StatusQueued, "", lettershop.Address{AddressLine1: "77 Oak Ave", LastLine: "Chicago IL 60601"}, "none", false}},
		{"NCOA test address, then CASS", apPartyInput("NCOA", "Anytown CA 90210"), ncoa(apCASS("strict")),
			want{lettershop.StatusQueued, "", lettershop.Address{AddressLine1: "300 S 2nd St"}, "basic", true}},
		{"NCOA not asked for", apPartyInput("12 Elm St", "Springfield IL 62704"), nil,
			want{lettershop.StatusQueued, "", lettershop.Address{AddressLine1: "12 Elm St", LastLine: "Springfield IL 62704"}, "none", false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := e.letter(t, c.recipient, c.opts)
			if l.Status != c.want.status {
				t.Errorf("status %s, want %s", l.Status, c.want.status)
			}
			if c.want.issue == "" && l.IssueMessage != "" || !strings.Contains(l.IssueMessage, c.want.issue) {
				t.Errorf("issueMessage %q, want it to say %q", l.IssueMessage, c.want.issue)
			}
			if last := l.Events[len(l.Events)-1]; last.Type != "status" || last.Status != lettershop.EventStatus(c.want.status) {
				t.Errorf("last event %+v", last)
			}
			got := l.Recipient.Address
			if c.want.recipient.LastLine == "" {
				got.LastLine = "" // simulated ZIP+4: checked elsewhere
			}
			if diff := cmp.Diff(c.want.recipient, got); diff != "" {
				t.Errorf("recipient address (-want +got):\n%s", diff)
			}
			if ct := l.Recipient.AddressComponents.CassType; string(ct) != c.want.cassType {
				t.Errorf("cassType %q, want %q", ct, c.want.cassType)
			}
			if (l.Recipient.AddressAnalysis != nil) != c.want.analysed || (l.Recipient.AddressMetadata != nil) != c.want.analysed {
				t.Errorf("analysed: analysis %v, metadata %v", l.Recipient.AddressAnalysis, l.Recipient.AddressMetadata)
			}
			// The stored letter is the one returned.
			stored, err := e.svc.GetLetter(e.ctx, "acct", l.ID)
			if err != nil {
				t.Fatalf("GetLetter: %v", err)
			}
			if diff := cmp.Diff(l, stored, cmpopts.IgnoreUnexported(lettershop.Letter{})); diff != "" {
				t.Errorf("stored letter differs (-created +stored):\n%s", diff)
			}
		})
	}
}

// The sender is standardized on request, but its deliverability never
// holds the letter.
func TestSenderCASSDoesNotHoldTheLetter(t *testing.T) {
	e := newAPEnv(t)
	l, err := e.svc.CreateLetter(e.ctx, "acct", lettershop.CreateLetterInput{
		Sender:    apPartyInput("undeliverable no match", "Springfield IL 62701"),
		Recipient: apPartyInput("deliverable", "Springfield IL 62701"),
		Content:   &lettershop.LetterContent{Type: "asset", AssetID: e.asset},
		UseType:   lettershop.UseMarketing,
		Options: &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
			CassSender: &lettershop.CassOptions{Type: "basic", Casing: "upper"}, CassRecipient: &lettershop.CassOptions{Type: "basic"},
		}, DeliverabilityThreshold: "strict"},
	})
	if err != nil {
		t.Fatalf("CreateLetter: %v", err)
	}
	if l.Status != lettershop.StatusQueued || l.IssueMessage != "" {
		t.Errorf("status %s, issue %q", l.Status, l.IssueMessage)
	}
	if l.Sender.Address.AddressLine1 != "1 NOWHERE LN" || l.Sender.AddressAnalysis.DpvMatchCode != "N" {
		t.Errorf("sender %+v", l.Sender)
	}
	if l.Recipient.Address.AddressLine1 != "1 Old State Capitol Plz" {
		t.Errorf("recipient %+v", l.Recipient.Address)
	}
}

// Each threshold, and explicit lists of values, against each
// deliverability value (each produced by its test address).
func TestDeliverabilityThresholds(t *testing.T) {
	lines := map[lettershop.Deliverability]string{
		lettershop.Deliverable:                "deliverable",
		lettershop.DeliverableUnnecessaryUnit: "unnecessary unit",
		lettershop.DeliverableIncorrectUnit:   "incorrect unit",
		lettershop.DeliverableMissingUnit:     "missing unit",
		lettershop.Undeliverable:              "undeliverable block match",
	}
	const (
		ok = true
		no = false
	)
	cases := []struct {
		threshold lettershop.DeliverabilityThreshold
		values    []lettershop.Deliverability
		accepts   map[lettershop.Deliverability]bool
	}{
		{"strict", nil, map[lettershop.Deliverability]bool{"deliverable": ok, "deliverableUnnecessaryUnit": no, "deliverableIncorrectUnit": no, "deliverableMissingUnit": no, "undeliverable": no}},
		{"normal", nil, map[lettershop.Deliverability]bool{"deliverable": ok, "deliverableUnnecessaryUnit": ok, "deliverableIncorrectUnit": ok, "deliverableMissingUnit": no, "undeliverable": no}},
		{"", nil, map[lettershop.Deliverability]bool{"deliverable": ok, "deliverableUnnecessaryUnit": ok, "deliverableIncorrectUnit": ok, "deliverableMissingUnit": no, "undeliverable": no}},
		{"relaxed", nil, map[lettershop.Deliverability]bool{"deliverable": ok, "deliverableUnnecessaryUnit": ok, "deliverableIncorrectUnit": ok, "deliverableMissingUnit": ok, "undeliverable": no}},
		{"", []lettershop.Deliverability{"deliverable"}, map[lettershop.Deliverability]bool{"deliverable": ok, "deliverableUnnecessaryUnit": no, "deliverableIncorrectUnit": no, "deliverableMissingUnit": no, "undeliverable": no}},
		{"", []lettershop.Deliverability{"deliverableMissingUnit", "undeliverable"}, map[lettershop.Deliverability]bool{"deliverable": no, "deliverableUnnecessaryUnit": no, "deliverableIncorrectUnit": no, "deliverableMissingUnit": ok, "undeliverable": ok}},
		// Values decide instead of the threshold.
		{"strict", []lettershop.Deliverability{"deliverable", "deliverableUnnecessaryUnit", "deliverableIncorrectUnit", "deliverableMissingUnit", "undeliverable"},
			map[lettershop.Deliverability]bool{"deliverable": ok, "deliverableUnnecessaryUnit": ok, "deliverableIncorrectUnit": ok, "deliverableMissingUnit": ok, "undeliverable": ok}},
		{"relaxed", []lettershop.Deliverability{"deliverableIncorrectUnit"}, map[lettershop.Deliverability]bool{"deliverable": no, "deliverableUnnecessaryUnit": no, "deliverableIncorrectUnit": ok, "deliverableMissingUnit": no, "undeliverable": no}},
	}
	e := newAPEnv(t)
	for _, c := range cases {
		for d, line := range lines {
			t.Run(fmt.Sprintf("%s%v/%s", c.threshold, c.values, d), func(t *testing.T) {
				l := e.letter(t, apPartyInput(line, "Springfield IL 62701"), apCASS(c.threshold, c.values...))
				accepted := l.Status == lettershop.StatusQueued && l.IssueMessage == ""
				if accepted != c.accepts[d] {
					t.Fatalf("status %s, issue %q; want accepted %v", l.Status, l.IssueMessage, c.accepts[d])
				}
				if !accepted && (l.Status != lettershop.StatusIssue || !strings.Contains(l.IssueMessage, "is "+string(d)+" (")) {
					t.Errorf("status %s, issue %q", l.Status, l.IssueMessage)
				}
			})
		}
	}
}

// A queued letter whose recipient is updated is processed again.
func TestUpdateLetterReprocessesAddresses(t *testing.T) {
	e := newAPEnv(t)
	l := e.letter(t, apPartyInput("residential house", "Springfield IL 62704"), apCASS("normal"))
	if l.Status != lettershop.StatusQueued {
		t.Fatalf("status %s", l.Status)
	}
	// Changing another mail field leaves the processed recipient as it is.
	color := &lettershop.LetterOptions{Print: &lettershop.PrintOptions{Color: true},
		AddressProcessing: &lettershop.AddressProcessing{CassRecipient: &lettershop.CassOptions{Type: "basic"}}}
	u, err := e.svc.UpdateLetter(e.ctx, "acct", l.ID, lettershop.UpdateLetterInput{Options: color})
	if err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if u.Status != lettershop.StatusQueued || u.Recipient.Address != l.Recipient.Address {
		t.Errorf("after an options update: status %s, recipient %+v", u.Status, u.Recipient.Address)
	}
	u, err = e.svc.UpdateLetter(e.ctx, "acct", l.ID, lettershop.UpdateLetterInput{Recipient: apPartyInput("5 Main St", "Boston CA 02108")})
	if err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if u.Status != lettershop.StatusIssue || !strings.Contains(u.IssueMessage, "ZIP Code 02108 is in MA, not in CA") {
		t.Errorf("after a bad recipient: status %s, issue %q", u.Status, u.IssueMessage)
	}
}

type plainProcessor struct{}

func (plainProcessor) Process(_ context.Context, req lettershop.AddressRequest) (lettershop.AddressResult, error) {
	return lettershop.AddressResult{Party: req.Party}, nil
}

func TestRegisterMove(t *testing.T) {
	e := newAPEnv(t)
	good := apMove("", "1 Main St", "Springfield IL 62701", "2 Main St", "Springfield IL 62701")
	if err := e.svc.RegisterMove(e.ctx, "acct", good); err != nil {
		t.Errorf("RegisterMove: %v", err)
	}
	err := e.svc.RegisterMove(e.ctx, "acct", lettershop.Move{From: good.From})
	var le *lettershop.Error
	if !errors.As(err, &le) || le.Code != lettershop.CodeInvalid || le.Fields["to.addressLine1"] == "" {
		t.Errorf("invalid move: %v", err)
	}
	custom := newAPEnv(t, lettershop.WithAddressProcessor(plainProcessor{}))
	err = custom.svc.RegisterMove(custom.ctx, "acct", good)
	if lettershop.ErrorCode(err) != lettershop.CodeConflict || !strings.Contains(err.Error(), "does not take moves") {
		t.Errorf("custom processor: %v", err)
	}
}
