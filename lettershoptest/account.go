package lettershoptest

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// Account is one sandbox account of a Server or Service. Its letters,
// assets, faults and journal are its own: accounts never see each other's.
// Its methods fail the test on an error, so a test reads straight on.
type Account struct {
	// APIKey is the account's sandbox key, for X-Api-Key.
	APIKey string
	// ID is the account's id, which the Service's methods take.
	ID string
	c  *core
}

// Now returns the time on the account's clock.
func (a *Account) Now() time.Time { return a.c.svc.AccountNow(a.ID) }

// Advance moves the account's clock on by d and runs what fell due in the
// account: its letters move, and its idempotency keys, rate-limit window
// and download links age. Other accounts' clocks stay where they are
// (with WithSharedClock, the one clock moves for all). A negative d fails
// the test.
func (a *Account) Advance(d time.Duration) {
	a.c.t.Helper()
	if a.c.shared {
		a.c.advance(d)
		return
	}
	if _, err := a.c.svc.AdvanceAccountClock(context.Background(), a.ID, d); err != nil {
		a.c.t.Fatalf("lettershoptest: advance the clock of %s: %v", a.ID, err)
	}
}

// Set moves the account's clock forward to at and runs what fell due, as
// Advance does; a time before now fails the test.
func (a *Account) Set(at time.Time) {
	a.c.t.Helper()
	if a.c.shared {
		a.c.set(at)
		return
	}
	if _, err := a.c.svc.SetAccountClock(context.Background(), a.ID, at); err != nil {
		a.c.t.Fatalf("lettershoptest: set the clock of %s: %v", a.ID, err)
	}
}

// Freeze freezes the account's clock: a Server.Advance (or another
// test's POST /_test/clock/advance on a shared clock) then leaves it where
// it is; only the account's own Advance and Set move it. Unfreeze lets it
// follow the server's clock again, from where it stands.
func (a *Account) Freeze() { a.c.t.Helper(); a.freeze(true) }

// Unfreeze undoes Freeze.
func (a *Account) Unfreeze() { a.c.t.Helper(); a.freeze(false) }

func (a *Account) freeze(frozen bool) {
	a.c.t.Helper()
	if a.c.shared {
		a.c.t.Fatalf("lettershoptest: with WithSharedClock every account follows the one clock; there is no account clock to freeze")
	}
	if _, err := a.c.svc.FreezeAccountClock(context.Background(), a.ID, frozen); err != nil {
		a.c.t.Fatalf("lettershoptest: freeze the clock of %s: %v", a.ID, err)
	}
}

// Letter returns one of the account's letters.
func (a *Account) Letter(id string) *lettershop.Letter {
	a.c.t.Helper()
	l, err := a.c.svc.GetLetter(context.Background(), a.ID, id)
	if err != nil {
		a.c.t.Fatalf("lettershoptest: letter %s: %v", id, err)
	}
	return l
}

// Letters returns every letter of the account, newest first.
func (a *Account) Letters() []*lettershop.Letter {
	a.c.t.Helper()
	var out []*lettershop.Letter
	in := lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100}}
	for {
		p, err := a.c.svc.ListLetters(context.Background(), a.ID, in)
		if err != nil {
			a.c.t.Fatalf("lettershoptest: list letters: %v", err)
		}
		out = append(out, p.Items...)
		if p.NextToken == "" {
			return out
		}
		in.NextToken = p.NextToken
	}
}

// Status is the target of Force that moves a letter to a letter status.
func Status(s lettershop.LetterStatus) lettershop.SimulateTarget {
	return lettershop.SimulateTarget{Status: s}
}

// Event is the target of Force that moves a letter to a tracking event
// (lettershop.EventDelivered, ...).
func Event(e lettershop.EventStatus) lettershop.SimulateTarget {
	return lettershop.SimulateTarget{Event: e}
}

// Force moves one of the account's letters to target now, through every
// step before it, without moving the clock (lettershop.Service.Simulate),
// and returns it: acct.Force(id, lettershoptest.Event(lettershop.EventDelivered)).
func (a *Account) Force(letterID string, target lettershop.SimulateTarget) *lettershop.Letter {
	a.c.t.Helper()
	l, err := a.c.svc.Simulate(context.Background(), a.ID, letterID, target)
	if err != nil {
		a.c.t.Fatalf("lettershoptest: force letter %s to %+v: %v", letterID, target, err)
	}
	return l
}

