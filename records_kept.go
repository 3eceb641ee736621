package lettershop

import (
	"errors"
	"fmt"
	"slices"
	"time"
	"unique"

	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A store that keeps records in memory (memstore) holds a letter's document
// for as long as the letter lives and reads it far less often than it holds
// it, so it keeps it in the form below (storage.Keeper): the typed document
// is a struct of 736 bytes with a dozen pointers to parts, each its own
// allocation, and a letter kept that way cost the store about 2 KB and the
// garbage collector a dozen pointers to trace, for every letter stored.
//
// keptLetter packs the document's values into one string, which holds no
// pointers, and refers to what letters made from the same asset version
// share (the content's ids and the snapshot of the version) through one
// canonical copy. It is never changed once made: a copy of it is itself,
// and a read unpacks it into a letterDoc whose strings are parts of the
// packed string.

// keptLetter is a letter document as a store keeps it.
type keptLetter struct {
	// data is the document's own values, packed by keepLetter.
	data string
	// shared is the part of the document letters of one asset version
	// share.
	shared unique.Handle[keptContent]
}

// keptContent is the part of a letter document letters made from the same
// asset version share: the content they name and the snapshot of the
// version (its definitions packed), without the values merged.
type keptContent struct {
	contentType LetterContentType
	assetID     string
	versionID   string
	hash        string
	snapType    string
	definitions string
}

// KeepDocument implements storage.Keeper: the document packed, or a deep
// copy of it when it holds what the packed form does not (a time outside
// UTC, a tracking event's additional data).
func (d *letterDoc) KeepDocument() storage.Document {
	if k, ok := keepLetter(d); ok {
		return k
	}
	return d.CloneDocument()
}

// CloneDocument implements storage.Document: nothing can change a kept
// letter, so it is its own copy.
func (k *keptLetter) CloneDocument() storage.Document { return k }

// KeepDocument implements storage.Keeper.
func (k *keptLetter) KeepDocument() storage.Document { return k }

// EncodeDocument implements storage.Document: the encoding of the document
// it was made from.
func (k *keptLetter) EncodeDocument() ([]byte, error) {
	var d letterDoc
	if err := k.unpack(&d); err != nil {
		return nil, err
	}
	return encodeDoc(&d)
}

// keepLetter packs d, and reports false when d holds what a keptLetter
// does not.
func keepLetter(d *letterDoc) (*keptLetter, bool) {
	p := pack.Get(keptWords)
	defer p.Release()
	packLife(p, &d.Life)
	// The middle part, which a lifecycle step leaves as it is, goes after
	// its length, so that a step copies it without reading it
	// (advanceKept).
	lifeEnd := len(p.B)
	packParty(p, &d.Sender)
	packParty(p, &d.Recipient)
	p.Str(string(d.UseType))
	p.Str(d.SendDate)
	p.Str(d.Description)
	packVariables(p, d.Variables)
	packOptions(p, &d.Options)
	p.Str(d.IssueMessage)
	packVariables(p, d.Snapshot.Merge)
	packAssetRefs(p, d.Snapshot.Assets)
	p.InsertLength(lifeEnd)
	packEvents(p, d.Events)
	if p.Err() != nil {
		return nil, false
	}
	data := p.String()
	p.Reset()
	packDefinitions(p, d.Snapshot.Definitions)
	if p.Err() != nil {
		return nil, false
	}
	shared := unique.Make(keptContent{
		contentType: d.Content.Type, assetID: d.Content.AssetID, versionID: d.Content.AssetVersionID,
		hash: d.Snapshot.Hash, snapType: d.Snapshot.Type, definitions: p.String(),
	})
	return &keptLetter{data: data, shared: shared}, true
}

// unpack writes the document k was made from into d.
func (k *keptLetter) unpack(d *letterDoc) error {
	c := k.shared.Value()
	r := pack.NewReader(k.data, keptWords)
	u := &r
	unpackLife(u, &d.Life)
	mid := u.Uvarint()
	midStart := u.Pos()
	unpackParty(u, &d.Sender)
	unpackParty(u, &d.Recipient)
	d.Content = LetterContent{Type: c.contentType, AssetID: c.assetID, AssetVersionID: c.versionID}
	d.UseType = UseType(u.Str())
	d.SendDate = u.Str()
	d.Description = u.Str()
	d.Variables = unpackVariables(u)
	unpackOptions(u, &d.Options)
	d.IssueMessage = u.Str()
	d.Snapshot.Merge = unpackVariables(u)
	d.Snapshot.Assets = unpackAssetRefs(u)
	if uint64(u.Pos()-midStart) != mid {
		u.Fail("middle part")
	}
	d.Events = unpackEvents(u)
	d.Snapshot.Hash, d.Snapshot.Type = c.hash, c.snapType
	du := pack.NewReader(c.definitions, keptWords)
	d.Snapshot.Definitions = unpackDefinitions(&du)
	u.End()
	du.End()
	if err := errors.Join(u.Err(), du.Err()); err != nil {
		return fmt.Errorf("kept letter document: %w", err)
	}
	return nil
}

// The packed form (package pack) is the life facts, the length of the
// middle part (the parties, content, options and snapshot: what a
// lifecycle step does not change) and the middle part, then the events:
// each a sequence of values, written by one packX function and read back
// by the unpackX of the same name, in the same order.

// keptWords are values many letters hold, packed as a number each.
var keptWords = pack.NewWords(
	"queued", "ready", "inProduction", "mailed", "issue", "canceled",
	"inTransit", "inLocalArea", "processedForDelivery", "delivered", "reRouted", "returnedToSender",
	"status", "tracking", "marketing", "transactional", "asset", "none", "basic", "proper", "upper",
	"firstClass", "standard", "normal", "strict", "relaxed", "newAddress", "value", "required", "optional",
	"Letter received", requeuedDescription,
	"Letter processed and ready for printing", "Letter is being printed and enclosed",
	"Letter handed to the postal service", "Canceled at the sender's request",
)

func packLife(p *pack.Writer, f *postal.Facts) {
	p.Str(string(f.Stage))
	p.Varint(int64(f.Events))
	p.Str(f.SendDate)
	p.Str(string(f.Outcome))
	p.Str(f.From.City)
	p.Str(f.From.State)
	p.Str(f.From.Zip)
	p.Str(f.To.City)
	p.Str(f.To.State)
	p.Str(f.To.Zip)
	p.Byte(pack.Flags(f.Fetch))
}

func packParty(p *pack.Writer, x *Party) {
	p.Byte(pack.Flags(x.Individual != nil, x.AddressComponents != nil, x.AddressAnalysis != nil,
		x.AddressCorrections != nil, x.AddressMetadata != nil))
	p.Str(x.Address.AddressLine1)
	p.Str(x.Address.AddressLine2)
	p.Str(x.Address.LastLine)
	if i := x.Individual; i != nil {
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
	if c := x.AddressComponents; c != nil {
		p.Str(string(c.CassType))
		p.Str(c.Urbanization)
		p.Str(c.City)
		p.Str(c.State)
		p.Str(c.ZipCode)
		p.Str(c.Plus4Code)
	}
	if a := x.AddressAnalysis; a != nil {
		p.Str(a.DpvMatchCode)
		p.Strs(a.DpvFootnotes)
		for _, s := range [...]string{a.DpvCmra, a.DpvVacant, a.DpvNoStat, a.DpvActive, a.DpvInactiveReason,
			a.DpvThrowback, a.DpvNonDeliveryDayIndicator, a.DpvNonDeliveryDayValues, a.DpvNoSecureLocation,
			a.DpvDoorNotAccessible, a.LacslinkCode, a.LacslinkIndicator, a.SuitelinkIndicator} {
			p.Str(s)
		}
		p.Bool(a.EwsIndicator)
	}
	if x.AddressCorrections != nil {
		p.Uvarint(uint64(len(x.AddressCorrections)))
		for _, c := range x.AddressCorrections {
			p.Str(c.Name)
			p.Str(c.Input)
			p.Str(c.Corrected)
		}
	}
	if m := x.AddressMetadata; m != nil {
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

func packVariables(p *pack.Writer, vs []Variable) {
	if vs == nil {
		p.Uvarint(0)
		return
	}
	p.Uvarint(uint64(len(vs)) + 1)
	for _, v := range vs {
		p.Str(v.Name)
		p.Bool(v.Value != nil)
		if v.Value != nil {
			p.Str(*v.Value)
		}
	}
}

func packAssetRefs(p *pack.Writer, rs []assetRef) {
	if rs == nil {
		p.Uvarint(0)
		return
	}
	p.Uvarint(uint64(len(rs)) + 1)
	for _, r := range rs {
		p.Str(r.Name)
		p.Str(r.AssetID)
		p.Str(r.VersionID)
		p.Str(r.Hash)
		p.Str(r.Type)
	}
}

func packDefinitions(p *pack.Writer, ds []VariableDefinition) {
	if ds == nil {
		p.Uvarint(0)
		return
	}
	p.Uvarint(uint64(len(ds)) + 1)
	for _, d := range ds {
		p.Str(d.Name)
		p.Str(string(d.Type))
		p.Str(string(d.Behavior))
		p.Byte(pack.Flags(d.PresetValue != nil, d.AllowEmpty))
		if d.PresetValue != nil {
			p.Str(*d.PresetValue)
		}
	}
}

func packOptions(p *pack.Writer, o *LetterOptions) {
	ap := o.AddressProcessing
	p.Byte(pack.Flags(o.Print != nil, o.Mail != nil, o.VariableHandling != nil, ap != nil,
		ap != nil && ap.CassSender != nil, ap != nil && ap.CassRecipient != nil))
	if o.Print != nil {
		p.Bool(o.Print.Color)
		p.Str(o.Print.AddressPlacement)
	}
	if o.Mail != nil {
		p.Str(string(o.Mail.Service))
		if o.Mail.ExtraServices == nil {
			p.Uvarint(0)
		} else {
			p.Uvarint(uint64(len(o.Mail.ExtraServices)) + 1)
			for _, x := range o.Mail.ExtraServices {
				p.Str(string(x))
			}
		}
	}
	if o.VariableHandling != nil {
		p.Str(string(o.VariableHandling.ValidationScope))
	}
	if ap != nil {
		for _, c := range [...]*CassOptions{ap.CassSender, ap.CassRecipient} {
			if c != nil {
				p.Str(string(c.Type))
				p.Str(string(c.Casing))
			}
		}
		p.Str(string(ap.NcoaRecipient))
	}
	p.Str(string(o.DeliverabilityThreshold))
	if o.DeliverabilityValues == nil {
		p.Uvarint(0)
	} else {
		p.Uvarint(uint64(len(o.DeliverabilityValues)) + 1)
		for _, v := range o.DeliverabilityValues {
			p.Str(string(v))
		}
	}
}

func packEvents(p *pack.Writer, es []Event) {
	if es == nil {
		p.Uvarint(0)
		return
	}
	p.Uvarint(uint64(len(es)) + 1)
	for i := range es {
		e := &es[i]
		t := e.TrackingEventDetails
		if t != nil && t.AdditionalData != nil {
			// Decoded JSON of any shape: kept typed, not packed.
			p.Fail()
			return
		}
		// Every time packed is in UTC: an instant equal to CreatedAt reads
		// back as the same time.
		modified := !e.ModifiedAt.Equal(e.CreatedAt)
		stamped := !e.Timestamp.Equal(e.CreatedAt)
		p.Byte(pack.Flags(t != nil, e.ActionRequired, modified, stamped))
		p.Str(e.ID)
		p.Time(e.CreatedAt)
		if modified {
			p.Time(e.ModifiedAt)
		}
		if stamped {
			p.Time(e.Timestamp)
		}
		p.Str(string(e.Type))
		p.Str(string(e.Status))
		p.Str(e.Description)
		p.Str(e.OperationCode)
		p.Str(e.Location)
		if t != nil {
			p.Str(t.Notes)
			p.Str(t.Facility)
			p.Str(t.FacilityType)
			p.Str(t.FacilityZip)
		}
	}
}

func unpackLife(u *pack.Reader, f *postal.Facts) {
	f.Stage = postal.Stage(u.Str())
	f.Events = int32(u.Varint())
	f.SendDate = u.Str()
	f.Outcome = postal.Outcome(u.Str())
	f.From.City, f.From.State, f.From.Zip = u.Str(), u.Str(), u.Str()
	f.To.City, f.To.State, f.To.Zip = u.Str(), u.Str(), u.Str()
	f.Fetch = u.Byte()&1 != 0
}

func unpackParty(u *pack.Reader, x *Party) {
	f := u.Byte()
	x.Address = Address{AddressLine1: u.Str(), AddressLine2: u.Str(), LastLine: u.Str()}
	if f&1 != 0 {
		x.Individual = &Individual{
			FullName: u.Str(), Prefix: u.Str(), FirstName: u.Str(), MiddleName: u.Str(),
			LastName: u.Str(), Postfix: u.Str(), Title: u.Str(),
		}
	}
	x.Organization = u.Str()
	x.NonAddressData = u.Str()
	if f&2 != 0 {
		x.AddressComponents = &AddressComponents{
			CassType: CassType(u.Str()), Urbanization: u.Str(), City: u.Str(), State: u.Str(),
			ZipCode: u.Str(), Plus4Code: u.Str(),
		}
	}
	if f&4 != 0 {
		x.AddressAnalysis = &AddressAnalysis{
			DpvMatchCode: u.Str(), DpvFootnotes: u.Strs(), DpvCmra: u.Str(), DpvVacant: u.Str(),
			DpvNoStat: u.Str(), DpvActive: u.Str(), DpvInactiveReason: u.Str(), DpvThrowback: u.Str(),
			DpvNonDeliveryDayIndicator: u.Str(), DpvNonDeliveryDayValues: u.Str(),
			DpvNoSecureLocation: u.Str(), DpvDoorNotAccessible: u.Str(), LacslinkCode: u.Str(),
			LacslinkIndicator: u.Str(), SuitelinkIndicator: u.Str(), EwsIndicator: u.Bool(),
		}
	}
	if f&8 != 0 {
		n := u.Uvarint()
		if n > uint64(len(u.Rest())) {
			u.Fail("length")
			n = 0
		}
		x.AddressCorrections = make([]AddressCorrection, n)
		for i := range x.AddressCorrections {
			x.AddressCorrections[i] = AddressCorrection{Name: u.Str(), Input: u.Str(), Corrected: u.Str()}
		}
	}
	if f&16 != 0 {
		x.AddressMetadata = &AddressMetadata{
			RecordType: u.Str(), AddressType: u.Str(), ZipCodeType: u.Str(), County: u.Str(),
			CountyFips: u.Str(), CarrierRoute: u.Str(), CarrierRouteType: u.Str(),
			CongressionalDistrict: u.Str(), DefaultBuildingAddress: u.Bool(), ElotSequence: u.Str(),
			ElotSort: u.Str(), Latitude: u.Float(), Longitude: u.Float(), Precision: u.Str(),
			UspsFinanceNumber: u.Str(), TimeZone: u.Str(),
		}
	}
}

func unpackVariables(u *pack.Reader) []Variable {
	n, ok := u.Count()
	if !ok {
		return nil
	}
	vs := make([]Variable, n)
	for i := range vs {
		vs[i].Name = u.Str()
		if u.Bool() {
			v := u.Str()
			vs[i].Value = &v
		}
	}
	return vs
}

func unpackAssetRefs(u *pack.Reader) []assetRef {
	n, ok := u.Count()
	if !ok {
		return nil
	}
	rs := make([]assetRef, n)
	for i := range rs {
		rs[i] = assetRef{Name: u.Str(), AssetID: u.Str(), VersionID: u.Str(), Hash: u.Str(), Type: u.Str()}
	}
	return rs
}

func unpackDefinitions(u *pack.Reader) []VariableDefinition {
	n, ok := u.Count()
	if !ok {
		return nil
	}
	ds := make([]VariableDefinition, n)
	for i := range ds {
		d := &ds[i]
		d.Name = u.Str()
		d.Type = VariableType(u.Str())
		d.Behavior = VariableBehavior(u.Str())
		f := u.Byte()
		d.AllowEmpty = f&2 != 0
		if f&1 != 0 {
			v := u.Str()
			d.PresetValue = &v
		}
	}
	return ds
}

func unpackOptions(u *pack.Reader, o *LetterOptions) {
	f := u.Byte()
	if f&1 != 0 {
		o.Print = &PrintOptions{Color: u.Bool(), AddressPlacement: u.Str()}
	}
	if f&2 != 0 {
		o.Mail = &MailOptions{Service: MailService(u.Str())}
		if n, ok := u.Count(); ok {
			o.Mail.ExtraServices = make([]ExtraService, n)
			for i := range o.Mail.ExtraServices {
				o.Mail.ExtraServices[i] = ExtraService(u.Str())
			}
		}
	}
	if f&4 != 0 {
		o.VariableHandling = &VariableHandling{ValidationScope: ValidationScope(u.Str())}
	}
	if f&8 != 0 {
		ap := &AddressProcessing{}
		if f&16 != 0 {
			ap.CassSender = &CassOptions{Type: CassType(u.Str()), Casing: Casing(u.Str())}
		}
		if f&32 != 0 {
			ap.CassRecipient = &CassOptions{Type: CassType(u.Str()), Casing: Casing(u.Str())}
		}
		ap.NcoaRecipient = NcoaOption(u.Str())
		o.AddressProcessing = ap
	}
	o.DeliverabilityThreshold = DeliverabilityThreshold(u.Str())
	if n, ok := u.Count(); ok {
		o.DeliverabilityValues = make([]Deliverability, n)
		for i := range o.DeliverabilityValues {
			o.DeliverabilityValues[i] = Deliverability(u.Str())
		}
	}
}

func unpackEvents(u *pack.Reader) []Event {
	n, ok := u.Count()
	if !ok {
		return nil
	}
	es := make([]Event, n)
	for i := range es {
		e := &es[i]
		f := u.Byte()
		e.ID = u.Str()
		e.CreatedAt = u.Time()
		e.ModifiedAt, e.Timestamp = e.CreatedAt, e.CreatedAt
		if f&4 != 0 {
			e.ModifiedAt = u.Time()
		}
		if f&8 != 0 {
			e.Timestamp = u.Time()
		}
		e.Type = EventType(u.Str())
		e.Status = EventStatus(u.Str())
		e.Description = u.Str()
		e.OperationCode = u.Str()
		e.Location = u.Str()
		e.ActionRequired = f&2 != 0
		if f&1 != 0 {
			e.TrackingEventDetails = &TrackingEventDetails{
				Notes: u.Str(), Facility: u.Str(), FacilityType: u.Str(), FacilityZip: u.Str(),
			}
		}
	}
	return es
}

// KeptSize implements lettersnap.Sizer: the letter's own part, which a
// snapshot of it shares with the store.
func (k *keptLetter) KeptSize() int { return len(k.data) }

// The lifecycle steps a kept letter through these (lifecycle_records.go:
// stepper).

func (k *keptLetter) facts(f *postal.Facts) bool {
	r := pack.NewReader(k.data, keptWords)
	unpackLife(&r, f)
	return r.Err() == nil
}

// stepped makes the new kept form from the old one's parts: the life facts
// f, the middle part copied as it is, the old events copied and the new
// ones packed after them, straight from the postal events. Nothing of the
// letter is unpacked but its life facts, and the new events' ids and the
// notices' are parts of the one new string. It reports false for a form it
// cannot read or an event it cannot pack; the caller then unpacks the
// letter.
func (k *keptLetter) stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	if len(added) == 0 {
		return k, notices, true
	}
	u := pack.NewReader(k.data, keptWords)
	var old postal.Facts
	unpackLife(&u, &old)
	mid := u.Uvarint()
	midStart := u.Pos()
	if u.Err() != nil || !u.Skip(mid) {
		return nil, nil, false
	}
	n, _ := u.Count()
	if u.Err() != nil {
		return nil, nil, false
	}
	p := pack.Get(keptWords)
	defer p.Release()
	packLife(p, f)
	p.Uvarint(mid)
	p.B = append(p.B, k.data[midStart:midStart+int(mid)]...)
	p.Uvarint(uint64(n+len(added)) + 1)
	p.B = append(p.B, u.Rest()...)
	var ids [16]int // where each new event's id starts in p.B
	if len(added) > len(ids) {
		return nil, nil, false
	}
	for i := range added {
		e := &added[i]
		if e.At.Location() != time.UTC {
			return nil, nil, false
		}
		p.Byte(pack.Flags(e.Tracking, e.ActionRequired))
		p.Uvarint(uint64(eventIDLen) << 1)
		ids[i] = len(p.B)
		p.B = appendEventID(p.B, id, e.N, e.At)
		p.Time(e.At)
		if e.Tracking {
			p.Str(string(eventTracking))
		} else {
			p.Str(string(eventStatus))
		}
		p.Str(string(e.Status))
		p.Str(e.Description)
		p.Str(e.OperationCode)
		p.Str(e.Location)
		if e.Tracking {
			p.Str(e.Notes)
			p.Str(e.Facility)
			p.Str(e.FacilityType)
			p.Str(e.FacilityZip)
		}
	}
	if p.Err() != nil {
		return nil, nil, false
	}
	data := p.String()
	notices = slices.Grow(notices, len(added))
	for i := range added {
		e := &added[i]
		notices = append(notices, storage.Notice{
			EventID: data[ids[i] : ids[i]+eventIDLen], Type: noticeType(EventStatus(e.Status), e.N),
			Seq: e.N, At: e.At, RetryUntil: e.At.Add(WebhookRetryPeriod),
		})
	}
	return &keptLetter{data: data, shared: k.shared}, notices, true
}
