package cass

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/lettershop/lettershop/usps"
)

// Analysis is the delivery point validation (DPV) of an address: the
// fields of the lettershop API's addressAnalysis, in its order.
type Analysis struct {
	DpvMatchCode               string
	DpvFootnotes               []string
	DpvCmra                    string
	DpvVacant                  string
	DpvNoStat                  string
	DpvActive                  string
	DpvInactiveReason          string
	DpvThrowback               string
	DpvNonDeliveryDayIndicator string
	DpvNonDeliveryDayValues    string
	DpvNoSecureLocation        string
	DpvDoorNotAccessible       string
	LacslinkCode               string
	LacslinkIndicator          string
	SuitelinkIndicator         string
	EwsIndicator               bool
}

// Metadata describes the delivery point of an address: the fields of the
// lettershop API's addressMetadata, in its order.
type Metadata struct {
	RecordType             string
	AddressType            string
	ZipCodeType            string
	County                 string
	CountyFips             string
	CarrierRoute           string
	CarrierRouteType       string
	CongressionalDistrict  string
	DefaultBuildingAddress bool
	ElotSequence           string
	ElotSort               string
	Latitude               float64
	Longitude              float64
	Precision              string
	UspsFinanceNumber      string
	TimeZone               string
}

// Input is one address to process.
type Input struct {
	// Address is the address read into parts; Line1 is the addressLine1
	// as given, which also picks a test address.
	Address usps.Address
	// LastLineErr is why the last line could not be read, if it could not.
	LastLineErr error
	// Casing is the case of the standardized address.
	Casing usps.Casing
	// Business is set for a party that is an organization, not a person.
	Business bool
}

// Result is the outcome of CASS and DPV on one address.
type Result struct {
	Address  usps.Address // standardized; Plus4 filled in for a delivery point
	Analysis Analysis
	Metadata Metadata
	// Reason is a phrase saying why the address is or is not a delivery
	// point ("the ZIP Code 62701 is in IL, not in CA").
	Reason string
	// Deliverability is the verdict on the address drawn from Analysis
	// (the Deliverability function).
	Deliverability string
	// Test is set when the outcome is a test address's fixed one.
	Test bool
}

// Process standardizes in and simulates its delivery point validation: a
// test address (docs/addresses.md) gives its fixed result; any other is
// standardized and analysed by the rules of package usps.
func Process(in Input) Result {
	var r Result
	if t, ok := testAddresses[TestKey(in.Address.Line1)]; ok {
		r = t.result(in.Casing)
	} else {
		r = analyse(in.Address, in.LastLineErr, in.Casing, in.Business)
	}
	r.Deliverability = Deliverability(r.Analysis)
	return r
}

// The deliverability verdicts, the values of the lettershop API's
// deliverability.
const (
	Deliverable                = "deliverable"                // a confirmed delivery point
	DeliverableMissingUnit     = "deliverableMissingUnit"     // the building, without the unit it needs
	DeliverableIncorrectUnit   = "deliverableIncorrectUnit"   // the building; the unit given is not one of it
	DeliverableUnnecessaryUnit = "deliverableUnnecessaryUnit" // the building; it has no units
	Undeliverable              = "undeliverable"              // not a delivery point
)

// Deliverability is the verdict on an address by its delivery point
// validation: the DPV match code and, for a secondary not confirmed, the
// footnote C1 (a unit given that the building does not have).
func Deliverability(a Analysis) string {
	switch a.DpvMatchCode {
	case DPVConfirmed:
		return Deliverable
	case DPVDefault:
		return DeliverableMissingUnit
	case DPVSecondaryUnknown:
		if slices.Contains(a.DpvFootnotes, "C1") {
			return DeliverableIncorrectUnit
		}
		return DeliverableUnnecessaryUnit
	}
	return Undeliverable
}

