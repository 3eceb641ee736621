package httpadapter_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/httpadapter"
)

func TestSandboxKeys(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		key    string
		status int
	}{
		{"", http.StatusUnauthorized},
		{"sk_test_", http.StatusUnauthorized},
		{"sk_live_abc", http.StatusUnauthorized},
		{"SK_TEST_abc", http.StatusUnauthorized},
		{"sk_test_a", http.StatusOK},
		{keyA, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			res := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", tt.key)})
			if tt.status == http.StatusOK {
				res.wantStatus(t, http.StatusOK)
				return
			}
			p := res.problem(t, tt.status)
			if p.Code != "unauthorized" {
				t.Errorf("code %q", p.Code)
			}
			// A key the sandbox refuses, or a request without one, is told which keys it takes.
			if !strings.Contains(p.Detail, "begins sk_test_") {
				t.Errorf("detail %q does not say which keys the sandbox takes", p.Detail)
			}
		})
	}
}

// A key must be text: one holding bytes that are not UTF-8, or a control
// character, is no sandbox key, and never becomes an account.
func TestSandboxRefusesKeysThatAreNotText(t *testing.T) {
	ts := newTestServer(t)
	for _, key := range []string{"sk_test_\xff", "sk_test_a\xc0\xafb", "sk_test_\xed\xa0\x80"} {
		if _, err := httpadapter.NewSandboxAuthenticator().Authenticate(ctx, key); !errors.Is(err, httpadapter.ErrUnknownKey) {
			t.Errorf("Authenticate(%q) = %v, want ErrUnknownKey", key, err)
		}
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key)}).problem(t, http.StatusUnauthorized)
	}
	for _, key := range []string{"sk_test_a\x00", "sk_test_a\x1fb", "sk_test_a\u0085"} {
		if _, err := httpadapter.NewSandboxAuthenticator().Authenticate(ctx, key); !errors.Is(err, httpadapter.ErrUnknownKey) {
			t.Errorf("Authenticate(%q) = %v, want ErrUnknownKey", key, err)
		}
	}
	// Text beyond ASCII is a key like any other.
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_test_caf\u00e9")}).wantStatus(t, http.StatusOK)
}

// Two X-Api-Key headers are refused, whichever of them is valid: the
// server never picks one.
func TestTwoAPIKeysAreRefused(t *testing.T) {
	ts := newTestServer(t)
	for _, keys := range [][]string{{keyA, keyB}, {keyA, keyA}, {"sk_live_nope", keyA}, {keyA, ""}} {
		r, err := http.NewRequest("GET", ts.URL+"/letters", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header["X-Api-Key"] = keys
		resp, err := ts.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		p := result{Status: resp.StatusCode, Header: resp.Header, Body: b}.problem(t, http.StatusBadRequest)
		p.wantFields(t, "X-Api-Key")
		if strings.Contains(string(b), keyA) {
			t.Errorf("the answer quotes a key: %s", b)
		}
	}
	// With a test clock the faults see the same: no account.
	ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: map[string]any{"path": "/letters", "status": 503}}).wantStatus(t, http.StatusCreated)
	r, _ := http.NewRequest("GET", ts.URL+"/letters", nil)
	r.Header["X-Api-Key"] = []string{keyA, keyB}
	resp, err := ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("two keys, one with a fault: %d, want 400", resp.StatusCode)
	}
}

