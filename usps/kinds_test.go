package usps_test

import (
	"testing"

	"github.com/lettershop/lettershop/usps"
)

// kindCase is an address of one of Publication 28's kinds (military,
// general delivery, rural route, highway contract, PO box, Puerto Rico,
// grid, fractional and hyphenated house numbers, secondary units): the
// lines written, the lines the publication prints, and the kind of the
// delivery line.
type kindCase struct {
	section      string
	state        string
	line1, line2 string
	want1, want2 string
	wantUrb      string
	kind         usps.LineKind
}

func checkKinds(t *testing.T, cases []kindCase) {
	t.Helper()
	for _, c := range cases {
		got := usps.Standardize(usps.Address{Line1: c.line1, Line2: c.line2, State: c.state}, usps.Upper)
		if got.Line1 != c.want1 || got.Line2 != c.want2 || got.Urbanization != c.wantUrb {
			t.Errorf("%s: Standardize(%q / %q, %s) = %q / %q ~ %q, want %q / %q ~ %q", c.section, c.line1, c.line2, c.state,
				got.Line1, got.Line2, got.Urbanization, c.want1, c.want2, c.wantUrb)
		}
		if k := usps.DeliveryLineOf(got).Kind; k != c.kind {
			t.Errorf("%s: %q / %q is a %s line, want %s", c.section, c.line1, c.line2, k, c.kind)
		}
		if again := usps.Standardize(got, usps.Upper); again != got {
			t.Errorf("%s: standardizing %+v again gave %+v", c.section, got, again)
		}
	}
}

// TestGeneralDelivery checks Publication 28 261: the words GENERAL
// DELIVERY, spelled out, are the whole Delivery Address Line, so an
// abbreviation of them is spelled out; the words inside a street line, or
// with a number after them, are no general delivery.
func TestGeneralDelivery(t *testing.T) {
	checkKinds(t, []kindCase{
		{section: "261", line1: "General Delivery", want1: "GENERAL DELIVERY", kind: usps.LineGeneralDelivery},
		{section: "261", line1: "GEN DEL", want1: "GENERAL DELIVERY", kind: usps.LineGeneralDelivery},
		{section: "261", line1: "Gen. Del.", want1: "GENERAL DELIVERY", kind: usps.LineGeneralDelivery},
		{section: "261", line1: "General Del", want1: "GENERAL DELIVERY", kind: usps.LineGeneralDelivery},
		{section: "261", line1: "Gen Delivery", want1: "GENERAL DELIVERY", kind: usps.LineGeneralDelivery},
		// The other side: a street of that name, a number after the words,
		// and GEN alone stay as written.
		{section: "261", line1: "123 Gen Del", want1: "123 GEN DEL", kind: usps.LineStreet},
		{section: "261", line1: "Gen Del Ln", want1: "GEN DEL LN", kind: usps.LineStreet},
		{section: "261", line1: "Gen Del 5", want1: "GEN DEL 5", kind: usps.LineStreet},
		{section: "261", line1: "Gen", want1: "GEN", kind: usps.LineStreet},
	})
}

// TestMilitary checks Publication 28 225: a military Delivery Address
// Line is UNIT, CMR or PSC with its number and the box number, as written
// (the box keeps its zeros); a unit after a street stays a street's unit.
func TestMilitary(t *testing.T) {
	checkKinds(t, []kindCase{
		{section: "225", state: "AE", line1: "psc 802 box 74", want1: "PSC 802 BOX 74", kind: usps.LineMilitary},
		{section: "225", state: "AP", line1: "Unit 2050 Box 4190", want1: "UNIT 2050 BOX 4190", kind: usps.LineMilitary},
		{section: "225", state: "AE", line1: "UNIT 9900 BOX 0500", want1: "UNIT 9900 BOX 0500", kind: usps.LineMilitary},
		{section: "225", state: "AA", line1: "CMR 450 Box 123", want1: "CMR 450 BOX 123", kind: usps.LineMilitary},
		{section: "225", state: "AE", line1: "PSC 3 BOX NUMBER 4120", want1: "PSC 3 BOX 4120", kind: usps.LineMilitary},
		{section: "225", line1: "123 Main St Unit 2050", want1: "123 MAIN ST UNIT 2050", kind: usps.LineStreet},
	})
}

