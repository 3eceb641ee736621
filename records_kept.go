package lettershop

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
	"unique"

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

// errUnkeepable stops packing a document that holds what the packed form
// does not.
var errUnkeepable = errors.New("not keepable")

// keepLetter packs d, and reports false when d holds what a keptLetter
// does not.
func keepLetter(d *letterDoc) (*keptLetter, bool) {
	p := packers.Get().(*packer)
	defer p.release()
	p.life(&d.Life)
	// The middle part, which a lifecycle step leaves as it is, goes after
	// its length, so that a step copies it without reading it
	// (advanceKept).
	lifeEnd := len(p.b)
	p.party(&d.Sender)
	p.party(&d.Recipient)
	p.str(string(d.UseType))
	p.str(d.SendDate)
	p.str(d.Description)
	p.variables(d.Variables)
	p.options(&d.Options)
	p.str(d.IssueMessage)
	p.variables(d.Snapshot.Merge)
	p.assetRefs(d.Snapshot.Assets)
	var n [binary.MaxVarintLen64]byte
	p.b = slices.Insert(p.b, lifeEnd, n[:binary.PutUvarint(n[:], uint64(len(p.b)-lifeEnd))]...)
	p.events(d.Events)
	if p.err != nil {
		return nil, false
	}
	data := string(p.b)
	p.b = p.b[:0]
	p.definitions(d.Snapshot.Definitions)
	if p.err != nil {
		return nil, false
	}
	shared := unique.Make(keptContent{
		contentType: d.Content.Type, assetID: d.Content.AssetID, versionID: d.Content.AssetVersionID,
		hash: d.Snapshot.Hash, snapType: d.Snapshot.Type, definitions: string(p.b),
	})
	return &keptLetter{data: data, shared: shared}, true
}

// unpack writes the document k was made from into d.
func (k *keptLetter) unpack(d *letterDoc) error {
	c := k.shared.Value()
	u := unpacker{s: k.data}
	u.life(&d.Life)
	mid := u.uvarint()
	midStart := u.i
	u.party(&d.Sender)
	u.party(&d.Recipient)
	d.Content = LetterContent{Type: c.contentType, AssetID: c.assetID, AssetVersionID: c.versionID}
	d.UseType = UseType(u.str())
	d.SendDate = u.str()
	d.Description = u.str()
	d.Variables = u.variables()
	u.options(&d.Options)
	d.IssueMessage = u.str()
	d.Snapshot.Merge = u.variables()
	d.Snapshot.Assets = u.assetRefs()
	if uint64(u.i-midStart) != mid {
		u.fail("middle part")
	}
	d.Events = u.events()
	d.Snapshot.Hash, d.Snapshot.Type = c.hash, c.snapType
	du := unpacker{s: c.definitions}
	d.Snapshot.Definitions = du.definitions()
	u.end()
	du.end()
	if err := errors.Join(u.err, du.err); err != nil {
		return fmt.Errorf("kept letter document: %w", err)
	}
	return nil
}

// The packed form is the life facts, the length of the middle part (the
// parties, content, options and snapshot: what a lifecycle step does not
// change) and the middle part, then the events: each a sequence of values,
// written by one method of packer and read back by the method of the same
// name of unpacker, in the same order:
//
//   - an unsigned number is a uvarint, a signed one a zigzag varint;
//   - a string is a uvarint n: n/2 bytes of text follow when n is even,
//     and when n is odd it is the common word keptWords[n/2];
//   - a slice is its length plus one, 0 for nil, then its elements;
//   - an optional part (a pointer) is a flag bit in a byte before it;
//   - a time is its Unix seconds, then its nanoseconds (as milliseconds
//     when whole); only UTC times are packed.
//
// The form lives only in memory, never on disk or the wire, so it may
// change from one build to the next.

// keptWords are values many letters hold, packed as a number each.
var keptWords = [...]string{
	"queued", "ready", "inProduction", "mailed", "issue", "canceled",
	"inTransit", "inLocalArea", "processedForDelivery", "delivered", "reRouted", "returnedToSender",
	"status", "tracking", "marketing", "transactional", "asset", "none", "basic", "proper", "upper",
	"firstClass", "standard", "normal", "strict", "relaxed", "newAddress", "value", "required", "optional",
	"Letter received", requeuedDescription,
	"Letter processed and ready for printing", "Letter is being printed and enclosed",
	"Letter handed to the postal service", "Canceled at the sender's request",
}

var keptWordIndex = func() map[string]int {
	m := make(map[string]int, len(keptWords))
	for i, w := range keptWords {
		m[w] = i
	}
	return m
}()

