package usps

import (
	"regexp"
	"slices"
	"strings"
)

// urbanizationWords are the ways the word urbanization is written; USPS
// prints URB (Publication 28 29, Puerto Rico addresses).
var urbanizationWords = map[string]bool{"URBANIZACION": true, "URBANIZATION": true}

// spanishWords are the Spanish address words of Puerto Rico with the
// abbreviations USPS prints (Publication 28 29): AVENIDA ASHFORD -> AVE
// ASHFORD, CONDOMINIO -> COND, and so on.
var spanishWords = map[string]string{
	"AVENIDA": "AVE", "CONDOMINIO": "COND", "CONDOMINIUM": "COND", "RESIDENCIAL": "RES",
	"CARRETERA": "CARR", "APARTAMENTO": "APT", "URBANIZACION": "URB", "URBANIZATION": "URB",
	"EDIFICIO": "EDIF",
}

// spanishPrefixes begin a Spanish street name in Puerto Rico, before the
// name itself (Publication 28 291 and Appendix I: the ZIP+4 file has no
// prefix field and keeps them in the street name): CALLE A, AVE ASHFORD,
// PASEO DEL PARQUE; COND, RES, EDIF and URB begin a building's or an
// urbanization's name in the same way.
var spanishPrefixes = map[string]bool{
	"CALLE": true, "AVE": true, "PASEO": true, "PLAZA": true, "PASAJE": true, "CARR": true,
	"PARQUE": true, "VEREDA": true, "VISTA": true, "VIA": true, "CALLEJON": true, "PATIO": true,
	"BLVD": true, "CAMINO": true, "CALETA": true, "MARGINAL": true,
	"COND": true, "RES": true, "EDIF": true, "URB": true,
}

// spanishStreetTypes begin a Puerto Rico street name after which a house
// number may be written (CALLE A 150): the prefixes of streets.
var spanishStreetTypes = map[string]bool{
	"CALLE": true, "AVE": true, "PASEO": true, "PLAZA": true, "PASAJE": true, "CARR": true,
	"PARQUE": true, "VEREDA": true, "VISTA": true, "VIA": true, "CALLEJON": true, "PATIO": true,
	"BLVD": true, "CAMINO": true, "CALETA": true, "MARGINAL": true,
}

// Publication 28 Appendix I (Puerto Rico house numbers): the words that
// introduce a block (BLOQUE 23) and a house number within it or alone
// (CASA 31, NUM 18, # 18) are left out; a block and its house are written
// with a hyphen between them (23-18).
var (
	blockWords = map[string]bool{"BLOQUE": true, "BLQ": true, "BLOQ": true, "BQ": true}
	houseWords = map[string]bool{
		"CASA": true, "NUM": true, "NUMERO": true, "NO": true, "#": true, "LOTE": true,
	}
	// reLetterHyphen is an alphanumeric house number written with a
	// hyphen between its letters and its number (A-17, B-17A, 17-A),
	// which the appendix writes without one (A17, B17A, 17A).
	reLetterHyphen = regexp.MustCompile(`^([A-Z]+)-([0-9][0-9A-Z]*)$|^([0-9]+)-([A-Z]+)$`)
)

// puertoRico rewrites the words of a Puerto Rico address line: the Spanish
// words take their USPS abbreviations; a house number written after the
// street (CALLE A # 150, CALLE 1 A17) goes before it, where Publication
// 28 Appendix I puts it (150 CALLE A, A17 CALLE 1); a block and house
// number lose their words and are joined by a hyphen (CALLE 117 BLOQUE 23
// NUM 18 -> 23-18 CALLE 117); and an alphanumeric house number loses its
// hyphen (A-17 CALLE AMAPOLA -> A17 CALLE AMAPOLA).
func puertoRico(t []string) []string {
	if len(t) == 0 {
		return t
	}
	out := make([]string, len(t))
	for i, w := range t {
		if abbr, ok := spanishWords[w]; ok {
			w = abbr
		}
		out[i] = w
	}
	t = out
	if house, rest, ok := blockHouse(t); ok {
		t = append([]string{house}, rest...)
	} else {
		t = moveHouseNumber(t)
	}
	if len(t) > 1 && hasDigit(t[0]) {
		if m := reLetterHyphen.FindStringSubmatch(t[0]); m != nil {
			t[0] = m[1] + m[2] + m[3] + m[4]
		}
	}
	return t
}