// TestRuralRoutesAndHighwayContracts checks Publication 28 241-245 and
// 251-255: RR and HC with the route and box numbers, without RURAL,
// NUMBER, NO. or #, RFD and RD (rural delivery) as RR, and any other
// designation on a line above the route.
func TestRuralRoutesAndHighwayContracts(t *testing.T) {
	checkKinds(t, []kindCase{
		// 241 and 244: RD with a route number and a box written with the
		// pound sign is rural delivery; RD and a number alone, or after a
		// house number, is a road (Appendix F).
		{section: "244", line1: "RD 51 # 25", want1: "RR 51 BOX 25", kind: usps.LineRuralRoute},
		{section: "244", line1: "RD61 # 87b", want1: "RR 61 BOX 87B", kind: usps.LineRuralRoute},
		{section: "244", line1: "RD 51", want1: "ROAD 51", kind: usps.LineStreet},
		{section: "244", line1: "123 RD 51 # 25", want1: "123 ROAD 51 # 25", kind: usps.LineStreet},
		{section: "244", line1: "RD 5A # 2", want1: "ROAD 5A # 2", kind: usps.LineStreet},
		// 244: RFD written onto its number.
		{section: "244", line1: "RFD4 BOX12", want1: "RR 4 BOX 12", kind: usps.LineRuralRoute},
		{section: "244", line1: "123 RFD4 Rd", want1: "123 RFD4 RD", kind: usps.LineStreet},
		// 241 and 251: no NUMBER, NO. or # before the box number either.
		{section: "241", line1: "RFD 82 BOX NUMBER 12", want1: "RR 82 BOX 12", kind: usps.LineRuralRoute},
		{section: "241", line1: "Rural Route 91 Box Num. A7", want1: "RR 91 BOX A7", kind: usps.LineRuralRoute},
		{section: "251", line1: "HC 4 Box No. 12", want1: "HC 4 BOX 12", kind: usps.LineHighwayContract},
		{section: "241", line1: "RR 2 BOX NUMBER", want1: "RR 2 BOX NUMBER", kind: usps.LineStreet},
		// 245 and 255: a street name written on the route line goes above
		// it, after a box written with # as after BOX.
		{section: "245", line1: "RR0061 #87b Bryan Dairy Rd", want1: "BRYAN DAIRY RD", want2: "RR 61 BOX 87B", kind: usps.LineRuralRoute},
		{section: "255", line1: "HC 3 # 12 Mesa Rd", want1: "MESA RD", want2: "HC 3 BOX 12", kind: usps.LineHighwayContract},
		{section: "245", line1: "RD 4 # 5 Main St", want1: "MAIN ST", want2: "RR 4 BOX 5", kind: usps.LineRuralRoute},
		{section: "245", line1: "RR0061 #87b", want1: "RR 61 BOX 87B", kind: usps.LineRuralRoute},
		{section: "245", line1: "12 Route 2 # 18", want1: "12 ROUTE 2 # 18", kind: usps.LineStreet},
		// 245 and 255: a designation written on the line below the route
		// goes above it; a unit joins the route line, a ZIP Code stays.
		{section: "245", state: "PR", line1: "RR 2 BOX 1980", line2: "Sector El Brinco", want1: "SECTOR EL BRINCO", want2: "RR 2 BOX 1980", kind: usps.LineRuralRoute},
		{section: "255", line1: "HC 68 Box 23A", line2: "Mesa Ranch", want1: "MESA RANCH", want2: "HC 68 BOX 23A", kind: usps.LineHighwayContract},
		{section: "245", line1: "RR 2 BOX 5", line2: "Apt 4", want1: "RR 2 BOX 5 APT 4", kind: usps.LineRuralRoute},
		{section: "245", line1: "123 Main St", line2: "Acme Corp", want1: "123 MAIN ST", want2: "ACME CORP", kind: usps.LineStreet},
		{section: "254", line1: "Star Rt 68 Box 23A", want1: "HC 68 BOX 23A", kind: usps.LineHighwayContract},
		// 251: HCR with its R written apart is HC, as R R is RR; a lone R
		// is no route word, and HC R without a route number no route.
		{section: "251", line1: "HC R 32 Box # e3", want1: "HC 32 BOX E3", kind: usps.LineHighwayContract},
		{section: "251", line1: "HC R 4C Box 54", want1: "HC 4C BOX 54", kind: usps.LineHighwayContract},
		{section: "251", line1: "R 2 Box 274", want1: "R 2 BOX 274", kind: usps.LineStreet},
		{section: "251", line1: "HC R Box 5", want1: "HC R BOX 5", kind: usps.LineStreet},
	})
	// A ZIP Code written alone below the route is no designation: it stays.
	checkLines(t, []lineCase{{"RR 2 BOX 1980", "62701", "RR 2 BOX 1980", "62701"}})
}