// packer writes the packed form into b. It is pooled: a letter is packed
// into a scratch buffer and then copied once into a string of its size.
type packer struct {
	b   []byte
	err error
}

var packers = sync.Pool{New: func() any { return &packer{b: make([]byte, 0, 1024)} }}

func (p *packer) release() {
	if cap(p.b) > 64<<10 {
		return
	}
	p.b, p.err = p.b[:0], nil
	packers.Put(p)
}

func (p *packer) uvarint(v uint64) {
	for v >= 0x80 {
		p.b = append(p.b, byte(v)|0x80)
		v >>= 7
	}
	p.b = append(p.b, byte(v))
}

func (p *packer) varint(v int64) { p.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

func (p *packer) byte(c byte) { p.b = append(p.b, c) }

func (p *packer) bool(v bool) {
	if v {
		p.byte(1)
	} else {
		p.byte(0)
	}
}

func (p *packer) str(s string) {
	if len(s) <= 40 {
		if i, ok := keptWordIndex[s]; ok && s != "" {
			p.uvarint(uint64(i)<<1 | 1)
			return
		}
	}
	p.uvarint(uint64(len(s)) << 1)
	p.b = append(p.b, s...)
}

func (p *packer) strs(ss []string) {
	if ss == nil {
		p.uvarint(0)
		return
	}
	p.uvarint(uint64(len(ss)) + 1)
	for _, s := range ss {
		p.str(s)
	}
}

func (p *packer) float(f float64) { p.uvarint(math.Float64bits(f)) }

func (p *packer) time(t time.Time) {
	if t.Location() != time.UTC {
		p.err = errUnkeepable
		return
	}
	p.varint(t.Unix())
	if ns := uint64(t.Nanosecond()); ns%1e6 == 0 {
		p.uvarint((ns / 1e6) << 1)
	} else {
		p.uvarint(ns<<1 | 1)
	}
}

// flags packs up to eight conditions into one byte, the first the lowest
// bit.
func flags(conds ...bool) byte {
	var f byte
	for i, c := range conds {
		if c {
			f |= 1 << i
		}
	}
	return f
}

func (p *packer) life(f *postal.Facts) {
	p.str(string(f.Stage))
	p.varint(int64(f.Events))
	p.str(f.SendDate)
	p.str(string(f.Outcome))
	p.str(f.From.City)
	p.str(f.From.State)
	p.str(f.From.Zip)
	p.str(f.To.City)
	p.str(f.To.State)
	p.str(f.To.Zip)
	p.byte(flags(f.Fetch))
}

func (p *packer) party(x *Party) {
	p.byte(flags(x.Individual != nil, x.AddressComponents != nil, x.AddressAnalysis != nil,
		x.AddressCorrections != nil, x.AddressMetadata != nil))
	p.str(x.Address.AddressLine1)
	p.str(x.Address.AddressLine2)
	p.str(x.Address.LastLine)
	if i := x.Individual; i != nil {
		p.str(i.FullName)
		p.str(i.Prefix)
		p.str(i.FirstName)
		p.str(i.MiddleName)
		p.str(i.LastName)
		p.str(i.Postfix)
		p.str(i.Title)
	}
	p.str(x.Organization)
	p.str(x.NonAddressData)
	if c := x.AddressComponents; c != nil {
		p.str(string(c.CassType))
		p.str(c.Urbanization)
		p.str(c.City)
		p.str(c.State)
		p.str(c.ZipCode)
		p.str(c.Plus4Code)
	}
	if a := x.AddressAnalysis; a != nil {
		p.str(a.DpvMatchCode)
		p.strs(a.DpvFootnotes)
		for _, s := range [...]string{a.DpvCmra, a.DpvVacant, a.DpvNoStat, a.DpvActive, a.DpvInactiveReason,
			a.DpvThrowback, a.DpvNonDeliveryDayIndicator, a.DpvNonDeliveryDayValues, a.DpvNoSecureLocation,
			a.DpvDoorNotAccessible, a.LacslinkCode, a.LacslinkIndicator, a.SuitelinkIndicator} {
			p.str(s)
		}
		p.bool(a.EwsIndicator)
	}
	if x.AddressCorrections != nil {
		p.uvarint(uint64(len(x.AddressCorrections)))
		for _, c := range x.AddressCorrections {
			p.str(c.Name)
			p.str(c.Input)
			p.str(c.Corrected)
		}
	}
	if m := x.AddressMetadata; m != nil {
		for _, s := range [...]string{m.RecordType, m.AddressType, m.ZipCodeType, m.County, m.CountyFips,
			m.CarrierRoute, m.CarrierRouteType, m.CongressionalDistrict} {
			p.str(s)
		}
		p.bool(m.DefaultBuildingAddress)
		p.str(m.ElotSequence)
		p.str(m.ElotSort)
		p.float(m.Latitude)
		p.float(m.Longitude)
		p.str(m.Precision)
		p.str(m.UspsFinanceNumber)
		p.str(m.TimeZone)
	}
}

func (p *packer) variables(vs []Variable) {
	if vs == nil {
		p.uvarint(0)
		return
	}
	p.uvarint(uint64(len(vs)) + 1)
	for _, v := range vs {
		p.str(v.Name)
		p.bool(v.Value != nil)
		if v.Value != nil {
			p.str(*v.Value)
		}
	}
}

func (p *packer) assetRefs(rs []assetRef) {
	if rs == nil {
		p.uvarint(0)
		return
	}
	p.uvarint(uint64(len(rs)) + 1)
	for _, r := range rs {
		p.str(r.Name)
		p.str(r.AssetID)
		p.str(r.VersionID)
		p.str(r.Hash)
		p.str(r.Type)
	}
}

func (p *packer) definitions(ds []VariableDefinition) {
	if ds == nil {
		p.uvarint(0)
		return
	}
	p.uvarint(uint64(len(ds)) + 1)
	for _, d := range ds {
		p.str(d.Name)
		p.str(string(d.Type))
		p.str(string(d.Behavior))
		p.byte(flags(d.PresetValue != nil, d.AllowEmpty))
		if d.PresetValue != nil {
			p.str(*d.PresetValue)
		}
	}
}

func (p *packer) options(o *LetterOptions) {
	ap := o.AddressProcessing
	p.byte(flags(o.Print != nil, o.Mail != nil, o.VariableHandling != nil, ap != nil,
		ap != nil && ap.CassSender != nil, ap != nil && ap.CassRecipient != nil))
	if o.Print != nil {
		p.bool(o.Print.Color)
		p.str(o.Print.AddressPlacement)
	}
	if o.Mail != nil {
		p.str(string(o.Mail.Service))
		if o.Mail.ExtraServices == nil {
			p.uvarint(0)
		} else {
			p.uvarint(uint64(len(o.Mail.ExtraServices)) + 1)
			for _, x := range o.Mail.ExtraServices {
				p.str(string(x))
			}
		}
	}
	if o.VariableHandling != nil {
		p.str(string(o.VariableHandling.ValidationScope))
	}
	if ap != nil {
		for _, c := range [...]*CassOptions{ap.CassSender, ap.CassRecipient} {
			if c != nil {
				p.str(string(c.Type))
				p.str(string(c.Casing))
			}
		}
		p.str(string(ap.NcoaRecipient))
	}
	p.str(string(o.DeliverabilityThreshold))
	if o.DeliverabilityValues == nil {
		p.uvarint(0)
	} else {
		p.uvarint(uint64(len(o.DeliverabilityValues)) + 1)
		for _, v := range o.DeliverabilityValues {
			p.str(string(v))
		}
	}
}

func (p *packer) events(es []Event) {
	if es == nil {
		p.uvarint(0)
		return
	}
	p.uvarint(uint64(len(es)) + 1)
	for i := range es {
		e := &es[i]
		t := e.TrackingEventDetails
		if t != nil && t.AdditionalData != nil {
			// Decoded JSON of any shape: kept typed, not packed.
			p.err = errUnkeepable
			return
		}
		// Every time packed is in UTC: an instant equal to CreatedAt reads
		// back as the same time.
		modified := !e.ModifiedAt.Equal(e.CreatedAt)
		stamped := !e.Timestamp.Equal(e.CreatedAt)
		p.byte(flags(t != nil, e.ActionRequired, modified, stamped))
		p.str(e.ID)
		p.time(e.CreatedAt)
		if modified {
			p.time(e.ModifiedAt)
		}
		if stamped {
			p.time(e.Timestamp)
		}
		p.str(string(e.Type))
		p.str(string(e.Status))
		p.str(e.Description)
		p.str(e.OperationCode)
		p.str(e.Location)
		if t != nil {
			p.str(t.Notes)
			p.str(t.Facility)
			p.str(t.FacilityType)
			p.str(t.FacilityZip)
		}
	}
}

// unpacker reads the packed form from s. Its strings are parts of s. A
// form that ends early, or holds a number out of range, sets err; the
// values read after that are zero.
type unpacker struct {
	s   string
	i   int
	err error
}

// end sets err if bytes are left over: what was packed was not all read
// back.
func (u *unpacker) end() {
	if u.i != len(u.s) && u.err == nil {
		u.err = fmt.Errorf("%d bytes left over", len(u.s)-u.i)
	}
}

func (u *unpacker) fail(what string) {
	if u.err == nil {
		u.err = fmt.Errorf("bad %s at byte %d of %d", what, u.i, len(u.s))
	}
	u.i = len(u.s)
}

func (u *unpacker) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if u.i >= len(u.s) {
			u.fail("number")
			return 0
		}
		c := u.s[u.i]
		u.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	u.fail("number")
	return 0
}