// splitUrbanization splits a Puerto Rico line that holds both an
// urbanization and a street address (URB LAS GLADIOLAS 150 CALLE A, 150
// CALLE A URB LAS GLADIOLAS) into the urbanization's line and the
// street's.
func splitUrbanization(t []string) (urb, street []string, ok bool) {
	at := -1
	for i, w := range t {
		if w == "URB" {
			at = i
			break
		}
	}
	switch {
	case at == 0:
		// The street begins at its house number, or at its Spanish
		// prefix when the number is written after the street (URB ROYAL
		// OAK CALLE 1 A17); an urbanization's own name has no number.
		for i := 2; i+1 < len(t); i++ {
			if hasDigit(t[i]) && spanishStreetTypes[t[i+1]] || spanishStreetTypes[t[i]] && slices.ContainsFunc(t[i:], hasDigit) {
				return t[:i:i], t[i:], true
			}
		}
	case at > 1 && hasDigit(t[0]) && at+1 < len(t):
		return t[at:], t[:at:at], true
	}
	return nil, nil, false
}

// moveHouseNumber puts a house number written after a Spanish street name
// (CALLE A # 150, CALLE 1 A17 APT 2) before it.
func moveHouseNumber(t []string) []string {
	// The units at the end stay there; the house number is looked for
	// before them. A # after the street is the house number's sign.
	var unitWords []string
	if n := len(t); n < 2 || !houseWords[t[n-2]] {
		var d DeliveryLine
		core := d.stripTrailing(t, true)
		unitWords = t[len(core):len(t):len(t)]
		t = core[:len(core):len(core)]
	}
	if n := len(t); n >= 3 && spanishStreetTypes[t[0]] && hasDigit(t[n-1]) {
		rest := t[:n-1]
		if houseWords[rest[len(rest)-1]] {
			rest = rest[:len(rest)-1]
		}
		// A kilometre or hectometre is a place on a road, not a house
		// number (CARR 2 KM 14.5).
		if last := rest[len(rest)-1]; len(rest) >= 2 && units[last] == "" && last != "KM" && last != "HM" {
			t = append([]string{t[n-1]}, rest...)
		}
	}
	return append(t, unitWords...)
}

// blockHouse finds a block and house number written with their words
// (BLQ 199 CASA 31, BLOQUE 23 # 18) in a street line and returns the
// house number as Appendix I writes it (199-31) and the rest of the line.
func blockHouse(t []string) (string, []string, bool) {
	for i := 0; i+2 < len(t); i++ {
		if !blockWords[t[i]] || !isNumberish(t[i+1]) {
			continue
		}
		// The house word may be left out: BLQ 5 12.
		j := i + 2
		if houseWords[t[j]] {
			j++
		}
		if j >= len(t) || !hasDigit(t[j]) {
			continue
		}
		rest := append(append([]string(nil), t[:i]...), t[j+1:]...)
		if len(rest) == 0 || hasDigit(rest[0]) {
			return "", nil, false
		}
		return t[i+1] + "-" + t[j], rest, true
	}
	return "", nil, false
}

// parseIn takes apart a delivery line of an address in the given state.
// In the US Virgin Islands a street line named for an estate (52 ESTATE
// CANE GARDEN) names a place, whose last word is no suffix: Publication 28
// 232 takes the street name as the ZIP+4 file has it, and the file has
// the estates' names whole.
func parseIn(t []string, state string) DeliveryLine {
	d := parseLine(t, state)
	if state == "VI" && d.Kind == LineStreet && d.Suffix != "" && d.Predirectional == "" &&
		(d.StreetName == "ESTATE" || strings.HasPrefix(d.StreetName, "ESTATE ")) {
		if primary, ok := suffixPrimary[d.Suffix]; ok {
			d.StreetName += " " + primary
			d.Suffix = ""
		}
	}
	return d
}

