package client

import (
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// Each named value is one the document lists for its field, so a constant
// never names a value the server refuses; and each field's list is named
// whole, so a value the document gains is named too.
func TestEnumConstantsMatchTheDocument(t *testing.T) {
	doc := loadDoc(t)
	for _, tt := range []struct {
		field  string // a schema and the properties down to the field
		values []string
	}{
		{"LetterContent.type", []string{LetterContentAsset}},
		{"VariableDefinition.behavior", []string{VariableOptional, VariableRequired, VariablePreset, VariableOverridablePreset}},
		{"VariableDefinition.type", []string{VariableTypeValue, VariableTypeAsset, VariableTypeExternalURL}},
		{"VersionContentInput.source", []string{ContentInline, ContentImport, ContentExternalURL}},
		{"CassOptions.type", []string{CassBasic}},
		{"CassOptions.casing", []string{CasingProper, CasingUpper}},
		{"LetterOptions.addressProcessing.ncoaRecipient", []string{NcoaNone, NcoaNewAddress}},
		{"LetterOptions.deliverabilityThreshold", []string{ThresholdStrict, ThresholdNormal, ThresholdRelaxed}},
		{"LetterOptions.deliverabilityValues", []string{Deliverable, DeliverableMissingUnit, DeliverableIncorrectUnit, DeliverableUnnecessaryUnit, Undeliverable}},
		{"LetterOptions.mail.service", []string{MailFirstClass, MailStandard}},
		{"LetterOptions.mail.extraServices", []string{ExtraACS, ExtraCertified, ExtraCertifiedReturnReceipt, ExtraRegistered}},
		{"LetterOptions.print.addressPlacement", []string{PlacementInsertBlankPage, PlacementTopFirstPage}},
		{"LetterOptions.variableHandling.validationScope", []string{ValidationScopeAsset, ValidationScopeNone}},
	} {
		names := strings.Split(tt.field, ".")
		ref := doc.Components.Schemas[names[0]]
		if ref == nil {
			t.Errorf("%s: no schema %s", tt.field, names[0])
			continue
		}
		s := ref.Value
		for _, p := range names[1:] {
			s = resolve(s)
			if s == nil || s.Properties[p] == nil {
				t.Fatalf("%s: no property %s", tt.field, p)
			}
			s = s.Properties[p].Value
		}
		s = resolve(s)
		if s.Items != nil {
			s = resolve(s.Items.Value)
		}
		var want []string
		for _, v := range s.Enum {
			if v, ok := v.(string); ok {
				want = append(want, v)
			}
		}
		got := slices.Clone(tt.values)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the constants name %v, the document lists %v", tt.field, got, want)
		}
	}
}

// resolve is s, or the one schema of its allOf (a nullable reference).
func resolve(s *openapi3.Schema) *openapi3.Schema {
	if s != nil && len(s.AllOf) == 1 {
		return s.AllOf[0].Value
	}
	return s
}
