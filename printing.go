package lettershop

import (
	"fmt"
	"strings"

	"github.com/lettershop/lettershop/render"
)

// What a letter prints, checked where the letter is made or changed: the
// render package says what its fonts can print, the rules here say which
// fields are printed and what may be asked of a PDF document.

// addressPlacements are the values of options.print.addressPlacement.
var addressPlacements = []string{string(render.InsertBlankPage), string(render.TopFirstPage)}

// checkLetterVariables checks a letter's variables against its content and
// returns the values to merge. A PDF document takes no variables: any is an
// error naming variables, unless the letter's validation scope is none.
func checkLetterVariables(l *Letter, f fieldErrors) []Variable {
	scope := l.Options.VariableHandling.ValidationScope
	if l.snapshot.Type == "application/pdf" {
		if len(l.Variables) > 0 && scope != "none" {
			f.add("variables", "a PDF document has no variables: leave variables out, or set options.variableHandling.validationScope to none")
		}
		return nil
	}
	for _, v := range l.Variables {
		if v.Value != nil {
			checkPrintable(f, "variables["+v.Name+"]", *v.Value)
		}
	}
	return checkVariables(l.snapshot.Definitions, l.Variables, string(scope), f)
}

// checkPrintableParty checks that the fields of a party that print on the
// letter are in scripts the letter fonts cover.
func checkPrintableParty(f fieldErrors, path string, p *PartyInput) {
	if p == nil {
		return
	}
	if ind := p.Individual; ind != nil {
		for _, fld := range [][2]string{
			{"fullName", ind.FullName}, {"prefix", ind.Prefix}, {"firstName", ind.FirstName},
			{"middleName", ind.MiddleName}, {"lastName", ind.LastName}, {"postfix", ind.Postfix},
		} {
			checkPrintableAt(f, path, ".individual.", fld[0], fld[1])
		}
	}
	checkPrintableAt(f, path, ".", "organization", p.Organization)
	checkPrintableAt(f, path, ".", "nonAddressData", p.NonAddressData)
	a := p.Address
	for _, fld := range [][2]string{
		{"addressLine1", a.AddressLine1}, {"addressLine2", a.AddressLine2}, {"lastLine", a.LastLine},
		{"city", a.City}, {"state", a.State}, {"zipCode", a.ZipCode}, {"urbanization", a.Urbanization},
	} {
		checkPrintableAt(f, path, ".address.", fld[0], fld[1])
	}
}

// checkPrintableAt is checkPrintable at path+sub+name, the path made only
// for a problem: a party has a dozen fields, rarely one that can not print.
func checkPrintableAt(f fieldErrors, path, sub, name, v string) {
	if len(render.Unprintable(v)) == 0 {
		return
	}
	checkPrintable(f, path+sub+name, v)
}

// checkPrintable adds an error at path when v has letters of a script the
// letter fonts do not cover: such a letter would print wrong.
func checkPrintable(f fieldErrors, path, v string) {
	missing := render.Unprintable(v)
	if len(missing) == 0 {
		return
	}
	var list []string
	for _, r := range missing {
		list = append(list, fmt.Sprintf("%q (U+%04X)", r, r))
	}
	f.add(path, "can not be printed: the letter fonts cover Latin, Greek and Cyrillic, and have no %s", strings.Join(list, ", "))
}