// The DPV match codes.
const (
	DPVConfirmed        = "Y" // primary and secondary (if any) confirmed
	DPVSecondaryUnknown = "S" // primary confirmed, the secondary given was not
	DPVDefault          = "D" // primary confirmed, the secondary it needs is missing
	DPVNotConfirmed     = "N" // not a delivery point
)

// confirmedReason is the reason given for a confirmed delivery point, test
// address or not.
const confirmedReason = "the address is a confirmed delivery point"

// analyse standardizes an address and simulates its delivery point
// validation from what the rules can see (usps.Check): a fault of the last
// line or the ZIP Code, or a missing house or box number, is not a delivery
// point (N); a multi-unit building without a unit reaches only the building
// (D); anything else is taken to be a confirmed delivery point (Y), since
// without a postal database nothing can show it is not.
func analyse(in usps.Address, lastErr error, c usps.Casing, business bool) Result {
	std := usps.Standardize(in, c)
	if std.State != "PR" {
		// Only Puerto Rico addresses have an urbanization (Publication
		// 28 29): the ZIP+4 records of every other state hold none.
		std.Urbanization = ""
	}
	line := usps.DeliveryLineOf(std)
	a := Result{Address: std}
	h := hashOf(std)
	problems := usps.Check(std)
	var first *usps.Problem
	if len(problems) > 0 {
		first = &problems[0]
	}
	switch {
	case lastErr != nil:
		a.Analysis = notMatched("A1")
		a.Reason = "the last line could not be read: " + lastErr.Error()
		return a
	case first != nil && first.Code == usps.ProblemNoPrimary:
		a.Analysis = notMatched("A1", "M1")
	case first != nil && first.Code == usps.ProblemNoBox:
		a.Analysis = notMatched("A1", "P1")
	case first != nil && (first.Code == usps.ProblemNoUnitNumber || first.Code == usps.ProblemBuildingNoApt):
		a.Analysis = matched(DPVDefault, "AA", "N1")
	case first != nil:
		a.Analysis = notMatched("A1")
	default:
		a.Analysis = matched(DPVConfirmed, "AA", "BB")
	}
	if first != nil {
		a.Reason = first.Message
	} else {
		a.Reason = confirmedReason
	}
	if a.Analysis.DpvMatchCode == DPVNotConfirmed {
		// Only what the ZIP Code tells is known of an address not found.
		if first == nil || first.Code == usps.ProblemNoPrimary || first.Code == usps.ProblemNoBox || first.Code == usps.ProblemNoStreet {
			a.Metadata = Metadata{ZipCodeType: "standard", TimeZone: usps.TimeZoneOf(std.State, std.ZIP)}
		}
		return a
	}
	if line.PMB != "" {
		a.Analysis.DpvCmra = "Y"
		a.Analysis.DpvFootnotes = append(a.Analysis.DpvFootnotes, "RR")
	}
	switch line.Kind {
	case usps.LineMilitary:
		a.Analysis.DpvFootnotes = append(a.Analysis.DpvFootnotes, "F1")
	case usps.LineGeneralDelivery:
		a.Analysis.DpvFootnotes = append(a.Analysis.DpvFootnotes, "G1")
	}
	if a.Address.Plus4 == "" {
		a.Address.Plus4 = fmt.Sprintf("%04d", 1+h%9999)
	}
	a.Metadata = simulatedMetadata(a.Address, line, business, h, a.Analysis.DpvMatchCode == DPVDefault)
	return a
}

// matched is the analysis of a delivery point that was found.
func matched(code string, footnotes ...string) Analysis {
	return Analysis{
		DpvMatchCode: code, DpvFootnotes: slices.Clone(footnotes), DpvCmra: "N", DpvVacant: "N", DpvNoStat: "N",
		DpvActive: "Y", DpvThrowback: "N", DpvNonDeliveryDayIndicator: "N", DpvNoSecureLocation: "N",
		DpvDoorNotAccessible: "N",
	}
}

