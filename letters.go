package lettershop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/usps"
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
	kept *keptLetter
}

// CassDetailsLeftOut reports whether the letter was read by a list that
// leaves out the results of address processing (ListLettersInput without
// IncludeCassDetails): the API then shows no addressAnalysis,
// addressCorrections or addressMetadata at all, where a fetch shows them,
// null when there are none.
func (l *Letter) CassDetailsLeftOut() bool { return l.cassLeftOut }

// UnmarshalJSON reads a letter as the API shows it (package wire writes
// it), every field present and null where empty. Tracking details without
// any value, as status events show them, are read as none.
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
		SendDate:    in.SendDate,
		Description: in.Description,
		Variables:   cloneVariables(in.Variables),
		Metadata:    in.Metadata.clone(),
		CreatedAt:   now,
		ModifiedAt:  now,
		Events:      []Event{},
	}
	validateParty("sender", in.Sender, RoleSender, f)
	validateParty("recipient", in.Recipient, RoleRecipient, f)
	refuseReadOnlyParty(f, "sender", in.Sender)
	refuseReadOnlyParty(f, "recipient", in.Recipient)
	checkPrintableParty(f, "sender", in.Sender)
	checkPrintableParty(f, "recipient", in.Recipient)
	validateUseType("useType", in.UseType, f)
	s.validateSendDate(account, in.SendDate, f)
	validateFreeText(f, "externalId", in.ExternalID)
	validateFreeText(f, "description", in.Description)
	in.Metadata.validate("metadata", f)
	l.Options = normalizeOptions(in.Options, f)
	if in.Content == nil {
		f.add("content", "content is required")
	} else {
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
	rec, err := letterRecord(account, l)
	if err != nil {
		return nil, internal("create letter", err)
	}
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

// GetLetter returns a letter of the account.
func (s *Service) GetLetter(ctx context.Context, account, id string) (*Letter, error) {
	if err := s.life.catchUp(ctx, account); err != nil {
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
	if !ValidID(letterPrefix, id) {
		return storage.Letter{}, invalidField("id", "must be %s followed by letters and digits", letterPrefix)
	}
	rec, err := s.store.GetLetter(ctx, account, id)
	if errors.Is(err, storage.ErrNotFound) {
		return storage.Letter{}, notFound("letter", id)
	}
	if err != nil {
		return storage.Letter{}, storeErr("get letter", err)
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
	scope := []string{string(in.Status), in.ExternalID}
	for _, m := range in.Metadata {
		scope = append(scope, m.Key, m.Value)
	}
	c := s.openPage(in.PageRequest, pageScope(account, "letters", scope...), f)
	if err := f.err(); err != nil {
		return storage.LetterQuery{}, c, err
	}
	if err := s.life.catchUp(ctx, account); err != nil {
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

func (s *Service) applyUpdate(ctx context.Context, account string, l *Letter, in UpdateLetterInput) error {
	f := fieldErrors{}
	checkLetterReadOnly(f, in, l)
	if in.Metadata != nil {
		in.Metadata.validate("metadata", f)
	}
	if in.Description != nil {
		validateFreeText(f, "description", *in.Description)
	}
	if in.ExternalID != nil {
		validateFreeText(f, "externalId", *in.ExternalID)
	}
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
		return errorf(CodeConflict, "letter %s is %s: only the content, parties, options and send date of a letter queued or at issue can change", l.ID, l.Status)
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
	ctx = trackStoredStatus(ctx)
	if err := s.life.catchUp(ctx, account); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
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
		rec, err := letterRecord(account, l)
		if err != nil {
			return nil, internal("update letter", err)
		}
		keepForClaim(ctx, &rec, l)
		stored, err := withCompletion(ctx, l, func(c *storage.Completion) (storage.Letter, error) {
			return s.store.UpdateLetter(ctx, rec, c)
		})
		l.kept = nil
		if errors.Is(err, storage.ErrConflict) && attempt < maxRetries {
			continue
		}
		if errors.Is(err, storage.ErrNotFound) {
			return nil, notFound("letter", id)
		}
		if err != nil {
			return nil, storeErr("update letter", err)
		}
		l.revision, l.storedEvents = stored.Revision, len(l.Events)
		s.deliveries.made(stored.Deliveries)
		return l, nil
	}
}

// resolveContent checks the letter's content names an asset of the account
// and a published version of it (its published one when none is named), and
// snapshots what the letter will be printed from. It reports whether it
// could; err is the store's failure to tell (an internal or cancelled
// error), never the request's.
func (s *Service) resolveContent(ctx context.Context, account string, l *Letter, f fieldErrors) (resolved bool, err error) {
	c := &l.Content
	ok := true
	if c.Type != LetterContentAsset {
		f.add("content.type", "must be asset")
		ok = false
	}
	if !ValidID(assetPrefix, c.AssetID) {
		f.add("content.assetId", "must be %s followed by letters and digits", assetPrefix)
		return false, nil
	}
	if c.AssetVersionID != "" && !ValidID(versionPrefix, c.AssetVersionID) {
		f.add("content.assetVersionId", "must be %s followed by letters and digits", versionPrefix)
		return false, nil
	}
	a, err := s.getAsset(ctx, account, c.AssetID)
	if ErrorCode(err) == CodeNotFound {
		f.add("content.assetId", "asset %s not found", c.AssetID)
		return false, nil
	} else if err != nil {
		return false, err
	}
	vid := c.AssetVersionID
	if vid == "" {
		if a.PublishedVersionID == "" {
			f.add("content.assetId", "asset %s has no published version", c.AssetID)
			return false, nil
		}
		vid = a.PublishedVersionID
	}
	v, err := s.getVersion(ctx, account, c.AssetID, vid)
	if ErrorCode(err) == CodeNotFound {
		f.add("content.assetVersionId", "version %s of asset %s not found", vid, c.AssetID)
		return false, nil
	} else if err != nil {
		return false, err
	}
	if v.Status != VersionPublished {
		f.add("content.assetVersionId", "version %s is %s: only a published version can be mailed", vid, v.Status)
		return false, nil
	}
	if why := printableContent(string(v.Content.Type)); why != "" {
		f.add("content.assetId", "%s", why)
		return false, nil
	}
	c.AssetVersionID = vid
	hash := v.contentHash
	if v.Content.Source == ContentExternalURL {
		hash = v.externalURL
	}
	l.snapshot = contentSnapshot{
		Hash:        hash,
		Type:        string(v.Content.Type),
		Definitions: slices.Clone(v.VariableDefinitions),
	}
	return ok, nil
}

// processAddresses runs address processing on the parties given (nil: keep
// the stored one) and judges the recipient's deliverability.
func (s *Service) processAddresses(ctx context.Context, account string, l *Letter, sender, recipient *PartyInput) error {
	var cassS, cassR *CassOptions
	ncoa := false
	if ap := l.Options.AddressProcessing; ap != nil {
		cassS, cassR, ncoa = ap.CassSender, ap.CassRecipient, ap.NcoaRecipient == NcoaNewAddress
	}
	if sender != nil {
		rs, err := s.address.Process(ctx, AddressRequest{Account: account, Role: RoleSender, Party: partyOf(sender), CASS: cassS})
		if err != nil {
			return internal("process sender address", err)
		}
		l.Sender = rs.Party
	}
	if recipient != nil {
		rr, err := s.address.Process(ctx, AddressRequest{Account: account, Role: RoleRecipient, Party: partyOf(recipient), CASS: cassR, NCOA: ncoa})
		if err != nil {
			return internal("process recipient address", err)
		}
		l.Recipient = rr.Party
		l.IssueMessage = deliverabilityIssue(l.Options, rr)
	}
	return nil
}

// partyOf turns a party as given into a Party for processing: the last line
// composed from its parts when given in parts.
func partyOf(in *PartyInput) Party {
	a := in.Address
	p := Party{
		Address:        Address{AddressLine1: a.AddressLine1, AddressLine2: a.AddressLine2, LastLine: a.LastLine},
		Organization:   in.Organization,
		NonAddressData: in.NonAddressData,
		AddressComponents: &AddressComponents{
			CassType: CassNone, City: a.City, State: a.State, ZipCode: a.ZipCode,
			Plus4Code: a.Plus4Code, Urbanization: a.Urbanization,
		},
	}
	if in.Individual != nil {
		ind := *in.Individual
		if ind.FullName == "" {
			ind.FullName = joinNonEmpty(" ", ind.Prefix, ind.FirstName, ind.MiddleName, ind.LastName, ind.Postfix)
		}
		p.Individual = &ind
	}
	if p.Address.LastLine == "" {
		p.Address.LastLine = composeLastLine(a)
	}
	return p
}

// composeLastLine is the last line of an address given in parts:
// "City, ST 12345-6789".
func composeLastLine(a AddressInput) string {
	zip := a.ZipCode
	if a.Plus4Code != "" {
		zip += "-" + a.Plus4Code
	}
	return joinNonEmpty(" ", joinNonEmpty(", ", a.City, a.State), zip)
}

// partyInputOf is the input that gives back p, for reprocessing a stored
// party whose address did not change.
func partyInputOf(p Party) *PartyInput {
	in := &PartyInput{
		Address:        AddressInput{AddressLine1: p.Address.AddressLine1, AddressLine2: p.Address.AddressLine2, LastLine: p.Address.LastLine},
		Individual:     p.Individual,
		Organization:   p.Organization,
		NonAddressData: p.NonAddressData,
	}
	if c := p.AddressComponents; c != nil {
		in.Address.Urbanization = c.Urbanization
	}
	return in
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// withoutCassDetails drops the bulky processing results lists leave out.
func (p *Party) withoutCassDetails() {
	p.AddressAnalysis, p.AddressCorrections, p.AddressMetadata = nil, nil, nil
}

func (s *Service) setURL(l *Letter) {
	l.URL = s.baseURL + "/letters/" + l.ID + "/download"
}

func validateParty(path string, p *PartyInput, role PartyRole, f fieldErrors) {
	if p == nil {
		f.add(path, "%s is required", path)
		return
	}
	a := p.Address
	if strings.TrimSpace(a.AddressLine1) == "" {
		f.add(path+".address.addressLine1", "addressLine1 can not be empty")
	}
	parts := a.City != "" || a.State != "" || a.ZipCode != ""
	if strings.TrimSpace(a.LastLine) != "" && parts {
		if msg := lastLineDisagrees(a); msg != "" {
			f.add(path+".address", "%s", msg)
		}
	}
	if strings.TrimSpace(a.LastLine) == "" {
		if !parts {
			f.add(path+".address.lastLine", "lastLine can not be empty (or give city, state and zipCode)")
		} else {
			for _, part := range [...]struct{ name, v string }{{"city", a.City}, {"state", a.State}, {"zipCode", a.ZipCode}} {
				if strings.TrimSpace(part.v) == "" {
					f.add(path+".address."+part.name, "%s can not be empty when the last line is given in parts", part.name)
				}
			}
			// The parts make the lastLine the letter shows, which must
			// fit where a lastLine given whole would.
			if n := utf8.RuneCountInString(composeLastLine(a)); n > maxAddressLine {
				f.add(path+".address.city", "city, state and ZIP Code make a last line of %d characters; at most %d fit", n, maxAddressLine)
			}
		}
	}
	for _, fv := range [...]struct{ name, v string }{
		{".address.addressLine1", a.AddressLine1}, {".address.addressLine2", a.AddressLine2},
		{".address.lastLine", a.LastLine}, {".address.city", a.City}, {".address.urbanization", a.Urbanization},
	} {
		maxLenAt(f, path, fv.name, fv.v, maxAddressLine)
	}
	maxLenAt(f, path, ".address.state", a.State, 2)
	maxLenAt(f, path, ".address.zipCode", a.ZipCode, 5)
	maxLenAt(f, path, ".address.plus4Code", a.Plus4Code, 4)
	if p.Individual == nil && strings.TrimSpace(p.Organization) == "" {
		f.add(path+".individual", "give individual or organization (or both)")
	}
	maxLenAt(f, path, ".organization", p.Organization, maxNameField)
	if ind := p.Individual; ind != nil {
		if strings.TrimSpace(ind.FullName) == "" {
			if strings.TrimSpace(ind.FirstName) == "" {
				f.add(path+".individual.firstName", "firstName can not be empty")
			}
			if strings.TrimSpace(ind.LastName) == "" {
				f.add(path+".individual.lastName", "lastName can not be empty")
			}
		}
		for _, fv := range [...]struct{ name, v string }{
			{".individual.fullName", ind.FullName}, {".individual.prefix", ind.Prefix},
			{".individual.firstName", ind.FirstName}, {".individual.middleName", ind.MiddleName},
			{".individual.lastName", ind.LastName}, {".individual.postfix", ind.Postfix}, {".individual.title", ind.Title},
		} {
			maxLenAt(f, path, fv.name, fv.v, maxNameField)
		}
	}
	if p.NonAddressData != "" && role == RoleSender {
		f.add(path+".nonAddressData", "only a recipient has nonAddressData")
	}
	maxLenAt(f, path, ".nonAddressData", p.NonAddressData, maxFreeText)
}

// lastLineDisagrees says where the parts of an address given beside its
// lastLine (city, state, zipCode, plus4Code) contradict it, or "". A part
// the last line does not carry, and a last line that can not be read,
// contradict nothing: the parts then stand in for what it lacks.
func lastLineDisagrees(a AddressInput) string {
	ll, err := usps.ParseLastLine(a.LastLine)
	if err != nil {
		return ""
	}
	var bad []string
	if a.City != "" && !strings.EqualFold(cityWords(a.City), cityWords(ll.City)) {
		bad = append(bad, "city "+echo.Quote(a.City))
	}
	if a.State != "" {
		if st, ok := usps.LookupState(a.State); !ok || st.Code != ll.State {
			bad = append(bad, "state "+echo.Quote(a.State))
		}
	}
	if a.ZipCode != "" && ll.ZIP != "" && strings.TrimSpace(a.ZipCode) != ll.ZIP {
		bad = append(bad, "zipCode "+echo.Quote(a.ZipCode))
	}
	if a.Plus4Code != "" && ll.Plus4 != "" && strings.TrimSpace(a.Plus4Code) != ll.Plus4 {
		bad = append(bad, "plus4Code "+echo.Quote(a.Plus4Code))
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("lastLine %s disagrees with %s: give the last line whole or in parts, or parts that agree with it",
		echo.Quote(a.LastLine), strings.Join(bad, ", "))
}

// cityWords is a city name's words, without punctuation or extra space:
// "St. Louis" and "ST LOUIS" have the same.
func cityWords(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

// maxLen checks a text field: at most n characters, and text a store can
// keep (valid UTF-8 without NUL).
func maxLen(f fieldErrors, path, v string, n int) {
	if msg := badText(v); msg != "" {
		f.add(path, "%s", msg)
	} else if c := utf8.RuneCountInString(v); c > n {
		f.add(path, "must be at most %d characters, got %d", n, c)
	}
}

// maxLenAt is maxLen at path+sub; the path is made only for a problem,
// as a letter's parties have a score of fields and rarely a problem.
func maxLenAt(f fieldErrors, path, sub, v string, n int) {
	if len(v) <= n && badText(v) == "" {
		return // no more bytes than n, so no more characters
	}
	maxLen(f, path+sub, v, n)
}

// badText says what is wrong with text no field may hold, or "".
func badText(v string) string {
	switch {
	case !utf8.ValidString(v):
		return "must be valid UTF-8 text"
	case strings.IndexByte(v, 0) >= 0:
		return "must not contain a NUL character"
	}
	return ""
}

func validateFreeText(f fieldErrors, path, v string) { maxLen(f, path, v, maxFreeText) }

func validateUseType(path string, u UseType, f fieldErrors) {
	switch {
	case u == "":
		f.add(path, "useType is required: one of %s", joinEnum(useTypes))
	case !slices.Contains(useTypes, u):
		f.add(path, "must be one of %s, got %s", joinEnum(useTypes), echo.Quote(string(u)))
	}
}

// validateSendDate accepts YYYY-MM-DD, today (on the account's clock, UTC) or later.
func (s *Service) validateSendDate(account, d string, f fieldErrors) {
	if d == "" {
		return
	}
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		f.add("sendDate", "must be a date as YYYY-MM-DD, got %s", echo.Quote(d))
		return
	}
	if today := s.now(account).Truncate(24 * time.Hour); t.Before(today) {
		f.add("sendDate", "must be today (%s) or later, got %s", today.Format(time.DateOnly), d)
	}
}

// normalizeOptions checks every option against its enumeration and fills
// the defaults.
func normalizeOptions(in *LetterOptions, f fieldErrors) LetterOptions {
	var o LetterOptions
	if in != nil {
		o = *in
	}
	o.Print = &PrintOptions{}
	if in != nil && in.Print != nil {
		*o.Print = *in.Print
	}
	if o.Print.AddressPlacement != "" {
		enum(f, "options.print.addressPlacement", o.Print.AddressPlacement, addressPlacements)
	}
	o.Mail = &MailOptions{Service: MailFirstClass, ExtraServices: []ExtraService{}}
	if in != nil && in.Mail != nil {
		if in.Mail.Service != "" {
			o.Mail.Service = in.Mail.Service
		}
		o.Mail.ExtraServices = append(o.Mail.ExtraServices, in.Mail.ExtraServices...)
	}
	enum(f, "options.mail.service", o.Mail.Service, mailServices)
	for i, x := range o.Mail.ExtraServices {
		enum(f, fmt.Sprintf("options.mail.extraServices[%d]", i), x, extraServices)
	}
	o.VariableHandling = &VariableHandling{ValidationScope: ValidationScopeAsset}
	if in != nil && in.VariableHandling != nil && in.VariableHandling.ValidationScope != "" {
		o.VariableHandling.ValidationScope = in.VariableHandling.ValidationScope
	}
	enum(f, "options.variableHandling.validationScope", o.VariableHandling.ValidationScope, validationScopes)
	if ap := o.AddressProcessing; ap != nil {
		n := &AddressProcessing{NcoaRecipient: ap.NcoaRecipient}
		n.CassSender = normalizeCass(f, "options.addressProcessing.cassSender", ap.CassSender)
		n.CassRecipient = normalizeCass(f, "options.addressProcessing.cassRecipient", ap.CassRecipient)
		if n.NcoaRecipient != "" {
			enum(f, "options.addressProcessing.ncoaRecipient", n.NcoaRecipient, ncoaValues)
		}
		o.AddressProcessing = n
	}
	if o.DeliverabilityThreshold != "" {
		enum(f, "options.deliverabilityThreshold", o.DeliverabilityThreshold, deliverabilityNames)
	}
	for i, x := range o.Mail.ExtraServices {
		if slices.Contains(o.Mail.ExtraServices[:i], x) {
			f.add(fmt.Sprintf("options.mail.extraServices[%d]", i), "%s is given more than once", echo.Quote(string(x)))
		}
	}
	o.fillDefaults()
	o.DeliverabilityValues = slices.Clone(o.DeliverabilityValues)
	for i, v := range o.DeliverabilityValues {
		enum(f, fmt.Sprintf("options.deliverabilityValues[%d]", i), v, deliverabilityValueList)
	}
	return o
}

// fillDefaults sets the options left out to their defaults, so a letter
// shows the options it is processed with. Letters stored without them get
// them when read.
func (o *LetterOptions) fillDefaults() {
	if o.Print == nil {
		o.Print = &PrintOptions{}
	}
	if o.Mail == nil {
		o.Mail = &MailOptions{Service: "firstClass"}
	}
	if o.Mail.ExtraServices == nil {
		o.Mail.ExtraServices = []ExtraService{}
	}
	if o.VariableHandling == nil {
		o.VariableHandling = &VariableHandling{ValidationScope: "asset"}
	}
	if o.AddressProcessing == nil {
		o.AddressProcessing = &AddressProcessing{}
	}
	if o.AddressProcessing.NcoaRecipient == "" {
		o.AddressProcessing.NcoaRecipient = "none"
	}
	if o.DeliverabilityThreshold == "" {
		o.DeliverabilityThreshold = "normal"
	}
}

func normalizeCass(f fieldErrors, path string, c *CassOptions) *CassOptions {
	if c == nil {
		return nil
	}
	n := *c
	if n.Casing == "" {
		n.Casing = CasingProper
	}
	if n.Type == "" {
		f.add(path+".type", "type is required: one of %s", joinEnum(cassTypes))
	} else {
		enum(f, path+".type", n.Type, cassTypes)
	}
	enum(f, path+".casing", n.Casing, cassCasings)
	return &n
}

func enum[T ~string](f fieldErrors, path string, v T, allowed []T) {
	if !slices.Contains(allowed, v) {
		f.add(path, "must be one of %s, got %s", joinEnum(allowed), echo.Quote(string(v)))
	}
}

func joinEnum[T ~string](vs []T) string { return joinEnumWith(vs, ", ") }

func joinEnumWith[T ~string](vs []T, sep string) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, sep)
}
