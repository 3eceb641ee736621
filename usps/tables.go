package usps

import "strings"

// suffixTable is Publication 28 Appendix C1: each standard street suffix
// abbreviation followed by the primary name and the common variants that
// standardize to it.
var suffixTable = map[string]string{
	"ALY": "ALLEY ALLEE ALLY", "ANX": "ANNEX ANEX ANNX", "ARC": "ARCADE",
	"AVE": "AVENUE AV AVEN AVENU AVN AVNUE", "BYU": "BAYOU BAYOO", "BCH": "BEACH",
	"BND": "BEND", "BLF": "BLUFF BLUF", "BLFS": "BLUFFS", "BTM": "BOTTOM BOT BOTTM",
	"BLVD": "BOULEVARD BOUL BOULV", "BR": "BRANCH BRNCH", "BRG": "BRIDGE BRDGE",
	"BRK": "BROOK", "BRKS": "BROOKS", "BG": "BURG", "BGS": "BURGS", "BYP": "BYPASS BYPA BYPAS BYPS",
	"CP": "CAMP CMP", "CYN": "CANYON CANYN CNYN", "CPE": "CAPE", "CSWY": "CAUSEWAY CAUSWA",
	"CTR": "CENTER CEN CENT CENTR CENTRE CNTER CNTR", "CTRS": "CENTERS", "CIR": "CIRCLE CIRC CIRCL CRCL CRCLE",
	"CIRS": "CIRCLES", "CLF": "CLIFF", "CLFS": "CLIFFS", "CLB": "CLUB", "CMN": "COMMON",
	"CMNS": "COMMONS", "COR": "CORNER", "CORS": "CORNERS", "CRSE": "COURSE", "CT": "COURT CRT",
	"CTS": "COURTS", "CV": "COVE", "CVS": "COVES", "CRK": "CREEK", "CRES": "CRESCENT CRSENT CRSNT",
	"CRST": "CREST", "XING": "CROSSING CRSSNG", "XRD": "CROSSROAD", "XRDS": "CROSSROADS",
	"CURV": "CURVE", "DL": "DALE", "DM": "DAM", "DV": "DIVIDE DIV DVD", "DR": "DRIVE DRIV DRV",
	"DRS": "DRIVES", "EST": "ESTATE", "ESTS": "ESTATES", "EXPY": "EXPRESSWAY EXP EXPR EXPRESS EXPW",
	"EXT": "EXTENSION EXTN EXTNSN", "EXTS": "EXTENSIONS", "FALL": "FALL", "FLS": "FALLS",
	"FRY": "FERRY FRRY", "FLD": "FIELD", "FLDS": "FIELDS", "FLT": "FLAT", "FLTS": "FLATS",
	"FRD": "FORD", "FRDS": "FORDS", "FRST": "FOREST FORESTS", "FRG": "FORGE FORG", "FRGS": "FORGES",
	"FRK": "FORK", "FRKS": "FORKS", "FT": "FORT FRT", "FWY": "FREEWAY FREEWY FRWAY FRWY",
	"GDN": "GARDEN GARDN GRDEN GRDN", "GDNS": "GARDENS GRDNS", "GTWY": "GATEWAY GATEWY GATWAY GTWAY",
	"GLN": "GLEN", "GLNS": "GLENS", "GRN": "GREEN", "GRNS": "GREENS", "GRV": "GROVE GROV",
	"GRVS": "GROVES", "HBR": "HARBOR HARB HARBR HRBOR", "HBRS": "HARBORS", "HVN": "HAVEN",
	"HTS": "HEIGHTS HT", "HWY": "HIGHWAY HIGHWY HIWAY HIWY HWAY", "HL": "HILL", "HLS": "HILLS",
	"HOLW": "HOLLOW HLLW HOLLOWS HOLWS", "INLT": "INLET", "IS": "ISLAND ISLND", "ISS": "ISLANDS ISLNDS",
	"ISLE": "ISLE ISLES", "JCT": "JUNCTION JCTION JCTN JUNCTN JUNCTON", "JCTS": "JUNCTIONS JCTNS",
	"KY": "KEY", "KYS": "KEYS", "KNL": "KNOLL KNOL", "KNLS": "KNOLLS", "LK": "LAKE", "LKS": "LAKES",
	"LAND": "LAND", "LNDG": "LANDING LNDNG", "LN": "LANE", "LGT": "LIGHT", "LGTS": "LIGHTS",
	"LF": "LOAF", "LCK": "LOCK", "LCKS": "LOCKS", "LDG": "LODGE LDGE LODG", "LOOP": "LOOP LOOPS",
	"MALL": "MALL", "MNR": "MANOR", "MNRS": "MANORS", "MDW": "MEADOW", "MDWS": "MEADOWS MEDOWS",
	"MEWS": "MEWS", "ML": "MILL", "MLS": "MILLS", "MSN": "MISSION MISSN MSSN", "MTWY": "MOTORWAY",
	"MT": "MOUNT MNT", "MTN": "MOUNTAIN MNTAIN MNTN MOUNTIN MTIN", "MTNS": "MOUNTAINS MNTNS",
	"NCK": "NECK", "ORCH": "ORCHARD ORCHRD", "OVAL": "OVAL OVL", "OPAS": "OVERPASS",
	"PARK": "PARK PRK PARKS", "PKWY": "PARKWAY PARKWY PKWAY PKY PARKWAYS PKWYS", "PASS": "PASS",
	"PSGE": "PASSAGE", "PATH": "PATH PATHS", "PIKE": "PIKE PIKES", "PNE": "PINE", "PNES": "PINES",
	"PL": "PLACE", "PLN": "PLAIN", "PLNS": "PLAINS", "PLZ": "PLAZA PLZA", "PT": "POINT",
	"PTS": "POINTS", "PRT": "PORT", "PRTS": "PORTS", "PR": "PRAIRIE PRR", "RADL": "RADIAL RAD RADIEL",
	"RAMP": "RAMP", "RNCH": "RANCH RANCHES RNCHS", "RPD": "RAPID", "RPDS": "RAPIDS", "RST": "REST",
	"RDG": "RIDGE RDGE", "RDGS": "RIDGES", "RIV": "RIVER RVR RIVR", "RD": "ROAD", "RDS": "ROADS",
	"RTE": "ROUTE", "ROW": "ROW", "RUE": "RUE", "RUN": "RUN", "SHL": "SHOAL", "SHLS": "SHOALS",
	"SHR": "SHORE SHOAR", "SHRS": "SHORES SHOARS", "SKWY": "SKYWAY", "SPG": "SPRING SPNG SPRNG",
	"SPGS": "SPRINGS SPNGS SPRNGS", "SPUR": "SPUR SPURS", "SQ": "SQUARE SQR SQRE SQU",
	"SQS": "SQUARES SQRS", "STA": "STATION STATN STN", "STRA": "STRAVENUE STRAV STRAVEN STRAVN STRVN STRVNUE",
	"STRM": "STREAM STREME", "ST": "STREET STRT STR", "STS": "STREETS", "SMT": "SUMMIT SUMIT SUMITT",
	"TER": "TERRACE TERR", "TRWY": "THROUGHWAY", "TRCE": "TRACE TRACES", "TRAK": "TRACK TRACKS TRK TRKS",
	"TRFY": "TRAFFICWAY", "TRL": "TRAIL TRAILS TRLS", "TUNL": "TUNNEL TUNEL TUNLS TUNNELS TUNNL",
	"TPKE": "TURNPIKE TRNPK TURNPK", "UPAS": "UNDERPASS", "UN": "UNION", "UNS": "UNIONS",
	"VLY": "VALLEY VALLY VLLY", "VLYS": "VALLEYS", "VIA": "VIADUCT VDCT VIADCT", "VW": "VIEW",
	"VWS": "VIEWS", "VLG": "VILLAGE VILL VILLAG VILLG VILLIAGE", "VLGS": "VILLAGES", "VL": "VILLE",
	"VIS": "VISTA VIST VST VSTA", "WALK": "WALK WALKS", "WALL": "WALL", "WAY": "WAY WY",
	"WAYS": "WAYS", "WL": "WELL", "WLS": "WELLS",
}

