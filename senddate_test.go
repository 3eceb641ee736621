package lettershop_test

import (
	"testing"
	"time"

	"github.com/lettershop/lettershop"
)

// TestSendDateTimePortion: the reference gives sendDate as an ISO 8601 day
// (YYYY-MM-DD) and speaks of a time portion; a date-time is taken as the
// day it is written on, its time ignored, on create and on update.
func TestSendDateTimePortion(t *testing.T) {
	e := newEnv(t)
	asset, _ := e.publishedTemplate(t, acct)
	tomorrow := testStart.AddDate(0, 0, 1).Format(time.DateOnly)
	yesterday := testStart.AddDate(0, 0, -1).Format(time.DateOnly)

	in := letterInput(asset.ID)
	// Written late in the evening west of UTC: the day as written counts,
	// not the day it is in UTC.
	in.SendDate = tomorrow + "T23:30:00-05:00"
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatalf("create with a time portion: %v", err)
	}
	if l.SendDate != tomorrow {
		t.Errorf("sendDate = %q, want %q", l.SendDate, tomorrow)
	}

	in.SendDate = yesterday + "T10:00:00Z"
	_, err = e.svc.CreateLetter(e.ctx, acct, in)
	wantFields(t, err, "sendDate")
	in.SendDate = tomorrow + "T25:00:00Z"
	_, err = e.svc.CreateLetter(e.ctx, acct, in)
	wantFields(t, err, "sendDate")

	later := testStart.AddDate(0, 0, 5).Format(time.DateOnly)
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{SendDate: str(later + "T08:00:00Z")})
	if err != nil {
		t.Fatalf("update with a time portion: %v", err)
	}
	if u.SendDate != later {
		t.Errorf("updated sendDate = %q, want %q", u.SendDate, later)
	}

	// Once canceled, the same day sent back with a time is no change.
	if _, err := e.svc.CancelLetter(e.ctx, acct, l.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{SendDate: str(later + "T00:00:00Z")}); err != nil {
		t.Errorf("the same day with a time, on a canceled letter: %v", err)
	}
}
