// Package echo cuts what an error message quotes of its input. A message
// that quoted a value whole would be as large as the value: a 1 MB field
// would make a 1 MB answer, kept as long as its idempotency key. Messages
// quote at most a short prefix of what they were given, and say how long
// the whole was, so a reader can still tell which value was wrong.
package echo

import (
	"strconv"
	"unicode/utf8"
)

// MaxRunes is how many characters of a value Quote shows at most.
const MaxRunes = 32

// Quote returns s quoted as %q quotes it when it is at most MaxRunes
// characters long; a longer s is cut to its first MaxRunes characters,
// quoted with an ellipsis, and followed by its length in bytes:
// "abc…" (900000 bytes).
func Quote(s string) string {
	cut, ok := prefix(s)
	if !ok {
		return strconv.Quote(s)
	}
	return strconv.Quote(cut+"…") + " (" + strconv.Itoa(len(s)) + " bytes)"
}

// Cut returns s when it is at most max bytes long, else its longest prefix
// of whole characters that, with an ellipsis, fits in max bytes (the
// ellipsis alone when max is below its 3 bytes): for text
// that is not quoted, such as a field's path, or a message as a whole.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	n := max - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n < 0 {
		n = 0
	}
	return s[:n] + ellipsis
}

// prefix returns the first MaxRunes characters of s, and whether s is
// longer than that.
func prefix(s string) (string, bool) {
	n := 0
	for i := range s {
		if n == MaxRunes {
			return s[:i], true
		}
		n++
	}
	return s, false
}
