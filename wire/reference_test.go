package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop"
)

// The API's shape of a letter, as types a general encoder writes: the
// reference the encoder of append.go is held to, byte for byte.

type letterJSON struct {
	ID           string                   `json:"id"`
	Status       lettershop.LetterStatus  `json:"status"`
	Sender       partyJSON                `json:"sender"`
	Recipient    partyJSON                `json:"recipient"`
	Content      lettershop.LetterContent `json:"content"`
	UseType      lettershop.UseType       `json:"useType"`
	Events       []eventJSON              `json:"events"`
	CreatedAt    time.Time                `json:"createdAt"`
	ModifiedAt   time.Time                `json:"modifiedAt"`
	ExternalID   *string                  `json:"externalId"`
	SendDate     *string                  `json:"sendDate"`
	Description  *string                  `json:"description"`
	URL          string                   `json:"url"`
	Variables    []lettershop.Variable    `json:"variables"`
	Options      lettershop.LetterOptions `json:"options"`
	IssueMessage *string                  `json:"issueMessage"`
	Metadata     lettershop.Metadata      `json:"metadata"`
}

type partyJSON struct {
	Address      addressJSON     `json:"address"`
	Individual   *individualJSON `json:"individual"`
	Organization *string         `json:"organization"`
	// Raw, so a sender leaves it out and a recipient shows it, null when
	// empty.
	NonAddressData    json.RawMessage `json:"nonAddressData,omitempty"`
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
	CassType     lettershop.CassType `json:"cassType"`
	Urbanization *string             `json:"urbanization"`
	City         *string             `json:"city"`
	State        *string             `json:"state"`
	ZipCode      *string             `json:"zipCode"`
	Plus4Code    *string             `json:"plus4Code"`
}

