package usps

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// LastLine is the city, state and ZIP Code line of an address.
type LastLine struct {
	// City as written, without the punctuation around it.
	City string
	// State is the two-letter code, whatever form it was written in.
	State string
	// ZIP is the five-digit ZIP Code; empty when none was written. A ZIP
	// Code written with its leading zeros lost (2134) is kept as written;
	// Standardize restores them.
	ZIP string
	// Plus4 is the ZIP+4 add-on, empty when none was written.
	Plus4 string
}

// The reasons a last line cannot be read.
var (
	ErrEmptyLastLine = errors.New("the last line is empty")
	ErrNoState       = errors.New("no state (a two-letter code or a state name) before the ZIP Code")
	ErrNoCity        = errors.New("no city before the state")
	ErrBadZIP        = errors.New("the ZIP Code is not five digits, or ZIP+4 (12345-6789)")
)

// countryWords are trailing country names a last line may carry.
var countryWords = []string{"USA", "US", "U S A", "U S", "UNITED STATES", "UNITED STATES OF AMERICA"}

// countryTokens are countryWords split into words once: every address
// processed parses a last line or two.
var countryTokens = func() [][]string {
	out := make([][]string, len(countryWords))
	for i, c := range countryWords {
		out[i] = strings.Fields(c)
	}
	return out
}()

// ParseLastLine reads "CITY, ST 12345-6789" in its common forms: with or
// without the comma, in any case, the state as a code, a name or an older
// abbreviation (Ill., Calif.), the ZIP Code as 5 digits, ZIP+4 with or
// without the hyphen, or missing, and an optional trailing USA. The error
// wraps one of ErrEmptyLastLine, ErrNoState, ErrNoCity and ErrBadZIP.
func ParseLastLine(s string) (LastLine, error) {
	t := tokens(s)
	if len(t) == 0 {
		return LastLine{}, ErrEmptyLastLine
	}
	if len(t) > 2 {
		for _, cw := range countryTokens {
			if len(cw) < len(t)-1 && equalWords(t[len(t)-len(cw):], cw) {
				t = t[:len(t)-len(cw)]
				break
			}
		}
	}
	var l LastLine
	n := len(t)
	if last := t[n-1]; hasDigit(last) {
		switch {
		case n >= 2 && len(last) == 4 && allDigits(last) && len(t[n-2]) == 5 && allDigits(t[n-2]):
			l.ZIP, l.Plus4 = t[n-2], last
			n -= 2
		default:
			zip, plus4, ok := splitZIP(last)
			if !ok {
				return LastLine{}, fmt.Errorf("%w: %q", ErrBadZIP, last)
			}
			l.ZIP, l.Plus4 = zip, plus4
			n--
		}
	}
	t = t[:n]
	for k := min(maxStateNameWords, len(t)); k >= 1; k-- {
		if st, ok := LookupState(strings.Join(t[len(t)-k:], " ")); ok {
			l.State = st.Code
			t = t[:len(t)-k]
			break
		}
	}
	if l.State == "" {
		return LastLine{}, ErrNoState
	}
	if len(t) == 0 {
		return LastLine{}, ErrNoCity
	}
	l.City = rawPrefix(s, t)
	if l.City == "" {
		l.City = strings.Join(t, " ")
	}
	return l, nil
}

// splitZIP reads a ZIP Code: 12345, 12345-6789, 123456789, or 3 or 4
// digits whose leading zeros were lost.
func splitZIP(w string) (zip, plus4 string, ok bool) {
	switch {
	case allDigits(w) && len(w) >= 3 && len(w) <= 5:
		return w, "", true
	case allDigits(w) && len(w) == 9:
		return w[:5], w[5:], true
	case len(w) == 10 && w[5] == '-' && allDigits(w[:5]) && allDigits(w[6:]):
		return w[:5], w[6:], true
	}
	return "", "", false
}

// rawPrefix returns the words of s, as written, that make up the tokens
// want, without the punctuation that separates them from the rest; "" when
// no prefix of whole words reads as want.
func rawPrefix(s string, want []string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' })
	if len(words) > 64 {
		return ""
	}
	for i := 1; i <= len(words); i++ {
		cand := strings.Join(words[:i], " ")
		t := tokens(cand)
		if len(t) > len(want) {
			break
		}
		if equalWords(t, want) {
			// Trailing punctuation goes (SPRINGFIELD.), unless it is a word
			// of the city (#).
			trimmed := strings.TrimRightFunc(cand, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if equalWords(tokens(trimmed), want) {
				return trimmed
			}
			return cand
		}
	}
	return ""
}

// String writes the last line the way USPS prints it: CITY ST 12345-6789.
func (l LastLine) String() string {
	return FormatLastLine(l.City, l.State, l.ZIP, l.Plus4)
}

// FormatLastLine writes a last line from its parts: city, state, and the
// ZIP Code with its add-on when there is one.
func FormatLastLine(city, state, zip, plus4 string) string {
	z := zip
	if zip != "" && plus4 != "" {
		z += "-" + plus4
	}
	var parts []string
	for _, p := range []string{city, state, z} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}
