package client

import (
	"encoding/json"
	"fmt"
	"time"
)

// LetterStatus is where a letter is in its life.
type LetterStatus string

// The letter statuses.
const (
	StatusQueued       LetterStatus = "queued"
	StatusReady        LetterStatus = "ready"
	StatusInProduction LetterStatus = "inProduction"
	StatusMailed       LetterStatus = "mailed"
	StatusIssue        LetterStatus = "issue"
	StatusCanceled     LetterStatus = "canceled"
)

// UseType says what a letter is for.
type UseType string

// The use types.
const (
	UseMarketing     UseType = "marketing"
	UseTransactional UseType = "transactional"
)

// MetadataPair is one key-value pair of an object's metadata.
type MetadataPair struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Metadata is an object's custom key-value pairs: at most 20, keys under 64
// characters, values under 512. An update replaces all of them.
type Metadata []MetadataPair

// MarshalJSON writes m as an array, nil as [] too: in a request null is no
// value given, so an update given a nil Metadata would keep the old pairs.
func (m Metadata) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]MetadataPair(m))
}

// Variable is a value for a template variable. A nil Value is no value; a
// pointer to "" is an empty one.
type Variable struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// Value is the Variable named name holding value ("" too, an empty value):
// Variables: []client.Variable{client.Value("name", "Jane")}.
func Value(name, value string) Variable { return Variable{Name: name, Value: &value} }

// LetterContent names the asset, and optionally its version, a letter is
// made from: Type is LetterContentAsset (left empty, it is not sent, and
// the server names content.type as missing). Without AssetVersionID the
// asset's published version is used.
type LetterContent struct {
	Type           string `json:"type,omitempty"`
	AssetID        string `json:"assetId"`
	AssetVersionID string `json:"assetVersionId,omitempty"`
}

