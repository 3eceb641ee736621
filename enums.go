package lettershop

// The enumerations of the wire, named. Each type is the string the JSON
// carries, so a value reads and writes as before; the constants are every
// value the service gives or takes. LetterStatus, UseType (letters.go),
// AssetType, VersionStatus (assets.go), VariableBehavior (variables.go)
// and Deliverability (address.go) live beside the types that use them.

// EventType is the kind of a letter's event.
type EventType string

// The event types.
const (
	// EventTypeStatus is a change of the letter's status; the event's
	// Status is the new LetterStatus.
	EventTypeStatus EventType = "status"
	// EventTypeTracking is a postal tracking scan; the event's Status is one
	// of the tracking statuses (EventInTransit, ...).
	EventTypeTracking EventType = "tracking"
)

// EventStatus is what an event says: for an event of type status, the
// letter status it moved to (EventStatus(StatusMailed)); for a tracking
// event, one of the tracking statuses below.
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

// ContentType is the MIME type of an asset version's content.
type ContentType string

// The content types, by the asset type that holds them: a template holds
// HTML, an image PNG, JPEG, GIF or SVG, a document PDF, a font TrueType,
// OpenType or WOFF2.
const (
	ContentHTML  ContentType = "text/html"
	ContentPNG   ContentType = "image/png"
	ContentJPEG  ContentType = "image/jpeg"
	ContentGIF   ContentType = "image/gif"
	ContentSVG   ContentType = "image/svg+xml"
	ContentPDF   ContentType = "application/pdf"
	ContentTTF   ContentType = "font/ttf"
	ContentOTF   ContentType = "font/otf"
	ContentWOFF2 ContentType = "font/woff2"
)

// ContentSource says where a version's content comes from and is kept.
type ContentSource string

// The content sources. Inline content is sent in the request and stored.
// Imported content is downloaded once, from the public URL given in
// content.content, and stored; the URL is not kept. External content stays
// at its URL (kept in content.content) and is fetched each time it is
// needed. A version answers with the source it was made with: import
// content shows the bytes stored, as inline content does.
const (
	ContentInline      ContentSource = "inline"
	ContentImport      ContentSource = "import"
	ContentExternalURL ContentSource = "externalUrl"
)

// LetterContentType is what a letter's content names.
type LetterContentType string

// LetterContentAsset prints an asset's version, the only kind there is.
const LetterContentAsset LetterContentType = "asset"

// VariableType is the type of a template variable.
type VariableType string

// The variable types.
const (
	// VariableTypeValue is a plain text value, the default.
	VariableTypeValue VariableType = "value"
	// VariableTypeAsset is the id of an image or font asset of the same
	// account with a published version: a template shows it as <img
	// src="{{logo}}"> or uses it in @font-face { src: url({{font}}) }.
	VariableTypeAsset VariableType = "asset"
	// VariableTypeExternalURL is a public http or https URL of an image or
	// a font, used as an asset variable is, fetched when the letter is
	// printed.
	VariableTypeExternalURL VariableType = "externalUrl"
)

var variableTypes = []VariableType{VariableTypeValue, VariableTypeAsset, VariableTypeExternalURL}

// MailService is the postal service a letter goes by.
type MailService string

// The mail services; first class is the default.
const (
	MailFirstClass MailService = "firstClass"
	MailStandard   MailService = "standard"
)

// ExtraService is a postal extra a letter may ask for.
type ExtraService string

// The extra services.
const (
	ExtraACS                    ExtraService = "acs"
	ExtraCertified              ExtraService = "certified"
	ExtraCertifiedReturnReceipt ExtraService = "certifiedReturnReceipt"
	ExtraRegistered             ExtraService = "registered"
)

// CassType is the kind of CASS processing asked for, and done: an
// address's components say CassNone when it was not standardized.
type CassType string

// The CASS types.
const (
	CassBasic CassType = "basic"
	CassNone  CassType = "none"
)

// Casing is how CASS writes a standardized address.
type Casing string

// The casings; proper is the default.
const (
	CasingProper Casing = "proper"
	CasingUpper  Casing = "upper"
)

// NcoaOption says whether a moved recipient's letter is forwarded.
type NcoaOption string

// The NCOA options.
const (
	NcoaNone       NcoaOption = "none"
	NcoaNewAddress NcoaOption = "newAddress"
)

// DeliverabilityThreshold names a set of deliverability values a letter is
// mailed at (docs/addresses.md has the table).
type DeliverabilityThreshold string

// The thresholds; normal is the default.
const (
	ThresholdStrict  DeliverabilityThreshold = "strict"
	ThresholdNormal  DeliverabilityThreshold = "normal"
	ThresholdRelaxed DeliverabilityThreshold = "relaxed"
)

// ValidationScope says what a letter's variables are checked against.
type ValidationScope string

// The validation scopes; asset is the default.
const (
	// ValidationScopeAsset checks variables against the version's definitions.
	ValidationScopeAsset ValidationScope = "asset"
	// ValidationScopeNone does not check them.
	ValidationScopeNone ValidationScope = "none"
)