func TestSandboxAccounts(t *testing.T) {
	a, b := httpadapter.SandboxAccount(keyA), httpadapter.SandboxAccount(keyB)
	if a == b || a != httpadapter.SandboxAccount(keyA) {
		t.Errorf("accounts %q and %q: want distinct and stable", a, b)
	}
	for _, acct := range []string{a, b} {
		if len(acct) < 10 || acct == keyA || acct == keyB {
			t.Errorf("account %q", acct)
		}
	}
	p, err := httpadapter.NewSandboxAuthenticator().Authenticate(ctx, keyA)
	if err != nil || p.Account != a {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	if diff := cmp.Diff(httpadapter.AllScopes, p.Scopes); diff != "" {
		t.Errorf("sandbox scopes (-want +got):\n%s", diff)
	}
}

// scopedServer accepts fixed keys with various scopes.
func scopedServer(t *testing.T) *testServer {
	t.Helper()
	auth, err := httpadapter.NewKeyAuthenticator(
		httpadapter.APIKey{Account: "acme", Secret: "full"},
		httpadapter.APIKey{Account: "acme", Secret: "reader", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead, httpadapter.ScopeAssetsRead}},
		httpadapter.APIKey{Account: "acme", Secret: "letters", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead, httpadapter.ScopeLettersWrite}},
		httpadapter.APIKey{Account: "other", Secret: "stranger"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return newTestServer(t, withAdapter(httpadapter.WithAuthenticator(auth)))
}

func TestScopes(t *testing.T) {
	ts := scopedServer(t)
	assetID, versionID := ts.createAsset(t, "full")
	l := ts.createLetter(t, "full", assetID)
	v := "/assets/" + assetID + "/versions/" + versionID
	routes := []struct {
		r     req
		scope httpadapter.Scope
	}{
		{req{Method: "GET", Path: "/letters"}, httpadapter.ScopeLettersRead},
		{req{Method: "GET", Path: "/letters/" + l.ID}, httpadapter.ScopeLettersRead},
		{req{Method: "GET", Path: "/letters/" + l.ID + "/download"}, httpadapter.ScopeLettersRead},
		{req{Method: "POST", Path: "/letters", Body: letterBody(assetID)}, httpadapter.ScopeLettersWrite},
		{req{Method: "PUT", Path: "/letters/" + l.ID, Body: `{"description":"d"}`}, httpadapter.ScopeLettersWrite},
		{req{Method: "POST", Path: "/letters/" + l.ID + "/cancel"}, httpadapter.ScopeLettersWrite},
		{req{Method: "GET", Path: "/assets"}, httpadapter.ScopeAssetsRead},
		{req{Method: "GET", Path: "/assets/" + assetID}, httpadapter.ScopeAssetsRead},
		{req{Method: "GET", Path: "/assets/" + assetID + "/versions"}, httpadapter.ScopeAssetsRead},
		{req{Method: "GET", Path: v}, httpadapter.ScopeAssetsRead},
		{req{Method: "POST", Path: "/assets", Body: `{"name":"n"}`}, httpadapter.ScopeAssetsWrite},
		{req{Method: "PUT", Path: "/assets/" + assetID, Body: `{"name":"n"}`}, httpadapter.ScopeAssetsWrite},
		{req{Method: "POST", Path: "/assets/" + assetID + "/versions", Body: templateBody()}, httpadapter.ScopeAssetsWrite},
		{req{Method: "PUT", Path: v, Body: `{"notes":"n"}`}, httpadapter.ScopeAssetsWrite},
		{req{Method: "POST", Path: v + "/publish"}, httpadapter.ScopeAssetsWrite},
		{req{Method: "POST", Path: v + "/clone"}, httpadapter.ScopeAssetsWrite},
		{req{Method: "POST", Path: v + "/archive"}, httpadapter.ScopeAssetsWrite},
		{req{Method: "DELETE", Path: v}, httpadapter.ScopeAssetsWrite},
		{req{Method: "DELETE", Path: "/assets/" + assetID}, httpadapter.ScopeAssetsWrite},
	}
	keys := map[string][]httpadapter.Scope{
		"reader":  {httpadapter.ScopeLettersRead, httpadapter.ScopeAssetsRead},
		"letters": {httpadapter.ScopeLettersRead, httpadapter.ScopeLettersWrite},
	}
	for key, scopes := range keys {
		for _, rt := range routes {
			has := false
			for _, s := range scopes {
				has = has || s == rt.scope
			}
			if has {
				continue // the allowed calls change state; the full key's run below covers them
			}
			rt.r.Header = hdr("X-Api-Key", key)
			t.Run(key+" "+rt.r.Method+" "+rt.r.Path, func(t *testing.T) {
				p := ts.do(t, rt.r).problem(t, http.StatusForbidden)
				if p.Code != "forbidden" {
					t.Errorf("code %q", p.Code)
				}
			})
		}
	}
	// A reader reads.
	for _, path := range []string{"/letters", "/letters/" + l.ID, "/assets", "/assets/" + assetID, v} {
		ts.do(t, req{Method: "GET", Path: path, Header: hdr("X-Api-Key", "reader")}).wantStatus(t, http.StatusOK)
	}
	// A letters key writes letters.
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("X-Api-Key", "letters")}).wantStatus(t, http.StatusCreated)
	// Keys of one account share its objects; another account's key does not see them.
	ts.do(t, req{Method: "GET", Path: "/letters/" + l.ID, Header: hdr("X-Api-Key", "stranger")}).problem(t, http.StatusNotFound)
	// Fixed keys replace the sandbox: a sandbox key is unknown, and the
	// answer says nothing of which keys there are.
	if p := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", keyA)}).problem(t, http.StatusUnauthorized); p.Detail != "the API key is not valid" {
		t.Errorf("detail %q, want no word of which keys there are", p.Detail)
	}
	if p := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusUnauthorized); p.Detail != "the X-Api-Key header is missing" {
		t.Errorf("detail %q of a request without a key, want no word of which keys there are", p.Detail)
	}
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "ful")}).problem(t, http.StatusUnauthorized)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "fulll")}).problem(t, http.StatusUnauthorized)
}

