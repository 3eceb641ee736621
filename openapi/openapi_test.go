package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/lettershop/lettershop/openapi"
)

var update = flag.Bool("update", false, "rewrite openapi.json from openapi.yaml")

func load(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	// Validate checks the document against OpenAPI 3.0, and every example
	// against its schema.
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	return doc
}

func TestYAMLValidates(t *testing.T) {
	doc := load(t, openapi.YAML)
	if doc.Info.Version != "2024-07-30" {
		t.Errorf("info.version %q, want 2024-07-30", doc.Info.Version)
	}
}

// mergeKey finds a YAML merge key (<<), in block or flow style.
var mergeKey = regexp.MustCompile(`(?m)(^[ \t]*(- )?|[{,][ \t]*)<<[ \t]*:`)

// TestYAMLHasNoMergeKeys keeps openapi.yaml readable by YAML 1.2 parsers.
// Merge keys are YAML 1.1 only: client generators that parse YAML 1.2 take
// "<<" for a plain key and drop what it would bring, such as the error
// responses and headers an operation shares with others.
func TestYAMLHasNoMergeKeys(t *testing.T) {
	if locs := mergeKey.FindAllIndex(openapi.YAML, -1); len(locs) > 0 {
		line := bytes.Count(openapi.YAML[:locs[0][0]], []byte("\n")) + 1
		t.Fatalf("openapi.yaml has %d merge keys (<<), the first on line %d; write the shared entries out", len(locs), line)
	}
	for _, ok := range []string{"a: {b: 1}\n", "description: x << y: z\n"} {
		if mergeKey.MatchString(ok) {
			t.Errorf("mergeKey matches %q, which has none", ok)
		}
	}
	for _, bad := range []string{"  <<: *std\n", "- <<: *a\n", "x: {<<: *a, b: 1}\n"} {
		if !mergeKey.MatchString(bad) {
			t.Errorf("mergeKey misses the merge key in %q", bad)
		}
	}
}

// TestJSONIsTheYAML keeps openapi.json the same document as openapi.yaml.
func TestJSONIsTheYAML(t *testing.T) {
	doc := load(t, openapi.YAML)
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile("openapi.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(b, openapi.JSON) {
		t.Fatal("openapi.json is not openapi.yaml; run go test ./openapi -update")
	}
	load(t, openapi.JSON)
}

// TestEveryOperationDocumented checks each operation has an id, a summary,
// and answers its errors as problems.
func TestEveryOperationDocumented(t *testing.T) {
	doc := load(t, openapi.YAML)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" || op.Summary == "" {
				t.Errorf("%s %s: operationId and summary required", method, path)
			}
			if method == "HEAD" {
				continue // a HEAD answer has no body
			}
			for code, r := range op.Responses.Map() {
				if code[0] != '4' && code[0] != '5' {
					continue
				}
				if r.Value.Content.Get("application/problem+json") == nil {
					t.Errorf("%s %s %s: not a problem", method, path, code)
				}
			}
		}
	}
}

// walkSchemas calls visit with every schema under ref, once each, and
// where it is; a property for which enter answers false is not entered.
func walkSchemas(where string, ref *openapi3.SchemaRef, visit func(where string, s *openapi3.Schema), enter func(p *openapi3.Schema) bool) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, ref *openapi3.SchemaRef)
	walk = func(where string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		visit(where, s)
		for name, p := range s.Properties {
			if p.Value != nil && enter(p.Value) {
				walk(where+"."+name, p)
			}
		}
		for i, l := range [][]*openapi3.SchemaRef{s.AllOf, s.AnyOf, s.OneOf} {
			for j, sub := range l {
				walk(fmt.Sprintf("%s.%s[%d]", where, [...]string{"allOf", "anyOf", "oneOf"}[i], j), sub)
			}
		}
		walk(where+".items", s.Items)
		walk(where+".not", s.Not)
		walk(where+".additionalProperties", s.AdditionalProperties.Schema)
	}
	walk(where, ref)
}

// TestNullableHasType checks every schema with nullable: true has a type
// beside it. OpenAPI 3.0 gives nullable no meaning without one, and JSON
// Schema validators made for OpenAPI (ajv's nullable keyword among them)
// refuse such a schema; a field that may be null beside a $ref is written
// anyOf [$ref, NullValue].
func TestNullableHasType(t *testing.T) {
	doc := load(t, openapi.YAML)
	for name, s := range doc.Components.Schemas {
		walkSchemas("#/components/schemas/"+name, s, func(where string, s *openapi3.Schema) {
			if s.Nullable && (s.Type == nil || len(*s.Type) == 0) {
				t.Errorf("%s: nullable without type", where)
			}
		}, func(*openapi3.Schema) bool { return true })
	}
}

// TestNullableEnumListsNull checks every schema with nullable: true and an
// enum lists null among its values. JSON Schema validators made for OpenAPI
// 3.0 (ajv's nullable keyword among them, as the 3.0.3 clarification of
// nullable reads it) check enum after nullable, so an enum without null
// refuses the null that nullable allows.
func TestNullableEnumListsNull(t *testing.T) {
	doc := load(t, openapi.YAML)
	for name, s := range doc.Components.Schemas {
		walkSchemas("#/components/schemas/"+name, s, func(where string, s *openapi3.Schema) {
			if !s.Nullable || len(s.Enum) == 0 {
				return
			}
			for _, v := range s.Enum {
				if v == nil {
					return
				}
			}
			t.Errorf("%s: nullable, and its enum %v lacks null", where, s.Enum)
		}, func(*openapi3.Schema) bool { return true })
	}
}

// TestRequiredRequestFieldsAreNotNullable checks no field a request body
// requires admits null: the server reads null as the field left out, so a
// required field given null is a 400, and the document must refuse it too.
// A read-only field of a request is ignored, whatever it holds.
func TestRequiredRequestFieldsAreNotNullable(t *testing.T) {
	doc := load(t, openapi.YAML)
	notReadOnly := func(p *openapi3.Schema) bool {
		_, ro := p.Extensions["x-read-only"]
		return !ro && !p.ReadOnly
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			if mt == nil {
				continue
			}
			walkSchemas(method+" "+path, mt.Schema, func(where string, s *openapi3.Schema) {
				for _, name := range s.Required {
					if p := s.Properties[name]; p != nil && p.Value != nil && p.Value.Nullable {
						t.Errorf("%s.%s: required, and nullable", where, name)
					}
				}
			}, notReadOnly)
		}
	}
}

// TestProblemCodes: the problem codes are read from the document, a bad
// request's and a bad Expect's among them.
func TestProblemCodes(t *testing.T) {
	codes, err := openapi.ProblemCodes()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(codes, "invalid-request") || !slices.Contains(codes, "expectation-failed") {
		t.Errorf("ProblemCodes() = %v, want invalid-request and expectation-failed among them", codes)
	}
}
