package lettershop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop/internal/pagetoken"
	"github.com/lettershop/lettershop/internal/storehooks"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// LetterStatus is where a letter is in its life.
type LetterStatus string

// The letter statuses. A letter starts queued, or at issue when its recipient
// cannot be mailed; an update that makes it mailable queues it again.
// Canceled is reachable from queued, ready and issue.
const (
	StatusQueued       LetterStatus = "queued"
	StatusReady        LetterStatus = "ready"
	StatusInProduction LetterStatus = "inProduction"
	StatusMailed       LetterStatus = "mailed"
	StatusIssue        LetterStatus = "issue"
	StatusCanceled     LetterStatus = "canceled"
)

var letterStatuses = []LetterStatus{StatusQueued, StatusReady, StatusInProduction, StatusMailed, StatusIssue, StatusCanceled}

// UseType is what a letter is for.
type UseType string

// The use types.
const (
	UseMarketing     UseType = "marketing"
	UseTransactional UseType = "transactional"
)

// Letter is a letter to be printed and mailed.
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
	ExternalID   string        `json:"externalId,omitempty"`
	SendDate     string        `json:"sendDate,omitempty"`
	Description  string        `json:"description,omitempty"`
	URL          string        `json:"url"`
	Variables    []Variable    `json:"variables,omitempty"`
	Options      LetterOptions `json:"options"`
	IssueMessage string        `json:"issueMessage,omitempty"`
	Metadata     Metadata      `json:"metadata"`

	// snapshot is what the letter is printed from, kept from its creation so
	// that it outlives the asset version.
	snapshot contentSnapshot
	// dueAt is when the lifecycle next moves the letter.
	dueAt time.Time
	// revision is the stored revision this value was read at.
	revision int64
	// storedEvents is how many of Events the store holds: a write tells
	// the account's webhooks of the others.
	storedEvents int
	// cassLeftOut leaves the CASS details out of the letter's JSON, as a
	// list without them shows it.
	cassLeftOut bool
	// kept is the document form the store keeps, set while the letter is
	// written under an idempotency claim, for Snapshot to share.
	kept storage.Document
	// templateLen is the length of the template the letter was just given
	// (its version's), 0 when not known: a check of what its values add
	// then needs not read the template.
	templateLen int
}

// CassDetailsLeftOut reports whether the letter was read by a list that
// leaves out the results of address processing (ListLettersInput without
// IncludeCassDetails): the API then shows no addressAnalysis,
// addressCorrections or addressMetadata at all, where a fetch shows them,
// null when there are none.
func (l *Letter) CassDetailsLeftOut() bool { return l.cassLeftOut }

// NextStepAt is when the letter's next lifecycle step falls due on its
// account's clock; the zero time when none is pending.
func (l *Letter) NextStepAt() time.Time { return l.dueAt }

// Party is a letter's sender or recipient: who, where, and the results of
// address processing.
type Party struct {
	Address            Address             `json:"address"`
	Individual         *Individual         `json:"individual,omitempty"`
	Organization       string              `json:"organization,omitempty"`
	NonAddressData     string              `json:"nonAddressData,omitempty"`
	AddressComponents  *AddressComponents  `json:"addressComponents,omitempty"`
	AddressAnalysis    *AddressAnalysis    `json:"addressAnalysis,omitempty"`
	AddressCorrections []AddressCorrection `json:"addressCorrections,omitempty"`
	AddressMetadata    *AddressMetadata    `json:"addressMetadata,omitempty"`
}

