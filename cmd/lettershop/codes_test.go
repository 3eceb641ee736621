package main

import (
	"slices"
	"testing"

	"github.com/lettershop/lettershop/openapi"
)

// TestConnProblemCodesDocumented: each code the connection handling
// answers with on its own is one of the OpenAPI document's Problem codes,
// which the Go client's Code constants are held to.
func TestConnProblemCodesDocumented(t *testing.T) {
	codes, err := openapi.ProblemCodes()
	if err != nil {
		t.Fatal(err)
	}
	for status, code := range problemTypes {
		if !slices.Contains(codes, code) {
			t.Errorf("a %d is answered with code %q, which the OpenAPI document's Problem does not list", status, code)
		}
	}
	if !slices.Contains(codes, "http-error") {
		t.Error(`the OpenAPI document's Problem does not list "http-error"`)
	}
}