// TestPOBoxKinds checks Publication 28 281-283: a box numbered by a letter
// or with a hyphen keeps it, and the designations are PO BOX; BOX alone
// before a word is a street.
func TestPOBoxKinds(t *testing.T) {
	checkKinds(t, []kindCase{
		{section: "281", line1: "Post Office Box G", want1: "PO BOX G", kind: usps.LinePOBox},
		{section: "281", line1: "PO Box G-12", want1: "PO BOX G-12", kind: usps.LinePOBox},
		{section: "283", line1: "Drawer S", want1: "PO BOX S", kind: usps.LinePOBox},
		{section: "283", line1: "Firm Caller 11890", want1: "PO BOX 11890", kind: usps.LinePOBox},
		{section: "281", line1: "12 Box Hill Rd", want1: "12 BOX HILL RD", kind: usps.LineStreet},
		// 281: POSTAL BOX is a PO box as POST BOX is; POSTAL before any
		// other word is a word of a name.
		{section: "281", line1: "Postal Box 1836", want1: "PO BOX 1836", kind: usps.LinePOBox},
		{section: "281", line1: "12 Postal Rd", want1: "12 POSTAL RD", kind: usps.LineStreet},
		// 215: a street and a PO box on one line go on a line each, also
		// when a comma or a slash joins them; a slash inside a name or a
		// fraction stays, and BOX without PO after a street stays on it.
		{section: "215", line1: "2225 coyote loop, postal box 1836", want1: "2225 COYOTE LOOP", want2: "PO BOX 1836", kind: usps.LinePOBox},
		{section: "215", line1: "137 NW 17th Ave/po box 607", want1: "137 NW 17TH AVE", want2: "PO BOX 607", kind: usps.LinePOBox},
		{section: "215", line1: "137 NW 17th Ave/Po Rd", want1: "137 NW 17TH AVE/PO RD", kind: usps.LineStreet},
		{section: "215", line1: "57186 M/V Australia Lane", want1: "57186 M/V AUSTRALIA LN", kind: usps.LineStreet},
		{section: "215", line1: "123 1/2 Main St/PO", want1: "123 1/2 MAIN ST/PO", kind: usps.LineStreet},
		{section: "215", line1: "57186 Australia Lane, Box 150", want1: "57186 AUSTRALIA LANE BOX 150", kind: usps.LineStreet},
	})
}

// TestHouseNumberKinds checks Publication 28 232 and Appendix D: a
// fractional, hyphenated (Queens) or grid house number is kept as written,
// a Wisconsin grid number in two words is one, while a hyphen in the
// street name is a space.
func TestHouseNumberKinds(t *testing.T) {
	checkKinds(t, []kindCase{
		{section: "D", line1: "123 1/2 Main St", want1: "123 1/2 MAIN ST", kind: usps.LineStreet},
		{section: "D", line1: "61-20 East River Drive", want1: "61-20 E RIVER DR", kind: usps.LineStreet},
		{section: "D", line1: "9018–10 West Bronx Road", want1: "9018-10 W BRONX RD", kind: usps.LineStreet},
		{section: "232", line1: "289-01 Mid-Island Plz", want1: "289-01 MID ISLAND PLZ", kind: usps.LineStreet},
		{section: "D", line1: "N6 W23001 Bluemound Rd", want1: "N6W23001 BLUEMOUND RD", kind: usps.LineStreet},
		{section: "D", line1: "1016 East 1700 South", want1: "1016 E 1700 S", kind: usps.LineStreet},
		{section: "D", line1: "8401 W 35W", want1: "8401 W 35W", kind: usps.LineStreet},
	})
}

// TestPuertoRicoUrbanization checks Publication 28 29x: in Puerto Rico an
// urbanization written on the street line goes on a line of its own and
// is the address's urbanization; elsewhere the line is kept and there is
// no urbanization.
func TestPuertoRicoUrbanization(t *testing.T) {
	checkKinds(t, []kindCase{
		{section: "291", state: "PR", line1: "Urb Las Gladiolas 150 Calle A", want1: "URB LAS GLADIOLAS", want2: "150 CALLE A", wantUrb: "URB LAS GLADIOLAS", kind: usps.LineStreet},
		{section: "291", state: "PR", line1: "Urbanization Golden Gate", want1: "URB GOLDEN GATE", wantUrb: "URB GOLDEN GATE", kind: usps.LineStreet},
		{section: "291", state: "IL", line1: "URB LAS GLADIOLAS", line2: "150 CALLE A", want1: "URB LAS GLADIOLAS", want2: "150 CALLE A", kind: usps.LineStreet},
	})
}

// TestLeadingUnitsKeepTheirOrder checks Publication 28 213: units written
// before the house number go to the end of the line, before the units
// written after the street, so their order is the one written; a unit
// written with the pound sign alone stays last, where after another unit
// it is the private mailbox.
func TestLeadingUnitsKeepTheirOrder(t *testing.T) {
	checkKinds(t, []kindCase{
		{section: "213", line1: "Unit 3200 152 Tech Dr Upper", want1: "152 TECH DR UNIT 3200 UPPR", kind: usps.LineStreet},
		{section: "213", line1: "Unit 3200 152 Tech Dr Room 12", want1: "152 TECH DR UNIT 3200 RM 12", kind: usps.LineStreet},
		{section: "213", line1: "Suite 200 123 Main St Apt 5", want1: "123 MAIN ST STE 200 APT 5", kind: usps.LineStreet},
		{section: "213", line1: "Rear 123 Main St Apt 2", want1: "123 MAIN ST REAR APT 2", kind: usps.LineStreet},
		{section: "213", line1: "152 Tech Dr Upper Unit 3200", want1: "152 TECH DR UPPR UNIT 3200", kind: usps.LineStreet},
		{section: "213", line1: "#42 233 S Wacker Dr Ste 5", want1: "233 S WACKER DR STE 5 PMB 42", kind: usps.LineStreet},
	})
}