// routeStarts are the first words of a rural route or highway contract
// line.
var routeStarts = map[string]bool{
	"RR": true, "R": true, "RURAL": true, "RURALROUTE": true, "RFD": true, "RD": true, "RT": true, "RTE": true, "ROUTE": true,
	"HC": true, "H": true, "HIGHWAY": true, "HWY": true, "STAR": true, "STARROUTE": true,
}

// splitRouteExtra splits a rural route or highway contract line that
// carries more than its route and box (RR 2 BOX 18 BRYAN DAIRY RD) into
// the route line and the rest.
func splitRouteExtra(t []string) (route, extra []string, ok bool) {
	joined := len(t) >= 4 && len(t[0]) > 2 && (t[0][0] == 'R' || t[0][0] == 'H') && reRouteJoined.MatchString(t[0])
	if (len(t) < 5 && !joined) || (!routeStarts[t[0]] && !joined) {
		return nil, nil, false
	}
	// The box number ends the route line: it comes within the first
	// words (RURAL ROUTE NUMBER 2 BOX # 18), after BOX or after the pound
	// sign written right after the route's number (RR0061 #87B, 241).
	k := -1
	for i := 1; i < len(t)-1 && i < 7; i++ {
		if t[i] == "#" && hasDigit(t[i-1]) && isNumberish(t[i+1]) {
			k = i + 2
			break
		}
		if t[i] != "BOX" && t[i] != "BX" {
			continue
		}
		j := i + 1
		if t[j] == "#" && j+1 < len(t) {
			j++
		}
		if isNumberish(t[j]) {
			k = j + 1
		}
		break
	}
	if k < 0 || k >= len(t) || hasDigit(t[k]) {
		return nil, nil, false
	}
	if d := parseLine(t, ""); d.Kind != LineStreet {
		return nil, nil, false
	}
	if d := parseLine(t[:k], ""); (d.Kind == LineRuralRoute || d.Kind == LineHighwayContract) && d.BoxNumber != "" {
		return t[:k], t[k:], true
	}
	return nil, nil, false
}

// reBoxHyphen is a box number written with a leading hyphen.
var reBoxHyphen = regexp.MustCompile(`(?i)\b(BOX|BX|BIN|CALLER|DRAWER)(\s*#?\s*)-(\d)`)

// boxHyphen writes the hyphen before a box number as a zero: Publication
// 28 282 marks a box number's significant leading zeros with a hyphen in
// the ZIP+4 file, to be printed as a zero (PO BOX -0145 -> PO BOX 00145).
func boxHyphen(s string) string {
	if strings.IndexByte(s, '-') < 0 {
		return s
	}
	return reBoxHyphen.ReplaceAllString(s, "${1}${2}0$3")
}

// reSpacedRange is a house number range written with a space beside its
// hyphen at the start of a line (729- 731, 3632 -36, 112 - 10); an ordinal
// after the hyphen is the street (12 - 5TH AVE).
var reSpacedRange = regexp.MustCompile(`^(\s*[0-9]+[A-Za-z]?)(?:\s+-\s*|-\s+)([0-9]+[A-Za-z]?\b)`)

// spacedRange closes the spaces around the hyphen of a house number range
// at the start of a line: the hyphen of a house number is significant
// (Publication 28 232, Appendix D: 112-10 BRONX RD), and written apart
// the two numbers would read as a house number and a street.
func spacedRange(s string) string {
	if strings.IndexByte(s, '-') < 0 {
		return s
	}
	return reSpacedRange.ReplaceAllString(s, "${1}-${2}")
}
