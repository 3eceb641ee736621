package usps

import (
	"regexp"
	"strings"
)

// Words of Publication 28 Appendix F (Highway-Style Addresses).
var (
	countyWords   = map[string]bool{"CO": true, "CNTY": true, "CTY": true, "COUNTY": true}
	stateWords    = map[string]bool{"ST": true, "STATE": true}
	townshipWords = map[string]bool{"TWP": true, "TOWNSHIP": true}
	routeAbbrs    = map[string]bool{"RT": true, "RTE": true, "ROUTE": true}
	// numberWords may stand between a highway's name and its number;
	// Appendix F writes the number alone (US HIGHWAY NO 130 -> US
	// HIGHWAY 130, SR NUMBER 9 -> STATE ROAD 9).
	numberWords = map[string]bool{"NO": true, "NUMBER": true, "NUM": true, "#": true}
	// highwayCodes are the short names of Appendix F that stand for a
	// whole highway designation (CR 12 is COUNTY ROAD 12).
	highwayCodes = map[string]bool{
		"US": true, "SR": true, "CR": true, "SH": true, "FM": true, "RM": true,
		"I": true, "IH": true, "INTERSTATE": true, "TSR": true,
	}
	// letterRoutes are the designations that name a lettered route, as
	// the first word of a name whose last word is its letters (SR MM,
	// COUNTY ROAD AA).
	letterRoutes = map[string]bool{
		"SR": true, "CR": true, "SH": true, "TSR": true, "US": true,
		"STATE": true, "COUNTY": true, "CNTY": true, "CO": true,
	}
	// reInterstate is an interstate written as one word: I-95, I95,
	// IH280, IH-35 (Appendix F: I10, IH280 -> INTERSTATE 10, 280).
	reInterstate = regexp.MustCompile(`^I(H?)-?([0-9]+)$`)
	// rePackedHighway is another highway short name written with its
	// number as one word (US41, SR-9, KY-55, FM1960), which Appendix F
	// writes apart as it does IH280.
	rePackedHighway = regexp.MustCompile(`^(US|SR|CR|SH|FM|RM|TSR|HWY|RT|RTE|[A-Z]{2})-?([0-9]+[A-Z]?)$`)
)

// splitPackedHighway splits the first word of a name that is a highway's
// short name and number written as one word (US41 -> US 41, KY-55 -> KY
// 55); a state's code counts as a short name only with a hyphen.
func splitPackedHighway(t []string) []string {
	if len(t) == 0 || len(t[0]) < 3 || t[0][0] < 'A' || t[0][0] > 'Z' || !hasDigit(t[0]) {
		return t
	}
	m := rePackedHighway.FindStringSubmatch(t[0])
	if m == nil {
		return t
	}
	if !highwayCodes[m[1]] && !highwayWord(m[1]) {
		if _, ok := stateByCode[m[1]]; !ok || strings.IndexByte(t[0], '-') < 0 {
			return t
		}
	}
	return append([]string{m[1], m[2]}, t[1:]...)
}

// isPackedHighway reports whether w is a highway's short name and number
// written as one word; no house number is written so.
func isPackedHighway(w string) bool { return len(splitPackedHighway([]string{w})) == 2 }

// designationWords reports whether every word of t is a word of a
// highway's designation (US HWY, COUNTY RD, STATE ROUTE, RANCH RD, with a
// state's name before them), so that a # or NO after them is the
// highway's number sign and not a unit's.
func designationWords(t []string) bool {
	for k := min(4, len(t)-1); k >= 1 && stateNameFirst[t[0]]; k-- {
		// NEW YORK SR # 86: a state's name before the designation.
		if _, ok := fullStateNames[strings.Join(t[:k], " ")]; ok {
			t = t[k:]
			break
		}
	}
	for _, w := range t {
		if !highwayWord(w) && !countyWords[w] && !stateWords[w] && !townshipWords[w] && w != "RANCH" && w != "FARM" {
			return false
		}
	}
	return len(t) > 0
}

