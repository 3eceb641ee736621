package storage_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lettershop/lettershop/storage"
)

// ErrorText keeps text every store holds, at most MaxErrorText bytes, cut
// at a character.
func TestErrorText(t *testing.T) {
	if got := storage.ErrorText(errors.New("the receiver answered 503")); got != "the receiver answered 503" {
		t.Errorf("a short error: %q", got)
	}
	if got := storage.ErrorText(errors.New("a\x00b\xffc")); got != "a\uFFFDb\uFFFDc" {
		t.Errorf("NUL and invalid UTF-8: %q, want them replaced", got)
	}
	exact := strings.Repeat("x", storage.MaxErrorText)
	if got := storage.ErrorText(errors.New(exact)); got != exact {
		t.Errorf("an error of exactly the limit was changed: %d bytes", len(got))
	}
	long := strings.Repeat("x", storage.MaxErrorText-1) + "é" + strings.Repeat("y", 10)
	got := storage.ErrorText(errors.New(long))
	if want := strings.Repeat("x", storage.MaxErrorText-1) + "…"; got != want || !utf8.ValidString(got) {
		t.Errorf("a long error: %q...%q (%d bytes), want cut before the é", got[:5], got[len(got)-8:], len(got))
	}
}
