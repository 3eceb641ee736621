// Package openapi holds the OpenAPI 3.0 document of lettershop's HTTP API:
// every route, parameter, body, response, header and problem body, the test
// routes included. httpadapter serves it at GET /openapi.yaml and
// GET /openapi.json, and its tests check every request and response of
// their suite against it.
//
// openapi.yaml is the source; openapi.json is made from it by
// go test ./openapi -update, and a test keeps the two the same.
package openapi

import _ "embed"

// YAML is the document as written.
//
//go:embed openapi.yaml
var YAML []byte

// JSON is the same document in JSON, with YAML's shared parts written out.
//
//go:embed openapi.json
var JSON []byte
