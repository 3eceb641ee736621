package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/egress"
)

func TestParseConfigEgress(t *testing.T) {
	p, err := egress.Allow("files.example.com", "*.hooks.example.com", "10.0.0.0/8", "::1")
	if err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]struct {
		args []string
		env  func(string) string
	}{
		"flag":                         {[]string{"--egress-allow", "files.example.com, *.hooks.example.com,10.0.0.0/8,::1"}, env()},
		"environment":                  {nil, env("LETTERSHOP_EGRESS_ALLOW", "files.example.com,*.hooks.example.com,10.0.0.0/8,::1")},
		"the flag wins":                {[]string{"--egress-allow", "files.example.com,*.hooks.example.com,10.0.0.0/8,::1"}, env("LETTERSHOP_EGRESS_ALLOW", "192.168.0.0/16")},
		"the environment, in its case": {nil, env("LETTERSHOP_EGRESS_ALLOW", "FILES.example.com,*.hooks.example.com,10.1.2.3/8,::1")},
	} {
		cfg, err := parseConfig(args.args, args.env, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(p, cfg.egress); diff != "" {
			t.Errorf("%s: policy (-want +got):\n%s", name, diff)
		}
	}
	cfg, err := parseConfig(nil, env(), io.Discard)
	if err != nil || !cfg.egress.Equal(egress.Default()) {
		t.Errorf("by default: %v, %v; want the default policy", cfg.egress, err)
	}

	for name, tt := range map[string]struct {
		args []string
		env  func(string) string
		want string
	}{
		"an empty list":           {[]string{"--egress-allow", " , "}, env(), "one host or network"},
		"link-local":              {[]string{"--egress-allow", "10.0.0.0/8,169.254.0.0/16"}, env(), `"169.254.0.0/16": every address in it is a link-local address`},
		"cloud metadata":          {[]string{"--egress-allow", "169.254.169.254"}, env(), "cloud metadata"},
		"a URL":                   {[]string{"--egress-allow", "https://files.example.com"}, env(), "https://files.example.com"},
		"a bad network":           {[]string{"--egress-allow", "10.0.0.0/33"}, env(), "want a network"},
		"from the environment":    {nil, env("LETTERSHOP_EGRESS_ALLOW", "fe80::/10"), "LETTERSHOP_EGRESS_ALLOW"},
		"a number for an address": {[]string{"--egress-allow", "0x7f000001"}, env(), "0x7f000001"},
	} {
		_, err := parseConfig(tt.args, tt.env, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one mentioning %q", name, err, tt.want)
		}
	}
}

// The server keeps to its egress policy when a webhook is made: a refused
// address is a 400 naming url, by default and with --egress-allow.
func TestServerEgress(t *testing.T) {
	base, _ := startServer(t)
	resp, body := call(t, "POST", base+"/v1/webhooks", "sk_test_1", `{"url":"http://[::ffff:169.254.169.254]/latest/meta-data/"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"url"`) || !strings.Contains(string(body), "never connects") {
		t.Errorf("a metadata address: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, "POST", base+"/v1/webhooks", "sk_test_1", `{"url":"http://127.0.0.1:9/in"}`); resp.StatusCode != http.StatusCreated {
		t.Errorf("loopback by default: %d %s", resp.StatusCode, body)
	}

	base, _ = startServer(t, "--egress-allow", "10.0.0.0/8,hooks.example.com")
	resp, body = call(t, "POST", base+"/v1/webhooks", "sk_test_1", `{"url":"http://127.0.0.1:9/in"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"url"`) ||
		!strings.Contains(string(body), "not among the hosts and networks this server may reach (hooks.example.com, 10.0.0.0/8)") {
		t.Errorf("loopback, restricted: %d %s", resp.StatusCode, body)
	}
	for _, u := range []string{"http://10.0.0.7:8080/in", "https://hooks.example.com/in"} {
		if resp, body := call(t, "POST", base+"/v1/webhooks", "sk_test_1", `{"url":"`+u+`"}`); resp.StatusCode != http.StatusCreated {
			t.Errorf("%s, restricted: %d %s", u, resp.StatusCode, body)
		}
	}
}