// Appendix F writes SR as STATE ROAD (SR 220) or as STATE ROUTE (SR MM):
// which one is the name the state gives its roads. stateRoadStates call
// them state roads, stateRouteStates state routes; elsewhere a numbered
// SR is a state road and a lettered one a state route, as in Appendix F.
var (
	stateRoadStates  = map[string]bool{"FL": true, "IN": true, "NM": true}
	stateRouteStates = map[string]bool{
		"AL": true, "AZ": true, "CA": true, "DE": true, "GA": true, "MO": true, "NV": true,
		"NY": true, "OH": true, "PA": true, "TN": true, "UT": true, "WA": true,
	}
)

// stateHighwayStyle holds the states whose own highways Appendix F writes
// as the state's code, a highway word and the number: KENTUCKY 440 and
// KY 1207 are KY HIGHWAY 440 and KY HIGHWAY 1207.
var stateHighwayStyle = map[string]string{"KY": "HIGHWAY"}

// fullStateNames maps the names of the states, DC and the territories,
// in upper case, to their codes: Appendix F writes a state's name before
// a highway word as its code (CALIFORNIA COUNTY ROAD 555 -> CA COUNTY
// ROAD 555).
var fullStateNames = func() map[string]string {
	m := map[string]string{}
	for _, s := range states {
		if s.Kind != KindMilitary {
			m[strings.ToUpper(s.Name)] = s.Code
		}
	}
	return m
}()

// stateNameFirst holds the first words of fullStateNames and the codes of
// stateHighwayStyle, to rule most names out at once.
var stateNameFirst = func() map[string]bool {
	m := map[string]bool{}
	for name := range fullStateNames {
		m[strings.Fields(name)[0]] = true
	}
	for code := range stateHighwayStyle {
		m[code] = true
	}
	return m
}()

// srRoad returns the road word of SR before designation in state.
func srRoad(state, designation string) (long, short string) {
	switch {
	case stateRoadStates[state]:
		return "ROAD", "RD"
	case stateRouteStates[state], !hasDigit(designation):
		return "ROUTE", "RTE"
	}
	return "ROAD", "RD"
}

// highwayWord reports whether w names a kind of highway, so that a NO
// after it is the number's and not a name.
func highwayWord(w string) bool {
	s := suffixes[w]
	return s == "HWY" || s == "RD" || routeAbbrs[w] || highwayCodes[w]
}

// isLetterDesignation reports whether w can be the letters of a lettered
// route (MM, K): one or two letters that are not a directional.
func isLetterDesignation(w string) bool {
	if len(w) == 0 || len(w) > 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	_, dir := directionals[w]
	return !dir
}

// isInterstateWord reports whether w is an interstate written as one
// word; no house number is written so (I10, IH280).
func isInterstateWord(w string) bool {
	return len(w) > 1 && w[0] == 'I' && reInterstate.MatchString(w)
}

// highwayStyle reports whether a street name can hold a highway-style
// name that streetName rewrites: a number after its first word, FARM or
// RANCH TO MARKET, an avenue named by a letter, an interstate, or a
// lettered route.
func highwayStyle(t []string) bool {
	if len(t) > 0 && isPackedHighway(t[0]) {
		return true
	}
	for i, w := range t {
		if i > 0 && hasDigit(w) || w == "FARM" || w == "RANCH" || len(w) > 1 && w[0] == 'I' && hasDigit(w) {
			return true
		}
	}
	if len(t) == 2 && suffixes[t[0]] == "AVE" {
		return true
	}
	return lettered(t)
}

// lettered reports whether the name ends in the letters of a lettered
// route: its first word after a state's, or the word before the letters,
// is a route's designation (SR MM, OLD SR MM, COUNTY ROAD AA, CA COUNTY
// ROAD X).
func lettered(t []string) bool {
	if len(t) > 2 {
		// CA COUNTY ROAD X: a state's code or name before the route.
		if _, ok := stateByCode[t[0]]; ok && letterRoutes[t[1]] {
			t = t[1:]
		} else if _, k, _ := statePrefix(t); k > 0 {
			t = t[k:]
		}
	}
	n := len(t)
	return n >= 2 && (letterRoutes[t[0]] || letterRoutes[t[n-2]]) && isLetterDesignation(t[n-1])
}

