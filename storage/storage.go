// Package storage defines the contract between the lettershop service and
// the backends that keep its records.
//
// The package owns its record types and sentinel errors so that backends
// need nothing from the domain: a record carries the fields a backend must
// index or check (ids, account, status, timestamps, metadata, revision) and
// a Document, the rest of the record, typed by the service. A store that
// keeps records in memory keeps the Document as it is, or in the form a
// Keeper gives, or a letter's in a layout of its own from the values the
// document gives (LetterValuer, letterdoc.go), copying it in and out; only
// a store that must serialize encodes it, and it hands documents back as
// Encoded, which the service decodes.
//
// Every method takes a context first; a cancelled context makes the method
// return the context's error and leaves nothing half written. Backends copy
// records in and out: a caller can never change stored state through a value
// it passed in or got back. Backends run no timers and read no clock: where
// time matters, it is an argument.
//
// Preconditions travel inside the write: an update names the revision it
// expects, and a write may carry the Completion of an idempotency claim, so a
// backend enforces both atomically with the write itself. When a write fails
// both ways, ErrClaimLost is reported.
//
// Ids are unique across accounts: an id taken in any account is
// ErrAlreadyExists. Queries always select one account (an empty Account is
// just an account named ""), and a Limit below 1 returns no records.
//
// Beside Storage a backend may implement Pinger (a readiness check),
// Restorer (an account restored in one step) and Eraser (an account
// emptied in one step), which the service finds by a type assertion. A
// store that wraps another by embedding a Storage (to count calls, say)
// has Storage's methods only: it passes the others on with methods of its
// own, or the service's Ping answers ready whatever the backend, a restore
// writes record by record, and an account can not be erased.
package storage

import (
	"context"
	"errors"
	"time"
)

// Sentinel errors. Backends return them, possibly wrapped; callers test with
// errors.Is.
var (
	// ErrNotFound: no record has that id in that account.
	ErrNotFound = errors.New("storage: not found")
	// ErrAlreadyExists: a record with that id exists already.
	ErrAlreadyExists = errors.New("storage: already exists")
	// ErrConflict: the record's revision is not the one the write expected.
	ErrConflict = errors.New("storage: revision conflict")
	// ErrClaimLost: the write carried a Completion for an idempotency claim
	// that is no longer in flight under that token (completed, released, or
	// taken over after its lease ended). Nothing was written.
	ErrClaimLost = errors.New("storage: idempotency claim lost")
	// ErrUnavailable: the backend could not be reached, or lost the
	// connection, before it answered; the same call may succeed once it
	// is back. A write it interrupted may or may not have been applied.
	ErrUnavailable = errors.New("storage: unavailable")
)

