package wire

import (
	"errors"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop"
)

// cassSpans are where a letter's encoding holds the sender's and the
// recipient's CASS details (addressAnalysis, addressCorrections and
// addressMetadata, each party's last members, with the comma before them),
// as offsets from the encoding's first byte.
type cassSpans [2][2]int32

// len is the bytes the spans hold.
func (c *cassSpans) len() int { return int(c[0][1] - c[0][0] + c[1][1] - c[1][0]) }

// appendWithout appends data, a letter encoded with its CASS details,
// without the spans to dst and returns the extended slice: the letter as a
// list without CASS details shows it.
func (c *cassSpans) appendWithout(dst, data []byte) []byte {
	dst = append(dst, data[:c[0][0]]...)
	dst = append(dst, data[c[0][1]:c[1][0]]...)
	return append(dst, data[c[1][1]:]...)
}

// appendLetter appends l as the API shows it to dst, leaving out the CASS
// details when cassLeftOut: the bytes encoding/json writes for the shape
// in reference_test.go, written field by field. Building the intermediate
// shapes and walking them by reflection was most of what encoding a letter
// cost, and a letter is encoded for every letter created and every read of
// one not kept (cache.go). TestLetterJSONMatchesEncodingJSON and
// FuzzLetterJSON hold the two to the same bytes. Unless cut is nil, it
// sets in it, when !cassLeftOut, where in what it appended the CASS
// details are: cut out, the rest is the letter as a list without them
// shows it.
func appendLetter(dst []byte, l *lettershop.Letter, cassLeftOut bool, cut *cassSpans) ([]byte, error) {
	// Every part is a function of the slice that returns it: a writer
	// holding the slice behind a pointer took a write barrier at every
	// append while the collector ran.
	var err error
	b := dst
	b = append(b, `{"id":`...)
	b = appendStr(b, l.ID)
	b = append(b, `,"status":`...)
	b = appendStr(b, string(l.Status))
	b = append(b, `,"sender":`...)
	var spans cassSpans
	b = appendParty(b, &l.Sender, false, cassLeftOut, &spans[0], &err)
	b = append(b, `,"recipient":`...)
	b = appendParty(b, &l.Recipient, true, cassLeftOut, &spans[1], &err)
	b = append(b, `,"content":{"type":`...)
	b = appendStr(b, string(l.Content.Type))
	b = append(b, `,"assetId":`...)
	b = appendStr(b, l.Content.AssetID)
	if l.Content.AssetVersionID != "" {
		b = append(b, `,"assetVersionId":`...)
		b = appendStr(b, l.Content.AssetVersionID)
	}
	b = append(b, `},"useType":`...)
	b = appendStr(b, string(l.UseType))
	b = append(b, `,"events":[`...)
	for i := range l.Events {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEvent(b, &l.Events[i], &err)
	}
	b = append(b, `],"createdAt":`...)
	b = appendTime(b, l.CreatedAt, &err)
	b = append(b, `,"modifiedAt":`...)
	b = appendTime(b, l.ModifiedAt, &err)
	b = append(b, `,"externalId":`...)
	b = appendNullable(b, l.ExternalID)
	b = append(b, `,"sendDate":`...)
	b = appendNullable(b, l.SendDate)
	b = append(b, `,"description":`...)
	b = appendNullable(b, l.Description)
	b = append(b, `,"url":`...)
	b = appendStr(b, l.URL)
	b = append(b, `,"variables":`...)
	if l.Variables == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, v := range l.Variables {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendStr(b, v.Name)
			b = append(b, `,"value":`...)
			if v.Value == nil {
				b = append(b, "null"...)
			} else {
				b = appendStr(b, *v.Value)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"options":`...)
	b = appendOptions(b, &l.Options)
	b = append(b, `,"issueMessage":`...)
	b = appendNullable(b, l.IssueMessage)
	b = append(b, `,"metadata":`...)
	if l.Metadata == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range l.Metadata {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"key":`...)
			b = appendStr(b, p.Key)
			b = append(b, `,"value":`...)
			b = appendStr(b, p.Value)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	if cut != nil && !cassLeftOut {
		for i := range spans {
			cut[i] = [2]int32{spans[i][0] - int32(len(dst)), spans[i][1] - int32(len(dst))}
		}
	}
	return b, err
}

// The functions below append JSON to b and return it; those that can fail
// keep the first error in *err.

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendStr(b, s)
}

