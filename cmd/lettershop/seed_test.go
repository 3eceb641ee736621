package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clockOf reads the key's account's clock.
func clockOf(t *testing.T, base, key string) time.Time {
	t.Helper()
	var c struct{ Now time.Time }
	resp, body := call(t, "GET", base+"/_test/clock", key, "")
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &c) != nil {
		t.Fatalf("clock: %d %s", resp.StatusCode, body)
	}
	return c.Now
}

// letterStatus reads a letter's status with the key.
func letterStatus(t *testing.T, base, key, id string) string {
	t.Helper()
	var l struct{ Status string }
	resp, body := call(t, "GET", base+"/v1/letters/"+id, key, "")
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &l) != nil {
		t.Fatalf("letter %s: %d %s", id, resp.StatusCode, body)
	}
	return l.Status
}

// takeFixture builds, on a running server, a template and a letter in
// the key's account, moves its clock, and returns the account's snapshot
// and the letter's id.
func takeFixture(t *testing.T, base, key string, ahead time.Duration) (json.RawMessage, string) {
	t.Helper()
	resp, body := call(t, "POST", base+"/v1/letters", key, letterJSON(createTemplate(t, base, key)))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create letter: %d %s", resp.StatusCode, body)
	}
	var l struct{ ID string }
	_ = json.Unmarshal(body, &l)
	if resp, body := call(t, "POST", base+"/_test/clock/advance", key, `{"duration":"`+ahead.String()+`"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("advance: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, "GET", base+"/_test/snapshot", key, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("snapshot: %d %s", resp.StatusCode, body)
	}
	return body, l.ID
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A server started with --seed has each snapshot's records, with their
// ids, in the account of the key it was taken with, and each account's
// clock where its snapshot's stood; other keys' accounts are empty. With
// a shared clock, the clock is the latest snapshot's.
func TestServerSeed(t *testing.T) {
	src, _ := startServer(t, "--test-clock")
	const keyA, keyB = "sk_test_seed_a", "sk_test_seed_b"
	snapA, letterA := takeFixture(t, src, keyA, 2*time.Hour)
	snapB, letterB := takeFixture(t, src, keyB, 30*time.Hour)
	clockA, clockB := clockOf(t, src, keyA), clockOf(t, src, keyB)
	statusA, statusB := letterStatus(t, src, keyA, letterA), letterStatus(t, src, keyB, letterB)
	one := writeFile(t, "one.json", snapA)
	both := writeFile(t, "both.json", []byte("[\n"+string(snapA)+",\n"+string(snapB)+"\n]\n"))

	base, stdout, _, _ := launchAll(t, "--test-clock", "--seed", one)
	if got := letterStatus(t, base, keyA, letterA); got != statusA {
		t.Errorf("seeded letter is %s, want %s", got, statusA)
	}
	if got := clockOf(t, base, keyA); !got.Equal(clockA) {
		t.Errorf("seeded account's clock %s, want the snapshot's %s", got, clockA)
	}
	if resp, body := call(t, "GET", base+"/v1/letters", "sk_test_other", ""); resp.StatusCode != http.StatusOK || strings.Contains(string(body), "ltr_") {
		t.Errorf("another key's account: %d %s", resp.StatusCode, body)
	}
	// The letter goes on from there on the account's clock.
	if resp, body := call(t, "POST", base+"/_test/clock/advance", keyA, `{"duration":"168h"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("advance: %d %s", resp.StatusCode, body)
	}
	if got := letterStatus(t, base, keyA, letterA); got != "mailed" {
		t.Errorf("a week on, the seeded letter is %s, want mailed", got)
	}
	if !strings.Contains(stdout.String(), "Seed: "+one+"\n  account acct_") || !strings.Contains(stdout.String(), ": 1 asset, 1 letter, 0 webhooks restored (clock "+clockA.Format(time.RFC3339Nano)+")") {
		t.Errorf("greeting:\n%s", stdout)
	}

	// Two snapshots on a shared clock; and the environment names a seed.
	base, stdout, _, _ = launchAll(t, "--test-clock", "--shared-test-clock", "--seed", both)
	if got := letterStatus(t, base, keyB, letterB); got != statusB {
		t.Errorf("second snapshot's letter is %s, want %s", got, statusB)
	}
	if got := letterStatus(t, base, keyA, letterA); got == "" {
		t.Error("first snapshot's letter is missing")
	}
	if got := clockOf(t, base, keyA); !got.Equal(clockB) {
		t.Errorf("shared clock at %s, want the latest snapshot's %s", got, clockB)
	}
	// Each account's line gives the one clock's time, where it went.
	if g := stdout.String(); strings.Count(g, " restored (clock "+clockB.Format(time.RFC3339Nano)+")") != 2 {
		t.Errorf("a shared clock's greeting gives each account another time than the clock's %s:\n%s", clockB, g)
	}
	cfg, err := parseConfig([]string{"--test-clock"}, env("LETTERSHOP_SEED", both), &bytes.Buffer{})
	if err != nil || len(cfg.fixture) != 2 || cfg.seed != both {
		t.Errorf("LETTERSHOP_SEED: %d snapshots, %v", len(cfg.fixture), err)
	}
}

