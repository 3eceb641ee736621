package storage

import (
	"sync"
	"time"
)

// LetterDoc is a letter's document as plain values, for a store that lays
// letters out in a form of its own: the service maps its letter document
// to and from it, and the store packs and unpacks it, knowing nothing of
// the domain (the database/sql/driver way).
//
// It holds no pointers but its slices and strings: a part that may be
// absent is a value with a Has flag, and a list tells nil from empty by its
// Has flag, so that a store can unpack into a LetterDoc the caller owns and
// reuses, appending to its slices' storage (Reset), and a read allocates
// nothing here once the caller's record has grown. Strings a store unpacks
// may share the store's memory, which never changes.
type LetterDoc struct {
	Life         LetterLife
	Sender       LetterParty
	Recipient    LetterParty
	Content      LetterContentRef
	UseType      string
	SendDate     string
	Description  string
	Variables    LetterVariables
	Options      LetterOptions
	IssueMessage string
	Snapshot     LetterSnapshot
	Events       []LetterEvent
	HasEvents    bool
}

// Reset empties d for reuse, keeping its slices' storage.
func (d *LetterDoc) Reset() {
	*d = LetterDoc{
		Sender:    d.Sender.reset(),
		Recipient: d.Recipient.reset(),
		Variables: LetterVariables{List: d.Variables.List[:0]},
		Options: LetterOptions{
			ExtraServices:        d.Options.ExtraServices[:0],
			DeliverabilityValues: d.Options.DeliverabilityValues[:0],
		},
		Snapshot: LetterSnapshot{
			Definitions: d.Snapshot.Definitions[:0],
			Merge:       LetterVariables{List: d.Snapshot.Merge.List[:0]},
			Assets:      d.Snapshot.Assets[:0],
		},
		Events: d.Events[:0],
	}
}

// letterDocs are the LetterDocs GetLetterDoc hands out, reused.
var letterDocs = sync.Pool{New: func() any { return new(LetterDoc) }}

// GetLetterDoc returns a LetterDoc to write a letter's values into, one
// that went before, its slices' storage grown (Reset leaves it), so that
// mapping a letter allocates nothing here. Give it back with PutLetterDoc
// once nothing refers to its slices.
func GetLetterDoc() *LetterDoc { return letterDocs.Get().(*LetterDoc) }

// PutLetterDoc gives d back for a later GetLetterDoc.
func PutLetterDoc(d *LetterDoc) { letterDocs.Put(d) }

// LetterLife is where a letter is on its postal course, and the inputs of
// its timing.
type LetterLife struct {
	Stage    string
	Events   int32
	Fetch    bool
	SendDate string
	Outcome  string
	From     LetterPlace
	To       LetterPlace
}

// LetterPlace is a city on a letter's postal course.
type LetterPlace struct {
	City  string
	State string
	Zip   string
}

// LetterParty is a letter's sender or recipient.
type LetterParty struct {
	AddressLine1   string
	AddressLine2   string
	LastLine       string
	Organization   string
	NonAddressData string

	HasIndividual bool
	Individual    LetterIndividual

	HasComponents bool
	Components    LetterAddressComponents

	HasAnalysis bool
	Analysis    LetterAddressAnalysis

	HasCorrections bool
	Corrections    []LetterCorrection

	HasAddressMetadata bool
	AddressMetadata    LetterAddressMetadata
}

func (p *LetterParty) reset() LetterParty {
	return LetterParty{
		Analysis:    LetterAddressAnalysis{DpvFootnotes: p.Analysis.DpvFootnotes[:0]},
		Corrections: p.Corrections[:0],
	}
}

// LetterIndividual is a party's name.
type LetterIndividual struct {
	FullName   string
	Prefix     string
	FirstName  string
	MiddleName string
	LastName   string
	Postfix    string
	Title      string
}

// LetterAddressComponents are the parts of a processed address.
type LetterAddressComponents struct {
	CassType     string
	Urbanization string
	City         string
	State        string
	ZipCode      string
	Plus4Code    string
}

// LetterAddressAnalysis is what address processing found of an address.
type LetterAddressAnalysis struct {
	DpvMatchCode               string
	HasDpvFootnotes            bool
	DpvFootnotes               []string
	DpvCmra                    string
	DpvVacant                  string
	DpvNoStat                  string
	DpvActive                  string
	DpvInactiveReason          string
	DpvThrowback               string
	DpvNonDeliveryDayIndicator string
	DpvNonDeliveryDayValues    string
	DpvNoSecureLocation        string
	DpvDoorNotAccessible       string
	LacslinkCode               string
	LacslinkIndicator          string
	SuitelinkIndicator         string
	EwsIndicator               bool
}

// LetterCorrection is one correction address processing made.
type LetterCorrection struct {
	Name      string
	Input     string
	Corrected string
}

