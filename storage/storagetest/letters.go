package storagetest

import (
	"errors"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

var letterTests = []test{
	{"CreateLetter stores the letter with revision 1 and returns it", testCreateLetter},
	{"CreateLetter of a taken id is ErrAlreadyExists and changes nothing", testCreateLetterTaken},
	{"GetLetter of an unknown id is ErrNotFound", testGetLetterUnknown},
	{"GetLetter of another account's letter is ErrNotFound", testGetLetterOtherAccount},
	{"UpdateLetter at the stored revision replaces the letter and increments the revision", testUpdateLetter},
	{"UpdateLetter at another revision is ErrConflict and changes nothing", testUpdateLetterConflict},
	{"UpdateLetter never changes CreatedAt", testUpdateLetterCreatedAt},
	{"UpdateLetter of an unknown id or another account's letter is ErrNotFound", testUpdateLetterNotFound},
	{"a letter passed in is copied", testLetterCopiedIn},
	{"a letter returned is a copy", testLetterCopiedOut},
	{"a document with a form to keep reads back as written, and is copied", testLetterKeeperDoc},
}

func testCreateLetter(t *testing.T, f *fixture) {
	l := f.letter(acctA)
	l.ExternalID = "ext-1"
	l.Metadata = md("campaign", "spring", "flag", "")
	l.DueAt = at(time.Hour)
	l.Revision = 7 // set by the store, whatever comes in
	got, err := f.s.CreateLetter(f.ctx, l, nil)
	must(t, "CreateLetter", err)
	want := l
	want.Revision = 1
	diff(t, "CreateLetter", want, got)
	f.wantStored(t, want)
}

func testCreateLetterTaken(t *testing.T, f *fixture) {
	l := f.createLetter(t, f.letter(acctA))
	dup := f.letter(acctA)
	dup.ID = l.ID
	dup.Status = "ready"
	dup.Doc = newDoc("other")
	_, err := f.s.CreateLetter(f.ctx, dup, nil)
	wantErr(t, "CreateLetter of a taken id", err, storage.ErrAlreadyExists)
	f.wantStored(t, l)
}

func testGetLetterUnknown(t *testing.T, f *fixture) {
	f.createLetter(t, f.letter(acctA))
	_, err := f.s.GetLetter(f.ctx, acctA, "ltr_unknown")
	wantErr(t, "GetLetter", err, storage.ErrNotFound)
}

func testGetLetterOtherAccount(t *testing.T, f *fixture) {
	l := f.createLetter(t, f.letter(acctA))
	_, err := f.s.GetLetter(f.ctx, acctB, l.ID)
	wantErr(t, "GetLetter from another account", err, storage.ErrNotFound)
}

func testUpdateLetter(t *testing.T, f *fixture) {
	l := f.createLetter(t, f.letter(acctA))
	u := l
	u.Status = "ready"
	u.ExternalID = "ext-2"
	u.Metadata = md("campaign", "autumn")
	u.ModifiedAt = at(time.Minute)
	u.DueAt = at(2 * time.Hour)
	u.Doc = newDoc("v2")
	got, err := f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter at revision 1", err)
	want := u
	want.Revision = 2
	diff(t, "UpdateLetter at revision 1", want, got)
	f.wantStored(t, want)

	// And again from the revision the first update returned; the zero DueAt
	// and nil metadata replace what was there.
	u = got
	u.Status = "mailed"
	u.Metadata = nil
	u.DueAt = time.Time{}
	got, err = f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter at revision 2", err)
	want = u
	want.Revision = 3
	diff(t, "UpdateLetter at revision 2", want, got)
	f.wantStored(t, want)
}

func testUpdateLetterConflict(t *testing.T, f *fixture) {
	l := f.createLetter(t, f.letter(acctA))
	u := l
	u.Status = "ready"
	stored, err := f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	for _, rev := range []int64{1, 3} { // behind and ahead of the stored 2
		u := stored
		u.Revision = rev
		u.Status = "canceled"
		u.Doc = newDoc("lost")
		_, err := f.s.UpdateLetter(f.ctx, u, nil)
		wantErr(t, "UpdateLetter at a revision not stored", err, storage.ErrConflict)
	}
	f.wantStored(t, stored)
}

func testUpdateLetterCreatedAt(t *testing.T, f *fixture) {
	l := f.createLetter(t, f.letter(acctA))
	u := l
	u.CreatedAt = at(time.Hour)
	u.ModifiedAt = at(time.Hour)
	got, err := f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	want := u
	want.CreatedAt = l.CreatedAt
	want.Revision = 2
	diff(t, "UpdateLetter", want, got)
	f.wantStored(t, want)
}

func testUpdateLetterNotFound(t *testing.T, f *fixture) {
	l := f.createLetter(t, f.letter(acctA))

	unknown := f.letter(acctA)
	unknown.Revision = 1
	_, err := f.s.UpdateLetter(f.ctx, unknown, nil)
	wantErr(t, "UpdateLetter of an unknown id", err, storage.ErrNotFound)
	_, err = f.s.GetLetter(f.ctx, acctA, unknown.ID)
	wantErr(t, "GetLetter after UpdateLetter of an unknown id", err, storage.ErrNotFound)

	other := l
	other.Account = acctB
	other.Status = "canceled"
	_, err = f.s.UpdateLetter(f.ctx, other, nil)
	wantErr(t, "UpdateLetter from another account", err, storage.ErrNotFound)
	f.wantStored(t, l)
}

// scribble changes every byte a caller could reach through l's slices.
func scribble(l *storage.Letter) {
	for i := range l.Metadata {
		l.Metadata[i] = storage.Metadata{Key: "scribbled", Value: "scribbled"}
	}
	scribbleDoc(l.Doc)
}

func testLetterCopiedIn(t *testing.T, f *fixture) {
	l := f.letter(acctA)
	l.DueAt = at(time.Hour)
	want := cloneLetter(l)
	want.Revision = 1
	f.createLetter(t, l)
	scribble(&l)
	f.wantStored(t, want)

	u := cloneLetter(want)
	u.Doc = newDoc("v2")
	u.Metadata = md("campaign", "autumn")
	want = cloneLetter(u)
	want.Revision = 2
	_, err := f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	scribble(&u)
	f.wantStored(t, want)

	// The letter fn gets is its own: what it scribbles before failing
	// leaves the stored letter alone, and what it changes in place is what
	// gets written. (What fn leaves behind passes to the store: fn may not
	// touch it after returning, so that is not tested.)
	fail := errors.New("fn fails")
	_, err = f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: at(time.Hour), Limit: 1}, func(l *storage.Letter) error {
		scribble(l)
		return fail
	})
	if !errors.Is(err, fail) {
		t.Fatalf("ProcessDueLetters returned %v, want fn's error", err)
	}
	f.wantStored(t, want)
	_, err = f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: at(time.Hour), Limit: 1}, func(l *storage.Letter) error {
		l.Status = "ready"
		markDoc(l.Doc)
		return nil
	})
	must(t, "ProcessDueLetters", err)
	want.Status = "ready"
	markDoc(want.Doc)
	want.Revision = 3
	f.wantStored(t, want)
}

