package usps

import "strings"

// StateKind says what a state code stands for.
type StateKind int

// The kinds of state codes.
const (
	KindState            StateKind = iota // one of the 50 states
	KindDistrict                          // the District of Columbia
	KindTerritory                         // a US territory (PR, VI, GU, AS, MP)
	KindFreelyAssociated                  // a freely associated state served by USPS (FM, MH, PW)
	KindMilitary                          // an armed forces "state" (AA, AE, AP) for APO, FPO and DPO mail
)

// State is a two-letter state code of the USPS and what it stands for.
type State struct {
	Code string
	Name string
	Kind StateKind
	// FIPS is the two-digit FIPS state code; empty for military codes.
	FIPS string
	// TimeZone is the IANA time zone of most of the state; TimeZoneOf
	// refines it by ZIP Code. Empty for military codes, which span the world.
	TimeZone string
	// Lat and Lon locate the capital (or main post office), the best a
	// location can be without a postal database.
	Lat, Lon float64
	// Districts is the number of congressional districts: 1 for an at-large
	// state, 0 where there is a non-voting delegate or none.
	Districts int
}

// states lists every code USPS accepts in the state position of a last line.
var states = []State{
	{"AL", "Alabama", KindState, "01", "America/Chicago", 32.377, -86.300, 7},
	{"AK", "Alaska", KindState, "02", "America/Anchorage", 58.302, -134.420, 1},
	{"AZ", "Arizona", KindState, "04", "America/Phoenix", 33.448, -112.097, 9},
	{"AR", "Arkansas", KindState, "05", "America/Chicago", 34.747, -92.289, 4},
	{"CA", "California", KindState, "06", "America/Los_Angeles", 38.577, -121.494, 52},
	{"CO", "Colorado", KindState, "08", "America/Denver", 39.739, -104.985, 8},
	{"CT", "Connecticut", KindState, "09", "America/New_York", 41.764, -72.682, 5},
	{"DE", "Delaware", KindState, "10", "America/New_York", 39.157, -75.520, 1},
	{"DC", "District of Columbia", KindDistrict, "11", "America/New_York", 38.895, -77.036, 0},
	{"FL", "Florida", KindState, "12", "America/New_York", 30.438, -84.281, 28},
	{"GA", "Georgia", KindState, "13", "America/New_York", 33.749, -84.388, 14},
	{"HI", "Hawaii", KindState, "15", "Pacific/Honolulu", 21.307, -157.857, 2},
	{"ID", "Idaho", KindState, "16", "America/Boise", 43.618, -116.200, 2},
	{"IL", "Illinois", KindState, "17", "America/Chicago", 39.798, -89.654, 17},
	{"IN", "Indiana", KindState, "18", "America/Indiana/Indianapolis", 39.768, -86.162, 9},
	{"IA", "Iowa", KindState, "19", "America/Chicago", 41.591, -93.604, 4},
	{"KS", "Kansas", KindState, "20", "America/Chicago", 39.048, -95.678, 4},
	{"KY", "Kentucky", KindState, "21", "America/New_York", 38.187, -84.875, 6},
	{"LA", "Louisiana", KindState, "22", "America/Chicago", 30.457, -91.187, 6},
	{"ME", "Maine", KindState, "23", "America/New_York", 44.307, -69.782, 2},
	{"MD", "Maryland", KindState, "24", "America/New_York", 38.979, -76.491, 8},
	{"MA", "Massachusetts", KindState, "25", "America/New_York", 42.358, -71.064, 9},
	{"MI", "Michigan", KindState, "26", "America/Detroit", 42.734, -84.555, 13},
	{"MN", "Minnesota", KindState, "27", "America/Chicago", 44.955, -93.102, 8},
	{"MS", "Mississippi", KindState, "28", "America/Chicago", 32.304, -90.182, 4},
	{"MO", "Missouri", KindState, "29", "America/Chicago", 38.579, -92.173, 8},
	{"MT", "Montana", KindState, "30", "America/Denver", 46.586, -112.018, 2},
	{"NE", "Nebraska", KindState, "31", "America/Chicago", 40.808, -96.700, 3},
	{"NV", "Nevada", KindState, "32", "America/Los_Angeles", 39.164, -119.766, 4},
	{"NH", "New Hampshire", KindState, "33", "America/New_York", 43.207, -71.538, 2},
	{"NJ", "New Jersey", KindState, "34", "America/New_York", 40.220, -74.770, 12},
	{"NM", "New Mexico", KindState, "35", "America/Denver", 35.682, -105.940, 3},
	{"NY", "New York", KindState, "36", "America/New_York", 42.653, -73.757, 26},
	{"NC", "North Carolina", KindState, "37", "America/New_York", 35.780, -78.639, 14},
	{"ND", "North Dakota", KindState, "38", "America/Chicago", 46.821, -100.783, 1},
	{"OH", "Ohio", KindState, "39", "America/New_York", 39.961, -82.999, 15},
	{"OK", "Oklahoma", KindState, "40", "America/Chicago", 35.492, -97.503, 5},
	{"OR", "Oregon", KindState, "41", "America/Los_Angeles", 44.938, -123.030, 6},
	{"PA", "Pennsylvania", KindState, "42", "America/New_York", 40.264, -76.884, 17},
	{"RI", "Rhode Island", KindState, "44", "America/New_York", 41.831, -71.415, 2},
	{"SC", "South Carolina", KindState, "45", "America/New_York", 34.000, -81.033, 7},
	{"SD", "South Dakota", KindState, "46", "America/Chicago", 44.367, -100.346, 1},
	{"TN", "Tennessee", KindState, "47", "America/Chicago", 36.166, -86.784, 9},
	{"TX", "Texas", KindState, "48", "America/Chicago", 30.275, -97.740, 38},
	{"UT", "Utah", KindState, "49", "America/Denver", 40.777, -111.888, 4},
	{"VT", "Vermont", KindState, "50", "America/New_York", 44.262, -72.581, 1},
	{"VA", "Virginia", KindState, "51", "America/New_York", 37.539, -77.434, 11},
	{"WA", "Washington", KindState, "53", "America/Los_Angeles", 47.036, -122.905, 10},
	{"WV", "West Virginia", KindState, "54", "America/New_York", 38.336, -81.612, 2},
	{"WI", "Wisconsin", KindState, "55", "America/Chicago", 43.075, -89.384, 8},
	{"WY", "Wyoming", KindState, "56", "America/Denver", 41.140, -104.820, 1},
	{"AS", "American Samoa", KindTerritory, "60", "Pacific/Pago_Pago", -14.279, -170.700, 0},
	{"GU", "Guam", KindTerritory, "66", "Pacific/Guam", 13.476, 144.749, 0},
	{"MP", "Northern Mariana Islands", KindTerritory, "69", "Pacific/Saipan", 15.178, 145.751, 0},
	{"PR", "Puerto Rico", KindTerritory, "72", "America/Puerto_Rico", 18.466, -66.106, 0},
	{"VI", "Virgin Islands", KindTerritory, "78", "America/St_Thomas", 18.342, -64.932, 0},
	{"FM", "Federated States of Micronesia", KindFreelyAssociated, "64", "Pacific/Pohnpei", 6.917, 158.159, 0},
	{"MH", "Marshall Islands", KindFreelyAssociated, "68", "Pacific/Majuro", 7.090, 171.380, 0},
	{"PW", "Palau", KindFreelyAssociated, "70", "Pacific/Palau", 7.500, 134.624, 0},
	{"AA", "Armed Forces Americas", KindMilitary, "", "", 0, 0, 0},
	{"AE", "Armed Forces Europe", KindMilitary, "", "", 0, 0, 0},
	{"AP", "Armed Forces Pacific", KindMilitary, "", "", 0, 0, 0},
}

