package lettershop

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/internal/echo"
)

// Variable is a template variable's value on a letter. A nil Value is no
// value at all; a pointer to "" is an empty value.
type Variable struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// VariableBehavior says how a letter may set a variable.
type VariableBehavior string

// The variable behaviors.
const (
	// VariableOptional may be set; unset, it merges as nothing.
	VariableOptional VariableBehavior = "optional"
	// VariableRequired must be set by every letter.
	VariableRequired VariableBehavior = "required"
	// VariablePreset takes its PresetValue; a letter may not set it.
	VariablePreset VariableBehavior = "preset"
	// VariableOverridablePreset takes its PresetValue unless a letter sets it.
	VariableOverridablePreset VariableBehavior = "overridablePreset"
)

var variableBehaviors = []string{string(VariableOptional), string(VariableRequired), string(VariablePreset), string(VariableOverridablePreset)}

// VariableDefinition declares a variable a template uses as {{name}}.
type VariableDefinition struct {
	Name        string           `json:"name"`
	Type        VariableType     `json:"type"`
	Behavior    VariableBehavior `json:"behavior"`
	PresetValue *string          `json:"presetValue,omitempty"`
	AllowEmpty  bool             `json:"allowEmpty"`
}

// Variable limits.
const (
	MaxVariableDefinitions = 100
	maxVariableName        = 64
	maxVariableValue       = 4096
)

var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// placeholder matches {{name}} in a template, spaces inside the braces allowed.
var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// validateDefinitions checks a version's variable definitions and fills
// their defaults (type value, behavior optional).
func validateDefinitions(path string, defs []VariableDefinition, f fieldErrors) []VariableDefinition {
	if len(defs) > MaxVariableDefinitions {
		f.add(path, "at most %d variable definitions are allowed, got %d", MaxVariableDefinitions, len(defs))
	}
	out := make([]VariableDefinition, len(defs))
	seen := map[string]bool{}
	for i, d := range defs {
		at := fmt.Sprintf("%s[%d]", path, i)
		if d.Type == "" {
			d.Type = VariableTypeValue
		}
		if d.Behavior == "" {
			d.Behavior = VariableOptional
		}
		switch {
		case d.Name == "":
			f.add(at+".name", "name can not be empty")
		case utf8.RuneCountInString(d.Name) > maxVariableName || !variableName.MatchString(d.Name):
			f.add(at+".name", "must be an ASCII letter (A-Z, a-z) or underscore, then ASCII letters, digits or underscores, at most %d characters", maxVariableName)
		case seen[d.Name]:
			f.add(at+".name", "variable %s is defined more than once", echo.Quote(d.Name))
		}
		seen[d.Name] = true
		enum(f, at+".type", d.Type, variableTypes)
		enum(f, at+".behavior", string(d.Behavior), variableBehaviors)
		preset := d.Behavior == VariablePreset || d.Behavior == VariableOverridablePreset
		switch {
		case preset && d.PresetValue == nil:
			f.add(at+".presetValue", "a variable of behavior %s needs a presetValue", d.Behavior)
		case !preset && d.PresetValue != nil:
			f.add(at+".presetValue", "only a preset or overridablePreset variable has a presetValue")
		case preset && *d.PresetValue == "" && !d.AllowEmpty:
			f.add(at+".presetValue", "presetValue can not be empty unless allowEmpty is set")
		case preset:
			maxLen(f, at+".presetValue", *d.PresetValue, maxVariableValue)
			checkResourceValue(f, at+".presetValue", d.Type, *d.PresetValue)
		}
		if d.PresetValue != nil {
			v := *d.PresetValue
			d.PresetValue = &v
		}
		out[i] = d
	}
	return out
}

