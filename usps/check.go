package usps

import "fmt"

// ProblemCode names a fault that can be seen in an address without a
// postal database.
type ProblemCode string

// The problems Check finds.
const (
	ProblemNoCity        ProblemCode = "noCity"
	ProblemUnknownState  ProblemCode = "unknownState"
	ProblemNoZIP         ProblemCode = "noZip"
	ProblemBadZIP        ProblemCode = "badZip"
	ProblemUnusedPrefix  ProblemCode = "unusedZipPrefix"
	ProblemZIPState      ProblemCode = "zipStateMismatch"
	ProblemMilitary      ProblemCode = "militaryMismatch"
	ProblemNoPrimary     ProblemCode = "noPrimaryNumber"
	ProblemNoStreet      ProblemCode = "noStreetName"
	ProblemNoBox         ProblemCode = "noBoxNumber"
	ProblemNoUnitNumber  ProblemCode = "noUnitNumber"
	ProblemBuildingNoApt ProblemCode = "buildingWithoutUnit"
)

// Problem is one fault of an address, with a sentence that says what it is.
type Problem struct {
	Code    ProblemCode
	Message string
}

// Check returns the faults of a standardized address that the rules and
// tables of this package can see, most serious first: a last line that is
// incomplete, a ZIP Code that is malformed, not in use or not in the state,
// a military city with a civilian state (or the reverse), a delivery line
// without its house, box or unit number, and a multi-unit building named
// without a unit. An empty result does not prove the address exists.
func Check(a Address) []Problem {
	var ps []Problem
	add := func(code ProblemCode, format string, args ...any) {
		ps = append(ps, Problem{code, fmt.Sprintf(format, args...)})
	}
	st, knownState := LookupState(a.State)
	switch {
	case a.State == "":
		add(ProblemUnknownState, "the address has no state")
	case !knownState:
		add(ProblemUnknownState, "%s is not a state code", a.State)
	}
	city := tokens(a.City)
	if len(city) == 0 {
		add(ProblemNoCity, "the address has no city")
	}
	switch {
	case a.ZIP == "":
		add(ProblemNoZIP, "the address has no ZIP Code")
	case len(a.ZIP) != 5 || !allDigits(a.ZIP):
		add(ProblemBadZIP, "ZIP Code %s is not five digits", a.ZIP)
	case !PrefixInUse(a.ZIP):
		add(ProblemUnusedPrefix, "ZIP Code %s is not in use: no post office has the prefix %s", a.ZIP, a.ZIP[:3])
	case knownState && !ZIPMatchesState(a.ZIP, st.Code):
		sts, _ := StatesOfZIP(a.ZIP)
		add(ProblemZIPState, "ZIP Code %s is in %s, not in %s", a.ZIP, sts[0], st.Code)
	}
	military := len(city) == 1 && (city[0] == "APO" || city[0] == "FPO" || city[0] == "DPO")
	switch {
	case knownState && military && st.Kind != KindMilitary:
		add(ProblemMilitary, "%s mail goes to AA, AE or AP, not %s", city[0], st.Code)
	case knownState && !military && st.Kind == KindMilitary:
		add(ProblemMilitary, "mail to %s goes to APO, FPO or DPO, not %s", st.Code, a.City)
	}
	line := deliveryLineOf(a)
	if line.Kind == LineMilitary && knownState && !military && st.Kind != KindMilitary {
		add(ProblemMilitary, "a military line (%s) is delivered through APO, FPO or DPO, not %s", line.Format(Upper), a.City)
	}
	switch line.Kind {
	case LineStreet:
		switch {
		case line.PrimaryNumber == "":
			add(ProblemNoPrimary, "the delivery line has no house or building number")
		case line.StreetName == "":
			add(ProblemNoStreet, "the delivery line has no street name")
		}
	case LinePOBox, LineRuralRoute, LineHighwayContract:
		if line.BoxNumber == "" {
			add(ProblemNoBox, "the %s has no box number", map[LineKind]string{
				LinePOBox: "PO box", LineRuralRoute: "rural route", LineHighwayContract: "highway contract route",
			}[line.Kind])
		}
	}
	switch {
	case line.MissingUnitNumber():
		add(ProblemNoUnitNumber, "the unit designator has no number")
	case !line.HasUnit() && line.Kind == LineStreet && namesBuilding(a):
		add(ProblemBuildingNoApt, "the address names a multi-unit building but no apartment or suite number")
	}
	return ps
}

// DeliveryLineOf returns the delivery line of a standardized address, taken
// apart: the second line when it is one, else the first. Of two delivery
// lines (a street and a PO box), mail goes to the one just above the last
// line (Publication 28 215).
func DeliveryLineOf(a Address) DeliveryLine { return deliveryLineOf(a) }

func deliveryLineOf(a Address) DeliveryLine {
	t1, t2 := tokens(a.Line1), tokens(a.Line2)
	if isDelivery(t2) {
		return parseIn(t2, a.State)
	}
	return parseIn(t1, a.State)
}

// namesBuilding reports whether a line of the address names a multi-unit
// building (PARKVIEW APARTMENTS, HARBOR TOWERS).
func namesBuilding(a Address) bool {
	for _, l := range []string{a.Line1, a.Line2} {
		for _, w := range tokens(l) {
			if buildingWords[w] {
				return true
			}
		}
	}
	return false
}
