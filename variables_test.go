package lettershop_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

func TestVariableDefinitions(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	def := func(name string, b lettershop.VariableBehavior, preset *string, allowEmpty bool) lettershop.VariableDefinition {
		return lettershop.VariableDefinition{Name: name, Type: "value", Behavior: b, PresetValue: preset, AllowEmpty: allowEmpty}
	}
	many := make([]lettershop.VariableDefinition, 101)
	for i := range many {
		many[i] = def(fmt.Sprintf("v%d", i), lettershop.VariableOptional, nil, false)
	}
	tests := []struct {
		name   string
		defs   []lettershop.VariableDefinition
		fields []string
	}{
		{"each behavior", []lettershop.VariableDefinition{
			def("a", lettershop.VariableOptional, nil, false),
			def("b", lettershop.VariableRequired, nil, true),
			def("c", lettershop.VariablePreset, str("C"), false),
			def("d", lettershop.VariableOverridablePreset, str(""), true),
		}, nil},
		{"defaults", []lettershop.VariableDefinition{{Name: "x"}}, nil},
		{"100 definitions", many[:100], nil},
		{"101 definitions", many, []string{"variableDefinitions"}},
		{"no name", []lettershop.VariableDefinition{def("", lettershop.VariableOptional, nil, false)}, []string{"variableDefinitions[0].name"}},
		{"bad name", []lettershop.VariableDefinition{def("first name", lettershop.VariableOptional, nil, false)}, []string{"variableDefinitions[0].name"}},
		{"name of 64", []lettershop.VariableDefinition{def(strings.Repeat("n", 64), lettershop.VariableOptional, nil, false)}, nil},
		{"name of 65", []lettershop.VariableDefinition{def(strings.Repeat("n", 65), lettershop.VariableOptional, nil, false)}, []string{"variableDefinitions[0].name"}},
		{"duplicate", []lettershop.VariableDefinition{def("a", lettershop.VariableOptional, nil, false), def("a", lettershop.VariableRequired, nil, false)}, []string{"variableDefinitions[1].name"}},
		{"bad type", []lettershop.VariableDefinition{{Name: "a", Type: "image"}}, []string{"variableDefinitions[0].type"}},
		{"bad behavior", []lettershop.VariableDefinition{def("a", "sometimes", nil, false)}, []string{"variableDefinitions[0].behavior"}},
		{"preset without value", []lettershop.VariableDefinition{def("a", lettershop.VariablePreset, nil, false)}, []string{"variableDefinitions[0].presetValue"}},
		{"optional with preset value", []lettershop.VariableDefinition{def("a", lettershop.VariableOptional, str("x"), false)}, []string{"variableDefinitions[0].presetValue"}},
		{"empty preset not allowed", []lettershop.VariableDefinition{def("a", lettershop.VariablePreset, str(""), false)}, []string{"variableDefinitions[0].presetValue"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
				Content:             &lettershop.VersionContent{Type: "text/html", Content: "<p>x</p>"},
				VariableDefinitions: tc.defs,
			})
			if tc.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				if len(v.VariableDefinitions) != len(tc.defs) {
					t.Errorf("%d definitions kept of %d", len(v.VariableDefinitions), len(tc.defs))
				}
				for _, d := range v.VariableDefinitions {
					if d.Type != "value" || d.Behavior == "" {
						t.Errorf("defaults not filled: %+v", d)
					}
				}
				return
			}
			wantFields(t, err, tc.fields...)
		})
	}
}

