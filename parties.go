package lettershop

// The parties of a letter as given and as processed, and the checks of the
// letter's other fields: use type, send date and options.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/usps"
)

// processAddresses runs address processing on the parties given (nil: keep
// the stored one) and judges the recipient's deliverability.
func (s *Service) processAddresses(ctx context.Context, account string, l *Letter, sender, recipient *PartyInput) error {
	var cassS, cassR *CassOptions
	ncoa := false
	if ap := l.Options.AddressProcessing; ap != nil {
		cassS, cassR, ncoa = ap.CassSender, ap.CassRecipient, ap.NcoaRecipient == NcoaNewAddress
	}
	if sender != nil {
		rs, err := s.address.Process(ctx, AddressRequest{Account: account, Role: RoleSender, Party: partyOf(sender), CASS: cassS})
		if err != nil {
			return internal("process sender address", err)
		}
		l.Sender = rs.Party
	}
	if recipient != nil {
		rr, err := s.address.Process(ctx, AddressRequest{Account: account, Role: RoleRecipient, Party: partyOf(recipient), CASS: cassR, NCOA: ncoa})
		if err != nil {
			return internal("process recipient address", err)
		}
		l.Recipient = rr.Party
		l.IssueMessage = deliverabilityIssue(l.Options, rr)
	}
	return nil
}

// partyOf turns a party as given into a Party for processing: the last line
// composed from its parts when given in parts.
func partyOf(in *PartyInput) Party {
	a := in.Address
	p := Party{
		Address:        Address{AddressLine1: a.AddressLine1, AddressLine2: a.AddressLine2, LastLine: a.LastLine},
		Organization:   in.Organization,
		NonAddressData: in.NonAddressData,
		AddressComponents: &AddressComponents{
			CassType: CassNone, City: a.City, State: a.State, ZipCode: a.ZipCode,
			Plus4Code: a.Plus4Code, Urbanization: a.Urbanization,
		},
	}
	if in.Individual != nil {
		ind := shownIndividual(*in.Individual)
		p.Individual = &ind
	}
	if p.Address.LastLine == "" {
		p.Address.LastLine = composeLastLine(a)
	}
	return p
}

// shownIndividual is ind as letters show and print it: without a fullName,
// the one its parts make.
func shownIndividual(ind Individual) Individual {
	if ind.FullName == "" {
		ind.FullName = joinNonEmpty(" ", ind.Prefix, ind.FirstName, ind.MiddleName, ind.LastName, ind.Postfix)
	}
	return ind
}

// withoutMadeFullName is a party sent back in an update without the fullName
// the service made of the stored name's parts, which no client gave: left
// in, it would print over the parts the update changes (a fullName given
// wins over the parts). A stored fullName equal to its parts joined counts as
// made; one given otherwise, or sent back without parts, stays.
func withoutMadeFullName(in *PartyInput, stored Party) *PartyInput {
	if in == nil || in.Individual == nil || stored.Individual == nil {
		return in
	}
	got, was := *in.Individual, *stored.Individual
	if got.FullName == "" || got.FullName != was.FullName {
		return in
	}
	was.FullName, got.FullName = "", ""
	if shownIndividual(was).FullName != stored.Individual.FullName || shownIndividual(got).FullName == "" {
		return in
	}
	c := *in
	c.Individual = &got
	return &c
}

// composeLastLine is the last line of an address given in parts:
// "City, ST 12345-6789".
func composeLastLine(a AddressInput) string {
	zip := a.ZipCode
	if a.Plus4Code != "" {
		zip += "-" + a.Plus4Code
	}
	return joinNonEmpty(" ", joinNonEmpty(", ", a.City, a.State), zip)
}

