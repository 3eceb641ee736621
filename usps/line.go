package usps

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
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
	return parseLine(tokens(spacedRange(boxHyphen(s))), "")
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
	reRouteJoined = regexp.MustCompile(`^(RR|RFD|HC|PSC|CMR)([0-9]+)$`)
	reFraction    = regexp.MustCompile(`^[0-9]+/[0-9]+$`)
)

// matchPrefix reports how many leading words of t match one of the
// patterns, longest first.
func matchPrefix(t []string, patterns wordList) int {
	if len(t) == 0 || !patterns.first[t[0]] {
		return 0
	}
	best := 0
	for _, w := range patterns.lists {
		if len(w) <= len(t) && len(w) > best && equalWords(t[:len(w)], w) {
			best = len(w)
		}
	}
	return best
}

// wordList is a list of word patterns, with the set of their first words
// to rule most lines out at once.
type wordList struct {
	first map[string]bool
	lists [][]string
}

// wordLists splits each pattern into its words.
func wordLists(patterns ...string) wordList {
	out := wordList{first: map[string]bool{}, lists: make([][]string, len(patterns))}
	for i, p := range patterns {
		out.lists[i] = strings.Fields(p)
		out.first[out.lists[i][0]] = true
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
	// poBoxWords are the ways a PO box is written (POST OFFICE BOX also
	// as one word, POSTOFFICE BOX, and POST BOX or POSTAL BOX, all of
	// which Publication 28 281 prints as PO BOX); Publication 28 283
	// prints CALLER, FIRM CALLER, BIN, LOCKBOX and DRAWER as PO BOX too,
	// also after PO (PO CALLER, P O DRAWER), and APARTADO is the Spanish
	// word for it (Puerto Rico).
	poBoxWords = wordLists(append([]string{"PO BOX", "P O BOX", "POST OFFICE BOX", "POSTOFFICE BOX", "POST BOX", "POSTAL BOX", "POBOX", "P OBOX", "POB", "P O B", "BOX",
		"PO BX", "P O BX", "POST OFFICE BX", "GPO BOX", "APARTADO"}, poBoxDesignations("DRAWER", "CALLER", "FIRM CALLER", "BIN", "LOCKBOX", "LOCK BOX")...)...)
	// ruralWords and hcWords are the ways a rural route and a highway
	// contract are written, RURAL ROUTE and STAR ROUTE also as one word,
	// and HCR (highway contract route) also with its R apart, as RR is
	// written R R.
	ruralWords = wordLists("RR", "R R", "RURAL ROUTE", "RURALROUTE", "RURAL RTE", "RURAL RT", "RURAL", "RFD", "RFD ROUTE", "R F D")
	// routeWords name a rural route only when a box follows its number;
	// RD is rural delivery (Publication 28 244).
	routeWords    = wordLists("RT", "RTE", "ROUTE", "RD")
	hcWords       = wordLists("HC", "H C", "HCR", "HC R", "HIGHWAY CONTRACT", "HWY CONTRACT", "HWY CONT", "HIGHWAY CONTRACT ROUTE", "STAR ROUTE", "STARROUTE", "STAR RTE", "STAR RT")
	boxWords      = wordLists("BOX", "BX", "BOX #", "BX #", "#")
	boxWord       = wordLists("BOX", "BX")
	militaryWords = wordLists("PSC", "CMR")
	// routeNoise are words written between a route or box word and its
	// number that Publication 28 241, 251 and 281 leave out: RR # 1, RR
	// NO 1, HC ROUTE 68, PO BOX NO 12.
	routeNoise = map[string]bool{"#": true, "NO": true, "NUMBER": true, "ROUTE": true, "RTE": true, "RT": true}
)

// poBoxDesignations returns the designations Publication 28 283 prints as
// PO BOX, each alone and after PO, P O and POST OFFICE.
func poBoxDesignations(words ...string) []string {
	var out []string
	for _, w := range words {
		for _, po := range []string{"", "PO ", "P O ", "POST OFFICE "} {
			out = append(out, po+w)
		}
	}
	return out
}

// skipNoise drops the routeNoise words at the start of t, when a number
// follows them.
func skipNoise(t []string) []string {
	for i := 0; i < len(t); i++ {
		if !routeNoise[t[i]] {
			if i > 0 && !hasDigit(t[i]) {
				return t
			}
			return t[i:]
		}
	}
	return t
}

// trimZeros drops the leading zeros of a route number: Publication 28 242
// and 252 (RR 04 -> RR 4, HC 068 -> HC 68).
func trimZeros(n string) string {
	i := 0
	for i < len(n)-1 && n[i] == '0' && n[i+1] >= '0' && n[i+1] <= '9' {
		i++
	}
	return n[i:]
}

// parseLine classifies and takes apart the words of a delivery line of an
// address in state (a code, or empty when unknown).
func parseLine(t []string, state string) DeliveryLine { return parseLineAs(t, state, true) }

// parseLineAs is parseLine; moveLeading says whether units written before
// the house number or right after it move to the end of a street line
// (parseStreetUnits).
func parseLineAs(t []string, state string, moveLeading bool) DeliveryLine {
	t = boxBeforeRoute(t)
	if split, ok := splitPackedBox(t); ok {
		// A box number written onto BOX (BOX274, RR 2 BOX274, POBOX274)
		// is the box and its number, as Publication 28 241 and 281 print
		// them; a street that has such a word keeps it as written.
		if d := parseLineAs(split, state, moveLeading); d.Kind != LineStreet {
			return d
		}
	}
	t = append([]string(nil), t...)
	if n, k := spelledHouseNumber(t); k > 1 {
		// TWO HUNDRED S ALLOY DR is 200 S ALLOY DR: a house number
		// spelled out in several words is one number; a line that is
		// nothing but the number stays as written.
		if k < len(t) {
			t = append([]string{n}, t[k:]...)
		}
	} else if k == 1 && len(t) > 1 {
		// FIFTY N FRONT ST is 50 N FRONT ST: one word is a number too,
		// a ten (FIFTY) or a teen (ELEVEN) as much as a unit (ONE).
		t[0] = n
	}
	if len(t) > 0 && len(t[0]) > 2 && (t[0][0] == 'R' || t[0][0] == 'H' || t[0][0] == 'P' || t[0][0] == 'C') {
		if m := reRouteJoined.FindStringSubmatch(t[0]); m != nil {
			t = append([]string{m[1], m[2]}, t[1:]...)
		}
	}
	var d DeliveryLine
	if len(t) >= 2 && (t[0] == "GENERAL" || t[0] == "GEN") && (t[1] == "DELIVERY" || t[1] == "DEL") {
		// Publication 28 261: the words GENERAL DELIVERY, spelled out,
		// whatever abbreviation they were written in (GEN DEL).
		d.Kind = LineGeneralDelivery
		if extra := d.stripTrailing(t[2:], false); len(extra) == 0 {
			return d
		}
		return parseStreet(t, state, moveLeading)
	}
	if len(t) >= 2 && poStarts[t[1]] && isNumberish(t[0]) && hasDigit(t[0]) && matchPrefix(t[1:], poBoxWords) == len(t)-1 {
		// 3300 PO BOX: the box number written first is the box's
		// (Publication 28 281 prints PO BOX 3300).
		d.Kind, d.BoxNumber = LinePOBox, t[0]
		return d
	}
	if n := matchPrefix(t, poBoxWords); n > 0 {
		rest := skipNoise(t[n:])
		// A lone BOX needs its number: "BOX HILL RD" is a street.
		if len(rest) > 0 && isNumberish(rest[0]) {
			var after []string
			d.Kind = LinePOBox
			d.BoxNumber, after = boxLetter(rest[0], rest[1:])
			if extra := d.stripTrailing(after, false); len(extra) > 0 {
				return parseStreet(t, state, moveLeading)
			}
			return d
		}
		if len(rest) == 0 && (t[0] == "PO" || t[0] == "P" || t[0] == "POST" || t[0] == "POSTOFFICE" || t[0] == "POBOX" || t[0] == "POB") {
			d.Kind = LinePOBox
			return d
		}
	}
	if n := matchPrefix(t, ruralWords); n > 0 {
		if rest := skipNoise(t[n:]); len(rest) > 0 && hasDigit(rest[0]) {
			if d, ok := parseRoute(LineRuralRoute, "RR", rest); ok {
				return d
			}
		}
	}
	if len(t) >= 3 && t[0] == "RD" && routeNoise[t[1]] && !routeAbbrs[t[1]] && hasDigit(t[2]) {
		// Publication 28 241 and 244: RD # 25 is rural delivery route 25,
		// RR 25; without the number sign RD 25 is a road (Appendix F).
		if d, ok := parseRoute(LineRuralRoute, "RR", t[2:]); ok {
			return d
		}
	}
	if len(t) >= 5 && t[0] == "RD" && routeAbbrs[t[1]] && hasDigit(t[2]) && matchPrefix(t[3:], boxWords) > 0 {
		// RD ROUTE 4 # 87A: rural delivery route 4, box 87A (Publication
		// 28 241 and 244: RR 4 BOX 87A).
		if d, ok := parseRoute(LineRuralRoute, "RR", t[2:]); ok {
			return d
		}
	}
	if num, rest, ok := rdNumbered(t); ok && len(rest) >= 2 && rest[0] == "#" && isNumberish(rest[1]) {
		// RD 51 # 25, RD51 # 25: rural delivery route 51, box 25
		// (Publication 28 241 and 244: RR 51 BOX 25). RD 51 alone, or
		// after a house number, is a road (Appendix F).
		if d, ok := parseRoute(LineRuralRoute, "RR", append([]string{num}, rest...)); ok {
			return d
		}
	}
	if n := matchPrefix(t, routeWords); n > 0 && len(t) > n+1 && hasDigit(t[n]) && matchPrefix(t[n+1:], boxWord) > 0 {
		if d, ok := parseRoute(LineRuralRoute, "RR", t[n:]); ok {
			return d
		}
	}
	if n := matchPrefix(t, hcWords); n > 0 {
		if rest := skipNoise(t[n:]); len(rest) > 0 && hasDigit(rest[0]) {
			if d, ok := parseRoute(LineHighwayContract, "HC", rest); ok {
				return d
			}
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
	return parseStreet(t, state, moveLeading)
}

// rdNumbered reads RD and a route number at the start of t, written
// apart or as one word (RD 51, RD51), and returns the number and the
// words after it.
func rdNumbered(t []string) (num string, rest []string, ok bool) {
	switch {
	case len(t) >= 2 && t[0] == "RD" && allDigits(t[1]):
		return t[1], t[2:], true
	case len(t) >= 1 && len(t[0]) > 2 && strings.HasPrefix(t[0], "RD") && allDigits(t[0][2:]):
		return t[0][2:], t[1:], true
	}
	return "", nil, false
}

// boxBeforeRoute moves a box written before its rural route or highway
// contract after it (BOX 218 RR 1 -> RR 1 BOX 218), the order of
// Publication 28 241 and 251.
func boxBeforeRoute(t []string) []string {
	if len(t) < 4 || matchPrefix(t, boxWord) != 1 || !isNumberish(t[1]) {
		return t
	}
	n := matchPrefix(t[2:], ruralWords)
	if n == 0 {
		n = matchPrefix(t[2:], hcWords)
	}
	if n == 0 || len(t) <= 2+n || !hasDigit(t[2+n]) {
		return t
	}
	out := append(make([]string, 0, len(t)), t[2:3+n]...)
	return append(append(out, t[:2]...), t[3+n:]...)
}

// rePackedBox is a box number written onto BOX or BX, alone, after a
// route's number or after PO: BOX274, BX274, 2BOX274, POBOX274.
var rePackedBox = regexp.MustCompile(`^(PO|[0-9]+)?(BOX|BX)([0-9][0-9A-Z]*)$`)

// splitPackedBox returns t with each word that is a box number written
// onto BOX or BX split into its words (RR 2BOX274 -> RR 2 BOX 274), and
// whether there was one.
func splitPackedBox(t []string) ([]string, bool) {
	var out []string
	for i, w := range t {
		var m []string
		if len(w) > 2 && hasDigit(w) && (strings.Contains(w, "BOX") || strings.Contains(w, "BX")) {
			m = rePackedBox.FindStringSubmatch(w)
		}
		if m == nil {
			if out != nil {
				out = append(out, w)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(t)+2), t[:i]...)
		}
		if m[1] != "" {
			out = append(out, m[1])
		}
		out = append(out, m[2], m[3])
	}
	return out, out != nil
}

// spelledValues are the values of the words a house number is spelled
// out in, by kind: units (1-9), teens (10-19) and tens (20-90).
var spelledValues = map[string]struct{ value, kind int }{
	"ONE": {1, 0}, "TWO": {2, 0}, "THREE": {3, 0}, "FOUR": {4, 0}, "FIVE": {5, 0},
	"SIX": {6, 0}, "SEVEN": {7, 0}, "EIGHT": {8, 0}, "NINE": {9, 0},
	"TEN": {10, 1}, "ELEVEN": {11, 1}, "TWELVE": {12, 1}, "THIRTEEN": {13, 1}, "FOURTEEN": {14, 1},
	"FIFTEEN": {15, 1}, "SIXTEEN": {16, 1}, "SEVENTEEN": {17, 1}, "EIGHTEEN": {18, 1}, "NINETEEN": {19, 1},
	"TWENTY": {20, 2}, "THIRTY": {30, 2}, "FORTY": {40, 2}, "FIFTY": {50, 2},
	"SIXTY": {60, 2}, "SEVENTY": {70, 2}, "EIGHTY": {80, 2}, "NINETY": {90, 2},
}

// spelledHouseNumber reads a number spelled out in words at the start of
// t (TWO HUNDRED, ONE THOUSAND AND FIFTY NINE, TWENTY FIVE) and returns
// it in digits with the number of words it takes; k is 0 when t does not
// start with one.
func spelledHouseNumber(t []string) (n string, k int) {
	total, cur := 0, 0
	last := -1 // kind of the last word: 0-2 as spelledValues, 3 HUNDRED, 4 THOUSAND
	end := 0
	for i, w := range t {
		switch v, ok := spelledValues[w]; {
		case ok:
			// A unit follows only a ten or a multiplier; a ten or a
			// teen only a multiplier.
			if last == 0 || last == 1 || (last == 2 && v.kind != 0) {
				return numberOf(total+cur, end)
			}
			cur += v.value
			last = v.kind
		case w == "HUNDRED" && cur > 0 && cur < 10 && last < 3:
			cur *= 100
			last = 3
		case w == "THOUSAND" && cur > 0 && total == 0 && last < 4:
			total, cur = cur*1000, 0
			last = 4
		case w == "AND" && last >= 3 && i+1 < len(t):
			continue
		default:
			return numberOf(total+cur, end)
		}
		end = i + 1
	}
	return numberOf(total+cur, end)
}

func numberOf(v, k int) (string, int) {
	if v == 0 {
		return "", 0
	}
	return strconv.Itoa(v), k
}

// parseRoute reads "NUMBER [BOX NUMBER] [unit...]" after a route word.
func parseRoute(kind LineKind, routeType string, t []string) (DeliveryLine, bool) {
	d := DeliveryLine{Kind: kind, RouteType: routeType, RouteNumber: t[0]}
	if kind != LineMilitary {
		d.RouteNumber = trimZeros(t[0])
	}
	rest := t[1:]
	if n := matchPrefix(rest, boxWords); n > 0 {
		if len(rest) > n+1 && numberWords[rest[n]] && isNumberish(rest[n+1]) {
			// BOX NUMBER 12, BOX NUM A7: Publication 28 241 and 251
			// print the box number without NUMBER, NO. or #.
			n++
		}
		if len(rest) == n || !isNumberish(rest[n]) {
			return d, false
		}
		d.BoxNumber, rest = boxLetter(rest[n], rest[n+1:])
	}
	if extra := d.stripTrailing(rest, false); len(extra) > 0 {
		return d, false
	}
	return d, true
}

// parseStreet takes apart a street address line, moving units written
// before the house number or right after it to the end when moveLeading.
func parseStreet(t []string, state string, moveLeading bool) DeliveryLine {
	d, moved := parseStreetUnits(t, moveLeading, state)
	if moved {
		// Moved to the end, a unit can join what is there (APT and # 5
		// read as APT 5), or the line would move units again (1 APT 5
		// APT F read as 1 APT F APT 5, and that as 1 APT 5 APT F); then
		// it stays where it was written. The line is read back without
		// moving units, so that the reading cannot go on without end.
		s := d.Format(Upper)
		if parseLineAs(tokens(s), state, false).Format(Upper) != s {
			d, _ = parseStreetUnits(t, false, state)
		} else if _, again := parseStreetUnits(tokens(s), true, state); again {
			d, _ = parseStreetUnits(t, false, state)
		}
	}
	return d
}

// parseStreetUnits takes apart a street line, moving units written before
// the house number to the end when moveLeading; it reports whether it did.
func parseStreetUnits(t []string, moveLeading bool, state string) (DeliveryLine, bool) {
	d := DeliveryLine{Kind: LineStreet}
	// A unit written before the house number (SUITE 200 123 MAIN ST) goes
	// to the end of the line, where Publication 28 puts it.
	var leading []Secondary
	if len(t) > 2 && t[0] == "#" && isNumberish(t[1]) && hasDigit(t[1]) && !hasDigit(t[2]) && units[t[2]] == "" && t[2] != "#" && (len(t) > 3 || len(t[2]) > 1) {
		// #5 CALLE MCKINLEY: with no other number after it, the number
		// written with the pound sign is the house number (231), and the
		// sign is no unit's (213 gives # only to a secondary address).
		t = t[1:]
	}
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
	if moveLeading && len(t) > 2 && units[t[0]] != "" && !unitNeedsNum[units[t[0]]] {
		// REAR 123 MAIN ST, REAR OF 123 MAIN ST: a unit that needs no
		// number, written before the house number, goes there too.
		k := 1
		if t[1] == "OF" {
			k = 2
		}
		if len(t) > k+1 && hasDigit(t[k]) && !isOrdinal(t[k]) {
			leading = append(leading, Secondary{Designator: units[t[0]]})
			t = t[k:]
		}
	}
	if moveLeading && len(t) > 4 && hasDigit(t[0]) && (midUnits[units[t[1]]] || t[1] == "#") && isNumberish(t[2]) && suffixes[t[3]] == "" {
		// 123 UNIT B MAIN ST: an apartment, suite or unit written between
		// the house number and a street of two words or more goes to the
		// end as well (213), where PIER 39 and UPPER stay words of the name.
		designator := units[t[1]]
		if t[1] == "#" {
			designator = "#"
		}
		leading = append(leading, Secondary{designator, t[2]})
		t = append(t[:1:1], t[3:]...)
	}
	t = splitPackedUnit(t)
	t = joinOrdinals(t)
	if n := len(t); n >= 4 && hasDigit(t[0]) && t[n-2] == "#" && (hasDigit(t[n-1]) || isLetterDesignation(t[n-1])) && designationWords(t[1:n-2]) {
		// US HWY # 41, ROUTE # A: the pound sign is the highway's
		// number sign (Appendix F writes the number or letters alone),
		// not a unit's.
		t = append(t[:n-2:n-2], t[n-1])
	}
	t = d.stripTrailing(t, true)
	t = d.bareUnit(t)
	// Units moved from before the house number come first, in the order
	// written (UNIT 3200 152 TECH DR UPPER -> 152 TECH DR UNIT 3200 UPPR,
	// 213); one written with the pound sign alone comes last, where a #
	// after another unit is its private mailbox.
	if len(leading) > 0 {
		var named, pound []Secondary
		for _, s := range leading {
			if s.Designator == "#" {
				pound = append(pound, s)
			} else {
				named = append(named, s)
			}
		}
		d.Secondaries = append(append(named, d.Secondaries...), pound...)
	}
	d.poundAsPMB()
	if len(t) > 2 && gridHouse(t[0]) && gridHouse(t[1]) {
		// Publication 28 Appendix D3: a Wisconsin grid house number is
		// one range (N6W23001), also when written in two words.
		t = append([]string{t[0] + t[1]}, t[2:]...)
	}
	// An ordinal (21ST) names a street and is no house number: a line
	// that starts with one has no house number, and the suffix after it
	// is abbreviated (21ST STREET -> 21ST ST, 234.1).
	if len(t) > 0 && hasDigit(t[0]) && !isInterstateWord(t[0]) && !isPackedHighway(t[0]) && !(isOrdinal(t[0]) && len(t) > 1) {
		d.PrimaryNumber = t[0]
		t = t[1:]
		if len(t) > 0 && strings.IndexByte(t[0], '/') > 0 && reFraction.MatchString(t[0]) {
			d.PrimaryNumber += " " + t[0]
			t = t[1:]
		}
	}
	t = d.splitGrid(t)
	if len(t) >= 3 && (t[0] == "C" || t[0] == "S") && t[1] == "R" && hasDigit(t[2]) {
		// C R 42 and S R 42 are CR 42 and SR 42 written apart
		// (Appendix F), not a directional and a street named R.
		t = append([]string{t[0] + "R"}, t[2:]...)
	}
	for i := 0; i <= 1; i++ {
		if len(t) >= i+3 && t[i] == "U" && t[i+1] == "S" && (hasDigit(t[i+2]) || highwayWord(t[i+2])) && (i == 0 || directionals[t[0]] != "") {
			// U S 401 and U S HWY 401 are US 401 written apart, as U.S.
			// is US (Appendix F): not a street named U and a
			// directional; also after a predirectional (W U S 30).
			t = append(append(t[:i:i], "US"), t[i+2:]...)
			break
		}
	}
	t = splitNameHyphens(t)
	if state == "PR" && len(t) > 0 && spanishPrefixes[t[0]] {
		// Publication 28 291 and Appendix H: a Spanish street name begins
		// with its type (CALLE, AVE, PASEO, COND), and the words after it
		// are the name: none is a suffix or a directional to abbreviate
		// (COND ASHFORD PLAZA, CALLE LUNA VISTA).
		d.StreetName = strings.Join(t, " ")
		return d, len(leading) > 0
	}
	if len(t) == 2 && directionals[t[0]] != "" && directionals[t[1]] != "" {
		// A street named by a directional after another (W NORTH, SOUTH
		// WEST) and nothing else: as with NORTH SOUTH and EAST WEST
		// (233.2), the first is the predirectional and the second the
		// street name, as written; a name is never left empty.
		d.Predirectional, d.StreetName = directionals[t[0]], t[1]
		return d, len(leading) > 0
	}
	// Publication 28 233.22 and 233.23: a directional after the street
	// name and suffix is the postdirectional; two directional words
	// (NORTH EAST) make one (NE).
	if n := len(t); n >= 3 {
		if dir, ok := compoundDirectional(t[n-2], t[n-1]); ok {
			d.Postdirectional = dir
			t = t[:n-2]
		} else if dir, ok := mixedDirectional(t[n-2], t[n-1]); ok && n >= 4 && suffixes[t[n-3]] != "" {
			// After the suffix the two words can be nothing but the
			// postdirectional, also written one spelled out and one
			// abbreviated (MAIN ST SOUTH W -> MAIN ST SW).
			d.Postdirectional = dir
			t = t[:n-2]
		}
	}
	if len(t) >= 2 && d.Postdirectional == "" {
		if dir, ok := directionals[t[len(t)-1]]; ok {
			d.Postdirectional = dir
			t = t[:len(t)-1]
		}
	}
	// Publication 28 234.1: the last word of the street name that is in
	// Appendix C1 is the suffix, abbreviated.
	if len(t) >= 2 {
		if suf, ok := suffixes[t[len(t)-1]]; ok {
			d.Suffix = suf
			t = t[:len(t)-1]
		}
	}
	// Publication 28 233.21 and 233.23: a directional before the street
	// name is the predirectional, two directional words make one, except
	// NORTH SOUTH and EAST WEST, whose second word is the street name. The
	// first word of a state's name before a highway (NORTH CAROLINA
	// HIGHWAY 54, Appendix F) is no directional.
	stateHighway := false
	if _, n, _ := statePrefix(t); n > 1 {
		stateHighway = true
	}
	if len(t) >= 3 && !stateHighway {
		if dir, ok := compoundDirectional(t[0], t[1]); ok {
			d.Predirectional = dir
			t = t[2:]
		}
	}
	if len(t) >= 2 && d.Predirectional == "" && t[1] != "AND" && t[1] != "&" && !stateHighway {
		// A directional joined to the next word by AND is a word of the
		// name (EAST AND WEST RD), not the predirectional.
		if dir, ok := directionals[t[0]]; ok {
			d.Predirectional = dir
			t = t[1:]
		}
	}
	name := streetName(t, state)
	if d.Suffix != "" && len(name) > 0 {
		last := &name[len(name)-1]
		if full, ok := directionalWords[last.long]; ok && len(name) >= 2 {
			// Publication 28 233.3: a directional between the street name
			// and the suffix is part of the name, spelled out (BAY W DR ->
			// BAY WEST DR).
			last.long, last.short = full, full
		} else if primary, ok := suffixPrimary[last.long]; ok && last.level == 0 && !suffixWords[last.long] && last.long != "ST" {
			// Publication 28 234.2: of two suffix words, the second is
			// the suffix and the first is part of the name, spelled out
			// (HIGHWAY 3 BYP RD -> HIGHWAY 3 BYPASS RD). ST is left as
			// written: it abbreviates SAINT as well as STREET, so its
			// full form is not the table's to say (6TH ST CT).
			last.long, last.short, last.level = primary, suffixes[last.long], levelSuffixWord
		}
	}
	if d.Suffix == "HWY" && namesHighway(name) {
		// Appendix F: US 70 HWY is US HIGHWAY 70; the suffix repeats the
		// highway word the name already has.
		d.Suffix = ""
	}
	// Publication 28 abbreviates to meet a line length: when the standard
	// line is longer than MaxLineLength, the numbered-road words are
	// abbreviated first (HIGHWAY 66 -> HWY 66), then a first suffix word
	// spelled out by 234.2 (MAIN STREET EXT -> MAIN ST EXT).
	d.StreetName = joinName(name, levelFull)
	if abbreviable(name) {
		for level := levelRoad; level <= levelSuffixWord && d.length() > MaxLineLength; level++ {
			d.StreetName = joinName(name, level)
		}
	}
	return d, len(leading) > 0
}

// The abbreviation levels of a street name's words: what a word written
// out at that level is abbreviated to when the line is too long.
const (
	levelFull       = 0
	levelRoad       = 1
	levelSuffixWord = 2
)

// nameWord is a word of a street name: its standard form, and the shorter
// form it takes when the line must be abbreviated to fit, from level on.
type nameWord struct {
	long, short string
	level       int
}

// abbreviable reports whether a word of the name has a shorter form.
func abbreviable(name []nameWord) bool {
	for _, w := range name {
		if w.level > levelFull && w.short != w.long {
			return true
		}
	}
	return false
}

// length is the length of the line Format writes, counted without
// writing it.
func (d DeliveryLine) length() int {
	n := 0
	add := func(s string) {
		if s == "" {
			return
		}
		if n > 0 {
			n++
		}
		n += utf8.RuneCountInString(s)
	}
	add(d.PrimaryNumber)
	add(d.Predirectional)
	add(d.StreetName)
	add(d.Suffix)
	add(d.Postdirectional)
	for _, sec := range d.Secondaries {
		add(sec.Designator)
		add(sec.Number)
	}
	if d.PMB != "" {
		add("PMB")
		add(d.PMB)
	}
	return n
}

func joinName(name []nameWord, level int) string {
	if len(name) == 1 && (name[0].level == levelFull || name[0].level > level) {
		return name[0].long
	}
	var b strings.Builder
	for i, w := range name {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.level > levelFull && w.level <= level {
			b.WriteString(w.short)
		} else {
			b.WriteString(w.long)
		}
	}
	return b.String()
}

// compoundDirectional reads two directional words that make one
// directional, spelled out or split (NORTH EAST, N E -> NE; Publication
// 28 233.23); NORTH SOUTH and EAST WEST do not.
func compoundDirectional(a, b string) (string, bool) {
	da, db := directionals[a], directionals[b]
	if (da == "N" || da == "S") && (db == "E" || db == "W") && (len(a) == 1) == (len(b) == 1) {
		return da + db, true
	}
	return "", false
}

// mixedDirectional reads two directional words that make one, one
// spelled out and one abbreviated (SOUTH W, N EAST -> SW, NE). Before the
// street name such a pair may be a directional and a street named EAST
// (N EAST ST), so only the postdirectional reads it.
func mixedDirectional(a, b string) (string, bool) {
	da, db := directionals[a], directionals[b]
	if (da == "N" || da == "S") && (db == "E" || db == "W") && (len(a) == 1) != (len(b) == 1) {
		return da + db, true
	}
	return "", false
}

// directionalWords spells out the directional abbreviations.
var directionalWords = map[string]string{
	"N": "NORTH", "S": "SOUTH", "E": "EAST", "W": "WEST",
	"NE": "NORTHEAST", "NW": "NORTHWEST", "SE": "SOUTHEAST", "SW": "SOUTHWEST",
}

// joinOrdinals joins a number and its ordinal ending written apart (10 TH
// AVE -> 10TH AVE, 2 ND AVE -> 2ND AVE): the ending must be the number's,
// and RD and ST, also suffixes, only before another suffix (3 RD ST, 1 ST
// ST; 3 RD and 21 ST are a road and a street) and not after the house
// number (1 ST RD 86 is house 1 on STATE ROAD 86, Appendix F).
func joinOrdinals(t []string) []string {
	for i := 0; i+1 < len(t); i++ {
		w, end := t[i], t[i+1]
		if !allDigits(w) || end != ordinalEnding(w) || (end == "RD" || end == "ST") && (i == 0 || i+2 >= len(t) || suffixes[t[i+2]] == "") {
			continue
		}
		t = append(append(t[:i:i], w+end), t[i+2:]...)
	}
	return t
}

// ordinalEnding returns the ending of the ordinal of the number n: ST,
// ND, RD or TH.
func ordinalEnding(n string) string {
	if len(n) >= 2 && n[len(n)-2] == '1' {
		return "TH"
	}
	switch n[len(n)-1] {
	case '1':
		return "ST"
	case '2':
		return "ND"
	case '3':
		return "RD"
	}
	return "TH"
}

// splitNameHyphens replaces the hyphens inside the words of a street name
// with spaces (MID-ISLAND -> MID ISLAND), as Publication 28 232 has it;
// hyphens in numbers (54-70, A-17) are significant and stay.
func splitNameHyphens(t []string) []string {
	var out []string
	for i, w := range t {
		if strings.IndexByte(w, '-') < 0 || hasDigit(w) {
			if out != nil {
				out = append(out, w)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(t)+2), t[:i]...)
		}
		out = append(out, strings.FieldsFunc(w, func(r rune) bool { return r == '-' })...)
	}
	if out == nil {
		return t
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
loop:
	for len(t) > 0 {
		n := len(t)
		last := t[n-1]
		var take int
		var sec Secondary
		pmb, drop := false, false
		switch {
		case last == "#" && len(found) > 0 && found[len(found)-1].Designator != "#":
			// A pound sign before a designator says again what the
			// designator says (# APT 2, # LOT 9): Publication 28 213
			// prints # only for a unit whose designator is not known.
			take, drop = 1, true
		case n >= 3 && numberWords[t[n-2]] && isNumberish(last) && (unitNeedsNum[units[t[n-3]]] || t[n-3] == "PMB"):
			// APT # 5, APT NO 5, FLOOR NUMBER 1: the number sign or word
			// says again what the designator says; Publication 28 213
			// prints the designator and the number alone.
			take, sec = 3, Secondary{units[t[n-3]], last}
			pmb = t[n-3] == "PMB"
		case n >= 3 && len(last) == 1 && last[0] >= 'A' && last[0] <= 'Z' && allDigits(t[n-2]) &&
			(units[t[n-3]] != "" && unitNeedsNum[units[t[n-3]]] || t[n-3] == "#"):
			// STE 14 A, APT 4 B: a unit's number and its letter written
			// apart are one number (STE 14A), as Publication 28 213
			// prints a designator and its number.
			designator := units[t[n-3]]
			if t[n-3] == "#" {
				designator = "#"
			}
			take, sec = 3, Secondary{designator, t[n-2] + last}
		case n >= 3 && len(t[n-2]) == 1 && t[n-2][0] >= 'A' && t[n-2][0] <= 'Z' && allDigits(last) &&
			units[t[n-3]] != "" && unitNeedsNum[units[t[n-3]]]:
			// STE L 1219: a unit's letter and its number written apart
			// are one number too (STE L1219).
			take, sec = 3, Secondary{units[t[n-3]], t[n-2] + last}
		case n >= 2 && t[n-2] == "PMB" && isNumberish(last):
			take, pmb, sec = 2, true, Secondary{Number: last}
		case n >= 3 && t[n-3] == "PRIVATE" && t[n-2] == "MAILBOX" && isNumberish(last):
			take, pmb, sec = 3, true, Secondary{Number: last}
		case n >= 2 && floorNumber(t[n-2]) != "" && units[last] == "FL":
			// 3RD FLOOR and THIRD FLOOR are FL 3.
			take, sec = 2, Secondary{"FL", floorNumber(t[n-2])}
		case n >= 2 && allDigits(t[n-2]) && units[last] == "FL" && (n == 2 || !unitNeedsNum[units[t[n-3]]] && t[n-3] != "#"):
			// 10 FL and 34 FLOOR are FL 10 and FL 34: Appendix C2 writes
			// the designator before the number; after APT 10 the number
			// is the apartment's.
			take, sec = 2, Secondary{"FL", t[n-2]}
		case n >= 2 && units[t[n-2]] == "FL" && floorNumber(last) != "":
			// FL 3RD is the third floor: FL 3.
			take, sec = 2, Secondary{"FL", floorNumber(last)}
		case n >= 2 && (units[t[n-2]] != "" && unitNeedsNum[units[t[n-2]]] || t[n-2] == "#") && (isNumberish(last) || units[t[n-2]] != "" && romanNumeral(last)):
			designator := units[t[n-2]]
			if t[n-2] == "#" {
				designator = "#"
			}
			take, sec = 2, Secondary{designator, last}
		case n >= 2 && units[t[n-2]] != "" && isNumberish(last) && (n == 2 || afterStreet(t[n-3]) || unitOnly[units[t[n-2]]]):
			// A designator that needs no number may still have one
			// (PENTHOUSE 5 -> PH 5, Appendix C2); it is a unit where a
			// lone one is: on a line of its own or after the street.
			take, sec = 2, Secondary{units[t[n-2]], last}
		case units[last] != "" && (n == 1 || afterStreet(t[n-2]) || unitOnly[units[last]]):
			take, sec = 1, Secondary{Designator: units[last]}
		}
		if take == 0 || !enough(t[:n-take]) {
			break
		}
		switch {
		case drop:
		case pmb:
			if d.PMB != "" {
				break loop
			}
			d.PMB = sec.Number
		default:
			found = append(found, sec)
		}
		t = t[:n-take]
	}
	for i := len(found) - 1; i >= 0; i-- {
		if i > 0 && (found[i] == found[i-1] || found[i].Number == "" && unitNeedsNum[found[i].Designator]) {
			// APT A APT A, APT APT 1, APT 2ND FL: a unit written twice,
			// or a designator that needs a number written without one
			// before another unit, says nothing the next one does not.
			continue
		}
		d.Secondaries = append(d.Secondaries, found[i])
	}
	return t
}

// reRoman is a Roman numeral up to 39 (II, IV, XII).
var reRoman = regexp.MustCompile(`^X{0,3}(IX|IV|V?I{0,3})$`)

// romanNumeral reports whether w is a Roman numeral of two letters or more,
// the number of a unit in some buildings (BUILDING II, SUITE IV); one
// letter is a unit number already (APT B).
func romanNumeral(w string) bool {
	return len(w) >= 2 && len(w) <= 6 && strings.Trim(w, "IVX") == "" && reRoman.MatchString(w)
}

// poundAsPMB reads a # unit that follows another unit as the private
// mailbox: Publication 28 prints a PMB after the secondary unit as PMB,
// never as # (STE 11 # 234 -> STE 11 PMB 234).
func (d *DeliveryLine) poundAsPMB() {
	n := len(d.Secondaries)
	if n >= 2 && d.PMB == "" && d.Secondaries[n-1].Designator == "#" && d.Secondaries[n-2].Designator != "#" && d.Secondaries[n-2].Number != "" {
		d.PMB = d.Secondaries[n-1].Number
		d.Secondaries = d.Secondaries[:n-1]
	}
}

// midUnits are the designators read as a unit, with the number after them,
// between the house number and a street name of two words or more (123 APT 4
// MAIN ST); a street named UNIT (111-123 UNIT ST) has no number after it.
var midUnits = map[string]bool{"APT": true, "STE": true, "UNIT": true}

// unitOnly are the designators needing no number whose words never end a
// street name (PENTHOUSE, BASEMENT, LOBBY): after a street without a suffix
// they are the unit all the same (1050 BROADWAY PENTHOUSE -> 1050 BROADWAY
// PH, Appendix C2), where FRONT, SIDE, REAR, UPPER, LOWER and OFFICE may
// end a name (OCEAN FRONT) and stay.
var unitOnly = map[string]bool{"PH": true, "BSMT": true, "LBBY": true}

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
	if len(t) == 1 {
		// A unit written with its number as one word on a line of its
		// own (PH1, APT-5) is the unit and its number (213).
		if designator, number, _, ok := packedUnit(t[0]); ok {
			t = []string{designator, number}
		} else if bareUnit(t[0]) {
			// A unit's number or letter alone on a line of its own (845,
			// B, B-58) is a unit whose designator is not known, which
			// Publication 28 213 writes with the pound sign: # 845.
			return DeliveryLine{Secondaries: []Secondary{{Designator: "#", Number: t[0]}}}, true
		}
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

// bareUnit reports whether a word written alone on a line is a unit's
// number or letter without its designator (845, B, 4B, B-58): a word
// isNumberish accepts that is no ZIP Code (62701, 62701-1234), which a
// line of its own may hold too.
func bareUnit(w string) bool {
	if !isNumberish(w) {
		return false
	}
	digits := strings.ReplaceAll(w, "-", "")
	if allDigits(digits) && (len(digits) == 5 || len(digits) == 9) {
		return false
	}
	return true
}

// rePackedUnit is a unit designator written with its number as one word,
// or joined to it by a hyphen (APT7890, STE100, PH-2).
var rePackedUnit = regexp.MustCompile(`^([A-Z]{2,5})(-?)([0-9][0-9A-Z]*)$`)

// packedUnit splits a word that is a unit designator and its number
// written together (APT7890, PH1, PH-2) into the designator and the
// number; hyphened reports whether a hyphen joined them.
func packedUnit(w string) (designator, number string, hyphened, ok bool) {
	if len(w) < 3 || w[0] < 'A' || w[0] > 'Z' || !hasDigit(w) {
		return "", "", false, false
	}
	m := rePackedUnit.FindStringSubmatch(w)
	if m == nil || units[m[1]] == "" {
		return "", "", false, false
	}
	return m[1], m[3], m[2] != "", true
}

// splitPackedUnit splits a unit designator and its number written as one
// word at the end of a street line (APT7890 -> APT 7890), so that the
// line takes the space Publication 28 213 puts between them. A designator
// that needs no number (PH1) or one joined to its number by a hyphen
// (PH-2) is split only right after the suffix or a directional, where
// nothing but a unit can stand.
func splitPackedUnit(t []string) []string {
	n := len(t)
	if n < 3 || !hasDigit(t[0]) {
		return t
	}
	prev := t[n-2]
	if i := strings.IndexByte(t[n-1], '-'); i > 0 && floorNumber(t[n-1][:i]) != "" && units[t[n-1][i+1:]] == "FL" {
		// 16TH-FL is the 16th floor written with a hyphen: 16TH FL, which
		// is FL 16; only right after the suffix or a directional.
		if _, dir := directionals[prev]; suffixes[prev] != "" || dir {
			return append(t[:n-1:n-1], t[n-1][:i], t[n-1][i+1:])
		}
	}
	if m := rePackedFloor.FindStringSubmatch(t[n-1]); m != nil {
		// 8FL and 10FLOOR are floors 8 and 10 (FL 8), after the street.
		if _, dir := directionals[prev]; suffixes[prev] != "" || dir || hasDigit(prev) {
			return append(t[:n-1:n-1], m[1], "FL")
		}
	}
	designator, number, hyphened, ok := packedUnit(t[n-1])
	if !ok {
		return t
	}
	if hyphened || !unitNeedsNum[units[designator]] {
		// RM-12 after a directional is a ranch road (Appendix F), not a
		// room.
		if _, dir := directionals[prev]; suffixes[prev] == "" && !dir || isPackedHighway(t[n-1]) {
			return t
		}
	}
	return append(append(t[:n-1:n-1], designator), number)
}

// rePackedFloor is a floor's number written onto FL or FLOOR (8FL).
var rePackedFloor = regexp.MustCompile(`^([0-9]+)(FL|FLR|FLOOR)$`)

// roadSuffixes are the suffixes that a number after names a road by
// (FARM ROAD 567, OLD HIGHWAY 5, LOOP 410), not a unit.
var roadSuffixes = map[string]bool{
	"RD": true, "HWY": true, "RTE": true, "FWY": true, "EXPY": true, "PIKE": true, "TPKE": true,
	"LOOP": true, "SPUR": true, "BYP": true, "PKWY": true, "TRL": true, "RUN": true, "ROW": true,
}

// bareUnit reads a number written after the suffix with no designator
// (1234 MAIN PL 4) as a secondary unit: Publication 28 213 prints a unit
// whose designator is not known with the pound sign (1234 MAIN PL # 4).
// Only after a house number and a street name ending in a suffix that
// no road is numbered by, or in a suffix and a postdirectional, after
// which no road has its number (235 PEACHTREE ST NE 900).
func (d *DeliveryLine) bareUnit(t []string) []string {
	n := len(t)
	if n < 4 || !hasDigit(t[0]) || !(hasDigit(t[n-1]) || unitLetter(t[n-1])) || reFraction.MatchString(t[n-1]) || len(d.Secondaries) > 0 {
		return t
	}
	_, dir := directionals[t[n-2]]
	if dir && n >= 5 && suffixes[t[n-3]] != "" {
		d.Secondaries = append(d.Secondaries, Secondary{"#", t[n-1]})
		return t[:n-1]
	}
	if suf, ok := suffixes[t[n-2]]; !ok || roadSuffixes[suf] {
		return t
	}
	if _, dir := directionals[t[n-3]]; dir && n == 4 {
		// A directional and a suffix word make no street: the suffix
		// word and the number are its name (N AVENUE 25, W AVE 40).
		return t
	}
	d.Secondaries = append(d.Secondaries, Secondary{"#", t[n-1]})
	return t[:n-1]
}

// unitLetter reports whether w is a lone letter that names a unit after
// the suffix (720 10TH AVE SW A): a letter that is no directional.
func unitLetter(w string) bool {
	if len(w) != 1 || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	_, dir := directionals[w]
	return !dir
}

// boxLetter joins a lone letter written after a box number to it (RR 4
// BOX 164 A is box 164A, as a unit's letter joins its number, Publication
// 28 213); it returns the number and the words left.
func boxLetter(number string, rest []string) (string, []string) {
	if len(rest) == 1 && len(rest[0]) == 1 && rest[0][0] >= 'A' && rest[0][0] <= 'Z' && allDigits(number) {
		return number + rest[0], nil
	}
	return number, rest
}

// gridHouse reports whether w is half of a Wisconsin grid house number
// (N165, W2123): a directional letter and digits.
func gridHouse(w string) bool {
	return len(w) > 1 && strings.IndexByte("NSEW", w[0]) >= 0 && allDigits(w[1:])
}

// gridNumber reports whether w is a grid street number with its
// directional packed onto it (400E), as Salt Lake City's grid addresses
// are written.
func gridNumber(w string) bool {
	n := len(w)
	return n > 1 && strings.IndexByte("NSEW", w[n-1]) >= 0 && allDigits(w[:n-1])
}

// splitGrid splits the directionals packed onto the numbers of a grid
// address (48S 400E -> 48 S 400 E): Publication 28 Appendix D2 has the
// directionals of 842 E 1700 S as words of their own. It acts only when
// the street is a grid number alone, after the house number and an
// optional predirectional.
func (d *DeliveryLine) splitGrid(t []string) []string {
	n := len(t)
	if d.PrimaryNumber == "" || n == 0 || n > 2 || !gridNumber(t[n-1]) {
		return t
	}
	if len(t[n-1]) < 4 && !gridNumber(d.PrimaryNumber) {
		// A grid street is a block number (300 W, 1700 S); a number of
		// one or two digits with a letter on it is a road's own name
		// (I-35W's 35W), kept as written, unless the house number is
		// packed the same way (48S 400E).
		return t
	}
	if n == 2 && directionals[t[0]] == "" {
		return t
	}
	last := t[n-1]
	out := append(append(t[:n-1:n-1], last[:len(last)-1]), last[len(last)-1:])
	if n == 1 && gridNumber(d.PrimaryNumber) {
		p := d.PrimaryNumber
		d.PrimaryNumber = p[:len(p)-1]
		out = append([]string{p[len(p)-1:]}, out...)
	}
	return out
}
