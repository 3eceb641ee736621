package cass

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/usps"
)

// TestTestAddresses checks that each test address gives its fixed outcome
// whatever else is written, in any case and spacing, and is marked so.
func TestTestAddresses(t *testing.T) {
	want := map[string]string{
		"deliverable": DPVConfirmed, "missing unit": DPVDefault, "incorrect unit": DPVSecondaryUnknown,
		"unnecessary unit": DPVSecondaryUnknown, "undeliverable block match": DPVNotConfirmed,
		"undeliverable no match": DPVNotConfirmed, "residential house": DPVConfirmed,
		"commercial highrise": DPVConfirmed, "po box": DPVConfirmed, "rural route": DPVConfirmed,
		"military": DPVConfirmed, "puerto rico": DPVConfirmed,
	}
	if len(want) != len(testAddresses) {
		t.Fatalf("%d test addresses, want %d", len(testAddresses), len(want))
	}
	for line, code := range want {
		in := Input{Address: usps.Address{Line1: "  " + line + " ", City: "Nowhere", State: "ZZ"}, Casing: usps.Upper}
		r := Process(in)
		if !r.Test || r.Analysis.DpvMatchCode != code || r.Reason == "" {
			t.Errorf("%s: test %v, match %q, reason %q; want a test result %q", line, r.Test, r.Analysis.DpvMatchCode, r.Reason, code)
		}
		if (r.Metadata.DefaultBuildingAddress) != (code == DPVDefault) {
			t.Errorf("%s: defaultBuildingAddress %v", line, r.Metadata.DefaultBuildingAddress)
		}
	}
}

// TestProcessIsDeterministic checks that an address gets the same
// simulated values every time and in either casing.
func TestProcessIsDeterministic(t *testing.T) {
	in := Input{Address: usps.Address{Line1: "200 Oak Avenue", City: "Chicago", State: "IL", ZIP: "60601"}, Casing: usps.Upper}
	first := Process(in)
	if first.Test || first.Analysis.DpvMatchCode != DPVConfirmed || first.Address.Plus4 == "" {
		t.Fatalf("Process(%+v) = %+v, want a confirmed delivery point with a ZIP+4", in, first)
	}
	if diff := cmp.Diff(first, Process(in)); diff != "" {
		t.Errorf("second run (-first +second):\n%s", diff)
	}
	in.Casing = usps.Proper
	proper := Process(in)
	if diff := cmp.Diff(first.Metadata, proper.Metadata); diff != "" {
		t.Errorf("metadata by casing (-upper +proper):\n%s", diff)
	}
	in.Business = true
	if got := Process(in).Metadata.AddressType; got != "commercial" {
		t.Errorf("a business's addressType = %q, want commercial", got)
	}
}

func TestKeys(t *testing.T) {
	if got := TestKey("  Missing   UNIT "); got != "missing unit" {
		t.Errorf("TestKey = %q", got)
	}
	if got := NameKey(" jane   Doe "); got != "JANE DOE" {
		t.Errorf("NameKey = %q", got)
	}
	a := DeliveryKey(usps.Address{Line1: "200 Oak Avenue", City: "Chicago", State: "IL", ZIP: "60601"})
	b := DeliveryKey(usps.Address{Line1: "200 OAK AVE", City: "CHICAGO", State: "IL", ZIP: "60601"})
	if a != b {
		t.Errorf("DeliveryKey differs by form: %q, %q", a, b)
	}
}

// TestDeliverability checks the verdict of each test address, which
// Process gives with its analysis.
func TestDeliverability(t *testing.T) {
	want := map[string]string{
		"deliverable": Deliverable, "missing unit": DeliverableMissingUnit, "incorrect unit": DeliverableIncorrectUnit,
		"unnecessary unit": DeliverableUnnecessaryUnit, "undeliverable block match": Undeliverable,
		"undeliverable no match": Undeliverable,
	}
	for line, d := range want {
		r := Process(Input{Address: usps.Address{Line1: line}, Casing: usps.Upper})
		if r.Deliverability != d || Deliverability(r.Analysis) != d {
			t.Errorf("%s: %q, want %q", line, r.Deliverability, d)
		}
	}
}