// LetterAddressMetadata is what address processing knows of an address's
// place.
type LetterAddressMetadata struct {
	RecordType             string
	AddressType            string
	ZipCodeType            string
	County                 string
	CountyFips             string
	CarrierRoute           string
	CarrierRouteType       string
	CongressionalDistrict  string
	DefaultBuildingAddress bool
	ElotSequence           string
	ElotSort               string
	Latitude               float64
	Longitude              float64
	Precision              string
	UspsFinanceNumber      string
	TimeZone               string
}

// LetterContentRef names what a letter is printed from.
type LetterContentRef struct {
	Type      string
	AssetID   string
	VersionID string
}

// LetterVariables is a list of template variables, nil unless Has.
type LetterVariables struct {
	Has  bool
	List []LetterVariable
}

// LetterVariable is a template variable and its value, if it has one.
type LetterVariable struct {
	Name     string
	HasValue bool
	Value    string
}

// LetterOptions are a letter's printing, mailing and processing options.
type LetterOptions struct {
	HasPrint         bool
	Color            bool
	AddressPlacement string

	HasMail          bool
	MailService      string
	HasExtraServices bool
	ExtraServices    []string

	HasVariableHandling bool
	ValidationScope     string

	HasAddressProcessing bool
	HasCassSender        bool
	CassSender           LetterCassOptions
	HasCassRecipient     bool
	CassRecipient        LetterCassOptions
	NcoaRecipient        string

	DeliverabilityThreshold string
	HasDeliverabilityValues bool
	DeliverabilityValues    []string
}

// LetterCassOptions are the address processing options for one party.
type LetterCassOptions struct {
	Type   string
	Casing string
}

// LetterSnapshot is what a letter is printed from, copied from its asset
// version when the letter was made.
type LetterSnapshot struct {
	Hash           string
	Type           string
	HasDefinitions bool
	Definitions    []LetterDefinition
	Merge          LetterVariables
	HasAssets      bool
	Assets         []LetterAssetRef
}

// LetterDefinition is a template variable's definition.
type LetterDefinition struct {
	Name           string
	Type           string
	Behavior       string
	AllowEmpty     bool
	HasPresetValue bool
	PresetValue    string
}

// LetterAssetRef is an image or font a letter's variables name.
type LetterAssetRef struct {
	Name      string
	AssetID   string
	VersionID string
	Hash      string
	Type      string
}

// LetterEvent is one event in a letter's history.
type LetterEvent struct {
	ID             string
	CreatedAt      time.Time
	ModifiedAt     time.Time
	Timestamp      time.Time
	Type           string
	Status         string
	Description    string
	OperationCode  string
	Location       string
	ActionRequired bool

	HasTracking  bool
	Notes        string
	Facility     string
	FacilityType string
	FacilityZip  string
}

// A store that keeps letters in a form of its own reaches the service's
// letter documents through the interfaces below, which they implement as
// a database/sql/driver value does: the service gives and takes values,
// the store lays them out.

// LetterValuer is a letter document that gives its values as a LetterDoc.
// A store that keeps letters in a form of its own takes it in so.
type LetterValuer interface {
	Document
	// LetterValues writes the document into d, which it resets first
	// (LetterDoc.Reset), and reports false when d cannot hold all of it.
	LetterValues(d *LetterDoc) bool
	// LetterEncoder returns what encodes the values LetterValues gave as
	// the document itself encodes (EncodeDocument), so that a form made
	// from them encodes as the document did. It must be comparable, as
	// forms made from many documents share it.
	LetterEncoder() LetterEncoder
}

// LetterEncoder encodes a letter's values as the service's document of
// them encodes.
type LetterEncoder interface {
	EncodeLetter(d *LetterDoc) ([]byte, error)
}

// LetterReader is a letter document a store keeps in a form of its own,
// which the service reads back as values.
type LetterReader interface {
	Document
	// ReadLetter writes the document's values into d, which it resets
	// first, appending to its slices' storage. Its strings may share the
	// form's memory, which never changes.
	ReadLetter(d *LetterDoc) error
}

// LetterStepper is a letter document a store keeps in a form of its own
// that a lifecycle step changes without reading the rest of it: the step
// reads the letter's life, and hands over the new life and the events it
// added.
type LetterStepper interface {
	Document
	// LetterLife writes the letter's life into l, and reports false when
	// it cannot read it.
	LetterLife(l *LetterLife) bool
	// StepLetter returns the document with its life l and the events
	// added appended to its own. The id of added[i] is what ids appends
	// for i (its ID is ignored); StepLetter sets added[i].ID to it, a
	// string that may share the new form's memory. It reports false,
	// the document unchanged, when its form cannot take them.
	StepLetter(l *LetterLife, added []LetterEvent, ids LetterEventIDs) (Document, bool)
}

// LetterEventIDs makes the ids of the events a lifecycle step adds.
type LetterEventIDs interface {
	// AppendEventID appends the id of the i-th event added to dst.
	AppendEventID(dst []byte, i int) []byte
}
