package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// A password in the query of the store's URL is kept out of the greeting,
// the usage errors and the errors of a store that does not open.
func TestStoreSecretsNeverShown(t *testing.T) {
	var b bytes.Buffer
	greet(&b, config{store: "postgres://u@db/mail?sslmode=disable&password=s3cret"}, "http://h", "http://h")
	first, _, _ := strings.Cut(b.String(), "\n")
	if want := "(store: postgres://u@db/mail?password=xxxxx&sslmode=disable)"; !strings.HasSuffix(first, want) || strings.Contains(b.String(), "s3cret") {
		t.Errorf("greeting %q, want it to end %q", first, want)
	}
	for _, store := range []string{
		"postgres://u@db/mail?password=s3cret&pool_max_conns=many",
		"postgres://u:s3cret@db:port/mail?password=s3cret",
		"postgres://db/mail?sslpassword=s3cret&connect_timeout=soon",
	} {
		_, err := parseConfig([]string{"--store", store, "--token-key", key32}, env(), io.Discard)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("--store %s: error %v, want one without the password", store, err)
		}
	}
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--token-key", key32,
		"--store", "postgres://u@" + closedPort(t) + "/mail?sslmode=disable&connect_timeout=5&password=s3cret"}, env(), &stdout, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "password=xxxxx") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %v, want one naming the store, without its password", err)
	}
}
