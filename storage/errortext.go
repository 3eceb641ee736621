package storage

import (
	"strings"
	"unicode/utf8"
)

// MaxErrorText is how much of an attempt's error a Delivery keeps, in
// bytes.
const MaxErrorText = 1000

// ErrorText is what a Delivery's Error keeps of err: text every store can
// hold (invalid UTF-8 and NUL bytes replaced by U+FFFD), at most
// MaxErrorText bytes of it, cut at a character and ended with "…" when
// cut.
func ErrorText(err error) string {
	s := strings.ReplaceAll(strings.ToValidUTF8(err.Error(), "\uFFFD"), "\x00", "\uFFFD")
	if len(s) <= MaxErrorText {
		return s
	}
	cut := MaxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
