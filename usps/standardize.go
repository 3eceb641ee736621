package usps

import (
	"strings"
	"unicode/utf8"
)

// MaxLineLength is the longest delivery line Standardize makes when it
// joins a secondary unit line onto the street line or writes words out
// (HWY 66 -> HIGHWAY 66, MAIN ST EXT -> MAIN STREET EXT): it joins only
// while the line fits, and abbreviates what it wrote out, highway words
// first, until the line fits.
const MaxLineLength = 64

// Address is a postal address in parts: two address lines (the delivery
// line, and a secondary unit or other line), the Puerto Rico urbanization,
// and the last line's parts.
type Address struct {
	Line1        string
	Line2        string
	Urbanization string
	City         string
	State        string
	ZIP          string
	Plus4        string
}

// LastLine returns the address's last line, as USPS prints it.
func (a Address) LastLine() string { return FormatLastLine(a.City, a.State, a.ZIP, a.Plus4) }

// Standardize rewrites an address by Publication 28 in casing c:
//
//   - the delivery line with standard abbreviations (suffix, directionals,
//     unit designators), PO boxes, rural routes, highway contracts and
//     military lines in their standard form, punctuation removed;
//     highway-style names written out (HIGHWAY 66, COUNTY ROAD 12) and
//     the first of two suffix words spelled out (MAIN STREET EXT), both
//     abbreviated again when the line would not fit MaxLineLength; in
//     Puerto Rico the Spanish address words abbreviated and the house
//     number first, in the Virgin Islands estate names kept whole;
//   - a line that holds only a secondary unit (APT 4B, 3RD FLOOR) joined to
//     the end of the delivery line when the result fits MaxLineLength;
//     beside a firm or building name and no delivery line it stays a
//     line of its own (ACME CORP / RM 1); with a PO box it goes on the
//     line above the box, and so does a private mailbox (PMB 12 / PO BOX
//     5), when that line is free;
//   - a house number written alone on the first line joined to the start
//     of the street written without one below it (3400 / AUSTIN LANE);
//   - any other line (a building or firm name, c/o) only cleaned and cased;
//   - the city spelled out: SAINT, FORT, MOUNT, a leading direction and
//     the suffix table's words (ST LOUIS -> SAINT LOUIS, COLORADO SPGS ->
//     COLORADO SPRINGS), the state as its code (Appendix B's long armed
//     forces names too), the ZIP Code with leading
//     zeros restored when the state shows they were lost (2134 in MA ->
//     02134), a nine-digit ZIP split into ZIP and add-on, and an add-on that
//     is not four digits dropped.
//
// No line of the result is longer than MaxLineLength: a line that does not
// fit once abbreviated loses its last words. It never fails: what it cannot
// read it leaves as written, cleaned and cased. Standardize(Standardize(a, c), c) == Standardize(a, c): the rules
// are applied until they change nothing more, which real addresses reach
// in one round; only odd inputs (units written where units do not go) take
// a second.
func Standardize(a Address, c Casing) Address {
	cur := standardizeOnce(a, c)
	for range maxRounds {
		next := standardizeOnce(cur, c)
		if next == cur {
			break
		}
		cur = next
	}
	return cur
}

// maxRounds bounds the rounds of Standardize after the first.
const maxRounds = 4

