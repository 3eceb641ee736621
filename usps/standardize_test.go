package usps_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop/usps"
)

type stdCase struct {
	name                            string
	line1, line2, last, urb         string
	casing                          usps.Casing
	want1, want2, wantLast, urbWant string
	line                            usps.DeliveryLine
}

func street(primary, pre, name, suffix, post string, secs ...usps.Secondary) usps.DeliveryLine {
	return usps.DeliveryLine{Kind: usps.LineStreet, PrimaryNumber: primary, Predirectional: pre,
		StreetName: name, Suffix: suffix, Postdirectional: post, Secondaries: secs}
}

func sec(designator, number string) usps.Secondary {
	return usps.Secondary{Designator: designator, Number: number}
}

func box(kind usps.LineKind, route, number, box string) usps.DeliveryLine {
	return usps.DeliveryLine{Kind: kind, RouteType: route, RouteNumber: number, BoxNumber: box}
}

const spfd = "Springfield, IL 62701"

// standardizeCases are real-world address forms and their Publication 28
// standard forms.
var standardizeCases = []stdCase{
	{name: "suffix spelled out", line1: "123 Main Street", last: spfd, want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "")},
	{name: "lower case and periods", line1: "123 main st.", last: "springfield il 62701-1234", want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701-1234", line: street("123", "", "MAIN", "ST", "")},
	{name: "predirectional", line1: "123 North Main Street", last: spfd, want1: "123 N MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "N", "MAIN", "ST", "")},
	{name: "postdirectional", line1: "123 Main Street North", last: spfd, want1: "123 MAIN ST N", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "N")},
	{name: "two-letter postdirectional", line1: "1600 Pennsylvania Avenue NW", last: "Washington, DC 20500", want1: "1600 PENNSYLVANIA AVE NW", wantLast: "WASHINGTON DC 20500", line: street("1600", "", "PENNSYLVANIA", "AVE", "NW")},
	{name: "dotted initials", line1: "1600 Pennsylvania Ave. N.W.", last: "Washington, D.C. 20500", want1: "1600 PENNSYLVANIA AVE NW", wantLast: "WASHINGTON DC 20500", line: street("1600", "", "PENNSYLVANIA", "AVE", "NW")},
	{name: "spelled-out compound directional", line1: "500 Northwest Broadway", last: "Portland OR 97209", want1: "500 NW BROADWAY", wantLast: "PORTLAND OR 97209", line: street("500", "NW", "BROADWAY", "", "")},
	{name: "apartment on the line", line1: "123 Main St Apt 4B", last: spfd, want1: "123 MAIN ST APT 4B", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "4B"))},
	{name: "apartment on line 2 joined", line1: "123 Main St", line2: "Apt. 4B", last: spfd, want1: "123 MAIN ST APT 4B", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "4B"))},
	{name: "suite on line 2", line1: "123 Main St", line2: "Suite 100", last: spfd, want1: "123 MAIN ST STE 100", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("STE", "100"))},
	{name: "bare unit number on line 2", line1: "2309 SW 1st Ave", line2: "845", last: spfd, want1: "2309 SW 1ST AVE # 845", wantLast: "SPRINGFIELD IL 62701", line: street("2309", "SW", "1ST", "AVE", "", sec("#", "845"))},
	{name: "bare unit letter on line 2", line1: "18234 SE Division St", line2: "B", last: spfd, want1: "18234 SE DIVISION ST # B", wantLast: "SPRINGFIELD IL 62701", line: street("18234", "SE", "DIVISION", "ST", "", sec("#", "B"))},
	{name: "bare hyphened unit on line 2", line1: "201 N Lotus Beach Dr", line2: "B-58", last: spfd, want1: "201 N LOTUS BEACH DR # B-58", wantLast: "SPRINGFIELD IL 62701", line: street("201", "N", "LOTUS BEACH", "DR", "", sec("#", "B-58"))},
	{name: "pound sign unit", line1: "123 Main St #5", last: spfd, want1: "123 MAIN ST # 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("#", "5"))},
	{name: "designator and pound sign", line1: "123 Main St Apt #5", last: spfd, want1: "123 MAIN ST APT 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "5"))},
	{name: "ordinal floor", line1: "123 Main St", line2: "3rd Floor", last: spfd, want1: "123 MAIN ST FL 3", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("FL", "3"))},
	{name: "ordinal floor spelled out", line1: "30 West 26th Street Sixth Floor", last: spfd, want1: "30 W 26TH ST FL 6", wantLast: "SPRINGFIELD IL 62701", line: street("30", "W", "26TH", "ST", "", sec("FL", "6"))},
	{name: "ordinal floor spelled out on a unit line", line1: "123 Main St", line2: "Second Floor", last: spfd, want1: "123 MAIN ST FL 2", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("FL", "2"))},
	{name: "floor and a spelled-out ordinal", line1: "123 Main St Fl Twelfth", last: spfd, want1: "123 MAIN ST FL 12", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("FL", "12"))},
	{name: "a spelled-out ordinal street stays", line1: "800 Sixth Ave", last: spfd, want1: "800 SIXTH AVE", wantLast: "SPRINGFIELD IL 62701", line: street("800", "", "SIXTH", "AVE", "")},
	{name: "unit without number: rear", line1: "123 Main St Rear", last: spfd, want1: "123 MAIN ST REAR", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("REAR", ""))},
	{name: "penthouse", line1: "123 Main Street Penthouse", last: spfd, want1: "123 MAIN ST PH", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("PH", ""))},
	{name: "penthouse after a street without a suffix", line1: "1050 Broadway Penthouse", last: spfd, want1: "1050 BROADWAY PH", wantLast: "SPRINGFIELD IL 62701", line: street("1050", "", "BROADWAY", "", "", sec("PH", ""))},
	{name: "basement with its number after a street without a suffix", line1: "1050 Broadway Basement 2", last: spfd, want1: "1050 BROADWAY BSMT 2", wantLast: "SPRINGFIELD IL 62701", line: street("1050", "", "BROADWAY", "", "", sec("BSMT", "2"))},
	{name: "lobby after a street without a suffix", line1: "1050 Broadway Lobby", last: spfd, want1: "1050 BROADWAY LBBY", wantLast: "SPRINGFIELD IL 62701", line: street("1050", "", "BROADWAY", "", "", sec("LBBY", ""))},
	{name: "a unit word that ends street names stays after a street without a suffix", line1: "100 Ocean Front", last: spfd, want1: "100 OCEAN FRONT", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "OCEAN FRONT", "", "")},
	{name: "unit without number before the house number", line1: "Rear 123 Main St", last: spfd, want1: "123 MAIN ST REAR", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("REAR", ""))},
	{name: "rear of a house number", line1: "Rear of 123 Main Street NW", last: spfd, want1: "123 MAIN ST NW REAR", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "NW", sec("REAR", ""))},
	{name: "unit between the house number and the street", line1: "123 Unit B Main Street NW", last: spfd, want1: "123 MAIN ST NW UNIT B", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "NW", sec("UNIT", "B"))},
	{name: "apartment between the house number and the street", line1: "123 Apt. 4 Main St", last: spfd, want1: "123 MAIN ST APT 4", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "4"))},
	{name: "a unit word that begins street names stays after the house number", line1: "123 Upper Main St", last: spfd, want1: "123 UPPER MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "UPPER MAIN", "ST", "")},
	{name: "a street named unit stays", line1: "111-123 Unit St", last: spfd, want1: "111-123 UNIT ST", wantLast: "SPRINGFIELD IL 62701", line: street("111-123", "", "UNIT", "ST", "")},
	{name: "a pier and its number after the house number stay the street", line1: "12 Pier 39 Way", last: spfd, want1: "12 PIER 39 WAY", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "PIER 39", "WAY", "")},
	{name: "P.O run into Box", line1: "P.OBox 884", last: spfd, want1: "PO BOX 884", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "884"}},
	{name: "house number range written with an en dash", line1: "112–10 Bronx Rd", last: spfd, want1: "112-10 BRONX RD", wantLast: "SPRINGFIELD IL 62701", line: street("112-10", "", "BRONX", "RD", "")},
	{name: "ordinal floor joined to FL by a hyphen", line1: "901 Main St 16th-Fl", last: spfd, want1: "901 MAIN ST FL 16", wantLast: "SPRINGFIELD IL 62701", line: street("901", "", "MAIN", "ST", "", sec("FL", "16"))},
	{name: "a designator without its number before another unit", line1: "120 Jasper Pl Apt 2nd Fl", last: spfd, want1: "120 JASPER PL FL 2", wantLast: "SPRINGFIELD IL 62701", line: street("120", "", "JASPER", "PL", "", sec("FL", "2"))},
	{name: "a designator written again before its packed number", line1: "4475 24th St Apt APT1", last: spfd, want1: "4475 24TH ST APT 1", wantLast: "SPRINGFIELD IL 62701", line: street("4475", "", "24TH", "ST", "", sec("APT", "1"))},
	{name: "a unit written twice", line1: "3828 23rd St Apt A APT A", last: spfd, want1: "3828 23RD ST APT A", wantLast: "SPRINGFIELD IL 62701", line: street("3828", "", "23RD", "ST", "", sec("APT", "A"))},
	{name: "two different units stay", line1: "100 Main St Bldg 2 Apt 5", last: spfd, want1: "100 MAIN ST BLDG 2 APT 5", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "MAIN", "ST", "", sec("BLDG", "2"), sec("APT", "5"))},
	{name: "unit above the street line", line1: "Apt 5", line2: "123 Main St", last: spfd, want1: "123 MAIN ST APT 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "5"))},
	{name: "firm above the street line", line1: "Acme Corp.", line2: "123 Main St., Suite 200", last: spfd, want1: "ACME CORP", want2: "123 MAIN ST STE 200", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("STE", "200"))},
	{name: "two units", line1: "123 Main St, Bldg 2, Apt 5", last: spfd, want1: "123 MAIN ST BLDG 2 APT 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("BLDG", "2"), sec("APT", "5"))},
	{name: "trailer", line1: "123 Main St Trailer 5", last: spfd, want1: "123 MAIN ST TRLR 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("TRLR", "5"))},
	{name: "lot", line1: "45 Pine Ridge Rd Lot 12", last: spfd, want1: "45 PINE RIDGE RD LOT 12", wantLast: "SPRINGFIELD IL 62701", line: street("45", "", "PINE RIDGE", "RD", "", sec("LOT", "12"))},
	{name: "designator without its number", line1: "123 Main St Apt", last: spfd, want1: "123 MAIN ST APT", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", ""))},
	{name: "suite and private mailbox", line1: "123 Main St Ste 100 PMB 12", last: spfd, want1: "123 MAIN ST STE 100 PMB 12", wantLast: "SPRINGFIELD IL 62701",
		line: usps.DeliveryLine{PrimaryNumber: "123", StreetName: "MAIN", Suffix: "ST", Secondaries: []usps.Secondary{sec("STE", "100")}, PMB: "12"}},
	{name: "private mailbox spelled out", line1: "123 Main St", line2: "Private Mailbox 12", last: spfd, want1: "123 MAIN ST PMB 12", wantLast: "SPRINGFIELD IL 62701",
		line: usps.DeliveryLine{PrimaryNumber: "123", StreetName: "MAIN", Suffix: "ST", PMB: "12"}},
	{name: "PO box with periods", line1: "P.O. Box 1234", last: spfd, want1: "PO BOX 1234", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "1234"}},
	{name: "post office box", line1: "Post Office Box 1234", last: spfd, want1: "PO BOX 1234", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "1234"}},
	{name: "POB", line1: "POB 1234", last: spfd, want1: "PO BOX 1234", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "1234"}},
	{name: "box alone", line1: "Box 1234", last: spfd, want1: "PO BOX 1234", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "1234"}},
	{name: "PO box with pound sign", line1: "PO Box #1234", last: spfd, want1: "PO BOX 1234", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "1234"}},
	{name: "PO box without number", line1: "PO Box", last: spfd, want1: "PO BOX", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox}},
	{name: "street named Box", line1: "12 Box Elder Ln", last: spfd, want1: "12 BOX ELDER LN", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "BOX ELDER", "LN", "")},
	{name: "rural route spelled out", line1: "Rural Route 2 Box 45", last: "Chatham IL 62629", want1: "RR 2 BOX 45", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "2", "45")},
	{name: "rural route with periods and comma", line1: "R.R. 2, Box 45", last: "Chatham IL 62629", want1: "RR 2 BOX 45", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "2", "45")},
	{name: "rural free delivery", line1: "RFD 2 Box 45", last: "Chatham IL 62629", want1: "RR 2 BOX 45", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "2", "45")},
	{name: "route and box", line1: "Route 2 Box 45", last: "Chatham IL 62629", want1: "RR 2 BOX 45", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "2", "45")},
	{name: "rural route joined number", line1: "RR2 Box 45", last: "Chatham IL 62629", want1: "RR 2 BOX 45", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "2", "45")},
	{name: "highway contract", line1: "Highway Contract 5 Box 12", last: "Ely NV 89301", want1: "HC 5 BOX 12", wantLast: "ELY NV 89301", line: box(usps.LineHighwayContract, "HC", "5", "12")},
	{name: "star route", line1: "Star Route 5, Box 12", last: "Ely NV 89301", want1: "HC 5 BOX 12", wantLast: "ELY NV 89301", line: box(usps.LineHighwayContract, "HC", "5", "12")},
	{name: "military postal service center", line1: "PSC 802 Box 74", last: "APO AE 09499-0074", want1: "PSC 802 BOX 74", wantLast: "APO AE 09499-0074", line: box(usps.LineMilitary, "PSC", "802", "74")},
	{name: "military unit", line1: "Unit 2050 Box 4190", last: "APO, AP 96278", want1: "UNIT 2050 BOX 4190", wantLast: "APO AP 96278", line: box(usps.LineMilitary, "UNIT", "2050", "4190")},
	{name: "military CMR", line1: "cmr 450 box 123", last: "apo ae 09045", want1: "CMR 450 BOX 123", wantLast: "APO AE 09045", line: box(usps.LineMilitary, "CMR", "450", "123")},
	{name: "ship", line1: "USS Nimitz (CVN 68)", last: "FPO AP 96620", want1: "USS NIMITZ CVN 68", wantLast: "FPO AP 96620",
		line: usps.DeliveryLine{Kind: usps.LineMilitary, RouteType: "USS", StreetName: "NIMITZ CVN 68"}},
	{name: "general delivery", line1: "General Delivery", last: "Juneau AK 99801", want1: "GENERAL DELIVERY", wantLast: "JUNEAU AK 99801", line: usps.DeliveryLine{Kind: usps.LineGeneralDelivery}},
	{name: "unit before the house number", line1: "Suite 200, 123 Main Street", last: spfd, want1: "123 MAIN ST STE 200", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("STE", "200"))},
	{name: "abbreviated avenue named by a letter", line1: "123 W. Ave. J", last: "Lancaster CA 93534", want1: "123 W AVENUE J", wantLast: "LANCASTER CA 93534", line: street("123", "W", "AVENUE J", "", "")},
	{name: "suffix word as street type prefix", line1: "123 Avenue B", last: "New York NY 10009", want1: "123 AVENUE B", wantLast: "NEW YORK NY 10009", line: street("123", "", "AVENUE B", "", "")},
	{name: "street named by a letter", line1: "123 N St NW", last: "Washington DC 20001", want1: "123 N ST NW", wantLast: "WASHINGTON DC 20001", line: street("123", "", "N", "ST", "NW")},
	{name: "directional as the name", line1: "123 North Avenue", last: spfd, want1: "123 NORTH AVE", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "NORTH", "AVE", "")},
	{name: "two directionals", line1: "123 East West Highway", last: "Bethesda MD 20814", want1: "123 E WEST HWY", wantLast: "BETHESDA MD 20814", line: street("123", "E", "WEST", "HWY", "")},
	{name: "numbered highway", line1: "123 Hwy 66", last: spfd, want1: "123 HIGHWAY 66", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "HIGHWAY 66", "", "")},
	{name: "US highway", line1: "123 US Hwy 1", last: "Jupiter FL 33477", want1: "123 US HIGHWAY 1", wantLast: "JUPITER FL 33477", line: street("123", "", "US HIGHWAY 1", "", "")},
	{name: "county road", line1: "123 County Rd 12", last: spfd, want1: "123 COUNTY ROAD 12", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "COUNTY ROAD 12", "", "")},
	{name: "county road abbreviated", line1: "123 CR 12", last: spfd, want1: "123 COUNTY ROAD 12", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "COUNTY ROAD 12", "", "")},
	{name: "state route", line1: "123 State Rte 9", last: "Dublin OH 43017", want1: "123 STATE ROUTE 9", wantLast: "DUBLIN OH 43017", line: street("123", "", "STATE ROUTE 9", "", "")},
	{name: "state route abbreviated", line1: "123 SR 9", last: "Dublin OH 43017", want1: "123 STATE ROUTE 9", wantLast: "DUBLIN OH 43017", line: street("123", "", "STATE ROUTE 9", "", "")},
	{name: "interstate", line1: "4500 I-95", last: "Jupiter FL 33477", want1: "4500 INTERSTATE 95", wantLast: "JUPITER FL 33477", line: street("4500", "", "INTERSTATE 95", "", "")},
	{name: "highway as suffix", line1: "123 Old Highway", last: spfd, want1: "123 OLD HWY", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "OLD", "HWY", "")},
	{name: "Wisconsin grid number", line1: "N123W456 Main St", last: "Milwaukee WI 53201", want1: "N123W456 MAIN ST", wantLast: "MILWAUKEE WI 53201", line: street("N123W456", "", "MAIN", "ST", "")},
	{name: "Queens hyphenated number", line1: "123-45 Queens Blvd.", last: "Forest Hills NY 11375", want1: "123-45 QUEENS BLVD", wantLast: "FOREST HILLS NY 11375", line: street("123-45", "", "QUEENS", "BLVD", "")},
	{name: "fractional number", line1: "123 1/2 Main St", last: spfd, want1: "123 1/2 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123 1/2", "", "MAIN", "ST", "")},
	{name: "spelled-out number", line1: "One Microsoft Way", last: "Redmond WA 98052", want1: "1 MICROSOFT WAY", wantLast: "REDMOND WA 98052", line: street("1", "", "MICROSOFT", "WAY", "")},
	{name: "spelled-out number of hundreds", line1: "Two Hundred S. Alloy Drive", last: spfd, want1: "200 S ALLOY DR", wantLast: "SPRINGFIELD IL 62701", line: street("200", "S", "ALLOY", "DR", "")},
	{name: "spelled-out number of thousands with and", line1: "One Thousand And Fifty Nine Main St", last: spfd, want1: "1059 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("1059", "", "MAIN", "ST", "")},
	{name: "spelled-out number of tens and units", line1: "Twenty Five Main St", last: spfd, want1: "25 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("25", "", "MAIN", "ST", "")},
	{name: "spelled-out hundreds and units", line1: "Three hundred four Elm Street", last: spfd, want1: "304 ELM ST", wantLast: "SPRINGFIELD IL 62701", line: street("304", "", "ELM", "ST", "")},
	{name: "a spelled-out number that is the whole line stays", line1: "Two Hundred", last: spfd, want1: "TWO HUNDRED", wantLast: "SPRINGFIELD IL 62701", line: street("", "", "TWO HUNDRED", "", "")},
	{name: "a house number spelled out in one word that is a ten", line1: "Fifty N. Front St.", last: "Memphis TN 38103", want1: "50 N FRONT ST", wantLast: "MEMPHIS TN 38103", line: street("50", "N", "FRONT", "ST", "")},
	{name: "a house number spelled out in one word that is a teen", line1: "Eleven Elm Street", last: spfd, want1: "11 ELM ST", wantLast: "SPRINGFIELD IL 62701", line: street("11", "", "ELM", "ST", "")},
	{name: "a one-word spelled-out number that is the whole line stays", line1: "Fifty", last: spfd, want1: "FIFTY", wantLast: "SPRINGFIELD IL 62701", line: street("", "", "FIFTY", "", "")},
	{name: "grid street of three digits with its directional packed on", line1: "511 S 300W", last: "Salt Lake City UT 84101", want1: "511 S 300 W", wantLast: "SALT LAKE CITY UT 84101", line: street("511", "S", "300", "", "W")},
	{name: "a number of two digits with a letter on it is a road's name", line1: "8401 W 35W", last: "Blaine MN 55449", want1: "8401 W 35W", wantLast: "BLAINE MN 55449", line: street("8401", "W", "35W", "", "")},
	{name: "two-digit grid street after a packed grid house number", line1: "48S 40E", last: "Salt Lake City UT 84101", want1: "48 S 40 E", wantLast: "SALT LAKE CITY UT 84101", line: street("48", "S", "40", "", "E")},
	{name: "a lone letter after the postdirectional is a unit", line1: "720 10th Ave SW A", last: "Mount Vernon IA 52314", want1: "720 10TH AVE SW # A", wantLast: "MOUNT VERNON IA 52314", line: street("720", "", "10TH", "AVE", "SW", sec("#", "A"))},
	{name: "a lone letter after the suffix is a unit", line1: "100 Main St A", last: spfd, want1: "100 MAIN ST # A", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "MAIN", "ST", "", sec("#", "A"))},
	{name: "a directional letter after the suffix is the postdirectional", line1: "100 Main St N", last: spfd, want1: "100 MAIN ST N", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "MAIN", "ST", "N")},
	{name: "a letter after a directional and a suffix word names the street", line1: "100 N Ave A", last: spfd, want1: "100 N AVENUE A", wantLast: "SPRINGFIELD IL 62701", line: street("100", "N", "AVENUE A", "", "")},
	{name: "a letter written apart from a rural route box number", line1: "rr 4, box 164 a", last: spfd, want1: "RR 4 BOX 164A", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineRuralRoute, "RR", "4", "164A")},
	{name: "a letter written apart from a PO box number", line1: "PO Box 164 A", last: spfd, want1: "PO BOX 164A", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "164A"}},
	{name: "junior in a name", line1: "123 Martin Luther King Jr. Blvd.", last: "Chicago IL 60616", want1: "123 MARTIN LUTHER KING JR BLVD", wantLast: "CHICAGO IL 60616", line: street("123", "", "MARTIN LUTHER KING JR", "BLVD", "")},
	{name: "saint in a street name stays", line1: "123 St. Charles Ave", last: "New Orleans LA 70130", want1: "123 ST CHARLES AVE", wantLast: "NEW ORLEANS LA 70130", line: street("123", "", "ST CHARLES", "AVE", "")},
	{name: "ordinal street", line1: "350 West 42nd Street", last: "New York NY 10036", want1: "350 W 42ND ST", wantLast: "NEW YORK NY 10036", line: street("350", "W", "42ND", "ST", "")},
	{name: "suffix variant", line1: "10 Elm Crt", last: spfd, want1: "10 ELM CT", wantLast: "SPRINGFIELD IL 62701", line: street("10", "", "ELM", "CT", "")},
	{name: "parkway variant", line1: "1600 Amphitheatre Pky", last: "Mountain View CA 94043", want1: "1600 AMPHITHEATRE PKWY", wantLast: "MOUNTAIN VIEW CA 94043", line: street("1600", "", "AMPHITHEATRE", "PKWY", "")},
	{name: "street extension", line1: "9 Main Street Extension", last: spfd, want1: "9 MAIN STREET EXT", wantLast: "SPRINGFIELD IL 62701", line: street("9", "", "MAIN STREET", "EXT", "")},
	{name: "apostrophe", line1: "123 O'Neil Street", last: spfd, want1: "123 ONEIL ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "ONEIL", "ST", "")},
	{name: "extra spaces", line1: "  123   Main    St  ", last: "  Springfield ,  IL   62701 ", want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "")},
	{name: "no house number", line1: "Main Street", last: spfd, want1: "MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("", "", "MAIN", "ST", "")},
	{name: "street without suffix", line1: "123 Broadway", last: "New York NY 10006", want1: "123 BROADWAY", wantLast: "NEW YORK NY 10006", line: street("123", "", "BROADWAY", "", "")},
	{name: "postdirectional spelled out after avenue", line1: "123 Park Avenue South", last: "New York NY 10010", want1: "123 PARK AVE S", wantLast: "NEW YORK NY 10010", line: street("123", "", "PARK", "AVE", "S")},
	{name: "lake shore drive", line1: "123 Lake Shore Drive", last: "Chicago IL 60611", want1: "123 LAKE SHORE DR", wantLast: "CHICAGO IL 60611", line: street("123", "", "LAKE SHORE", "DR", "")},
	{name: "unit word inside a name", line1: "123 Ocean Side", last: "Miami FL 33139", want1: "123 OCEAN SIDE", wantLast: "MIAMI FL 33139", line: street("123", "", "OCEAN SIDE", "", "")},
	{name: "unit word that is the street", line1: "123 Pier 39", last: "San Francisco CA 94133", want1: "123 PIER 39", wantLast: "SAN FRANCISCO CA 94133", line: street("123", "", "PIER 39", "", "")},
	{name: "accents folded", line1: "123 Calle Señorita", last: "San Juan PR 00926", want1: "123 CALLE SENORITA", wantLast: "SAN JUAN PR 00926", line: street("123", "", "CALLE SENORITA", "", "")},
	{name: "care of line kept", line1: "123 Main St", line2: "c/o Jane Doe", last: spfd, want1: "123 MAIN ST", want2: "C/O JANE DOE", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "")},
	{name: "saint in a city", line1: "123 Main St", last: "St. Louis, MO 63101", want1: "123 MAIN ST", wantLast: "SAINT LOUIS MO 63101", line: street("123", "", "MAIN", "ST", "")},
	{name: "fort in a city", line1: "123 Main St", last: "Ft. Worth TX 76102", want1: "123 MAIN ST", wantLast: "FORT WORTH TX 76102", line: street("123", "", "MAIN", "ST", "")},
	{name: "mount in a city", line1: "123 Main St", last: "Mt. Vernon, NY 10550", want1: "123 MAIN ST", wantLast: "MOUNT VERNON NY 10550", line: street("123", "", "MAIN", "ST", "")},
	{name: "direction in a city", line1: "123 Main St", last: "N Las Vegas NV 89030", want1: "123 MAIN ST", wantLast: "NORTH LAS VEGAS NV 89030", line: street("123", "", "MAIN", "ST", "")},
	{name: "leading zero lost", line1: "123 Main St", last: "Boston MA 2108", want1: "123 MAIN ST", wantLast: "BOSTON MA 02108", line: street("123", "", "MAIN", "ST", "")},
	{name: "state name", line1: "123 Main St", last: "Springfield, Illinois 62701", want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "")},
	{name: "old state abbreviation", line1: "123 Main St", last: "Springfield, Ill. 62701", want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "")},
	{name: "two-word state name", line1: "123 Main St", last: "New York, New York 10001", want1: "123 MAIN ST", wantLast: "NEW YORK NY 10001", line: street("123", "", "MAIN", "ST", "")},
	{name: "nine-digit ZIP", line1: "123 Main St", last: "Springfield IL 627011234", want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701-1234", line: street("123", "", "MAIN", "ST", "")},
	{name: "ZIP+4 without hyphen", line1: "123 Main St", last: "Springfield IL 62701 1234", want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701-1234", line: street("123", "", "MAIN", "ST", "")},
	{name: "country after ZIP", line1: "123 Main St", last: "Springfield IL 62701 USA", want1: "123 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "")},
	{name: "urbanization given", line1: "150 Calle A", urb: "Urbanizacion Las Gladiolas", last: "San Juan PR 00926-3232", want1: "150 CALLE A", wantLast: "SAN JUAN PR 00926-3232", urbWant: "URB LAS GLADIOLAS", line: street("150", "", "CALLE A", "", "")},
	{name: "urbanization line above the street", line1: "Urb Las Gladiolas", line2: "150 Calle A", last: "San Juan PR 00926", want1: "URB LAS GLADIOLAS", want2: "150 CALLE A", wantLast: "SAN JUAN PR 00926", urbWant: "URB LAS GLADIOLAS", line: street("150", "", "CALLE A", "", "")},
	{name: "PO before caller", line1: "PO Caller 1234", last: spfd, want1: "PO BOX 1234", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "1234"}},
	{name: "PO before firm caller", line1: "P.O. Firm Caller 9", last: spfd, want1: "PO BOX 9", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "9"}},
	{name: "PO before bin", line1: "PO Bin 12", last: spfd, want1: "PO BOX 12", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "12"}},
	{name: "post office lockbox", line1: "Post Office Lockbox 77", last: spfd, want1: "PO BOX 77", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "77"}},
	{name: "street named Caller", line1: "12 Caller St", last: spfd, want1: "12 CALLER ST", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "CALLER", "ST", "")},
	{name: "penthouse with its number", line1: "123 Main St Penthouse 5", last: spfd, want1: "123 MAIN ST PH 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("PH", "5"))},
	{name: "office with its number on line 2", line1: "123 Main St", line2: "Office 210", last: spfd, want1: "123 MAIN ST OFC 210", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("OFC", "210"))},
	{name: "rear with its number on line 2", line1: "123 Main St", line2: "Rear 2", last: spfd, want1: "123 MAIN ST REAR 2", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("REAR", "2"))},
	{name: "unit word and number inside a name", line1: "123 Ocean Side 5", last: "Miami FL 33139", want1: "123 OCEAN SIDE 5", wantLast: "MIAMI FL 33139", line: street("123", "", "OCEAN SIDE 5", "", "")},
	{name: "postdirectional spelled out and abbreviated", line1: "123 Main Street South W", last: spfd, want1: "123 MAIN ST SW", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "SW")},
	{name: "postdirectional abbreviated and spelled out", line1: "123 Main St N East", last: spfd, want1: "123 MAIN ST NE", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "NE")},
	{name: "predirectional before a street named East", line1: "12 N East St", last: spfd, want1: "12 N EAST ST", wantLast: "SPRINGFIELD IL 62701", line: street("12", "N", "EAST", "ST", "")},
	{name: "highway word before an interstate", line1: "18115 Highway I-30", last: "Benton AR 72015", want1: "18115 INTERSTATE 30", wantLast: "BENTON AR 72015", line: street("18115", "", "INTERSTATE 30", "", "")},
	{name: "highway word before a US highway", line1: "500 Hwy US 30", last: spfd, want1: "500 US HIGHWAY 30", wantLast: "SPRINGFIELD IL 62701", line: street("500", "", "US HIGHWAY 30", "", "")},
	{name: "pound sign before a designator", line1: "410 Piedmont Ave # Apt 2", last: spfd, want1: "410 PIEDMONT AVE APT 2", wantLast: "SPRINGFIELD IL 62701", line: street("410", "", "PIEDMONT", "AVE", "", sec("APT", "2"))},
	{name: "pound sign before a designator on a unit line", line1: "0 Lighthouse Vw", line2: "# Lot 9", last: spfd, want1: "0 LIGHTHOUSE VW LOT 9", wantLast: "SPRINGFIELD IL 62701", line: street("0", "", "LIGHTHOUSE", "VW", "", sec("LOT", "9"))},
	{name: "pound sign without a designator", line1: "410 Piedmont Ave # 2", last: spfd, want1: "410 PIEDMONT AVE # 2", wantLast: "SPRINGFIELD IL 62701", line: street("410", "", "PIEDMONT", "AVE", "", sec("#", "2"))},
	{name: "pound sign after a unit is the private mailbox", line1: "410 Piedmont Ave Ste 11 # 234", last: spfd, want1: "410 PIEDMONT AVE STE 11 PMB 234", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LineStreet, PrimaryNumber: "410", StreetName: "PIEDMONT", Suffix: "AVE", Secondaries: []usps.Secondary{sec("STE", "11")}, PMB: "234"}},
	{name: "HCR is a highway contract", line1: "HCR 99 Box # 22B", last: spfd, want1: "HC 99 BOX 22B", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineHighwayContract, "HC", "99", "22B")},
	{name: "US written apart before a number", line1: "2153 U S 401 Hwy S", last: spfd, want1: "2153 US HIGHWAY 401 S", wantLast: "SPRINGFIELD IL 62701", line: street("2153", "", "US HIGHWAY 401", "", "S")},
	{name: "US written apart before a highway word", line1: "2153 U S Hwy 401", last: spfd, want1: "2153 US HIGHWAY 401", wantLast: "SPRINGFIELD IL 62701", line: street("2153", "", "US HIGHWAY 401", "", "")},
	{name: "initials U S before a name stay", line1: "12 U S Grant St", last: spfd, want1: "12 U S GRANT ST", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "U S GRANT", "ST", "")},
	{name: "pound sign before a route's letter", line1: "3904 Route # A", last: "Arlington VT 05250", want1: "3904 ROUTE A", wantLast: "ARLINGTON VT 05250", line: street("3904", "", "ROUTE A", "", "")},
	{name: "pound sign before a letter after a street is a unit", line1: "3904 Main St # A", last: "Arlington VT 05250", want1: "3904 MAIN ST # A", wantLast: "ARLINGTON VT 05250", line: street("3904", "", "MAIN", "ST", "", sec("#", "A"))},
	{name: "NO between a designator and its number", line1: "123 Main St Apt No. 456", last: spfd, want1: "123 MAIN ST APT 456", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "456"))},
	{name: "NO between a floor and its number on a unit line", line1: "100 Main St", line2: "Floor No. 1", last: spfd, want1: "100 MAIN ST FL 1", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "MAIN", "ST", "", sec("FL", "1"))},
	{name: "NO after the suffix without a designator stays", line1: "123 Main St No 5", last: spfd, want1: "123 MAIN ST NO 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN ST NO 5", "", "")},
	{name: "NO in a street name stays", line1: "12 No Name Rd", last: spfd, want1: "12 NO NAME RD", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "NO NAME", "RD", "")},
	{name: "post office written as one word", line1: "PostOffice Box 249A", last: spfd, want1: "PO BOX 249A", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "249A"}},
	{name: "a street named Postoffice stays", line1: "123 Postoffice Rd", last: spfd, want1: "123 POSTOFFICE RD", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "POSTOFFICE", "RD", "")},
	{name: "designator packed with its number on a unit line", line1: "100 Main St", line2: "PH1", last: spfd, want1: "100 MAIN ST PH 1", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "MAIN", "ST", "", sec("PH", "1"))},
	{name: "designator hyphened to its number on a unit line", line1: "100 Main St", line2: "Apt-5", last: spfd, want1: "100 MAIN ST APT 5", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "MAIN", "ST", "", sec("APT", "5"))},
	{name: "designator hyphened to its number after the suffix", line1: "500 Lake Shore Dr PH-2", last: spfd, want1: "500 LAKE SHORE DR PH 2", wantLast: "SPRINGFIELD IL 62701", line: street("500", "", "LAKE SHORE", "DR", "", sec("PH", "2"))},
	{name: "hyphened designator word after a name stays", line1: "12 Elm PH-2", last: spfd, want1: "12 ELM PH-2", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "ELM PH-2", "", "")},
	{name: "hyphened unit number stays", line1: "10315 Cortez Rd W Lot 61-3", last: spfd, want1: "10315 CORTEZ RD W LOT 61-3", wantLast: "SPRINGFIELD IL 62701", line: street("10315", "", "CORTEZ", "RD", "W", sec("LOT", "61-3"))},
	{name: "an ordinal is no house number", line1: "21st Street", last: spfd, want1: "21ST ST", wantLast: "SPRINGFIELD IL 62701", line: street("", "", "21ST", "ST", "")},
	{name: "an ordinal street without a house number and a unit", line1: "5th Avenue Apt 2C", last: spfd, want1: "5TH AVE APT 2C", wantLast: "SPRINGFIELD IL 62701", line: street("", "", "5TH", "AVE", "", sec("APT", "2C"))},
	{name: "a house number before an ordinal street stays", line1: "100 21st Street", last: spfd, want1: "100 21ST ST", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "21ST", "ST", "")},
	{name: "box number packed onto BOX on a PO box line", line1: "PO Box274", last: spfd, want1: "PO BOX 274", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "274"}},
	{name: "PO box written as one word with its number", line1: "P.O.Box274", last: spfd, want1: "PO BOX 274", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "274"}},
	{name: "box number packed onto BOX alone", line1: "Box274", last: spfd, want1: "PO BOX 274", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "274"}},
	{name: "box number packed onto BOX on a rural route", line1: "Route 2 Box274", last: spfd, want1: "RR 2 BOX 274", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineRuralRoute, "RR", "2", "274")},
	{name: "box number packed onto BX on a highway contract", line1: "HC 2 Bx274", last: spfd, want1: "HC 2 BOX 274", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineHighwayContract, "HC", "2", "274")},
	{name: "route number, BOX and box number packed", line1: "Rural#2Box274", last: spfd, want1: "RR 2 BOX 274", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineRuralRoute, "RR", "2", "274")},
	{name: "BOX packed with a number in a street name stays", line1: "12 Box12 Rd", last: spfd, want1: "12 BOX12 RD", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "BOX12", "RD", "")},
	{name: "rural route written as one word", line1: "RuralRoute 2 Box 274", last: spfd, want1: "RR 2 BOX 274", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineRuralRoute, "RR", "2", "274")},
	{name: "street name on a rural route written as one word", line1: "RuralRoute 2 Box 18 Bryan Dairy Rd", last: spfd, want1: "BRYAN DAIRY RD", want2: "RR 2 BOX 18", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineRuralRoute, "RR", "2", "18")},
	{name: "star route written as one word", line1: "StarRoute 2 Box 274", last: spfd, want1: "HC 2 BOX 274", wantLast: "SPRINGFIELD IL 62701", line: box(usps.LineHighwayContract, "HC", "2", "274")},
	{name: "house number range with a space after the hyphen", line1: "729- 731 N. Shenango Rd", last: spfd, want1: "729-731 N SHENANGO RD", wantLast: "SPRINGFIELD IL 62701", line: street("729-731", "N", "SHENANGO", "RD", "")},
	{name: "house number range with a space before the hyphen", line1: "3632 -36 N Cicero Ave", last: spfd, want1: "3632-36 N CICERO AVE", wantLast: "SPRINGFIELD IL 62701", line: street("3632-36", "N", "CICERO", "AVE", "")},
	{name: "house number range with spaces around the hyphen", line1: "12 - 14 Main St", last: spfd, want1: "12-14 MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("12-14", "", "MAIN", "ST", "")},
	{name: "a spaced hyphen before an ordinal street joins nothing", line1: "12 - 5th Ave", last: spfd, want1: "12 5TH AVE", wantLast: "SPRINGFIELD IL 62701", line: street("12", "", "5TH", "AVE", "")},
	{name: "a spaced hyphen before a directional joins nothing", line1: "12 - N Main St", last: spfd, want1: "12 N MAIN ST", wantLast: "SPRINGFIELD IL 62701", line: street("12", "N", "MAIN", "ST", "")},
	{name: "a PO box above a street line: both standardized, the street is delivered to", line1: "PO Box 233", line2: "5023 West 120th Avenue", last: spfd, want1: "PO BOX 233", want2: "5023 W 120TH AVE", wantLast: "SPRINGFIELD IL 62701", line: street("5023", "W", "120TH", "AVE", "")},
	{name: "a street above a PO box line: both standardized, the box is delivered to", line1: "2006 Broadway Avenue Suite 2A", line2: "P.O. Drawer J", last: spfd, want1: "2006 BROADWAY AVE STE 2A", want2: "PO BOX J", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "J"}},
	{name: "unit number and its letter written apart", line1: "3131 Smokey Point Drive, Suite 14 A", last: spfd, want1: "3131 SMOKEY POINT DR STE 14A", wantLast: "SPRINGFIELD IL 62701", line: street("3131", "", "SMOKEY POINT", "DR", "", sec("STE", "14A"))},
	{name: "unit letter and its number written apart", line1: "5 Bel Air S Parkway Suite L 1219", last: "Bel Air MD 21015", want1: "5 BEL AIR SOUTH PKWY STE L1219", wantLast: "BEL AIR MD 21015", line: street("5", "", "BEL AIR SOUTH", "PKWY", "", sec("STE", "L1219"))},
	{name: "unit letter and its number written apart on a unit line", line1: "123 Main St", line2: "Apt B 2", last: spfd, want1: "123 MAIN ST APT B2", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "B2"))},
	{name: "unit number and its letter written apart on a unit line", line1: "123 Main St", line2: "Apt 4 B", last: spfd, want1: "123 MAIN ST APT 4B", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "4B"))},
	{name: "unit number and a directional letter written apart", line1: "1800 M Street NW Suite 375 N", last: "Washington DC 20036", want1: "1800 M ST NW STE 375N", wantLast: "WASHINGTON DC 20036", line: street("1800", "", "M", "ST", "NW", sec("STE", "375N"))},
	{name: "pound sign unit number and its letter written apart", line1: "800 Sixth Ave #31 A", last: spfd, want1: "800 SIXTH AVE # 31A", wantLast: "SPRINGFIELD IL 62701", line: street("800", "", "SIXTH", "AVE", "", sec("#", "31A"))},
	{name: "a letter after a street that is a unit word and its number stays", line1: "123 Pier 39 A", last: "San Francisco CA 94133", want1: "123 PIER 39 A", wantLast: "SAN FRANCISCO CA 94133", line: street("123", "", "PIER 39 A", "", "")},
	{name: "a number after the postdirectional is a unit", line1: "235 Peachtree St NE 900", last: "Atlanta GA 30303", want1: "235 PEACHTREE ST NE # 900", wantLast: "ATLANTA GA 30303", line: street("235", "", "PEACHTREE", "ST", "NE", sec("#", "900"))},
	{name: "a number after a road's suffix and postdirectional is a unit", line1: "3525 Piedmont Road Northeast 8", last: "Atlanta GA 30305", want1: "3525 PIEDMONT RD NE # 8", wantLast: "ATLANTA GA 30305", line: street("3525", "", "PIEDMONT", "RD", "NE", sec("#", "8"))},
	{name: "a number after a directional without a suffix stays", line1: "842 E 1700 S 12", last: "Salt Lake City UT 84105", want1: "842 E 1700 S 12", wantLast: "SALT LAKE CITY UT 84105", line: street("842", "E", "1700 S 12", "", "")},
	{name: "a unit numbered in Roman numerals", line1: "12401 Research Blvd, Building II", last: "Austin TX 78759", want1: "12401 RESEARCH BLVD BLDG II", wantLast: "AUSTIN TX 78759", line: street("12401", "", "RESEARCH", "BLVD", "", sec("BLDG", "II"))},
	{name: "a unit numbered in Roman numerals on a unit line", line1: "12401 Research Blvd", line2: "Suite IV", last: "Austin TX 78759", want1: "12401 RESEARCH BLVD STE IV", wantLast: "AUSTIN TX 78759", line: street("12401", "", "RESEARCH", "BLVD", "", sec("STE", "IV"))},
	{name: "Roman numeral letters that are no numeral are no unit number", line1: "12401 Research Blvd", line2: "Suite VIV", last: "Austin TX 78759", want1: "12401 RESEARCH BLVD", want2: "SUITE VIV", wantLast: "AUSTIN TX 78759", line: street("12401", "", "RESEARCH", "BLVD", "")},
	{name: "a street and a PO box on one line go on two", line1: "354 Eisenhower Parkway P.O. Box 472", last: spfd, want1: "354 EISENHOWER PKWY", want2: "PO BOX 472", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "472"}},
	{name: "a PO box and a street on one line go on two", line1: "P.O. Box 41256, One Velvet Drive", last: spfd, want1: "PO BOX 41256", want2: "1 VELVET DR", wantLast: "SPRINGFIELD IL 62701", line: street("1", "", "VELVET", "DR", "")},
	{name: "a street and a PO box on one line beside a second line stay", line1: "354 Eisenhower Parkway P.O. Box 472", line2: "c/o Jane Doe", last: spfd, want1: "354 EISENHOWER PARKWAY PO BOX 472", want2: "C/O JANE DOE", wantLast: "SPRINGFIELD IL 62701", line: street("354", "", "EISENHOWER PARKWAY PO BOX 472", "", "")},
	{name: "a box without PO after a street stays on its line", line1: "123 Main St Box 5", last: spfd, want1: "123 MAIN ST BOX 5", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN ST BOX 5", "", "")},
	{name: "a numbered avenue after a predirectional is the street", line1: "242 N Avenue 25", last: "Los Angeles CA 90031", want1: "242 N AVENUE 25", wantLast: "LOS ANGELES CA 90031", line: street("242", "N", "AVENUE 25", "", "")},
	{name: "a numbered avenue abbreviated after a predirectional is the street", line1: "525 W Ave 40", last: "Los Angeles CA 90065", want1: "525 W AVENUE 40", wantLast: "LOS ANGELES CA 90065", line: street("525", "W", "AVENUE 40", "", "")},
	{name: "a number after a name, its suffix and a predirectional is a unit", line1: "525 W Main Ave 40", last: spfd, want1: "525 W MAIN AVE # 40", wantLast: "SPRINGFIELD IL 62701", line: street("525", "W", "MAIN", "AVE", "", sec("#", "40"))},
	{name: "a box number written before PO BOX", line1: "3300 P.O. Box", last: spfd, want1: "PO BOX 3300", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "3300"}},
	{name: "a box number written before POBOX", line1: "84 PoBox", last: spfd, want1: "PO BOX 84", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "84"}},
	{name: "a number before BOX without PO stays a street", line1: "84 Box", last: spfd, want1: "84 BOX", wantLast: "SPRINGFIELD IL 62701", line: street("84", "", "BOX", "", "")},
	{name: "a directional before a street named by a directional", line1: "101 W North", last: spfd, want1: "101 W NORTH", wantLast: "SPRINGFIELD IL 62701", line: street("101", "W", "NORTH", "", "")},
	{name: "two spelled-out directionals without a suffix: the second names the street", line1: "123 South West", last: spfd, want1: "123 S WEST", wantLast: "SPRINGFIELD IL 62701", line: street("123", "S", "WEST", "", "")},
	{name: "a street named by a directional letter keeps it", line1: "12 N E", last: spfd, want1: "12 N E", wantLast: "SPRINGFIELD IL 62701", line: street("12", "N", "E", "", "")},
	{name: "US written apart after a predirectional", line1: "154 W U S 30", last: spfd, want1: "154 W US HIGHWAY 30", wantLast: "SPRINGFIELD IL 62701", line: street("154", "W", "US HIGHWAY 30", "", "")},
	{name: "a street and a PO box written as one word on one line go on two", line1: "2709 Patterson St. P.O.Box 496", last: spfd, want1: "2709 PATTERSON ST", want2: "PO BOX 496", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "496"}},
	{name: "an ordinal written apart from its number", line1: "3624 10 Th Ave S.", last: spfd, want1: "3624 10TH AVE S", wantLast: "SPRINGFIELD IL 62701", line: street("3624", "", "10TH", "AVE", "S")},
	{name: "an ordinal ND written apart before the suffix", line1: "220 2 ND AVE. E RM 106", last: spfd, want1: "220 2ND AVE E RM 106", wantLast: "SPRINGFIELD IL 62701", line: street("220", "", "2ND", "AVE", "E", sec("RM", "106"))},
	{name: "RD after a number that is its ordinal and before a suffix", line1: "100 3 Rd St", last: spfd, want1: "100 3RD ST", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "3RD", "ST", "")},
	{name: "ST after a number that is its ordinal and before a suffix", line1: "1 1 St St", last: spfd, want1: "1 1ST ST", wantLast: "SPRINGFIELD IL 62701", line: street("1", "", "1ST", "ST", "")},
	{name: "a street named by a number stays", line1: "86 21 St", last: spfd, want1: "86 21 ST", wantLast: "SPRINGFIELD IL 62701", line: street("86", "", "21", "ST", "")},
	{name: "a road named by a number stays", line1: "100 3 Rd", last: spfd, want1: "100 3 RD", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "3", "RD", "")},
	{name: "a letter after a number that is no ordinal ending stays", line1: "892 4 H Rd", last: spfd, want1: "892 4 H RD", wantLast: "SPRINGFIELD IL 62701", line: street("892", "", "4 H", "RD", "")},
	{name: "an ending that does not fit the number stays", line1: "100 3 TH Ave", last: spfd, want1: "100 3 TH AVE", wantLast: "SPRINGFIELD IL 62701", line: street("100", "", "3 TH", "AVE", "")},
	{name: "ST RD after the house number is a state road", line1: "1 St Rd 86", last: spfd, want1: "1 STATE ROAD 86", wantLast: "SPRINGFIELD IL 62701", line: street("1", "", "STATE ROAD 86", "", "")},
	{name: "ST HWY after the house number is a state highway", line1: "1 St Hwy 303", last: spfd, want1: "1 STATE HIGHWAY 303", wantLast: "SPRINGFIELD IL 62701", line: street("1", "", "STATE HIGHWAY 303", "", "")},
	{name: "a pound sign before a ranch road's number", line1: "1 Ranch Rd #620", last: "Austin TX 78701", want1: "1 RANCH ROAD 620", wantLast: "AUSTIN TX 78701", line: street("1", "", "RANCH ROAD 620", "", "")},
	{name: "a pound sign after a road is a unit's", line1: "1 Branch Rd #620", last: "Austin TX 78701", want1: "1 BRANCH RD # 620", wantLast: "AUSTIN TX 78701", line: street("1", "", "BRANCH", "RD", "", sec("#", "620"))},
	{name: "a pound sign after a state's name and SR", line1: "1 New York SR #86", last: "Albany NY 12207", want1: "1 NY STATE ROUTE 86", wantLast: "ALBANY NY 12207", line: street("1", "", "NY STATE ROUTE 86", "", "")},
	{name: "post office bx", line1: "Post Office Bx 9", last: spfd, want1: "PO BOX 9", wantLast: "SPRINGFIELD IL 62701", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "9"}},
	{name: "rural delivery route and a pound-sign box", line1: "RD Route 4 #87A", last: "Chatham IL 62629", want1: "RR 4 BOX 87A", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "4", "87A")},
	{name: "rural delivery route without a box stays", line1: "RD Route 4", last: "Chatham IL 62629", want1: "RD ROUTE 4", wantLast: "CHATHAM IL 62629", line: street("", "", "RD ROUTE 4", "", "")},
	{name: "a box written before its rural route", line1: "Box 218 RR 1", last: "Chatham IL 62629", want1: "RR 1 BOX 218", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "1", "218")},
	{name: "a box written before its highway contract", line1: "Box 12 HC 3", last: "Chatham IL 62629", want1: "HC 3 BOX 12", wantLast: "CHATHAM IL 62629", line: box(usps.LineHighwayContract, "HC", "3", "12")},
	{name: "a box before its route with a farm name", line1: "Box 218 RR 1 Smithfield Farm", last: "Chatham IL 62629", want1: "SMITHFIELD FARM", want2: "RR 1 BOX 218", wantLast: "CHATHAM IL 62629", line: box(usps.LineRuralRoute, "RR", "1", "218")},
	{name: "a floor's number before FL", line1: "3 County Highway 130 10 Fl", last: spfd, want1: "3 COUNTY HIGHWAY 130 FL 10", wantLast: "SPRINGFIELD IL 62701", line: street("3", "", "COUNTY HIGHWAY 130", "", "", sec("FL", "10"))},
	{name: "a floor's number written onto FL", line1: "2 1/2 N South Oak St 8fl", last: spfd, want1: "2 1/2 N SOUTH OAK ST FL 8", wantLast: "SPRINGFIELD IL 62701", line: street("2 1/2", "N", "SOUTH OAK", "ST", "", sec("FL", "8"))},
	{name: "a floor's number before FL on a line of its own", line1: "123 Main St", line2: "10 Floor", last: spfd, want1: "123 MAIN ST FL 10", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("FL", "10"))},
	{name: "a number after a designator before FL is the unit's", line1: "123 Main St Apt 10 Fl", last: spfd, want1: "123 MAIN ST APT 10 FL", wantLast: "SPRINGFIELD IL 62701", line: street("123", "", "MAIN", "ST", "", sec("APT", "10"), sec("FL", ""))},
	{name: "a lettered county road after a state's code", line1: "1 CA County Rd X Apt 150", last: "Fresno CA 93721", want1: "1 CA COUNTY ROAD X APT 150", wantLast: "FRESNO CA 93721", line: street("1", "", "CA COUNTY ROAD X", "", "", sec("APT", "150"))},
	{name: "a county road with no number or letter after a state's code", line1: "1 CA County Rd Apt 150", last: "Fresno CA 93721", want1: "1 CA COUNTY RD APT 150", wantLast: "FRESNO CA 93721", line: street("1", "", "CA COUNTY", "RD", "", sec("APT", "150"))},
	{name: "231 and 213: a house number written with the pound sign", line1: "#5 Calle McKinley", last: "Mayaguez PR 00680", want1: "5 CALLE MCKINLEY", wantLast: "MAYAGUEZ PR 00680", line: street("5", "", "CALLE MCKINLEY", "", "")},
	{name: "231 and 213: a pound-sign house number before a one-word street", line1: "# 5 Broadway", last: spfd, want1: "5 BROADWAY", wantLast: "SPRINGFIELD IL 62701", line: street("5", "", "BROADWAY", "", "")},
	{name: "213: a pound-sign unit before the house number moves to the end", line1: "#42 233 S Wacker Dr", last: "Chicago IL 60606", want1: "233 S WACKER DR # 42", wantLast: "CHICAGO IL 60606", line: street("233", "S", "WACKER", "DR", "", sec("#", "42"))},
	{name: "proper casing", casing: usps.Proper, line1: "123 north main street apt 4b", last: "springfield il 62701", want1: "123 N Main St Apt 4B", wantLast: "Springfield IL 62701", line: street("123", "N", "MAIN", "ST", "", sec("APT", "4B"))},
	{name: "proper casing of upper input", casing: usps.Proper, line1: "1600 PENNSYLVANIA AVE NW", last: "WASHINGTON DC 20500", want1: "1600 Pennsylvania Ave NW", wantLast: "Washington DC 20500", line: street("1600", "", "PENNSYLVANIA", "AVE", "NW")},
	{name: "proper casing of a PO box and Mc", casing: usps.Proper, line1: "PO BOX 1234", last: "MCALLEN TX 78501", want1: "PO Box 1234", wantLast: "McAllen TX 78501", line: usps.DeliveryLine{Kind: usps.LinePOBox, BoxNumber: "1234"}},
	{name: "proper casing of an ordinal", casing: usps.Proper, line1: "350 W 42ND ST", last: "NEW YORK NY 10036", want1: "350 W 42nd St", wantLast: "New York NY 10036", line: street("350", "W", "42ND", "ST", "")},
	{name: "proper casing of a rural route", casing: usps.Proper, line1: "rr 2 box 45", last: "chatham il 62629", want1: "RR 2 Box 45", wantLast: "Chatham IL 62629", line: box(usps.LineRuralRoute, "RR", "2", "45")},
	{name: "proper casing of a military address", casing: usps.Proper, line1: "psc 802 box 74", last: "apo ae 09499", want1: "PSC 802 Box 74", wantLast: "APO AE 09499", line: box(usps.LineMilitary, "PSC", "802", "74")},
	{name: "proper casing of a hyphenated city", casing: usps.Proper, line1: "123 MAIN ST STE 5", last: "WILKES-BARRE PA 18701", want1: "123 Main St Ste 5", wantLast: "Wilkes-Barre PA 18701", line: street("123", "", "MAIN", "ST", "", sec("STE", "5"))},
	{name: "proper casing keeps a care-of line", casing: usps.Proper, line1: "123 main st", line2: "C/O JANE DOE", last: spfd, want1: "123 Main St", want2: "C/O Jane Doe", wantLast: "Springfield IL 62701", line: street("123", "", "MAIN", "ST", "")},
}