// waitStep is how far WaitForStatus moves the clock at a time: an hour,
// finer than any step of the postal timeline that waits for a business
// hour, so the letter is seen at each status it passes.
const waitStep = time.Hour

// WaitForStatus moves the account's clock on, an hour at a time, until the
// letter has reached status (it is there, or an event of its history says
// it was), and returns the letter; if within passes on the clock first, or
// the letter is canceled or at issue, the test fails. No wall-clock time
// is spent waiting.
func (a *Account) WaitForStatus(letterID string, status lettershop.LetterStatus, within time.Duration) *lettershop.Letter {
	a.c.t.Helper()
	deadline := a.Now().Add(within)
	for {
		l := a.Letter(letterID)
		if reached(l, status) {
			return l
		}
		now := a.Now()
		if l.Status == lettershop.StatusCanceled || l.Status == lettershop.StatusIssue {
			a.c.t.Fatalf("lettershoptest: letter %s is %s and will never be %s", letterID, l.Status, status)
			return nil
		}
		if !now.Before(deadline) {
			a.c.t.Fatalf("lettershoptest: letter %s is %s at %s, not %s, after %s on the clock",
				letterID, l.Status, now.UTC().Format(time.RFC3339), status, within)
			return nil
		}
		a.Advance(min(waitStep, deadline.Sub(now)))
	}
}

func reached(l *lettershop.Letter, status lettershop.LetterStatus) bool {
	if l.Status == status {
		return true
	}
	return slices.ContainsFunc(l.Events, func(e lettershop.Event) bool {
		return e.Type == lettershop.EventTypeStatus && e.Status == lettershop.EventStatus(status)
	})
}

// PDF returns the letter's rendered PDF, as its download link serves it.
func (a *Account) PDF(letterID string) []byte {
	a.c.t.Helper()
	b, err := a.c.svc.RenderLetter(context.Background(), a.ID, letterID)
	if err != nil {
		a.c.t.Fatalf("lettershoptest: render letter %s: %v", letterID, err)
	}
	return b
}

// PDFText returns the text of the letter's rendered PDF, page after page,
// each page's text on lines of its own: enough for a test to check that a
// name or a variable's value was printed.
func (a *Account) PDFText(letterID string) string {
	a.c.t.Helper()
	b := a.PDF(letterID)
	text, err := pdfText(b)
	if err != nil {
		a.c.t.Fatalf("lettershoptest: read the PDF of letter %s: %v", letterID, err)
	}
	return text
}

func pdfText(b []byte) (string, error) {
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for n := 1; n <= r.NumPage(); n++ {
		p := r.Page(n)
		if p.V.IsNull() {
			continue
		}
		for _, row := range mustRows(p) {
			for _, w := range row.Content {
				sb.WriteString(w.S)
			}
			sb.WriteByte('\n')
		}
	}
	return sb.String(), nil
}

func mustRows(p pdf.Page) pdf.Rows {
	rows, err := p.GetTextByRow()
	if err != nil {
		return nil
	}
	return rows
}

// Fault adds a fault to the account's requests and returns its id (see
// httpadapter.Fault): the account's next matching requests are answered as
// it says. It needs a Server.
func (a *Account) Fault(f httpadapter.Fault) string {
	a.c.t.Helper()
	if a.c.controls == nil {
		a.c.t.Fatalf("lettershoptest: faults need a Server (New), not a Service")
	}
	f, err := a.c.controls.AddFault(a.ID, f)
	if err != nil {
		a.c.t.Fatalf("lettershoptest: fault: %v", err)
	}
	return f.ID
}

// ClearFaults removes the account's faults.
func (a *Account) ClearFaults() {
	if a.c.controls != nil {
		a.c.controls.ClearFaults(a.ID)
	}
}

// Requests returns the account's journal, oldest first: its last requests
// (up to httpadapter.JournalSize) and what they were answered. It needs a
// Server.
func (a *Account) Requests() []httpadapter.JournalEntry {
	a.c.t.Helper()
	if a.c.controls == nil {
		a.c.t.Fatalf("lettershoptest: the journal needs a Server (New), not a Service")
	}
	return a.c.controls.Requests(a.ID)
}