// A seed the server cannot start from stops it at once, exit status 2,
// with a message that names the file and what is wrong in it.
func TestServerSeedRefused(t *testing.T) {
	src, _ := startServer(t, "--test-clock")
	snap, _ := takeFixture(t, src, "sk_test_refused", time.Hour)
	good := writeFile(t, "good.json", snap)
	var m map[string]any
	_ = json.Unmarshal(snap, &m)
	spoil := func(f func(map[string]any)) string {
		var c map[string]any
		_ = json.Unmarshal(snap, &c)
		f(c)
		b, _ := json.Marshal(c)
		return writeFile(t, "spoilt.json", b)
	}
	acme := spoil(func(c map[string]any) { c["account"] = "acme" })
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no test clock", []string{"--seed", good}, "--seed: needs --test-clock"},
		{"no file", []string{"--test-clock", "--seed", filepath.Join(t.TempDir(), "missing.json")}, "missing.json: open"},
		{"not JSON", []string{"--test-clock", "--seed", writeFile(t, "bad.json", []byte("{\n  \"format\": \"lettershop-snapshot/1\"\n  \"account\": \"x\"\n}"))},
			"bad.json: the fixture is not JSON as a snapshot is, at line 3, column 3"},
		{"a letter", []string{"--test-clock", "--seed", writeFile(t, "letter.json", []byte(`{"id": "ltr_01kjqh0cc0zaq0rt4gw3n9jqpr", "status": "queued"}`))},
			"letter.json: format: missing: not a lettershop snapshot"},
		{"a later version", []string{"--test-clock", "--seed", spoil(func(c map[string]any) { c["format"] = "lettershop-snapshot/9" })},
			`format: "lettershop-snapshot/9" is a form of snapshot this lettershop does not read`},
		{"a bad id", []string{"--test-clock", "--seed", spoil(func(c map[string]any) { c["letters"].([]any)[0].(map[string]any)["id"] = "ltr_1" })},
			`letters[0].id: must be ltr_ followed by a ULID, got "ltr_1"`},
		{"an account no key reaches", []string{"--test-clock", "--api-key", "beta:sk_beta", "--seed", good},
			`account: "acct_`},
		{"a key's account in the sandbox", []string{"--test-clock", "--seed", acme}, `account: "acme" is no sandbox key's account`},
		{"one account twice", []string{"--test-clock", "--seed", writeFile(t, "twice.json", []byte("["+string(snap)+","+string(snap)+"]"))},
			`[1].account: "acct_`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(context.Background(), append([]string{"--addr", "127.0.0.1:0"}, c.args...), env(), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and ...%s...", code, stderr.String(), c.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("greeted %q", stdout.String())
			}
		})
	}
	// With the key of the fixture's account, the same fixture is taken.
	base, _ := startServer(t, "--test-clock", "--api-key", "acme:sk_acme", "--seed", acme)
	if resp, body := call(t, "GET", base+"/v1/letters", "sk_acme", ""); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "ltr_") {
		t.Errorf("acme's letters: %d %s", resp.StatusCode, body)
	}
}

// On PostgreSQL, a restart with the same --seed leaves an account that
// has records as it is: what happened to it since the first start stays.
// An account of the fixture without records is seeded then.
func TestServerSeedOnPostgresRestart(t *testing.T) {
	dsn := testDSN(t)
	schema := newSchema(t, dsn)
	src, _ := startServer(t, "--test-clock")
	snapA, letterA := takeFixture(t, src, "sk_test_pg_a", time.Hour)
	snapB, letterB := takeFixture(t, src, "sk_test_pg_b", time.Hour)
	statusB := letterStatus(t, src, "sk_test_pg_b", letterB)
	args := []string{"--test-clock", "--store", dsn, "--schema", schema, "--token-key", key32, "--rate-limit", "0"}

	base, stdout, _, stop := launchAll(t, append(args, "--seed", writeFile(t, "a.json", snapA))...)
	if resp, body := call(t, "POST", base+"/v1/letters/"+letterA+"/cancel", "sk_test_pg_a", ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(stdout.String(), "1 letter, 0 webhooks restored") {
		t.Errorf("first start:\n%s", stdout)
	}
	stop()

	both := writeFile(t, "both.json", []byte("["+string(snapA)+","+string(snapB)+"]"))
	base, stdout, _, _ = launchAll(t, append(args, "--seed", both)...)
	if got := letterStatus(t, base, "sk_test_pg_a", letterA); got != "canceled" {
		t.Errorf("after a restart the seeded account's letter is %s, want canceled as it was left", got)
	}
	if got := letterStatus(t, base, "sk_test_pg_b", letterB); got != statusB {
		t.Errorf("the account new to the seed: letter %s, want %s", got, statusB)
	}
	if out := stdout.String(); !strings.Contains(out, "has records already: left as it is") || !strings.Contains(out, "1 letter, 0 webhooks restored") {
		t.Errorf("second start:\n%s", out)
	}
}
