package lettershop_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/wire"
)

// The reference writes every time to the second (2023-06-07T12:34:56Z):
// a letter as package wire shows it has its times so, whatever their
// milliseconds, while the Service keeps the milliseconds. (Assets,
// versions, webhooks and deliveries are shown by package httpadapter, and
// tested there.)
func TestAnswersShowTimesToTheSecond(t *testing.T) {
	e := newEnv(t)
	e.clock.Add(1834 * time.Millisecond)
	const shown = `"2026-03-02T15:00:01Z"`
	a, _ := e.publishedTemplate(t, acct)
	l := e.newLetter(t, nil)
	if a.CreatedAt.Nanosecond() != 834e6 || l.CreatedAt.Nanosecond() != 834e6 {
		t.Fatalf("the Service keeps times to the millisecond: %v, %v", a.CreatedAt, l.CreatedAt)
	}
	letter, err := wire.Letter(l)
	if err != nil {
		t.Fatal(err)
	}
	for name, tt := range map[string]struct {
		got  string
		want []string
	}{
		"letter": {string(letter), []string{`"createdAt":` + shown, `"modifiedAt":` + shown, `"timestamp":` + shown}},
	} {
		for _, w := range tt.want {
			if !strings.Contains(tt.got, w) {
				t.Errorf("%s: no %s in %s", name, w, tt.got)
			}
		}
		if strings.Contains(tt.got, ".834") {
			t.Errorf("%s shows milliseconds: %s", name, tt.got)
		}
	}
}

// A client sends back the times an answer showed it: they are the stored
// times, to the second. Another second is still refused as read-only.
func TestTimesSentBackAsShown(t *testing.T) {
	e := newEnv(t)
	e.clock.Add(1834 * time.Millisecond)
	created, _ := e.publishedTemplate(t, acct)
	l := e.get(t, e.newLetter(t, nil).ID)
	a, err := e.svc.GetAsset(e.ctx, acct, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"2026-03-02T15:00:01Z", true}, {"2026-03-02T10:00:01-05:00", true}, {"2026-03-02T15:00:01.834Z", true},
		{"2026-03-02T15:00:02Z", false}, {"2026-03-02T15:00:00Z", false}, {"2026-03-02T15:00:01.5Z", false},
	} {
		set := func(m map[string]any) { m["createdAt"], m["modifiedAt"] = tt.value, tt.value }
		_, errL := e.svc.UpdateLetter(e.ctx, acct, l.ID, sentBack[lettershop.UpdateLetterInput](t, l, set))
		_, errA := e.svc.UpdateAsset(e.ctx, acct, a.ID, sentBack[lettershop.UpdateAssetInput](t, a, set))
		if tt.ok {
			if errL != nil || errA != nil {
				t.Errorf("times %s sent back: letter %v, asset %v", tt.value, errL, errA)
			}
			continue
		}
		wantFields(t, errL, "createdAt", "modifiedAt")
		wantFields(t, errA, "createdAt", "modifiedAt")
	}
}