// Storage is what the service needs from a backend. Implementations must be
// safe for concurrent use, also across processes where the backend is shared.
type Storage interface {
	WebhookStorage
	ClockStorage

	// CreateLetter stores a new letter with Revision 1 and returns it.
	// Errors: ErrAlreadyExists when the id is taken; ErrClaimLost as for
	// every write with a Completion.
	CreateLetter(ctx context.Context, l Letter, c *Completion) (Letter, error)
	// GetLetter returns the letter with that id in that account.
	// Errors: ErrNotFound, also when the letter belongs to another account.
	GetLetter(ctx context.Context, account, id string) (Letter, error)
	// ListLetters returns up to q.Limit letters matching q, newest (highest
	// id) first, starting after q.Before. A page costs O(log n + page).
	ListLetters(ctx context.Context, q LetterQuery) ([]Letter, error)
	// UpdateLetter replaces the letter whose Account and ID match l, if its
	// stored Revision equals l.Revision, and returns it with the Revision
	// incremented. ID, Account and CreatedAt never change.
	// Errors: ErrNotFound; ErrConflict when the revision differs; ErrClaimLost.
	UpdateLetter(ctx context.Context, l Letter, c *Completion) (Letter, error)
	// ProcessDueLetters takes up to q.Limit letters that q selects and that
	// are due at q.Now (see DueQuery), earliest first (then lowest id), and
	// calls fn with a copy of each. When fn returns nil the store
	// writes the changed copy as an update (Revision incremented); when it
	// returns an error, nothing more is written. It returns the number of
	// letters written, with fn's error if there was one. Each letter is read
	// and written atomically, and a letter is never handed to two concurrent
	// callers (in this process or in another sharing the backend) at the
	// same revision. fn must not call the store. The letter fn gets is its
	// own, but what fn leaves in it (Doc, Metadata) passes to the store,
	// which may keep it without copying: fn must not keep or reuse it after
	// returning. A query costs O(log n + letters taken): a store finds
	// the letters through what is due, never by a walk over accounts.
	ProcessDueLetters(ctx context.Context, q DueQuery, fn func(*Letter) error) (int, error)

	// WriteAsset writes an asset and changes to its versions as one atomic
	// unit: the asset, then PutVersions (created or replaced), then
	// DeleteVersions, then PutContent. w.Asset.Revision is the revision the
	// write expects: 0 creates the asset. ID, Account and CreatedAt of an
	// existing asset never change. Every version and content written belongs
	// to the asset's account, and every version to the asset. It returns the
	// stored asset with its new revision.
	// Errors: ErrAlreadyExists when creating an id that exists, or putting a
	// version whose id belongs to another asset; ErrNotFound when updating an
	// asset that does not exist (or a version to delete does not exist);
	// ErrConflict when the revision differs; ErrClaimLost.
	WriteAsset(ctx context.Context, w AssetWrite) (Asset, error)
	// GetAsset returns the asset with that id in that account.
	// Errors: ErrNotFound.
	GetAsset(ctx context.Context, account, id string) (Asset, error)
	// ListAssets returns up to q.Limit assets matching q, newest first,
	// starting after q.Before.
	ListAssets(ctx context.Context, q AssetQuery) ([]Asset, error)
	// DeleteAsset removes the asset and all of its versions if its stored
	// Revision equals revision. Content stays (letters may refer to it).
	// Errors: ErrNotFound; ErrConflict; ErrClaimLost.
	DeleteAsset(ctx context.Context, account, id string, revision int64, c *Completion) error
	// GetAssetVersion returns one version of one asset, or with assetID ""
	// the version of whichever of the account's assets holds it (version ids
	// are unique across assets).
	// Errors: ErrNotFound, also when the version belongs to another asset.
	GetAssetVersion(ctx context.Context, account, assetID, versionID string) (AssetVersion, error)
	// ListAssetVersions returns up to q.Limit versions of q.AssetID matching
	// q, newest first, starting after q.Before; none (not an error) for an
	// asset that does not exist in q.Account.
	ListAssetVersions(ctx context.Context, q VersionQuery) ([]AssetVersion, error)
	// GetContent returns content stored by WriteAsset.
	// Errors: ErrNotFound.
	GetContent(ctx context.Context, account, hash string) ([]byte, error)

	// ClaimIdempotency records r as an in-flight claim unless a live record
	// for (r.Scope, r.Key) exists. A record whose ExpiresAt is not after now
	// is not live; neither is an in-flight record whose LeaseExpiresAt is not
	// after now (its claim is taken over). r's Done and Result are ignored: a
	// claim starts in flight. It returns the record now stored and whether r
	// claimed it. Among concurrent claimants exactly one wins. now is the
	// time on the clock of r's account; a store that removes expired
	// records as it claims removes only r.Account's, as other accounts'
	// clocks may stand elsewhere.
	ClaimIdempotency(ctx context.Context, r IdempotencyRecord, now time.Time) (IdempotencyRecord, bool, error)
	// CompleteIdempotency stores c.Result and c.Size on the in-flight claim
	// c names.
	// Errors: ErrClaimLost when that claim is not in flight under c.Token.
	CompleteIdempotency(ctx context.Context, c Completion) error
	// ReleaseIdempotency removes the in-flight claim of account held by
	// token, so the key can be used again. Releasing a claim not held is
	// not an error.
	ReleaseIdempotency(ctx context.Context, account, scope, key, token string) error
	// PurgeIdempotency removes every record whose ExpiresAt is not after now
	// and returns how many it removed.
	PurgeIdempotency(ctx context.Context, now time.Time) (int, error)
	// RenewIdempotency extends the lease of the in-flight claim of account
	// held by token to leaseExpiresAt, so a request still running keeps its
	// key.
	// Errors: ErrClaimLost when that claim is not in flight under token, or
	// its lease is not after now (it may have been taken over).
	RenewIdempotency(ctx context.Context, account, scope, key, token string, now, leaseExpiresAt time.Time) error
	// TrimIdempotency keeps at most keep completed records of account, of
	// at most keepBytes bytes in all (the sum of their Size), and returns
	// how many it removed: the failed ones go first, oldest first, then the
	// others, oldest first, until both bounds hold; of records with one
	// CreatedAt (a clock that stands still) the one completed first is the
	// older, so the outcome just completed goes last. Records in flight are
	// not counted.
	TrimIdempotency(ctx context.Context, account string, keep int, keepBytes int64) (int, error)
}