var (
	stateByCode = map[string]int{}
	// stateByName maps upper-case names, and the older abbreviations people
	// still write, to codes.
	stateByName = map[string]string{
		"ALA": "AL", "ARIZ": "AZ", "ARK": "AR", "CALIF": "CA", "CAL": "CA", "COLO": "CO",
		"CONN": "CT", "DEL": "DE", "FLA": "FL", "ILL": "IL", "IND": "IN", "KANS": "KS",
		"KAN": "KS", "MASS": "MA", "MICH": "MI", "MINN": "MN", "MISS": "MS", "MONT": "MT",
		"NEBR": "NE", "NEB": "NE", "NEV": "NV", "OKLA": "OK", "ORE": "OR", "OREG": "OR",
		"PENN": "PA", "PENNA": "PA", "TENN": "TN", "TEX": "TX", "WASH": "WA", "WIS": "WI",
		"WISC": "WI", "WYO": "WY", "D C": "DC",
		"VIRGIN ISLANDS OF THE US": "VI", "US VIRGIN ISLANDS": "VI", "MICRONESIA": "FM",
		"COMMONWEALTH OF THE NORTHERN MARIANA ISLANDS": "MP", "REPUBLIC OF PALAU": "PW",
		"ARMED FORCES AMERICA": "AA", "ARMED FORCES EUROPE MIDDLE EAST AFRICA AND CANADA": "AE",
	}
	// maxStateNameWords is the most words a state name in stateByName has.
	maxStateNameWords = 0
)