// Address is a postal address in its printed form.
type Address struct {
	AddressLine1 string `json:"addressLine1"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	LastLine     string `json:"lastLine"`
}

// Individual is a person's name.
type Individual struct {
	FullName   string `json:"fullName,omitempty"`
	Prefix     string `json:"prefix,omitempty"`
	FirstName  string `json:"firstName,omitempty"`
	MiddleName string `json:"middleName,omitempty"`
	LastName   string `json:"lastName,omitempty"`
	Postfix    string `json:"postfix,omitempty"`
	Title      string `json:"title,omitempty"`
}

// LetterContent names what is printed: an asset, and the version of it.
type LetterContent struct {
	Type           LetterContentType `json:"type"`
	AssetID        string            `json:"assetId"`
	AssetVersionID string            `json:"assetVersionId,omitempty"`
}

// Event is one entry of a letter's history: a status change (type status)
// or a postal tracking scan (type tracking).
type Event struct {
	ID                   string                `json:"id"`
	CreatedAt            time.Time             `json:"createdAt"`
	ModifiedAt           time.Time             `json:"modifiedAt"`
	Timestamp            time.Time             `json:"timestamp"`
	Type                 EventType             `json:"type"`
	Status               EventStatus           `json:"status"`
	TrackingEventDetails *TrackingEventDetails `json:"trackingEventDetails,omitempty"`
	Description          string                `json:"description,omitempty"`
	OperationCode        string                `json:"operationCode,omitempty"`
	ActionRequired       bool                  `json:"actionRequired"`
	Location             string                `json:"location,omitempty"`
}

// TrackingEventDetails says where a tracking scan happened.
type TrackingEventDetails struct {
	Notes          string         `json:"notes,omitempty"`
	Facility       string         `json:"facility,omitempty"`
	FacilityType   string         `json:"facilityType,omitempty"`
	FacilityZip    string         `json:"facilityZip,omitempty"`
	AdditionalData map[string]any `json:"additionalData,omitempty"`
}

// LetterOptions are a letter's print, mail and processing options. A
// letter shows its effective options: Print, Mail, VariableHandling and
// AddressProcessing always set, each default filled (no CASS, NCOA none,
// deliverability threshold normal); DeliverabilityValues only when given.
type LetterOptions struct {
	Print                   *PrintOptions           `json:"print,omitempty"`
	Mail                    *MailOptions            `json:"mail,omitempty"`
	VariableHandling        *VariableHandling       `json:"variableHandling,omitempty"`
	AddressProcessing       *AddressProcessing      `json:"addressProcessing,omitempty"`
	DeliverabilityThreshold DeliverabilityThreshold `json:"deliverabilityThreshold,omitempty"`
	DeliverabilityValues    []Deliverability        `json:"deliverabilityValues"`
}

// PrintOptions: Color false prints in greyscale. AddressPlacement says where
// a letter from a PDF document carries its address block: "insertBlankPage"
// (empty means this: an added first page) or "topFirstPage" (over the
// document's first page).
type PrintOptions struct {
	Color            bool   `json:"color"`
	AddressPlacement string `json:"addressPlacement,omitempty"`
}

// MailOptions are the postal service and its extras.
type MailOptions struct {
	Service       MailService    `json:"service"`
	ExtraServices []ExtraService `json:"extraServices"`
}

// VariableHandling says how strictly a letter's variables are checked:
// ValidationScope "asset" against the version's definitions, "none" not.
type VariableHandling struct {
	ValidationScope ValidationScope `json:"validationScope"`
}

// AddressProcessing chooses the address processing of a letter. A nil
// CassSender or CassRecipient leaves that address as given.
type AddressProcessing struct {
	CassSender    *CassOptions `json:"cassSender"`
	CassRecipient *CassOptions `json:"cassRecipient"`
	NcoaRecipient NcoaOption   `json:"ncoaRecipient,omitempty"`
}

// CassOptions asks for CASS standardization: Type "basic", Casing "proper"
// (the default) or "upper".
type CassOptions struct {
	Type   CassType `json:"type"`
	Casing Casing   `json:"casing,omitempty"`
}

// The enumerations of the options; anything else is refused.
var (
	mailServices            = []MailService{MailFirstClass, MailStandard}
	extraServices           = []ExtraService{ExtraACS, ExtraCertified, ExtraCertifiedReturnReceipt, ExtraRegistered}
	cassTypes               = []CassType{CassBasic}
	cassCasings             = []Casing{CasingProper, CasingUpper}
	ncoaValues              = []NcoaOption{NcoaNone, NcoaNewAddress}
	deliverabilityNames     = []DeliverabilityThreshold{ThresholdStrict, ThresholdNormal, ThresholdRelaxed}
	deliverabilityValueList = []Deliverability{Deliverable, DeliverableMissingUnit, DeliverableIncorrectUnit, DeliverableUnnecessaryUnit, Undeliverable}
	validationScopes        = []ValidationScope{ValidationScopeAsset, ValidationScopeNone}
	useTypes                = []UseType{UseMarketing, UseTransactional}
)

// Field limits of a letter.
const (
	maxAddressLine = 64
	maxNameField   = 64
	maxFreeText    = 255
	// maxExternalID is the real service's limit on a letter's externalId.
	maxExternalID = 99999
)

// PartyInput is a sender or recipient as given on create or update. The last
// line of the address may be given whole (LastLine) or in parts (City,
// State, ZipCode, and optionally Plus4Code and Urbanization).
//
// The results of address processing (AddressComponents, AddressAnalysis,
// AddressCorrections, AddressMetadata) are read-only: an update may send
// them back as fetched, and they are then ignored; a value other than the
// stored party's is refused, and so is any on create.
type PartyInput struct {
	Address        AddressInput `json:"address"`
	Individual     *Individual  `json:"individual,omitempty"`
	Organization   string       `json:"organization,omitempty"`
	NonAddressData string       `json:"nonAddressData,omitempty"`

	AddressComponents  *AddressComponents  `json:"addressComponents,omitempty"`
	AddressAnalysis    *AddressAnalysis    `json:"addressAnalysis,omitempty"`
	AddressCorrections []AddressCorrection `json:"addressCorrections,omitempty"`
	AddressMetadata    *AddressMetadata    `json:"addressMetadata,omitempty"`
}

// AddressInput is an address as given.
type AddressInput struct {
	AddressLine1 string `json:"addressLine1"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	LastLine     string `json:"lastLine,omitempty"`
	City         string `json:"city,omitempty"`
	State        string `json:"state,omitempty"`
	ZipCode      string `json:"zipCode,omitempty"`
	Plus4Code    string `json:"plus4Code,omitempty"`
	Urbanization string `json:"urbanization,omitempty"`
}