func standardizeOnce(a Address, c Casing) Address {
	out := Address{}
	state := strings.Join(tokens(a.State), " ")
	if st, ok := LookupState(state); ok {
		state = st.Code
	}
	out.State = state

	t1, t2 := tokens(spacedRange(boxHyphen(a.Line1))), tokens(spacedRange(boxHyphen(a.Line2)))
	if len(t1) == 0 {
		t1, t2 = t2, nil
	}
	if joined, ok := numberAbove(t1, t2, state); ok {
		t1, t2 = joined, nil
	}
	if state == "PR" {
		t1, t2 = puertoRico(t1), puertoRico(t2)
		if len(t2) == 0 {
			// An urbanization written on the street line goes on the
			// line above it, as Publication 28 291 prints it.
			if urbLine, street, ok := splitUrbanization(t1); ok {
				t1, t2 = urbLine, puertoRico(street)
			}
		}
	}
	if len(t2) == 0 {
		// Publication 28 245 and 254: a rural route or highway contract
		// line carries nothing but its route and box; a street name
		// written with them goes above it.
		if route, extra, ok := splitRouteExtra(t1); ok {
			t1, t2 = extra, route
		} else if first, second, ok := splitDual(t1, state); ok {
			t1, t2 = first, second
		}
	}
	urb := tokens(a.Urbanization)
	if len(urb) > 0 && urbanizationWords[urb[0]] {
		urb[0] = "URB"
	}
	// The delivery line is the first line, unless only the second is one
	// (a building or firm name above the street line, as Publication 28
	// prints it).
	l1, l2 := classify(t1, state), classify(t2, state)
	switch {
	case !l1.delivery && l2.delivery:
		if l1.unitsOnly {
			if units, box, ok := boxUnits(l1.units, l2.line); ok {
				out.Line1, out.Line2 = units.Format(c), box.Format(c)
				break
			}
			if joined, ok := join(l2.line, l1.units, state, c); ok {
				out.Line1 = joined
				break
			}
			out.Line1, out.Line2 = l1.units.Format(c), l2.line.Format(c)
			break
		}
		out.Line1, out.Line2 = otherLine(t1, c), l2.line.Format(c)
	default:
		line := l1.line
		switch {
		case l1.unitsOnly && !(len(t1) == 1 && bareUnit(t1[0])):
			// No delivery line, only units written with their designator:
			// they are the line, in standard form (ROOM 1 -> RM 1). A
			// word alone (I10, 845) is read as a line.
			line = l1.units
		case !l1.parsed:
			line = parseIn(t1, state)
		}
		if units, box, ok := boxUnits(l2.units, line); ok && (l2.unitsOnly || len(t2) == 0) {
			out.Line1, out.Line2 = units.Format(c), box.Format(c)
			break
		}
		if l2.unitsOnly {
			// Units join only a delivery line (or other units), a street
			// named with its suffix but not numbered among them: a firm or
			// building name keeps its line, and the units stand on their
			// own below it (Publication 28 213, 356).
			joinable := l1.delivery || l1.unitsOnly || l1.line.Suffix != ""
			if joined, ok := join(line, l2.units, state, c); ok && joinable {
				out.Line1 = joined
				break
			}
			out.Line1, out.Line2 = line.Format(c), l2.units.Format(c)
			break
		}
		out.Line1, out.Line2 = line.Format(c), otherLine(t2, c)
		if (line.Kind == LineRuralRoute || line.Kind == LineHighwayContract) && !l2.delivery && hasLetterWord(t2) {
			// Publication 28 245 and 255: a name written with a rural
			// route or highway contract (a sector, a barrio, a street)
			// goes above its Delivery Address Line.
			out.Line1, out.Line2 = out.Line2, out.Line1
		}
		if l1.delivery && l2.delivery {
			// Publication 28 215: of two delivery addresses (a street and
			// a PO box), mail goes to the one just above the last line;
			// both are printed in standard form.
			out.Line2 = l2.line.Format(c)
		}
		if len(t2) == 0 && utf8.RuneCountInString(out.Line1) > MaxLineLength && (len(line.Secondaries) > 0 || line.PMB != "") {
			// Publication 28 213: a unit that does not fit on the
			// delivery line goes on a line of its own.
			units := DeliveryLine{Secondaries: line.Secondaries, PMB: line.PMB}
			line.Secondaries, line.PMB = nil, ""
			out.Line1, out.Line2 = line.Format(c), units.Format(c)
		}
	}
	if out.State == "PR" && len(urb) == 0 {
		for _, t := range [][]string{t1, t2} {
			if len(t) > 1 && (t[0] == "URB" || urbanizationWords[t[0]]) {
				urb = append([]string{"URB"}, t[1:]...)
				break
			}
		}
	}
	out.Urbanization = caseWords(urb, c)
	out.City = standardCity(tokens(a.City), c)
	out.ZIP, out.Plus4 = standardZIP(a.ZIP, a.Plus4, state)
	fitLines(&out)
	return out
}