// Document is the part of a record a store keeps without looking into it.
// The service supplies its own typed documents; a store that keeps records
// in memory holds them as they are (or in their Keeper form) and copies
// them in and out, so no caller shares state with the store through one. A
// store that must serialize writes EncodeDocument's bytes and returns the
// document as Encoded.
type Document interface {
	// CloneDocument returns a deep copy: nothing the copy holds may be
	// changed through the original, or the other way round. A document
	// that nothing can change (an immutable kept form) may return itself.
	CloneDocument() Document
	// EncodeDocument returns the document's serialized form.
	EncodeDocument() ([]byte, error)
}

// Keeper is a Document with a form of its own for a store that keeps
// documents in memory: a store holds a document for as long as its record
// lives and reads it far less often, so a form that is smaller, or holds
// fewer pointers for the garbage collector to trace, is worth a slower
// read. A store that keeps documents takes each one in through
// KeepDocument (the function); a serializing store ignores the interface.
type Keeper interface {
	Document
	// KeepDocument returns a deep copy of the document in the form to keep,
	// which may be of another type. The kept form is itself a Document,
	// which encodes as the document does: a store returns it (its
	// CloneDocument) from every read, so the caller reads both forms.
	KeepDocument() Document
}

// KeepDocument returns the form of d a store that keeps documents in memory
// keeps: d's own kept form when d is a Keeper, else a deep copy; nil for
// nil.
func KeepDocument(d Document) Document {
	switch d := d.(type) {
	case nil:
		return nil
	case Keeper:
		return d.KeepDocument()
	default:
		return d.CloneDocument()
	}
}

// Encoded is a serialized document, as a serializing store returns what it
// read. It is also a Document of its own: written again, it is kept as it is.
type Encoded []byte

// CloneDocument implements Document.
func (e Encoded) CloneDocument() Document {
	if e == nil {
		return Encoded(nil)
	}
	return append(Encoded{}, e...)
}

// EncodeDocument implements Document: the bytes themselves.
func (e Encoded) EncodeDocument() ([]byte, error) { return e, nil }

// CloneDocument returns a deep copy of d, or nil for nil.
func CloneDocument(d Document) Document {
	if d == nil {
		return nil
	}
	return d.CloneDocument()
}

// EncodeDocument returns d's serialized form; nil for nil.
func EncodeDocument(d Document) ([]byte, error) {
	if d == nil {
		return nil, nil
	}
	return d.EncodeDocument()
}

// Metadata is one key-value pair; order is kept. A store or a document
// that writes pairs as JSON writes each as {"key": ..., "value": ...}.
type Metadata struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Letter is a stored letter.
type Letter struct {
	ID         string
	Account    string
	Status     string
	ExternalID string
	Metadata   []Metadata
	CreatedAt  time.Time
	ModifiedAt time.Time
	// DueAt is when the letter's next lifecycle step falls due; the zero
	// time when nothing is pending.
	DueAt time.Time
	// Revision is set by the store: 1 on create, incremented by each update.
	Revision int64
	// Doc is the rest of the letter, typed by the service; nil when empty.
	Doc Document
	// Notices are changes of the letter its account's webhooks are sent,
	// written with it as deliveries (see WebhookStorage). A store never
	// keeps them on the letter: a letter it returns has none.
	Notices []Notice
	// Deliveries is set on the letter CreateLetter and UpdateLetter return:
	// how many deliveries the write's Notices made; none when the account
	// has no enabled webhook that takes them, or each was made before.
	Deliveries int
}

// LetterQuery selects letters of one account. Empty fields do not filter.
type LetterQuery struct {
	Account    string
	Status     string
	ExternalID string
	// Metadata pairs must all be present on a letter, values equal.
	Metadata []Metadata
	// Before, when set, returns only letters whose id sorts before it.
	Before string
	Limit  int
	// Brief asks only for each letter's ID, Account, Status, ModifiedAt
	// and Revision: what a caller that keeps what it made of the letters
	// it read (their encodings) needs to tell whether one changed since.
	// A store may leave the other fields empty, and the cheaper it makes
	// such a list the better.
	Brief bool
}