// CreateLetterInput is a request to create a letter. Sender, Recipient,
// Content and UseType are required.
type CreateLetterInput struct {
	Sender      *PartyInput    `json:"sender"`
	Recipient   *PartyInput    `json:"recipient"`
	Content     *LetterContent `json:"content"`
	UseType     UseType        `json:"useType"`
	ExternalID  string         `json:"externalId,omitempty"`
	SendDate    string         `json:"sendDate,omitempty"`
	Description string         `json:"description,omitempty"`
	Variables   []Variable     `json:"variables,omitempty"`
	Options     *LetterOptions `json:"options,omitempty"`
	Metadata    Metadata       `json:"metadata,omitempty"`
}

// UpdateLetterInput changes a letter: each field given replaces the
// letter's. Metadata, Description and ExternalID can change at any time; the
// others only while the letter is queued or at issue. A field given with
// the letter's current value is no change, so a letter fetched, changed in
// one field and sent back whole is updated whatever its status.
//
// ID, Status, Events, CreatedAt, ModifiedAt, URL and IssueMessage are
// read-only: given with the letter's current value they are ignored; with
// another, the update is refused naming the field.
type UpdateLetterInput struct {
	Metadata    *Metadata      `json:"metadata,omitempty"`
	Description *string        `json:"description,omitempty"`
	ExternalID  *string        `json:"externalId,omitempty"`
	Sender      *PartyInput    `json:"sender,omitempty"`
	Recipient   *PartyInput    `json:"recipient,omitempty"`
	Content     *LetterContent `json:"content,omitempty"`
	UseType     *UseType       `json:"useType,omitempty"`
	Variables   *[]Variable    `json:"variables,omitempty"`
	Options     *LetterOptions `json:"options,omitempty"`
	SendDate    *string        `json:"sendDate,omitempty"`

	ID           *string       `json:"id,omitempty"`
	Status       *LetterStatus `json:"status,omitempty"`
	Events       []Event       `json:"events,omitempty"`
	CreatedAt    *time.Time    `json:"createdAt,omitempty"`
	ModifiedAt   *time.Time    `json:"modifiedAt,omitempty"`
	URL          *string       `json:"url,omitempty"`
	IssueMessage *string       `json:"issueMessage,omitempty"`
}

// ListLettersInput selects letters. Empty filters do not filter.
type ListLettersInput struct {
	PageRequest
	Status     LetterStatus
	ExternalID string
	// Metadata pairs must all be on a letter, values equal.
	Metadata Metadata
	// IncludeCassDetails keeps addressAnalysis, addressCorrections and
	// addressMetadata on the listed letters; without it they are left out.
	IncludeCassDetails bool
}

// CreateLetter validates in, processes the addresses, and stores a new
// letter: queued, or at issue when its recipient cannot be mailed.
func (s *Service) CreateLetter(ctx context.Context, account string, in CreateLetterInput) (*Letter, error) {
	return idempotent(ctx, s, account, "createLetter", in, func(ctx context.Context) (*Letter, error) {
		return s.createLetter(ctx, account, in)
	})
}

