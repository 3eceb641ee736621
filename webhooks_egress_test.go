package lettershop_test

import (
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/egress"
)

// A webhook url naming a refused address, in any of its forms, is refused
// when the webhook is made or changed; a name is decided when dialled.
func TestWebhookEgressURLs(t *testing.T) {
	e := newEnv(t)
	w := e.createWebhook(t, acct, "https://hooks.example.com/in")
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/",
		"http://0xA9FEA9FE/", "http://2852039166/", "http://0251.0376.0251.0376/", "https://[fd00:ec2::254]/",
		"http://100.100.100.200/", "http://[fe80::1]:8080/", "http://0.0.0.0:8080/", "http://metadata.google.internal/",
	} {
		_, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: u})
		wantFields(t, err, "url")
		if msg := fieldsOf(t, err)["url"]; !strings.Contains(msg, "never connects") {
			t.Errorf("%s: %q does not say why", u, msg)
		}
		_, err = e.svc.UpdateWebhook(e.ctx, acct, w.ID, lettershop.UpdateWebhookInput{URL: &u})
		wantFields(t, err, "url")
	}
	_, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: "http://0x7f000001:8080/"})
	if msg := fieldsOf(t, err)["url"]; !strings.Contains(msg, "write it as 127.0.0.1") {
		t.Errorf("a numeric loopback address: %q", msg)
	}
	for _, u := range []string{"http://127.0.0.1:8080/in", "http://[::1]/in", "http://10.0.0.7/in", "http://localhost/in"} {
		e.createWebhook(t, acct, u)
	}
	if got, err := e.svc.GetWebhook(e.ctx, acct, w.ID); err != nil || got.URL != "https://hooks.example.com/in" {
		t.Errorf("the webhook after refused changes: %+v, %v", got, err)
	}

	// A restricted policy refuses addresses off its list now, and names
	// when dialled.
	limited := newEnv(t, lettershop.WithEgress(mustAllow(t, "10.0.0.0/8")))
	for u, ok := range map[string]bool{
		"http://10.1.2.3/in": true, "https://hooks.example.com/in": true,
		"http://127.0.0.1:8080/in": false, "http://192.168.0.1/in": false, "http://169.254.169.254/": false,
	} {
		_, err := limited.svc.CreateWebhook(limited.ctx, acct, lettershop.CreateWebhookInput{URL: u})
		if ok && err != nil {
			t.Errorf("%s: %v, want it allowed", u, err)
		}
		if !ok {
			wantFields(t, err, "url")
		}
	}
	byName := newEnv(t, lettershop.WithEgress(mustAllow(t, "hooks.example.com")))
	_, err = byName.svc.CreateWebhook(byName.ctx, acct, lettershop.CreateWebhookInput{URL: "https://other.example.com/in"})
	wantFields(t, err, "url")
}

func mustAllow(t *testing.T, entries ...string) egress.Policy {
	t.Helper()
	p, err := egress.Allow(entries...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