// notMatched is the analysis of an address that is not a delivery point:
// the delivery point flags do not apply and are left empty.
func notMatched(footnotes ...string) Analysis {
	return Analysis{DpvMatchCode: DPVNotConfirmed, DpvFootnotes: slices.Clone(footnotes), DpvActive: "N"}
}

// commercialUnits are unit designators found in business buildings.
var commercialUnits = map[string]bool{"STE": true, "OFC": true, "DEPT": true, "FL": true, "RM": true, "HNGR": true, "LBBY": true}

// simulatedMetadata fills the metadata a postal database would give, from
// what is known (state, ZIP Code, line kind) and, for what is not (carrier
// route, eLOT, district), from a hash of the address, so the same address
// always gets the same values.
func simulatedMetadata(a usps.Address, line usps.DeliveryLine, business bool, h uint64, defaultBuilding bool) Metadata {
	st, _ := usps.LookupState(a.State)
	m := Metadata{
		RecordType: "street", AddressType: "residential", ZipCodeType: "standard",
		CarrierRoute: fmt.Sprintf("C%03d", 1+h%99), CarrierRouteType: "cityDelivery",
		DefaultBuildingAddress: defaultBuilding,
		ElotSequence:           fmt.Sprintf("%04d", 1+(h>>8)%9999), ElotSort: "A",
		Latitude: st.Lat, Longitude: st.Lon, Precision: "state",
		TimeZone: usps.TimeZoneOf(a.State, a.ZIP),
	}
	if (h>>20)%2 == 1 {
		m.ElotSort = "D"
	}
	if st.FIPS != "" && len(a.ZIP) == 5 {
		m.UspsFinanceNumber = st.FIPS + fmt.Sprintf("%04d", (h>>24)%10000)
	}
	switch {
	case st.Districts == 1:
		m.CongressionalDistrict = "AL"
	case st.Districts > 1:
		m.CongressionalDistrict = fmt.Sprintf("%02d", 1+(h>>32)%uint64(st.Districts))
	case st.Kind == usps.KindDistrict || st.Kind == usps.KindTerritory:
		m.CongressionalDistrict = "98"
	}
	if line.HasUnit() || defaultBuilding {
		m.RecordType = "highrise"
	}
	for _, s := range line.Secondaries {
		if commercialUnits[s.Designator] {
			m.AddressType = "commercial"
		}
	}
	if business {
		m.AddressType = "commercial"
	}
	switch line.Kind {
	case usps.LinePOBox:
		m.RecordType, m.CarrierRouteType = "poBox", "poBox"
		m.CarrierRoute = fmt.Sprintf("B%03d", 1+h%99)
	case usps.LineRuralRoute:
		m.RecordType, m.CarrierRouteType = "ruralRoute", "ruralRoute"
		m.CarrierRoute = "R" + routeNumber(line.RouteNumber)
	case usps.LineHighwayContract:
		m.RecordType, m.CarrierRouteType = "ruralRoute", "highwayContract"
		m.CarrierRoute = "H" + routeNumber(line.RouteNumber)
	case usps.LineGeneralDelivery:
		m.RecordType, m.CarrierRouteType, m.CarrierRoute = "generalDelivery", "generalDelivery", "G001"
	}
	if st.Kind == usps.KindMilitary {
		m.ZipCodeType, m.Precision = "military", ""
	}
	return m
}

// routeNumber writes a route number as the three digits of a carrier route.
func routeNumber(n string) string {
	if len(n) <= 3 && n != "" && strings.Trim(n, "0123456789") == "" {
		return strings.Repeat("0", 3-len(n)) + n
	}
	return "001"
}

// hashOf is a stable hash of a standardized address, the seed of everything
// simulated about it. It reads the address in upper case, so both casings
// get the same values.
func hashOf(a usps.Address) uint64 {
	h := fnv.New64a()
	for _, s := range []string{a.Line1, a.Line2, a.City, a.State, a.ZIP} {
		h.Write([]byte(strings.ToUpper(s)))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
