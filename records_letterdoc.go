package lettershop

import (
	"slices"

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

// readLetterDoc writes into d the document a store keeps in a form of its
// own, its values read into reused ones.
func readLetterDoc(k storage.LetterReader, d *letterDoc) error {
	v := storage.GetLetterDoc()
	defer storage.PutLetterDoc(v)
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
	v.Reset()
	v.Life = lifeValues(&d.Life)
	partyValues(&d.Sender, &v.Sender)
	partyValues(&d.Recipient, &v.Recipient)
	v.Content = storage.LetterContentRef{Type: string(d.Content.Type), AssetID: d.Content.AssetID, VersionID: d.Content.AssetVersionID}
	v.UseType, v.SendDate, v.Description = string(d.UseType), d.SendDate, d.Description
	v.Variables.List, v.Variables.Has = appendList(v.Variables.List, d.Variables, variableValue)
	optionValues(&d.Options, &v.Options)
	v.IssueMessage = d.IssueMessage
	s, vs := &d.Snapshot, &v.Snapshot
	vs.Hash, vs.Type = s.Hash, s.Type
	vs.Definitions, vs.HasDefinitions = appendList(vs.Definitions, s.Definitions, definitionValue)
	vs.Merge.List, vs.Merge.Has = appendList(vs.Merge.List, s.Merge, variableValue)
	vs.Assets, vs.HasAssets = appendList(vs.Assets, s.Assets, func(r *assetRef) storage.LetterAssetRef { return storage.LetterAssetRef(*r) })
	v.Events, v.HasEvents = appendList(v.Events, d.Events, eventValue)
	for i := range d.Events {
		if t := d.Events[i].TrackingEventDetails; t != nil && t.AdditionalData != nil {
			return false
		}
	}
	return true
}

// letterDocOf writes the letter document v holds into d. d shares none of
// v's slices: v may be reused.
func letterDocOf(v *storage.LetterDoc, d *letterDoc) {
	d.Life = lifeOf(&v.Life)
	partyOfValues(&v.Sender, &d.Sender)
	partyOfValues(&v.Recipient, &d.Recipient)
	d.Content = LetterContent{Type: LetterContentType(v.Content.Type), AssetID: v.Content.AssetID, AssetVersionID: v.Content.VersionID}
	d.UseType, d.SendDate, d.Description = UseType(v.UseType), v.SendDate, v.Description
	d.Variables = listOf(v.Variables.Has, v.Variables.List, variableOfValue)
	optionsOfValues(&v.Options, &d.Options)
	d.IssueMessage = v.IssueMessage
	s := &v.Snapshot
	d.Snapshot = contentSnapshot{
		Hash: s.Hash, Type: s.Type,
		Definitions: listOf(s.HasDefinitions, s.Definitions, definitionOfValue),
		Merge:       listOf(s.Merge.Has, s.Merge.List, variableOfValue),
		Assets:      listOf(s.HasAssets, s.Assets, func(r *storage.LetterAssetRef) assetRef { return assetRef(*r) }),
	}
	d.Events = listOf(v.HasEvents, v.Events, eventOfValue)
}

// A list a storage.LetterDoc holds is its values and a flag that tells a
// nil list from an empty one, so that values reused from one letter to the
// next keep their slices' storage: appendList writes such a list, listOf
// reads it back, each given how one element maps.

// appendList appends xs, each mapped by value, to dst, and reports whether
// xs is a list at all (not nil). dst grows once, if at all.
func appendList[X, V any](dst []V, xs []X, value func(*X) V) ([]V, bool) {
	dst = slices.Grow(dst, len(xs))
	for i := range xs {
		dst = append(dst, value(&xs[i]))
	}
	return dst, xs != nil
}

// listOf returns the list of vs, each mapped by of: nil unless has.
func listOf[V, X any](has bool, vs []V, of func(*V) X) []X {
	if !has {
		return nil
	}
	xs := make([]X, len(vs))
	for i := range vs {
		xs[i] = of(&vs[i])
	}
	return xs
}

// str and strOf map an element of a list of a string type, such as
// []ExtraService, to a string and back.
func str[S ~string](s *S) string { return string(*s) }

func strOf[S ~string](s *string) S { return S(*s) }

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
		footnotes, has := appendList(v.Analysis.DpvFootnotes, a.DpvFootnotes, str)
		v.Analysis = storage.LetterAddressAnalysis{
			DpvMatchCode: a.DpvMatchCode, HasDpvFootnotes: has,
			DpvFootnotes: footnotes, DpvCmra: a.DpvCmra, DpvVacant: a.DpvVacant,
			DpvNoStat: a.DpvNoStat, DpvActive: a.DpvActive, DpvInactiveReason: a.DpvInactiveReason,
			DpvThrowback: a.DpvThrowback, DpvNonDeliveryDayIndicator: a.DpvNonDeliveryDayIndicator,
			DpvNonDeliveryDayValues: a.DpvNonDeliveryDayValues, DpvNoSecureLocation: a.DpvNoSecureLocation,
			DpvDoorNotAccessible: a.DpvDoorNotAccessible, LacslinkCode: a.LacslinkCode,
			LacslinkIndicator: a.LacslinkIndicator, SuitelinkIndicator: a.SuitelinkIndicator,
			EwsIndicator: a.EwsIndicator,
		}
	}
	v.Corrections, v.HasCorrections = appendList(v.Corrections, x.AddressCorrections,
		func(c *AddressCorrection) storage.LetterCorrection { return storage.LetterCorrection(*c) })
	if m := x.AddressMetadata; m != nil {
		v.HasAddressMetadata, v.AddressMetadata = true, storage.LetterAddressMetadata(*m)
	}
}