// DueQuery selects the letters ProcessDueLetters takes: those due at Now,
// of one account or of every one. Accounts keep time on clocks of their own
// when a test moves them apart (ClockStorage), so a run is for one account,
// at that account's time, or for all, at the server's time, each account's
// letters due by its own clock.
type DueQuery struct {
	// Now is the time the letters are due at. With Account, the account's
	// time: a letter is due when its DueAt is set and not after Now.
	// Without, the server's time: a letter is due when its DueAt is set
	// and not after its account's time when the server's clock reads Now
	// (AccountClock.Time; Now itself for an account without a clock), and
	// they are taken in the order they fell due on the server's clock. A
	// frozen clock does not move with the server's, so the letters of an
	// account whose clock is frozen are left to runs of the account.
	Now time.Time
	// Limit is how many letters one call takes at most; below 1, none.
	Limit int
	// Account, when set, takes only that account's letters.
	Account string
	// Except leaves out the letters of these accounts.
	Except []string
}

// Asset is a stored content asset. Its versions are separate records,
// written together with it through WriteAsset.
type Asset struct {
	ID         string
	Account    string
	Metadata   []Metadata
	CreatedAt  time.Time
	ModifiedAt time.Time
	// Revision is set by the store: 1 on create, incremented by each write.
	Revision int64
	// Doc is the rest of the asset, typed by the service; nil when empty.
	Doc Document
}

// AssetQuery selects assets of one account. Empty fields do not filter.
type AssetQuery struct {
	Account  string
	Metadata []Metadata
	Before   string
	Limit    int
}

// AssetVersion is a stored version of an asset.
type AssetVersion struct {
	ID         string
	Account    string
	AssetID    string
	Status     string
	CreatedAt  time.Time
	ModifiedAt time.Time
	// Doc is the rest of the version, typed by the service; nil when empty.
	Doc Document
}

// VersionQuery selects versions of one asset.
type VersionQuery struct {
	Account string
	AssetID string
	// ExcludeStatuses leaves out versions in these statuses.
	ExcludeStatuses []string
	Before          string
	Limit           int
}

// Content is an immutable blob addressed by the hash of its bytes.
type Content struct {
	Account string
	Hash    string
	Data    []byte
}

// AssetWrite is one atomic change to an asset and its versions.
type AssetWrite struct {
	// Asset as it is to be stored; its Revision is the one expected (0: create).
	Asset          Asset
	PutVersions    []AssetVersion
	DeleteVersions []string
	// PutContent is stored if absent; content with a known hash is unchanged.
	PutContent []Content
	Completion *Completion
}

// IdempotencyRecord is the stored outcome, or the in-flight claim, of a
// request made with an idempotency key.
type IdempotencyRecord struct {
	// Scope is whose key it is (an API key's identity); Key is the
	// caller's idempotency key. Together they identify the record; a
	// scope belongs to one Account, and every call about a record names
	// its account too, so a store may keep an account's records apart.
	Scope string
	Key   string
	// Fingerprint describes the request, to tell a retry from misuse.
	Fingerprint string
	// Token identifies the claim that owns the record while it is in
	// flight; a completed record has none (it is the empty string).
	Token string
	// Done is set once Result is stored.
	Done bool
	// Result is the stored outcome, a document typed by the service: a
	// store keeps it as it keeps a letter's Doc (its kept form, see
	// Keeper, or serialized and returned as Encoded). nil in flight.
	Result Document
	// Size is how many bytes Result counts against its account's bound
	// (see TrimIdempotency), as the service measured it.
	Size int64
	// Failed is set with Done when Result records a failure, which
	// TrimIdempotency removes before other outcomes.
	Failed bool
	// Account is whose records TrimIdempotency counts this one among.
	Account string
	// CreatedAt is the first request; ExpiresAt when the record stops
	// counting; LeaseExpiresAt when an unfinished claim may be taken over.
	CreatedAt      time.Time
	ExpiresAt      time.Time
	LeaseExpiresAt time.Time
}

// Completion finishes an in-flight idempotency claim. Passed with a write,
// it is applied atomically with it: both happen or neither does.
type Completion struct {
	// Account is the claim's (IdempotencyRecord.Account).
	Account string
	Scope   string
	Key     string
	Token   string
	Result  Document
	Size    int64
	// Failed marks Result as a failure (see IdempotencyRecord.Failed).
	Failed bool
}
