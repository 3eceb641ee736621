package lettershop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lettershop/lettershop/cass"
	"github.com/lettershop/lettershop/usps"
)

// AddressComponents are the parsed parts of an address. CassType is "basic"
// when the address was standardized, "none" when it was not.
type AddressComponents struct {
	CassType     CassType `json:"cassType"`
	Urbanization string   `json:"urbanization,omitempty"`
	City         string   `json:"city,omitempty"`
	State        string   `json:"state,omitempty"`
	ZipCode      string   `json:"zipCode,omitempty"`
	Plus4Code    string   `json:"plus4Code,omitempty"`
}

// AddressAnalysis is the delivery point validation (DPV) of an address.
// Its fields are cass.Analysis's, in the same order, so the built-in
// processor's result converts to it.
type AddressAnalysis struct {
	DpvMatchCode               string   `json:"dpvMatchCode"`
	DpvFootnotes               []string `json:"dpvFootnotes"`
	DpvCmra                    string   `json:"dpvCmra"`
	DpvVacant                  string   `json:"dpvVacant"`
	DpvNoStat                  string   `json:"dpvNoStat"`
	DpvActive                  string   `json:"dpvActive"`
	DpvInactiveReason          string   `json:"dpvInactiveReason"`
	DpvThrowback               string   `json:"dpvThrowback"`
	DpvNonDeliveryDayIndicator string   `json:"dpvNonDeliveryDayIndicator"`
	DpvNonDeliveryDayValues    string   `json:"dpvNonDeliveryDayValues"`
	DpvNoSecureLocation        string   `json:"dpvNoSecureLocation"`
	DpvDoorNotAccessible       string   `json:"dpvDoorNotAccessible"`
	LacslinkCode               string   `json:"lacslinkCode"`
	LacslinkIndicator          string   `json:"lacslinkIndicator"`
	SuitelinkIndicator         string   `json:"suitelinkIndicator"`
	EwsIndicator               bool     `json:"ewsIndicator"`
}

// AddressCorrection records one field that processing changed.
type AddressCorrection struct {
	Name      string `json:"name"`
	Input     string `json:"input"`
	Corrected string `json:"corrected"`
}

// AddressMetadata describes the delivery point of an address. Its fields
// are cass.Metadata's, in the same order, so the built-in processor's
// result converts to it.
type AddressMetadata struct {
	RecordType             string  `json:"recordType"`
	AddressType            string  `json:"addressType"`
	ZipCodeType            string  `json:"zipCodeType"`
	County                 string  `json:"county"`
	CountyFips             string  `json:"countyFips"`
	CarrierRoute           string  `json:"carrierRoute"`
	CarrierRouteType       string  `json:"carrierRouteType"`
	CongressionalDistrict  string  `json:"congressionalDistrict"`
	DefaultBuildingAddress bool    `json:"defaultBuildingAddress"`
	ElotSequence           string  `json:"elotSequence"`
	ElotSort               string  `json:"elotSort"`
	Latitude               float64 `json:"latitude"`
	Longitude              float64 `json:"longitude"`
	Precision              string  `json:"precision"`
	UspsFinanceNumber      string  `json:"uspsFinanceNumber"`
	TimeZone               string  `json:"timeZone"`
}

// Deliverability is the verdict of address analysis on a recipient.
type Deliverability string

// The deliverability values.
const (
	Deliverable                Deliverability = "deliverable"
	DeliverableMissingUnit     Deliverability = "deliverableMissingUnit"
	DeliverableIncorrectUnit   Deliverability = "deliverableIncorrectUnit"
	DeliverableUnnecessaryUnit Deliverability = "deliverableUnnecessaryUnit"
	Undeliverable              Deliverability = "undeliverable"
)

// PartyRole says which party of a letter an address belongs to.
type PartyRole string

// The party roles.
const (
	RoleSender    PartyRole = "sender"
	RoleRecipient PartyRole = "recipient"
)

// AddressRequest asks an AddressProcessor to process one party's address.
type AddressRequest struct {
	Account string
	Role    PartyRole
	// Party is the party as given, its address lines and, where the caller
	// gave them separately, the city, state and ZIP in AddressComponents
	// (CassType "none").
	Party Party
	// CASS standardizes the address; nil leaves it as given.
	CASS *CassOptions
	// NCOA replaces the address of a recipient who has moved.
	NCOA bool
}

