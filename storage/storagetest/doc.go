package storagetest

import (
	"encoding/json"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/storage"
)

// doc is the suite's typed document. It holds a slice, so a store that
// copied documents shallowly would show it. Its JSON keys are upper case,
// so markDoc changes a document and its encoding alike.
type doc struct {
	Text string   `json:"T"`
	Tags []string `json:"N,omitempty"`
}

func newDoc(text string, tags ...string) *doc { return &doc{Text: text, Tags: tags} }

// CloneDocument implements storage.Document.
func (d *doc) CloneDocument() storage.Document {
	c := *d
	if d.Tags != nil {
		c.Tags = append([]string{}, d.Tags...)
	}
	return &c
}

// EncodeDocument implements storage.Document.
func (d *doc) EncodeDocument() ([]byte, error) { return json.Marshal(d) }

// encodedDoc compares documents by their encoding: a store that keeps
// documents typed returns the suite's own type, one that serializes returns
// storage.Encoded.
var encodedDoc = cmp.Transformer("encoded", func(d storage.Document) string {
	b, err := storage.EncodeDocument(d)
	if err != nil {
		return "encoding failed: " + err.Error()
	}
	return string(b)
})

// scribbleDoc changes everything a caller could reach through d.
func scribbleDoc(d storage.Document) {
	switch d := d.(type) {
	case *doc:
		d.Text = "scribbled"
		for i := range d.Tags {
			d.Tags[i] = "#"
		}
	case storage.Encoded:
		for i := range d {
			d[i] = '#'
		}
	}
}

// markDoc changes d in place, in its typed or its encoded form alike: it
// turns the lower-case letters of its values upper case.
func markDoc(d storage.Document) {
	switch d := d.(type) {
	case *doc:
		d.Text = upper(d.Text)
		for i := range d.Tags {
			d.Tags[i] = upper(d.Tags[i])
		}
	case storage.Encoded:
		for i, c := range d {
			if 'a' <= c && c <= 'z' {
				d[i] = c - 'a' + 'A'
			}
		}
	}
}

func upper(s string) string {
	b := []byte(s)
	markDoc(storage.Encoded(b))
	return string(b)
}

// keeperDoc is a doc with a form of its own to be kept, as storage.Keeper
// describes: a store that keeps documents in memory holds, and hands out,
// its keptDoc, which encodes alike.
type keeperDoc struct{ doc }

func newKeeperDoc(text string, tags ...string) *keeperDoc {
	return &keeperDoc{doc{Text: text, Tags: tags}}
}

// CloneDocument implements storage.Document.
func (d *keeperDoc) CloneDocument() storage.Document {
	return &keeperDoc{*d.doc.CloneDocument().(*doc)}
}

// KeepDocument implements storage.Keeper.
func (d *keeperDoc) KeepDocument() storage.Document {
	b, err := d.EncodeDocument()
	if err != nil {
		panic(err)
	}
	return keptDoc(b)
}

// keptDoc is keeperDoc's kept form: its encoding, which nothing can
// change, so a copy of it is itself.
type keptDoc string

// CloneDocument implements storage.Document.
func (d keptDoc) CloneDocument() storage.Document { return d }

// EncodeDocument implements storage.Document.
func (d keptDoc) EncodeDocument() ([]byte, error) { return []byte(d), nil }