// checkVariables checks a letter's variables against the definitions of its
// version (scope "asset"; "none" skips the checks) and returns the values
// to merge into the template, presets included, sorted by name. A variable
// whose value is nil (null) has no value: it is never refused for that
// alone (a required variable without a value is still missing), and a
// preset variable takes its preset.
func checkVariables(defs []VariableDefinition, vars []Variable, scope string, f fieldErrors) []Variable {
	given := map[string]*string{}
	for i, v := range vars {
		at := "variables[" + v.Name + "]"
		switch {
		case v.Name == "":
			f.add(fmt.Sprintf("variables[%d].name", i), "name can not be empty")
			continue
		case slices.ContainsFunc(vars[:i], func(w Variable) bool { return w.Name == v.Name }):
			f.add(at, "is given more than once")
		}
		if v.Value != nil {
			maxLen(f, at, *v.Value, maxVariableValue)
		}
		given[v.Name] = v.Value
	}
	if scope == "asset" {
		defined := map[string]VariableDefinition{}
		for _, d := range defs {
			defined[d.Name] = d
		}
		for _, v := range vars {
			if v.Name == "" {
				continue
			}
			at := "variables[" + v.Name + "]"
			d, ok := defined[v.Name]
			switch {
			case v.Value == nil:
				// null is no value: for a preset variable its preset,
				// for an undefined one nothing to refuse.
			case !ok:
				f.add(at, "is not defined by the asset version: define it in the version's variableDefinitions, or send options.variableHandling.validationScope none")
			case d.Behavior == VariablePreset:
				f.add(at, "is preset by the asset version and can not be set")
			case v.Value != nil && *v.Value == "" && !d.AllowEmpty:
				f.add(at, "can not be empty")
			}
		}
		for _, d := range defs {
			if d.Behavior == VariableRequired && given[d.Name] == nil {
				f.add("variables["+d.Name+"]", "is required by the asset version")
			}
		}
	}
	merge := map[string]string{}
	for name, v := range given {
		if v != nil {
			merge[name] = *v
		}
	}
	for _, d := range defs {
		_, set := merge[d.Name]
		switch {
		case d.Behavior == VariablePreset && d.PresetValue != nil && (scope == "asset" || !set),
			d.Behavior == VariableOverridablePreset && d.PresetValue != nil && !set:
			merge[d.Name] = *d.PresetValue
		}
	}
	out := make([]Variable, 0, len(merge))
	for _, name := range slices.Sorted(maps.Keys(merge)) {
		v := merge[name]
		out = append(out, Variable{Name: name, Value: &v})
	}
	return out
}

// MergeTemplate replaces each {{name}} in tpl by escape(value). A name
// without a value merges as the empty string.
func MergeTemplate(tpl string, values []Variable, escape func(string) string) string {
	byName := make(map[string]string, len(values))
	for _, v := range values {
		if v.Value != nil {
			byName[v.Name] = *v.Value
		}
	}
	return placeholder.ReplaceAllStringFunc(tpl, func(m string) string {
		name := strings.TrimSpace(m[2 : len(m)-2])
		return escape(byName[name])
	})
}

// mergedLength is the length of MergeTemplate(tpl, values, escape), worked
// out without making it.
func mergedLength(tpl string, values []Variable, escape func(string) string) int {
	byName := make(map[string]int, len(values))
	for _, v := range values {
		if v.Value != nil {
			byName[v.Name] = len(escape(*v.Value))
		}
	}
	n := len(tpl)
	for _, m := range placeholder.FindAllStringSubmatchIndex(tpl, -1) {
		n += byName[tpl[m[2]:m[3]]] - (m[1] - m[0])
	}
	return n
}

// TemplateVariables returns the names a template uses, in order of first use.
func TemplateVariables(tpl string) []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(tpl, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

func cloneVariables(vs []Variable) []Variable {
	if vs == nil {
		return nil
	}
	out := make([]Variable, len(vs))
	for i, v := range vs {
		out[i].Name = v.Name
		if v.Value != nil {
			x := *v.Value
			out[i].Value = &x
		}
	}
	return out
}

// resourceVariables are the names of the definitions whose values name
// images or fonts: those of type asset or externalUrl.
func resourceVariables(defs []VariableDefinition) []string {
	var names []string
	for _, d := range defs {
		if d.Type == VariableTypeAsset || d.Type == VariableTypeExternalURL {
			names = append(names, d.Name)
		}
	}
	return names
}

// checkResourceValue checks the form of a value of a variable of type
// asset (an asset id) or externalUrl (an http or https URL); "" is no
// image or font, allowed where an empty value is.
func checkResourceValue(f fieldErrors, path string, t VariableType, v string) {
	if v == "" {
		return
	}
	switch t {
	case VariableTypeAsset:
		if !ValidID(assetPrefix, v) {
			f.add(path, "a variable of type asset holds an asset id, %s followed by letters and digits", assetPrefix)
		}
	case VariableTypeExternalURL:
		if msg := externalURLProblem(v); msg != "" {
			f.add(path, "%s", msg)
		}
	}
}

// externalURLProblem says what keeps v from being the public URL an
// externalUrl variable holds, or "" when it is one.
func externalURLProblem(v string) string {
	u, err := url.Parse(v)
	switch {
	case err != nil || !u.IsAbs() || u.Opaque != "":
		return "a variable of type externalUrl holds an absolute http or https URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("a variable of type externalUrl holds an http or https URL, not %s", u.Scheme)
	case u.Hostname() == "":
		return "a variable of type externalUrl holds a URL with a host"
	case u.User != nil:
		return egress.Credentials
	}
	return ""
}