// AddressResult is the processed party, and for an analysed address its
// deliverability ("" when the address was not analysed) and the reason for
// it, a phrase for the letter's issueMessage ("the ZIP Code 62701 is in IL,
// not in CA").
type AddressResult struct {
	Party          Party
	Deliverability Deliverability
	Reason         string
}

// AddressProcessor standardizes addresses (CASS), forwards moved recipients
// (NCOA) and judges deliverability. Implementations must be deterministic
// for a given input and safe for concurrent use; an error fails the request
// as an internal error.
type AddressProcessor interface {
	Process(ctx context.Context, req AddressRequest) (AddressResult, error)
}

// NewAddressProcessor returns the built-in address processor. It
// standardizes by USPS Publication 28 and simulates delivery point
// validation deterministically with package cass (see docs/addresses.md
// for the rules and the test addresses), and keeps a per-account registry
// of moves for NCOA, in memory. It implements MoveRegistry.
func NewAddressProcessor() AddressProcessor {
	return &builtinProcessor{moves: map[string]map[moveKey]Move{}}
}

// builtinProcessor is the processor of NewAddressProcessor.
type builtinProcessor struct {
	mu    sync.RWMutex
	moves map[string]map[moveKey]Move
}

// moveKey finds a move: the standardized delivery line and ZIP Code moved
// from, and the name the move is limited to ("" for everyone there).
type moveKey struct {
	from string
	name string
}

// Limits of the move registry.
const (
	// MaxMovesPerAccount bounds the registry of one account, which lives in
	// memory. Registering a move again for the same address and name
	// replaces it and does not count twice.
	MaxMovesPerAccount = 1000
	// maxForwardHops bounds the chain of moves followed (A to B, B to C).
	maxForwardHops = 10
)

// Process runs NCOA (recipient only, when asked), then CASS when asked
// (cass.Process), and maps the outcome onto the party.
func (p *builtinProcessor) Process(_ context.Context, req AddressRequest) (AddressResult, error) {
	party := req.Party
	party.AddressAnalysis, party.AddressMetadata, party.AddressCorrections = nil, nil, nil
	var corrections []AddressCorrection
	if req.NCOA && req.Role == RoleRecipient {
		if to, ok := p.forwarding(req.Account, party); ok {
			corrections = append(corrections, changes("ncoa.", [][3]string{
				{"addressLine1", party.Address.AddressLine1, to.Address.AddressLine1},
				{"addressLine2", party.Address.AddressLine2, to.Address.AddressLine2},
				{"lastLine", party.Address.LastLine, to.Address.LastLine},
			})...)
			party.Address, party.AddressComponents = to.Address, to.AddressComponents
		}
	}
	in, lastErr := uspsAddress(party)
	if req.CASS == nil {
		party.AddressComponents = &AddressComponents{
			CassType: CassNone, Urbanization: in.Urbanization, City: in.City, State: in.State,
			ZipCode: in.ZIP, Plus4Code: in.Plus4,
		}
		party.AddressCorrections = corrections
		return AddressResult{Party: party}, nil
	}
	casing, ok := usps.ParseCasing(string(req.CASS.Casing))
	if !ok {
		casing = usps.Proper
	}
	a := cass.Process(cass.Input{
		Address: in, LastLineErr: lastErr, Casing: casing,
		Business: party.Individual == nil && party.Organization != "",
	})
	out := a.Address
	lastLine := out.LastLine()
	if lastErr != nil && !a.Test {
		// Unreadable: the last line stays as written.
		lastLine = party.Address.LastLine
	}
	corrections = append(corrections, changes("", [][3]string{
		{"addressLine1", party.Address.AddressLine1, out.Line1},
		{"addressLine2", party.Address.AddressLine2, out.Line2},
		{"lastLine", party.Address.LastLine, lastLine},
		{"city", in.City, out.City},
		{"state", in.State, out.State},
		{"zipCode", in.ZIP, out.ZIP},
		{"plus4Code", in.Plus4, out.Plus4},
		{"urbanization", in.Urbanization, out.Urbanization},
	})...)
	party.Address = Address{AddressLine1: out.Line1, AddressLine2: out.Line2, LastLine: lastLine}
	party.AddressComponents = &AddressComponents{
		CassType: req.CASS.Type, Urbanization: out.Urbanization, City: out.City, State: out.State,
		ZipCode: out.ZIP, Plus4Code: out.Plus4,
	}
	analysis, metadata := AddressAnalysis(a.Analysis), AddressMetadata(a.Metadata)
	party.AddressAnalysis, party.AddressMetadata = &analysis, &metadata
	party.AddressCorrections = corrections
	return AddressResult{Party: party, Deliverability: deliverabilityOf(analysis), Reason: a.Reason}, nil
}

