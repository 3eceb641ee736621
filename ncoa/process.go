package ncoa

import (
	"github.com/lettershop/lettershop/cass"
	"github.com/lettershop/lettershop/usps"
)

// Request is one address to process, and who is at it.
type Request struct {
	// Account is whose moves NCOA follows.
	Account string
	// Address is the address as given.
	Address Address
	// Individual is the full name of the person at the address, if any;
	// Organization the organization's. A move limited to a name applies
	// to either.
	Individual, Organization string
	// Business is set for an organization, not a person: CASS calls its
	// address commercial.
	Business bool
	// Forward runs NCOA: the address of a party who has moved is replaced
	// by where they moved to.
	Forward bool
	// Moves, when not nil, are the account's moves by Key, kept elsewhere
	// (where servers sharing a store keep them), which NCOA follows in
	// place of the Processor's registry.
	Moves map[string]Move
	// CASS standardizes the address, in Casing, and analyses it.
	CASS   bool
	Casing usps.Casing
}

// Correction is one field that processing changed: Name is the field's
// (addressLine1, lastLine, zipCode, ...; prefixed "ncoa." for a change by
// NCOA), Input its value before and Corrected after.
type Correction struct {
	Name, Input, Corrected string
}

// Result is the outcome of processing one address.
type Result struct {
	// Address is the address processed: its lines, and the parts of its
	// last line as read (as standardized, with CASS).
	Address Address
	// Analysis, Metadata, Deliverability and Reason are CASS's
	// (cass.Result), set only with Request.CASS.
	Analysis       cass.Analysis
	Metadata       cass.Metadata
	Deliverability string
	Reason         string
	// Corrections are the fields changed, by NCOA then by CASS; nil when
	// none was.
	Corrections []Correction
}

// Process runs NCOA when asked, then CASS when asked (cass.Process), and
// says what each changed.
func (p *Processor) Process(req Request) Result {
	addr := req.Address
	var corrections []Correction
	in, lastErr := Read(addr)
	if req.Forward {
		if to, ok := p.forwarding(&req, in, lastErr); ok {
			corrections = changes(corrections, "ncoa.", [][3]string{
				{"addressLine1", addr.Line1, to.Line1},
				{"addressLine2", addr.Line2, to.Line2},
				{"lastLine", addr.LastLine, to.LastLine},
			})
			addr = to
			in, lastErr = Read(addr)
		}
	}
	if !req.CASS {
		return Result{
			Address: Address{
				Line1: addr.Line1, Line2: addr.Line2, LastLine: addr.LastLine,
				Urbanization: in.Urbanization, City: in.City, State: in.State, ZIP: in.ZIP, Plus4: in.Plus4,
			},
			Corrections: corrections,
		}
	}
	a := cass.Process(cass.Input{Address: in, LastLineErr: lastErr, Casing: req.Casing, Business: req.Business})
	out := a.Address
	lastLine := out.LastLine()
	if lastErr != nil && !a.Test {
		// Unreadable: the last line stays as written.
		lastLine = addr.LastLine
	}
	corrections = changes(corrections, "", [][3]string{
		{"addressLine1", addr.Line1, out.Line1},
		{"addressLine2", addr.Line2, out.Line2},
		{"lastLine", addr.LastLine, lastLine},
		{"city", in.City, out.City},
		{"state", in.State, out.State},
		{"zipCode", in.ZIP, out.ZIP},
		{"plus4Code", in.Plus4, out.Plus4},
		{"urbanization", in.Urbanization, out.Urbanization},
	})
	return Result{
		Address: Address{
			Line1: out.Line1, Line2: out.Line2, LastLine: lastLine,
			Urbanization: out.Urbanization, City: out.City, State: out.State, ZIP: out.ZIP, Plus4: out.Plus4,
		},
		Analysis: a.Analysis, Metadata: a.Metadata, Deliverability: a.Deliverability, Reason: a.Reason,
		Corrections: corrections,
	}
}

// changes appends to out the fields whose value changed, each {name,
// input, corrected}.
func changes(out []Correction, prefix string, fields [][3]string) []Correction {
	for _, f := range fields {
		if f[1] != f[2] {
			out = append(out, Correction{Name: prefix + f[0], Input: f[1], Corrected: f[2]})
		}
	}
	return out
}
