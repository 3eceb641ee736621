package usps

import (
	"regexp"
	"strings"
)

// LineKind is the kind of a delivery address line.
type LineKind int

// The kinds of delivery lines.
const (
	// LineStreet is a street address: 123 N MAIN ST APT 4.
	LineStreet LineKind = iota
	// LinePOBox is a post office box: PO BOX 123.
	LinePOBox
	// LineRuralRoute is a rural route box: RR 2 BOX 45.
	LineRuralRoute
	// LineHighwayContract is a highway contract route box: HC 5 BOX 12.
	LineHighwayContract
	// LineMilitary is a military unit, postal service center or ship:
	// UNIT 2050 BOX 4190, PSC 802 BOX 74, CMR 450 BOX 123, USS NIMITZ.
	LineMilitary
	// LineGeneralDelivery is mail held at the post office: GENERAL DELIVERY.
	LineGeneralDelivery
)

var lineKindNames = [...]string{"street", "poBox", "ruralRoute", "highwayContract", "military", "generalDelivery"}

// String returns the kind's name.
func (k LineKind) String() string {
	if k >= 0 && int(k) < len(lineKindNames) {
		return lineKindNames[k]
	}
	return "unknown"
}

// Secondary is a secondary unit: a designator (APT, STE, # ...) and its
// number, which is empty for designators that need none (REAR, PH) or when
// it is missing.
type Secondary struct {
	Designator string
	Number     string
}

// DeliveryLine is a delivery address line taken apart, in upper case.
type DeliveryLine struct {
	Kind LineKind
	// PrimaryNumber is the house number of a street address (123, 123 1/2,
	// 123-45, N123W456).
	PrimaryNumber   string
	Predirectional  string
	StreetName      string
	Suffix          string
	Postdirectional string
	// Route is the route or unit of a rural route, highway contract or
	// military line: RR 2, HC 5, PSC 802, CMR 450, UNIT 2050.
	RouteType   string
	RouteNumber string
	// BoxNumber is the box of a PO box, route or military line.
	BoxNumber   string
	Secondaries []Secondary
	// PMB is the private mailbox number at a commercial mail receiving agency.
	PMB string
}

// HasUnit reports whether the line names a unit with its number (or a
// unit that needs no number, like REAR).
func (d DeliveryLine) HasUnit() bool {
	for _, s := range d.Secondaries {
		if s.Number != "" || !unitNeedsNum[s.Designator] {
			return true
		}
	}
	return false
}

// MissingUnitNumber reports whether a designator that needs a number (APT,
// STE) has none.
func (d DeliveryLine) MissingUnitNumber() bool {
	for _, s := range d.Secondaries {
		if s.Number == "" && unitNeedsNum[s.Designator] {
			return true
		}
	}
	return false
}

// ParseDeliveryLine takes a delivery line apart by the rules of Publication 28.
func ParseDeliveryLine(s string) DeliveryLine {
	return parseLine(tokens(s))
}

// Format writes the line in standard form and casing c.
func (d DeliveryLine) Format(c Casing) string {
	return caseWords(d.words(), c)
}

func (d DeliveryLine) words() []string {
	var w []string
	add := func(parts ...string) {
		for _, p := range parts {
			w = append(w, strings.Fields(p)...)
		}
	}
	switch d.Kind {
	case LineGeneralDelivery:
		add("GENERAL DELIVERY")
	case LinePOBox:
		add("PO BOX", d.BoxNumber)
	case LineRuralRoute, LineHighwayContract, LineMilitary:
		add(d.RouteType, d.RouteNumber)
		if d.BoxNumber != "" {
			add("BOX", d.BoxNumber)
		}
		add(d.StreetName)
	default:
		add(d.PrimaryNumber, d.Predirectional, d.StreetName, d.Suffix, d.Postdirectional)
	}
	for _, s := range d.Secondaries {
		add(s.Designator, s.Number)
	}
	if d.PMB != "" {
		add("PMB", d.PMB)
	}
	return w
}

var (
	reRouteJoined = regexp.MustCompile(`^(RR|HC|PSC|CMR)([0-9]+)$`)
	reFraction    = regexp.MustCompile(`^[0-9]+/[0-9]+$`)
	reInterstate  = regexp.MustCompile(`^I-([0-9]+)$`)
)