// changes lists the fields whose value changed, each {name, input, corrected}.
func changes(prefix string, fields [][3]string) []AddressCorrection {
	var out []AddressCorrection
	for _, f := range fields {
		if f[1] != f[2] {
			out = append(out, AddressCorrection{Name: prefix + f[0], Input: f[1], Corrected: f[2]})
		}
	}
	return out
}

// uspsAddress reads a party's address into parts: the last line parsed, or
// when it cannot be read, the parts given separately.
func uspsAddress(p Party) (usps.Address, error) {
	a := usps.Address{Line1: p.Address.AddressLine1, Line2: p.Address.AddressLine2}
	var given AddressComponents
	if p.AddressComponents != nil {
		given = *p.AddressComponents
	}
	a.Urbanization = given.Urbanization
	ll, err := usps.ParseLastLine(p.Address.LastLine)
	if err != nil {
		if given.City == "" || given.State == "" {
			return a, err
		}
		ll = usps.LastLine{City: given.City, State: given.State, ZIP: given.ZipCode, Plus4: given.Plus4Code}
	}
	a.City, a.State, a.ZIP, a.Plus4 = ll.City, ll.State, ll.ZIP, ll.Plus4
	if a.Plus4 == "" {
		a.Plus4 = given.Plus4Code
	}
	return a, nil
}

// deliverabilityOf turns delivery point validation into a deliverability.
func deliverabilityOf(a AddressAnalysis) Deliverability {
	switch a.DpvMatchCode {
	case cass.DPVConfirmed:
		return Deliverable
	case cass.DPVDefault:
		return DeliverableMissingUnit
	case cass.DPVSecondaryUnknown:
		if slices.Contains(a.DpvFootnotes, "C1") {
			return DeliverableIncorrectUnit
		}
		return DeliverableUnnecessaryUnit
	}
	return Undeliverable
}

// deliverabilityThresholds are the values each threshold accepts.
var deliverabilityThresholds = map[DeliverabilityThreshold][]Deliverability{
	ThresholdStrict:  {Deliverable},
	ThresholdNormal:  {Deliverable, DeliverableUnnecessaryUnit, DeliverableIncorrectUnit},
	ThresholdRelaxed: {Deliverable, DeliverableUnnecessaryUnit, DeliverableIncorrectUnit, DeliverableMissingUnit},
}

// deliverabilityIssue returns why a recipient processed as r may not be
// mailed under opts, or "" when it may. An address that was not analysed
// has no deliverability and is never refused: a threshold or a list of
// values without CASS on the recipient has no effect. Values, when given,
// decide instead of the threshold, whose default is normal.
func deliverabilityIssue(opts LetterOptions, r AddressResult) string {
	d := r.Deliverability
	if d == "" {
		return ""
	}
	accepted := deliverabilityThresholds[ThresholdNormal]
	how := "the deliverability threshold normal"
	if len(opts.DeliverabilityValues) > 0 {
		accepted = opts.DeliverabilityValues
		how = "deliverabilityValues"
	} else if t := opts.DeliverabilityThreshold; t != "" {
		accepted = deliverabilityThresholds[t]
		how = "the deliverability threshold " + string(t)
	}
	if slices.Contains(accepted, d) {
		return ""
	}
	why := ""
	if r.Reason != "" {
		why = " (" + r.Reason + ")"
	}
	return fmt.Sprintf("the recipient address is %s%s, which %s does not accept (it accepts %s)",
		d, why, how, joinEnum(accepted))
}

