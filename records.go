package lettershop

import (
	"fmt"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop/internal/jsonclone"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// This file is the only mapping between the domain types and the storage
// records. Fields a backend indexes or checks travel as record fields; the
// rest is the record's Doc, one of the *Doc types below, which the store
// keeps typed (memstore) or serializes as JSON (pgstore), so the stored form
// can evolve apart from the wire form. A serializing store returns the
// document as storage.Encoded, which the mapping decodes.

// contentSnapshot is what a letter is printed from, copied from its asset
// version when the letter is made: the content (by hash; content is never
// deleted while letters may refer to it), the variable definitions and the
// values merged into the template.
type contentSnapshot struct {
	// Hash names the stored content; for content kept at a URL (an
	// externalUrl version's), fetched each time the letter is printed, it
	// is that URL (see url). One field for both, because a letter's
	// document is read and written by every lifecycle run: a field more
	// would put every letter's into a larger size class, for the few
	// letters that have a URL.
	Hash        string               `json:"hash,omitempty"`
	Type        string               `json:"type,omitempty"`
	Definitions []VariableDefinition `json:"definitions,omitempty"`
	Merge       []Variable           `json:"merge,omitempty"`
	// Assets are the images and fonts its variables of type asset name.
	Assets []assetRef `json:"assets,omitempty"`
}

// letterDoc begins with Life and ends with Events: a lifecycle run reads
// the one and appends to the other without decoding the rest
// (internal/docstep). Add new fields between them.
type letterDoc struct {
	Life         postal.Facts    `json:"life"`
	Sender       Party           `json:"sender"`
	Recipient    Party           `json:"recipient"`
	Content      LetterContent   `json:"content"`
	UseType      UseType         `json:"useType"`
	SendDate     string          `json:"sendDate,omitempty"`
	Description  string          `json:"description,omitempty"`
	Variables    []Variable      `json:"variables,omitempty"`
	Options      LetterOptions   `json:"options"`
	IssueMessage string          `json:"issueMessage,omitempty"`
	Snapshot     contentSnapshot `json:"snapshot"`
	Events       []Event         `json:"events"`
}

func letterRecord(account string, l *Letter) storage.Letter {
	r := letterHead(account, l)
	doc := letterDocument(l)
	r.Doc, r.Notices = doc, noticesOf(l.ID, doc.Events, l.storedEvents)
	return r
}

// letterHead is the record of l without its document and notices: the
// fields a store indexes or checks, which a snapshot keeps as well.
func letterHead(account string, l *Letter) storage.Letter {
	return storage.Letter{
		ID: l.ID, Account: account, Status: string(l.Status), ExternalID: l.ExternalID,
		Metadata: metadataRecords(l.Metadata), CreatedAt: l.CreatedAt, ModifiedAt: l.ModifiedAt,
		DueAt: l.dueAt, Revision: l.revision,
	}
}

// letterDocument is the document of l's record. The store copies the
// document in: it may share l's slices here.
func letterDocument(l *Letter) *letterDoc {
	events := l.Events
	if events == nil {
		events = []Event{}
	}
	return &letterDoc{
		Life:   factsOf(l),
		Sender: l.Sender, Recipient: l.Recipient, Content: l.Content, UseType: l.UseType,
		Events: events, SendDate: l.SendDate, Description: l.Description, Variables: l.Variables,
		Options: l.Options, IssueMessage: l.IssueMessage, Snapshot: l.snapshot,
	}
}

// docOf returns the document of a stored record, what and id naming the
// record: the store's copy of a typed one, or a serialized one decoded.
func docOf[T any, P interface {
	*T
	storage.Document
}](what, id string, doc storage.Document) (*T, error) {
	switch d := doc.(type) {
	case P:
		return d, nil
	case storage.Encoded:
		var v T
		if err := decodeDoc(d, &v); err != nil {
			return nil, err
		}
		return &v, nil
	default:
		return nil, fmt.Errorf("%s %s: stored document of type %T", what, id, doc)
	}
}

func letterFromRecord(r storage.Letter) (*Letter, error) {
	var d letterDoc
	if k, ok := r.Doc.(storage.LetterReader); ok {
		if err := readLetterDoc(k, &d); err != nil {
			return nil, fmt.Errorf("letter %s: %w", r.ID, err)
		}
	} else {
		pd, err := docOf[letterDoc]("letter", r.ID, r.Doc)
		if err != nil {
			return nil, err
		}
		d = *pd
	}
	if d.Events == nil {
		d.Events = []Event{}
	}
	d.Options.fillDefaults()
	return &Letter{
		ID: r.ID, Status: LetterStatus(r.Status), ExternalID: r.ExternalID, Metadata: metadataOf(r.Metadata),
		CreatedAt: r.CreatedAt.UTC(), ModifiedAt: r.ModifiedAt.UTC(),
		Sender: d.Sender, Recipient: d.Recipient, Content: d.Content, UseType: d.UseType, Events: d.Events,
		SendDate: d.SendDate, Description: d.Description, Variables: d.Variables, Options: d.Options,
		IssueMessage: d.IssueMessage, snapshot: d.Snapshot, dueAt: utcOrZero(r.DueAt), revision: r.Revision,
		storedEvents: len(d.Events),
	}, nil
}

type assetDoc struct {
	Name               string        `json:"name"`
	Description        string        `json:"description,omitempty"`
	Type               AssetType     `json:"type"`
	Counts             versionCounts `json:"counts"`
	PublishedVersionID string        `json:"publishedVersionId,omitempty"`
}

func assetRecord(account string, a *Asset) storage.Asset {
	doc := &assetDoc{
		Name: a.Name, Description: a.Description, Type: a.Type, Counts: a.counts, PublishedVersionID: a.PublishedVersionID,
	}
	return storage.Asset{
		ID: a.ID, Account: account, Metadata: metadataRecords(a.Metadata),
		CreatedAt: a.CreatedAt, ModifiedAt: a.ModifiedAt, Revision: a.revision, Doc: doc,
	}
}

func assetFromRecord(r storage.Asset) (*Asset, error) {
	d, err := docOf[assetDoc]("asset", r.ID, r.Doc)
	if err != nil {
		return nil, err
	}
	a := &Asset{
		ID: r.ID, Name: d.Name, Description: d.Description, Type: d.Type, PublishedVersionID: d.PublishedVersionID,
		Metadata: metadataOf(r.Metadata), CreatedAt: r.CreatedAt.UTC(), ModifiedAt: r.ModifiedAt.UTC(),
		counts: d.Counts, revision: r.Revision,
	}
	a.derive()
	return a, nil
}

// versionDoc keeps a version's content by its source: the hash and length
// of the bytes stored (inline, import), or the URL the content stays at
// (externalUrl).
type versionDoc struct {
	Notes       string               `json:"notes,omitempty"`
	Source      string               `json:"source"`
	Type        string               `json:"type"`
	Hash        string               `json:"hash"`
	Length      int                  `json:"length"`
	URL         string               `json:"url,omitempty"`
	Definitions []VariableDefinition `json:"definitions,omitempty"`
}

func versionRecord(account string, v *AssetVersion) storage.AssetVersion {
	doc := &versionDoc{
		Notes: v.Notes, Source: string(v.Content.Source), Type: string(v.Content.Type), Hash: v.contentHash,
		Length: v.ContentLength, URL: v.externalURL, Definitions: v.VariableDefinitions,
	}
	return storage.AssetVersion{
		ID: v.ID, Account: account, AssetID: v.AssetID, Status: string(v.Status),
		CreatedAt: v.CreatedAt, ModifiedAt: v.ModifiedAt, Doc: doc,
	}
}

func versionFromRecord(r storage.AssetVersion) (*AssetVersion, error) {
	d, err := docOf[versionDoc]("asset version", r.ID, r.Doc)
	if err != nil {
		return nil, err
	}
	defs := d.Definitions
	if defs == nil {
		defs = []VariableDefinition{}
	}
	return &AssetVersion{
		ID: r.ID, AssetID: r.AssetID, Status: VersionStatus(r.Status), Notes: d.Notes,
		Content:       VersionContent{Source: ContentSource(d.Source), Type: ContentType(d.Type)},
		ContentLength: d.Length, VariableDefinitions: defs,
		CreatedAt: r.CreatedAt.UTC(), ModifiedAt: r.ModifiedAt.UTC(), contentHash: d.Hash, externalURL: d.URL,
	}, nil
}

func metadataRecords(m Metadata) []storage.Metadata {
	if len(m) == 0 {
		return nil
	}
	out := make([]storage.Metadata, len(m))
	for i, p := range m {
		out[i] = storage.Metadata{Key: p.Key, Value: p.Value}
	}
	return out
}

func metadataOf(m []storage.Metadata) Metadata {
	out := make(Metadata, len(m))
	for i, p := range m {
		out[i] = MetadataPair{Key: p.Key, Value: p.Value}
	}
	return out
}

func utcOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// encodeDoc and decodeDoc write and read the stored documents. go-json
// writes and reads the same JSON as encoding/json, several times faster, and
// a document is decoded for every letter a read returns.
func encodeDoc(v any) ([]byte, error) { return gojson.Marshal(v) }

func decodeDoc(b []byte, v any) error { return gojson.Unmarshal(b, v) }

// The documents are storage.Documents: a store copies them in and out with
// CloneDocument, which copies everything a pointer or slice reaches, and a
// serializing store writes them with EncodeDocument.

// CloneDocument implements storage.Document: d mapped to values and back
// (records_letterdoc.go), which shares nothing, and a tracking event's
// additional data, which the values do not hold, copied.
func (d *letterDoc) CloneDocument() storage.Document {
	v := storage.GetLetterDoc()
	defer storage.PutLetterDoc(v)
	c := new(letterDoc)
	letterDocValues(d, v)
	letterDocOf(v, c)
	for i := range d.Events {
		if t := d.Events[i].TrackingEventDetails; t != nil && t.AdditionalData != nil {
			c.Events[i].TrackingEventDetails.AdditionalData = jsonclone.Map(t.AdditionalData)
		}
	}
	return c
}

// EncodeDocument implements storage.Document.
func (d *letterDoc) EncodeDocument() ([]byte, error) { return encodeDoc(d) }

// CloneDocument implements storage.Document.
func (d *assetDoc) CloneDocument() storage.Document {
	c := *d
	return &c
}

// EncodeDocument implements storage.Document.
func (d *assetDoc) EncodeDocument() ([]byte, error) { return encodeDoc(d) }

// CloneDocument implements storage.Document.
func (d *versionDoc) CloneDocument() storage.Document {
	c := *d
	c.Definitions = listOf(d.Definitions != nil, d.Definitions, func(x *VariableDefinition) VariableDefinition {
		y := *x
		if x.PresetValue != nil {
			p := *x.PresetValue
			y.PresetValue = &p
		}
		return y
	})
	return &c
}

// EncodeDocument implements storage.Document.
func (d *versionDoc) EncodeDocument() ([]byte, error) { return encodeDoc(d) }

// url is where the letter's content stays, when it is kept at a URL, else
// "": a hash is hexadecimal, and never begins as an http or https URL.
func (s *contentSnapshot) url() string {
	if strings.HasPrefix(s.Hash, "https://") || strings.HasPrefix(s.Hash, "http://") {
		return s.Hash
	}
	return ""
}