func TestKeyAuthenticator(t *testing.T) {
	_, err := httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "a", Secret: ""})
	if err == nil {
		t.Error("an empty secret was accepted")
	}
	_, err = httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "", Secret: "s"})
	if err == nil {
		t.Error("an empty account was accepted")
	}
	_, err = httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "a", Secret: "s"}, httpadapter.APIKey{Account: "b", Secret: "s"})
	if err == nil {
		t.Error("one secret for two keys was accepted")
	}
	auth, err := httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "a", Secret: "s1", Scopes: []httpadapter.Scope{httpadapter.ScopeAssetsRead}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := auth.Authenticate(ctx, "s1")
	if err != nil || p.Account != "a" || !p.Has(httpadapter.ScopeAssetsRead) || p.Has(httpadapter.ScopeAssetsWrite) {
		t.Errorf("Authenticate(s1) = %+v, %v", p, err)
	}
	if _, err := auth.Authenticate(ctx, "s2"); !errors.Is(err, httpadapter.ErrUnknownKey) {
		t.Errorf("Authenticate(s2) error %v, want ErrUnknownKey", err)
	}
	if _, err := httpadapter.ParseScope("letters:delete"); err == nil {
		t.Error("ParseScope accepted an unknown scope")
	}
	if s, err := httpadapter.ParseScope("assets:write"); err != nil || s != httpadapter.ScopeAssetsWrite {
		t.Errorf("ParseScope(assets:write) = %q, %v", s, err)
	}
}

// A sandbox with fixed keys beside it: a key given is its own account and
// scopes, whatever it begins with; any other sk_test_ key is the sandbox's.
func TestSandboxBesideKeys(t *testing.T) {
	keys, err := httpadapter.NewKeyAuthenticator(
		httpadapter.APIKey{Account: "acme", Secret: "secret1", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead}},
		httpadapter.APIKey{Account: "beta", Secret: "sk_test_beta"})
	if err != nil {
		t.Fatal(err)
	}
	a := httpadapter.SandboxAuthenticator{Keys: keys}
	for key, want := range map[string]string{"secret1": "acme", "sk_test_beta": "beta", "sk_test_x": httpadapter.SandboxAccount("sk_test_x")} {
		if p, err := a.Authenticate(t.Context(), key); err != nil || p.Account != want {
			t.Errorf("%s: %+v, %v; want account %s", key, p, err, want)
		}
	}
	if p, _ := a.Authenticate(t.Context(), "secret1"); p.Has(httpadapter.ScopeLettersWrite) {
		t.Errorf("secret1 has letters:write: its scopes were not kept")
	}
	for _, key := range []string{"secret2", "sk_test_"} {
		if _, err := a.Authenticate(t.Context(), key); !errors.Is(err, httpadapter.ErrUnknownKey) {
			t.Errorf("%s: %v, want ErrUnknownKey", key, err)
		}
	}
}

// A sandbox key ending in @ and scopes is the account of the key before
// the @ with those scopes alone: a test meets a 403 of a key without a
// scope. An end that names no scope is part of the key, as before.
func TestSandboxScopedKeys(t *testing.T) {
	sandbox := httpadapter.NewSandboxAuthenticator()
	for _, tt := range []struct {
		key, account string
		scopes       []httpadapter.Scope
	}{
		{"sk_test_s@letters:read", "sk_test_s", []httpadapter.Scope{httpadapter.ScopeLettersRead}},
		{"sk_test_s@assets:write,letters:read,letters:read", "sk_test_s", []httpadapter.Scope{httpadapter.ScopeLettersRead, httpadapter.ScopeAssetsWrite}},
		{"sk_test_a@b@webhooks:read", "sk_test_a@b", []httpadapter.Scope{httpadapter.ScopeWebhooksRead}},
		{"sk_test_s@", "sk_test_s@", httpadapter.AllScopes},
		{"sk_test_s@everything", "sk_test_s@everything", httpadapter.AllScopes},
		{"sk_test_@letters:read", "sk_test_@letters:read", httpadapter.AllScopes},
	} {
		p, err := sandbox.Authenticate(t.Context(), tt.key)
		if err != nil {
			t.Fatalf("%s: %v", tt.key, err)
		}
		if p.Account != httpadapter.SandboxAccount(tt.account) || !cmp.Equal(p.Scopes, tt.scopes) {
			t.Errorf("%s: account %s, scopes %v; want %s's, %v", tt.key, p.Account, p.Scopes, tt.account, tt.scopes)
		}
	}

	// An end meant as scopes (it has a colon, as every scope) that names
	// one there is not is refused, saying which there are: a misspelt
	// scope is not another account, where a 403 would be a 404.
	for _, key := range []string{"sk_test_s@letters:raed", "sk_test_s@LETTERS:READ", "sk_test_s@letters:read,", "sk_test_s@:"} {
		if _, err := sandbox.Authenticate(t.Context(), key); !errors.Is(err, httpadapter.ErrUnknownKey) || !strings.Contains(err.Error(), "webhooks:write") {
			t.Errorf("%s: %v, want an unknown key naming the scopes", key, err)
		}
	}

	ts := newTestServer(t)
	full, read := "sk_test_scoped", "sk_test_scoped@letters:read"
	assetID, _ := ts.createAsset(t, full)
	l := ts.createLetter(t, full, assetID)
	ts.do(t, req{Method: "GET", Path: "/letters/" + l.ID, Header: hdr("X-Api-Key", read)}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel", Header: hdr("X-Api-Key", read)}).problem(t, http.StatusForbidden)
	ts.do(t, req{Method: "GET", Path: "/assets/" + assetID, Header: hdr("X-Api-Key", read)}).problem(t, http.StatusForbidden)
}
