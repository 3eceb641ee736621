package wire_test

import (
	"go/token"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/wire"
)

// TestLettersMatchGetLetter holds Letters.AppendLetter and Letters.Page to
// the encoding of what GetLetter and ListLetters return, read once and
// again (the second from kept encodings), through what changes a letter:
// updates, cancellation, lifecycle steps, and pages with and without CASS
// details. On the mock clock every read stores the steps due first; a
// letter shown with steps not yet stored is
// TestAppendLetterOfLetterDueShowsSteps's.
func TestLettersMatchGetLetter(t *testing.T) {
	e := newEnv(t, lettershop.WithBaseURL("https://lettershop.test"))
	assetID := e.publishedTemplate(t, acct)
	var ids []string
	for i := range 5 {
		in := letterInput(assetID)
		in.Metadata = lettershop.Metadata{{Key: "n", Value: string(rune('a' + i))}, {Key: "all", Value: "<&>"}}
		if i%2 == 0 {
			in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
				CassSender: &lettershop.CassOptions{Type: "basic"}, CassRecipient: &lettershop.CassOptions{Type: "basic", Casing: "upper"},
			}}
		}
		l, err := e.svc.CreateLetter(e.ctx, acct, in)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	check := func(t *testing.T, when string) {
		t.Helper()
		for _, id := range ids {
			for range 2 {
				l, err := e.svc.GetLetter(e.ctx, acct, id)
				if err != nil {
					t.Fatal(err)
				}
				want, err := wire.Letter(l)
				if err != nil {
					t.Fatal(err)
				}
				got, err := e.letters.AppendLetter(e.ctx, []byte("x"), acct, id)
				if err != nil || string(got) != "x"+string(want) {
					t.Fatalf("%s: AppendLetter(%s) = %s, %v\nwant x%s", when, id, got, err, want)
				}
			}
		}
		for _, in := range []lettershop.ListLettersInput{
			{},
			{IncludeCassDetails: true, PageRequest: lettershop.PageRequest{PageSize: 2}},
			{PageRequest: lettershop.PageRequest{PageSize: 3}},
			{Metadata: lettershop.Metadata{{Key: "all", Value: "<&>"}}, PageRequest: lettershop.PageRequest{PageSize: 4}},
			{Status: lettershop.StatusCanceled},
			{Status: lettershop.StatusCanceled, PageRequest: lettershop.PageRequest{PageSize: 1}},
		} {
			for {
				next := ""
				for range 2 {
					p, err := e.svc.ListLetters(e.ctx, acct, in)
					if err != nil {
						t.Fatal(err)
					}
					want, err := wire.AppendLetterPage(nil, p)
					if err != nil {
						t.Fatal(err)
					}
					got, err := e.letters.Page(e.ctx, acct, in)
					if err != nil || got.String() != string(want)+"\n" || got.Len() != len(want)+1 {
						t.Fatalf("%s: Page(%+v) = %s, %v\nwant %s", when, in, got, err, want)
					}
					next = p.NextToken
				}
				// Each page read twice, the second from what was kept.
				if in.NextToken = next; in.NextToken == "" {
					break
				}
			}
		}
	}
	check(t, "created")
	if _, err := e.svc.UpdateLetter(e.ctx, acct, ids[1], lettershop.UpdateLetterInput{Description: str("changed")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CancelLetter(e.ctx, acct, ids[2]); err != nil {
		t.Fatal(err)
	}
	check(t, "updated and canceled")
	// The clock passes the letters' due times: the first read stores the
	// steps, and the letters change under the encodings kept.
	e.clock.Add(26 * time.Hour)
	check(t, "due")
	if _, err := e.svc.RunDue(e.ctx); err != nil {
		t.Fatal(err)
	}
	check(t, "after a run")
	e.clock.Add(10 * 24 * time.Hour)
	check(t, "mailed")
	// A new letter tops the first page, and pushes one onto the next.
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(assetID))
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, l.ID)
	check(t, "one more")
}