func TestStandardize(t *testing.T) {
	if len(standardizeCases) < 60 {
		t.Fatalf("only %d cases", len(standardizeCases))
	}
	for _, c := range standardizeCases {
		t.Run(c.name, func(t *testing.T) {
			ll, err := usps.ParseLastLine(c.last)
			if err != nil {
				t.Fatalf("ParseLastLine(%q): %v", c.last, err)
			}
			in := usps.Address{Line1: c.line1, Line2: c.line2, Urbanization: c.urb, City: ll.City, State: ll.State, ZIP: ll.ZIP, Plus4: ll.Plus4}
			got := usps.Standardize(in, c.casing)
			gotLines := []string{got.Line1, got.Line2, got.LastLine(), got.Urbanization}
			want := []string{c.want1, c.want2, c.wantLast, c.urbWant}
			if diff := cmp.Diff(want, gotLines); diff != "" {
				t.Errorf("Standardize(%+v) lines (-want +got):\n%s", in, diff)
			}
			if diff := cmp.Diff(c.line, usps.DeliveryLineOf(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("delivery line components (-want +got):\n%s", diff)
			}
			if again := usps.Standardize(got, c.casing); again != got {
				t.Errorf("standardizing again changed %+v to %+v", got, again)
			}
		})
	}
}

// TestBareUnitLine checks where a unit's number or letter written alone
// on the second line stops being one: a ZIP Code there (five or nine
// digits) is not joined to the street as a unit.
func TestBareUnitLine(t *testing.T) {
	for _, c := range []struct{ line2, want1, want2 string }{
		{"1234", "123 MAIN ST # 1234", ""},
		{"12345", "123 MAIN ST", "12345"},
		{"123456", "123 MAIN ST # 123456", ""},
		{"12345678", "123 MAIN ST # 12345678", ""},
		{"123456789", "123 MAIN ST", "123456789"},
		{"12345-6789", "123 MAIN ST", "12345-6789"},
		{"4B", "123 MAIN ST # 4B", ""},
	} {
		got := usps.Standardize(usps.Address{Line1: "123 Main St", Line2: c.line2}, usps.Upper)
		if got.Line1 != c.want1 || got.Line2 != c.want2 {
			t.Errorf("Standardize(123 Main St / %s) = %q / %q, want %q / %q", c.line2, got.Line1, got.Line2, c.want1, c.want2)
		}
	}
}

// TestUnitsThatSwapSettle checks lines whose units, moved to the end,
// would be moved again (1 APT 5 APT F and 1 APT F APT 5): each is read as
// written, standardizing again changes nothing, and the reading does not
// go on without end (it overflowed the stack; found by FuzzStandardize).
func TestUnitsThatSwapSettle(t *testing.T) {
	checkLines(t, []lineCase{
		{"1 Apt 5 Apt F", "", "1 APT 5 APT F", ""},
		{"1 Apt F Apt 5", "", "1 APT F APT 5", ""},
		{"1 Unit B Apt C", "", "1 UNIT B APT C", ""},
		{"0r# F # 5", "", "0R # F # 5", ""},
		{"000", "0r# F", "0R # F # 000", ""},
		{"1 Apt 5 Apt F Apt 6", "", "1 APT 5 APT F APT 6", ""},
		{"1 # 5 # F # 6", "", "1 # 5 # F # 6", ""},
		{"1 Apt 5 Apt F G", "", "1 APT 5 APT F G", ""},
		// One unit before a street still moves to the end.
		{"123 # 5 Pier 39 Rd", "", "123 PIER 39 RD # 5", ""},
		{"123 Unit B Main St", "", "123 MAIN ST UNIT B", ""},
	})
}

// TestUnitsWithoutDeliveryLine checks a first line that holds only units
// where no delivery line stands beside it: the units are written in
// standard form (213, Appendix C2) as they are on a unit line below a
// street (ROOM 1 -> RM 1); a single word that needs no designator (I10,
// 845, POBOX53485) is still read as a line of its own.
func TestUnitsWithoutDeliveryLine(t *testing.T) {
	checkLines(t, []lineCase{
		{"room 1", "", "RM 1", ""},
		{"Apartment 2B", "", "APT 2B", ""},
		{"Suite 100", "", "STE 100", ""},
		{"3rd floor", "", "FL 3", ""},
		{"Penthouse", "", "PH", ""},
		{"rm 1", "", "RM 1", ""},
		{"room 1", "Acme Corp", "RM 1", "ACME CORP"},
		{"", "room 1", "RM 1", ""},
		// Beside a delivery line the units still join it.
		{"room 1", "12 Main Street", "12 MAIN ST RM 1", ""},
		// One word alone stays a line of its own.
		{"I10", "", "INTERSTATE 10", ""},
		{"845", "", "845", ""},
		{"PoBox53485", "", "PO BOX 53485", ""},
	})
}

// TestUnitsBelowOtherLine checks a unit line beside a line that is not a
// delivery line (a firm or building name, with no delivery line written):
// the units join only a delivery line or other units (213), so the name
// keeps its line and the units stand on their own below it (356); beside
// a street, box or route line they still join it.
func TestUnitsBelowOtherLine(t *testing.T) {
	checkLines(t, []lineCase{
		{"Acme Corp", "room 1", "ACME CORP", "RM 1"},
		{"Acme Corp", "Suite 200", "ACME CORP", "STE 200"},
		{"US Courthouse Building", "# 12", "US COURTHOUSE BUILDING", "# 12"},
		// A delivery line, or units, beside them: joined; a street without
		// its number is the delivery line still.
		{"Main Street", "Apt 4", "MAIN ST APT 4", ""},
		{"1 Acme Way", "room 1", "1 ACME WAY RM 1", ""},
		{"RR 2 Box 5", "Apt 1", "RR 2 BOX 5 APT 1", ""},
		{"Apt 1", "Fl 2", "APT 1 FL 2", ""},
		{"845", "Apt 1", "845 APT 1", ""},
	})
}

// TestPOBoxUnitsAbove checks Publication 28 284: no private mailbox number,
// nor a unit that numbers an office or a person within the boxholder, stands
// on a PO box's delivery line; it goes on the line above the box, written
// on the box line, below it or above it alike. A street or route keeps its
// PMB at the end of its line (285), and a box beside a firm's name, with no
// line free, keeps its unit.
func TestPOBoxUnitsAbove(t *testing.T) {
	checkLines(t, []lineCase{
		{"PO Box 5 PMB 12", "", "PMB 12", "PO BOX 5"},
		{"PO Box 5", "PMB 12", "PMB 12", "PO BOX 5"},
		{"PMB 12", "PO Box 5", "PMB 12", "PO BOX 5"},
		{"PO Box 5 Private Mailbox 12", "", "PMB 12", "PO BOX 5"},
		{"PO Box 5 # 12", "", "# 12", "PO BOX 5"},
		{"room 1", "PO Box 5", "RM 1", "PO BOX 5"},
		{"PO Box 5", "room 1", "RM 1", "PO BOX 5"},
		{"PO Box 5 Rm 1", "", "RM 1", "PO BOX 5"},
		{"PO Box 5 Ste 3", "Apt 2", "STE 3 APT 2", "PO BOX 5"},
		{"Caller 5 Ste 3", "", "STE 3", "PO BOX 5"},
		{"PO Box 5", "", "PO BOX 5", ""},
		// Not a PO box: the PMB and the unit join the line.
		{"123 Main St", "PMB 12", "123 MAIN ST PMB 12", ""},
		{"RR 1 Box 2", "PMB 234", "RR 1 BOX 2 PMB 234", ""},
		{"PSC 802 Box 74", "Apt 1", "PSC 802 BOX 74 APT 1", ""},
		// No line free above the box: the unit stays on it.
		{"Acme Corp", "PO Box 5 Rm 1", "ACME CORP", "PO BOX 5 RM 1"},
		{"123 Main St", "PO Box 5 PMB 12", "123 MAIN ST", "PO BOX 5 PMB 12"},
		{"Ste 3 PMB 4", "PO Box 5 PMB 6", "STE 3 PMB 4", "PO BOX 5 PMB 6"},
	})
}

// lineCase is an address of two lines and the lines Standardize makes of it.
type lineCase struct{ line1, line2, want1, want2 string }

// checkLines checks the lines Standardize makes of each case, and that
// standardizing them again changes nothing.
func checkLines(t *testing.T, cases []lineCase) {
	t.Helper()
	for _, c := range cases {
		got := usps.Standardize(usps.Address{Line1: c.line1, Line2: c.line2}, usps.Upper)
		if got.Line1 != c.want1 || got.Line2 != c.want2 {
			t.Errorf("Standardize(%q / %q) = %q / %q, want %q / %q", c.line1, c.line2, got.Line1, got.Line2, c.want1, c.want2)
		}
		if again := usps.Standardize(got, usps.Upper); again != got {
			t.Errorf("standardizing %q / %q again gave %q / %q", got.Line1, got.Line2, again.Line1, again.Line2)
		}
	}
}

// TestNumberAboveStreet checks Publication 28 231: a house number written
// alone on the first line is the first component of the street line
// below it, which is written without one; a unit, a box, a numbered
// street, a name or a care-of line below it is no such street.
func TestNumberAboveStreet(t *testing.T) {
	checkLines(t, []lineCase{
		{"3400", "Austin Lane", "3400 AUSTIN LN", ""},
		{"4107", "NW 78th St", "4107 NW 78TH ST", ""},
		{"26 1/2", "South Main Street", "26 1/2 S MAIN ST", ""},
		{"4-123", "Main Street", "4-123 MAIN ST", ""},
		{"A30", "Colonial Drive", "A30 COLONIAL DR", ""},
		{"350", "State Hwy 15", "350 STATE HIGHWAY 15", ""},
		{"3400", "Austin Lane Apt 4", "3400 AUSTIN LN APT 4", ""},
		{"3400", "", "3400", ""},
		{"3400", "Apt B", "3400 APT B", ""},
		{"3400", "123 Main St", "123 MAIN ST # 3400", ""},
		{"3400", "PO Box 5", "# 3400", "PO BOX 5"},
		{"3400", "Broadway", "3400", "BROADWAY"},
		{"3400", "Acme Corp", "3400", "ACME CORP"},
		{"3400", "C/O Mary Lane", "3400", "C/O MARY LANE"},
		{"Acme", "Austin Lane", "ACME", "AUSTIN LANE"},
	})
}
