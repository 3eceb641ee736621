package lettershop

import (
	"sync"

	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A store that lays letters out in a form of its own (memstore) takes a
// letter's document as a storage.LetterDoc, plain values, and gives one
// back (storage.LetterValuer, storage.LetterReader): the functions below
// map the letter document to and from it. Reading allocates only what the
// domain's types need (a part behind a pointer, a list, a variable's
// value); the storage.LetterDoc is the caller's, reused from one letter to
// the next.

// LetterValues implements storage.LetterValuer.
func (d *letterDoc) LetterValues(v *storage.LetterDoc) bool { return letterDocValues(d, v) }

// LetterEncoder implements storage.LetterValuer.
func (d *letterDoc) LetterEncoder() storage.LetterEncoder { return letterEncoding{} }

// letterEncoding encodes a letter's values as its letterDoc encodes.
type letterEncoding struct{}

// EncodeLetter implements storage.LetterEncoder.
func (letterEncoding) EncodeLetter(v *storage.LetterDoc) ([]byte, error) {
	var d letterDoc
	letterDocOf(v, &d)
	return encodeDoc(&d)
}

// letterValues are the storage.LetterDoc values letters are read into,
// reused.
var letterValues = sync.Pool{New: func() any { return new(storage.LetterDoc) }}

// readLetterDoc writes into d the document a store keeps in a form of its
// own, its values read into reused ones.
func readLetterDoc(k storage.LetterReader, d *letterDoc) error {
	v := letterValues.Get().(*storage.LetterDoc)
	defer letterValues.Put(v)
	if err := k.ReadLetter(v); err != nil {
		return err
	}
	letterDocOf(v, d)
	return nil
}

// letterDocValues writes d into v, which it resets first, and reports
// false when d holds what the values cannot: a tracking event's additional
// data, which it leaves out.
func letterDocValues(d *letterDoc, v *storage.LetterDoc) bool {
	fits := true
	v.Reset()
	v.Life = lifeValues(&d.Life)
	partyValues(&d.Sender, &v.Sender)
	partyValues(&d.Recipient, &v.Recipient)
	v.Content = storage.LetterContentRef{Type: string(d.Content.Type), AssetID: d.Content.AssetID, VersionID: d.Content.AssetVersionID}
	v.UseType, v.SendDate, v.Description = string(d.UseType), d.SendDate, d.Description
	variableValues(d.Variables, &v.Variables)
	optionValues(&d.Options, &v.Options)
	v.IssueMessage = d.IssueMessage
	s := &d.Snapshot
	v.Snapshot.Hash, v.Snapshot.Type = s.Hash, s.Type
	v.Snapshot.HasDefinitions = s.Definitions != nil
	for _, x := range s.Definitions {
		dv := storage.LetterDefinition{Name: x.Name, Type: string(x.Type), Behavior: string(x.Behavior), AllowEmpty: x.AllowEmpty}
		if x.PresetValue != nil {
			dv.HasPresetValue, dv.PresetValue = true, *x.PresetValue
		}
		v.Snapshot.Definitions = append(v.Snapshot.Definitions, dv)
	}
	variableValues(s.Merge, &v.Snapshot.Merge)
	v.Snapshot.HasAssets = s.Assets != nil
	for _, r := range s.Assets {
		v.Snapshot.Assets = append(v.Snapshot.Assets, storage.LetterAssetRef(r))
	}
	v.HasEvents = d.Events != nil
	for i := range d.Events {
		e := &d.Events[i]
		ev := storage.LetterEvent{
			ID: e.ID, CreatedAt: e.CreatedAt, ModifiedAt: e.ModifiedAt, Timestamp: e.Timestamp,
			Type: string(e.Type), Status: string(e.Status), Description: e.Description,
			OperationCode: e.OperationCode, Location: e.Location, ActionRequired: e.ActionRequired,
		}
		if t := e.TrackingEventDetails; t != nil {
			fits = fits && t.AdditionalData == nil
			ev.HasTracking = true
			ev.Notes, ev.Facility, ev.FacilityType, ev.FacilityZip = t.Notes, t.Facility, t.FacilityType, t.FacilityZip
		}
		v.Events = append(v.Events, ev)
	}
	return fits
}

func lifeValues(f *postal.Facts) storage.LetterLife {
	return storage.LetterLife{
		Stage: string(f.Stage), Events: f.Events, Fetch: f.Fetch, SendDate: f.SendDate, Outcome: string(f.Outcome),
		From: storage.LetterPlace(f.From), To: storage.LetterPlace(f.To),
	}
}

func lifeOf(l *storage.LetterLife) postal.Facts {
	return postal.Facts{
		Stage: postal.Stage(l.Stage), Events: l.Events, Fetch: l.Fetch, SendDate: l.SendDate,
		Outcome: postal.Outcome(l.Outcome), From: postal.Place(l.From), To: postal.Place(l.To),
	}
}

func partyValues(x *Party, v *storage.LetterParty) {
	a := &x.Address
	v.AddressLine1, v.AddressLine2, v.LastLine = a.AddressLine1, a.AddressLine2, a.LastLine
	v.Organization, v.NonAddressData = x.Organization, x.NonAddressData
	if i := x.Individual; i != nil {
		v.HasIndividual, v.Individual = true, storage.LetterIndividual(*i)
	}
	if c := x.AddressComponents; c != nil {
		v.HasComponents = true
		v.Components = storage.LetterAddressComponents{
			CassType: string(c.CassType), Urbanization: c.Urbanization, City: c.City, State: c.State,
			ZipCode: c.ZipCode, Plus4Code: c.Plus4Code,
		}
	}
	if a := x.AddressAnalysis; a != nil {
		v.HasAnalysis = true
		footnotes := v.Analysis.DpvFootnotes
		v.Analysis = storage.LetterAddressAnalysis{
			DpvMatchCode: a.DpvMatchCode, HasDpvFootnotes: a.DpvFootnotes != nil,
			DpvFootnotes: append(footnotes, a.DpvFootnotes...), DpvCmra: a.DpvCmra, DpvVacant: a.DpvVacant,
			DpvNoStat: a.DpvNoStat, DpvActive: a.DpvActive, DpvInactiveReason: a.DpvInactiveReason,
			DpvThrowback: a.DpvThrowback, DpvNonDeliveryDayIndicator: a.DpvNonDeliveryDayIndicator,
			DpvNonDeliveryDayValues: a.DpvNonDeliveryDayValues, DpvNoSecureLocation: a.DpvNoSecureLocation,
			DpvDoorNotAccessible: a.DpvDoorNotAccessible, LacslinkCode: a.LacslinkCode,
			LacslinkIndicator: a.LacslinkIndicator, SuitelinkIndicator: a.SuitelinkIndicator,
			EwsIndicator: a.EwsIndicator,
		}
	}
	if x.AddressCorrections != nil {
		v.HasCorrections = true
		for _, c := range x.AddressCorrections {
			v.Corrections = append(v.Corrections, storage.LetterCorrection(c))
		}
	}
	if m := x.AddressMetadata; m != nil {
		v.HasAddressMetadata, v.AddressMetadata = true, storage.LetterAddressMetadata(*m)
	}
}

func variableValues(vs []Variable, out *storage.LetterVariables) {
	out.Has = vs != nil
	for _, x := range vs {
		v := storage.LetterVariable{Name: x.Name}
		if x.Value != nil {
			v.HasValue, v.Value = true, *x.Value
		}
		out.List = append(out.List, v)
	}
}

func optionValues(o *LetterOptions, v *storage.LetterOptions) {
	if p := o.Print; p != nil {
		v.HasPrint, v.Color, v.AddressPlacement = true, p.Color, p.AddressPlacement
	}
	if m := o.Mail; m != nil {
		v.HasMail, v.MailService = true, string(m.Service)
		v.HasExtraServices = m.ExtraServices != nil
		for _, x := range m.ExtraServices {
			v.ExtraServices = append(v.ExtraServices, string(x))
		}
	}
	if h := o.VariableHandling; h != nil {
		v.HasVariableHandling, v.ValidationScope = true, string(h.ValidationScope)
	}
	if ap := o.AddressProcessing; ap != nil {
		v.HasAddressProcessing = true
		if c := ap.CassSender; c != nil {
			v.HasCassSender, v.CassSender = true, storage.LetterCassOptions{Type: string(c.Type), Casing: string(c.Casing)}
		}
		if c := ap.CassRecipient; c != nil {
			v.HasCassRecipient, v.CassRecipient = true, storage.LetterCassOptions{Type: string(c.Type), Casing: string(c.Casing)}
		}
		v.NcoaRecipient = string(ap.NcoaRecipient)
	}
	v.DeliverabilityThreshold = string(o.DeliverabilityThreshold)
	v.HasDeliverabilityValues = o.DeliverabilityValues != nil
	for _, x := range o.DeliverabilityValues {
		v.DeliverabilityValues = append(v.DeliverabilityValues, string(x))
	}
}

// letterDocOf writes the letter document v holds into d. d shares none of
// v's slices: v may be reused.
func letterDocOf(v *storage.LetterDoc, d *letterDoc) {
	d.Life = lifeOf(&v.Life)
	partyOfValues(&v.Sender, &d.Sender)
	partyOfValues(&v.Recipient, &d.Recipient)
	d.Content = LetterContent{Type: LetterContentType(v.Content.Type), AssetID: v.Content.AssetID, AssetVersionID: v.Content.VersionID}
	d.UseType, d.SendDate, d.Description = UseType(v.UseType), v.SendDate, v.Description
	d.Variables = variablesOf(&v.Variables)
	optionsOfValues(&v.Options, &d.Options)
	d.IssueMessage = v.IssueMessage
	s := &v.Snapshot
	d.Snapshot = contentSnapshot{Hash: s.Hash, Type: s.Type, Merge: variablesOf(&s.Merge)}
	if s.HasDefinitions {
		d.Snapshot.Definitions = make([]VariableDefinition, len(s.Definitions))
		for i := range s.Definitions {
			x := &s.Definitions[i]
			dd := &d.Snapshot.Definitions[i]
			dd.Name, dd.Type, dd.Behavior, dd.AllowEmpty = x.Name, VariableType(x.Type), VariableBehavior(x.Behavior), x.AllowEmpty
			if x.HasPresetValue {
				p := x.PresetValue
				dd.PresetValue = &p
			}
		}
	}
	if s.HasAssets {
		d.Snapshot.Assets = make([]assetRef, len(s.Assets))
		for i, r := range s.Assets {
			d.Snapshot.Assets[i] = assetRef(r)
		}
	}
	d.Events = nil
	if v.HasEvents {
		d.Events = make([]Event, len(v.Events))
		for i := range v.Events {
			x := &v.Events[i]
			e := &d.Events[i]
			*e = Event{
				ID: x.ID, CreatedAt: x.CreatedAt, ModifiedAt: x.ModifiedAt, Timestamp: x.Timestamp,
				Type: EventType(x.Type), Status: EventStatus(x.Status), Description: x.Description,
				OperationCode: x.OperationCode, Location: x.Location, ActionRequired: x.ActionRequired,
			}
			if x.HasTracking {
				e.TrackingEventDetails = &TrackingEventDetails{
					Notes: x.Notes, Facility: x.Facility, FacilityType: x.FacilityType, FacilityZip: x.FacilityZip,
				}
			}
		}
	}
}

func partyOfValues(v *storage.LetterParty, x *Party) {
	*x = Party{
		Address:      Address{AddressLine1: v.AddressLine1, AddressLine2: v.AddressLine2, LastLine: v.LastLine},
		Organization: v.Organization, NonAddressData: v.NonAddressData,
	}
	if v.HasIndividual {
		i := Individual(v.Individual)
		x.Individual = &i
	}
	if v.HasComponents {
		c := &v.Components
		x.AddressComponents = &AddressComponents{
			CassType: CassType(c.CassType), Urbanization: c.Urbanization, City: c.City, State: c.State,
			ZipCode: c.ZipCode, Plus4Code: c.Plus4Code,
		}
	}
	if v.HasAnalysis {
		a := &v.Analysis
		var footnotes []string
		if a.HasDpvFootnotes {
			footnotes = append(make([]string, 0, len(a.DpvFootnotes)), a.DpvFootnotes...)
		}
		x.AddressAnalysis = &AddressAnalysis{
			DpvMatchCode: a.DpvMatchCode, DpvFootnotes: footnotes, DpvCmra: a.DpvCmra, DpvVacant: a.DpvVacant,
			DpvNoStat: a.DpvNoStat, DpvActive: a.DpvActive, DpvInactiveReason: a.DpvInactiveReason,
			DpvThrowback: a.DpvThrowback, DpvNonDeliveryDayIndicator: a.DpvNonDeliveryDayIndicator,
			DpvNonDeliveryDayValues: a.DpvNonDeliveryDayValues, DpvNoSecureLocation: a.DpvNoSecureLocation,
			DpvDoorNotAccessible: a.DpvDoorNotAccessible, LacslinkCode: a.LacslinkCode,
			LacslinkIndicator: a.LacslinkIndicator, SuitelinkIndicator: a.SuitelinkIndicator,
			EwsIndicator: a.EwsIndicator,
		}
	}
	if v.HasCorrections {
		x.AddressCorrections = make([]AddressCorrection, len(v.Corrections))
		for i, c := range v.Corrections {
			x.AddressCorrections[i] = AddressCorrection(c)
		}
	}
	if v.HasAddressMetadata {
		m := AddressMetadata(v.AddressMetadata)
		x.AddressMetadata = &m
	}
}

func variablesOf(v *storage.LetterVariables) []Variable {
	if !v.Has {
		return nil
	}
	vs := make([]Variable, len(v.List))
	for i := range v.List {
		x := &v.List[i]
		vs[i].Name = x.Name
		if x.HasValue {
			s := x.Value
			vs[i].Value = &s
		}
	}
	return vs
}

func optionsOfValues(v *storage.LetterOptions, o *LetterOptions) {
	*o = LetterOptions{DeliverabilityThreshold: DeliverabilityThreshold(v.DeliverabilityThreshold)}
	if v.HasPrint {
		o.Print = &PrintOptions{Color: v.Color, AddressPlacement: v.AddressPlacement}
	}
	if v.HasMail {
		o.Mail = &MailOptions{Service: MailService(v.MailService)}
		if v.HasExtraServices {
			o.Mail.ExtraServices = make([]ExtraService, len(v.ExtraServices))
			for i, x := range v.ExtraServices {
				o.Mail.ExtraServices[i] = ExtraService(x)
			}
		}
	}
	if v.HasVariableHandling {
		o.VariableHandling = &VariableHandling{ValidationScope: ValidationScope(v.ValidationScope)}
	}
	if v.HasAddressProcessing {
		ap := &AddressProcessing{NcoaRecipient: NcoaOption(v.NcoaRecipient)}
		if v.HasCassSender {
			ap.CassSender = &CassOptions{Type: CassType(v.CassSender.Type), Casing: Casing(v.CassSender.Casing)}
		}
		if v.HasCassRecipient {
			ap.CassRecipient = &CassOptions{Type: CassType(v.CassRecipient.Type), Casing: Casing(v.CassRecipient.Casing)}
		}
		o.AddressProcessing = ap
	}
	if v.HasDeliverabilityValues {
		o.DeliverabilityValues = make([]Deliverability, len(v.DeliverabilityValues))
		for i, x := range v.DeliverabilityValues {
			o.DeliverabilityValues[i] = Deliverability(x)
		}
	}
}
