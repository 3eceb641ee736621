package cass

import (
	"strings"

	"github.com/lettershop/lettershop/usps"
)

// TestKey is an addressLine1 as compared with the test addresses: in
// lower case, its spaces collapsed.
func TestKey(line string) string { return strings.Join(strings.Fields(strings.ToLower(line)), " ") }

// testAddress is an addressLine1 that, like the real service's test mode,
// always gives one outcome, with a fixed address in Springfield, Illinois
// (or elsewhere where the outcome needs it).
type testAddress struct {
	addr      usps.Address
	match     string
	footnotes []string
	reason    string
	meta      Metadata
}

// springfield is the metadata shared by the test addresses in Springfield, IL.
func springfield(recordType, addressType, route string, lat, lon float64) Metadata {
	return Metadata{
		RecordType: recordType, AddressType: addressType, ZipCodeType: "standard", County: "SANGAMON",
		CountyFips: "17167", CarrierRoute: route, CarrierRouteType: "cityDelivery", CongressionalDistrict: "13",
		ElotSequence: "0042", ElotSort: "A", Latitude: lat, Longitude: lon, Precision: "deliverablePoint",
		UspsFinanceNumber: "167380", TimeZone: "America/Chicago",
	}
}

// testAddresses are the documented test addresses (docs/addresses.md), by
// addressLine1 in lower case.
var testAddresses = map[string]testAddress{
	"deliverable": {
		addr:  usps.Address{Line1: "1 OLD STATE CAPITOL PLZ", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1507"},
		match: DPVConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: springfield("street", "commercial", "C007", 39.80151, -89.64952),
	},
	"missing unit": {
		addr:  usps.Address{Line1: "500 E CAPITOL AVE", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1000"},
		match: DPVDefault, footnotes: []string{"AA", "N1"},
		reason: "the address is a building with several units and no apartment or suite number was given",
		meta:   springfield("highrise", "residential", "C012", 39.79996, -89.64673),
	},
	"incorrect unit": {
		addr:  usps.Address{Line1: "500 E CAPITOL AVE APT 9999", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1000"},
		match: DPVSecondaryUnknown, footnotes: []string{"AA", "BB", "C1"},
		reason: "the building was found but it has no unit APT 9999",
		meta:   springfield("highrise", "residential", "C012", 39.79996, -89.64673),
	},
	"unnecessary unit": {
		addr:  usps.Address{Line1: "742 EVERGREEN TER APT 2", City: "SPRINGFIELD", State: "IL", ZIP: "62704", Plus4: "1234"},
		match: DPVSecondaryUnknown, footnotes: []string{"AA", "BB", "CC"},
		reason: "the address is a single delivery point and needs no unit number",
		meta:   springfield("street", "residential", "C031", 39.78112, -89.68861),
	},
	"undeliverable block match": {
		addr:  usps.Address{Line1: "9999 N MAIN ST", City: "SPRINGFIELD", State: "IL", ZIP: "62702", Plus4: "4401"},
		match: DPVNotConfirmed, footnotes: []string{"AA", "M3"},
		reason: "the street was found but the house number 9999 is not a delivery point on it",
		meta: func() Metadata {
			m := springfield("street", "", "C019", 39.83307, -89.65021)
			m.Precision, m.ElotSequence, m.ElotSort = "zip9", "", ""
			return m
		}(),
	},
	"undeliverable no match": {
		addr:  usps.Address{Line1: "1 NOWHERE LN", City: "SPRINGFIELD", State: "IL", ZIP: "62701"},
		match: DPVNotConfirmed, footnotes: []string{"A1"},
		reason: "the address was not found",
		meta:   Metadata{ZipCodeType: "standard", TimeZone: "America/Chicago"},
	},
	"residential house": {
		addr:  usps.Address{Line1: "742 EVERGREEN TER", City: "SPRINGFIELD", State: "IL", ZIP: "62704", Plus4: "1234"},
		match: DPVConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: springfield("street", "residential", "C031", 39.78112, -89.68861),
	},
	"commercial highrise": {
		addr:  usps.Address{Line1: "500 E CAPITOL AVE STE 1200", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1212"},
		match: DPVConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: springfield("highrise", "commercial", "C012", 39.79996, -89.64673),
	},
	"po box": {
		addr:  usps.Address{Line1: "PO BOX 19276", City: "SPRINGFIELD", State: "IL", ZIP: "62794", Plus4: "9276"},
		match: DPVConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: func() Metadata {
			m := springfield("poBox", "residential", "B001", 39.80172, -89.64371)
			m.ZipCodeType, m.CarrierRouteType, m.Precision = "poBox", "poBox", "zip9"
			return m
		}(),
	},
	"rural route": {
		addr:  usps.Address{Line1: "RR 2 BOX 45", City: "CHATHAM", State: "IL", ZIP: "62629", Plus4: "9802"},
		match: DPVConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: func() Metadata {
			m := springfield("ruralRoute", "residential", "R002", 39.67612, -89.70426)
			m.CarrierRouteType, m.UspsFinanceNumber = "ruralRoute", "161400"
			return m
		}(),
	},
	"military": {
		addr:  usps.Address{Line1: "UNIT 2050 BOX 4190", City: "APO", State: "AP", ZIP: "96278", Plus4: "4190"},
		match: DPVConfirmed, footnotes: []string{"AA", "BB", "F1"}, reason: confirmedReason,
		meta: Metadata{
			RecordType: "street", AddressType: "residential", ZipCodeType: "military", CarrierRoute: "C001",
			CarrierRouteType: "cityDelivery", ElotSequence: "0001", ElotSort: "A",
		},
	},
	"puerto rico": {
		addr: usps.Address{Line1: "150 CALLE A", Urbanization: "URB LAS GLADIOLAS", City: "SAN JUAN", State: "PR",
			ZIP: "00926", Plus4: "3232"},
		match: DPVConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: Metadata{
			RecordType: "street", AddressType: "residential", ZipCodeType: "standard", County: "SAN JUAN",
			CountyFips: "72127", CarrierRoute: "C027", CarrierRouteType: "cityDelivery", CongressionalDistrict: "98",
			ElotSequence: "0118", ElotSort: "D", Latitude: 18.36929, Longitude: -66.05619,
			Precision: "deliverablePoint", UspsFinanceNumber: "720960", TimeZone: "America/Puerto_Rico",
		},
	},
}

// result is the fixed outcome of a test address, in casing c.
func (t testAddress) result(c usps.Casing) Result {
	a := Result{Address: usps.Standardize(t.addr, c), Reason: t.reason, Test: true, Metadata: t.meta}
	if t.match == DPVNotConfirmed {
		a.Analysis = notMatched(t.footnotes...)
		return a
	}
	a.Analysis = matched(t.match, t.footnotes...)
	a.Metadata.DefaultBuildingAddress = t.match == DPVDefault
	return a
}

// NCOATestLine is the addressLine1 (compared as TestKey does) of the NCOA
// test address, which always forwards when NCOA is on.
const NCOATestLine = "ncoa"

// NCOATestForward is where the NCOA test address forwards to: its
// addressLine1 and lastLine.
var NCOATestForward = [2]string{"300 S 2nd St", "Springfield IL 62701"}
