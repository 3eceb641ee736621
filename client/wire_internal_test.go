package client

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/lettershop/lettershop/openapi"
)

// The wire types are written by hand, for Go shapes a generator does not
// give (time.Time, typed enumerations, value slices, generic pages), and
// kept identical to the OpenAPI document by this test: it walks each type's
// JSON fields and its schema's properties together, recursively.

// match pairs a Go type with the schema it is the wire form of. A type has
// exactly its schema's properties, except that a request type may leave out
// those marked x-read-only, which the server ignores or accepts only as
// fetched, and those deprecated, which it reads for older clients.
type match struct {
	typ     reflect.Type
	schema  string
	request bool
}

var wireTypes = []match{
	{reflect.TypeFor[problemBody](), "Problem", false},
	{reflect.TypeFor[Letter](), "Letter", false},
	{reflect.TypeFor[Party](), "Party", false},
	{reflect.TypeFor[Address](), "Address", false},
	{reflect.TypeFor[Individual](), "Individual", false},
	{reflect.TypeFor[AddressComponents](), "AddressComponents", false},
	{reflect.TypeFor[AddressAnalysis](), "AddressAnalysis", false},
	{reflect.TypeFor[AddressCorrection](), "AddressCorrection", false},
	{reflect.TypeFor[AddressMetadata](), "AddressMetadata", false},
	{reflect.TypeFor[Event](), "Event", false},
	{reflect.TypeFor[TrackingEventDetails](), "TrackingEventDetails", false},
	{reflect.TypeFor[LetterOptions](), "LetterOptions", false},
	{reflect.TypeFor[CassOptions](), "CassOptions", false},
	{reflect.TypeFor[Variable](), "Variable", false},
	{reflect.TypeFor[LetterContent](), "LetterContent", false},
	{reflect.TypeFor[Metadata](), "Metadata", false},
	{reflect.TypeFor[Page[Letter]](), "LetterPage", false},
	{reflect.TypeFor[CreateLetterRequest](), "CreateLetterRequest", true},
	{reflect.TypeFor[PartyInput](), "PartyInput", true},
	{reflect.TypeFor[AddressInput](), "AddressInput", false},
	{reflect.TypeFor[UpdateLetterRequest](), "UpdateLetterRequest", true},
	{reflect.TypeFor[Asset](), "Asset", false},
	{reflect.TypeFor[Page[Asset]](), "AssetPage", false},
	{reflect.TypeFor[CreateAssetRequest](), "CreateAssetRequest", true},
	{reflect.TypeFor[UpdateAssetRequest](), "UpdateAssetRequest", true},
	{reflect.TypeFor[AssetVersion](), "AssetVersion", false},
	{reflect.TypeFor[Page[AssetVersion]](), "VersionPage", false},
	{reflect.TypeFor[VersionContent](), "VersionContent", false},
	{reflect.TypeFor[VersionContent](), "VersionContentInput", true},
	{reflect.TypeFor[VariableDefinition](), "VariableDefinition", false},
	{reflect.TypeFor[CreateVersionRequest](), "CreateVersionRequest", true},
	{reflect.TypeFor[UpdateVersionRequest](), "UpdateVersionRequest", true},
	{reflect.TypeFor[CloneVersionRequest](), "CloneVersionRequest", true},
	{reflect.TypeFor[ClockState](), "ClockState", false},
	{reflect.TypeFor[advanceClockRequest](), "AdvanceClockRequest", true},
	{reflect.TypeFor[setClockRequest](), "SetClockRequest", true},
	{reflect.TypeFor[AdvanceLetterRequest](), "AdvanceLetterRequest", true},
	{reflect.TypeFor[AwaitLetterRequest](), "AwaitLetterRequest", true},
	{reflect.TypeFor[settleWebhooksRequest](), "SettleWebhooksRequest", true},
	{reflect.TypeFor[Move](), "Move", true},
	{reflect.TypeFor[Fault](), "Fault", true},
	{reflect.TypeFor[FaultList](), "FaultList", false},
	{reflect.TypeFor[JournalEntry](), "JournalEntry", false},
	{reflect.TypeFor[RequestJournal](), "RequestJournal", false},
	{reflect.TypeFor[Webhook](), "Webhook", false},
	{reflect.TypeFor[Page[Webhook]](), "WebhookPage", false},
	{reflect.TypeFor[CreateWebhookRequest](), "CreateWebhookRequest", true},
	{reflect.TypeFor[UpdateWebhookRequest](), "UpdateWebhookRequest", true},
	{reflect.TypeFor[WebhookDelivery](), "WebhookDelivery", false},
	{reflect.TypeFor[Page[WebhookDelivery]](), "WebhookDeliveryPage", false},
	{reflect.TypeFor[WebhookEvent](), "WebhookEvent", false},
}

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestWireTypesMatchTheDocument(t *testing.T) {
	doc := loadDoc(t)
	for _, m := range wireTypes {
		s := doc.Components.Schemas[m.schema]
		if s == nil {
			t.Errorf("%s: no schema %s in the document", m.typ, m.schema)
			continue
		}
		compare(t, m.schema, m.typ, s.Value, m.request)
	}
}

