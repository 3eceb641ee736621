//go:build soak

package main

// The soak test runs mixed traffic against two lettershop processes sharing
// one PostgreSQL schema, kills one of them with SIGKILL twice on the way,
// and then checks that every acknowledged letter exists exactly once and
// that every idempotency key answered one outcome. It is left out of the
// default run:
//
//	LETTERSHOP_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	  go test -tags soak -run TestSoak -v -timeout 30m ./cmd/lettershop
//
// LETTERSHOP_SOAK_DURATION sets how long traffic runs (default 3m). Servers
// and database are on the loopback interface only.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// soakServer is one lettershop process.
type soakServer struct {
	bin, addr string
	args      []string
	logPath   string

	mu   sync.Mutex
	cmd  *exec.Cmd
	base string
}

func (s *soakServer) start(t *testing.T) {
	t.Helper()
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(s.bin, append([]string{"--addr", s.addr}, s.args...)...)
	cmd.Env = append(os.Environ(), "LETTERSHOP_TOKEN_KEY=soak-token-key-0123456789abcdef0123456789")
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(first, "listening on") {
		_ = cmd.Process.Kill()
		t.Fatalf("server %s did not start: %q %v", s.addr, first, err)
	}
	go io.Copy(io.Discard, out)
	go func() { _ = cmd.Wait(); logf.Close() }()
	s.mu.Lock()
	s.cmd, s.base = cmd, "http://"+s.addr
	s.mu.Unlock()
}

// kill sends SIGKILL: no shutdown, no draining.
func (s *soakServer) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		s.cmd = nil
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// outcome is one definitive answer to a keyed request.
type outcome struct {
	status int
	body   string
}

// soakStats counts what the traffic did.
type soakStats struct {
	requests, netErrors, serverErrors, inFlight409, replays, acked, abandoned atomic.Int64
	reads, lists, updates, cancels, invalid, overload                         atomic.Int64
}

