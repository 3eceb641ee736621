package storage

import "context"

// AccountRecords are records of one account, written together by a
// Restorer: what a snapshot of an account holds (package snapshot).
type AccountRecords struct {
	Account string
	// Assets and their Versions: every version's AssetID is an asset of
	// Assets. Content is the content they and the letters refer to.
	Assets   []Asset
	Versions []AssetVersion
	Content  []Content
	Letters  []Letter
	Webhooks []Webhook
}

// Restorer is a Storage that writes an account's records in one step.
// Restoring a snapshot uses it when the store has it, and otherwise
// writes the records one at a time (CreateLetter, WriteAsset,
// WriteWebhook), each its own step.
type Restorer interface {
	// RestoreRecords writes r's records as they are, each at Revision 1,
	// all or none. Every record's Account is r.Account. Letters make no
	// deliveries: their Notices are ignored.
	//
	// The store may keep what r holds (documents, metadata, events, the
	// content's bytes) without copying it: the caller gives it up and
	// changes none of it afterwards, which is what makes one step cheap.
	//
	// Errors: ErrAlreadyExists, and nothing written, when an id is taken
	// in any account or is twice in r; another error, nothing written,
	// when a record is not of r.Account or a version names no asset of r.
	RestoreRecords(ctx context.Context, r AccountRecords) error
}