// directionals maps directional words and abbreviations to their
// Publication 28 abbreviation.
var directionals = map[string]string{
	"N": "N", "NORTH": "N", "S": "S", "SOUTH": "S", "E": "E", "EAST": "E", "W": "W", "WEST": "W",
	"NE": "NE", "NORTHEAST": "NE", "NW": "NW", "NORTHWEST": "NW",
	"SE": "SE", "SOUTHEAST": "SE", "SW": "SW", "SOUTHWEST": "SW",
}

// unitTable is Publication 28 Appendix C2: secondary unit designators, the
// words that standardize to each, and whether a number must follow.
var unitTable = []struct {
	abbr        string
	names       string
	needsNumber bool
}{
	{"APT", "APARTMENT APT APTMT", true},
	{"BSMT", "BASEMENT BSMT", false},
	{"BLDG", "BUILDING BLDG BLD", true},
	{"DEPT", "DEPARTMENT DEPT DPT", true},
	{"FL", "FLOOR FL FLR", true},
	{"FRNT", "FRONT FRNT", false},
	{"HNGR", "HANGAR HNGR HANGER", true},
	{"KEY", "KEY", true},
	{"LBBY", "LOBBY LBBY", false},
	{"LOT", "LOT", true},
	{"LOWR", "LOWER LOWR", false},
	{"OFC", "OFFICE OFC", false},
	{"PH", "PENTHOUSE PH", false},
	{"PIER", "PIER", true},
	{"REAR", "REAR", false},
	{"RM", "ROOM RM", true},
	{"SIDE", "SIDE", false},
	{"SLIP", "SLIP", true},
	{"SPC", "SPACE SPC", true},
	{"STOP", "STOP", true},
	{"STE", "SUITE STE SUIT", true},
	{"TRLR", "TRAILER TRLR", true},
	{"UNIT", "UNIT", true},
	{"UPPR", "UPPER UPPR", false},
}

