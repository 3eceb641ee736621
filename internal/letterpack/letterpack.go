// Package letterpack lays a letter's document (storage.LetterDoc) out as
// one string of packed values (package pack), for a store that holds
// letters in memory: a string holds no pointers for the garbage collector
// to trace, and costs one allocation where the typed document costs a
// dozen. It knows storage's record types only.
//
// The packed form is the life facts, the length of the middle part (the
// parties, content, options and snapshot: what a lifecycle step does not
// change) and the middle part, then the events: each a sequence of values,
// written by one packX function and read back by the unpackX of the same
// name, in the same order. The definitions of the snapshot, which letters
// of one asset version share, are packed apart (PackDefinitions).
package letterpack

import (
	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

// Words are values many letters hold, packed as a number each.
var Words = pack.NewWords(
	"queued", "ready", "inProduction", "mailed", "issue", "canceled",
	"inTransit", "inLocalArea", "processedForDelivery", "delivered", "reRouted", "returnedToSender",
	"status", "tracking", "marketing", "transactional", "asset", "none", "basic", "proper", "upper",
	"firstClass", "standard", "normal", "strict", "relaxed", "newAddress", "value", "required", "optional",
	"Letter received", "Issue resolved: letter queued again",
	"Letter processed and ready for printing", "Letter is being printed and enclosed",
	"Letter handed to the postal service", "Canceled at the sender's request",
)

// Pack writes d's own values (all but the content reference and the
// snapshot's hash, type and definitions) to p, which was made with Words.
// p.Err reports a value the form cannot hold.
func Pack(p *pack.Writer, d *storage.LetterDoc) {
	packLife(p, &d.Life)
	// The middle part, which a lifecycle step leaves as it is, goes after
	// its length, so that a step copies it without reading it.
	lifeEnd := len(p.B)
	packParty(p, &d.Sender)
	packParty(p, &d.Recipient)
	p.Str(d.UseType)
	p.Str(d.SendDate)
	p.Str(d.Description)
	packVariables(p, &d.Variables)
	packOptions(p, &d.Options)
	p.Str(d.IssueMessage)
	packVariables(p, &d.Snapshot.Merge)
	packAssetRefs(p, &d.Snapshot)
	p.InsertLength(lifeEnd)
	packEvents(p, d.Events, d.HasEvents)
}

// Unpack reads what Pack wrote into d, which it resets first, appending to
// its slices' storage. The strings are parts of u's.
func Unpack(u *pack.Reader, d *storage.LetterDoc) {
	d.Reset()
	UnpackLife(u, &d.Life)
	mid := u.Uvarint()
	midStart := u.Pos()
	unpackParty(u, &d.Sender)
	unpackParty(u, &d.Recipient)
	d.UseType = u.Str()
	d.SendDate = u.Str()
	d.Description = u.Str()
	unpackVariables(u, &d.Variables)
	unpackOptions(u, &d.Options)
	d.IssueMessage = u.Str()
	unpackVariables(u, &d.Snapshot.Merge)
	unpackAssetRefs(u, &d.Snapshot)
	if uint64(u.Pos()-midStart) != mid {
		u.Fail("middle part")
	}
	d.Events, d.HasEvents = unpackEvents(u, d.Events)
}

// packLife writes a letter's life facts, the first values Pack writes.
func packLife(p *pack.Writer, f *storage.LetterLife) {
	p.Str(f.Stage)
	p.Varint(int64(f.Events))
	p.Str(f.SendDate)
	p.Str(f.Outcome)
	p.Str(f.From.City)
	p.Str(f.From.State)
	p.Str(f.From.Zip)
	p.Str(f.To.City)
	p.Str(f.To.State)
	p.Str(f.To.Zip)
	p.Byte(pack.Flags(f.Fetch))
}

// UnpackLife reads what packLife wrote.
func UnpackLife(u *pack.Reader, f *storage.LetterLife) {
	f.Stage = u.Str()
	f.Events = int32(u.Varint())
	f.SendDate = u.Str()
	f.Outcome = u.Str()
	f.From.City, f.From.State, f.From.Zip = u.Str(), u.Str(), u.Str()
	f.To.City, f.To.State, f.To.Zip = u.Str(), u.Str(), u.Str()
	f.Fetch = u.Byte()&1 != 0
}

func packParty(p *pack.Writer, x *storage.LetterParty) {
	p.Byte(pack.Flags(x.HasIndividual, x.HasComponents, x.HasAnalysis, x.HasCorrections, x.HasAddressMetadata))
	p.Str(x.AddressLine1)
	p.Str(x.AddressLine2)
	p.Str(x.LastLine)
	if i := &x.Individual; x.HasIndividual {
		p.Str(i.FullName)
		p.Str(i.Prefix)
		p.Str(i.FirstName)
		p.Str(i.MiddleName)
		p.Str(i.LastName)
		p.Str(i.Postfix)
		p.Str(i.Title)
	}
	p.Str(x.Organization)
	p.Str(x.NonAddressData)
	if c := &x.Components; x.HasComponents {
		p.Str(c.CassType)
		p.Str(c.Urbanization)
		p.Str(c.City)
		p.Str(c.State)
		p.Str(c.ZipCode)
		p.Str(c.Plus4Code)
	}
	if a := &x.Analysis; x.HasAnalysis {
		p.Str(a.DpvMatchCode)
		p.Count(len(a.DpvFootnotes), !a.HasDpvFootnotes)
		if a.HasDpvFootnotes {
			for _, s := range a.DpvFootnotes {
				p.Str(s)
			}
		}
		for _, s := range [...]string{a.DpvCmra, a.DpvVacant, a.DpvNoStat, a.DpvActive, a.DpvInactiveReason,
			a.DpvThrowback, a.DpvNonDeliveryDayIndicator, a.DpvNonDeliveryDayValues, a.DpvNoSecureLocation,
			a.DpvDoorNotAccessible, a.LacslinkCode, a.LacslinkIndicator, a.SuitelinkIndicator} {
			p.Str(s)
		}
		p.Bool(a.EwsIndicator)
	}
	if x.HasCorrections {
		p.Uvarint(uint64(len(x.Corrections)))
		for _, c := range x.Corrections {
			p.Str(c.Name)
			p.Str(c.Input)
			p.Str(c.Corrected)
		}
	}
	if m := &x.AddressMetadata; x.HasAddressMetadata {
		for _, s := range [...]string{m.RecordType, m.AddressType, m.ZipCodeType, m.County, m.CountyFips,
			m.CarrierRoute, m.CarrierRouteType, m.CongressionalDistrict} {
			p.Str(s)
		}
		p.Bool(m.DefaultBuildingAddress)
		p.Str(m.ElotSequence)
		p.Str(m.ElotSort)
		p.Float(m.Latitude)
		p.Float(m.Longitude)
		p.Str(m.Precision)
		p.Str(m.UspsFinanceNumber)
		p.Str(m.TimeZone)
	}
}

func packVariables(p *pack.Writer, vs *storage.LetterVariables) {
	p.Count(len(vs.List), !vs.Has)
	if !vs.Has {
		return
	}
	for _, v := range vs.List {
		p.Str(v.Name)
		p.Bool(v.HasValue)
		if v.HasValue {
			p.Str(v.Value)
		}
	}
}

func packAssetRefs(p *pack.Writer, s *storage.LetterSnapshot) {
	p.Count(len(s.Assets), !s.HasAssets)
	if !s.HasAssets {
		return
	}
	for _, r := range s.Assets {
		p.Str(r.Name)
		p.Str(r.AssetID)
		p.Str(r.VersionID)
		p.Str(r.Hash)
		p.Str(r.Type)
	}
}

// PackDefinitions writes the snapshot's definitions, which Pack leaves
// out.
func PackDefinitions(p *pack.Writer, s *storage.LetterSnapshot) {
	p.Count(len(s.Definitions), !s.HasDefinitions)
	if !s.HasDefinitions {
		return
	}
	for _, d := range s.Definitions {
		p.Str(d.Name)
		p.Str(d.Type)
		p.Str(d.Behavior)
		p.Byte(pack.Flags(d.HasPresetValue, d.AllowEmpty))
		if d.HasPresetValue {
			p.Str(d.PresetValue)
		}
	}
}

func packStrs(p *pack.Writer, ss []string, has bool) {
	p.Count(len(ss), !has)
	if has {
		for _, s := range ss {
			p.Str(s)
		}
	}
}

func packOptions(p *pack.Writer, o *storage.LetterOptions) {
	ap := o.HasAddressProcessing
	p.Byte(pack.Flags(o.HasPrint, o.HasMail, o.HasVariableHandling, ap, ap && o.HasCassSender, ap && o.HasCassRecipient))
	if o.HasPrint {
		p.Bool(o.Color)
		p.Str(o.AddressPlacement)
	}
	if o.HasMail {
		p.Str(o.MailService)
		packStrs(p, o.ExtraServices, o.HasExtraServices)
	}
	if o.HasVariableHandling {
		p.Str(o.ValidationScope)
	}
	if ap {
		if o.HasCassSender {
			p.Str(o.CassSender.Type)
			p.Str(o.CassSender.Casing)
		}
		if o.HasCassRecipient {
			p.Str(o.CassRecipient.Type)
			p.Str(o.CassRecipient.Casing)
		}
		p.Str(o.NcoaRecipient)
	}
	p.Str(o.DeliverabilityThreshold)
	packStrs(p, o.DeliverabilityValues, o.HasDeliverabilityValues)
}

// packEvents writes a letter's events, the last values Pack writes.
func packEvents(p *pack.Writer, es []storage.LetterEvent, has bool) {
	p.Count(len(es), !has)
	if !has {
		return
	}
	for i := range es {
		packEvent(p, &es[i], nil, 0)
	}
}

// packEvent writes e, its id the one ids appends for i when ids is not
// nil, and returns where that id's text begins and ends in p.B.
func packEvent(p *pack.Writer, e *storage.LetterEvent, ids storage.LetterEventIDs, i int) (int, int) {
	// Every time packed is in UTC: an instant equal to CreatedAt reads
	// back as the same time.
	modified := !e.ModifiedAt.Equal(e.CreatedAt)
	stamped := !e.Timestamp.Equal(e.CreatedAt)
	p.Byte(pack.Flags(e.HasTracking, e.ActionRequired, modified, stamped))
	var start, end int
	if ids != nil {
		at := len(p.B)
		p.B = ids.AppendEventID(p.B, i)
		n := len(p.B) - at
		start = p.StrAt(at)
		end = start + n
	} else {
		p.Str(e.ID)
	}
	p.Time(e.CreatedAt)
	if modified {
		p.Time(e.ModifiedAt)
	}
	if stamped {
		p.Time(e.Timestamp)
	}
	p.Str(e.Type)
	p.Str(e.Status)
	p.Str(e.Description)
	p.Str(e.OperationCode)
	p.Str(e.Location)
	if e.HasTracking {
		p.Str(e.Notes)
		p.Str(e.Facility)
		p.Str(e.FacilityType)
		p.Str(e.FacilityZip)
	}
	return start, end
}

func unpackParty(u *pack.Reader, x *storage.LetterParty) {
	f := u.Byte()
	x.AddressLine1, x.AddressLine2, x.LastLine = u.Str(), u.Str(), u.Str()
	if x.HasIndividual = f&1 != 0; x.HasIndividual {
		x.Individual = storage.LetterIndividual{
			FullName: u.Str(), Prefix: u.Str(), FirstName: u.Str(), MiddleName: u.Str(),
			LastName: u.Str(), Postfix: u.Str(), Title: u.Str(),
		}
	}
	x.Organization = u.Str()
	x.NonAddressData = u.Str()
	if x.HasComponents = f&2 != 0; x.HasComponents {
		x.Components = storage.LetterAddressComponents{
			CassType: u.Str(), Urbanization: u.Str(), City: u.Str(), State: u.Str(),
			ZipCode: u.Str(), Plus4Code: u.Str(),
		}
	}
	if x.HasAnalysis = f&4 != 0; x.HasAnalysis {
		a := &x.Analysis
		a.DpvMatchCode = u.Str()
		a.DpvFootnotes, a.HasDpvFootnotes = unpackStrs(u, a.DpvFootnotes)
		a.DpvCmra, a.DpvVacant, a.DpvNoStat, a.DpvActive = u.Str(), u.Str(), u.Str(), u.Str()
		a.DpvInactiveReason, a.DpvThrowback = u.Str(), u.Str()
		a.DpvNonDeliveryDayIndicator, a.DpvNonDeliveryDayValues = u.Str(), u.Str()
		a.DpvNoSecureLocation, a.DpvDoorNotAccessible = u.Str(), u.Str()
		a.LacslinkCode, a.LacslinkIndicator, a.SuitelinkIndicator = u.Str(), u.Str(), u.Str()
		a.EwsIndicator = u.Bool()
	}
	if x.HasCorrections = f&8 != 0; x.HasCorrections {
		n := u.Uvarint()
		if n > uint64(len(u.Rest())) {
			u.Fail("length")
			n = 0
		}
		for range n {
			x.Corrections = append(x.Corrections, storage.LetterCorrection{Name: u.Str(), Input: u.Str(), Corrected: u.Str()})
		}
	}
	if x.HasAddressMetadata = f&16 != 0; x.HasAddressMetadata {
		x.AddressMetadata = storage.LetterAddressMetadata{
			RecordType: u.Str(), AddressType: u.Str(), ZipCodeType: u.Str(), County: u.Str(),
			CountyFips: u.Str(), CarrierRoute: u.Str(), CarrierRouteType: u.Str(),
			CongressionalDistrict: u.Str(), DefaultBuildingAddress: u.Bool(), ElotSequence: u.Str(),
			ElotSort: u.Str(), Latitude: u.Float(), Longitude: u.Float(), Precision: u.Str(),
			UspsFinanceNumber: u.Str(), TimeZone: u.Str(),
		}
	}
}

func unpackStrs(u *pack.Reader, dst []string) ([]string, bool) {
	n, ok := u.Count()
	for range n {
		dst = append(dst, u.Str())
	}
	return dst, ok
}

func unpackVariables(u *pack.Reader, vs *storage.LetterVariables) {
	var n int
	n, vs.Has = u.Count()
	for range n {
		v := storage.LetterVariable{Name: u.Str()}
		if v.HasValue = u.Bool(); v.HasValue {
			v.Value = u.Str()
		}
		vs.List = append(vs.List, v)
	}
}

func unpackAssetRefs(u *pack.Reader, s *storage.LetterSnapshot) {
	var n int
	n, s.HasAssets = u.Count()
	for range n {
		s.Assets = append(s.Assets, storage.LetterAssetRef{Name: u.Str(), AssetID: u.Str(), VersionID: u.Str(), Hash: u.Str(), Type: u.Str()})
	}
}

// UnpackDefinitions reads what PackDefinitions wrote into s, appending to
// its Definitions' storage.
func UnpackDefinitions(u *pack.Reader, s *storage.LetterSnapshot) {
	var n int
	n, s.HasDefinitions = u.Count()
	for range n {
		d := storage.LetterDefinition{Name: u.Str(), Type: u.Str(), Behavior: u.Str()}
		f := u.Byte()
		d.AllowEmpty = f&2 != 0
		if d.HasPresetValue = f&1 != 0; d.HasPresetValue {
			d.PresetValue = u.Str()
		}
		s.Definitions = append(s.Definitions, d)
	}
}

func unpackOptions(u *pack.Reader, o *storage.LetterOptions) {
	f := u.Byte()
	if o.HasPrint = f&1 != 0; o.HasPrint {
		o.Color, o.AddressPlacement = u.Bool(), u.Str()
	}
	if o.HasMail = f&2 != 0; o.HasMail {
		o.MailService = u.Str()
		o.ExtraServices, o.HasExtraServices = unpackStrs(u, o.ExtraServices)
	}
	if o.HasVariableHandling = f&4 != 0; o.HasVariableHandling {
		o.ValidationScope = u.Str()
	}
	if o.HasAddressProcessing = f&8 != 0; o.HasAddressProcessing {
		if o.HasCassSender = f&16 != 0; o.HasCassSender {
			o.CassSender = storage.LetterCassOptions{Type: u.Str(), Casing: u.Str()}
		}
		if o.HasCassRecipient = f&32 != 0; o.HasCassRecipient {
			o.CassRecipient = storage.LetterCassOptions{Type: u.Str(), Casing: u.Str()}
		}
		o.NcoaRecipient = u.Str()
	}
	o.DeliverabilityThreshold = u.Str()
	o.DeliverabilityValues, o.HasDeliverabilityValues = unpackStrs(u, o.DeliverabilityValues)
}

func unpackEvents(u *pack.Reader, es []storage.LetterEvent) ([]storage.LetterEvent, bool) {
	n, ok := u.Count()
	for range n {
		f := u.Byte()
		e := storage.LetterEvent{ID: u.Str(), CreatedAt: u.Time()}
		e.ModifiedAt, e.Timestamp = e.CreatedAt, e.CreatedAt
		if f&4 != 0 {
			e.ModifiedAt = u.Time()
		}
		if f&8 != 0 {
			e.Timestamp = u.Time()
		}
		e.Type, e.Status, e.Description, e.OperationCode, e.Location = u.Str(), u.Str(), u.Str(), u.Str(), u.Str()
		e.ActionRequired = f&2 != 0
		if e.HasTracking = f&1 != 0; e.HasTracking {
			e.Notes, e.Facility, e.FacilityType, e.FacilityZip = u.Str(), u.Str(), u.Str(), u.Str()
		}
		es = append(es, e)
	}
	return es, ok
}
