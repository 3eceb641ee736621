package usps

import (
	"regexp"
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

// spanishStreetTypes begin a Puerto Rico street name (CALLE A, AVE
// ASHFORD).
var spanishStreetTypes = map[string]bool{"CALLE": true, "AVE": true, "CARR": true, "CAMINO": true, "PASEO": true}

// puertoRico rewrites the words of a Puerto Rico address line: the Spanish
// words take their USPS abbreviations, and a house number written after
// the street (CALLE A # 150, CALLE 1 A-17) goes before it, where
// Publication 28 29 puts it (150 CALLE A, A-17 CALLE 1).
func puertoRico(t []string) []string {
	if len(t) == 0 {
		return t
	}
	var out []string
	for i, w := range t {
		if abbr, ok := spanishWords[w]; ok {
			if out == nil {
				out = append([]string(nil), t...)
			}
			out[i] = abbr
		}
	}
	if out != nil {
		t = out
	}
	n := len(t)
	if n < 3 || !spanishStreetTypes[t[0]] || !hasDigit(t[n-1]) {
		return t
	}
	rest := t[:n-1]
	if w := rest[len(rest)-1]; w == "#" || w == "NUM" || w == "NO" || w == "NUMERO" {
		rest = rest[:len(rest)-1]
	}
	if len(rest) < 2 || units[rest[len(rest)-1]] != "" {
		return t
	}
	return append([]string{t[n-1]}, rest...)
}

// parseIn takes apart a delivery line of an address in the given state.
// In the US Virgin Islands a street line named for an estate (52 ESTATE
// CANE GARDEN) names a place, whose last word is no suffix: Publication 28
// 232 takes the street name as the ZIP+4 file has it, and the file has
// the estates' names whole.
func parseIn(t []string, state string) DeliveryLine {
	d := parseLine(t)
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
	"RR": true, "R": true, "RURAL": true, "RFD": true, "RD": true, "RT": true, "RTE": true, "ROUTE": true,
	"HC": true, "H": true, "HIGHWAY": true, "HWY": true, "STAR": true,
}

// splitRouteExtra splits a rural route or highway contract line that
// carries more than its route and box (RR 2 BOX 18 BRYAN DAIRY RD) into
// the route line and the rest.
func splitRouteExtra(t []string) (route, extra []string, ok bool) {
	if len(t) < 5 || !routeStarts[t[0]] {
		return nil, nil, false
	}
	// The box number ends the route line: it comes within the first
	// words (RURAL ROUTE NUMBER 2 BOX # 18).
	k := -1
	for i := 1; i < len(t)-1 && i < 7; i++ {
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
	if d := parseLine(t); d.Kind != LineStreet {
		return nil, nil, false
	}
	if d := parseLine(t[:k]); (d.Kind == LineRuralRoute || d.Kind == LineHighwayContract) && d.BoxNumber != "" {
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