func (u *unpacker) varint() int64 {
	v := u.uvarint()
	return int64(v>>1) ^ -int64(v&1)
}

func (u *unpacker) byte() byte {
	if u.i >= len(u.s) {
		u.fail("byte")
		return 0
	}
	c := u.s[u.i]
	u.i++
	return c
}

func (u *unpacker) bool() bool { return u.byte() != 0 }

func (u *unpacker) str() string {
	n := u.uvarint()
	if n&1 == 1 {
		if n>>1 >= uint64(len(keptWords)) {
			u.fail("word")
			return ""
		}
		return keptWords[n>>1]
	}
	n >>= 1
	if n > uint64(len(u.s)-u.i) {
		u.fail("string")
		return ""
	}
	s := u.s[u.i : u.i+int(n)]
	u.i += int(n)
	return s
}

// count reads a slice's length plus one, and reports false for nil.
func (u *unpacker) count() (int, bool) {
	n := u.uvarint()
	if n == 0 {
		return 0, false
	}
	// Every element takes a byte at least.
	if n-1 > uint64(len(u.s)-u.i) {
		u.fail("length")
		return 0, false
	}
	return int(n - 1), true
}

func (u *unpacker) strs() []string {
	n, ok := u.count()
	if !ok {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = u.str()
	}
	return ss
}

