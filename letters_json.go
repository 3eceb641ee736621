package lettershop

import (
	"encoding/json"
	"time"
)

// A letter is shown with every field of the specification's Letter, Party
// and Event tables, null where there is no value, so a client reading a
// field never meets a missing key. Event's trackingEventDetails is always
// an object with an additionalData object. A list without CASS details
// leaves out addressAnalysis, addressCorrections and addressMetadata
// altogether. The stored form (records.go) is not this one: it leaves out
// what is empty.

type letterJSON struct {
	ID           string        `json:"id"`
	Status       LetterStatus  `json:"status"`
	Sender       partyJSON     `json:"sender"`
	Recipient    partyJSON     `json:"recipient"`
	Content      LetterContent `json:"content"`
	UseType      UseType       `json:"useType"`
	Events       []eventJSON   `json:"events"`
	CreatedAt    time.Time     `json:"createdAt"`
	ModifiedAt   time.Time     `json:"modifiedAt"`
	ExternalID   *string       `json:"externalId"`
	SendDate     *string       `json:"sendDate"`
	Description  *string       `json:"description"`
	URL          string        `json:"url"`
	Variables    []Variable    `json:"variables"`
	Options      LetterOptions `json:"options"`
	IssueMessage *string       `json:"issueMessage"`
	Metadata     Metadata      `json:"metadata"`
}

type partyJSON struct {
	Address           addressJSON     `json:"address"`
	Individual        *individualJSON `json:"individual"`
	Organization      *string         `json:"organization"`
	NonAddressData    *string         `json:"nonAddressData"`
	AddressComponents *componentsJSON `json:"addressComponents"`
	// Raw, so a list can leave them out (nil) and a fetch show null.
	AddressAnalysis    json.RawMessage `json:"addressAnalysis,omitempty"`
	AddressCorrections json.RawMessage `json:"addressCorrections,omitempty"`
	AddressMetadata    json.RawMessage `json:"addressMetadata,omitempty"`
}

type addressJSON struct {
	AddressLine1 string  `json:"addressLine1"`
	AddressLine2 *string `json:"addressLine2"`
	LastLine     string  `json:"lastLine"`
}

type individualJSON struct {
	FullName   *string `json:"fullName"`
	Prefix     *string `json:"prefix"`
	FirstName  *string `json:"firstName"`
	MiddleName *string `json:"middleName"`
	LastName   *string `json:"lastName"`
	Postfix    *string `json:"postfix"`
	Title      *string `json:"title"`
}

type componentsJSON struct {
	CassType     CassType `json:"cassType"`
	Urbanization *string  `json:"urbanization"`
	City         *string  `json:"city"`
	State        *string  `json:"state"`
	ZipCode      *string  `json:"zipCode"`
	Plus4Code    *string  `json:"plus4Code"`
}

type eventJSON struct {
	ID                   string      `json:"id"`
	CreatedAt            time.Time   `json:"createdAt"`
	ModifiedAt           time.Time   `json:"modifiedAt"`
	Timestamp            time.Time   `json:"timestamp"`
	Type                 EventType   `json:"type"`
	Status               EventStatus `json:"status"`
	TrackingEventDetails detailsJSON `json:"trackingEventDetails"`
	Description          *string     `json:"description"`
	OperationCode        *string     `json:"operationCode"`
	ActionRequired       bool        `json:"actionRequired"`
	Location             *string     `json:"location"`
}

type detailsJSON struct {
	Notes          *string        `json:"notes"`
	Facility       *string        `json:"facility"`
	FacilityType   *string        `json:"facilityType"`
	FacilityZip    *string        `json:"facilityZip"`
	AdditionalData map[string]any `json:"additionalData"`
}