func TestSoak(t *testing.T) {
	dsn := testDSN(t)
	if u, err := url.Parse(dsn); err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost" && u.Hostname() != "::1") {
		t.Skip("the soak test runs against a database on the loopback interface only")
	}
	duration := 3 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("LETTERSHOP_SOAK_DURATION")); err == nil && d > 0 {
		duration = d
	}
	schema := newSchema(t, dsn)
	dir := t.TempDir()
	bin := filepath.Join(dir, "lettershop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	args := []string{"--store", dsn, "--schema", schema, "--rate-limit", "0"}
	servers := []*soakServer{
		{bin: bin, addr: freeAddr(t), args: args, logPath: filepath.Join(dir, "server0.log")},
		{bin: bin, addr: freeAddr(t), args: args, logPath: filepath.Join(dir, "server1.log")},
	}
	for _, s := range servers {
		s.start(t)
	}
	t.Cleanup(func() {
		for _, s := range servers {
			s.kill()
		}
	})
	base := func(i int) string {
		s := servers[i%len(servers)]
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.base
	}

	const accounts = 4
	keys := make([]string, accounts)
	assets := make([]string, accounts)
	for i := range accounts {
		keys[i] = fmt.Sprintf("sk_test_soak_%d", i)
		assets[i] = createTemplate(t, base(0), keys[i])
	}

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var stats soakStats
	do := func(method, url, key, body string, header ...string) (int, []byte, error) {
		stats.requests.Add(1)
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("X-Api-Key", key)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			stats.netErrors.Add(1)
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			stats.netErrors.Add(1)
			return 0, nil, err
		}
		return resp.StatusCode, b, nil
	}

	// keyed sends a request under an idempotency key until it gets a
	// definitive answer, to either server, retrying what a client retries:
	// network errors, 5xx, 409 request-in-flight and 503. Every definitive
	// answer is recorded under the key.
	var mu sync.Mutex
	answers := map[string][]outcome{} // idempotency key -> definitive answers
	keyed := func(rng *rand.Rand, method, path, key, body, ik string) (outcome, bool) {
		deadline := time.Now().Add(90 * time.Second)
		for time.Now().Before(deadline) {
			status, b, err := do(method, base(rng.IntN(2))+path, key, body, "Idempotency-Key", ik)
			switch {
			case err != nil:
			case status >= 500:
				if status == http.StatusServiceUnavailable {
					stats.overload.Add(1)
				} else {
					stats.serverErrors.Add(1)
				}
			case status == http.StatusConflict && bytes.Contains(b, []byte(`"request-in-flight"`)):
				stats.inFlight409.Add(1)
			default:
				o := outcome{status, string(b)}
				mu.Lock()
				answers[ik] = append(answers[ik], o)
				mu.Unlock()
				return o, true
			}
			time.Sleep(time.Duration(50+rng.IntN(200)) * time.Millisecond)
		}
		stats.abandoned.Add(1)
		return outcome{}, false
	}

	type acked struct{ account, id, ik string }
	var ackMu sync.Mutex
	var ackedLetters []acked
	var startedKeys []struct{ account, ik string }

	ctx, stop := context.WithTimeout(context.Background(), duration)
	defer stop()
	var wg sync.WaitGroup
	const workers = 8
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			n := 0
			for ctx.Err() == nil {
				n++
				a := rng.IntN(accounts)
				key := keys[a]
				switch p := rng.IntN(100); {
				case p < 45: // create a letter, sometimes retried after success
					ik := fmt.Sprintf("soak-%d-%d", w, n)
					body := strings.Replace(letterJSON(assets[a]), `"useType"`, `"externalId": "`+ik+`", "useType"`, 1)
					ackMu.Lock()
					startedKeys = append(startedKeys, struct{ account, ik string }{key, ik})
					ackMu.Unlock()
					o, ok := keyed(rng, "POST", "/v1/letters", key, body, ik)
					if !ok || o.status != http.StatusCreated {
						continue
					}
					var l struct{ ID string }
					if err := json.Unmarshal([]byte(o.body), &l); err != nil || l.ID == "" {
						t.Errorf("create %s: %s", ik, o.body)
						continue
					}
					stats.acked.Add(1)
					ackMu.Lock()
					ackedLetters = append(ackedLetters, acked{key, l.ID, ik})
					ackMu.Unlock()
					if rng.IntN(3) == 0 {
						stats.replays.Add(1)
						keyed(rng, "POST", "/v1/letters", key, body, ik)
					}
				case p < 55: // an invalid create, its error stored and replayed
					ik := fmt.Sprintf("soak-bad-%d-%d", w, n)
					stats.invalid.Add(1)
					keyed(rng, "POST", "/v1/letters", key, `{"useType":"marketing"}`, ik)
					keyed(rng, "POST", "/v1/letters", key, `{"useType":"marketing"}`, ik)
				case p < 75:
					stats.lists.Add(1)
					_, _, _ = do("GET", base(rng.IntN(2))+"/v1/letters?pageSize=20", key, "")
				case p < 85:
					ackMu.Lock()
					var id string
					if len(ackedLetters) > 0 {
						l := ackedLetters[rng.IntN(len(ackedLetters))]
						if l.account == key {
							id = l.id
						}
					}
					ackMu.Unlock()
					if id == "" {
						continue
					}
					if rng.IntN(2) == 0 {
						stats.reads.Add(1)
						_, _, _ = do("GET", base(rng.IntN(2))+"/v1/letters/"+id, key, "")
					} else {
						stats.updates.Add(1)
						keyed(rng, "PUT", "/v1/letters/"+id, key, fmt.Sprintf(`{"description":"update %d-%d"}`, w, n), fmt.Sprintf("soak-put-%d-%d", w, n))
					}
				default:
					ackMu.Lock()
					var id string
					if len(ackedLetters) > 0 {
						l := ackedLetters[rng.IntN(len(ackedLetters))]
						if l.account == key {
							id = l.id
						}
					}
					ackMu.Unlock()
					if id == "" {
						continue
					}
					stats.cancels.Add(1)
					keyed(rng, "POST", "/v1/letters/"+id+"/cancel", key, "", fmt.Sprintf("soak-cancel-%d-%d", w, n))
				}
			}
		})
	}

	// Kill one server at a third and at two thirds of the run, SIGKILL,
	// and start it again a moment later on the same address.
	var kills int
	began := time.Now()
	for _, at := range []time.Duration{duration / 3, 2 * duration / 3} {
		select {
		case <-time.After(time.Until(began.Add(at))):
		case <-ctx.Done():
		}
		victim := servers[kills%2]
		victim.kill()
		kills++
		t.Logf("killed server %s with SIGKILL (%d) at %s", victim.addr, kills, time.Since(began).Round(time.Second))
		time.Sleep(2 * time.Second)
		victim.start(t)
	}
	wg.Wait()

	// Every acknowledged letter exists, on both servers, exactly once:
	// exactly one letter carries its idempotency key as externalId.
	for _, l := range ackedLetters {
		for i := range servers {
			status, b, err := do("GET", base(i)+"/v1/letters/"+l.id, l.account, "")
			if err != nil || status != http.StatusOK {
				t.Errorf("acknowledged letter %s on server %d: %d %s %v", l.id, i, status, b, err)
			}
		}
	}
	var missing, duplicated, unacknowledgedStored int
	ackedByKey := map[string]string{}
	for _, l := range ackedLetters {
		ackedByKey[l.ik] = l.id
	}
	for _, k := range startedKeys {
		status, b, err := do("GET", base(0)+"/v1/letters?externalId="+k.ik+"&pageSize=10", k.account, "")
		if err != nil || status != http.StatusOK {
			t.Fatalf("list by externalId %s: %d %s %v", k.ik, status, b, err)
		}
		var page struct{ Items []struct{ ID string } }
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		id, wasAcked := ackedByKey[k.ik]
		switch {
		case len(page.Items) > 1:
			duplicated++
			t.Errorf("idempotency key %s made %d letters", k.ik, len(page.Items))
		case wasAcked && (len(page.Items) == 0 || page.Items[0].ID != id):
			missing++
			t.Errorf("acknowledged letter %s (key %s) not found by its externalId: %s", id, k.ik, b)
		case !wasAcked && len(page.Items) == 1:
			unacknowledgedStored++
		}
	}
	// Every idempotency key answered one outcome: all its definitive
	// answers are the same status and body.
	var keysChecked, answersChecked int
	for ik, got := range answers {
		keysChecked++
		for _, o := range got[1:] {
			answersChecked++
			if o != got[0] {
				t.Errorf("idempotency key %s answered %d %s, then %d %s", ik, got[0].status, got[0].body, o.status, o.body)
			}
		}
	}
	t.Logf("soak: %s, %d workers, %d accounts, 2 servers on one schema, %d SIGKILLs", duration, workers, accounts, kills)
	t.Logf("requests %d (network errors %d, 5xx other than 503 %d, 503 %d, 409 in flight %d)",
		stats.requests.Load(), stats.netErrors.Load(), stats.serverErrors.Load(), stats.overload.Load(), stats.inFlight409.Load())
	t.Logf("creates started %d, acknowledged %d, abandoned after 90 s of retries %d, stored without acknowledgement %d; replays sent %d; invalid creates %d",
		len(startedKeys), len(ackedLetters), stats.abandoned.Load(), unacknowledgedStored, stats.replays.Load(), stats.invalid.Load())
	t.Logf("lists %d, reads %d, updates %d, cancels %d", stats.lists.Load(), stats.reads.Load(), stats.updates.Load(), stats.cancels.Load())
	t.Logf("idempotency keys with answers %d, repeat answers compared %d; acknowledged letters missing %d, keys with duplicate letters %d",
		keysChecked, answersChecked, missing, duplicated)
}
