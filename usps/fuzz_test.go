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
// address as once, and the result is plain ASCII.
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
		_ = usps.Check(once)
	})
}
