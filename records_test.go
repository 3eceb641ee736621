package lettershop

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The record mapping must carry every field both ways; a field added to a
// domain type and forgotten in records.go shows up here.

func fullParty(withNonAddress bool) Party {
	p := Party{
		Address:      Address{AddressLine1: "1 Main St", AddressLine2: "Apt 2", LastLine: "Springfield, IL 62701-1234"},
		Individual:   &Individual{FullName: "Dr Jane Q Doe Jr", Prefix: "Dr", FirstName: "Jane", MiddleName: "Q", LastName: "Doe", Postfix: "Jr", Title: "CEO"},
		Organization: "Acme",
		AddressComponents: &AddressComponents{CassType: "basic", Urbanization: "URB", City: "Springfield", State: "IL",
			ZipCode: "62701", Plus4Code: "1234"},
		AddressAnalysis: &AddressAnalysis{DpvMatchCode: "Y", DpvFootnotes: []string{"AA", "BB"}, DpvCmra: "N", DpvVacant: "N",
			DpvNoStat: "N", DpvActive: "Y", DpvInactiveReason: "x", DpvThrowback: "N", DpvNonDeliveryDayIndicator: "N",
			DpvNonDeliveryDayValues: "YYYYYYY", DpvNoSecureLocation: "N", DpvDoorNotAccessible: "N", LacslinkCode: "A",
			LacslinkIndicator: "Y", SuitelinkIndicator: "N", EwsIndicator: true},
		AddressCorrections: []AddressCorrection{{Name: "addressLine1", Input: "1 main street", Corrected: "1 Main St"}},
		AddressMetadata: &AddressMetadata{RecordType: "S", AddressType: "residential", ZipCodeType: "standard", County: "Sangamon",
			CountyFips: "17167", CarrierRoute: "C001", CarrierRouteType: "city", CongressionalDistrict: "13",
			DefaultBuildingAddress: true, ElotSequence: "0001", ElotSort: "A", Latitude: 39.78, Longitude: -89.65,
			Precision: "zip9", UspsFinanceNumber: "123456", TimeZone: "America/Chicago"},
	}
	if withNonAddress {
		p.NonAddressData = "account 42"
	}
	return p
}

func TestLetterRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	l := &Letter{
		ID: "ltr_01", Status: StatusMailed, Sender: fullParty(false), Recipient: fullParty(true),
		Content: LetterContent{Type: "asset", AssetID: "ast_1", AssetVersionID: "astv_1"},
		UseType: UseMarketing,
		Events: []Event{{ID: "evt_1", CreatedAt: at, ModifiedAt: at, Timestamp: at, Type: "tracking", Status: "inTransit",
			TrackingEventDetails: &TrackingEventDetails{Notes: "n", Facility: "f", FacilityType: "ft", FacilityZip: "62701",
				AdditionalData: map[string]any{"k": "v"}},
			Description: "d", OperationCode: "OC", ActionRequired: true, Location: "loc"}},
		CreatedAt: at, ModifiedAt: at.Add(time.Hour), ExternalID: "ext", SendDate: "2026-01-05", Description: "desc",
		Variables: []Variable{{Name: "a", Value: ptr("1")}, {Name: "b"}},
		Options: LetterOptions{
			Print: &PrintOptions{Color: true}, Mail: &MailOptions{Service: "standard", ExtraServices: []ExtraService{ExtraACS}},
			VariableHandling:        &VariableHandling{ValidationScope: "none"},
			AddressProcessing:       &AddressProcessing{CassSender: &CassOptions{Type: "basic", Casing: "upper"}, CassRecipient: &CassOptions{Type: "basic", Casing: "proper"}, NcoaRecipient: "newAddress"},
			DeliverabilityThreshold: "strict", DeliverabilityValues: []Deliverability{Deliverable},
		},
		IssueMessage: "msg",
		Metadata:     Metadata{{Key: "k", Value: "v"}},
		snapshot:     contentSnapshot{Hash: "h", Type: "text/html", Definitions: []VariableDefinition{{Name: "a", Type: "value", Behavior: VariablePreset, PresetValue: ptr("p"), AllowEmpty: true}}, Merge: []Variable{{Name: "a", Value: ptr("1")}}},
		dueAt:        at.Add(48 * time.Hour),
		revision:     7,
		storedEvents: 1,
	}
	rec := letterRecord("acct", l)
	if rec.Notices != nil {
		t.Errorf("notices of events the store holds: %+v", rec.Notices)
	}
	if rec.Account != "acct" || rec.Status != "mailed" || rec.ExternalID != "ext" || len(rec.Metadata) != 1 {
		t.Errorf("indexed fields: %+v", rec)
	}
	back, err := letterFromRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l, back, cmp.AllowUnexported(Letter{}, MetadataPair{}, contentSnapshot{})); diff != "" {
		t.Errorf("letter round trip (-in +out):\n%s", diff)
	}
}

func TestAssetRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &Asset{ID: "ast_1", Name: "n", Description: "d", Type: AssetImage, PublishedVersionID: "astv_2",
		Metadata: Metadata{{Key: "k", Value: ""}}, CreatedAt: at, ModifiedAt: at.Add(time.Minute),
		counts: versionCounts{Draft: 1, Published: 1, Archived: 2, Deleted: 3}, revision: 4}
	a.derive()
	rec := assetRecord("acct", a)
	back, err := assetFromRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, back, cmp.AllowUnexported(Asset{}, MetadataPair{})); diff != "" {
		t.Errorf("asset round trip (-in +out):\n%s", diff)
	}
	v := &AssetVersion{ID: "astv_1", AssetID: "ast_1", Status: VersionArchived, Notes: "n",
		Content: VersionContent{Source: "inline", Type: "image/png"}, ContentLength: 10,
		VariableDefinitions: []VariableDefinition{{Name: "x", Type: "value", Behavior: VariableRequired}},
		CreatedAt:           at, ModifiedAt: at, contentHash: "abc"}
	vr := versionRecord("acct", v)
	vback, err := versionFromRecord(vr)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, vback, cmp.AllowUnexported(AssetVersion{})); diff != "" {
		t.Errorf("version round trip (-in +out):\n%s", diff)
	}
}

func ptr(s string) *string { return &s }
