package render

import (
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// A letter is what prints. A PDF document may also carry what a reader runs
// or opens instead of printing: JavaScript, a program to launch, a form that
// posts to a server, files embedded in it. None of it draws anything, and a
// letter downloaded and opened by someone other than who uploaded the
// document must not run it, so the letter leaves it out (inert).

// followedActions are the actions a letter keeps: a move within the
// document, a named one (next page, print) and a link to the web (its
// scheme checked by linkedURI). Any other (JavaScript, Launch, SubmitForm,
// ImportData, GoToR, GoToE, Rendition, ...) is removed.
var followedActions = map[string]bool{"GoTo": true, "Named": true, "URI": true}

// linkedURI reports whether a URI action's target is one a letter's own
// links may name (printableLink's): not javascript:, file: or data:.
func linkedURI(o types.Object) bool {
	s, err := types.StringOrHexLiteral(o)
	return err == nil && s != nil && printableLink(strings.TrimSpace(*s))
}

// inert removes from ctx, in every object the catalog reaches, what a
// reader would run or open rather than print: actions other than
// followedActions (from links, outlines, the document's opening and the
// chains of Next), a script under any name, every additional-actions dictionary (AA: on opening or
// closing a page, on entering a field), the document's JavaScript and
// embedded files name trees, the files embedded in file specifications,
// and an XFA form. What is removed is left unreferenced, and renumber
// drops it.
func inert(ctx *model.Context) {
	if ctx.Root == nil {
		return
	}
	seen := map[int]bool{}
	var walk func(o types.Object)
	walk = func(o types.Object) {
		if ir, ok := o.(types.IndirectRef); ok {
			n := ir.ObjectNumber.Value()
			if seen[n] {
				return
			}
			seen[n] = true
			if e, ok := ctx.Table[n]; !ok || e.Free {
				return
			}
			var err error
			if o, err = ctx.Dereference(ir); err != nil {
				return
			}
		}
		switch x := o.(type) {
		case types.Dict:
			disarm(ctx, x)
			for _, v := range x {
				walk(v)
			}
		case types.StreamDict:
			disarm(ctx, x.Dict)
			for _, v := range x.Dict {
				walk(v)
			}
		case types.Array:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(*ctx.Root)
}

// disarm removes d's own active entries (see inert).
func disarm(ctx *model.Context, d types.Dict) {
	delete(d, "AA")
	delete(d, "EF") // a file specification's embedded file
	delete(d, "RF")
	if _, ok := d["Fields"]; ok { // an interactive form
		delete(d, "XFA")
	}
	for _, k := range []string{"A", "OpenAction", "Next"} {
		if v, ok := d[k]; ok && !followedAction(ctx, v) {
			delete(d, k)
		}
	}
	// A script under any other name no reader runs, but it is still a
	// script in the letter, which a scanner of mail rightly reports.
	for k, v := range d {
		if a, ok := deref(ctx, v).(types.Dict); ok && a["JS"] != nil {
			delete(d, k)
		}
	}
	// One no member names (an element of an array, the catalog itself)
	// keeps its place, without its script.
	if d["JS"] != nil {
		delete(d, "JS")
		if s, ok := deref(ctx, d["S"]).(types.Name); ok && s.Value() == "JavaScript" {
			delete(d, "S")
		}
	}
	if names, ok := deref(ctx, d["Names"]).(types.Dict); ok {
		delete(names, "JavaScript")
		delete(names, "EmbeddedFiles")
	}
}

// followedAction reports whether o, the value of an A, OpenAction or Next
// entry, is something a letter keeps: a destination (an array or a name),
// or actions all of followedActions, each a URI of linkedURI.
func followedAction(ctx *model.Context, o types.Object) bool {
	switch x := deref(ctx, o).(type) {
	case nil:
		return true
	case types.Dict:
		s, ok := deref(ctx, x["S"]).(types.Name)
		if !ok {
			// An OpenAction's destination array is an array; a
			// dictionary without S is no action any reader runs.
			return x["JS"] == nil
		}
		if !followedActions[s.Value()] {
			return false
		}
		return s.Value() != "URI" || linkedURI(deref(ctx, x["URI"]))
	case types.Array:
		// A Next may be an array of actions; an OpenAction an array
		// destination, whose first element is a page (a dictionary of
		// Type Page, not an action).
		for _, v := range x {
			if d, ok := deref(ctx, v).(types.Dict); ok && d["S"] != nil && !followedAction(ctx, d) {
				return false
			}
		}
		return true
	}
	return true
}

// deref is o with an indirect reference followed, nil for one that can not
// be.
func deref(ctx *model.Context, o types.Object) types.Object {
	if o == nil {
		return nil
	}
	v, err := ctx.Dereference(o)
	if err != nil {
		return nil
	}
	return v
}
