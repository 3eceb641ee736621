package lettershop_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// Every named option value is one the service takes, and each is written
// on the wire as its string.
func TestNamedOptionValues(t *testing.T) {
	e := newEnv(t)
	asset, _ := e.publishedTemplate(t, "acct", testDefinitions...)
	type opts = lettershop.LetterOptions
	var cases []opts
	for _, s := range []lettershop.MailService{lettershop.MailFirstClass, lettershop.MailStandard} {
		for _, x := range []lettershop.ExtraService{lettershop.ExtraACS, lettershop.ExtraCertified, lettershop.ExtraCertifiedReturnReceipt, lettershop.ExtraRegistered} {
			cases = append(cases, opts{Mail: &lettershop.MailOptions{Service: s, ExtraServices: []lettershop.ExtraService{x}}})
		}
	}
	for _, c := range []lettershop.Casing{lettershop.CasingProper, lettershop.CasingUpper} {
		for _, n := range []lettershop.NcoaOption{lettershop.NcoaNone, lettershop.NcoaNewAddress} {
			cases = append(cases, opts{AddressProcessing: &lettershop.AddressProcessing{
				CassRecipient: &lettershop.CassOptions{Type: lettershop.CassBasic, Casing: c}, NcoaRecipient: n}})
		}
	}
	for _, th := range []lettershop.DeliverabilityThreshold{lettershop.ThresholdStrict, lettershop.ThresholdNormal, lettershop.ThresholdRelaxed} {
		cases = append(cases, opts{DeliverabilityThreshold: th})
	}
	for _, v := range []lettershop.ValidationScope{lettershop.ValidationScopeAsset, lettershop.ValidationScopeNone} {
		cases = append(cases, opts{VariableHandling: &lettershop.VariableHandling{ValidationScope: v}})
	}
	for i, o := range cases {
		in := letterInput(asset.ID)
		in.Content.Type = lettershop.LetterContentAsset
		in.Options = &o
		l, err := e.svc.CreateLetter(e.ctx, "acct", in)
		if err != nil {
			t.Fatalf("case %d (%+v): %v", i, o, err)
		}
		b, err := json.Marshal(l.Options)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(o)
		for _, part := range strings.Split(strings.Trim(string(want), "{}"), ",") {
			if !strings.Contains(string(b), strings.Trim(part, "{}")) {
				t.Errorf("case %d: options %s lack %s", i, b, part)
			}
		}
	}
}

// The event types and statuses are what a letter's history holds, and a
// simulation takes them.
func TestNamedEventValues(t *testing.T) {
	e := newEnv(t)
	asset, _ := e.publishedTemplate(t, "acct", testDefinitions...)
	l, err := e.svc.CreateLetter(e.ctx, "acct", letterInput(asset.ID))
	if err != nil {
		t.Fatal(err)
	}
	l, err = e.svc.Simulate(e.ctx, "acct", l.ID, lettershop.SimulateTarget{Event: lettershop.EventDelivered})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range l.Events {
		got = append(got, string(ev.Type)+"/"+string(ev.Status))
	}
	want := []string{
		string(lettershop.EventTypeStatus) + "/" + string(lettershop.StatusQueued),
		string(lettershop.EventTypeStatus) + "/" + string(lettershop.StatusReady),
		string(lettershop.EventTypeStatus) + "/" + string(lettershop.StatusInProduction),
		string(lettershop.EventTypeStatus) + "/" + string(lettershop.StatusMailed),
		"tracking/inTransit", "tracking/inLocalArea", "tracking/processedForDelivery", "tracking/delivered",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("history %v, want %v", got, want)
	}
	last := l.Events[len(l.Events)-1]
	if last.Type != lettershop.EventTypeTracking || last.Status != lettershop.EventDelivered {
		t.Errorf("last event %s/%s", last.Type, last.Status)
	}
	if _, err := e.svc.Simulate(e.ctx, "acct", l.ID, lettershop.SimulateTarget{Event: "lost"}); lettershop.ErrorCode(err) != lettershop.CodeInvalid {
		t.Errorf("unknown event: %v, want invalid", err)
	}
}