func partyOfValues(v *storage.LetterParty, x *Party) {
	*x = Party{
		Address:      Address{AddressLine1: v.AddressLine1, AddressLine2: v.AddressLine2, LastLine: v.LastLine},
		Organization: v.Organization, NonAddressData: v.NonAddressData,
		AddressCorrections: listOf(v.HasCorrections, v.Corrections,
			func(c *storage.LetterCorrection) AddressCorrection { return AddressCorrection(*c) }),
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
		x.AddressAnalysis = &AddressAnalysis{
			DpvMatchCode: a.DpvMatchCode, DpvFootnotes: listOf(a.HasDpvFootnotes, a.DpvFootnotes, strOf[string]),
			DpvCmra: a.DpvCmra, DpvVacant: a.DpvVacant,
			DpvNoStat: a.DpvNoStat, DpvActive: a.DpvActive, DpvInactiveReason: a.DpvInactiveReason,
			DpvThrowback: a.DpvThrowback, DpvNonDeliveryDayIndicator: a.DpvNonDeliveryDayIndicator,
			DpvNonDeliveryDayValues: a.DpvNonDeliveryDayValues, DpvNoSecureLocation: a.DpvNoSecureLocation,
			DpvDoorNotAccessible: a.DpvDoorNotAccessible, LacslinkCode: a.LacslinkCode,
			LacslinkIndicator: a.LacslinkIndicator, SuitelinkIndicator: a.SuitelinkIndicator,
			EwsIndicator: a.EwsIndicator,
		}
	}
	if v.HasAddressMetadata {
		m := AddressMetadata(v.AddressMetadata)
		x.AddressMetadata = &m
	}
}

func variableValue(x *Variable) storage.LetterVariable {
	v := storage.LetterVariable{Name: x.Name}
	if x.Value != nil {
		v.HasValue, v.Value = true, *x.Value
	}
	return v
}

func variableOfValue(v *storage.LetterVariable) Variable {
	x := Variable{Name: v.Name}
	if v.HasValue {
		s := v.Value
		x.Value = &s
	}
	return x
}

func definitionValue(x *VariableDefinition) storage.LetterDefinition {
	v := storage.LetterDefinition{Name: x.Name, Type: string(x.Type), Behavior: string(x.Behavior), AllowEmpty: x.AllowEmpty}
	if x.PresetValue != nil {
		v.HasPresetValue, v.PresetValue = true, *x.PresetValue
	}
	return v
}

func definitionOfValue(v *storage.LetterDefinition) VariableDefinition {
	x := VariableDefinition{Name: v.Name, Type: VariableType(v.Type), Behavior: VariableBehavior(v.Behavior), AllowEmpty: v.AllowEmpty}
	if v.HasPresetValue {
		p := v.PresetValue
		x.PresetValue = &p
	}
	return x
}

// eventValue leaves out a tracking event's additional data, which the
// values cannot hold.
func eventValue(e *Event) storage.LetterEvent {
	v := storage.LetterEvent{
		ID: e.ID, CreatedAt: e.CreatedAt, ModifiedAt: e.ModifiedAt, Timestamp: e.Timestamp,
		Type: string(e.Type), Status: string(e.Status), Description: e.Description,
		OperationCode: e.OperationCode, Location: e.Location, ActionRequired: e.ActionRequired,
	}
	if t := e.TrackingEventDetails; t != nil {
		v.HasTracking = true
		v.Notes, v.Facility, v.FacilityType, v.FacilityZip = t.Notes, t.Facility, t.FacilityType, t.FacilityZip
	}
	return v
}

func eventOfValue(v *storage.LetterEvent) Event {
	e := Event{
		ID: v.ID, CreatedAt: v.CreatedAt, ModifiedAt: v.ModifiedAt, Timestamp: v.Timestamp,
		Type: EventType(v.Type), Status: EventStatus(v.Status), Description: v.Description,
		OperationCode: v.OperationCode, Location: v.Location, ActionRequired: v.ActionRequired,
	}
	if v.HasTracking {
		e.TrackingEventDetails = &TrackingEventDetails{
			Notes: v.Notes, Facility: v.Facility, FacilityType: v.FacilityType, FacilityZip: v.FacilityZip,
		}
	}
	return e
}

func optionValues(o *LetterOptions, v *storage.LetterOptions) {
	if p := o.Print; p != nil {
		v.HasPrint, v.Color, v.AddressPlacement = true, p.Color, p.AddressPlacement
	}
	if m := o.Mail; m != nil {
		v.HasMail, v.MailService = true, string(m.Service)
		v.ExtraServices, v.HasExtraServices = appendList(v.ExtraServices, m.ExtraServices, str)
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
	v.DeliverabilityValues, v.HasDeliverabilityValues = appendList(v.DeliverabilityValues, o.DeliverabilityValues, str)
}

func optionsOfValues(v *storage.LetterOptions, o *LetterOptions) {
	*o = LetterOptions{
		DeliverabilityThreshold: DeliverabilityThreshold(v.DeliverabilityThreshold),
		DeliverabilityValues:    listOf(v.HasDeliverabilityValues, v.DeliverabilityValues, strOf[Deliverability]),
	}
	if v.HasPrint {
		o.Print = &PrintOptions{Color: v.Color, AddressPlacement: v.AddressPlacement}
	}
	if v.HasMail {
		o.Mail = &MailOptions{Service: MailService(v.MailService), ExtraServices: listOf(v.HasExtraServices, v.ExtraServices, strOf[ExtraService])}
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
}
