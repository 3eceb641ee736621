package client

// The values of the request fields that are plain strings, named so that a
// caller writes client.VariableRequired rather than "required". They are
// untyped constants: each goes straight into its string field.

// LetterContentAsset is LetterContent.Type: a letter prints an asset's
// version, the only kind of content there is.
const LetterContentAsset = "asset"

// The behaviors of a VariableDefinition (its Behavior).
const (
	VariableOptional          = "optional"
	VariableRequired          = "required"
	VariablePreset            = "preset"
	VariableOverridablePreset = "overridablePreset"
)

// The types of a VariableDefinition (its Type): text, an image or font
// asset of the account, or a URL fetched when the letter is printed.
const (
	VariableTypeValue       = "value"
	VariableTypeAsset       = "asset"
	VariableTypeExternalURL = "externalUrl"
)

// The sources of a version's content (VersionContent.Source).
const (
	ContentInline      = "inline"
	ContentImport      = "import"
	ContentExternalURL = "externalUrl"
)

// CassBasic is CassOptions.Type: standardize and analyse the address.
const CassBasic = "basic"

// The casings of a CASS-standardized address (CassOptions.Casing).
const (
	CasingProper = "proper"
	CasingUpper  = "upper"
)

// The NCOA options of the recipient (AddressProcessing.NcoaRecipient).
const (
	NcoaNone       = "none"
	NcoaNewAddress = "newAddress"
)

// The deliverability thresholds (LetterOptions.DeliverabilityThreshold):
// which analysed recipients are mailed.
const (
	ThresholdStrict  = "strict"
	ThresholdNormal  = "normal"
	ThresholdRelaxed = "relaxed"
)

// The deliverability values of an analysed recipient
// (LetterOptions.DeliverabilityValues).
const (
	Deliverable                = "deliverable"
	DeliverableMissingUnit     = "deliverableMissingUnit"
	DeliverableIncorrectUnit   = "deliverableIncorrectUnit"
	DeliverableUnnecessaryUnit = "deliverableUnnecessaryUnit"
	Undeliverable              = "undeliverable"
)

// The mail services (MailOptions.Service) and extra services
// (MailOptions.ExtraServices).
const (
	MailFirstClass              = "firstClass"
	MailStandard                = "standard"
	ExtraACS                    = "acs"
	ExtraCertified              = "certified"
	ExtraCertifiedReturnReceipt = "certifiedReturnReceipt"
	ExtraRegistered             = "registered"
)

// The placements of the addresses of a letter from a PDF document
// (PrintOptions.AddressPlacement).
const (
	PlacementInsertBlankPage = "insertBlankPage"
	PlacementTopFirstPage    = "topFirstPage"
)

// The validation scopes of a letter's variables
// (VariableHandling.ValidationScope).
const (
	ValidationScopeAsset = "asset"
	ValidationScopeNone  = "none"
)