func (u *unpacker) float() float64 { return math.Float64frombits(u.uvarint()) }

func (u *unpacker) time() time.Time {
	sec := u.varint()
	ns := u.uvarint()
	if ns&1 == 0 {
		ns = (ns >> 1) * 1e6
	} else {
		ns >>= 1
	}
	if ns >= 1e9 {
		u.fail("time")
		return time.Time{}
	}
	return time.Unix(sec, int64(ns)).UTC()
}

func (u *unpacker) life(f *postal.Facts) {
	f.Stage = postal.Stage(u.str())
	f.Events = int32(u.varint())
	f.SendDate = u.str()
	f.Outcome = postal.Outcome(u.str())
	f.From.City, f.From.State, f.From.Zip = u.str(), u.str(), u.str()
	f.To.City, f.To.State, f.To.Zip = u.str(), u.str(), u.str()
	f.Fetch = u.byte()&1 != 0
}

func (u *unpacker) party(x *Party) {
	f := u.byte()
	x.Address = Address{AddressLine1: u.str(), AddressLine2: u.str(), LastLine: u.str()}
	if f&1 != 0 {
		x.Individual = &Individual{
			FullName: u.str(), Prefix: u.str(), FirstName: u.str(), MiddleName: u.str(),
			LastName: u.str(), Postfix: u.str(), Title: u.str(),
		}
	}
	x.Organization = u.str()
	x.NonAddressData = u.str()
	if f&2 != 0 {
		x.AddressComponents = &AddressComponents{
			CassType: CassType(u.str()), Urbanization: u.str(), City: u.str(), State: u.str(),
			ZipCode: u.str(), Plus4Code: u.str(),
		}
	}
	if f&4 != 0 {
		x.AddressAnalysis = &AddressAnalysis{
			DpvMatchCode: u.str(), DpvFootnotes: u.strs(), DpvCmra: u.str(), DpvVacant: u.str(),
			DpvNoStat: u.str(), DpvActive: u.str(), DpvInactiveReason: u.str(), DpvThrowback: u.str(),
			DpvNonDeliveryDayIndicator: u.str(), DpvNonDeliveryDayValues: u.str(),
			DpvNoSecureLocation: u.str(), DpvDoorNotAccessible: u.str(), LacslinkCode: u.str(),
			LacslinkIndicator: u.str(), SuitelinkIndicator: u.str(), EwsIndicator: u.bool(),
		}
	}
	if f&8 != 0 {
		n := u.uvarint()
		if n > uint64(len(u.s)-u.i) {
			u.fail("length")
			n = 0
		}
		x.AddressCorrections = make([]AddressCorrection, n)
		for i := range x.AddressCorrections {
			x.AddressCorrections[i] = AddressCorrection{Name: u.str(), Input: u.str(), Corrected: u.str()}
		}
	}
	if f&16 != 0 {
		x.AddressMetadata = &AddressMetadata{
			RecordType: u.str(), AddressType: u.str(), ZipCodeType: u.str(), County: u.str(),
			CountyFips: u.str(), CarrierRoute: u.str(), CarrierRouteType: u.str(),
			CongressionalDistrict: u.str(), DefaultBuildingAddress: u.bool(), ElotSequence: u.str(),
			ElotSort: u.str(), Latitude: u.float(), Longitude: u.float(), Precision: u.str(),
			UspsFinanceNumber: u.str(), TimeZone: u.str(),
		}
	}
}

