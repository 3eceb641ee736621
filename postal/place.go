package postal

import (
	"strings"
	"unicode"
)

// Place is a city, state and five-digit ZIP code, as far as known.
type Place struct {
	City  string `json:"city,omitempty"`
	State string `json:"state,omitempty"`
	Zip   string `json:"zip,omitempty"`
}

// PlaceOf is where an address is: from its parsed city, state and ZIP code,
// else from its last line ("City, ST 12345-6789"). Parts it cannot find are
// empty; the city and state are upper case, the ZIP code has five digits.
func PlaceOf(city, state, zip, lastLine string) Place {
	pl := Place{City: city, State: state, Zip: zip}
	if pl.City == "" || pl.State == "" || !isZip5(pl.Zip) {
		parsed := parseLastLine(lastLine)
		if pl.City == "" {
			pl.City = parsed.City
		}
		if pl.State == "" {
			pl.State = parsed.State
		}
		if !isZip5(pl.Zip) {
			pl.Zip = parsed.Zip
		}
	}
	pl.City = strings.ToUpper(strings.TrimSpace(pl.City))
	pl.State = strings.ToUpper(strings.TrimSpace(pl.State))
	if !isZip5(pl.Zip) {
		pl.Zip = ""
	}
	return pl
}

// parseLastLine splits "City, ST 12345" or "City ST 12345-6789".
func parseLastLine(s string) Place {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	var pl Place
	if n := len(fields); n > 0 {
		if z, _, _ := strings.Cut(fields[n-1], "-"); isZip5(z) {
			pl.Zip = z
			fields = fields[:n-1]
		}
	}
	if n := len(fields); n > 0 && len(fields[n-1]) == 2 {
		pl.State = fields[n-1]
		fields = fields[:n-1]
	}
	pl.City = strings.Join(fields, " ")
	return pl
}

func isZip5(z string) bool {
	if len(z) != 5 {
		return false
	}
	for _, r := range z {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
