package usps_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/lettershop/lettershop/usps"
)

// FuzzParseLastLine: no input panics, and a parsed last line written out
// and read again gives the same parts.
func FuzzParseLastLine(f *testing.F) {
	for _, s := range []string{
		"Springfield, IL 62701-1234", "springfield il 627011234", "New York, New York 10001",
		"Washington, D.C. 20500", "APO AE 09001", "Boston MA 2134", "St. Louis, Mo. 63101 USA",
		"IL 62701", "62701", "", ",,,", "San Juan PR 00926 3232", "Honolulu, HI 96813-", "A B C D E F G H",
		"Pago Pago AS 96799", "X IL IL 62701", "USA IL USA", "münchen by 80331", "Kansas City, Missouri, 64105",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := usps.ParseLastLine(s)
		if err != nil {
			return
		}
		if l.State == "" || strings.TrimSpace(l.City) == "" {
			t.Fatalf("ParseLastLine(%q) = %+v without error", s, l)
		}
		again, err := usps.ParseLastLine(l.String())
		if err != nil {
			t.Fatalf("ParseLastLine(%q) = %+v, whose String %q does not parse: %v", s, l, l.String(), err)
		}
		if again.State != l.State || again.ZIP != l.ZIP || again.Plus4 != l.Plus4 ||
			!slices.Equal(strings.Fields(strings.ToUpper(again.City)), strings.Fields(strings.ToUpper(l.City))) {
			t.Fatalf("ParseLastLine(%q) = %+v; its String %q parses to %+v", s, l, l.String(), again)
		}
	})
}

// FuzzStandardize: no input panics, standardizing twice gives the same
// address as once, the result is plain ASCII, no line of it is longer than
// MaxLineLength, and no word stands where Publication 28 requires one of
// its table's entries unless it is one: the suffix is an Appendix C1
// abbreviation, the directionals are the eight of 233, every unit
// designator is an Appendix C2 abbreviation or #, a route is one of the
// route types, and a state that Appendix B names is written as its code.
func FuzzStandardize(f *testing.F) {
	for _, c := range standardizeCases {
		ll, _ := usps.ParseLastLine(c.last)
		f.Add(c.line1, c.line2, ll.City, ll.State, ll.ZIP, ll.Plus4, c.urb, c.casing == usps.Proper)
	}
	f.Add("APT 5", "PO BOX 1", "ST", "", "2134", "12", "URB", true)
	// Numbered roads just past the line length, written out or not.
	f.Add("1 "+strings.Repeat("A", 50)+" Hwy 66", "Apt 5", "Springfield", "IL", "62701", "", "", false)
	f.Add("1 "+strings.Repeat("A", 47)+" Co Rd 12 #5", "", "Springfield", "IL", "62701", "", "", true)
	// The Publication 28 rule groups: highways, two suffix words, routes
	// with a street name, PO box look-alikes, Puerto Rico, Virgin Islands.
	f.Add("100 N. U.S. Hwy. No. 45 Byp Road", "Ste 11 # 234", "Springfield", "IL", "62701", "", "", false)
	f.Add("1 "+strings.Repeat("B", 40)+" Farm to Market Road 1960 St Dr", "Apt 5", "Houston", "TX", "77001", "", "", true)
	f.Add("RR # 01 Box 18 Bryan Dairy Rd", "", "Largo", "FL", "33777", "", "", false)
	f.Add("PO Box -0145", "Lockbox 12", "Springfield", "IL", "62701", "", "", false)
	f.Add("Calle 1 A-17", "Condominio Ashford Palace", "San Juan", "PR", "00907", "", "Urbanization Las Gladiolas", true)
	f.Add("52 Estate Cane Garden", "Apt 2", "Christiansted", "VI", "00820", "", "", false)
	// More rule groups: Appendix F's state-named and packed
	// highways, SR by state, Appendix I's house numbers, split
	// directionals, armed forces names, city abbreviations, unit ranges.
	f.Add("Kentucky 440", "", "Colorado Spgs", "KY", "40601", "", "", false)
	f.Add("1 California County Rd 555 Unit C-D", "", "N Las Vegas", "CA", "90001", "", "", true)
	f.Add("IH280 HWY FM 12 # 4", "SR MM", "Ft Worth", "MO", "63101", "", "", false)
	f.Add("Calle 117 Bloque 23 Num. 18", "Cond Ashford Plaza Apt 5", "San Juan", "PR", "00907", "", "Urb Las Gladiolas", false)
	f.Add("123 N E Main St S E", "48S 400E", "Salt Lake City", "Armed Forces Americas (except Canada)", "34001", "", "", true)
	f.Add(strings.Repeat("Long Name ", 12)+"Ave Apt 5", "", strings.Repeat("City ", 20), "IL", "62701", "1234", strings.Repeat("Urb ", 30), false)
	f.Fuzz(func(t *testing.T, line1, line2, city, state, zip, plus4, urb string, proper bool) {
		casing := usps.Upper
		if proper {
			casing = usps.Proper
		}
		in := usps.Address{Line1: line1, Line2: line2, City: city, State: state, ZIP: zip, Plus4: plus4, Urbanization: urb}
		once := usps.Standardize(in, casing)
		twice := usps.Standardize(once, casing)
		if once != twice {
			t.Fatalf("Standardize is not idempotent on %#v:\nonce:  %#v\ntwice: %#v", in, once, twice)
		}
		for _, s := range []string{once.Line1, once.Line2, once.City, once.State, once.ZIP, once.Plus4, once.Urbanization} {
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 {
					t.Fatalf("Standardize(%#v) = %#v: not ASCII", in, once)
				}
			}
		}
		for _, l := range []string{once.Line1, once.Line2, once.Urbanization, once.LastLine()} {
			if len(l) > usps.MaxLineLength {
				t.Fatalf("Standardize(%#v) = %#v: line %q is longer than %d", in, once, l, usps.MaxLineLength)
			}
		}
		checkPositions(t, in, once)
		_ = usps.Check(once)
	})
}