// boxUnits takes the secondary units and the private mailbox off a PO box
// line, with the units of another line, for a line of their own above
// the box: Publication 28 284 lets neither a private mailbox number nor a
// company's own number for an office or a person (a MailStop Code, which a
// room or suite written with a box is) stand on a PO box's Delivery
// Address Line, and prints such a number above it. ok is false when line
// is no PO box or neither line has a unit.
func boxUnits(other, line DeliveryLine) (units, box DeliveryLine, ok bool) {
	if line.Kind != LinePOBox || (other.PMB != "" && line.PMB != "") {
		return DeliveryLine{}, line, false
	}
	units = DeliveryLine{Secondaries: append(append([]Secondary(nil), line.Secondaries...), other.Secondaries...), PMB: line.PMB + other.PMB}
	if len(units.Secondaries) == 0 && units.PMB == "" {
		return DeliveryLine{}, line, false
	}
	line.Secondaries, line.PMB = nil, ""
	return units, line, true
}

// numberAbove joins a house number written alone on the first line to
// its street, written without one on the second (3400 / AUSTIN LANE, 26
// 1/2 / SOUTH MAIN STREET): Publication 28 231 makes the primary address
// number the first component of the Delivery Address Line, one line with
// the street name. Only when the second line names a street (a suffix,
// a directional or a numbered road: no firm's or person's name) and the
// two read together as a street line that the number begins; a unit, a
// box or a numbered street below stays a line of its own.
func numberAbove(t1, t2 []string, state string) ([]string, bool) {
	if len(t1) == 0 || len(t1) > 2 || len(t2) == 0 || !hasDigit(t1[0]) || recipientWords[t2[0]] {
		return nil, false
	}
	if _, ok := secondaryOnly(t2); ok {
		return nil, false
	}
	second := parseLine(t2, state)
	if second.Kind != LineStreet || second.PrimaryNumber != "" || second.StreetName == "" ||
		second.Suffix == "" && second.Predirectional == "" && second.Postdirectional == "" && !hasDigit(second.StreetName) {
		return nil, false
	}
	joined := append(append(make([]string, 0, len(t1)+len(t2)), t1...), t2...)
	if d := parseLine(joined, state); d.Kind != LineStreet || d.PrimaryNumber != strings.Join(t1, " ") || d.StreetName == "" {
		return nil, false
	}
	return joined, true
}

// recipientWords begin a line that names whom mail is for, not where.
var recipientWords = map[string]bool{"C/O": true, "ATTN": true, "ATTENTION": true}

// poStarts are the first words of a PO box written with PO, which
// splitDual looks for after a street.
var poStarts = map[string]bool{"PO": true, "P": true, "POST": true, "POSTOFFICE": true, "POSTAL": true, "POBOX": true, "POB": true}

// splitDual splits a line that holds a street address and a PO box (354
// EISENHOWER PKWY PO BOX 472, PO BOX 41256 1 VELVET DR) into the two, in
// the order written: Publication 28 215 prints each of two delivery
// addresses on its own line, the one mail goes to just above the last
// line. The box may be joined to the street by a slash (17TH AVE/PO BOX
// 607). A BOX written without PO after a street is no PO box for certain
// and stays on the line (123 MAIN ST BOX 5).
func splitDual(t []string, state string) (first, second []string, ok bool) {
	t = splitSlashedBox(t)
	if len(t) < 5 {
		return nil, nil, false
	}
	for i := 1; i < len(t)-1; i++ {
		if !poStarts[t[i]] && !(i > 1 && poStarts[t[0]]) {
			continue
		}
		a, b := parseLine(t[:i], state), parseLine(t[i:], state)
		switch {
		case a.Kind == LineStreet && a.PrimaryNumber != "" && a.StreetName != "" && b.Kind == LinePOBox && b.BoxNumber != "",
			a.Kind == LinePOBox && a.BoxNumber != "" && b.Kind == LineStreet && b.PrimaryNumber != "" && b.StreetName != "":
			return t[:i], t[i:], true
		}
	}
	return nil, nil, false
}

