package usps

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Casing is how standardized text is written.
type Casing int

// The casings.
const (
	// Upper writes everything in capitals, as USPS does.
	Upper Casing = iota
	// Proper writes words in title case ("Main St") and keeps in capitals
	// what USPS writes as initials: directionals (N, SW), PO, RR, HC, PMB,
	// PSC, CMR, APO, FPO, DPO, state codes and unit numbers (4B).
	Proper
)

// ParseCasing returns the Casing named "upper" or "proper".
func ParseCasing(s string) (Casing, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "upper":
		return Upper, true
	case "proper":
		return Proper, true
	}
	return Upper, false
}

// foldAccents maps the accented Latin letters common in US addresses
// (Puerto Rico above all) to the plain letters USPS prints.
var foldAccents = map[rune]string{
	'À': "A", 'Á': "A", 'Â': "A", 'Ã': "A", 'Ä': "A", 'Å': "A", 'Æ': "AE", 'Ç': "C",
	'È': "E", 'É': "E", 'Ê': "E", 'Ë': "E", 'Ì': "I", 'Í': "I", 'Î': "I", 'Ï': "I",
	'Ð': "D", 'Ñ': "N", 'Ò': "O", 'Ó': "O", 'Ô': "O", 'Õ': "O", 'Ö': "O", 'Ø': "O",
	'Ù': "U", 'Ú': "U", 'Û': "U", 'Ü': "U", 'Ý': "Y", 'ß': "SS",
	'à': "A", 'á': "A", 'â': "A", 'ã': "A", 'ä': "A", 'å': "A", 'æ': "AE", 'ç': "C",
	'è': "E", 'é': "E", 'ê': "E", 'ë': "E", 'ì': "I", 'í': "I", 'î': "I", 'ï': "I",
	'ð': "D", 'ñ': "N", 'ò': "O", 'ó': "O", 'ô': "O", 'õ': "O", 'ö': "O", 'ø': "O",
	'ù': "U", 'ú': "U", 'û': "U", 'ü': "U", 'ý': "Y", 'ÿ': "Y",
	'Œ': "OE", 'œ': "OE", 'Š': "S", 'š': "S", 'Ž': "Z", 'ž': "Z", 'Ł': "L", 'ł': "L",
}

var (
	// reInitials are initials written with periods and no spaces: U.S.,
	// N.W., J.F.K.
	reInitials = regexp.MustCompile(`\b[A-Za-z]\.(?:[A-Za-z]\.)+`)
	// reSpacedDirectional is a two-letter directional written as spaced
	// initials: N. W., S. E.
	reSpacedDirectional = regexp.MustCompile(`\b([NSns])\. ?([EWew])\.`)
)

// fractions are the vulgar fraction characters, written as numbers
// (Publication 28 232: 33 1/2 AVE).
var fractions = map[rune]string{'¼': " 1/4 ", '½': " 1/2 ", '¾': " 3/4 ", '⅓': " 1/3 ", '⅔': " 2/3 ", '⅛': " 1/8 "}

// dashes are the typographic hyphens and dashes read as a hyphen; the em
// dash, which parts words rather than joining them, is a word break.
var dashes = map[rune]bool{'\u2010': true, '\u2011': true, '\u2012': true, '\u2013': true, '\u2212': true}