func (s *Service) createLetter(ctx context.Context, account string, in CreateLetterInput) (*Letter, error) {
	now := s.now(account)
	f := fieldErrors{}
	l := &Letter{
		Status:      StatusQueued,
		UseType:     in.UseType,
		ExternalID:  in.ExternalID,
		SendDate:    sendDay(in.SendDate),
		Description: in.Description,
		Variables:   cloneVariables(in.Variables),
		Metadata:    in.Metadata.clone(),
		CreatedAt:   now,
		ModifiedAt:  now,
		Events:      []Event{},
	}
	l.Options = s.checkCreateLetter(account, in, f)
	if in.Content != nil {
		l.Content = *in.Content
		resolved, err := s.resolveContent(ctx, account, l, f)
		if err == nil && resolved {
			err = s.checkLetterContent(ctx, account, l, f)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if err := s.processAddresses(ctx, account, l, in.Sender, in.Recipient); err != nil {
		return nil, err
	}
	l.ID = s.newID(letterPrefix, now)
	s.life.begin(l, now)
	s.setURL(l)
	rec := letterRecord(account, l)
	keepForClaim(ctx, &rec, l)
	stored, err := withCompletion(ctx, l, func(c *storage.Completion) (storage.Letter, error) {
		return s.store.CreateLetter(ctx, rec, c)
	})
	l.kept = nil
	if err != nil {
		return nil, storeErr("create letter", err)
	}
	l.revision, l.storedEvents = stored.Revision, len(l.Events)
	s.deliveries.made(stored.Deliveries)
	return l, nil
}

// checkCreateLetter checks what of a letter to create needs no stored
// object, and returns its options with their defaults.
func (s *Service) checkCreateLetter(account string, in CreateLetterInput, f fieldErrors) LetterOptions {
	validateParty("sender", in.Sender, RoleSender, f)
	validateParty("recipient", in.Recipient, RoleRecipient, f)
	refuseReadOnlyParty(f, "sender", in.Sender)
	refuseReadOnlyParty(f, "recipient", in.Recipient)
	checkPrintableParty(f, "sender", in.Sender)
	checkPrintableParty(f, "recipient", in.Recipient)
	validateUseType("useType", in.UseType, f)
	s.validateSendDate(account, sendDay(in.SendDate), f)
	maxLen(f, "externalId", in.ExternalID, maxExternalID)
	validateFreeText(f, "description", in.Description)
	in.Metadata.validate("metadata", f)
	if in.Content == nil {
		f.add("content", "content is required")
	}
	return normalizeOptions(in.Options, f)
}

// GetLetter returns a letter of the account.
func (s *Service) GetLetter(ctx context.Context, account, id string) (*Letter, error) {
	if err := s.life.CatchUp(ctx, account); err != nil {
		return nil, err
	}
	return s.getLetter(ctx, account, id)
}

func (s *Service) getLetter(ctx context.Context, account, id string) (*Letter, error) {
	rec, err := s.readLetter(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return s.shownLetter(rec, s.now(account))
}

// readLetter reads a stored letter of the account.
func (s *Service) readLetter(ctx context.Context, account, id string) (storage.Letter, error) {
	if err := idErr("id", letterPrefix, id); err != nil {
		return storage.Letter{}, err
	}
	rec, err := s.store.GetLetter(ctx, account, id)
	if err != nil {
		return storage.Letter{}, objectErr(err, "letter", id, "get letter")
	}
	return rec, nil
}

// shownLetter is the stored letter as a fetch at now shows it: with the
// steps due by now taken, though a run has not yet stored them.
func (s *Service) shownLetter(rec storage.Letter, now time.Time) (*Letter, error) {
	l, err := letterFromRecord(rec)
	if err != nil {
		return nil, internal("get letter", err)
	}
	s.life.settle(l, now)
	s.setURL(l)
	return l, nil
}

// ListLetters returns a page of the account's letters, newest first.
func (s *Service) ListLetters(ctx context.Context, account string, in ListLettersInput) (Page[*Letter], error) {
	list, err := s.OpenLetterList(ctx, account, in)
	if err != nil {
		return Page[*Letter]{}, err
	}
	page, err := list.Read(ctx)
	if err != nil {
		return Page[*Letter]{}, err
	}
	items := make([]*Letter, page.Len())
	for i := range items {
		if items[i], err = page.Letter(i); err != nil {
			return Page[*Letter]{}, err
		}
	}
	return Page[*Letter]{Items: items, NextToken: page.NextToken()}, nil
}

// letterQuery checks in and returns the store query of the page it asks
// for, once the account's letters due are brought up to date.
func (s *Service) letterQuery(ctx context.Context, account string, in ListLettersInput) (storage.LetterQuery, cursor, error) {
	f := fieldErrors{}
	if in.Status != "" && !slices.Contains(letterStatuses, in.Status) {
		f.add("status", "must be one of %s", joinEnum(letterStatuses))
	}
	in.Metadata.CheckFilter(f)
	scope := []string{string(in.Status), in.ExternalID}
	for _, m := range in.Metadata {
		scope = append(scope, m.Key, m.Value)
	}
	c := s.openPage(in.PageRequest, pagetoken.Scope(account, "letters", scope...), f)
	if err := f.err(); err != nil {
		return storage.LetterQuery{}, c, err
	}
	if err := s.life.CatchUp(ctx, account); err != nil {
		return storage.LetterQuery{}, c, err
	}
	return storage.LetterQuery{
		Account:    account,
		Status:     string(in.Status),
		ExternalID: in.ExternalID,
		Metadata:   metadataRecords(in.Metadata),
		Before:     c.before,
		Limit:      c.limit + 1,
	}, c, nil
}

// listedLetter is a stored letter as a list shows it.
func (s *Service) listedLetter(r storage.Letter, cassDetails bool) (*Letter, error) {
	l, err := letterFromRecord(r)
	if err != nil {
		return nil, internal("list letters", err)
	}
	s.setURL(l)
	if !cassDetails {
		l.Sender.withoutCassDetails()
		l.Recipient.withoutCassDetails()
		l.cassLeftOut = true
	}
	return l, nil
}

// UpdateLetter changes a letter as in says. A change to what is mailed
// (parties, content, variables, options, sendDate, useType) is allowed
// while the letter is queued or at issue, and a conflict once it has moved
// on; a field given with its current value is no change, and an update that
// changes nothing writes nothing. A change of the recipient or the options
// runs address processing and the deliverability check again: a letter at
// issue whose recipient can now be mailed is queued again.
func (s *Service) UpdateLetter(ctx context.Context, account, id string, in UpdateLetterInput) (*Letter, error) {
	return idempotent(ctx, s, account, "updateLetter:"+id, in, func(ctx context.Context) (*Letter, error) {
		return s.modifyLetter(ctx, account, id, func(l *Letter) error { return s.applyUpdate(ctx, account, l, in) })
	})
}

// checkUpdateLetter checks the fields of a letter's update whose rules do
// not depend on the stored letter.
func checkUpdateLetter(f fieldErrors, in UpdateLetterInput) {
	if in.Metadata != nil {
		in.Metadata.validate("metadata", f)
	}
	if in.Description != nil {
		validateFreeText(f, "description", *in.Description)
	}
	if in.ExternalID != nil {
		maxLen(f, "externalId", *in.ExternalID, maxExternalID)
	}
}

func (s *Service) applyUpdate(ctx context.Context, account string, l *Letter, in UpdateLetterInput) error {
	f := fieldErrors{}
	if in.SendDate != nil {
		d := sendDay(*in.SendDate)
		in.SendDate = &d
	}
	checkLetterReadOnly(f, in, l)
	checkUpdateLetter(f, in)
	in.Sender, in.Recipient = withoutMadeFullName(in.Sender, l.Sender), withoutMadeFullName(in.Recipient, l.Recipient)
	ch := changesOf(in, l, f)
	mail := ch.mail()
	// A letter at issue because its content could not be printed (as a
	// host that did not answer) is queued again by an update that gives
	// its content or variables, changed or not: once the host is fixed,
	// sending the letter back is how to try again.
	retry := l.Status == StatusIssue && strings.HasPrefix(l.IssueMessage, contentIssuePrefix) && (in.Content != nil || in.Variables != nil)
	mail = mail || retry
	if mail {
		if ch.sender {
			validateParty("sender", in.Sender, RoleSender, f)
			checkPrintableParty(f, "sender", in.Sender)
		}
		if ch.recipient {
			validateParty("recipient", in.Recipient, RoleRecipient, f)
			checkPrintableParty(f, "recipient", in.Recipient)
		}
		if ch.useType {
			validateUseType("useType", *in.UseType, f)
		}
		if ch.sendDate {
			s.validateSendDate(account, *in.SendDate, f)
		}
		if ch.options {
			l.Options = ch.opts
		}
		if ch.variables {
			l.Variables = cloneVariables(*in.Variables)
		}
		resolved, err := true, error(nil)
		if ch.content {
			l.Content = *in.Content
			resolved, err = s.resolveContent(ctx, account, l, f)
		}
		if err == nil && resolved {
			err = s.checkLetterContent(ctx, account, l, f)
		}
		if err != nil {
			return err
		}
	}
	if err := f.err(); err != nil {
		return err
	}
	if mail && l.Status != StatusQueued && l.Status != StatusIssue {
		return errorf(CodeConflict, "letter %s is %s: %s can change only while a letter is queued or at issue; metadata, description and externalId can change at any time", l.ID, l.Status, ch.names())
	}
	changed := mail
	if mail {
		if ch.useType {
			l.UseType = *in.UseType
		}
		if ch.sendDate {
			l.SendDate = *in.SendDate
		}
		// A party changed is processed; one not changed keeps its stored
		// result (and its corrections), unless new options ask for other
		// processing, which starts again from its stored form. A letter at
		// issue whose recipient and options stay as they are stays at
		// issue: its recipient would be judged as before.
		if (ch.content || ch.variables || retry) && strings.HasPrefix(l.IssueMessage, contentIssuePrefix) {
			// Its content is judged again when it is next printed.
			l.IssueMessage = ""
		}
		var sender, recipient *PartyInput
		if ch.sender {
			sender = in.Sender
		} else if ch.options {
			sender = partyInputOf(l.Sender)
		}
		if ch.recipient {
			recipient = in.Recipient
		} else if ch.options {
			recipient = partyInputOf(l.Recipient)
		}
		if err := s.processAddresses(ctx, account, l, sender, recipient); err != nil {
			return err
		}
		s.life.rescheduled(l, s.now(account))
	}
	if in.Metadata != nil && !slices.Equal(*in.Metadata, l.Metadata) {
		l.Metadata = in.Metadata.clone()
		changed = true
	}
	if in.Description != nil && *in.Description != l.Description {
		l.Description = *in.Description
		changed = true
	}
	if in.ExternalID != nil && *in.ExternalID != l.ExternalID {
		l.ExternalID = *in.ExternalID
		changed = true
	}
	if !changed {
		return errUnchanged
	}
	return nil
}

// CancelLetter cancels a queued or ready letter, or one at issue. Canceling
// a canceled letter changes nothing and succeeds; any other status is a
// conflict.
func (s *Service) CancelLetter(ctx context.Context, account, id string) (*Letter, error) {
	return idempotent(ctx, s, account, "cancelLetter:"+id, nil, func(ctx context.Context) (*Letter, error) {
		return s.modifyLetter(ctx, account, id, func(l *Letter) error {
			switch l.Status {
			case StatusCanceled:
				return errUnchanged
			case StatusQueued, StatusReady, StatusIssue:
				s.life.transition(l, StatusCanceled, s.now(account), postal.Describe(postal.Canceled))
				return nil
			default:
				return errorf(CodeConflict, "letter %s is %s and can no longer be canceled", l.ID, l.Status)
			}
		})
	})
}

// errUnchanged tells modifyLetter that the change is already in place.
var errUnchanged = errors.New("unchanged")

// maxRetries bounds how often a read-change-write is retried after losing a
// race to another write of the same object.
const maxRetries = 10

// modifyLetter reads a letter, applies change and writes it back, retrying
// when a concurrent write (the lifecycle moving the letter) got there first.
func (s *Service) modifyLetter(ctx context.Context, account, id string, change func(*Letter) error) (*Letter, error) {
	ctx = storehooks.Track(ctx, s.store) // a LetterStatus hook hears of the change of status
	if err := s.life.CatchUp(ctx, account); err != nil {
		return nil, err
	}
	l, err := storage.RetryConflicts(maxRetries, func() (*Letter, error) {
		l, err := s.getLetter(ctx, account, id)
		if err != nil {
			return nil, err
		}
		err = change(l)
		if errors.Is(err, errUnchanged) {
			return l, nil
		}
		if err != nil {
			return nil, err
		}
		l.ModifiedAt = s.now(account)
		rec := letterRecord(account, l)
		keepForClaim(ctx, &rec, l)
		stored, err := withCompletion(ctx, l, func(c *storage.Completion) (storage.Letter, error) {
			return s.store.UpdateLetter(ctx, rec, c)
		})
		l.kept = nil
		if err != nil {
			return nil, err
		}
		l.revision, l.storedEvents = stored.Revision, len(l.Events)
		s.deliveries.made(stored.Deliveries)
		return l, nil
	})
	if err != nil {
		return nil, objectErr(err, "letter", id, "update letter")
	}
	return l, nil
}
