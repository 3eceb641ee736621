package lettershop

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNullVariableMergesItsPreset checks a variable given as null merges as
// no value: a preset (or overridable preset) one as its preset, in either
// validation scope, and an optional one as nothing.
func TestNullVariableMergesItsPreset(t *testing.T) {
	f, o := "F", "O"
	defs := []VariableDefinition{
		{Name: "fixed", Type: "value", Behavior: VariablePreset, PresetValue: &f},
		{Name: "over", Type: "value", Behavior: VariableOverridablePreset, PresetValue: &o},
		{Name: "opt", Type: "value", Behavior: VariableOptional},
	}
	given := []Variable{{Name: "fixed"}, {Name: "over"}, {Name: "opt"}}
	want := []Variable{{Name: "fixed", Value: &f}, {Name: "over", Value: &o}}
	for _, scope := range []string{"asset", "none"} {
		errs := fieldErrors{}
		got := checkVariables(defs, given, scope, errs)
		if len(errs) != 0 {
			t.Errorf("scope %s: %v", scope, errs)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("scope %s: merged (-want +got):\n%s", scope, diff)
		}
	}
}