func TestLetterVariables(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct,
		lettershop.VariableDefinition{Name: "req", Behavior: lettershop.VariableRequired},
		lettershop.VariableDefinition{Name: "reqEmpty", Behavior: lettershop.VariableRequired, AllowEmpty: true},
		lettershop.VariableDefinition{Name: "opt", Behavior: lettershop.VariableOptional},
		lettershop.VariableDefinition{Name: "fixed", Behavior: lettershop.VariablePreset, PresetValue: str("F")},
		lettershop.VariableDefinition{Name: "over", Behavior: lettershop.VariableOverridablePreset, PresetValue: str("O")},
	)
	null := lettershop.Variable{Name: "opt", Value: nil}
	base := func(extra ...lettershop.Variable) []lettershop.Variable {
		return append(vars("req", "R", "reqEmpty", "E"), extra...)
	}
	tests := []struct {
		name   string
		scope  string
		vars   []lettershop.Variable
		fields []string
	}{
		{"required only", "", base(), nil},
		{"missing required", "", vars("reqEmpty", "E"), []string{"variables[req]"}},
		{"required null", "", append(vars("reqEmpty", "E"), lettershop.Variable{Name: "req"}), []string{"variables[req]"}},
		{"required empty", "", vars("req", "", "reqEmpty", "E"), []string{"variables[req]"}},
		{"required empty allowed", "", vars("req", "R", "reqEmpty", ""), nil},
		{"optional null is no value", "", base(null), nil},
		{"preset null is its preset", "", base(lettershop.Variable{Name: "fixed"}), nil},
		{"overridable preset null is its preset", "", base(lettershop.Variable{Name: "over"}), nil},
		{"undefined null is no value", "", base(lettershop.Variable{Name: "ghost"}), nil},
		{"undefined null beside a set preset", "", base(lettershop.Variable{Name: "ghost"}, lettershop.Variable{Name: "fixed", Value: str("X")}), []string{"variables[fixed]"}},
		{"optional empty", "", base(vars("opt", "")...), []string{"variables[opt]"}},
		{"set a preset", "", base(vars("fixed", "X")...), []string{"variables[fixed]"}},
		{"override an overridable preset", "", base(vars("over", "X")...), nil},
		{"undefined", "", base(vars("ghost", "X")...), []string{"variables[ghost]"}},
		{"duplicate", "", base(vars("req", "again")...), []string{"variables[req]"}},
		{"nameless", "", base(lettershop.Variable{Value: str("x")}), []string{"variables[2].name"}},
		{"value of 4096", "", vars("req", strings.Repeat("v", 4096), "reqEmpty", "E"), nil},
		{"value of 4097", "", vars("req", strings.Repeat("v", 4097), "reqEmpty", "E"), []string{"variables[req]"}},
		{"scope none skips checks", "none", vars("ghost", "X", "fixed", "Y"), nil},
		{"scope asset explicit", "asset", vars("ghost", "X"), []string{"variables[ghost]", "variables[req]", "variables[reqEmpty]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := letterInput(a.ID)
			in.Variables = tc.vars
			if tc.scope != "" {
				in.Options = &lettershop.LetterOptions{VariableHandling: &lettershop.VariableHandling{ValidationScope: lettershop.ValidationScope(tc.scope)}}
			}
			l, err := e.svc.CreateLetter(e.ctx, acct, in)
			if tc.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.vars, l.Variables); diff != "" {
					t.Errorf("variables as given (-want +got):\n%s", diff)
				}
				return
			}
			wantFields(t, err, tc.fields...)
		})
	}
}

// A variable the version does not define is refused with what to do: a
// template may use {{firstName}} without defining it, and then only a
// definition, or no checks, lets a letter set it.
func TestUndefinedVariableSaysWhatToDo(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	in := letterInput(a.ID)
	in.Variables = vars("firstName", "Jane")
	_, err := e.svc.CreateLetter(e.ctx, acct, in)
	var le *lettershop.Error
	if !errors.As(err, &le) {
		t.Fatalf("err %v, want a *lettershop.Error", err)
	}
	if msg := le.Fields["variables[firstName]"]; !strings.Contains(msg, "variableDefinitions") || !strings.Contains(msg, "validationScope none") {
		t.Errorf("variables[firstName]: %q, want it told to define the variable or to skip the checks", msg)
	}
}

