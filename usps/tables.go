package usps

import "strings"

// suffixRows is Publication 28 Appendix C1 (Street Suffix Abbreviations):
// each row's primary street suffix name, its standard abbreviation and the
// other common abbreviations that standardize to it.
var suffixRows = []struct{ primary, abbr, variants string }{
	{"ALLEY", "ALY", "ALLEE ALLY"}, {"ANEX", "ANX", "ANNEX ANNX"}, {"ARCADE", "ARC", ""},
	{"AVENUE", "AVE", "AV AVEN AVENU AVN AVNUE"}, {"BAYOU", "BYU", "BAYOO"}, {"BEACH", "BCH", ""},
	{"BEND", "BND", ""}, {"BLUFF", "BLF", "BLUF"}, {"BLUFFS", "BLFS", ""},
	{"BOTTOM", "BTM", "BOT BOTTM"}, {"BOULEVARD", "BLVD", "BOUL BOULV"}, {"BRANCH", "BR", "BRNCH"},
	{"BRIDGE", "BRG", "BRDGE"}, {"BROOK", "BRK", ""}, {"BROOKS", "BRKS", ""}, {"BURG", "BG", ""},
	{"BURGS", "BGS", ""}, {"BYPASS", "BYP", "BYPA BYPAS BYPS"}, {"CAMP", "CP", "CMP"},
	{"CANYON", "CYN", "CANYN CNYN"}, {"CAPE", "CPE", ""}, {"CAUSEWAY", "CSWY", "CAUSWA"},
	{"CENTER", "CTR", "CEN CENT CENTR CENTRE CNTER CNTR"}, {"CENTERS", "CTRS", ""},
	{"CIRCLE", "CIR", "CIRC CIRCL CRCL CRCLE"}, {"CIRCLES", "CIRS", ""}, {"CLIFF", "CLF", ""},
	{"CLIFFS", "CLFS", ""}, {"CLUB", "CLB", ""}, {"COMMON", "CMN", ""}, {"COMMONS", "CMNS", ""},
	{"CORNER", "COR", ""}, {"CORNERS", "CORS", ""}, {"COURSE", "CRSE", ""}, {"COURT", "CT", "CRT"},
	{"COURTS", "CTS", ""}, {"COVE", "CV", ""}, {"COVES", "CVS", ""}, {"CREEK", "CRK", ""},
	{"CRESCENT", "CRES", "CRSENT CRSNT"}, {"CREST", "CRST", ""}, {"CROSSING", "XING", "CRSSNG"},
	{"CROSSROAD", "XRD", ""}, {"CROSSROADS", "XRDS", ""}, {"CURVE", "CURV", ""}, {"DALE", "DL", ""},
	{"DAM", "DM", ""}, {"DIVIDE", "DV", "DIV DVD"}, {"DRIVE", "DR", "DRIV DRV"},
	{"DRIVES", "DRS", ""}, {"ESTATE", "EST", ""}, {"ESTATES", "ESTS", ""},
	{"EXPRESSWAY", "EXPY", "EXP EXPR EXPRESS EXPW"}, {"EXTENSION", "EXT", "EXTN EXTNSN"},
	{"EXTENSIONS", "EXTS", ""}, {"FALL", "FALL", ""}, {"FALLS", "FLS", ""}, {"FERRY", "FRY", "FRRY"},
	{"FIELD", "FLD", ""}, {"FIELDS", "FLDS", ""}, {"FLAT", "FLT", ""}, {"FLATS", "FLTS", ""},
	{"FORD", "FRD", ""}, {"FORDS", "FRDS", ""}, {"FOREST", "FRST", "FORESTS"},
	{"FORGE", "FRG", "FORG"}, {"FORGES", "FRGS", ""}, {"FORK", "FRK", ""}, {"FORKS", "FRKS", ""},
	{"FORT", "FT", "FRT"}, {"FREEWAY", "FWY", "FREEWY FRWAY FRWY"},
	{"GARDEN", "GDN", "GARDN GRDEN GRDN"}, {"GARDENS", "GDNS", "GRDNS"},
	{"GATEWAY", "GTWY", "GATEWY GATWAY GTWAY"}, {"GLEN", "GLN", ""}, {"GLENS", "GLNS", ""},
	{"GREEN", "GRN", ""}, {"GREENS", "GRNS", ""}, {"GROVE", "GRV", "GROV"}, {"GROVES", "GRVS", ""},
	{"HARBOR", "HBR", "HARB HARBR HRBOR"}, {"HARBORS", "HBRS", ""}, {"HAVEN", "HVN", ""},
	{"HEIGHTS", "HTS", "HT"}, {"HIGHWAY", "HWY", "HIGHWY HIWAY HIWY HWAY"}, {"HILL", "HL", ""},
	{"HILLS", "HLS", ""}, {"HOLLOW", "HOLW", "HLLW HOLLOWS HOLWS"}, {"INLET", "INLT", ""},
	{"ISLAND", "IS", "ISLND"}, {"ISLANDS", "ISS", "ISLNDS"}, {"ISLE", "ISLE", "ISLES"},
	{"JUNCTION", "JCT", "JCTION JCTN JUNCTN JUNCTON"}, {"JUNCTIONS", "JCTS", "JCTNS"},
	{"KEY", "KY", ""}, {"KEYS", "KYS", ""}, {"KNOLL", "KNL", "KNOL"}, {"KNOLLS", "KNLS", ""},
	{"LAKE", "LK", ""}, {"LAKES", "LKS", ""}, {"LAND", "LAND", ""}, {"LANDING", "LNDG", "LNDNG"},
	{"LANE", "LN", ""}, {"LIGHT", "LGT", ""}, {"LIGHTS", "LGTS", ""}, {"LOAF", "LF", ""},
	{"LOCK", "LCK", ""}, {"LOCKS", "LCKS", ""}, {"LODGE", "LDG", "LDGE LODG"},
	{"LOOP", "LOOP", "LOOPS"}, {"MALL", "MALL", ""}, {"MANOR", "MNR", ""}, {"MANORS", "MNRS", ""},
	{"MEADOW", "MDW", ""}, {"MEADOWS", "MDWS", "MEDOWS"}, {"MEWS", "MEWS", ""}, {"MILL", "ML", ""},
	{"MILLS", "MLS", ""}, {"MISSION", "MSN", "MISSN MSSN"}, {"MOTORWAY", "MTWY", ""},
	{"MOUNT", "MT", "MNT"}, {"MOUNTAIN", "MTN", "MNTAIN MNTN MOUNTIN MTIN"},
	{"MOUNTAINS", "MTNS", "MNTNS"}, {"NECK", "NCK", ""}, {"ORCHARD", "ORCH", "ORCHRD"},
	{"OVAL", "OVAL", "OVL"}, {"OVERPASS", "OPAS", ""}, {"PARK", "PARK", "PRK"}, {"PARKS", "PARK", ""},
	{"PARKWAY", "PKWY", "PARKWY PKWAY PKY"}, {"PARKWAYS", "PKWY", "PKWYS"}, {"PASS", "PASS", ""},
	{"PASSAGE", "PSGE", ""}, {"PATH", "PATH", "PATHS"}, {"PIKE", "PIKE", "PIKES"},
	{"PINE", "PNE", ""}, {"PINES", "PNES", ""}, {"PLACE", "PL", ""}, {"PLAIN", "PLN", ""},
	{"PLAINS", "PLNS", ""}, {"PLAZA", "PLZ", "PLZA"}, {"POINT", "PT", ""}, {"POINTS", "PTS", ""},
	{"PORT", "PRT", ""}, {"PORTS", "PRTS", ""}, {"PRAIRIE", "PR", "PRR"},
	{"RADIAL", "RADL", "RAD RADIEL"}, {"RAMP", "RAMP", ""}, {"RANCH", "RNCH", "RANCHES RNCHS"},
	{"RAPID", "RPD", ""}, {"RAPIDS", "RPDS", ""}, {"REST", "RST", ""}, {"RIDGE", "RDG", "RDGE"},
	{"RIDGES", "RDGS", ""}, {"RIVER", "RIV", "RVR RIVR"}, {"ROAD", "RD", ""}, {"ROADS", "RDS", ""},
	{"ROUTE", "RTE", ""}, {"ROW", "ROW", ""}, {"RUE", "RUE", ""}, {"RUN", "RUN", ""},
	{"SHOAL", "SHL", ""}, {"SHOALS", "SHLS", ""}, {"SHORE", "SHR", "SHOAR"},
	{"SHORES", "SHRS", "SHOARS"}, {"SKYWAY", "SKWY", ""}, {"SPRING", "SPG", "SPNG SPRNG"},
	{"SPRINGS", "SPGS", "SPNGS SPRNGS"}, {"SPUR", "SPUR", ""}, {"SPURS", "SPUR", ""},
	{"SQUARE", "SQ", "SQR SQRE SQU"}, {"SQUARES", "SQS", "SQRS"}, {"STATION", "STA", "STATN STN"},
	{"STRAVENUE", "STRA", "STRAV STRAVEN STRAVN STRVN STRVNUE"}, {"STREAM", "STRM", "STREME"},
	{"STREET", "ST", "STRT STR"}, {"STREETS", "STS", ""}, {"SUMMIT", "SMT", "SUMIT SUMITT"},
	{"TERRACE", "TER", "TERR"}, {"THROUGHWAY", "TRWY", ""}, {"TRACE", "TRCE", "TRACES"},
	{"TRACK", "TRAK", "TRACKS TRK TRKS"}, {"TRAFFICWAY", "TRFY", ""}, {"TRAIL", "TRL", "TRAILS TRLS"},
	{"TRAILER", "TRLR", "TRLRS"}, {"TUNNEL", "TUNL", "TUNEL TUNLS TUNNELS TUNNL"},
	{"TURNPIKE", "TPKE", "TRNPK TURNPK"}, {"UNDERPASS", "UPAS", ""}, {"UNION", "UN", ""},
	{"UNIONS", "UNS", ""}, {"VALLEY", "VLY", "VALLY VLLY"}, {"VALLEYS", "VLYS", ""},
	{"VIADUCT", "VIA", "VDCT VIADCT"}, {"VIEW", "VW", ""}, {"VIEWS", "VWS", ""},
	{"VILLAGE", "VLG", "VILL VILLAG VILLG VILLIAGE"}, {"VILLAGES", "VLGS", ""}, {"VILLE", "VL", ""},
	{"VISTA", "VIS", "VIST VST VSTA"}, {"WALK", "WALK", ""}, {"WALKS", "WALK", ""},
	{"WALL", "WALL", ""}, {"WAY", "WAY", "WY"}, {"WAYS", "WAYS", ""}, {"WELL", "WL", ""},
	{"WELLS", "WLS", ""},
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
	suffixes = map[string]string{}
	// suffixWords are the common abbreviations of Appendix C1 that are
	// words in their own right, spelled out already: as the first of two
	// suffix words they stay as written (CENTRE ST, not CENTER ST).
	suffixWords = map[string]bool{
		"ALLEE": true, "ANNEX": true, "CENTRE": true, "EXPRESS": true, "FORESTS": true, "HOLLOWS": true,
		"ISLES": true, "LOOPS": true, "PATHS": true, "PIKES": true, "RANCHES": true, "SPURS": true,
		"TRACES": true, "TRACKS": true, "TRAILS": true, "TUNNELS": true, "WALKS": true, "VIA": true,
	}
	// suffixPrimary maps a suffix word to the primary name of its C1 row,
	// the word spelled out (AVE, AV -> AVENUE; PKWYS -> PARKWAYS).
	suffixPrimary = map[string]string{}
	units         = map[string]string{}
	unitNeedsNum  = map[string]bool{}
	// buildingWords mark a line that names a multi-unit building: without
	// a unit number such an address reaches only the building.
	buildingWords = map[string]bool{
		"APARTMENTS": true, "APTS": true, "TOWER": true, "TOWERS": true, "CONDOMINIUM": true,
		"CONDOMINIUMS": true, "CONDOS": true, "CONDO": true, "LOFTS": true, "FLATS": true,
		"RESIDENCES": true, "HIGHRISE": true,
		// COND is how USPS prints a Puerto Rico condominio.
		"COND": true,
	}
)

func init() {
	for _, r := range suffixRows {
		for _, n := range append([]string{r.primary, r.abbr}, strings.Fields(r.variants)...) {
			suffixes[n] = r.abbr
			if _, ok := suffixPrimary[n]; !ok || n != r.abbr {
				suffixPrimary[n] = r.primary
			}
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