// TestEverySchemaHasAType fails when the document gains an object schema
// the client has no type for.
func TestEverySchemaHasAType(t *testing.T) {
	doc := loadDoc(t)
	covered := map[string]bool{}
	for _, m := range wireTypes {
		covered[m.schema] = true
	}
	var missing []string
	for name, s := range doc.Components.Schemas {
		// A schema marked x-opaque (a snapshot) is taken and given back
		// as it is, and has no type to keep in step with.
		if _, opaque := s.Value.Extensions["x-opaque"]; opaque {
			continue
		}
		if s.Value.Type.Is("object") && !onlyNull(s.Value) && !covered[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("schemas without a client type: %v", missing)
	}
}

// unwrap returns the schema a nullable wrapper stands for: allOf [X], or
// anyOf [X, NullValue].
func unwrap(s *openapi3.Schema) *openapi3.Schema {
	for len(s.Properties) == 0 && s.Type == nil {
		switch {
		case len(s.AllOf) == 1:
			s = s.AllOf[0].Value
		case len(s.AnyOf) == 2 && onlyNull(s.AnyOf[1].Value):
			s = s.AnyOf[0].Value
		default:
			return s
		}
	}
	return s
}

// onlyNull reports whether s admits null alone (the document's NullValue).
func onlyNull(s *openapi3.Schema) bool {
	return s.Nullable && len(s.Enum) == 1 && s.Enum[0] == nil
}

var timeType = reflect.TypeFor[time.Time]()

func compare(t *testing.T, path string, typ reflect.Type, s *openapi3.Schema, request bool) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	s = unwrap(s)
	kind := typ.Kind()
	switch {
	case s.Type.Is("object") && len(s.Properties) == 0:
		if kind != reflect.Map || typ.Key().Kind() != reflect.String {
			t.Errorf("%s: the document has a free-form object, Go has %s", path, typ)
		} else if ap := s.AdditionalProperties.Schema; ap != nil {
			compare(t, path+"[*]", typ.Elem(), ap.Value, request)
		}
	case s.Type.Is("object"):
		if kind != reflect.Struct {
			t.Errorf("%s: the document has an object, Go has %s", path, typ)
			return
		}
		if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
			t.Errorf("%s: the schema must say additionalProperties: false", path)
		}
		fields := jsonFields(typ)
		for name, f := range fields {
			p := s.Properties[name]
			if p == nil {
				t.Errorf("%s.%s: Go field %s.%s is not in the document", path, name, typ.Name(), f.Name)
				continue
			}
			compare(t, path+"."+name, f.Type, p.Value, request)
		}
		for name, p := range s.Properties {
			if _, ok := fields[name]; !ok && !(request && readOnly(p)) {
				t.Errorf("%s.%s: in the document, not in Go type %s", path, name, typ)
			}
		}
	case s.Type.Is("array"):
		if kind != reflect.Slice {
			t.Errorf("%s: the document has an array, Go has %s", path, typ)
			return
		}
		compare(t, path+"[]", typ.Elem(), s.Items.Value, request)
	case s.Type.Is("string"):
		if kind != reflect.String && !(typ == timeType && s.Format == "date-time") {
			t.Errorf("%s: the document has a string (%s), Go has %s", path, s.Format, typ)
		}
	case s.Type.Is("integer"):
		if kind != reflect.Int && kind != reflect.Int64 {
			t.Errorf("%s: the document has an integer, Go has %s", path, typ)
		}
	case s.Type.Is("number"):
		if kind != reflect.Float64 {
			t.Errorf("%s: the document has a number, Go has %s", path, typ)
		}
	case s.Type.Is("boolean"):
		if kind != reflect.Bool {
			t.Errorf("%s: the document has a boolean, Go has %s", path, typ)
		}
	default:
		t.Errorf("%s: schema type %v not understood", path, s.Type)
	}
}

// readOnly reports whether the document marks a request property as one
// the server ignores or accepts only as fetched (x-read-only), or as
// deprecated: a request type may leave it out.
func readOnly(p *openapi3.SchemaRef) bool {
	v, _ := p.Value.Extensions["x-read-only"].(bool)
	return v || p.Value.Deprecated
}

// jsonFields maps JSON names to the fields of a struct type.
func jsonFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range typ.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}
