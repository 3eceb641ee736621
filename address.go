package lettershop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lettershop/lettershop/cass"
	"github.com/lettershop/lettershop/ncoa"
	"github.com/lettershop/lettershop/storage"
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

// The deliverability values, cass's verdicts (cass.Deliverability).
const (
	Deliverable                Deliverability = cass.Deliverable
	DeliverableMissingUnit     Deliverability = cass.DeliverableMissingUnit
	DeliverableIncorrectUnit   Deliverability = cass.DeliverableIncorrectUnit
	DeliverableUnnecessaryUnit Deliverability = cass.DeliverableUnnecessaryUnit
	Undeliverable              Deliverability = cass.Undeliverable
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
// of moves for NCOA, in memory (package ncoa). It implements MoveRegistry.
// A Service given no processor has this one, but keeps the moves in its
// store when the store is a storage.MoveStorage (pgstore), so that the
// servers sharing the store forward by the same moves.
func NewAddressProcessor() AddressProcessor {
	return builtinProcessor{p: ncoa.New()}
}

// newAddressProcessor is NewAddressProcessor for a Service on store.
func newAddressProcessor(store storage.Storage) AddressProcessor {
	b := builtinProcessor{p: ncoa.New()}
	b.moves, _ = store.(storage.MoveStorage)
	return b
}

// builtinProcessor is the processor of NewAddressProcessor: it maps a
// party to package ncoa's request and the result back onto the party.
// With moves, the moves are the store's, which every server sharing it
// registers into and forwards by.
type builtinProcessor struct {
	p     *ncoa.Processor
	moves storage.MoveStorage
}

// MaxMovesPerAccount bounds the registry of moves of one account of the
// built-in address processor. Registering a move
// again for the same address and name replaces it and does not count twice.
const MaxMovesPerAccount = ncoa.MaxMovesPerAccount

// Process runs NCOA (recipient only, when asked), then CASS when asked,
// and maps the outcome onto the party.
func (b builtinProcessor) Process(ctx context.Context, req AddressRequest) (AddressResult, error) {
	party := req.Party
	in := ncoa.Request{
		Account: req.Account, Address: givenAddress(party.Address, party.AddressComponents),
		Organization: party.Organization, Business: party.Individual == nil && party.Organization != "",
		Forward: req.NCOA && req.Role == RoleRecipient,
	}
	if party.Individual != nil {
		in.Individual = party.Individual.FullName
	}
	cassType := CassNone
	if req.CASS != nil {
		casing, ok := usps.ParseCasing(string(req.CASS.Casing))
		if !ok {
			casing = usps.Proper
		}
		in.CASS, in.Casing, cassType = true, casing, req.CASS.Type
	}
	if in.Forward && b.moves != nil {
		stored, err := b.moves.Moves(ctx, req.Account)
		if err != nil {
			return AddressResult{}, storeErr("read the moves", err)
		}
		if in.Moves, err = ncoa.ReadStored(stored); err != nil {
			return AddressResult{}, internal("read the moves", err)
		}
	}
	r := b.p.Process(in)
	a := r.Address
	party.Address = Address{AddressLine1: a.Line1, AddressLine2: a.Line2, LastLine: a.LastLine}
	party.AddressComponents = &AddressComponents{
		CassType: cassType, Urbanization: a.Urbanization, City: a.City, State: a.State, ZipCode: a.ZIP, Plus4Code: a.Plus4,
	}
	party.AddressAnalysis, party.AddressMetadata, party.AddressCorrections = nil, nil, nil
	if len(r.Corrections) > 0 {
		party.AddressCorrections = make([]AddressCorrection, len(r.Corrections))
		for i, c := range r.Corrections {
			party.AddressCorrections[i] = AddressCorrection(c)
		}
	}
	if req.CASS == nil {
		return AddressResult{Party: party}, nil
	}
	analysis, metadata := AddressAnalysis(r.Analysis), AddressMetadata(r.Metadata)
	party.AddressAnalysis, party.AddressMetadata = &analysis, &metadata
	return AddressResult{Party: party, Deliverability: Deliverability(r.Deliverability), Reason: r.Reason}, nil
}

// givenAddress is an address as package ncoa takes it: the lines, and the
// parts given separately, if any.
func givenAddress(a Address, parts *AddressComponents) ncoa.Address {
	out := ncoa.Address{Line1: a.AddressLine1, Line2: a.AddressLine2, LastLine: a.LastLine}
	if parts != nil {
		out.Urbanization, out.City, out.State, out.ZIP, out.Plus4 = parts.Urbanization, parts.City, parts.State, parts.ZipCode, parts.Plus4Code
	}
	return out
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

// RegisterMove checks m (the limits of a letter's address, a readable
// last line with a ZIP Code, two different addresses) and adds it to the
// account's registry.
func (b builtinProcessor) RegisterMove(ctx context.Context, account string, m Move) error {
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
	move := ncoa.Move{Name: m.Name, From: moveGiven(m.From), To: moveGiven(m.To)}
	var err error
	if b.moves == nil {
		err = b.p.Register(account, move)
	} else {
		err = b.putMove(ctx, account, move)
	}
	if errors.Is(err, ncoa.ErrFull) {
		return errorf(CodeConflict, "the account already has %d moves registered, the most it can hold", MaxMovesPerAccount)
	}
	return err
}

// putMove registers m in the store; ncoa.ErrFull when the account holds
// the most moves it can.
func (b builtinProcessor) putMove(ctx context.Context, account string, m ncoa.Move) error {
	key, err := ncoa.Key(m)
	if err != nil {
		return err
	}
	err = b.moves.PutMove(ctx, account, key, ncoa.Stored(m), MaxMovesPerAccount)
	if errors.Is(err, storage.ErrLimit) {
		return ncoa.ErrFull
	}
	return storeErr("register a move", err)
}

// ForgetMoves implements MoveForgetter.
func (b builtinProcessor) ForgetMoves(_ context.Context, account string) error {
	b.p.Forget(account)
	return nil
}

// moveGiven is an address of a move as package ncoa takes it, its last
// line composed from its parts when given in parts, as a letter's is.
func moveGiven(a AddressInput) ncoa.Address {
	p := partyOf(&PartyInput{Address: a})
	return givenAddress(p.Address, p.AddressComponents)
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
	addr, err := ncoa.Read(moveGiven(a))
	switch {
	case err != nil:
		f.add(path+".lastLine", "the last line could not be read: %v", err)
	case addr.ZIP == "":
		f.add(path+".lastLine", "a ZIP Code is required")
	}
	return addr, len(f) == n
}