// tokens splits s into upper-case ASCII words the way USPS writes them:
// accents folded, periods, commas, apostrophes and other punctuation
// removed, "#" a word of its own, and hyphens and slashes kept only inside
// a word ("123-45", "1/2", "C/O"). A period between digits stays (39.2 RD,
// as Publication 28 232 writes it). Anything else becomes a word break.
func tokens(s string) []string {
	// Initials written with periods are one word (P.O. is PO, U.S. is US),
	// and so is a directional written as spaced initials (N. W. is NW);
	// other initials stay words of their own (N. U.S. is N US).
	if strings.IndexByte(s, '.') >= 0 {
		s = reInitials.ReplaceAllStringFunc(s, func(m string) string {
			return strings.ReplaceAll(m, ".", "")
		})
		s = reSpacedDirectional.ReplaceAllString(s, "$1$2")
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteByte(byte(r) - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '/', r == '&':
			b.WriteRune(r)
		case dashes[r]:
			// An en dash or another typographic hyphen is a hyphen
			// (112–10 BRONX RD is 112-10, Publication 28 Appendix D).
			b.WriteByte('-')
		case r == '#':
			b.WriteString(" # ")
		case r == '.' && i > 0 && isDigitByte(s[i-1]) && i+1 < len(s) && isDigitByte(s[i+1]):
			b.WriteByte('.')
		case r == '\'' || r == '’':
			// USPS drops apostrophes inside names: O'NEIL is ONEIL.
		case r >= utf8.RuneSelf:
			if f, ok := foldAccents[r]; ok {
				b.WriteString(f)
			} else if f, ok := fractions[r]; ok {
				b.WriteString(f)
			} else {
				b.WriteByte(' ')
			}
		default:
			b.WriteByte(' ')
		}
	}
	fields := strings.Fields(b.String())
	out := fields[:0]
	for _, f := range fields {
		f = strings.Trim(f, "-/.")
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// keepUpper are the words Proper casing leaves in capitals.
var keepUpper = map[string]bool{
	"N": true, "S": true, "E": true, "W": true, "NE": true, "NW": true, "SE": true, "SW": true,
	"PO": true, "RR": true, "HC": true, "PMB": true, "PSC": true, "CMR": true,
	"APO": true, "FPO": true, "DPO": true, "US": true, "USS": true, "USNS": true, "USCGC": true,
	"AA": true, "AE": true, "AP": true, "FM": true, "CR": true, "#": true,
}

// caseWord writes one upper-case word in casing c.
func caseWord(w string, c Casing) string {
	if c == Upper || keepUpper[w] {
		return w
	}
	if hasDigit(w) {
		// Ordinals read as words (21st); unit and house numbers stay as
		// they are (4B, N123W456).
		if isOrdinal(w) {
			return strings.ToLower(w)
		}
		return w
	}
	// Title case each part of a hyphenated or slashed word (Wilkes-Barre, C/O).
	var b strings.Builder
	start := true
	for i := 0; i < len(w); i++ {
		ch := w[i]
		switch {
		case ch == '-' || ch == '/' || ch == '&':
			b.WriteByte(ch)
			start = true
		case start:
			b.WriteByte(ch)
			start = false
		default:
			b.WriteByte(ch - 'A' + 'a')
		}
	}
	out := b.String()
	// McAllen, McDonald: the Scottish prefix keeps its second capital.
	if len(out) > 3 && strings.HasPrefix(out, "Mc") && out[2] >= 'a' && out[2] <= 'z' {
		out = "Mc" + string(out[2]-'a'+'A') + out[3:]
	}
	return out
}

// caseWords writes space-separated upper-case words in casing c.
func caseWords(words []string, c Casing) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = caseWord(w, c)
		if c == Proper && len(w) == 2 && i+1 < len(words) && stateHighwayWords[words[i+1]] {
			// A state's code names its highway (KY Highway 440, CA County
			// Road 555) and stays in capitals, as a state code does.
			if _, ok := stateByCode[w]; ok {
				out[i] = w
			}
		}
	}
	return strings.Join(out, " ")
}

// stateHighwayWords are the words after which a state's code names a
// highway (Appendix F).
var stateHighwayWords = map[string]bool{"HIGHWAY": true, "HWY": true, "COUNTY": true, "STATE": true, "ROUTE": true}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// isOrdinal reports whether w is a number with an ordinal ending: 1ST, 22ND, 3RD, 11TH.
func isOrdinal(w string) bool {
	if len(w) < 3 {
		return false
	}
	num, end := w[:len(w)-2], w[len(w)-2:]
	if !allDigits(num) {
		return false
	}
	switch end {
	case "ST", "ND", "RD", "TH":
		return true
	}
	return false
}

// ordinalWords are the ordinals spelled out that number a floor (SIXTH
// FLOOR is FL 6).
var ordinalWords = map[string]string{
	"FIRST": "1", "SECOND": "2", "THIRD": "3", "FOURTH": "4", "FIFTH": "5", "SIXTH": "6",
	"SEVENTH": "7", "EIGHTH": "8", "NINTH": "9", "TENTH": "10", "ELEVENTH": "11",
	"TWELFTH": "12", "THIRTEENTH": "13", "FOURTEENTH": "14", "FIFTEENTH": "15",
	"SIXTEENTH": "16", "SEVENTEENTH": "17", "EIGHTEENTH": "18", "NINETEENTH": "19", "TWENTIETH": "20",
}

// floorNumber returns the number of the floor an ordinal names, written
// in digits (3RD) or spelled out (THIRD), or "" when w is neither.
func floorNumber(w string) string {
	if isOrdinal(w) {
		return w[:len(w)-2]
	}
	return ordinalWords[w]
}

// isNumberish reports whether w can be a house, box or unit number: it has
// a digit, it is a single letter (APT B), or letters joined by hyphens
// (UNIT C-D).
func isNumberish(w string) bool {
	if hasDigit(w) {
		return true
	}
	if len(w) == 1 {
		return w[0] >= 'A' && w[0] <= 'Z'
	}
	// A range of units named by letters keeps its hyphen (UNIT C-D),
	// as Publication 28 232 keeps the hyphens of numbers.
	parts := strings.Split(w, "-")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) != 1 || p[0] < 'A' || p[0] > 'Z' {
			return false
		}
	}
	return true
}