// routeTypes are the route words a rural route, highway contract or
// military line begins with.
var routeTypes = map[string]bool{"": true, "RR": true, "HC": true, "PSC": true, "CMR": true, "UNIT": true, "USS": true, "USNS": true, "USCGC": true}

// checkPositions fails when a word of the standardized address stands
// where Publication 28 requires an entry of its tables and is not one.
func checkPositions(t *testing.T, in, out usps.Address) {
	t.Helper()
	for _, line := range []string{out.Line1, out.Line2} {
		d := usps.ParseDeliveryLine(line)
		if d.Suffix != "" {
			if abbr, ok := usps.SuffixAbbreviation(d.Suffix); !ok || abbr != d.Suffix {
				t.Fatalf("Standardize(%#v) = %#v: suffix %q of %q is no Appendix C1 abbreviation", in, out, d.Suffix, line)
			}
		}
		for _, dir := range []string{d.Predirectional, d.Postdirectional} {
			if dir != "" && !slices.Contains([]string{"N", "S", "E", "W", "NE", "NW", "SE", "SW"}, dir) {
				t.Fatalf("Standardize(%#v) = %#v: directional %q of %q is none of the eight", in, out, dir, line)
			}
		}
		for _, sec := range d.Secondaries {
			if abbr, _, ok := usps.UnitAbbreviation(sec.Designator); sec.Designator != "#" && (!ok || abbr != sec.Designator) {
				t.Fatalf("Standardize(%#v) = %#v: unit designator %q of %q is no Appendix C2 abbreviation", in, out, sec.Designator, line)
			}
		}
		if !routeTypes[d.RouteType] {
			t.Fatalf("Standardize(%#v) = %#v: route %q of %q is no route type", in, out, d.RouteType, line)
		}
	}
	if st, ok := usps.LookupState(in.State); ok && out.State != st.Code {
		t.Fatalf("Standardize(%#v) = %#v: state %q is not written as its code %s", in, out, in.State, st.Code)
	}
}