// partyInputOf is the input that gives back p, for reprocessing a stored
// party whose address did not change.
func partyInputOf(p Party) *PartyInput {
	in := &PartyInput{
		Address:        AddressInput{AddressLine1: p.Address.AddressLine1, AddressLine2: p.Address.AddressLine2, LastLine: p.Address.LastLine},
		Individual:     p.Individual,
		Organization:   p.Organization,
		NonAddressData: p.NonAddressData,
	}
	if c := p.AddressComponents; c != nil {
		in.Address.Urbanization = c.Urbanization
	}
	return in
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// withoutCassDetails drops the bulky processing results lists leave out.
func (p *Party) withoutCassDetails() {
	p.AddressAnalysis, p.AddressCorrections, p.AddressMetadata = nil, nil, nil
}

// setURL sets the letter's download URL, as urlTail writes its path.
func (s *Service) setURL(l *Letter) {
	l.URL = s.baseURL + urlTail(l.ID)
}

func validateParty(path string, p *PartyInput, role PartyRole, f fieldErrors) {
	if p == nil {
		f.add(path, "%s is required", path)
		return
	}
	a := p.Address
	if strings.TrimSpace(a.AddressLine1) == "" {
		f.add(path+".address.addressLine1", "addressLine1 can not be empty")
	}
	parts := a.City != "" || a.State != "" || a.ZipCode != ""
	if strings.TrimSpace(a.LastLine) != "" && parts {
		if msg := lastLineDisagrees(a); msg != "" {
			f.add(path+".address", "%s", msg)
		}
	}
	if strings.TrimSpace(a.LastLine) == "" {
		if !parts {
			f.add(path+".address.lastLine", "lastLine can not be empty (or give city, state and zipCode)")
		} else {
			for _, part := range [...]struct{ name, v string }{{"city", a.City}, {"state", a.State}, {"zipCode", a.ZipCode}} {
				if strings.TrimSpace(part.v) == "" {
					f.add(path+".address."+part.name, "%s can not be empty when the last line is given in parts", part.name)
				}
			}
			// The parts make the lastLine the letter shows, which must
			// fit where a lastLine given whole would.
			if n := utf8.RuneCountInString(composeLastLine(a)); n > maxAddressLine {
				f.add(path+".address.city", "city, state and ZIP Code make a last line of %d characters; at most %d fit", n, maxAddressLine)
			}
		}
	}
	for _, fv := range [...]struct{ name, v string }{
		{".address.addressLine1", a.AddressLine1}, {".address.addressLine2", a.AddressLine2},
		{".address.lastLine", a.LastLine}, {".address.city", a.City}, {".address.urbanization", a.Urbanization},
	} {
		maxLenAt(f, path, fv.name, fv.v, maxAddressLine)
	}
	maxLenAt(f, path, ".address.state", a.State, 2)
	maxLenAt(f, path, ".address.zipCode", a.ZipCode, 5)
	maxLenAt(f, path, ".address.plus4Code", a.Plus4Code, 4)
	if p.Individual == nil && strings.TrimSpace(p.Organization) == "" {
		f.add(path+".individual", "give individual or organization (or both)")
	}
	maxLenAt(f, path, ".organization", p.Organization, maxNameField)
	if ind := p.Individual; ind != nil {
		if strings.TrimSpace(ind.FullName) == "" {
			if strings.TrimSpace(ind.FirstName) == "" {
				f.add(path+".individual.firstName", "firstName can not be empty")
			}
			if strings.TrimSpace(ind.LastName) == "" {
				f.add(path+".individual.lastName", "lastName can not be empty")
			}
		}
		for _, fv := range [...]struct{ name, v string }{
			{".individual.fullName", ind.FullName}, {".individual.prefix", ind.Prefix},
			{".individual.firstName", ind.FirstName}, {".individual.middleName", ind.MiddleName},
			{".individual.lastName", ind.LastName}, {".individual.postfix", ind.Postfix}, {".individual.title", ind.Title},
		} {
			maxLenAt(f, path, fv.name, fv.v, maxNameField)
		}
	}
	if p.NonAddressData != "" && role == RoleSender {
		f.add(path+".nonAddressData", "only a recipient has nonAddressData")
	}
	maxLenAt(f, path, ".nonAddressData", p.NonAddressData, maxFreeText)
}

// lastLineDisagrees says where the parts of an address given beside its
// lastLine (city, state, zipCode, plus4Code) contradict it, or "". A part
// the last line does not carry, and a last line that can not be read,
// contradict nothing: the parts then stand in for what it lacks.
func lastLineDisagrees(a AddressInput) string {
	ll, err := usps.ParseLastLine(a.LastLine)
	if err != nil {
		return ""
	}
	var bad []string
	if a.City != "" && !strings.EqualFold(cityWords(a.City), cityWords(ll.City)) {
		bad = append(bad, "city "+echo.Quote(a.City))
	}
	if a.State != "" {
		if st, ok := usps.LookupState(a.State); !ok || st.Code != ll.State {
			bad = append(bad, "state "+echo.Quote(a.State))
		}
	}
	if a.ZipCode != "" && ll.ZIP != "" && strings.TrimSpace(a.ZipCode) != ll.ZIP {
		bad = append(bad, "zipCode "+echo.Quote(a.ZipCode))
	}
	if a.Plus4Code != "" && ll.Plus4 != "" && strings.TrimSpace(a.Plus4Code) != ll.Plus4 {
		bad = append(bad, "plus4Code "+echo.Quote(a.Plus4Code))
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("lastLine %s disagrees with %s: give the last line whole or in parts, or parts that agree with it",
		echo.Quote(a.LastLine), strings.Join(bad, ", "))
}

// cityWords is a city name's words, without punctuation or extra space:
// "St. Louis" and "ST LOUIS" have the same.
func cityWords(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

func validateFreeText(f fieldErrors, path, v string) { maxLen(f, path, v, maxFreeText) }

func validateUseType(path string, u UseType, f fieldErrors) {
	switch {
	case u == "":
		f.add(path, "useType is required: one of %s", joinEnum(useTypes))
	case !slices.Contains(useTypes, u):
		f.add(path, "must be one of %s, got %s", joinEnum(useTypes), echo.Quote(string(u)))
	}
}

// sendDay is the day d names: d itself, or the date an RFC 3339 date-time is
// written on, its time portion ignored.
func sendDay(d string) string {
	if _, err := time.Parse(time.RFC3339, d); err == nil {
		return d[:len(time.DateOnly)]
	}
	return d
}

// validateSendDate accepts YYYY-MM-DD, today (on the account's clock, UTC) or later.
func (s *Service) validateSendDate(account, d string, f fieldErrors) {
	if d == "" {
		return
	}
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		f.add("sendDate", "must be a date as YYYY-MM-DD, got %s", echo.Quote(d))
		return
	}
	if today := s.now(account).Truncate(24 * time.Hour); t.Before(today) {
		f.add("sendDate", "must be today (%s) or later, got %s", today.Format(time.DateOnly), d)
	}
}

// normalizeOptions checks every option against its enumeration and fills
// the defaults.
func normalizeOptions(in *LetterOptions, f fieldErrors) LetterOptions {
	var o LetterOptions
	if in != nil {
		o = *in
	}
	o.Print = &PrintOptions{}
	if in != nil && in.Print != nil {
		*o.Print = *in.Print
	}
	if o.Print.AddressPlacement != "" {
		enum(f, "options.print.addressPlacement", o.Print.AddressPlacement, addressPlacements)
	}
	o.Mail = &MailOptions{Service: MailFirstClass, ExtraServices: []ExtraService{}}
	if in != nil && in.Mail != nil {
		if in.Mail.Service != "" {
			o.Mail.Service = in.Mail.Service
		}
		o.Mail.ExtraServices = append(o.Mail.ExtraServices, in.Mail.ExtraServices...)
	}
	enum(f, "options.mail.service", o.Mail.Service, mailServices)
	for i, x := range o.Mail.ExtraServices {
		enum(f, fmt.Sprintf("options.mail.extraServices[%d]", i), x, extraServices)
	}
	o.VariableHandling = &VariableHandling{ValidationScope: ValidationScopeAsset}
	if in != nil && in.VariableHandling != nil && in.VariableHandling.ValidationScope != "" {
		o.VariableHandling.ValidationScope = in.VariableHandling.ValidationScope
	}
	enum(f, "options.variableHandling.validationScope", o.VariableHandling.ValidationScope, validationScopes)
	if ap := o.AddressProcessing; ap != nil {
		n := &AddressProcessing{NcoaRecipient: ap.NcoaRecipient}
		n.CassSender = normalizeCass(f, "options.addressProcessing.cassSender", ap.CassSender)
		n.CassRecipient = normalizeCass(f, "options.addressProcessing.cassRecipient", ap.CassRecipient)
		if n.NcoaRecipient != "" {
			enum(f, "options.addressProcessing.ncoaRecipient", n.NcoaRecipient, ncoaValues)
		}
		o.AddressProcessing = n
	}
	if o.DeliverabilityThreshold != "" {
		enum(f, "options.deliverabilityThreshold", o.DeliverabilityThreshold, deliverabilityNames)
	}
	for i, x := range o.Mail.ExtraServices {
		if slices.Contains(o.Mail.ExtraServices[:i], x) {
			f.add(fmt.Sprintf("options.mail.extraServices[%d]", i), "%s is given more than once", echo.Quote(string(x)))
		}
	}
	o.fillDefaults()
	o.DeliverabilityValues = slices.Clone(o.DeliverabilityValues)
	for i, v := range o.DeliverabilityValues {
		enum(f, fmt.Sprintf("options.deliverabilityValues[%d]", i), v, deliverabilityValueList)
	}
	return o
}

// fillDefaults sets the options left out to their defaults, so a letter
// shows the options it is processed with. Letters stored without them get
// them when read.
func (o *LetterOptions) fillDefaults() {
	if o.Print == nil {
		o.Print = &PrintOptions{}
	}
	if o.Mail == nil {
		o.Mail = &MailOptions{Service: "firstClass"}
	}
	if o.Mail.ExtraServices == nil {
		o.Mail.ExtraServices = []ExtraService{}
	}
	if o.VariableHandling == nil {
		o.VariableHandling = &VariableHandling{ValidationScope: "asset"}
	}
	if o.AddressProcessing == nil {
		o.AddressProcessing = &AddressProcessing{}
	}
	if o.AddressProcessing.NcoaRecipient == "" {
		o.AddressProcessing.NcoaRecipient = "none"
	}
	if o.DeliverabilityThreshold == "" {
		o.DeliverabilityThreshold = "normal"
	}
}

func normalizeCass(f fieldErrors, path string, c *CassOptions) *CassOptions {
	if c == nil {
		return nil
	}
	n := *c
	if n.Casing == "" {
		n.Casing = CasingProper
	}
	if n.Type == "" {
		f.add(path+".type", "type is required: one of %s", joinEnum(cassTypes))
	} else {
		enum(f, path+".type", n.Type, cassTypes)
	}
	enum(f, path+".casing", n.Casing, cassCasings)
	return &n
}