// RegisterMove validates m and adds it to the account's registry.
func (p *builtinProcessor) RegisterMove(_ context.Context, account string, m Move) error {
	f := fieldErrors{}
	from, fromOK := moveAddress(f, "from", m.From)
	to, toOK := moveAddress(f, "to", m.To)
	maxLen(f, "name", m.Name, maxNameField)
	if fromOK && toOK && cass.DeliveryKey(from) == cass.DeliveryKey(to) {
		f.add("to", "to is the same address as from")
	}
	if err := f.err(); err != nil {
		return err
	}
	key := moveKey{from: cass.DeliveryKey(from), name: cass.NameKey(m.Name)}
	p.mu.Lock()
	defer p.mu.Unlock()
	reg := p.moves[account]
	if reg == nil {
		reg = map[moveKey]Move{}
		p.moves[account] = reg
	}
	if _, exists := reg[key]; !exists && len(reg) >= MaxMovesPerAccount {
		return errorf(CodeConflict, "the account already has %d moves registered, the most it can hold", MaxMovesPerAccount)
	}
	reg[key] = m
	return nil
}

// moveAddress checks one address of a move: present, within the limits of
// a letter's address, with a readable last line and a ZIP Code.
func moveAddress(f fieldErrors, path string, a AddressInput) (usps.Address, bool) {
	n := len(f)
	if strings.TrimSpace(a.AddressLine1) == "" {
		f.add(path+".addressLine1", "addressLine1 can not be empty")
	}
	for name, v := range map[string]string{
		"addressLine1": a.AddressLine1, "addressLine2": a.AddressLine2, "lastLine": a.LastLine,
		"city": a.City, "urbanization": a.Urbanization,
	} {
		maxLen(f, path+"."+name, v, maxAddressLine)
	}
	maxLen(f, path+".state", a.State, 2)
	maxLen(f, path+".zipCode", a.ZipCode, 5)
	maxLen(f, path+".plus4Code", a.Plus4Code, 4)
	p := partyOf(&PartyInput{Address: a})
	addr, err := uspsAddress(p)
	switch {
	case err != nil:
		f.add(path+".lastLine", "the last line could not be read: %v", err)
	case addr.ZIP == "":
		f.add(path+".lastLine", "a ZIP Code is required")
	}
	return addr, len(f) == n
}

// ncoaTestForward is where the NCOA test address forwards to.
var ncoaTestForward = AddressInput{AddressLine1: cass.NCOATestForward[0], LastLine: cass.NCOATestForward[1]}

// forwarding returns the party at its new address when it has moved: the
// NCOA test address, or the account's registered moves, followed from move
// to move.
func (p *builtinProcessor) forwarding(account string, party Party) (Party, bool) {
	if cass.TestKey(party.Address.AddressLine1) == cass.NCOATestLine {
		return p.moved(party, ncoaTestForward), true
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	reg := p.moves[account]
	if len(reg) == 0 {
		return party, false
	}
	names := []string{""}
	if party.Individual != nil {
		names = append([]string{cass.NameKey(party.Individual.FullName)}, names...)
	}
	if party.Organization != "" {
		names = append([]string{cass.NameKey(party.Organization)}, names...)
	}
	current, moved := party, false
	seen := map[string]bool{}
	for hop := 0; hop < maxForwardHops; hop++ {
		addr, err := uspsAddress(current)
		if err != nil {
			break
		}
		from := cass.DeliveryKey(addr)
		if seen[from] {
			break
		}
		seen[from] = true
		m, ok := lookupMove(reg, from, names)
		if !ok {
			break
		}
		current, moved = p.moved(current, m.To), true
	}
	return current, moved
}

func lookupMove(reg map[moveKey]Move, from string, names []string) (Move, bool) {
	for _, n := range names {
		if m, ok := reg[moveKey{from: from, name: n}]; ok {
			return m, true
		}
	}
	return Move{}, false
}

// moved returns party with its address replaced by to.
func (p *builtinProcessor) moved(party Party, to AddressInput) Party {
	np := partyOf(&PartyInput{Address: to})
	party.Address, party.AddressComponents = np.Address, np.AddressComponents
	return party
}
