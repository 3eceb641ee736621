package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/lettershop/lettershop/openapi"
)

// TestConnProblemCodesDocumented: each code the connection handling
// answers with on its own is one of the OpenAPI document's Problem codes,
// which the Go client's Code constants are held to.
func TestConnProblemCodesDocumented(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Problem struct {
					Properties struct {
						Code struct {
							Enum []string `json:"enum"`
						} `json:"code"`
					} `json:"properties"`
				} `json:"Problem"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	codes := doc.Components.Schemas.Problem.Properties.Code.Enum
	for status, code := range problemTypes {
		if !slices.Contains(codes, code) {
			t.Errorf("a %d is answered with code %q, which the OpenAPI document's Problem does not list", status, code)
		}
	}
	if !slices.Contains(codes, "http-error") {
		t.Error(`the OpenAPI document's Problem does not list "http-error"`)
	}
}