// splitSlashedBox returns t with a word that joins a street's last word
// to the first word of a PO box by a slash (AVE/PO) written as the two
// words; a slash within a name (M/V) or a fraction (1/2) stays.
func splitSlashedBox(t []string) []string {
	for i, w := range t {
		j := strings.LastIndexByte(w, '/')
		if j <= 0 || !poStarts[w[j+1:]] || i+1 >= len(t) || matchPrefix(append([]string{w[j+1:]}, t[i+1:]...), poBoxWords) == 0 {
			continue
		}
		out := append(append(make([]string, 0, len(t)+1), t[:i]...), w[:j], w[j+1:])
		return append(out, t[i+1:]...)
	}
	return t
}

// fitLines keeps every line of the address within MaxLineLength, the
// length of the ZIP+4 file's delivery line (Publication 28 212): a line
// still too long once abbreviated and its units moved loses the words
// past the limit (a word longer than the limit is cut), and so does a
// city too long for its last line.
func fitLines(a *Address) {
	a.Line1, a.Line2, a.Urbanization = cutLine(a.Line1, MaxLineLength), cutLine(a.Line2, MaxLineLength), cutLine(a.Urbanization, MaxLineLength)
	// A sound ZIP Code and state code take 13 characters: only what is not
	// one is cut after the city.
	for _, f := range []*string{&a.City, &a.ZIP, &a.State} {
		over := lastLineLength(*a) - MaxLineLength
		if over <= 0 {
			return
		}
		*f = cutLine(*f, max(len(*f)-over, 0))
	}
}

// lastLineLength is the length of a standardized address's last line as
// FormatLastLine writes it, counted without writing it.
func lastLineLength(a Address) int {
	n, parts := 0, 0
	for _, p := range []string{a.City, a.State, a.ZIP} {
		if p != "" {
			n += len(p)
			parts++
		}
	}
	if a.ZIP != "" && a.Plus4 != "" {
		n += 1 + len(a.Plus4)
	}
	return n + max(parts-1, 0)
}

// cutLine returns s cut to at most n characters, at a word's end where
// one is within them. Standardized lines are ASCII.
func cutLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n+1], ' '); i > 0 {
		return strings.TrimRight(s[:i], " ")
	}
	return s[:n]
}

// join appends the units of sec to line, when the result fits.
func join(line, sec DeliveryLine, state string, c Casing) (string, bool) {
	if line.PMB != "" && sec.PMB != "" {
		return "", false
	}
	merged := line
	merged.Secondaries = append(append([]Secondary(nil), line.Secondaries...), sec.Secondaries...)
	if sec.PMB != "" {
		merged.PMB = sec.PMB
	}
	merged.poundAsPMB()
	s := merged.Format(c)
	// Joined words can read differently from the two lines apart (APT and
	// # 5 make APT 5); such lines stay apart, so that standardizing again
	// changes nothing.
	if parseIn(tokens(s), state).Format(c) != s {
		return "", false
	}
	return s, utf8.RuneCountInString(s) <= MaxLineLength
}