func TestMergeTemplate(t *testing.T) {
	values := []lettershop.Variable{{Name: "name", Value: str("<Zoë>")}, {Name: "unset"}}
	got := lettershop.MergeTemplate("Dear {{name}}, {{ name }}{{unset}}{{missing}} {{ bad name }}", values, strings.ToUpper)
	if want := "Dear <ZOË>, <ZOË> {{ bad name }}"; got != want {
		t.Errorf("MergeTemplate = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"a", "b"}, lettershop.TemplateVariables("{{a}} {{b}} {{ a }}")); diff != "" {
		t.Errorf("TemplateVariables (-want +got):\n%s", diff)
	}
}

// TestPresetValueNeededMessage checks the message for a preset behavior
// without a presetValue reads right for both behaviors.
func TestPresetValueNeededMessage(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []lettershop.VariableBehavior{lettershop.VariablePreset, lettershop.VariableOverridablePreset} {
		_, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
			Content:             &lettershop.VersionContent{Type: "text/html", Content: "<p>{{a}}</p>"},
			VariableDefinitions: []lettershop.VariableDefinition{{Name: "a", Behavior: b}},
		})
		want := "a variable of behavior " + string(b) + " needs a presetValue"
		if got := fieldsOf(t, err)["variableDefinitions[0].presetValue"]; got != want {
			t.Errorf("%s: %q, want %q", b, got, want)
		}
	}
}

// TestMergedTemplateSize tests the bound on a template with its values
// merged on both sides: a value merged in many places multiplies, and is
// counted as it merges, escaped.
func TestMergedTemplateSize(t *testing.T) {
	e := newEnv(t)
	defs := []lettershop.VariableDefinition{{Name: "a", Type: "value", Behavior: lettershop.VariableRequired}}
	for _, tc := range []struct {
		name   string
		text   int // bytes of text before the uses of {{a}}
		value  string
		fields []string
	}{
		{"at the limit", 256, strings.Repeat("y", 4095), nil},
		{"a byte over", 257, strings.Repeat("y", 4095), []string{"variables"}},
		{"escaped at the limit", 256, strings.Repeat("&", 819), nil},
		{"escaped a byte over", 257, strings.Repeat("&", 819), []string{"variables"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t", Type: lettershop.AssetTemplate})
			if err != nil {
				t.Fatal(err)
			}
			// 256 uses of a value of 4,095 bytes, and 256 bytes of text:
			// render.MaxTemplateBytes merged.
			tpl := strings.Repeat("x", tc.text) + strings.Repeat("{{a}}", 256)
			if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Type: "text/html", Content: tpl}, VariableDefinitions: defs, Publish: true}); err != nil {
				t.Fatal(err)
			}
			in := letterInput(a.ID)
			in.Variables = vars("a", tc.value)
			_, err = e.svc.CreateLetter(e.ctx, acct, in)
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("CreateLetter: %v", err)
				}
				return
			}
			wantFields(t, err, tc.fields...)
		})
	}
}

// TestMergedTemplateSizeOnUpdate checks the bound when a letter's values
// change and its content does not (the template's length not at hand).
func TestMergedTemplateSizeOnUpdate(t *testing.T) {
	e := newEnv(t)
	defs := []lettershop.VariableDefinition{{Name: "a", Type: "value", Behavior: lettershop.VariableRequired}}
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "t", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	tpl := strings.Repeat("x", 257) + strings.Repeat("{{a}}", 256)
	if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: tpl}, VariableDefinitions: defs, Publish: true}); err != nil {
		t.Fatal(err)
	}
	in := letterInput(a.ID)
	in.Variables = vars("a", "short")
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	big := vars("a", strings.Repeat("y", 4095))
	_, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Variables: &big})
	wantFields(t, err, "variables")
}

// TestVariableNameASCII: a name with a letter outside ASCII (prénom) is
// refused, in the definitions and in the template, by a message that says
// names are ASCII: "a letter" alone reads as if é were one it takes.
func TestVariableNameASCII(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: "text/html", Content: "<p>Bonjour {{prénom}}</p>"},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "prénom"}},
	})
	got := fieldsOf(t, err)
	for _, f := range []string{"variableDefinitions[0].name", "content.content"} {
		if !strings.Contains(got[f], "ASCII letter") {
			t.Errorf("%s: %q, want it to say names are of ASCII letters", f, got[f])
		}
	}
}