// appendStr writes s as encoding/json writes a string, HTML characters
// escaped: invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				// Control characters and <, >, &.
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendStrs writes ss, of any string type, as encoding/json writes a
// slice of strings: null for nil.
func appendStrs[S ~string](b []byte, ss []S) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, string(s))
	}
	return append(b, ']')
}

// jsonSafe holds the ASCII characters a JSON string takes as they are with
// HTML escaping on: not a control character, ", \, <, > or &.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendTime writes t as answers show it (lettershop.ShownTime), as
// time.Time's MarshalJSON writes that.
func appendTime(b []byte, t time.Time, err *error) []byte {
	b = append(b, '"')
	b, e := lettershop.ShownTime(t).AppendText(b)
	if e != nil {
		fail(err, e)
	}
	return append(b, '"')
}

func fail(err *error, e error) {
	if *err == nil {
		*err = e
	}
}

// appendFloat writes f as encoding/json writes a float64.
func appendFloat(b []byte, f float64, err *error) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		fail(err, errors.New("json: unsupported value: "+strconv.FormatFloat(f, 'g', -1, 64)))
		return b
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendParty appends p; when !cassLeftOut, with its CASS details, whose
// span in b it sets in cut. Only a recipient has nonAddressData, as the
// reference shows a sender without it (and a letter's input refuses it on
// the sender).
func appendParty(b []byte, p *lettershop.Party, recipient, cassLeftOut bool, cut *[2]int32, err *error) []byte {
	b = append(b, `{"address":{"addressLine1":`...)
	b = appendStr(b, p.Address.AddressLine1)
	b = append(b, `,"addressLine2":`...)
	b = appendNullable(b, p.Address.AddressLine2)
	b = append(b, `,"lastLine":`...)
	b = appendStr(b, p.Address.LastLine)
	b = append(b, `},"individual":`...)
	if i := p.Individual; i == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"fullName":`...)
		b = appendNullable(b, i.FullName)
		b = append(b, `,"prefix":`...)
		b = appendNullable(b, i.Prefix)
		b = append(b, `,"firstName":`...)
		b = appendNullable(b, i.FirstName)
		b = append(b, `,"middleName":`...)
		b = appendNullable(b, i.MiddleName)
		b = append(b, `,"lastName":`...)
		b = appendNullable(b, i.LastName)
		b = append(b, `,"postfix":`...)
		b = appendNullable(b, i.Postfix)
		b = append(b, `,"title":`...)
		b = appendNullable(b, i.Title)
		b = append(b, '}')
	}
	b = append(b, `,"organization":`...)
	b = appendNullable(b, p.Organization)
	if recipient {
		b = append(b, `,"nonAddressData":`...)
		b = appendNullable(b, p.NonAddressData)
	}
	b = append(b, `,"addressComponents":`...)
	if c := p.AddressComponents; c == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"cassType":`...)
		b = appendStr(b, string(c.CassType))
		b = append(b, `,"urbanization":`...)
		b = appendNullable(b, c.Urbanization)
		b = append(b, `,"city":`...)
		b = appendNullable(b, c.City)
		b = append(b, `,"state":`...)
		b = appendNullable(b, c.State)
		b = append(b, `,"zipCode":`...)
		b = appendNullable(b, c.ZipCode)
		b = append(b, `,"plus4Code":`...)
		b = appendNullable(b, c.Plus4Code)
		b = append(b, '}')
	}
	if !cassLeftOut {
		cut[0] = int32(len(b))
		b = append(b, `,"addressAnalysis":`...)
		b = appendAnalysis(b, p.AddressAnalysis)
		b = append(b, `,"addressCorrections":`...)
		if len(p.AddressCorrections) == 0 {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, c := range p.AddressCorrections {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"name":`...)
				b = appendStr(b, c.Name)
				b = append(b, `,"input":`...)
				b = appendStr(b, c.Input)
				b = append(b, `,"corrected":`...)
				b = appendStr(b, c.Corrected)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, `,"addressMetadata":`...)
		b = appendAddressMetadata(b, p.AddressMetadata, err)
		cut[1] = int32(len(b))
	}
	b = append(b, '}')
	return b
}

func appendAnalysis(b []byte, a *lettershop.AddressAnalysis) []byte {
	if a == nil {
		b = append(b, "null"...)
		return b
	}
	b = append(b, `{"dpvMatchCode":`...)
	b = appendStr(b, a.DpvMatchCode)
	b = append(b, `,"dpvFootnotes":`...)
	b = appendStrs(b, a.DpvFootnotes)
	for _, f := range [...]struct{ name, v string }{
		{`,"dpvCmra":`, a.DpvCmra}, {`,"dpvVacant":`, a.DpvVacant}, {`,"dpvNoStat":`, a.DpvNoStat},
		{`,"dpvActive":`, a.DpvActive}, {`,"dpvInactiveReason":`, a.DpvInactiveReason},
		{`,"dpvThrowback":`, a.DpvThrowback}, {`,"dpvNonDeliveryDayIndicator":`, a.DpvNonDeliveryDayIndicator},
		{`,"dpvNonDeliveryDayValues":`, a.DpvNonDeliveryDayValues}, {`,"dpvNoSecureLocation":`, a.DpvNoSecureLocation},
		{`,"dpvDoorNotAccessible":`, a.DpvDoorNotAccessible}, {`,"lacslinkCode":`, a.LacslinkCode},
		{`,"lacslinkIndicator":`, a.LacslinkIndicator}, {`,"suitelinkIndicator":`, a.SuitelinkIndicator},
	} {
		b = append(b, f.name...)
		b = appendStr(b, f.v)
	}
	b = append(b, `,"ewsIndicator":`...)
	b = appendBool(b, a.EwsIndicator)
	b = append(b, '}')
	return b
}

func appendAddressMetadata(b []byte, m *lettershop.AddressMetadata, err *error) []byte {
	if m == nil {
		b = append(b, "null"...)
		return b
	}
	for _, f := range [...]struct{ name, v string }{
		{`{"recordType":`, m.RecordType}, {`,"addressType":`, m.AddressType}, {`,"zipCodeType":`, m.ZipCodeType},
		{`,"county":`, m.County}, {`,"countyFips":`, m.CountyFips}, {`,"carrierRoute":`, m.CarrierRoute},
		{`,"carrierRouteType":`, m.CarrierRouteType}, {`,"congressionalDistrict":`, m.CongressionalDistrict},
	} {
		b = append(b, f.name...)
		b = appendStr(b, f.v)
	}
	b = append(b, `,"defaultBuildingAddress":`...)
	b = appendBool(b, m.DefaultBuildingAddress)
	b = append(b, `,"elotSequence":`...)
	b = appendStr(b, m.ElotSequence)
	b = append(b, `,"elotSort":`...)
	b = appendStr(b, m.ElotSort)
	b = append(b, `,"latitude":`...)
	b = appendFloat(b, m.Latitude, err)
	b = append(b, `,"longitude":`...)
	b = appendFloat(b, m.Longitude, err)
	b = append(b, `,"precision":`...)
	b = appendStr(b, m.Precision)
	b = append(b, `,"uspsFinanceNumber":`...)
	b = appendStr(b, m.UspsFinanceNumber)
	b = append(b, `,"timeZone":`...)
	b = appendStr(b, m.TimeZone)
	b = append(b, '}')
	return b
}

func appendEvent(b []byte, e *lettershop.Event, err *error) []byte {
	b = append(b, `{"id":`...)
	b = appendStr(b, e.ID)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, e.CreatedAt, err)
	b = append(b, `,"modifiedAt":`...)
	b = appendTime(b, e.ModifiedAt, err)
	b = append(b, `,"timestamp":`...)
	b = appendTime(b, e.Timestamp, err)
	b = append(b, `,"type":`...)
	b = appendStr(b, string(e.Type))
	b = append(b, `,"status":`...)
	b = appendStr(b, string(e.Status))
	var d lettershop.TrackingEventDetails
	if e.TrackingEventDetails != nil {
		d = *e.TrackingEventDetails
	}
	b = append(b, `,"trackingEventDetails":{"notes":`...)
	b = appendNullable(b, d.Notes)
	b = append(b, `,"facility":`...)
	b = appendNullable(b, d.Facility)
	b = append(b, `,"facilityType":`...)
	b = appendNullable(b, d.FacilityType)
	b = append(b, `,"facilityZip":`...)
	b = appendNullable(b, d.FacilityZip)
	b = append(b, `,"additionalData":`...)
	if len(d.AdditionalData) == 0 {
		b = append(b, "{}"...)
	} else {
		// Decoded JSON of any shape, rare: the general encoder writes it
		// (sorted keys, as encoding/json).
		data, e := gojson.Marshal(d.AdditionalData)
		if e != nil {
			fail(err, e)
		}
		b = append(b, data...)
	}
	b = append(b, `},"description":`...)
	b = appendNullable(b, e.Description)
	b = append(b, `,"operationCode":`...)
	b = appendNullable(b, e.OperationCode)
	b = append(b, `,"actionRequired":`...)
	b = appendBool(b, e.ActionRequired)
	b = append(b, `,"location":`...)
	b = appendNullable(b, e.Location)
	b = append(b, '}')
	return b
}

func appendOptions(b []byte, o *lettershop.LetterOptions) []byte {
	b = append(b, '{')
	sep := false
	if o.Print != nil {
		b, sep = appendField(b, sep, `"print":{"color":`)
		b = appendBool(b, o.Print.Color)
		if o.Print.AddressPlacement != "" {
			b = append(b, `,"addressPlacement":`...)
			b = appendStr(b, o.Print.AddressPlacement)
		}
		b = append(b, '}')
	}
	if o.Mail != nil {
		b, sep = appendField(b, sep, `"mail":{"service":`)
		b = appendStr(b, string(o.Mail.Service))
		b = append(b, `,"extraServices":`...)
		b = appendStrs(b, o.Mail.ExtraServices)
		b = append(b, '}')
	}
	if o.VariableHandling != nil {
		b, sep = appendField(b, sep, `"variableHandling":{"validationScope":`)
		b = appendStr(b, string(o.VariableHandling.ValidationScope))
		b = append(b, '}')
	}
	if ap := o.AddressProcessing; ap != nil {
		b, sep = appendField(b, sep, `"addressProcessing":{"cassSender":`)
		b = appendCass(b, ap.CassSender)
		b = append(b, `,"cassRecipient":`...)
		b = appendCass(b, ap.CassRecipient)
		if ap.NcoaRecipient != "" {
			b = append(b, `,"ncoaRecipient":`...)
			b = appendStr(b, string(ap.NcoaRecipient))
		}
		b = append(b, '}')
	}
	if o.DeliverabilityThreshold != "" {
		b, sep = appendField(b, sep, `"deliverabilityThreshold":`)
		b = appendStr(b, string(o.DeliverabilityThreshold))
	}
	b, _ = appendField(b, sep, `"deliverabilityValues":`)
	b = appendStrs(b, o.DeliverabilityValues)
	b = append(b, '}')
	return b
}

func appendCass(b []byte, c *lettershop.CassOptions) []byte {
	if c == nil {
		b = append(b, "null"...)
		return b
	}
	b = append(b, `{"type":`...)
	b = appendStr(b, string(c.Type))
	if c.Casing != "" {
		b = append(b, `,"casing":`...)
		b = appendStr(b, string(c.Casing))
	}
	b = append(b, '}')
	return b
}

// appendField writes name, after a comma unless it is the first field.
func appendField(b []byte, sep bool, name string) ([]byte, bool) {
	if sep {
		b = append(b, ',')
	}
	return append(b, name...), true
}