// hasLetterWord reports whether one of the words has a letter in it: a
// name, not a ZIP Code written alone.
func hasLetterWord(t []string) bool {
	for _, w := range t {
		if strings.IndexFunc(w, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0 {
			return true
		}
	}
	return false
}

// otherLine cleans and cases a line that is not a delivery line.
func otherLine(t []string, c Casing) string {
	if len(t) > 0 && urbanizationWords[t[0]] {
		t = append([]string{"URB"}, t[1:]...)
	}
	if d, ok := secondaryOnly(t); ok {
		return d.Format(c)
	}
	return caseWords(t, c)
}

// classified is an address line read once: a line of units alone, or a
// line taken apart and whether it is a delivery line.
type classified struct {
	units     DeliveryLine
	unitsOnly bool
	line      DeliveryLine
	parsed    bool
	delivery  bool
}

// classify reads an address line once for standardizeOnce; see isDelivery.
func classify(t []string, state string) classified {
	var c classified
	if len(t) == 0 {
		return c
	}
	if c.units, c.unitsOnly = secondaryOnly(t); c.unitsOnly {
		return c
	}
	c.line, c.parsed = parseIn(t, state), true
	c.delivery = c.line.Kind != LineStreet || c.line.PrimaryNumber != ""
	return c
}

// isDelivery reports whether the words are a delivery line: a house number
// first, or a box, route or military line; not a line of units alone.
func isDelivery(t []string) bool {
	if len(t) == 0 {
		return false
	}
	if _, ok := secondaryOnly(t); ok {
		return false
	}
	d := parseLine(t, "")
	return d.Kind != LineStreet || d.PrimaryNumber != ""
}

// cityWords are abbreviations USPS spells out in a city name wherever
// they stand (PORT ST LUCIE -> PORT SAINT LUCIE).
var cityWords = map[string]string{
	"ST": "SAINT", "STE": "SAINTE", "FT": "FORT", "MT": "MOUNT", "PT": "POINT",
	// TWP is Appendix F's abbreviation of TOWNSHIP; PK the City State
	// file's of PARK (FRUITLAND PK).
	"TWP": "TOWNSHIP", "PK": "PARK",
}

// streetTypes are the suffixes that name a kind of street, not a place:
// a city's word that reads as one of them is a word of its own (DR
// PHILLIPS is a city, not DRIVE PHILLIPS).
var streetTypes = map[string]bool{
	"ALY": true, "AVE": true, "BLVD": true, "CIR": true, "CIRS": true, "CT": true, "CTS": true,
	"DR": true, "DRS": true, "EXPY": true, "EXT": true, "EXTS": true, "FWY": true, "HWY": true,
	"LN": true, "LOOP": true, "PATH": true, "PIKE": true, "PKWY": true, "PL": true, "RD": true,
	"RDS": true, "RTE": true, "ROW": true, "RUE": true, "RUN": true, "SQ": true, "SQS": true,
	"ST": true, "STS": true, "TER": true, "TPKE": true, "TRL": true, "WALK": true, "WAY": true,
	"WAYS": true, "ALLEY": true, "RAMP": true, "SKWY": true, "TRWY": true, "TRFY": true,
}

// standardCity spells out the city: Publication 28 223 has city names
// spelled in their entirety, and the abbreviations of the City State
// file's 13-character names are those of the suffix and directional
// tables, so those are what is spelled out: COLORADO SPGS -> COLORADO
// SPRINGS, N LAS VEGAS -> NORTH LAS VEGAS, ST LOUIS -> SAINT LOUIS. A
// directional is spelled out only first, where it is part of the name;
// a table word that is a word in its own right (CENTRE) stays, and so does
// one that names a kind of street (DR PHILLIPS).
func standardCity(t []string, c Casing) string {
	if len(t) > 1 {
		t = append([]string(nil), t...)
		for i, w := range t {
			switch full, ok := cityWords[w]; {
			case ok:
				t[i] = full
			case i == 0 && directionals[w] == w:
				t[i] = directionalWords[w]
			case suffixes[w] != "" && !suffixWords[w] && !streetTypes[suffixes[w]]:
				t[i] = suffixPrimary[w]
			}
		}
	}
	return caseWords(t, c)
}

// standardZIP cleans a ZIP Code and its add-on; see Standardize.
func standardZIP(zip, plus4, state string) (string, string) {
	z := strings.Join(tokens(zip), "")
	p := strings.Join(tokens(plus4), "")
	if zz, pp, ok := splitZIP(z); ok {
		z = zz
		if pp != "" && p == "" {
			p = pp
		}
	}
	if allDigits(z) && len(z) >= 3 && len(z) < 5 {
		padded := strings.Repeat("0", 5-len(z)) + z
		if ZIPMatchesState(padded, state) {
			z = padded
		}
	}
	if !(len(p) == 4 && allDigits(p)) {
		p = ""
	}
	return z, p
}