// matchPrefix reports how many leading words of t match one of the
// patterns, longest first.
func matchPrefix(t []string, patterns [][]string) int {
	best := 0
	for _, w := range patterns {
		if len(w) <= len(t) && len(w) > best && equalWords(t[:len(w)], w) {
			best = len(w)
		}
	}
	return best
}

// wordLists splits each pattern into its words.
func wordLists(patterns ...string) [][]string {
	out := make([][]string, len(patterns))
	for i, p := range patterns {
		out[i] = strings.Fields(p)
	}
	return out
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var (
	poBoxWords    = wordLists("PO BOX", "P O BOX", "POST OFFICE BOX", "POST BOX", "POBOX", "POB", "P O B", "BOX", "PO DRAWER", "DRAWER")
	ruralWords    = wordLists("RR", "R R", "RURAL ROUTE", "RURAL RTE", "RURAL RT", "RURAL", "RFD", "RFD ROUTE", "R F D")
	routeWords    = wordLists("RT", "RTE", "ROUTE")
	hcWords       = wordLists("HC", "H C", "HIGHWAY CONTRACT", "HWY CONTRACT", "HWY CONT", "HIGHWAY CONTRACT ROUTE", "STAR ROUTE", "STAR RTE", "STAR RT")
	boxWords      = wordLists("BOX", "BX", "BOX #", "BX #", "#")
	boxWord       = wordLists("BOX", "BX")
	militaryWords = wordLists("PSC", "CMR")
)

// parseLine classifies and takes apart the words of a delivery line.
func parseLine(t []string) DeliveryLine {
	t = append([]string(nil), t...)
	if len(t) > 1 {
		if n, ok := spelledNumber[t[0]]; ok {
			t[0] = n
		}
	}
	if len(t) > 0 {
		if m := reRouteJoined.FindStringSubmatch(t[0]); m != nil {
			t = append([]string{m[1], m[2]}, t[1:]...)
		}
	}
	var d DeliveryLine
	if len(t) >= 2 && t[0] == "GENERAL" && t[1] == "DELIVERY" {
		d.Kind = LineGeneralDelivery
		if extra := d.stripTrailing(t[2:], false); len(extra) == 0 {
			return d
		}
		return parseStreet(t)
	}
	if n := matchPrefix(t, poBoxWords); n > 0 {
		rest := t[n:]
		if len(rest) > 0 && rest[0] == "#" {
			rest = rest[1:]
		}
		// A lone BOX needs its number: "BOX HILL RD" is a street.
		if len(rest) > 0 && isNumberish(rest[0]) {
			d.Kind, d.BoxNumber = LinePOBox, rest[0]
			if extra := d.stripTrailing(rest[1:], false); len(extra) > 0 {
				return parseStreet(t)
			}
			return d
		}
		if len(rest) == 0 && t[0] != "BOX" && t[0] != "DRAWER" {
			d.Kind = LinePOBox
			return d
		}
	}
	if n := matchPrefix(t, ruralWords); n > 0 && len(t) > n && hasDigit(t[n]) {
		if d, ok := parseRoute(LineRuralRoute, "RR", t[n:]); ok {
			return d
		}
	}
	if n := matchPrefix(t, routeWords); n > 0 && len(t) > n+1 && hasDigit(t[n]) && matchPrefix(t[n+1:], boxWord) > 0 {
		if d, ok := parseRoute(LineRuralRoute, "RR", t[n:]); ok {
			return d
		}
	}
	if n := matchPrefix(t, hcWords); n > 0 && len(t) > n && hasDigit(t[n]) {
		if d, ok := parseRoute(LineHighwayContract, "HC", t[n:]); ok {
			return d
		}
	}
	if n := matchPrefix(t, militaryWords); n > 0 && len(t) > n && hasDigit(t[n]) {
		if d, ok := parseRoute(LineMilitary, t[0], t[n:]); ok {
			return d
		}
	}
	if len(t) >= 4 && t[0] == "UNIT" && hasDigit(t[1]) && matchPrefix(t[2:], boxWord) > 0 {
		if d, ok := parseRoute(LineMilitary, "UNIT", t[1:]); ok {
			return d
		}
	}
	if len(t) >= 2 && (t[0] == "USS" || t[0] == "USNS" || t[0] == "USCGC") {
		d.Kind, d.RouteType = LineMilitary, t[0]
		d.StreetName = strings.Join(d.stripTrailing(t[1:], true), " ")
		return d
	}
	return parseStreet(t)
}

// parseRoute reads "NUMBER [BOX NUMBER] [unit...]" after a route word.
func parseRoute(kind LineKind, routeType string, t []string) (DeliveryLine, bool) {
	d := DeliveryLine{Kind: kind, RouteType: routeType, RouteNumber: t[0]}
	rest := t[1:]
	if n := matchPrefix(rest, boxWords); n > 0 {
		if len(rest) == n || !isNumberish(rest[n]) {
			return d, false
		}
		d.BoxNumber = rest[n]
		rest = rest[n+1:]
	}
	if extra := d.stripTrailing(rest, false); len(extra) > 0 {
		return d, false
	}
	return d, true
}

// parseStreet takes apart a street address line.
func parseStreet(t []string) DeliveryLine {
	d, moved := parseStreetUnits(t, true)
	if moved {
		// Moved to the end, a unit can join what is there (APT and # 5
		// read as APT 5); then it stays where it was written.
		if s := d.Format(Upper); parseLine(tokens(s)).Format(Upper) != s {
			d, _ = parseStreetUnits(t, false)
		}
	}
	return d
}

// parseStreetUnits takes apart a street line, moving units written before
// the house number to the end when moveLeading; it reports whether it did.
func parseStreetUnits(t []string, moveLeading bool) (DeliveryLine, bool) {
	d := DeliveryLine{Kind: LineStreet}
	// A unit written before the house number (SUITE 200 123 MAIN ST) goes
	// to the end of the line, where Publication 28 puts it.
	var leading []Secondary
	// It moves only when a house number and a street word follow, so that
	// at the end it is read as a unit again.
	for moveLeading && len(t) > 3 && (unitNeedsNum[units[t[0]]] || t[0] == "#") && isNumberish(t[1]) && hasDigit(t[2]) {
		designator := units[t[0]]
		if t[0] == "#" {
			designator = "#"
		}
		leading = append(leading, Secondary{designator, t[1]})
		t = t[2:]
	}
	t = d.stripTrailing(t, true)
	d.Secondaries = append(d.Secondaries, leading...)
	if len(t) > 0 && hasDigit(t[0]) {
		d.PrimaryNumber = t[0]
		t = t[1:]
		if len(t) > 0 && reFraction.MatchString(t[0]) {
			d.PrimaryNumber += " " + t[0]
			t = t[1:]
		}
	}
	if len(t) >= 2 {
		if dir, ok := directionals[t[len(t)-1]]; ok {
			d.Postdirectional = dir
			t = t[:len(t)-1]
		}
	}
	if len(t) >= 2 {
		if suf, ok := suffixes[t[len(t)-1]]; ok && !isRouteWord(t[len(t)-2]) {
			d.Suffix = suf
			t = t[:len(t)-1]
		}
	}
	if len(t) >= 2 {
		if dir, ok := directionals[t[0]]; ok {
			d.Predirectional = dir
			t = t[1:]
		}
	}
	d.StreetName = strings.Join(streetName(t), " ")
	// Publication 28 abbreviates to meet a line length: a numbered road
	// written out that takes the line past MaxLineLength keeps the words it
	// was written with (HWY 66).
	if written := strings.Join(t, " "); len(d.StreetName) > len(written) && len(d.Format(Upper)) > MaxLineLength {
		d.StreetName = written
	}
	return d, len(leading) > 0
}

// isRouteWord reports whether w names a numbered road when a number follows
// it; its suffix-like successor is then not a suffix (COUNTY ROAD).
func isRouteWord(w string) bool { return w == "COUNTY" || w == "CO" || w == "STATE" || w == "FARM" }

// streetName writes the numbered-road names of Publication 28 in full:
// HWY 66 -> HIGHWAY 66, CR 12 -> COUNTY ROAD 12, SR 9 -> STATE ROUTE 9,
// I-95 -> INTERSTATE 95.
func streetName(t []string) []string {
	var out []string
	numberAt := func(i int) bool { return i < len(t) && hasDigit(t[i]) }
	for i := 0; i < len(t); i++ {
		w := t[i]
		if m := reInterstate.FindStringSubmatch(w); m != nil {
			out = append(out, "INTERSTATE", m[1])
			continue
		}
		switch {
		case w == "I" && numberAt(i+1) && i == 0:
			out = append(out, "INTERSTATE")
		case suffixes[w] == "HWY" && numberAt(i+1):
			out = append(out, "HIGHWAY")
		case suffixes[w] == "AVE" && i == 0 && len(t) == 2 && isNumberish(t[1]):
			// Avenues named by a letter or number: AVE J -> AVENUE J.
			out = append(out, "AVENUE")
		case (w == "RT" || w == "RTE") && numberAt(i+1):
			out = append(out, "ROUTE")
		case w == "CR" && numberAt(i+1):
			out = append(out, "COUNTY", "ROAD")
		case w == "SR" && numberAt(i+1):
			out = append(out, "STATE", "ROUTE")
		case (w == "CO" || w == "COUNTY") && i+1 < len(t) && t[i+1] == "RD" && numberAt(i+2):
			out = append(out, "COUNTY", "ROAD")
			i++
		case (w == "ST" || w == "STATE") && i+1 < len(t) && (t[i+1] == "RT" || t[i+1] == "RTE" || t[i+1] == "ROUTE") && numberAt(i+2):
			out = append(out, "STATE", "ROUTE")
			i++
		case w == "ST" && i+1 < len(t) && suffixes[t[i+1]] == "HWY" && numberAt(i+2):
			out = append(out, "STATE")
		default:
			out = append(out, w)
		}
	}
	return out
}

// stripTrailing takes the secondary units and the private mailbox off the
// end of t into d and returns what is left. keepStreet leaves at least a
// house number and a street name word (or one word when there is no house
// number), so "123 PIER 39" stays a street.
func (d *DeliveryLine) stripTrailing(t []string, keepStreet bool) []string {
	var found []Secondary
	enough := func(rest []string) bool {
		if !keepStreet {
			return true
		}
		if len(rest) > 0 && hasDigit(rest[0]) {
			return len(rest) >= 2
		}
		return len(rest) >= 1
	}
	for len(t) > 0 {
		n := len(t)
		last := t[n-1]
		var take int
		var sec Secondary
		pmb := false
		switch {
		case n >= 3 && t[n-2] == "#" && isNumberish(last) && (unitNeedsNum[units[t[n-3]]] || t[n-3] == "PMB"):
			take, sec = 3, Secondary{units[t[n-3]], last}
			pmb = t[n-3] == "PMB"
		case n >= 2 && t[n-2] == "PMB" && isNumberish(last):
			take, pmb, sec = 2, true, Secondary{Number: last}
		case n >= 3 && t[n-3] == "PRIVATE" && t[n-2] == "MAILBOX" && isNumberish(last):
			take, pmb, sec = 3, true, Secondary{Number: last}
		case n >= 2 && isOrdinal(t[n-2]) && units[last] == "FL":
			take, sec = 2, Secondary{"FL", t[n-2][:len(t[n-2])-2]}
		case n >= 2 && (units[t[n-2]] != "" && unitNeedsNum[units[t[n-2]]] || t[n-2] == "#") && isNumberish(last):
			designator := units[t[n-2]]
			if t[n-2] == "#" {
				designator = "#"
			}
			take, sec = 2, Secondary{designator, last}
		case units[last] != "" && (n == 1 || afterStreet(t[n-2])):
			take, sec = 1, Secondary{Designator: units[last]}
		}
		if take == 0 || !enough(t[:n-take]) {
			break
		}
		if pmb {
			if d.PMB != "" {
				break
			}
			d.PMB = sec.Number
		} else {
			found = append(found, sec)
		}
		t = t[:n-take]
	}
	for i := len(found) - 1; i >= 0; i-- {
		d.Secondaries = append(d.Secondaries, found[i])
	}
	return t
}

// afterStreet reports whether a word can end the street part of a line, so
// that a unit word after it (REAR, PH, APT without its number) is a unit and
// not part of the street name (OCEAN SIDE).
func afterStreet(w string) bool {
	if _, ok := suffixes[w]; ok {
		return true
	}
	if _, ok := directionals[w]; ok {
		return true
	}
	return hasDigit(w)
}

// secondaryOnly reads a line that holds only secondary units and a private
// mailbox (APT 4B, STE 100 PMB 12, 3RD FLOOR).
func secondaryOnly(t []string) (DeliveryLine, bool) {
	if len(t) == 0 {
		return DeliveryLine{}, false
	}
	var d DeliveryLine
	rest := d.stripTrailing(t, false)
	if len(rest) > 0 {
		return DeliveryLine{}, false
	}
	// Any unit word alone is a line of units too (SUITE, REAR); a number
	// it needs and lacks is for Check to report.
	return d, true
}