// TestUrbanizationOnlyInPuertoRico checks that the standardized address
// keeps an urbanization in Puerto Rico only: outside it USPS addresses have
// none, so one given (a placeholder copied from an example) is dropped,
// not cased and kept.
func TestUrbanizationOnlyInPuertoRico(t *testing.T) {
	for _, c := range []struct {
		state, zip, urb, want string
	}{
		{"VA", "20190", "<string>", ""},
		{"IL", "60601", "Urb Las Gladiolas", ""},
		{"PR", "00926", "Urb Las Gladiolas", "URB LAS GLADIOLAS"},
	} {
		in := Input{Address: usps.Address{Line1: "150 Main St", Urbanization: c.urb, City: "Somewhere", State: c.state, ZIP: c.zip}, Casing: usps.Upper}
		if got := Process(in).Address.Urbanization; got != c.want {
			t.Errorf("%s %q: urbanization %q, want %q", c.state, c.urb, got, c.want)
		}
	}
}

// TestDualAddress checks that of two delivery lines, a street address and a
// PO box, the one just above the last line is the delivery address that is
// analysed (Publication 28 215), and that both are standardized.
func TestDualAddress(t *testing.T) {
	for _, c := range []struct {
		line1, line2, want1, want2, record string
	}{
		{"PO Box 233", "5023 West 120th Avenue", "PO BOX 233", "5023 W 120TH AVE", "street"},
		{"5023 West 120th Avenue", "PO Box 233", "5023 W 120TH AVE", "PO BOX 233", "poBox"},
	} {
		in := Input{Address: usps.Address{Line1: c.line1, Line2: c.line2, City: "Broomfield", State: "CO", ZIP: "80023"}, Casing: usps.Upper}
		r := Process(in)
		if r.Address.Line1 != c.want1 || r.Address.Line2 != c.want2 {
			t.Errorf("%q / %q: lines %q / %q, want %q / %q", c.line1, c.line2, r.Address.Line1, r.Address.Line2, c.want1, c.want2)
		}
		if r.Analysis.DpvMatchCode != DPVConfirmed || r.Metadata.RecordType != c.record {
			t.Errorf("%q / %q: match %q, record type %q; want %q, %q", c.line1, c.line2, r.Analysis.DpvMatchCode, r.Metadata.RecordType, DPVConfirmed, c.record)
		}
	}
}

// TestPrivateMailbox checks that a private mailbox at a street address is a
// commercial mail receiving agency's (dpvCmra Y, footnote RR), and that one
// written with a PO box is not: Publication 28 284 puts it on a line above
// the box, and the box, which only the Postal Service delivers, is the
// delivery point analysed.
func TestPrivateMailbox(t *testing.T) {
	for _, c := range []struct {
		line1, line2, want1, want2, cmra string
	}{
		{"123 Main St", "PMB 12", "123 MAIN ST PMB 12", "", "Y"},
		{"PO Box 5", "PMB 12", "PMB 12", "PO BOX 5", "N"},
		{"PO Box 5 PMB 12", "", "PMB 12", "PO BOX 5", "N"},
	} {
		in := Input{Address: usps.Address{Line1: c.line1, Line2: c.line2, City: "Springfield", State: "IL", ZIP: "62701"}, Casing: usps.Upper}
		r := Process(in)
		if r.Address.Line1 != c.want1 || r.Address.Line2 != c.want2 {
			t.Errorf("%q / %q: lines %q / %q, want %q / %q", c.line1, c.line2, r.Address.Line1, r.Address.Line2, c.want1, c.want2)
		}
		if r.Analysis.DpvMatchCode != DPVConfirmed || r.Analysis.DpvCmra != c.cmra || slices.Contains(r.Analysis.DpvFootnotes, "RR") != (c.cmra == "Y") {
			t.Errorf("%q / %q: match %q, cmra %q, footnotes %v; want %q, cmra %q", c.line1, c.line2,
				r.Analysis.DpvMatchCode, r.Analysis.DpvCmra, r.Analysis.DpvFootnotes, DPVConfirmed, c.cmra)
		}
	}
}