// dropNumberWords leaves out a NO or NUMBER written between a highway
// word and its number.
func dropNumberWords(t []string) []string {
	var out []string
	for i, w := range t {
		if i > 0 && i+1 < len(t) && numberWords[w] && highwayWord(t[i-1]) && hasDigit(t[i+1]) {
			if out == nil {
				out = append(make([]string, 0, len(t)), t[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, w)
		}
	}
	if out == nil {
		return t
	}
	return out
}

// statePrefix reads a state's name or code at the start of a highway
// name, when what follows is one of Appendix F's state-named forms: it
// returns the state's code, the words it takes, and whether the bare
// number after it is the state's own highway (KY 1207).
func statePrefix(t []string) (code string, n int, ownHighway bool) {
	if len(t) < 2 || !stateNameFirst[t[0]] {
		return "", 0, false
	}
	for k := min(4, len(t)-1); k >= 1; k-- {
		c, ok := fullStateNames[strings.Join(t[:k], " ")]
		if !ok && k == 1 && stateHighwayStyle[t[0]] != "" {
			c, ok = t[0], true
		}
		if !ok {
			continue
		}
		rest := t[k:]
		switch {
		case len(rest) == 1 && hasDigit(rest[0]) && stateHighwayStyle[c] != "":
			return c, k, true
		case len(rest) < 2 || k == 1 && len(t[0]) == 2:
			// A code is kept as written before the other forms.
			return "", 0, false
		case countyWords[rest[0]] || stateWords[rest[0]] || highwayWord(rest[0]):
			return c, k, false
		}
		return "", 0, false
	}
	return "", 0, false
}

// streetName writes the highway-style names of Publication 28 Appendix F
// in full, each with the abbreviation it takes in a line too long:
// HWY 66 -> HIGHWAY 66, CR 12 and CNTY RD 12 -> COUNTY ROAD 12, SR 9 ->
// STATE ROAD 9 or STATE ROUTE 9 by the state, SH 9 -> STATE HIGHWAY 9,
// US 41 -> US HIGHWAY 41, I-95, I95 and IH95 -> INTERSTATE 95, FARM TO
// MARKET 1960 and HWY FM 1960 -> FM 1960, KENTUCKY 440 -> KY HIGHWAY 440.
func streetName(t []string, state string) []nameWord {
	out := make([]nameWord, 0, len(t)+2)
	if !highwayStyle(t) {
		for _, w := range t {
			out = append(out, nameWord{long: w, short: w})
		}
		return out
	}
	t = dropNumberWords(splitPackedHighway(t))
	if len(t) >= 2 && suffixes[t[0]] == "HWY" && namedHighway(t[1:]) {
		// HWY US 30 -> US HIGHWAY 30, HWY I-30 -> INTERSTATE 30: the
		// highway word says again what US or I says, as in HWY FM 1320
		// -> FM 1320 (Appendix F).
		t = t[1:]
	}
	letters := lettered(t)
	numberAt := func(i int) bool {
		return i < len(t) && (hasDigit(t[i]) || letters && i == len(t)-1 && isLetterDesignation(t[i]))
	}
	word := func(w string) { out = append(out, nameWord{long: w, short: w}) }
	road := func(long, short string) { out = append(out, nameWord{long, short, levelRoad}) }
	isRoad := func(i int) bool { return i < len(t) && suffixes[t[i]] == "RD" }
	isHighway := func(i int) bool { return i < len(t) && suffixes[t[i]] == "HWY" }
	start := 0
	if code, n, own := statePrefix(t); n > 0 {
		word(code)
		if own {
			road(stateHighwayStyle[code], "HWY")
		}
		start = n
	}
	for i := start; i < len(t); i++ {
		w := t[i]
		if len(w) > 1 && w[0] == 'I' {
			if m := reInterstate.FindStringSubmatch(w); m != nil && (i == 0 || m[1] == "H" || strings.IndexByte(w, '-') > 0) {
				road("INTERSTATE", "I")
				word(m[2])
				continue
			}
		}
		switch {
		case (w == "I" || w == "IH") && i == 0 && numberAt(i+1):
			road("INTERSTATE", "I")
		case w == "I" && i == 0 && i+2 < len(t) && t[i+1] == "H" && numberAt(i+2):
			road("INTERSTATE", "I")
			i++
		case (w == "FM" || w == "RM") && isRoad(i+1) && numberAt(i+2):
			// FM RD 1960 -> FM 1960: the road word repeats what FM says.
			word(w)
			i++
		case w == "INTERSTATE" && isHighway(i+1) && numberAt(i+2):
			// INTERSTATE HWY 680 -> INTERSTATE 680: the highway word
			// says again what INTERSTATE says.
			word(w)
			i++
		case isHighway(i) && i+1 < len(t) && t[i+1] == "FM" && numberAt(i+2):
			// HWY FM 1320 -> FM 1320.
		case w == "US" && numberAt(i+1):
			word("US")
			road("HIGHWAY", "HWY")
		case isHighway(i) && numberAt(i+1):
			road("HIGHWAY", "HWY")
		case isRoad(i) && numberAt(i+1):
			// RD 5A -> ROAD 5A, first in the name too.
			road("ROAD", "RD")
		case suffixes[w] == "AVE" && i == 0 && len(t) == 2 && isNumberish(t[1]):
			// Avenues named by a letter or number: AVE J -> AVENUE J.
			word("AVENUE")
		case (w == "RT" || w == "RTE") && numberAt(i+1):
			road("ROUTE", "RTE")
		case w == "CR" && numberAt(i+1):
			road("COUNTY", "CNTY")
			road("ROAD", "RD")
		case w == "SR" && numberAt(i+1):
			word("STATE")
			road(srRoad(state, t[i+1]))
		case w == "TSR" && numberAt(i+1):
			// TSR 45 -> TOWNSHIP ROAD 45.
			road("TOWNSHIP", "TWP")
			road("ROAD", "RD")
		case w == "SH" && numberAt(i+1):
			word("STATE")
			road("HIGHWAY", "HWY")
		case countyWords[w] && (isRoad(i+1) || isHighway(i+1)) && numberAt(i+2):
			road("COUNTY", "CNTY")
		case stateWords[w] && (isRoad(i+1) || isHighway(i+1) || i+1 < len(t) && routeAbbrs[t[i+1]]) && numberAt(i+2):
			word("STATE")
		case townshipWords[w] && isRoad(i+1) && numberAt(i+2):
			road("TOWNSHIP", "TWP")
		case (w == "FARM" || w == "RANCH") && i+3 < len(t) && t[i+1] == "TO" && t[i+2] == "MARKET":
			// Farm and ranch to market roads: FM 1960, RM 12.
			word(w[:1] + "M")
			i += 2
			if isRoad(i+1) && numberAt(i+2) {
				i++
			}
		default:
			word(w)
		}
	}
	return out
}

// namedHighway reports whether t begins with a US highway or an
// interstate and its number (US 30, US HWY 30, I-30, I30, IH 30).
func namedHighway(t []string) bool {
	if isInterstateWord(t[0]) {
		return true
	}
	if t[0] == "US" && len(t) > 2 && suffixes[t[1]] == "HWY" && hasDigit(t[2]) {
		return true
	}
	return (t[0] == "US" || t[0] == "I" || t[0] == "IH") && len(t) > 1 && hasDigit(t[1])
}

// namesHighway reports whether a name written by streetName holds its
// own highway word (US HIGHWAY 70), which a HWY suffix after it repeats.
func namesHighway(name []nameWord) bool {
	for _, w := range name {
		if w.long == "HIGHWAY" && w.level == levelRoad {
			return true
		}
	}
	return false
}