type eventJSON struct {
	ID                   string                 `json:"id"`
	CreatedAt            time.Time              `json:"createdAt"`
	ModifiedAt           time.Time              `json:"modifiedAt"`
	Timestamp            time.Time              `json:"timestamp"`
	Type                 lettershop.EventType   `json:"type"`
	Status               lettershop.EventStatus `json:"status"`
	TrackingEventDetails detailsJSON            `json:"trackingEventDetails"`
	Description          *string                `json:"description"`
	OperationCode        *string                `json:"operationCode"`
	ActionRequired       bool                   `json:"actionRequired"`
	Location             *string                `json:"location"`
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

// encodeJSON encodes the letter's shape with a general encoder: the
// reference appendLetter is held to.
func encodeJSON(l *lettershop.Letter, cassLeftOut bool, marshal func(any) ([]byte, error)) ([]byte, error) {
	sender, err := partyToJSON(l.Sender, false, cassLeftOut, marshal)
	if err != nil {
		return nil, err
	}
	recipient, err := partyToJSON(l.Recipient, true, cassLeftOut, marshal)
	if err != nil {
		return nil, err
	}
	events := make([]eventJSON, len(l.Events))
	for i, e := range l.Events {
		events[i] = eventToJSON(e)
	}
	return marshal(letterJSON{
		ID: l.ID, Status: l.Status, Sender: sender, Recipient: recipient, Content: l.Content,
		UseType: l.UseType, Events: events, CreatedAt: lettershop.ShownTime(l.CreatedAt), ModifiedAt: lettershop.ShownTime(l.ModifiedAt),
		ExternalID: nullable(l.ExternalID), SendDate: nullable(l.SendDate), Description: nullable(l.Description),
		URL: l.URL, Variables: l.Variables, Options: l.Options, IssueMessage: nullable(l.IssueMessage),
		Metadata: l.Metadata,
	})
}

func partyToJSON(p lettershop.Party, recipient, cassLeftOut bool, marshal func(any) ([]byte, error)) (partyJSON, error) {
	out := partyJSON{
		Address: addressJSON{
			AddressLine1: p.Address.AddressLine1, AddressLine2: nullable(p.Address.AddressLine2), LastLine: p.Address.LastLine,
		},
		Organization: nullable(p.Organization),
	}
	if recipient {
		var err error
		if out.NonAddressData, err = marshal(nullable(p.NonAddressData)); err != nil {
			return partyJSON{}, err
		}
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
	var corrections []lettershop.AddressCorrection
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

func eventToJSON(e lettershop.Event) eventJSON {
	var d lettershop.TrackingEventDetails
	if e.TrackingEventDetails != nil {
		d = *e.TrackingEventDetails
	}
	data := d.AdditionalData
	if data == nil {
		data = map[string]any{}
	}
	return eventJSON{
		ID: e.ID, CreatedAt: lettershop.ShownTime(e.CreatedAt), ModifiedAt: lettershop.ShownTime(e.ModifiedAt), Timestamp: lettershop.ShownTime(e.Timestamp), Type: e.Type,
		Status: e.Status,
		TrackingEventDetails: detailsJSON{
			Notes: nullable(d.Notes), Facility: nullable(d.Facility), FacilityType: nullable(d.FacilityType),
			FacilityZip: nullable(d.FacilityZip), AdditionalData: data,
		},
		Description: nullable(e.Description), OperationCode: nullable(e.OperationCode),
		ActionRequired: e.ActionRequired, Location: nullable(e.Location),
	}
}

// TestLetterJSONMatchesEncodingJSON holds the letter's encoder to the bytes
// encoding/json writes for the same letter, on the characters encoders
// treat differently (HTML, U+2028, invalid UTF-8, control characters) and
// on maps, numbers and times.
func TestLetterJSONMatchesEncodingJSON(t *testing.T) {
	tricky := "<b>Dear & \"friend\"</b>\u2028\u2029\x00\x1f\xff\xfe café \U0001F600 \\ /"
	when := time.Date(2026, 3, 2, 15, 4, 5, 123456789, time.FixedZone("x", -5*3600))
	party := lettershop.Party{
		Address:            lettershop.Address{AddressLine1: tricky, AddressLine2: tricky, LastLine: tricky},
		Individual:         &lettershop.Individual{FullName: tricky, FirstName: "Jane"},
		Organization:       tricky,
		NonAddressData:     tricky,
		AddressComponents:  &lettershop.AddressComponents{City: tricky, State: "IL", ZipCode: "60601"},
		AddressAnalysis:    &lettershop.AddressAnalysis{},
		AddressCorrections: []lettershop.AddressCorrection{{}, {}},
	}
	l := lettershop.Letter{
		ID: "ltr_" + tricky, Status: "queued", Sender: party, Recipient: party,
		CreatedAt: when, ModifiedAt: when.UTC(), Description: tricky, ExternalID: tricky,
		SendDate: "2026-03-04", URL: "https://x.test/a?b=1&c=<2>", IssueMessage: tricky,
		Metadata:  lettershop.Metadata{{Key: tricky, Value: tricky}, {Key: "a", Value: ""}},
		Variables: []lettershop.Variable{{Name: "name", Value: &tricky}},
		Events: []lettershop.Event{
			{ID: "evt_1", CreatedAt: when, Timestamp: when, Type: "status", Status: "queued"},
			{ID: "evt_2", TrackingEventDetails: &lettershop.TrackingEventDetails{Notes: tricky, AdditionalData: map[string]any{
				"z": tricky, "a": 1.5e-7, "big": 1e21, "n": 123456789.0, "list": []any{nil, true, tricky, map[string]any{"<": ">"}},
			}}},
		},
	}
	checkLetterJSON(t, "", l)
}

// checkLetterJSON holds the letter's encoding to encoding/json's, with and
// without CASS details; what names the letter in a failure.
func checkLetterJSON(t testing.TB, what string, l lettershop.Letter) {
	t.Helper()
	for _, left := range []bool{false, true} {
		got, err := appendLetter(nil, &l, left, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := encodeJSON(&l, left, json.Marshal)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%scassLeftOut %v:\n got %s\nwant %s", what, left, got, want)
		}
	}
	// The encoding with CASS details, its spans of them cut, is the one
	// without: what a list is shown from a fetch's encoding kept.
	var cut cassSpans
	full, err := appendLetter([]byte("prefix"), &l, false, &cut)
	if err != nil {
		t.Fatal(err)
	}
	left, _ := appendLetter(nil, &l, true, nil)
	if got := cut.appendWithout(nil, full[len("prefix"):]); !bytes.Equal(got, left) {
		t.Errorf("%sthe encoding with CASS details, cut at %v:\n got %s\nwant %s", what, cut, got, left)
	}
}

// BenchmarkLetterJSON encodes a letter as a fetch shows it, with the
// encoder the API uses and with encoding/json, in the same run.
func BenchmarkLetterJSON(b *testing.B) {
	party := lettershop.Party{
		Address:           lettershop.Address{AddressLine1: "742 Evergreen Terrace", AddressLine2: "Apartment 2B", LastLine: "Springfield, OR 97403-1234"},
		Individual:        &lettershop.Individual{FullName: "Marge Bouvier Simpson"},
		AddressComponents: &lettershop.AddressComponents{City: "Springfield", State: "OR", ZipCode: "97403", Plus4Code: "1234"},
	}
	name := "Marge"
	when := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	l := lettershop.Letter{
		ID: "ltr_01kjqh0cc0abyzr1s1gch2evrn", Status: "queued", Sender: party, Recipient: party,
		CreatedAt: when, ModifiedAt: when, URL: "https://lettershop.test/letters/ltr_01kjqh0cc0abyzr1s1gch2evrn/download",
		Variables: []lettershop.Variable{{Name: "name", Value: &name}},
		Metadata:  lettershop.Metadata{{Key: "campaign", Value: "spring-renewal-2024"}, {Key: "customerRef", Value: "CUST-0004211937"}},
		Events:    []lettershop.Event{{ID: "evt_01kjqh0cc00002aepzww4h7ywk", CreatedAt: when, ModifiedAt: when, Timestamp: when, Type: "status", Status: "queued", Description: "Letter received"}},
	}
	for _, c := range []struct {
		name string
		enc  func(any) ([]byte, error)
	}{{"goJSON", gojson.Marshal}, {"encodingJSON", json.Marshal}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeJSON(&l, false, c.enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Letter(&l); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLetterJSONEveryField holds the letter's encoding to encoding/json's
// on a letter with every field set, and on one with every pointer nil and
// every slice empty, with and without CASS details, so a field the
// encoding forgets shows.
func TestLetterJSONEveryField(t *testing.T) {
	for _, empty := range []bool{false, true} {
		var l lettershop.Letter
		(&filler{empty: empty}).fill(reflect.ValueOf(&l).Elem())
		checkLetterJSON(t, fmt.Sprintf("empty %v, ", empty), l)
	}
}

// FuzzLetterJSON holds the letter's encoding to encoding/json's on any
// text and any coordinates.
func FuzzLetterJSON(f *testing.F) {
	f.Add("<b>&\u2028\xff\x00\x7f\"\\/", 1.5e-7, 1e21)
	f.Add("café \U0001F600\t\r\n\b\f", 0.0, -123456789.125)
	f.Fuzz(func(t *testing.T, s string, lat, long float64) {
		if math.IsNaN(lat) || math.IsInf(lat, 0) || math.IsNaN(long) || math.IsInf(long, 0) {
			return
		}
		p := lettershop.Party{
			Address: lettershop.Address{AddressLine1: s, AddressLine2: s, LastLine: s}, Organization: s,
			AddressMetadata: &lettershop.AddressMetadata{County: s, Latitude: lat, Longitude: long},
			AddressAnalysis: &lettershop.AddressAnalysis{DpvFootnotes: []string{s}},
		}
		l := lettershop.Letter{ID: s, Description: s, Sender: p, Recipient: p, Metadata: lettershop.Metadata{{Key: s, Value: s}},
			Variables: []lettershop.Variable{{Name: s, Value: &s}}, Options: lettershop.LetterOptions{Print: &lettershop.PrintOptions{AddressPlacement: s}}}
		checkLetterJSON(t, fmt.Sprintf("%q %v %v, ", s, lat, long), l)
	})
}

// filler sets every exported field v reaches, recursively, so a field the
// encoding forgets shows as a difference. With empty, pointers stay nil
// and slices are empty but not nil, the other edge of what the encoding
// must tell apart.
type filler struct {
	n     int
	empty bool
}

func (f *filler) fill(v reflect.Value) {
	f.n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("text %d: ÿ\x01\"<&>", f.n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(f.n) * -3)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(float64(f.n) + 0.1)
	case reflect.Pointer:
		if f.empty {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		n := 2
		if f.empty {
			n = 0
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if !f.empty {
			v.Set(reflect.ValueOf(map[string]any{"n": float64(f.n), "s": "<x>", "list": []any{true, nil}}))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 2, 15, 0, f.n, f.n*1001, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				f.fill(v.Field(i))
			}
		}
	default:
		panic("fill: no case for " + v.Kind().String())
	}
}

// webhookEventJSON is the shape of a webhook event, its letter written by
// the encoder already held to encoding/json's.
type webhookEventJSON struct {
	ID        string                      `json:"id"`
	Type      lettershop.WebhookEventType `json:"type"`
	CreatedAt time.Time                   `json:"createdAt"`
	Data      struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// TestWebhookEventMatchesEncodingJSON holds the webhook event's encoding to
// encoding/json's for the same event, with a letter and without one.
func TestWebhookEventMatchesEncodingJSON(t *testing.T) {
	var l lettershop.Letter
	(&filler{}).fill(reflect.ValueOf(&l).Elem())
	when := time.Date(2026, 3, 2, 15, 4, 5, 123456789, time.FixedZone("x", -5*3600))
	for _, object := range []*lettershop.Letter{&l, nil} {
		e := &lettershop.WebhookEvent{ID: "evt_<1>", Type: "letter.\u2028created", CreatedAt: when,
			Data: lettershop.WebhookEventData{Object: object}}
		got, err := AppendWebhookEvent([]byte("x"), e)
		if err != nil {
			t.Fatal(err)
		}
		shape := webhookEventJSON{ID: e.ID, Type: e.Type, CreatedAt: lettershop.ShownTime(e.CreatedAt)}
		shape.Data.Object = json.RawMessage("null")
		if object != nil {
			if shape.Data.Object, err = encodeJSON(object, false, json.Marshal); err != nil {
				t.Fatal(err)
			}
		}
		want, err := json.Marshal(shape)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "x"+string(want) {
			t.Errorf("event with a letter %v:\n got %s\nwant x%s", object != nil, got, want)
		}
	}
	// A time encoding/json refuses is refused.
	bad := &lettershop.WebhookEvent{ID: "evt_1", CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := AppendWebhookEvent(nil, bad); err == nil {
		t.Errorf("an event of the year 10000 encodes")
	}
}

// TestLetterPageMatchesEncodingJSON holds a page's encoding to
// encoding/json's of the Page whose letters are encoded as the API shows
// them: with and without a next token, empty, and without items.
func TestLetterPageMatchesEncodingJSON(t *testing.T) {
	var full, empty lettershop.Letter
	(&filler{}).fill(reflect.ValueOf(&full).Elem())
	(&filler{empty: true}).fill(reflect.ValueOf(&empty).Elem())
	type rawPage struct {
		Items     []json.RawMessage `json:"items"`
		NextToken string            `json:"nextToken,omitempty"`
	}
	for _, p := range []lettershop.Page[*lettershop.Letter]{
		{Items: []*lettershop.Letter{&full, &empty}, NextToken: "bHRyXzE<&>"},
		{Items: []*lettershop.Letter{&empty}},
		{Items: []*lettershop.Letter{}},
		{},
	} {
		var want rawPage
		want.NextToken = p.NextToken
		if p.Items != nil {
			want.Items = []json.RawMessage{}
		}
		for _, l := range p.Items {
			b, err := encodeJSON(l, false, json.Marshal)
			if err != nil {
				t.Fatal(err)
			}
			want.Items = append(want.Items, b)
		}
		wantJSON, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendLetterPage([]byte("x"), p)
		if err != nil || string(got) != "x"+string(wantJSON) {
			t.Errorf("page of %d letters, token %q: %v\n got %s\nwant x%s", len(p.Items), p.NextToken, err, got, wantJSON)
		}
	}
}
