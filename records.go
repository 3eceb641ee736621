package lettershop

import (
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// This file is the only mapping between the domain types and the storage
// records. Fields a backend indexes or checks travel as record fields; the
// rest is a JSON document in the record's Data, shaped by the *Doc types
// below so the stored form can evolve apart from the wire form.

// contentSnapshot is what a letter is printed from, copied from its asset
// version when the letter is made: the content (by hash; content is never
// deleted while letters may refer to it), the variable definitions and the
// values merged into the template.
type contentSnapshot struct {
	Hash        string               `json:"hash,omitempty"`
	Type        string               `json:"type,omitempty"`
	Definitions []VariableDefinition `json:"definitions,omitempty"`
	Merge       []Variable           `json:"merge,omitempty"`
}

// letterDoc begins with Life and ends with Events: a lifecycle run reads
// the one and appends to the other without decoding the rest
// (lifecycle_records.go). Add new fields between them.
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

func letterRecord(account string, l *Letter) (storage.Letter, error) {
	events := l.Events
	if events == nil {
		events = []Event{}
	}
	data, err := encodeDoc(letterDoc{
		Life:   factsOf(l),
		Sender: l.Sender, Recipient: l.Recipient, Content: l.Content, UseType: l.UseType,
		Events: events, SendDate: l.SendDate, Description: l.Description, Variables: l.Variables,
		Options: l.Options, IssueMessage: l.IssueMessage, Snapshot: l.snapshot,
	})
	if err != nil {
		return storage.Letter{}, err
	}
	return storage.Letter{
		ID: l.ID, Account: account, Status: string(l.Status), ExternalID: l.ExternalID,
		Metadata: metadataRecords(l.Metadata), CreatedAt: l.CreatedAt, ModifiedAt: l.ModifiedAt,
		DueAt: l.dueAt, Revision: l.revision, Data: data,
	}, nil
}

func letterFromRecord(r storage.Letter) (*Letter, error) {
	var d letterDoc
	if err := decodeDoc(r.Data, &d); err != nil {
		return nil, err
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
	}, nil
}

type assetDoc struct {
	Name               string        `json:"name"`
	Description        string        `json:"description,omitempty"`
	Type               AssetType     `json:"type"`
	Counts             versionCounts `json:"counts"`
	PublishedVersionID string        `json:"publishedVersionId,omitempty"`
}

func assetRecord(account string, a *Asset) (storage.Asset, error) {
	data, err := encodeDoc(assetDoc{
		Name: a.Name, Description: a.Description, Type: a.Type, Counts: a.counts, PublishedVersionID: a.PublishedVersionID,
	})
	if err != nil {
		return storage.Asset{}, err
	}
	return storage.Asset{
		ID: a.ID, Account: account, Metadata: metadataRecords(a.Metadata),
		CreatedAt: a.CreatedAt, ModifiedAt: a.ModifiedAt, Revision: a.revision, Data: data,
	}, nil
}

func assetFromRecord(r storage.Asset) (*Asset, error) {
	var d assetDoc
	if err := decodeDoc(r.Data, &d); err != nil {
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

type versionDoc struct {
	Notes       string               `json:"notes,omitempty"`
	Source      string               `json:"source"`
	Type        string               `json:"type"`
	Hash        string               `json:"hash"`
	Length      int                  `json:"length"`
	Definitions []VariableDefinition `json:"definitions,omitempty"`
}

func versionRecord(account string, v *AssetVersion) (storage.AssetVersion, error) {
	data, err := encodeDoc(versionDoc{
		Notes: v.Notes, Source: string(v.Content.Source), Type: string(v.Content.Type), Hash: v.contentHash,
		Length: v.ContentLength, Definitions: v.VariableDefinitions,
	})
	if err != nil {
		return storage.AssetVersion{}, err
	}
	return storage.AssetVersion{
		ID: v.ID, Account: account, AssetID: v.AssetID, Status: string(v.Status),
		CreatedAt: v.CreatedAt, ModifiedAt: v.ModifiedAt, Data: data,
	}, nil
}

func versionFromRecord(r storage.AssetVersion) (*AssetVersion, error) {
	var d versionDoc
	if err := decodeDoc(r.Data, &d); err != nil {
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
		CreatedAt: r.CreatedAt.UTC(), ModifiedAt: r.ModifiedAt.UTC(), contentHash: d.Hash,
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
