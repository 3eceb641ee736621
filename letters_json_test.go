package lettershop_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
)

// TestAppendLetterJSONMatchesGetLetter holds AppendLetterJSON and
// LetterPageJSON to the encoding of what GetLetter and ListLetters
// return, read once and again (the second from kept encodings), through
// what changes a letter: updates, cancellation, lifecycle steps, and
// pages with and without CASS details. On the mock clock every read
// stores the steps due first; a letter shown with steps not yet stored is
// TestAppendLetterJSONOfLetterDueShowsSteps's.
func TestAppendLetterJSONMatchesGetLetter(t *testing.T) {
	e := newEnv(t, lettershop.WithBaseURL("https://lettershop.test"))
	a, _ := e.publishedTemplate(t, acct)
	var ids []string
	for i := range 5 {
		in := letterInput(a.ID)
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
				want, _ := json.Marshal(l)
				got, err := e.svc.AppendLetterJSON(e.ctx, []byte("x"), acct, id)
				if err != nil || string(got) != "x"+string(want) {
					t.Fatalf("%s: AppendLetterJSON(%s) = %s, %v\nwant x%s", when, id, got, err, want)
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
				for range 2 {
					p, err := e.svc.ListLetters(e.ctx, acct, in)
					if err != nil {
						t.Fatal(err)
					}
					want, _ := json.Marshal(p)
					got, err := e.svc.LetterPageJSON(e.ctx, acct, in)
					if err != nil || got.String() != string(want)+"\n" {
						t.Fatalf("%s: LetterPageJSON(%+v) = %s, %v\nwant %s", when, in, got, err, want)
					}
					in.NextToken = p.NextToken
				}
				if in.NextToken == "" {
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
	l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, l.ID)
	check(t, "one more")
}

func TestAppendLetterJSONErrors(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"x", "ltr_unknown"} {
		_, want := e.svc.GetLetter(e.ctx, acct, id)
		got, err := e.svc.AppendLetterJSON(e.ctx, []byte("x"), acct, id)
		if lettershop.ErrorCode(err) != lettershop.ErrorCode(want) || err.Error() != want.Error() || string(got) != "x" {
			t.Errorf("AppendLetterJSON(%q) = %q, %v; want %v", id, got, err, want)
		}
	}
	in := lettershop.ListLettersInput{Status: "lost", PageRequest: lettershop.PageRequest{NextToken: "bad"}}
	_, want := e.svc.ListLetters(e.ctx, acct, in)
	if _, err := e.svc.LetterPageJSON(e.ctx, acct, in); err == nil || err.Error() != want.Error() {
		t.Errorf("LetterPageJSON(%+v): %v; want %v", in, err, want)
	}
}