// Letter is a letter as the API shows it.
type Letter struct {
	ID           string        `json:"id"`
	Status       LetterStatus  `json:"status"`
	Sender       Party         `json:"sender"`
	Recipient    Party         `json:"recipient"`
	Content      LetterContent `json:"content"`
	UseType      UseType       `json:"useType"`
	Events       []Event       `json:"events"`
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

// Party is a letter's sender or recipient as shown. AddressAnalysis,
// AddressCorrections and AddressMetadata are the results of CASS
// processing: nil when the address was not analysed, and in lists fetched
// without IncludeCassDetails. NonAddressData is a recipient's only: nil on
// a sender.
type Party struct {
	Address            Address             `json:"address"`
	Individual         *Individual         `json:"individual"`
	Organization       *string             `json:"organization"`
	NonAddressData     *string             `json:"nonAddressData"`
	AddressComponents  *AddressComponents  `json:"addressComponents"`
	AddressAnalysis    *AddressAnalysis    `json:"addressAnalysis,omitempty"`
	AddressCorrections []AddressCorrection `json:"addressCorrections,omitempty"`
	AddressMetadata    *AddressMetadata    `json:"addressMetadata,omitempty"`
}

// Address is a postal address as shown: its lines and its last line
// (city, state and ZIP code).
type Address struct {
	AddressLine1 string  `json:"addressLine1"`
	AddressLine2 *string `json:"addressLine2"`
	LastLine     string  `json:"lastLine"`
}

// Individual is a person's name. A field left empty is not sent.
type Individual struct {
	FullName   string `json:"fullName,omitempty"`
	Prefix     string `json:"prefix,omitempty"`
	FirstName  string `json:"firstName,omitempty"`
	MiddleName string `json:"middleName,omitempty"`
	LastName   string `json:"lastName,omitempty"`
	Postfix    string `json:"postfix,omitempty"`
	Title      string `json:"title,omitempty"`
}

// AddressComponents are the parts of an address's last line.
type AddressComponents struct {
	CassType     string  `json:"cassType"`
	Urbanization *string `json:"urbanization"`
	City         *string `json:"city"`
	State        *string `json:"state"`
	ZipCode      *string `json:"zipCode"`
	Plus4Code    *string `json:"plus4Code"`
}

// AddressAnalysis is the delivery point validation (DPV) of an address.
type AddressAnalysis struct {
	DpvMatchCode               string   `json:"dpvMatchCode"`
	DpvFootnotes               []string `json:"dpvFootnotes"`
	DpvCmra                    string   `json:"dpvCmra"`
	DpvVacant                  string   `json:"dpvVacant"`
	DpvNoStat                  string   `json:"dpvNoStat"`
	DpvActive                  string   `json:"dpvActive"`
	DpvInactiveReason          string   `json:"dpvInactiveReason"`
	DpvThrowback               string   `json:"dpvThrowback"`
	DpvNonDeliveryDayIndicator string   `json:"dpvNonDeliveryDayIndicator"`
	DpvNonDeliveryDayValues    string   `json:"dpvNonDeliveryDayValues"`
	DpvNoSecureLocation        string   `json:"dpvNoSecureLocation"`
	DpvDoorNotAccessible       string   `json:"dpvDoorNotAccessible"`
	LacslinkCode               string   `json:"lacslinkCode"`
	LacslinkIndicator          string   `json:"lacslinkIndicator"`
	SuitelinkIndicator         string   `json:"suitelinkIndicator"`
	EwsIndicator               bool     `json:"ewsIndicator"`
}

// AddressCorrection is one change address processing made.
type AddressCorrection struct {
	Name      string `json:"name"`
	Input     string `json:"input"`
	Corrected string `json:"corrected"`
}

// AddressMetadata describes an analysed address.
type AddressMetadata struct {
	RecordType             string  `json:"recordType"`
	AddressType            string  `json:"addressType"`
	ZipCodeType            string  `json:"zipCodeType"`
	County                 string  `json:"county"`
	CountyFips             string  `json:"countyFips"`
	CarrierRoute           string  `json:"carrierRoute"`
	CarrierRouteType       string  `json:"carrierRouteType"`
	CongressionalDistrict  string  `json:"congressionalDistrict"`
	DefaultBuildingAddress bool    `json:"defaultBuildingAddress"`
	ElotSequence           string  `json:"elotSequence"`
	ElotSort               string  `json:"elotSort"`
	Latitude               float64 `json:"latitude"`
	Longitude              float64 `json:"longitude"`
	Precision              string  `json:"precision"`
	UspsFinanceNumber      string  `json:"uspsFinanceNumber"`
	TimeZone               string  `json:"timeZone"`
}

// EventType is the kind of a letter's event.
type EventType string

// The event types.
const (
	// EventTypeStatus is a change of the letter's status; the event's
	// Status is the new LetterStatus (EventStatus(StatusMailed)).
	EventTypeStatus EventType = "status"
	// EventTypeTracking is a postal tracking scan; the event's Status is
	// one of the tracking statuses (EventInTransit, ...).
	EventTypeTracking EventType = "tracking"
)

// EventStatus is what an event says: for an event of type status, the
// letter status it moved to (EventStatus(StatusMailed)); for a tracking
// event, one of the tracking statuses below. A letter is never in a
// tracking status: it stays mailed while its tracking events come.
type EventStatus string

// The tracking statuses, in the order a letter meets them. reRouted and
// returnedToSender set the event's ActionRequired.
const (
	EventInTransit            EventStatus = "inTransit"
	EventInLocalArea          EventStatus = "inLocalArea"
	EventProcessedForDelivery EventStatus = "processedForDelivery"
	EventDelivered            EventStatus = "delivered"
	EventReRouted             EventStatus = "reRouted"
	EventReturnedToSender     EventStatus = "returnedToSender"
)

// Event is one step in a letter's history: a status change (Type "status")
// or a postal tracking event (Type "tracking").
type Event struct {
	ID                   string               `json:"id"`
	CreatedAt            time.Time            `json:"createdAt"`
	ModifiedAt           time.Time            `json:"modifiedAt"`
	Timestamp            time.Time            `json:"timestamp"`
	Type                 EventType            `json:"type"`
	Status               EventStatus          `json:"status"`
	TrackingEventDetails TrackingEventDetails `json:"trackingEventDetails"`
	Description          *string              `json:"description"`
	OperationCode        *string              `json:"operationCode"`
	ActionRequired       bool                 `json:"actionRequired"`
	Location             *string              `json:"location"`
}

// TrackingEventDetails are the postal facility details of a tracking event.
type TrackingEventDetails struct {
	Notes          *string        `json:"notes"`
	Facility       *string        `json:"facility"`
	FacilityType   *string        `json:"facilityType"`
	FacilityZip    *string        `json:"facilityZip"`
	AdditionalData map[string]any `json:"additionalData"`
}

// LetterOptions are a letter's print, mail, variable and address-processing
// options. On a letter they are the effective ones, defaults filled; in a
// request, what is left nil takes its default. DeliverabilityThreshold is
// ThresholdStrict, ThresholdNormal (the default) or ThresholdRelaxed;
// DeliverabilityValues, instead of a threshold, lists the values mailed
// (Deliverable, DeliverableMissingUnit, ...). Either applies only to a
// recipient analysed by CASS (AddressProcessing.CassRecipient).
type LetterOptions struct {
	Print                   *PrintOptions      `json:"print,omitempty"`
	Mail                    *MailOptions       `json:"mail,omitempty"`
	VariableHandling        *VariableHandling  `json:"variableHandling,omitempty"`
	AddressProcessing       *AddressProcessing `json:"addressProcessing,omitempty"`
	DeliverabilityThreshold string             `json:"deliverabilityThreshold,omitempty"`
	DeliverabilityValues    []string           `json:"deliverabilityValues,omitempty"`
}

// PrintOptions say how a letter is printed. AddressPlacement, for a letter
// from a PDF document only, is "insertBlankPage" (the default: a first page
// for the addresses) or "topFirstPage" (the addresses on the document's
// first page).
type PrintOptions struct {
	Color            bool   `json:"color"`
	AddressPlacement string `json:"addressPlacement,omitempty"`
}

// MailOptions say how a letter is mailed: Service "firstClass" or
// "standard"; ExtraServices among "acs", "certified",
// "certifiedReturnReceipt", "registered".
type MailOptions struct {
	Service       string   `json:"service,omitempty"`
	ExtraServices []string `json:"extraServices,omitempty"`
}

// VariableHandling says how a letter's variables are checked against the
// asset version's definitions: ValidationScope "asset" (the default) or
// "none".
type VariableHandling struct {
	ValidationScope string `json:"validationScope,omitempty"`
}

// AddressProcessing turns on CASS standardization of the sender and the
// recipient, and NCOA forwarding of the recipient (NcoaNone or
// NcoaNewAddress).
type AddressProcessing struct {
	CassSender    *CassOptions `json:"cassSender,omitempty"`
	CassRecipient *CassOptions `json:"cassRecipient,omitempty"`
	NcoaRecipient string       `json:"ncoaRecipient,omitempty"`
}

// CassOptions turn on CASS processing of one address: Type CassBasic,
// Casing CasingProper (the default) or CasingUpper.
type CassOptions struct {
	Type   string `json:"type,omitempty"`
	Casing string `json:"casing,omitempty"`
}

// AddressInput is an address as given: its lines, and its last line whole
// (LastLine) or in parts (City, State, ZipCode, optionally Plus4Code and
// Urbanization).
type AddressInput struct {
	AddressLine1 string `json:"addressLine1,omitempty"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	LastLine     string `json:"lastLine,omitempty"`
	City         string `json:"city,omitempty"`
	State        string `json:"state,omitempty"`
	ZipCode      string `json:"zipCode,omitempty"`
	Plus4Code    string `json:"plus4Code,omitempty"`
	Urbanization string `json:"urbanization,omitempty"`
}

// PartyInput is a sender or recipient as given: an address and an
// individual, an organization, or both.
type PartyInput struct {
	Address        AddressInput `json:"address"`
	Individual     *Individual  `json:"individual,omitempty"`
	Organization   string       `json:"organization,omitempty"`
	NonAddressData string       `json:"nonAddressData,omitempty"`
}

// CreateLetterRequest is the body of CreateLetter. Sender, Recipient,
// Content and UseType are required: a UseType left empty is not sent, so
// that the server names it with every other field missing. SendDate, when
// given, is a day as YYYY-MM-DD (t.Format(time.DateOnly)), not a time: the
// letter goes into production on that day (the next business day if it is
// none), not before.
type CreateLetterRequest struct {
	Sender      *PartyInput    `json:"sender"`
	Recipient   *PartyInput    `json:"recipient"`
	Content     *LetterContent `json:"content"`
	UseType     UseType        `json:"useType,omitempty"`
	ExternalID  string         `json:"externalId,omitempty"`
	SendDate    string         `json:"sendDate,omitempty"`
	Description string         `json:"description,omitempty"`
	Variables   []Variable     `json:"variables,omitempty"`
	Options     *LetterOptions `json:"options,omitempty"`
	Metadata    Metadata       `json:"metadata,omitempty"`
}

// UpdateLetterRequest is the body of UpdateLetter: what is nil stays as it
// is (a pointer to a nil slice is not nil: it empties the field).
// Metadata, Description and ExternalID change at any time; the mail fields
// only while the letter is queued or at issue. SendDate is a day as on
// create, or "" to remove the letter's send date.
type UpdateLetterRequest struct {
	Sender      *PartyInput    `json:"sender,omitempty"`
	Recipient   *PartyInput    `json:"recipient,omitempty"`
	Content     *LetterContent `json:"content,omitempty"`
	UseType     *UseType       `json:"useType,omitempty"`
	ExternalID  *string        `json:"externalId,omitempty"`
	SendDate    *string        `json:"sendDate,omitempty"`
	Description *string        `json:"description,omitempty"`
	Variables   *[]Variable    `json:"variables,omitempty"`
	Options     *LetterOptions `json:"options,omitempty"`
	Metadata    *Metadata      `json:"metadata,omitempty"`
}

// ListLettersParams filters and pages ListLetters. The zero value lists
// every letter, newest first, 10 a page.
type ListLettersParams struct {
	// PageSize is 1 to 100; 0 leaves it to the server (10).
	PageSize int
	// NextToken, a page's NextToken, is where the list starts: the page
	// ListLettersPage fetches, or the first of ListLetters, which follows
	// the later pages itself.
	NextToken string
	// IncludeCassDetails includes the CASS results in the items' parties.
	IncludeCassDetails bool
	Status             LetterStatus
	ExternalID         string
	// Metadata keeps letters having every key with its value.
	Metadata map[string]string
}

// AssetType is what an asset holds.
type AssetType string

// The asset types.
const (
	AssetTemplate AssetType = "template"
	AssetImage    AssetType = "image"
	AssetFont     AssetType = "font"
	AssetDocument AssetType = "document"
)

// VersionStatus is where an asset version is in its life; an asset's
// status is derived from its versions'.
type VersionStatus string

// The version statuses.
const (
	VersionDraft     VersionStatus = "draft"
	VersionPublished VersionStatus = "published"
	VersionArchived  VersionStatus = "archived"
	VersionDeleted   VersionStatus = "deleted"
)

// Asset is a container of content versions.
type Asset struct {
	ID                 string        `json:"id"`
	Name               string        `json:"name"`
	Description        string        `json:"description,omitempty"`
	Type               AssetType     `json:"type"`
	Status             VersionStatus `json:"status"`
	VersionCount       int           `json:"versionCount"`
	PublishedVersionID string        `json:"publishedVersionId,omitempty"`
	Metadata           Metadata      `json:"metadata"`
	CreatedAt          time.Time     `json:"createdAt"`
	ModifiedAt         time.Time     `json:"modifiedAt"`
}

// CreateAssetRequest is the body of CreateAsset. Name is required.
type CreateAssetRequest struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Type        AssetType `json:"type,omitempty"`
	Metadata    Metadata  `json:"metadata,omitempty"`
}

// UpdateAssetRequest is the body of UpdateAsset: what is nil stays as it is
// (a pointer to a nil Metadata is not nil: it removes every pair).
type UpdateAssetRequest struct {
	Name        *string   `json:"name,omitempty"`
	Description *string   `json:"description,omitempty"`
	Metadata    *Metadata `json:"metadata,omitempty"`
}

// ListAssetsParams filters and pages ListAssets.
type ListAssetsParams struct {
	PageSize  int
	NextToken string
	Metadata  map[string]string
}

// VersionContent is a version's content: where it comes from (Source,
// "inline" when left out, "import" or "externalUrl"), its MIME type (Type,
// not sent when left empty: the server takes the first type the asset
// holds, text/html for a template), and Content, the content itself: an HTML template's text, or base64 for
// binary types. To create a version from a URL, give the URL as Content
// with Source "import" (downloaded once, the bytes kept: answers then show
// the content) or "externalUrl" (kept at the URL, fetched when needed:
// answers show the URL). A list, an upload's answer and other answers
// than a fetch leave Content empty for content over 102,400 bytes (stored
// by an upload or an import): read it with GetVersionContent.
type VersionContent struct {
	Source  string `json:"source,omitempty"`
	Type    string `json:"type,omitempty"`
	Content string `json:"content,omitempty"`
}

// UnmarshalJSON reads content under its former name, data, too, as
// servers before content.content answered it.
func (c *VersionContent) UnmarshalJSON(b []byte) error {
	var w struct {
		Source  string `json:"source"`
		Type    string `json:"type"`
		Content string `json:"content"`
		Data    string `json:"data"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = VersionContent{Source: w.Source, Type: w.Type, Content: w.Content}
	if c.Content == "" {
		c.Content = w.Data
	}
	return nil
}

// VariableDefinition declares a template variable of a version: Behavior
// VariableOptional, VariableRequired, VariablePreset or
// VariableOverridablePreset; Type VariableTypeValue (the default),
// VariableTypeAsset or VariableTypeExternalURL.
type VariableDefinition struct {
	Name        string  `json:"name"`
	Type        string  `json:"type,omitempty"`
	Behavior    string  `json:"behavior,omitempty"`
	PresetValue *string `json:"presetValue,omitempty"`
	AllowEmpty  bool    `json:"allowEmpty,omitempty"`
}

// AssetVersion is one version of an asset's content, the same from every
// method that returns one. ContentType repeats Content.Type; ContentURL is
// where GetVersionContent reads the content as itself; Publish says
// whether the version is its asset's published one.
type AssetVersion struct {
	ID                  string               `json:"id"`
	AssetID             string               `json:"assetId"`
	Status              VersionStatus        `json:"status"`
	Notes               string               `json:"notes"`
	Content             VersionContent       `json:"content"`
	VariableDefinitions []VariableDefinition `json:"variableDefinitions"`
	ContentType         string               `json:"contentType"`
	ContentLength       int                  `json:"contentLength"`
	ContentURL          string               `json:"contentUrl"`
	Publish             bool                 `json:"publish"`
	CreatedAt           time.Time            `json:"createdAt"`
	ModifiedAt          time.Time            `json:"modifiedAt"`
}

// CreateVersionRequest is the body of CreateVersion: a draft unless
// Publish.
type CreateVersionRequest struct {
	Notes               string               `json:"notes,omitempty"`
	Content             *VersionContent      `json:"content"`
	VariableDefinitions []VariableDefinition `json:"variableDefinitions,omitempty"`
	Publish             bool                 `json:"publish,omitempty"`
}

// UpdateVersionRequest is the body of UpdateVersion: what is nil stays as
// it is (a pointer to a nil slice is not nil: it empties the field). A
// draft takes every field, and Publish true publishes it after the other
// changes; a published version only Notes.
type UpdateVersionRequest struct {
	Notes               *string               `json:"notes,omitempty"`
	Content             *VersionContent       `json:"content,omitempty"`
	VariableDefinitions *[]VariableDefinition `json:"variableDefinitions,omitempty"`
	Publish             *bool                 `json:"publish,omitempty"`
}

// CloneVersionRequest is the body of CloneVersion.
type CloneVersionRequest struct {
	Notes   *string `json:"notes,omitempty"`
	Publish bool    `json:"publish,omitempty"`
}

// ListVersionsParams pages ListVersions.
type ListVersionsParams struct {
	PageSize        int
	NextToken       string
	IncludeArchived bool
}

// Page is one page of a list. NextToken is empty on the last page.
type Page[T any] struct {
	Items     []T    `json:"items"`
	NextToken string `json:"nextToken,omitempty"`
}

// ClockState is the clock of the key's account: its time, whether it is
// frozen (it stays put when the server's clock moves), and whether every
// account shares the server's one clock.
type ClockState struct {
	Now    time.Time `json:"now"`
	Frozen bool      `json:"frozen"`
	Shared bool      `json:"shared"`
}

// AdvanceLetterRequest says where Client.Test.AdvanceLetter moves a
// letter: a letter status, or a tracking event status (inTransit,
// inLocalArea, processedForDelivery, delivered, reRouted,
// returnedToSender). Set exactly one.
type AdvanceLetterRequest struct {
	Status LetterStatus `json:"status,omitempty"`
	Event  EventStatus  `json:"event,omitempty"`
}

// AwaitLetterRequest is the body of POST /_test/letters/{id}/await: a
// letter status or a tracking event to wait for, and how long the clock
// may move for it (a duration such as "720h"; empty is 720h).
type AwaitLetterRequest struct {
	Status LetterStatus `json:"status,omitempty"`
	Event  EventStatus  `json:"event,omitempty"`
	Within string       `json:"within,omitempty"`
}

// settleWebhooksRequest is the body of POST /_test/webhooks/settle.
type settleWebhooksRequest struct {
	Within string `json:"within,omitempty"`
}

// Move is a change of address for NCOA: letters created afterwards with
// NcoaRecipient "newAddress" to Name at From go to To.
type Move struct {
	Name string       `json:"name,omitempty"`
	From AddressInput `json:"from"`
	To   AddressInput `json:"to"`
}

// advanceClockRequest is the body of POST /_test/clock/advance.
type advanceClockRequest struct {
	Duration string `json:"duration"`
}

// setClockRequest is the body of POST /_test/clock/set.
type setClockRequest struct {
	Now time.Time `json:"now"`
}

// Fault is a fault in the account's requests, as TestClient.AddFault sends
// it and the server answers it: which requests it meets (Method, Path, a
// path.Match pattern of the path without /v1, such as "/letters" or
// "/letters/*"; "/v1/letters" matches as "/letters") and what it does to them (Status,
// Latency as a Go duration, CloseConnection, AfterWrite), for the next
// Times of them or each with Probability. The server sets ID.
//
// Latency and RetryAfter are the wire's text ("2s", "150ms"; the server
// answers "1m0s" for a minute). SetLatency and SetRetryAfter set them
// from a time.Duration, LatencyDuration and RetryAfterDuration read
// them as one:
//
//	f := client.Fault{Path: "/letters", Status: 503, Times: 1}
//	f.SetLatency(2 * time.Second)
//	f.SetRetryAfter(30 * time.Second)
type Fault struct {
	ID              string  `json:"id,omitempty"`
	Method          string  `json:"method,omitempty"`
	Path            string  `json:"path,omitempty"`
	Status          int     `json:"status,omitempty"`
	Latency         string  `json:"latency,omitempty"`
	CloseConnection bool    `json:"closeConnection,omitempty"`
	AfterWrite      bool    `json:"afterWrite,omitempty"`
	Times           int     `json:"times,omitempty"`
	Probability     float64 `json:"probability,omitempty"`
	// RetryAfter, a Go duration ("30s") of at most a day, is the answer's
	// Retry-After, with Status 429, 409 or 503; an injected 429 or 409
	// without it says 1 second.
	RetryAfter string `json:"retryAfter,omitempty"`
}

// SetLatency sets Latency to d, as a Go duration; 0 leaves it out (no
// latency). The server takes 0 to a minute: a d outside is sent as it is,
// and refused naming latency.
func (f *Fault) SetLatency(d time.Duration) { f.Latency = durationText(d) }

// SetRetryAfter sets RetryAfter to d, as a Go duration; 0 leaves it out
// (the server's default). The server takes up to a day, in whole seconds
// on the answer: a d outside is sent as it is, and refused naming
// retryAfter.
func (f *Fault) SetRetryAfter(d time.Duration) { f.RetryAfter = durationText(d) }

// LatencyDuration returns Latency as a time.Duration: 0 when it is left
// out, an error when it is no Go duration.
func (f Fault) LatencyDuration() (time.Duration, error) {
	return parseDurationText("latency", f.Latency)
}

// RetryAfterDuration returns RetryAfter as a time.Duration: 0 when it is
// left out, an error when it is no Go duration.
func (f Fault) RetryAfterDuration() (time.Duration, error) {
	return parseDurationText("retryAfter", f.RetryAfter)
}

// durationText is d as the wire carries it: "" for none, so that the
// member is left out.
func durationText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

func parseDurationText(field, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("lettershop: fault %s %q is not a Go duration: %w", field, s, err)
	}
	return d, nil
}

// FaultList is the account's faults, in the order they are tried.
type FaultList struct {
	Items []Fault `json:"items"`
}

// JournalEntry is one request of the account's journal and its answer.
// Status is 0 when the connection was closed unanswered; Time is on the
// test clock; Fault names the fault that met the request, if one did.
type JournalEntry struct {
	Time           time.Time `json:"time"`
	Method         string    `json:"method"`
	Path           string    `json:"path"`
	Status         int       `json:"status"`
	IdempotencyKey string    `json:"idempotencyKey"`
	Replayed       bool      `json:"replayed"`
	RequestBytes   int64     `json:"requestBytes"`
	ResponseBytes  int64     `json:"responseBytes"`
	RequestID      string    `json:"requestId"`
	Fault          string    `json:"fault"`
}

// RequestJournal is the account's journal, oldest first.
type RequestJournal struct {
	Items []JournalEntry `json:"items"`
}