func init() {
	for i, s := range states {
		stateByCode[s.Code] = i
		stateByName[strings.ToUpper(s.Name)] = s.Code
	}
	for name := range stateByName {
		if n := len(strings.Fields(name)); n > maxStateNameWords {
			maxStateNameWords = n
		}
	}
	// The longest armed forces name of Appendix B's forms: ARMED FORCES
	// EUROPE THE MIDDLE EAST AFRICA AND CANADA.
	maxStateNameWords = max(maxStateNameWords, 10)
}

// States returns every state code USPS accepts: the 50 states, DC, the
// territories, the freely associated states and the military codes.
func States() []State { return append([]State(nil), states...) }

// LookupState finds a state by its code ("IL"), its name ("Illinois") or an
// older abbreviation ("Ill."), in any case.
func LookupState(s string) (State, bool) {
	key := strings.Join(tokens(s), " ")
	if i, ok := stateByCode[key]; ok {
		return states[i], true
	}
	if code, ok := stateByName[key]; ok {
		return states[stateByCode[code]], true
	}
	if code, ok := armedForces(strings.Fields(key)); ok {
		return states[stateByCode[code]], true
	}
	return State{}, false
}

// armedForcesRegions are the regions Publication 28 Appendix B names after
// ARMED FORCES, with the code of each: Armed Forces Americas (except
// Canada) is AA; Europe, the Middle East, Africa and Canada are AE; the
// Pacific is AP.
var armedForcesRegions = map[string]string{
	"AMERICAS": "AA", "AMERICA": "AA", "EUROPE": "AE", "AFRICA": "AE", "CANADA": "AE",
	"MIDDLE EAST": "AE", "PACIFIC": "AP",
}

// armedForces reads the name of an armed forces "state" as Appendix B and
// the military mail rules write it, in its long forms too ("Armed Forces
// Europe, the Middle East, and Canada", "Armed Forces Americas (except
// Canada)"): the regions it names must all be of one code. A region after
// EXCEPT is the one left out.
func armedForces(t []string) (string, bool) {
	if len(t) < 3 || t[0] != "ARMED" || t[1] != "FORCES" {
		return "", false
	}
	code := ""
	named, except := map[string]bool{}, ""
	for i := 2; i < len(t); i++ {
		w := t[i]
		switch {
		case w == "THE" || w == "AND" || w == "&" || w == "OF":
			continue
		case w == "EXCEPT" && i+1 < len(t) && except == "":
			i++
			except = t[i]
			continue
		case w == "MIDDLE" && i+1 < len(t) && t[i+1] == "EAST":
			w = "MIDDLE EAST"
			i++
		}
		c, ok := armedForcesRegions[w]
		if !ok || code != "" && c != code {
			return "", false
		}
		code = c
		named[w] = true
	}
	return code, code != "" && !named[except]
}

// tzByPrefix refines a state's time zone for ZIP Code prefixes in another zone.
var tzByPrefix = map[string]string{
	"324": "America/Chicago", "325": "America/Chicago", // Florida panhandle
	"798": "America/Denver", "799": "America/Denver", "885": "America/Denver", // El Paso
	"373": "America/New_York", "374": "America/New_York", "376": "America/New_York", // East Tennessee
	"377": "America/New_York", "378": "America/New_York", "379": "America/New_York",
	"420": "America/Chicago", "421": "America/Chicago", "422": "America/Chicago", // West Kentucky
	"423": "America/Chicago", "424": "America/Chicago",
	"463": "America/Chicago", "464": "America/Chicago", // Northwest Indiana
	"476": "America/Chicago", "477": "America/Chicago", // Southwest Indiana
	"577": "America/Denver",                                    // West South Dakota
	"693": "America/Denver",                                    // West Nebraska
	"835": "America/Los_Angeles", "838": "America/Los_Angeles", // North Idaho
	"979": "America/Boise", // East Oregon
}

// TimeZoneOf returns the IANA time zone of an address in state with ZIP
// Code zip (five digits, or empty when unknown): the state's zone, refined
// by the ZIP Code where a state spans two zones. It is empty for military
// addresses and unknown states.
func TimeZoneOf(state, zip string) string {
	st, ok := LookupState(state)
	if !ok || st.Kind == KindMilitary {
		return ""
	}
	if len(zip) >= 3 {
		if tz, ok := tzByPrefix[zip[:3]]; ok {
			if states, _ := StatesOfZIP(zip); len(states) == 1 && states[0] == st.Code {
				return tz
			}
		}
	}
	return st.TimeZone
}
