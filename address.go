package lettershop

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

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

// MoveRegistry is implemented by an AddressProcessor that takes the moves
// NCOA forwards recipients by; Service.RegisterMove hands moves to it.
type MoveRegistry interface {
	RegisterMove(ctx context.Context, account string, m Move) error
}

// NewAddressProcessor returns the built-in address processor. It
// standardizes by USPS Publication 28 (package usps), simulates delivery
// point validation deterministically (see docs/addresses.md for the rules
// and the test addresses), and keeps a per-account registry of moves for
// NCOA, in memory. It implements MoveRegistry.
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

// Process runs NCOA (recipient only, when asked), then CASS when asked: a
// test address (docs/addresses.md) gives its fixed result; any other is
// standardized and analysed by the rules of package usps.
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
	var a analysed
	if t, ok := testAddresses[testKey(party.Address.AddressLine1)]; ok {
		a = t.result(casing)
	} else {
		a = analyse(in, lastErr, casing, party)
	}
	out := a.addr
	lastLine := out.LastLine()
	if lastErr != nil && !a.test {
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
	party.AddressAnalysis, party.AddressMetadata = &a.analysis, &a.metadata
	party.AddressCorrections = corrections
	return AddressResult{Party: party, Deliverability: deliverabilityOf(a.analysis), Reason: a.reason}, nil
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

// analysed is the outcome of CASS on one address.
type analysed struct {
	addr     usps.Address
	analysis AddressAnalysis
	metadata AddressMetadata
	reason   string
	// test is set when the outcome is a test address's fixed one.
	test bool
}

// The DPV match codes.
const (
	dpvConfirmed        = "Y" // primary and secondary (if any) confirmed
	dpvSecondaryUnknown = "S" // primary confirmed, the secondary given was not
	dpvDefault          = "D" // primary confirmed, the secondary it needs is missing
	dpvNotConfirmed     = "N" // not a delivery point
)

// confirmedReason is the reason given for a confirmed delivery point, test
// address or not.
const confirmedReason = "the address is a confirmed delivery point"

// analyse standardizes an address and simulates its delivery point
// validation from what the rules can see (usps.Check): a fault of the last
// line or the ZIP Code, or a missing house or box number, is not a delivery
// point (N); a multi-unit building without a unit reaches only the building
// (D); anything else is taken to be a confirmed delivery point (Y), since
// without a postal database nothing can show it is not.
func analyse(in usps.Address, lastErr error, c usps.Casing, party Party) analysed {
	std := usps.Standardize(in, c)
	line := usps.DeliveryLineOf(std)
	a := analysed{addr: std}
	h := hashOf(std)
	problems := usps.Check(std)
	var first *usps.Problem
	if len(problems) > 0 {
		first = &problems[0]
	}
	switch {
	case lastErr != nil:
		a.analysis = notMatched("A1")
		a.reason = "the last line could not be read: " + lastErr.Error()
		return a
	case first != nil && first.Code == usps.ProblemNoPrimary:
		a.analysis = notMatched("A1", "M1")
	case first != nil && first.Code == usps.ProblemNoBox:
		a.analysis = notMatched("A1", "P1")
	case first != nil && (first.Code == usps.ProblemNoUnitNumber || first.Code == usps.ProblemBuildingNoApt):
		a.analysis = matched(dpvDefault, "AA", "N1")
	case first != nil:
		a.analysis = notMatched("A1")
	default:
		a.analysis = matched(dpvConfirmed, "AA", "BB")
	}
	if first != nil {
		a.reason = first.Message
	} else {
		a.reason = confirmedReason
	}
	if a.analysis.DpvMatchCode == dpvNotConfirmed {
		// Only what the ZIP Code tells is known of an address not found.
		if first == nil || first.Code == usps.ProblemNoPrimary || first.Code == usps.ProblemNoBox || first.Code == usps.ProblemNoStreet {
			a.metadata = AddressMetadata{ZipCodeType: "standard", TimeZone: usps.TimeZoneOf(std.State, std.ZIP)}
		}
		return a
	}
	if line.PMB != "" {
		a.analysis.DpvCmra = "Y"
		a.analysis.DpvFootnotes = append(a.analysis.DpvFootnotes, "RR")
	}
	switch line.Kind {
	case usps.LineMilitary:
		a.analysis.DpvFootnotes = append(a.analysis.DpvFootnotes, "F1")
	case usps.LineGeneralDelivery:
		a.analysis.DpvFootnotes = append(a.analysis.DpvFootnotes, "G1")
	}
	if a.addr.Plus4 == "" {
		a.addr.Plus4 = fmt.Sprintf("%04d", 1+h%9999)
	}
	a.metadata = simulatedMetadata(a.addr, line, party, h, a.analysis.DpvMatchCode == dpvDefault)
	return a
}

// matched is the analysis of a delivery point that was found.
func matched(code string, footnotes ...string) AddressAnalysis {
	return AddressAnalysis{
		DpvMatchCode: code, DpvFootnotes: slices.Clone(footnotes), DpvCmra: "N", DpvVacant: "N", DpvNoStat: "N",
		DpvActive: "Y", DpvThrowback: "N", DpvNonDeliveryDayIndicator: "N", DpvNoSecureLocation: "N",
		DpvDoorNotAccessible: "N",
	}
}

// notMatched is the analysis of an address that is not a delivery point:
// the delivery point flags do not apply and are left empty.
func notMatched(footnotes ...string) AddressAnalysis {
	return AddressAnalysis{DpvMatchCode: dpvNotConfirmed, DpvFootnotes: slices.Clone(footnotes), DpvActive: "N"}
}

// commercialUnits are unit designators found in business buildings.
var commercialUnits = map[string]bool{"STE": true, "OFC": true, "DEPT": true, "FL": true, "RM": true, "HNGR": true, "LBBY": true}

// simulatedMetadata fills the metadata a postal database would give, from
// what is known (state, ZIP Code, line kind) and, for what is not (carrier
// route, eLOT, district), from a hash of the address, so the same address
// always gets the same values.
func simulatedMetadata(a usps.Address, line usps.DeliveryLine, party Party, h uint64, defaultBuilding bool) AddressMetadata {
	st, _ := usps.LookupState(a.State)
	m := AddressMetadata{
		RecordType: "street", AddressType: "residential", ZipCodeType: "standard",
		CarrierRoute: fmt.Sprintf("C%03d", 1+h%99), CarrierRouteType: "cityDelivery",
		DefaultBuildingAddress: defaultBuilding,
		ElotSequence:           fmt.Sprintf("%04d", 1+(h>>8)%9999), ElotSort: "A",
		Latitude: st.Lat, Longitude: st.Lon, Precision: "state",
		TimeZone: usps.TimeZoneOf(a.State, a.ZIP),
	}
	if (h>>20)%2 == 1 {
		m.ElotSort = "D"
	}
	if st.FIPS != "" && len(a.ZIP) == 5 {
		m.UspsFinanceNumber = st.FIPS + fmt.Sprintf("%04d", (h>>24)%10000)
	}
	switch {
	case st.Districts == 1:
		m.CongressionalDistrict = "AL"
	case st.Districts > 1:
		m.CongressionalDistrict = fmt.Sprintf("%02d", 1+(h>>32)%uint64(st.Districts))
	case st.Kind == usps.KindDistrict || st.Kind == usps.KindTerritory:
		m.CongressionalDistrict = "98"
	}
	if line.HasUnit() || defaultBuilding {
		m.RecordType = "highrise"
	}
	for _, s := range line.Secondaries {
		if commercialUnits[s.Designator] {
			m.AddressType = "commercial"
		}
	}
	if party.Individual == nil && party.Organization != "" {
		m.AddressType = "commercial"
	}
	switch line.Kind {
	case usps.LinePOBox:
		m.RecordType, m.CarrierRouteType = "poBox", "poBox"
		m.CarrierRoute = fmt.Sprintf("B%03d", 1+h%99)
	case usps.LineRuralRoute:
		m.RecordType, m.CarrierRouteType = "ruralRoute", "ruralRoute"
		m.CarrierRoute = "R" + routeNumber(line.RouteNumber)
	case usps.LineHighwayContract:
		m.RecordType, m.CarrierRouteType = "ruralRoute", "highwayContract"
		m.CarrierRoute = "H" + routeNumber(line.RouteNumber)
	case usps.LineGeneralDelivery:
		m.RecordType, m.CarrierRouteType, m.CarrierRoute = "generalDelivery", "generalDelivery", "G001"
	}
	if st.Kind == usps.KindMilitary {
		m.ZipCodeType, m.Precision = "military", ""
	}
	return m
}

// routeNumber writes a route number as the three digits of a carrier route.
func routeNumber(n string) string {
	if len(n) <= 3 && n != "" && strings.Trim(n, "0123456789") == "" {
		return strings.Repeat("0", 3-len(n)) + n
	}
	return "001"
}

// hashOf is a stable hash of a standardized address, the seed of everything
// simulated about it. It reads the address in upper case, so both casings
// get the same values.
func hashOf(a usps.Address) uint64 {
	h := fnv.New64a()
	for _, s := range []string{a.Line1, a.Line2, a.City, a.State, a.ZIP} {
		h.Write([]byte(strings.ToUpper(s)))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// deliverabilityOf turns delivery point validation into a deliverability.
func deliverabilityOf(a AddressAnalysis) Deliverability {
	switch a.DpvMatchCode {
	case dpvConfirmed:
		return Deliverable
	case dpvDefault:
		return DeliverableMissingUnit
	case dpvSecondaryUnknown:
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

// Move is a change of address filed with the postal service, used by NCOA:
// a recipient at From (compared after standardization: delivery line and
// ZIP Code) is forwarded to To. Name, when set, limits the move to a
// recipient of that name (individual full name or organization, in any
// case); without it everyone at From has moved.
//
// JSON: {"name": "Jane Doe", "from": {"addressLine1": "...", "lastLine":
// "..."}, "to": {...}}, the addresses in the form a letter's are given.
type Move struct {
	Name string       `json:"name,omitempty"`
	From AddressInput `json:"from"`
	To   AddressInput `json:"to"`
}

// RegisterMove records a move for NCOA in the account, for letters created
// (or whose recipient is updated) after it. A move registered again for the
// same address and name replaces the earlier one. It is a CodeConflict when
// the Service's address processor does not take moves (see MoveRegistry),
// and CodeInvalid, naming the field (from.lastLine, name), when the move is
// not usable.
func (s *Service) RegisterMove(ctx context.Context, account string, m Move) error {
	r, ok := s.address.(MoveRegistry)
	if !ok {
		return errorf(CodeConflict, "the address processor in use does not take moves (it is not a lettershop.MoveRegistry), so NCOA moves cannot be registered")
	}
	return r.RegisterMove(ctx, account, m)
}

// RegisterMove validates m and adds it to the account's registry.
func (p *builtinProcessor) RegisterMove(_ context.Context, account string, m Move) error {
	f := fieldErrors{}
	from, fromOK := moveAddress(f, "from", m.From)
	to, toOK := moveAddress(f, "to", m.To)
	maxLen(f, "name", m.Name, maxNameField)
	if fromOK && toOK && deliveryKey(from) == deliveryKey(to) {
		f.add("to", "to is the same address as from")
	}
	if err := f.err(); err != nil {
		return err
	}
	key := moveKey{from: deliveryKey(from), name: nameKey(m.Name)}
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

// deliveryKey is where an address delivers: its delivery line in standard
// form and its ZIP Code.
func deliveryKey(a usps.Address) string {
	std := usps.Standardize(a, usps.Upper)
	return usps.DeliveryLineOf(std).Format(usps.Upper) + "|" + std.ZIP
}

// nameKey compares names in any case and spacing.
func nameKey(s string) string { return strings.Join(strings.Fields(strings.ToUpper(s)), " ") }

// ncoaTestLine is the addressLine1 that always forwards, when NCOA is on.
const ncoaTestLine = "ncoa"

// ncoaTestForward is where the NCOA test address forwards to.
var ncoaTestForward = AddressInput{AddressLine1: "300 S 2nd St", LastLine: "Springfield IL 62701"}

// forwarding returns the party at its new address when it has moved: the
// NCOA test address, or the account's registered moves, followed from move
// to move.
func (p *builtinProcessor) forwarding(account string, party Party) (Party, bool) {
	if testKey(party.Address.AddressLine1) == ncoaTestLine {
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
		names = append([]string{nameKey(party.Individual.FullName)}, names...)
	}
	if party.Organization != "" {
		names = append([]string{nameKey(party.Organization)}, names...)
	}
	current, moved := party, false
	seen := map[string]bool{}
	for hop := 0; hop < maxForwardHops; hop++ {
		addr, err := uspsAddress(current)
		if err != nil {
			break
		}
		from := deliveryKey(addr)
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

// testKey is an addressLine1 as compared with the test addresses.
func testKey(line string) string { return strings.Join(strings.Fields(strings.ToLower(line)), " ") }

// testAddress is an addressLine1 that, like the real service's test mode,
// always gives one outcome, with a fixed address in Springfield, Illinois
// (or elsewhere where the outcome needs it).
type testAddress struct {
	addr      usps.Address
	match     string
	footnotes []string
	reason    string
	meta      AddressMetadata
}

// springfield is the metadata shared by the test addresses in Springfield, IL.
func springfield(recordType, addressType, route string, lat, lon float64) AddressMetadata {
	return AddressMetadata{
		RecordType: recordType, AddressType: addressType, ZipCodeType: "standard", County: "SANGAMON",
		CountyFips: "17167", CarrierRoute: route, CarrierRouteType: "cityDelivery", CongressionalDistrict: "13",
		ElotSequence: "0042", ElotSort: "A", Latitude: lat, Longitude: lon, Precision: "deliverablePoint",
		UspsFinanceNumber: "167380", TimeZone: "America/Chicago",
	}
}

// testAddresses are the documented test addresses (docs/addresses.md), by
// addressLine1 in lower case.
var testAddresses = map[string]testAddress{
	"deliverable": {
		addr:  usps.Address{Line1: "1 OLD STATE CAPITOL PLZ", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1507"},
		match: dpvConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: springfield("street", "commercial", "C007", 39.80151, -89.64952),
	},
	"missing unit": {
		addr:  usps.Address{Line1: "500 E CAPITOL AVE", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1000"},
		match: dpvDefault, footnotes: []string{"AA", "N1"},
		reason: "the address is a building with several units and no apartment or suite number was given",
		meta:   springfield("highrise", "residential", "C012", 39.79996, -89.64673),
	},
	"incorrect unit": {
		addr:  usps.Address{Line1: "500 E CAPITOL AVE APT 9999", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1000"},
		match: dpvSecondaryUnknown, footnotes: []string{"AA", "BB", "C1"},
		reason: "the building was found but it has no unit APT 9999",
		meta:   springfield("highrise", "residential", "C012", 39.79996, -89.64673),
	},
	"unnecessary unit": {
		addr:  usps.Address{Line1: "742 EVERGREEN TER APT 2", City: "SPRINGFIELD", State: "IL", ZIP: "62704", Plus4: "1234"},
		match: dpvSecondaryUnknown, footnotes: []string{"AA", "BB", "CC"},
		reason: "the address is a single delivery point and needs no unit number",
		meta:   springfield("street", "residential", "C031", 39.78112, -89.68861),
	},
	"undeliverable block match": {
		addr:  usps.Address{Line1: "9999 N MAIN ST", City: "SPRINGFIELD", State: "IL", ZIP: "62702", Plus4: "4401"},
		match: dpvNotConfirmed, footnotes: []string{"AA", "M3"},
		reason: "the street was found but the house number 9999 is not a delivery point on it",
		meta: func() AddressMetadata {
			m := springfield("street", "", "C019", 39.83307, -89.65021)
			m.Precision, m.ElotSequence, m.ElotSort = "zip9", "", ""
			return m
		}(),
	},
	"undeliverable no match": {
		addr:  usps.Address{Line1: "1 NOWHERE LN", City: "SPRINGFIELD", State: "IL", ZIP: "62701"},
		match: dpvNotConfirmed, footnotes: []string{"A1"},
		reason: "the address was not found",
		meta:   AddressMetadata{ZipCodeType: "standard", TimeZone: "America/Chicago"},
	},
	"residential house": {
		addr:  usps.Address{Line1: "742 EVERGREEN TER", City: "SPRINGFIELD", State: "IL", ZIP: "62704", Plus4: "1234"},
		match: dpvConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: springfield("street", "residential", "C031", 39.78112, -89.68861),
	},
	"commercial highrise": {
		addr:  usps.Address{Line1: "500 E CAPITOL AVE STE 1200", City: "SPRINGFIELD", State: "IL", ZIP: "62701", Plus4: "1212"},
		match: dpvConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: springfield("highrise", "commercial", "C012", 39.79996, -89.64673),
	},
	"po box": {
		addr:  usps.Address{Line1: "PO BOX 19276", City: "SPRINGFIELD", State: "IL", ZIP: "62794", Plus4: "9276"},
		match: dpvConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: func() AddressMetadata {
			m := springfield("poBox", "residential", "B001", 39.80172, -89.64371)
			m.ZipCodeType, m.CarrierRouteType, m.Precision = "poBox", "poBox", "zip9"
			return m
		}(),
	},
	"rural route": {
		addr:  usps.Address{Line1: "RR 2 BOX 45", City: "CHATHAM", State: "IL", ZIP: "62629", Plus4: "9802"},
		match: dpvConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: func() AddressMetadata {
			m := springfield("ruralRoute", "residential", "R002", 39.67612, -89.70426)
			m.CarrierRouteType, m.UspsFinanceNumber = "ruralRoute", "161400"
			return m
		}(),
	},
	"military": {
		addr:  usps.Address{Line1: "UNIT 2050 BOX 4190", City: "APO", State: "AP", ZIP: "96278", Plus4: "4190"},
		match: dpvConfirmed, footnotes: []string{"AA", "BB", "F1"}, reason: confirmedReason,
		meta: AddressMetadata{
			RecordType: "street", AddressType: "residential", ZipCodeType: "military", CarrierRoute: "C001",
			CarrierRouteType: "cityDelivery", ElotSequence: "0001", ElotSort: "A",
		},
	},
	"puerto rico": {
		addr: usps.Address{Line1: "150 CALLE A", Urbanization: "URB LAS GLADIOLAS", City: "SAN JUAN", State: "PR",
			ZIP: "00926", Plus4: "3232"},
		match: dpvConfirmed, footnotes: []string{"AA", "BB"}, reason: confirmedReason,
		meta: AddressMetadata{
			RecordType: "street", AddressType: "residential", ZipCodeType: "standard", County: "SAN JUAN",
			CountyFips: "72127", CarrierRoute: "C027", CarrierRouteType: "cityDelivery", CongressionalDistrict: "98",
			ElotSequence: "0118", ElotSort: "D", Latitude: 18.36929, Longitude: -66.05619,
			Precision: "deliverablePoint", UspsFinanceNumber: "720960", TimeZone: "America/Puerto_Rico",
		},
	},
}

// result is the fixed outcome of a test address, in casing c.
func (t testAddress) result(c usps.Casing) analysed {
	a := analysed{addr: usps.Standardize(t.addr, c), reason: t.reason, test: true, metadata: t.meta}
	if t.match == dpvNotConfirmed {
		a.analysis = notMatched(t.footnotes...)
		return a
	}
	a.analysis = matched(t.match, t.footnotes...)
	a.metadata.DefaultBuildingAddress = t.match == dpvDefault
	return a
}
