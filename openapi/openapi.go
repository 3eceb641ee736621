// Package openapi holds the OpenAPI 3.0 document of lettershop's HTTP API:
// every route, parameter, body, response, header and problem body, the test
// routes included. httpadapter serves it at GET /openapi.yaml and
// GET /openapi.json, and its tests check every request and response of
// their suite against it.
//
// openapi.yaml is the source; openapi.json is made from it by
// go test ./openapi -update, and a test keeps the two the same.
package openapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// YAML is the document as written.
//
//go:embed openapi.yaml
var YAML []byte

// JSON is the same document in JSON, with YAML's shared parts written out.
//
//go:embed openapi.json
var JSON []byte

// ProblemCodes is the enumeration of a problem body's code: every code the
// server answers a problem with.
func ProblemCodes() ([]string, error) {
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
	if err := json.Unmarshal(JSON, &doc); err != nil {
		return nil, err
	}
	codes := doc.Components.Schemas.Problem.Properties.Code.Enum
	if len(codes) == 0 {
		return nil, fmt.Errorf("openapi: the Problem schema has no code enumeration")
	}
	return codes, nil
}
