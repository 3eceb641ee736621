package lettershop

import (
	"context"
	"strings"
)

// AddressComponents are the parsed parts of an address. CassType is "basic"
// when the address was standardized, "none" when it was not.
type AddressComponents struct {
	CassType     string `json:"cassType"`
	Urbanization string `json:"urbanization,omitempty"`
	City         string `json:"city,omitempty"`
	State        string `json:"state,omitempty"`
	ZipCode      string `json:"zipCode,omitempty"`
	Plus4Code    string `json:"plus4Code,omitempty"`
}

// AddressAnalysis is the delivery point validation (DPV) of an address.
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

// AddressMetadata describes the delivery point of an address.
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
	Deliverable                = Deliverability("deliverable")
	DeliverableMissingUnit     = Deliverability("deliverableMissingUnit")
	DeliverableIncorrectUnit   = Deliverability("deliverableIncorrectUnit")
	DeliverableUnnecessaryUnit = Deliverability("deliverableUnnecessaryUnit")
	Undeliverable              = Deliverability("undeliverable")
)

// PartyRole says which party of a letter an address belongs to.
type PartyRole string

// The party roles.
const (
	RoleSender    = PartyRole("sender")
	RoleRecipient = PartyRole("recipient")
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
// deliverability ("" when the address was not analysed).
type AddressResult struct {
	Party          Party
	Deliverability Deliverability
}

// AddressProcessor standardizes addresses (CASS), forwards moved recipients
// (NCOA) and judges deliverability. Implementations must be deterministic
// for a given input and safe for concurrent use; an error fails the request
// as an internal error.
type AddressProcessor interface {
	Process(ctx context.Context, req AddressRequest) (AddressResult, error)
}

// NewAddressProcessor returns the built-in address processor.
func NewAddressProcessor() AddressProcessor { return builtinProcessor{} }

type builtinProcessor struct{}

// Process fills the components from what was given and leaves the address
// unstandardized.
func (builtinProcessor) Process(_ context.Context, req AddressRequest) (AddressResult, error) {
	p := req.Party
	if p.AddressComponents == nil {
		p.AddressComponents = &AddressComponents{}
	}
	p.AddressComponents.CassType = "none"
	if req.CASS != nil {
		p.AddressComponents.CassType = req.CASS.Type
	}
	var d Deliverability
	if req.CASS != nil && req.Role == RoleRecipient {
		d = Deliverable
	}
	return AddressResult{Party: p, Deliverability: d}, nil
}

// deliverabilityThresholds are the values each threshold accepts.
var deliverabilityThresholds = map[string][]Deliverability{
	"strict":  {Deliverable},
	"normal":  {Deliverable, DeliverableUnnecessaryUnit, DeliverableIncorrectUnit},
	"relaxed": {Deliverable, DeliverableUnnecessaryUnit, DeliverableIncorrectUnit, DeliverableMissingUnit},
}

// deliverabilityIssue returns why a recipient of deliverability d may not be
// mailed under opts, or "" when it may.
func deliverabilityIssue(opts LetterOptions, d Deliverability) string {
	if d == "" {
		return ""
	}
	accepted := deliverabilityThresholds["normal"]
	how := "the deliverability threshold normal"
	if len(opts.DeliverabilityValues) > 0 {
		accepted = nil
		for _, v := range opts.DeliverabilityValues {
			accepted = append(accepted, Deliverability(v))
		}
		how = "deliverabilityValues " + strings.Join(opts.DeliverabilityValues, ", ")
	} else if t := opts.DeliverabilityThreshold; t != "" {
		accepted = deliverabilityThresholds[t]
		how = "the deliverability threshold " + t
	}
	for _, a := range accepted {
		if a == d {
			return ""
		}
	}
	return "the recipient address is " + string(d) + ", which " + how + " does not accept"
}

// Move is a change of address filed with the postal service, used by NCOA:
// a recipient at From (matched after standardization) is forwarded to To.
// Name, when set, limits the move to a recipient of that name.
type Move struct {
	Name string       `json:"name,omitempty"`
	From AddressInput `json:"from"`
	To   AddressInput `json:"to"`
}

// RegisterMove records a move for NCOA in the account, for letters created
// after it.
func (s *Service) RegisterMove(ctx context.Context, account string, m Move) error {
	return errorf(CodeInternal, "not implemented")
}