var (
	suffixes      = map[string]string{}
	units         = map[string]string{}
	unitNeedsNum  = map[string]bool{}
	spelledNumber = map[string]string{
		"ONE": "1", "TWO": "2", "THREE": "3", "FOUR": "4", "FIVE": "5",
		"SIX": "6", "SEVEN": "7", "EIGHT": "8", "NINE": "9", "TEN": "10",
	}
	// buildingWords mark a line that names a multi-unit building: without
	// a unit number such an address reaches only the building.
	buildingWords = map[string]bool{
		"APARTMENTS": true, "APTS": true, "TOWER": true, "TOWERS": true, "CONDOMINIUM": true,
		"CONDOMINIUMS": true, "CONDOS": true, "CONDO": true, "LOFTS": true, "FLATS": true,
		"RESIDENCES": true, "HIGHRISE": true,
	}
)

func init() {
	for abbr, names := range suffixTable {
		suffixes[abbr] = abbr
		for _, n := range strings.Fields(names) {
			suffixes[n] = abbr
		}
	}
	for _, u := range unitTable {
		units[u.abbr] = u.abbr
		for _, n := range strings.Fields(u.names) {
			units[n] = u.abbr
		}
		unitNeedsNum[u.abbr] = u.needsNumber
	}
	unitNeedsNum["#"] = true
}

// SuffixAbbreviation returns the Publication 28 abbreviation of a street
// suffix ("Avenue", "AV" -> "AVE").
func SuffixAbbreviation(s string) (string, bool) {
	a, ok := suffixes[strings.Join(tokens(s), " ")]
	return a, ok
}

// UnitAbbreviation returns the Publication 28 abbreviation of a secondary
// unit designator ("Suite" -> "STE") and whether a number must follow it.
func UnitAbbreviation(s string) (abbr string, needsNumber, ok bool) {
	abbr, ok = units[strings.Join(tokens(s), " ")]
	return abbr, unitNeedsNum[abbr], ok
}