func (u *unpacker) variables() []Variable {
	n, ok := u.count()
	if !ok {
		return nil
	}
	vs := make([]Variable, n)
	for i := range vs {
		vs[i].Name = u.str()
		if u.bool() {
			v := u.str()
			vs[i].Value = &v
		}
	}
	return vs
}

func (u *unpacker) assetRefs() []assetRef {
	n, ok := u.count()
	if !ok {
		return nil
	}
	rs := make([]assetRef, n)
	for i := range rs {
		rs[i] = assetRef{Name: u.str(), AssetID: u.str(), VersionID: u.str(), Hash: u.str(), Type: u.str()}
	}
	return rs
}

func (u *unpacker) definitions() []VariableDefinition {
	n, ok := u.count()
	if !ok {
		return nil
	}
	ds := make([]VariableDefinition, n)
	for i := range ds {
		d := &ds[i]
		d.Name = u.str()
		d.Type = VariableType(u.str())
		d.Behavior = VariableBehavior(u.str())
		f := u.byte()
		d.AllowEmpty = f&2 != 0
		if f&1 != 0 {
			v := u.str()
			d.PresetValue = &v
		}
	}
	return ds
}

func (u *unpacker) options(o *LetterOptions) {
	f := u.byte()
	if f&1 != 0 {
		o.Print = &PrintOptions{Color: u.bool(), AddressPlacement: u.str()}
	}
	if f&2 != 0 {
		o.Mail = &MailOptions{Service: MailService(u.str())}
		if n, ok := u.count(); ok {
			o.Mail.ExtraServices = make([]ExtraService, n)
			for i := range o.Mail.ExtraServices {
				o.Mail.ExtraServices[i] = ExtraService(u.str())
			}
		}
	}
	if f&4 != 0 {
		o.VariableHandling = &VariableHandling{ValidationScope: ValidationScope(u.str())}
	}
	if f&8 != 0 {
		ap := &AddressProcessing{}
		if f&16 != 0 {
			ap.CassSender = &CassOptions{Type: CassType(u.str()), Casing: Casing(u.str())}
		}
		if f&32 != 0 {
			ap.CassRecipient = &CassOptions{Type: CassType(u.str()), Casing: Casing(u.str())}
		}
		ap.NcoaRecipient = NcoaOption(u.str())
		o.AddressProcessing = ap
	}
	o.DeliverabilityThreshold = DeliverabilityThreshold(u.str())
	if n, ok := u.count(); ok {
		o.DeliverabilityValues = make([]Deliverability, n)
		for i := range o.DeliverabilityValues {
			o.DeliverabilityValues[i] = Deliverability(u.str())
		}
	}
}

func (u *unpacker) events() []Event {
	n, ok := u.count()
	if !ok {
		return nil
	}
	es := make([]Event, n)
	for i := range es {
		e := &es[i]
		f := u.byte()
		e.ID = u.str()
		e.CreatedAt = u.time()
		e.ModifiedAt, e.Timestamp = e.CreatedAt, e.CreatedAt
		if f&4 != 0 {
			e.ModifiedAt = u.time()
		}
		if f&8 != 0 {
			e.Timestamp = u.time()
		}
		e.Type = EventType(u.str())
		e.Status = EventStatus(u.str())
		e.Description = u.str()
		e.OperationCode = u.str()
		e.Location = u.str()
		e.ActionRequired = f&2 != 0
		if f&1 != 0 {
			e.TrackingEventDetails = &TrackingEventDetails{
				Notes: u.str(), Facility: u.str(), FacilityType: u.str(), FacilityZip: u.str(),
			}
		}
	}
	return es
}
