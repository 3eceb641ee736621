package usps_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/usps"
)

func TestParseLastLine(t *testing.T) {
	cases := []struct {
		in   string
		want usps.LastLine
		err  error
	}{
		{"Springfield, IL 62701-1234", usps.LastLine{City: "Springfield", State: "IL", ZIP: "62701", Plus4: "1234"}, nil},
		{"Springfield IL 62701", usps.LastLine{City: "Springfield", State: "IL", ZIP: "62701"}, nil},
		{"SPRINGFIELD il 627011234", usps.LastLine{City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1234"}, nil},
		{"springfield, illinois 62701", usps.LastLine{City: "springfield", State: "IL", ZIP: "62701"}, nil},
		{"Saint Paul, Minn. 55101", usps.LastLine{City: "Saint Paul", State: "MN", ZIP: "55101"}, nil},
		{"New York, New York 10001", usps.LastLine{City: "New York", State: "NY", ZIP: "10001"}, nil},
		{"Charleston, West Virginia 25301", usps.LastLine{City: "Charleston", State: "WV", ZIP: "25301"}, nil},
		{"Washington, D.C. 20500", usps.LastLine{City: "Washington", State: "DC", ZIP: "20500"}, nil},
		{"Washington District of Columbia 20500", usps.LastLine{City: "Washington", State: "DC", ZIP: "20500"}, nil},
		{"St. Louis, MO 63101", usps.LastLine{City: "St. Louis", State: "MO", ZIP: "63101"}, nil},
		{"Kansas City, MO, 64105", usps.LastLine{City: "Kansas City", State: "MO", ZIP: "64105"}, nil},
		{"APO AE 09001", usps.LastLine{City: "APO", State: "AE", ZIP: "09001"}, nil},
		{"FPO, AP 96620-1234", usps.LastLine{City: "FPO", State: "AP", ZIP: "96620", Plus4: "1234"}, nil},
		{"San Juan PR 00926 3232", usps.LastLine{City: "San Juan", State: "PR", ZIP: "00926", Plus4: "3232"}, nil},
		{"Hagatna, Guam 96910", usps.LastLine{City: "Hagatna", State: "GU", ZIP: "96910"}, nil},
		{"Boston MA 2108", usps.LastLine{City: "Boston", State: "MA", ZIP: "2108"}, nil},
		{"Springfield IL", usps.LastLine{City: "Springfield", State: "IL"}, nil},
		{"Springfield IL 62701 USA", usps.LastLine{City: "Springfield", State: "IL", ZIP: "62701"}, nil},
		{"Springfield, IL 62701, United States", usps.LastLine{City: "Springfield", State: "IL", ZIP: "62701"}, nil},
		{"A. B. Town, IL 62701", usps.LastLine{City: "A. B. Town", State: "IL", ZIP: "62701"}, nil},
		{"", usps.LastLine{}, usps.ErrEmptyLastLine},
		{" , ", usps.LastLine{}, usps.ErrEmptyLastLine},
		{"IL 62701", usps.LastLine{}, usps.ErrNoCity},
		{"Springfield 62701", usps.LastLine{}, usps.ErrNoState},
		{"62701", usps.LastLine{}, usps.ErrNoState},
		{"Springfield ZZ 62701", usps.LastLine{}, usps.ErrNoState},
		{"Springfield IL 6270A", usps.LastLine{}, usps.ErrBadZIP},
		{"Springfield IL 627012", usps.LastLine{}, usps.ErrBadZIP},
		{"Ottawa ON K1A 0B1", usps.LastLine{}, usps.ErrBadZIP},
	}
	for _, c := range cases {
		got, err := usps.ParseLastLine(c.in)
		if !errors.Is(err, c.err) {
			t.Errorf("ParseLastLine(%q) error %v, want %v", c.in, err, c.err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("ParseLastLine(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestStatesOfZIP(t *testing.T) {
	cases := []struct {
		zip  string
		want string // "" when not in use
	}{
		{"00401", ""}, {"00501", "NY"}, {"00601", "PR"}, {"00801", "VI"}, {"00901", "PR"},
		{"01001", "MA"}, {"02799", "MA"}, {"02801", "RI"}, {"05501", "MA"}, {"05601", "VT"},
		{"09001", "AE"}, {"09901", ""}, {"20001", "DC"}, {"20101", "VA"}, {"20601", "MD"},
		{"21301", ""}, {"34001", "AA"}, {"34301", ""}, {"62701", "IL"}, {"62101", ""},
		{"73301", "TX"}, {"88501", "TX"}, {"96201", "AP"}, {"96701", "HI"}, {"96799", "AS"},
		{"96910", "GU"}, {"96940", "PW"}, {"96941", "FM"}, {"96950", "MP"}, {"96960", "MH"},
		{"99501", "AK"}, {"99999", "AK"}, {"123", "NY"}, {"12", ""}, {"ab123", ""},
	}
	for _, c := range cases {
		sts, ok := usps.StatesOfZIP(c.zip)
		got := ""
		if ok {
			got = strings.Join(sts, ",")
		}
		if got != c.want {
			t.Errorf("StatesOfZIP(%q) = %q, %v; want %q", c.zip, got, ok, c.want)
		}
		if ok != usps.PrefixInUse(c.zip) {
			t.Errorf("PrefixInUse(%q) disagrees", c.zip)
		}
	}
	if !usps.ZIPMatchesState("62701", "IL") || usps.ZIPMatchesState("62701", "CA") || usps.ZIPMatchesState("00001", "NY") {
		t.Error("ZIPMatchesState is wrong")
	}
	// Every state code but the freely associated ones owns a prefix of its own.
	owners := map[string]bool{}
	for p := 0; p < 1000; p++ {
		if sts, ok := usps.StatesOfZIP(fmt.Sprintf("%03d00", p)); ok {
			owners[sts[0]] = true
		}
	}
	for _, s := range usps.States() {
		if !owners[s.Code] && s.Kind != usps.KindFreelyAssociated && s.Code != "AS" && s.Code != "MP" {
			t.Errorf("no prefix belongs to %s", s.Code)
		}
	}
}

func TestStates(t *testing.T) {
	if n := len(usps.States()); n != 62 {
		t.Errorf("%d state codes, want 62 (50 states, DC, 5 territories, 3 freely associated, 3 military)", n)
	}
	for _, c := range []struct{ in, code string }{
		{"il", "IL"}, {"Illinois", "IL"}, {"ILL.", "IL"}, {"north carolina", "NC"}, {"Puerto Rico", "PR"},
		{"Armed Forces Europe", "AE"}, {"D.C.", "DC"}, {"Guam", "GU"}, {"Federated States of Micronesia", "FM"},
	} {
		s, ok := usps.LookupState(c.in)
		if !ok || s.Code != c.code {
			t.Errorf("LookupState(%q) = %q, %v; want %s", c.in, s.Code, ok, c.code)
		}
	}
	if _, ok := usps.LookupState("ZZ"); ok {
		t.Error("ZZ is a state")
	}
	for _, c := range []struct{ state, zip, tz string }{
		{"IL", "62701", "America/Chicago"}, {"NY", "10001", "America/New_York"}, {"TX", "75201", "America/Chicago"},
		{"TX", "79901", "America/Denver"}, {"FL", "32501", "America/Chicago"}, {"FL", "33101", "America/New_York"},
		{"TN", "37902", "America/New_York"}, {"TN", "37201", "America/Chicago"}, {"AZ", "85001", "America/Phoenix"},
		{"HI", "96813", "Pacific/Honolulu"}, {"PR", "00926", "America/Puerto_Rico"}, {"GU", "96910", "Pacific/Guam"},
		{"AE", "09001", ""}, {"IL", "", "America/Chicago"}, {"ZZ", "62701", ""},
		// A ZIP Code of another state does not borrow its zone.
		{"IL", "79901", "America/Chicago"},
	} {
		if got := usps.TimeZoneOf(c.state, c.zip); got != c.tz {
			t.Errorf("TimeZoneOf(%s, %s) = %q, want %q", c.state, c.zip, got, c.tz)
		}
	}
}

func TestCheck(t *testing.T) {
	base := usps.Address{Line1: "123 MAIN ST", City: "SPRINGFIELD", State: "IL", ZIP: "62701"}
	with := func(f func(*usps.Address)) usps.Address { a := base; f(&a); return a }
	cases := []struct {
		name string
		a    usps.Address
		want []usps.ProblemCode
	}{
		{"well-formed", base, nil},
		{"no city", with(func(a *usps.Address) { a.City = "" }), []usps.ProblemCode{usps.ProblemNoCity}},
		{"unknown state", with(func(a *usps.Address) { a.State = "ZZ" }), []usps.ProblemCode{usps.ProblemUnknownState}},
		{"no ZIP", with(func(a *usps.Address) { a.ZIP = "" }), []usps.ProblemCode{usps.ProblemNoZIP}},
		{"short ZIP", with(func(a *usps.Address) { a.ZIP = "6270" }), []usps.ProblemCode{usps.ProblemBadZIP}},
		{"unused prefix", with(func(a *usps.Address) { a.ZIP = "00012" }), []usps.ProblemCode{usps.ProblemUnusedPrefix}},
		{"ZIP of another state", with(func(a *usps.Address) { a.State = "CA" }), []usps.ProblemCode{usps.ProblemZIPState}},
		{"military city, civilian state", with(func(a *usps.Address) { a.City = "APO" }), []usps.ProblemCode{usps.ProblemMilitary}},
		{"military state, civilian city", with(func(a *usps.Address) { a.State, a.ZIP = "AE", "09001" }), []usps.ProblemCode{usps.ProblemMilitary}},
		{"military line, civilian city", with(func(a *usps.Address) { a.Line1 = "PSC 802 BOX 74" }), []usps.ProblemCode{usps.ProblemMilitary}},
		{"no house number", with(func(a *usps.Address) { a.Line1 = "MAIN ST" }), []usps.ProblemCode{usps.ProblemNoPrimary}},
		{"no street name", with(func(a *usps.Address) { a.Line1 = "123" }), []usps.ProblemCode{usps.ProblemNoStreet}},
		{"PO box without number", with(func(a *usps.Address) { a.Line1 = "PO BOX" }), []usps.ProblemCode{usps.ProblemNoBox}},
		{"unit without number", with(func(a *usps.Address) { a.Line1 = "123 MAIN ST STE" }), []usps.ProblemCode{usps.ProblemNoUnitNumber}},
		{"building without unit", with(func(a *usps.Address) { a.Line2 = "HARBOR TOWERS" }), []usps.ProblemCode{usps.ProblemBuildingNoApt}},
		{"building with unit", with(func(a *usps.Address) { a.Line1, a.Line2 = "HARBOR TOWERS", "123 MAIN ST APT 5" }), nil},
		{"several", usps.Address{Line1: "MAIN ST", State: "CA", ZIP: "62701"}, []usps.ProblemCode{usps.ProblemNoCity, usps.ProblemZIPState, usps.ProblemNoPrimary}},
	}
	for _, c := range cases {
		var got []usps.ProblemCode
		for _, p := range usps.Check(c.a) {
			got = append(got, p.Code)
			if p.Message == "" {
				t.Errorf("%s: problem %s without a message", c.name, p.Code)
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
	}
}

// A unit line is joined to the street line only while the result fits in
// MaxLineLength.
func TestJoinLimit(t *testing.T) {
	// "1 " + name + " ST APT 5": the name takes the rest of the length.
	for _, n := range []int{usps.MaxLineLength - len("1  ST APT 5"), usps.MaxLineLength - len("1  ST APT 5") + 1} {
		street := "1 " + strings.Repeat("A", n) + " ST"
		got := usps.Standardize(usps.Address{Line1: street, Line2: "Apt 5", City: "SPRINGFIELD", State: "IL", ZIP: "62701"}, usps.Upper)
		joined := len(street+" APT 5") <= usps.MaxLineLength
		if joined && (got.Line1 != street+" APT 5" || got.Line2 != "") {
			t.Errorf("%d characters: not joined: %q / %q", len(street+" APT 5"), got.Line1, got.Line2)
		}
		if !joined && (got.Line1 != street || got.Line2 != "APT 5") {
			t.Errorf("%d characters: joined: %q / %q", len(street+" APT 5"), got.Line1, got.Line2)
		}
	}
}

// A numbered road is written out only while the line fits in
// MaxLineLength; past it, it takes its Appendix F abbreviation, whatever
// form it was written in.
func TestNumberedRoadLimit(t *testing.T) {
	for _, c := range []struct{ written, full, short string }{
		{"HWY 66", "HIGHWAY 66", "HWY 66"}, {"CR 12", "COUNTY ROAD 12", "CNTY RD 12"},
		{"SR 9", "STATE ROAD 9", "STATE RD 9"}, {"SR MM", "STATE ROUTE MM", "STATE RTE MM"}, {"I-95", "INTERSTATE 95", "I 95"},
		{"CO RD 12", "COUNTY ROAD 12", "CNTY RD 12"}, {"US 41", "US HIGHWAY 41", "US HWY 41"},
	} {
		// "1 " + name + " " + road: the name takes the rest of the length.
		fits := usps.MaxLineLength - len("1  "+c.full)
		for _, n := range []int{fits, fits + 1} {
			prefix := "1 " + strings.Repeat("A", n) + " "
			for _, line2 := range []string{"", "Apt 5"} {
				in := usps.Address{Line1: prefix + c.written, Line2: line2, City: "SPRINGFIELD", State: "IL", ZIP: "62701"}
				got := usps.Standardize(in, usps.Upper)
				want1, want2 := prefix+c.full, ""
				if n > fits {
					want1 = prefix + c.short
				}
				// The street line is written on its own; the unit joins it
				// when both fit.
				if line2 != "" {
					if len(want1+" APT 5") <= usps.MaxLineLength {
						want1 += " APT 5"
					} else {
						want2 = "APT 5"
					}
				}
				if got.Line1 != want1 || got.Line2 != want2 {
					t.Errorf("%q / %q: %q / %q, want %q / %q", in.Line1, line2, got.Line1, got.Line2, want1, want2)
				}
				if len(got.Line1) > usps.MaxLineLength || len(got.Line2) > usps.MaxLineLength {
					t.Errorf("%q / %q: a line is longer than %d: %q / %q", in.Line1, line2, usps.MaxLineLength, got.Line1, got.Line2)
				}
				if again := usps.Standardize(got, usps.Upper); again != got {
					t.Errorf("standardizing again changed %+v to %+v", got, again)
				}
			}
		}
	}
}

func TestParseCasing(t *testing.T) {
	for _, c := range []struct {
		in   string
		want usps.Casing
		ok   bool
	}{{"upper", usps.Upper, true}, {"Proper", usps.Proper, true}, {"lower", usps.Upper, false}, {"", usps.Upper, false}} {
		got, ok := usps.ParseCasing(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseCasing(%q) = %v, %v", c.in, got, ok)
		}
	}
}

func TestAbbreviations(t *testing.T) {
	for in, want := range map[string]string{"Avenue": "AVE", "av": "AVE", "BOULEVARD": "BLVD", "Parkway": "PKWY", "crossing": "XING", "St.": "ST"} {
		if got, ok := usps.SuffixAbbreviation(in); !ok || got != want {
			t.Errorf("SuffixAbbreviation(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := usps.SuffixAbbreviation("Main"); ok {
		t.Error("Main is a suffix")
	}
	for in, want := range map[string]struct {
		abbr string
		num  bool
	}{"Suite": {"STE", true}, "apartment": {"APT", true}, "Penthouse": {"PH", false}, "rear": {"REAR", false}} {
		abbr, num, ok := usps.UnitAbbreviation(in)
		if !ok || abbr != want.abbr || num != want.num {
			t.Errorf("UnitAbbreviation(%q) = %q, %v, %v", in, abbr, num, ok)
		}
	}
	if got := usps.LineMilitary.String(); got != "military" {
		t.Errorf("LineMilitary.String() = %q", got)
	}
}

func BenchmarkStandardize(b *testing.B) {
	in := usps.Address{Line1: "123 North Main Street", Line2: "Apartment 4B", City: "St. Louis", State: "Missouri", ZIP: "631011234"}
	for b.Loop() {
		usps.Standardize(in, usps.Proper)
	}
}

func BenchmarkParseLastLine(b *testing.B) {
	for b.Loop() {
		if _, err := usps.ParseLastLine("Saint Louis, Missouri 63101-1234"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseDeliveryLine(t *testing.T) {
	got := usps.ParseDeliveryLine("4 n. elm st., apt 2, pmb 7")
	want := usps.DeliveryLine{Kind: usps.LineStreet, PrimaryNumber: "4", Predirectional: "N", StreetName: "ELM", Suffix: "ST",
		Secondaries: []usps.Secondary{{Designator: "APT", Number: "2"}}, PMB: "7"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !got.HasUnit() || got.MissingUnitNumber() {
		t.Errorf("HasUnit %v, MissingUnitNumber %v", got.HasUnit(), got.MissingUnitNumber())
	}
	if s := got.Format(usps.Proper); s != "4 N Elm St Apt 2 PMB 7" {
		t.Errorf("Format = %q", s)
	}
}

// The first of two suffix words is spelled out only while the line fits
// in MaxLineLength; past it, it takes its Appendix C1 abbreviation, after
// the highway words, which go first.
func TestTwoSuffixLimit(t *testing.T) {
	for _, c := range []struct{ written, full, short string }{
		{"Str Ext", "STREET EXT", "ST EXT"}, {"Crk Rd", "CREEK RD", "CRK RD"},
		{"Hwy 3 Byp Rd", "HIGHWAY 3 BYPASS RD", "HWY 3 BYPASS RD"},
	} {
		fits := usps.MaxLineLength - len("1  "+c.full)
		for _, n := range []int{fits, fits + 1} {
			prefix := "1 " + strings.Repeat("A", n) + " "
			in := usps.Address{Line1: prefix + c.written, City: "SPRINGFIELD", State: "IL", ZIP: "62701"}
			got := usps.Standardize(in, usps.Upper)
			want := prefix + c.full
			if n > fits {
				want = prefix + c.short
			}
			if got.Line1 != want {
				t.Errorf("%q: %q, want %q", in.Line1, got.Line1, want)
			}
			if again := usps.Standardize(got, usps.Upper); again != got {
				t.Errorf("standardizing again changed %+v to %+v", got, again)
			}
		}
	}
	// Past the highway words, the suffix word is abbreviated too.
	long := "1 " + strings.Repeat("A", usps.MaxLineLength-len("1  HWY 3 BYPASS RD")+1) + " Hwy 3 Byp Rd"
	if got := usps.Standardize(usps.Address{Line1: long}, usps.Upper).Line1; !strings.HasSuffix(got, " HWY 3 BYP RD") || len(got) > usps.MaxLineLength {
		t.Errorf("%q: %q, want it to end in HWY 3 BYP RD within %d characters", long, got, usps.MaxLineLength)
	}
}

// Appendix F's state codes stay in capitals before the highway words in
// proper casing; the same two letters elsewhere are a word of the name.
func TestProperStateHighway(t *testing.T) {
	for in, want := range map[string]string{
		"1 Kentucky 440":           "1 KY Highway 440",
		"1 California County Rd 5": "1 CA County Road 5",
		"1 La Salle St":            "1 La Salle St",
		"1 Ga Hwy 5":               "1 GA Highway 5",
	} {
		if got := usps.Standardize(usps.Address{Line1: in}, usps.Proper).Line1; got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// No line of a standardized address is longer than MaxLineLength: a line
// of exactly the limit stays whole, one character more loses its last
// word; a unit that does not fit goes on the second line; a city that
// makes the last line too long loses its last words.
func TestLineLimit(t *testing.T) {
	name := func(n int) string { // "1 " + n-2 characters of words, no suffix
		s := "1 " + strings.Repeat("ABCDEFGHI ", n/10)
		return strings.TrimSpace((s + strings.Repeat("Z", n))[:n])
	}
	for _, n := range []int{usps.MaxLineLength, usps.MaxLineLength + 1} {
		in := name(n)
		got := usps.Standardize(usps.Address{Line1: in}, usps.Upper)
		want := in
		if n > usps.MaxLineLength {
			want = in[:strings.LastIndexByte(in[:usps.MaxLineLength+1], ' ')]
		}
		if got.Line1 != want {
			t.Errorf("%d characters: %q, want %q", n, got.Line1, want)
		}
		if again := usps.Standardize(got, usps.Upper); again != got {
			t.Errorf("standardizing again changed %+v to %+v", got, again)
		}
	}
	// One word longer than the limit is cut at it.
	long := "1 " + strings.Repeat("X", usps.MaxLineLength)
	if got := usps.Standardize(usps.Address{Line1: long}, usps.Upper).Line1; got != "1" {
		t.Errorf("%q: %q, want the house number alone", long, got)
	}
	// A unit on a delivery line too long for it goes on the second line.
	street := name(usps.MaxLineLength - 4)
	got := usps.Standardize(usps.Address{Line1: street + " Apt 5"}, usps.Upper)
	if got.Line1 != street || got.Line2 != "APT 5" {
		t.Errorf("%q: %q / %q, want %q / %q", street+" Apt 5", got.Line1, got.Line2, street, "APT 5")
	}
	// The last line: CITY ST 12345-6789 is 1+3+11 characters past the city.
	for _, n := range []int{usps.MaxLineLength - 14, usps.MaxLineLength - 13} {
		city := strings.TrimSpace((strings.Repeat("SPRING ", 10) + strings.Repeat("Q", n))[:n])
		got := usps.Standardize(usps.Address{Line1: "1 Main St", City: city, State: "IL", ZIP: "62701", Plus4: "1234"}, usps.Upper)
		if n <= usps.MaxLineLength-14 && got.City != city {
			t.Errorf("city of %d characters: %q, want it whole", n, got.City)
		}
		if l := got.LastLine(); len(l) > usps.MaxLineLength {
			t.Errorf("city of %d characters: last line %q is longer than %d", n, l, usps.MaxLineLength)
		}
		if n > usps.MaxLineLength-14 && got.City == city {
			t.Errorf("city of %d characters was kept whole in a last line of %d", n, len(got.LastLine()))
		}
	}
}

// Appendix B's armed forces "states" are found by their long names, in
// LookupState and in a last line; names that mix two codes are none.
func TestArmedForcesNames(t *testing.T) {
	for name, want := range map[string]string{
		"Armed Forces Europe, the Middle East, and Canada": "AE",
		"Armed Forces Americas (except Canada)":            "AA",
		"armed forces pacific":                             "AP",
		"Armed Forces Africa":                              "AE",
		"Armed Forces Europe and Pacific":                  "",
		"Armed Forces":                                     "",
		"Armed Forces Canada except Canada":                "",
	} {
		st, ok := usps.LookupState(name)
		if ok != (want != "") || ok && st.Code != want {
			t.Errorf("LookupState(%q) = %q, %v; want %q", name, st.Code, ok, want)
		}
	}
	l, err := usps.ParseLastLine("APO, Armed Forces Europe, the Middle East, and Canada 09001-1234")
	if err != nil || l.City != "APO" || l.State != "AE" || l.ZIP != "09001" || l.Plus4 != "1234" {
		t.Errorf("ParseLastLine = %+v, %v", l, err)
	}
}