func testLetterCopiedOut(t *testing.T, f *fixture) {
	l := f.letter(acctA)
	want := cloneLetter(l)
	want.Revision = 1
	got := f.createLetter(t, l)
	scribble(&got)
	f.wantStored(t, want)

	got = f.getLetter(t, acctA, l.ID)
	scribble(&got)
	f.wantStored(t, want)

	list, err := f.s.ListLetters(f.ctx, storage.LetterQuery{Account: acctA, Limit: 10})
	must(t, "ListLetters", err)
	if len(list) != 1 {
		t.Fatalf("ListLetters returned %d letters, want 1", len(list))
	}
	scribble(&list[0])
	f.wantStored(t, want)

	u := cloneLetter(want)
	u.Status = "ready"
	want = cloneLetter(u)
	want.Revision = 2
	got, err = f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	scribble(&got)
	f.wantStored(t, want)
}

func testLetterKeeperDoc(t *testing.T, f *fixture) {
	l := f.letter(acctA)
	l.DueAt = at(time.Hour)
	d := newKeeperDoc("kept", "a", "b")
	l.Doc = d
	want := cloneLetter(l)
	want.Revision = 1
	got := f.createLetter(t, l)
	diff(t, "CreateLetter", want, got)
	scribbleDoc(&d.doc)
	scribbleDoc(got.Doc)
	f.wantStored(t, want)

	list, err := f.s.ListLetters(f.ctx, storage.LetterQuery{Account: acctA, Limit: 10})
	must(t, "ListLetters", err)
	diff(t, "ListLetters", []storage.Letter{want}, list)

	u := f.getLetter(t, acctA, l.ID)
	d2 := newKeeperDoc("kept again", "c")
	u.Doc = d2
	u.Status = "ready"
	want = cloneLetter(u)
	want.Revision = 2
	_, err = f.s.UpdateLetter(f.ctx, u, nil)
	must(t, "UpdateLetter", err)
	scribbleDoc(&d2.doc)
	f.wantStored(t, want)

	// fn gets the letter with the document in whatever form the store
	// keeps it, and may put a document of either form in its place.
	d3 := newKeeperDoc("processed")
	_, err = f.s.ProcessDueLetters(f.ctx, storage.DueQuery{Now: at(time.Hour), Limit: 1}, func(l *storage.Letter) error {
		diff(t, "the document fn gets", []storage.Document{want.Doc}, []storage.Document{l.Doc})
		l.Doc = d3
		l.DueAt = time.Time{}
		return nil
	})
	must(t, "ProcessDueLetters", err)
	want.Doc = d3.CloneDocument()
	want.DueAt = time.Time{}
	want.Revision = 3
	f.wantStored(t, want)
}