// Letters fails as GetLetter and ListLetters do, and leaves dst as it was.
func TestLettersErrors(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"x", "ltr_unknown"} {
		_, want := e.svc.GetLetter(e.ctx, acct, id)
		got, err := e.letters.AppendLetter(e.ctx, []byte("x"), acct, id)
		if lettershop.ErrorCode(err) != lettershop.ErrorCode(want) || err.Error() != want.Error() || string(got) != "x" {
			t.Errorf("AppendLetter(%q) = %q, %v; want %v", id, got, err, want)
		}
	}
	in := lettershop.ListLettersInput{Status: "lost", PageRequest: lettershop.PageRequest{NextToken: "bad"}}
	_, want := e.svc.ListLetters(e.ctx, acct, in)
	if _, err := e.letters.Page(e.ctx, acct, in); err == nil || err.Error() != want.Error() {
		t.Errorf("Page(%+v): %v; want %v", in, err, want)
	}
}

// TestSnapshotEncodesTheLetterAsItWas: a letter's snapshot, and its stored
// encoding read back, encode as the letter did when the snapshot was made,
// whatever becomes of the letter: what an idempotent replay answers. The
// stored encoding takes less than half the letter's JSON.
func TestSnapshotEncodesTheLetterAsItWas(t *testing.T) {
	e := newEnv(t, lettershop.WithBaseURL("https://lettershop.test/v1"))
	in := letterInput(e.publishedTemplate(t, acct))
	in.Metadata = lettershop.Metadata{{Key: "campaign", Value: "<spring>"}, {Key: "é", Value: ""}}
	in.ExternalID = "order-1"
	made, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, l *lettershop.Letter, after func()) {
		t.Helper()
		want, err := wire.Letter(l)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := l.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		after()
		enc, err := snap.EncodeDocument()
		if err != nil {
			t.Fatal(err)
		}
		back, err := lettershop.DecodeLetterSnapshot(enc)
		if err != nil {
			t.Fatal(err)
		}
		for what, s := range map[string]*lettershop.LetterSnapshot{"snapshot": snap, "encoded snapshot read back": back} {
			l, err := s.Letter()
			if err != nil {
				t.Fatal(err)
			}
			if got, err := wire.Letter(l); err != nil || string(got) != string(want) {
				t.Fatalf("%s: %v\n got %s\nwant %s", what, err, got, want)
			}
		}
		if len(enc) >= len(want)/2 {
			t.Errorf("the encoding takes %d bytes, the letter's JSON %d", len(enc), len(want))
		}
	}
	// Made, then moved on: the snapshot still shows it as made.
	check(t, made, func() {
		if _, err := e.svc.Simulate(e.ctx, acct, made.ID, lettershop.SimulateTarget{Event: "inTransit"}); err != nil {
			t.Fatal(err)
		}
	})
	moved, err := e.svc.GetLetter(e.ctx, acct, made.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(moved.Events) <= len(made.Events) {
		t.Fatalf("the letter did not move: %d events", len(moved.Events))
	}
	check(t, moved, func() {})
}

// TestReadLetterRoundTrip: a letter written as the API shows it and read
// back with ReadLetter is the letter it was, every exported field.
func TestReadLetterRoundTrip(t *testing.T) {
	e := newEnv(t)
	assetID := e.publishedTemplate(t, acct)
	in := letterInput(assetID)
	in.Metadata = lettershop.Metadata{{Key: "campaign", Value: "spring"}}
	made, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Simulate(e.ctx, acct, made.ID, lettershop.SimulateTarget{Event: "delivered"}); err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.GetLetter(e.ctx, acct, made.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := wire.Letter(l)
	if err != nil {
		t.Fatal(err)
	}
	back, err := wire.ReadLetter(b)
	if err != nil {
		t.Fatal(err)
	}
	exportedOnly := cmp.FilterPath(func(p cmp.Path) bool {
		sf, ok := p.Last().(cmp.StructField)
		return ok && !token.IsExported(sf.Name())
	}, cmp.Ignore())
	if diff := cmp.Diff(l, back, exportedOnly); diff != "" {
		t.Errorf("letter read back (-want +got):\n%s", diff)
	}
	if _, err := wire.ReadLetter([]byte(`{"id":1}`)); err == nil {
		t.Error("a letter whose id is a number was read")
	}
}