// nullable is s, or nil (null) when s is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MarshalJSON writes the letter as the API shows it: every field, null
// where there is no value.
func (l Letter) MarshalJSON() ([]byte, error) {
	b, err := l.appendJSON(make([]byte, 0, letterJSONSize))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// encodeJSON encodes the letter's shape with a general encoder: the
// reference appendJSON is held to.
func (l Letter) encodeJSON(marshal func(any) ([]byte, error)) ([]byte, error) {
	sender, err := l.Sender.toJSON(l.cassLeftOut, marshal)
	if err != nil {
		return nil, err
	}
	recipient, err := l.Recipient.toJSON(l.cassLeftOut, marshal)
	if err != nil {
		return nil, err
	}
	events := make([]eventJSON, len(l.Events))
	for i, e := range l.Events {
		events[i] = e.toJSON()
	}
	return marshal(letterJSON{
		ID: l.ID, Status: l.Status, Sender: sender, Recipient: recipient, Content: l.Content,
		UseType: l.UseType, Events: events, CreatedAt: l.CreatedAt, ModifiedAt: l.ModifiedAt,
		ExternalID: nullable(l.ExternalID), SendDate: nullable(l.SendDate), Description: nullable(l.Description),
		URL: l.URL, Variables: l.Variables, Options: l.Options, IssueMessage: nullable(l.IssueMessage),
		Metadata: l.Metadata,
	})
}

// UnmarshalJSON reads a letter as MarshalJSON writes it. Tracking details
// without any value, as status events show them, are read as none.
func (l *Letter) UnmarshalJSON(b []byte) error {
	type plain Letter
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	for i, e := range p.Events {
		if d := e.TrackingEventDetails; d != nil && len(d.AdditionalData) == 0 {
			d.AdditionalData = nil
			if d.Notes == "" && d.Facility == "" && d.FacilityType == "" && d.FacilityZip == "" {
				p.Events[i].TrackingEventDetails = nil
			}
		}
	}
	*l = Letter(p)
	return nil
}

func (p Party) toJSON(cassLeftOut bool, marshal func(any) ([]byte, error)) (partyJSON, error) {
	out := partyJSON{
		Address: addressJSON{
			AddressLine1: p.Address.AddressLine1, AddressLine2: nullable(p.Address.AddressLine2), LastLine: p.Address.LastLine,
		},
		Organization: nullable(p.Organization), NonAddressData: nullable(p.NonAddressData),
	}
	if i := p.Individual; i != nil {
		out.Individual = &individualJSON{
			FullName: nullable(i.FullName), Prefix: nullable(i.Prefix), FirstName: nullable(i.FirstName),
			MiddleName: nullable(i.MiddleName), LastName: nullable(i.LastName), Postfix: nullable(i.Postfix),
			Title: nullable(i.Title),
		}
	}
	if c := p.AddressComponents; c != nil {
		out.AddressComponents = &componentsJSON{
			CassType: c.CassType, Urbanization: nullable(c.Urbanization), City: nullable(c.City),
			State: nullable(c.State), ZipCode: nullable(c.ZipCode), Plus4Code: nullable(c.Plus4Code),
		}
	}
	if cassLeftOut {
		return out, nil
	}
	var corrections []AddressCorrection
	if len(p.AddressCorrections) > 0 {
		corrections = p.AddressCorrections
	}
	var err error
	for _, f := range []struct {
		dst *json.RawMessage
		v   any
	}{
		{&out.AddressAnalysis, p.AddressAnalysis},
		{&out.AddressCorrections, corrections},
		{&out.AddressMetadata, p.AddressMetadata},
	} {
		if *f.dst, err = marshal(f.v); err != nil {
			return partyJSON{}, err
		}
	}
	return out, nil
}

func (e Event) toJSON() eventJSON {
	var d TrackingEventDetails
	if e.TrackingEventDetails != nil {
		d = *e.TrackingEventDetails
	}
	data := d.AdditionalData
	if data == nil {
		data = map[string]any{}
	}
	return eventJSON{
		ID: e.ID, CreatedAt: e.CreatedAt, ModifiedAt: e.ModifiedAt, Timestamp: e.Timestamp, Type: e.Type,
		Status: e.Status,
		TrackingEventDetails: detailsJSON{
			Notes: nullable(d.Notes), Facility: nullable(d.Facility), FacilityType: nullable(d.FacilityType),
			FacilityZip: nullable(d.FacilityZip), AdditionalData: data,
		},
		Description: nullable(e.Description), OperationCode: nullable(e.OperationCode),
		ActionRequired: e.ActionRequired, Location: nullable(e.Location),
	}
}
