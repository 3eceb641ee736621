package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// With --log-format json every line the server writes is a JSON object:
// the greeting on stdout as much as the log on stderr, from start to
// shutdown.
func TestJSONEverywhere(t *testing.T) {
	base, stdout, logs, stop := launchAll(t, "--log-format", "json", "--test-clock", "--metrics-addr", "127.0.0.1:0")
	call(t, "GET", base+"/v1/letters", "sk_test_json", "")
	call(t, "GET", base+"/v1/letters", "sk_live_wrong", "")
	stop()
	greeting := jsonLines(t, stdout.String())
	if len(greeting) != 1 {
		t.Fatalf("%d lines on stdout, want the greeting in one", len(greeting))
	}
	g := greeting[0]
	for _, k := range []string{"time", "level", "msg", "api_version", "listen", "store", "auth", "rate_limit", "health", "ready", "metrics", "inbox", "test_clock"} {
		if _, ok := g[k]; !ok {
			t.Errorf("the greeting lacks %q: %v", k, g)
		}
	}
	if g["listen"] != base || g["auth"] != "sandbox" {
		t.Errorf("greeting %v", g)
	}
	lines := jsonLines(t, logs.String())
	if last := lines[len(lines)-1]; last["msg"] != "shutting down" {
		t.Errorf("the last log line %v, want the shutdown", last)
	}
}

// A mistake in the flags or the environment, and a failure to start, are
// JSON lines too when JSON is asked for, by flag or environment.
func TestJSONErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  func(string) string
		code int
		want string
	}{
		{"unknown flag", []string{"--log-format", "json", "--bogus"}, env(), 2, "bogus"},
		{"unknown flag, format after it", []string{"--bogus", "--log-format=json"}, env(), 2, "bogus"},
		{"bad flag value", []string{"-log-format=json", "--rate-limit", "lots"}, env(), 2, "rate-limit"},
		{"stray argument", []string{"--log-format", "JSON", "serve"}, env(), 2, "serve"},
		{"bad environment", nil, env("LETTERSHOP_LOG_FORMAT", "json", "LETTERSHOP_RATE_LIMIT", "lots"), 2, "LETTERSHOP_RATE_LIMIT"},
		{"cannot listen", []string{"--log-format", "json", "--addr", "127.0.0.1:99999"}, env(), 1, "99999"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(context.Background(), tt.args, tt.env, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit status %d, want %d", code, tt.code)
			}
			lines := jsonLines(t, stderr.String())
			if len(lines) != 1 || lines[0]["level"] != "ERROR" || !strings.Contains(fmt.Sprint(lines[0]["msg"], lines[0]["err"]), tt.want) {
				t.Errorf("stderr %s, want one JSON error line mentioning %q", stderr.String(), tt.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
	// In text, the same mistakes read as they did.
	var stderr bytes.Buffer
	if code := runMain(context.Background(), []string{"--bogus"}, env(), &bytes.Buffer{}, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "flag provided but not defined: -bogus") || !strings.Contains(stderr.String(), "Usage:") {
		t.Errorf("text: status %d, stderr %s", code, stderr.String())
	}
	// Help is asked for as text, and given as text, in either format.
	stderr.Reset()
	if code := runMain(context.Background(), []string{"--log-format", "json", "-h"}, env(), &bytes.Buffer{}, &stderr); code != 0 ||
		!strings.Contains(stderr.String(), "Usage:") {
		t.Errorf("-h: status %d, stderr %s", code, stderr.String())
	}
}
