//go:build soak

package main

// The soak test runs regular traffic and hostile traffic together against
// two lettershop processes sharing one PostgreSQL schema, kills one of them
// with SIGKILL twice on the way, and then checks that every acknowledged
// letter exists exactly once, that every idempotency key answered one
// outcome, that no answer was a 5xx, that no server's memory grew past its
// bound, that no request left a file in the servers' TMPDIR, and that the
// webhook events of an account whose receiver answers at once all arrived
// while another account's receiver hung. A third process, with a test clock
// and a schema of its own, serves what only a test clock serves: the test
// controls, and letters moved through their whole lifecycle in minutes.
// It is left out of the default run:
//
//	LETTERSHOP_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	  go test -tags soak -run TestSoak -v -timeout 30m ./cmd/lettershop
//
// LETTERSHOP_SOAK_DURATION sets how long traffic runs (default 3m);
// LETTERSHOP_SOAK_LOGS names a directory to keep the servers' logs in;
// LETTERSHOP_SOAK_CLOCK_STORE=memory runs the test-clock server on the
// in-memory store, to tell what its figures owe to PostgreSQL.
// Servers and database are on the loopback interface only.
// docs/operations.md describes what it sends, what it checks and what it
// reports.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop/httpadapter"
)

// The most resident memory (VmHWM, in KiB) a server process may reach in
// the soak. A server of the pair has measured 95 to 120 MiB at its peak: its
// bound is that and half again. The test-clock server also keeps the test
// controls of the many keys the soak sends, up to 64 MiB, which the
// collector may let grow to twice that before it runs: 128 MiB more. Each
// hostile input the soak sends would pass these bounds within the run if
// its defect came back: 900 KB kept for each of some 900 idempotency keys,
// each multipart log-in parsed into up to 32 MiB, test controls unbounded.
// docs/operations.md says more.
const (
	rssBound      = 192 << 10
	rssBoundClock = rssBound + 128<<10
)

// outcome is one definitive answer to a keyed request.
type outcome struct {
	status int
	body   string
}

// soak is the state of one run.
type soak struct {
	pair   []*soakServer // the two servers on one schema
	clock  *soakServer   // the test-clock server
	counts *soakCounts
	normal *soakClient // the regular client, at 127.0.0.1

	mu      sync.Mutex
	answers map[string][]outcome // idempotency key -> definitive answers

	inFlight409, abandoned                                            atomic.Int64
	hugeAnswerMax                                                     atomic.Int64
	webhookReplaysChecked, webhookSecretsReplayed, webhookSecretsLost atomic.Int64
	replays, invalidCreates, lists, reads, updates, cancels           atomic.Int64
}

// pairURL is the base URL of one of the two servers.
func (s *soak) pairURL(i int) string { return s.pair[i%len(s.pair)].url() }

// keyed sends a request under an idempotency key until it gets a
// definitive answer, to either server, retrying what a client retries:
// network errors, 5xx and 409 request-in-flight. Every definitive answer
// is recorded under the key.
func (s *soak) keyed(rng *rand.Rand, kind, method, path, key, body, ik string) (outcome, bool) {
	rep, ok := s.retried(rng, kind, method, path, key, body, ik)
	if !ok {
		return outcome{}, false
	}
	o := outcome{rep.status, string(rep.body)}
	s.mu.Lock()
	s.answers[ik] = append(s.answers[ik], o)
	s.mu.Unlock()
	return o, true
}

// keyedOnce is keyed for a POST whose answers under one key may differ
// (a webhook's create shows its secret, its replays do not): it records
// nothing, and returns the headers too.
func (s *soak) keyedOnce(rng *rand.Rand, kind, path, key, body, ik string) (soakReply, bool) {
	return s.retried(rng, kind, "POST", path, key, body, ik)
}

func (s *soak) retried(rng *rand.Rand, kind, method, path, key, body, ik string) (soakReply, bool) {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		rep, err := s.normal.call(context.Background(), kind, method, s.pairURL(rng.IntN(2))+path, key, body, "Idempotency-Key", ik)
		switch {
		case err != nil, rep.status >= 500:
		case rep.status == http.StatusConflict && strings.Contains(string(rep.body), `"request-in-flight"`):
			s.inFlight409.Add(1)
		default:
			return rep, true
		}
		time.Sleep(time.Duration(50+rng.IntN(200)) * time.Millisecond)
	}
	s.abandoned.Add(1)
	return soakReply{}, false
}

// expectOutcome notes a definitive answer to a keyed request whose
// status is none of allowed, and reports whether it was one of them.
func (s *soak) expectOutcome(what string, o outcome, ok bool, allowed ...int) bool {
	if !ok {
		return false
	}
	if !slices.Contains(allowed, o.status) {
		s.counts.wrong(fmt.Sprintf("%s: %d, want one of %v: %s", what, o.status, allowed, clip([]byte(o.body), 400)))
		return false
	}
	return true
}

// withExternalID gives a letter's JSON an externalId.
func withExternalID(letter, id string) string {
	return strings.Replace(letter, `"useType"`, `"externalId": "`+id+`", "useType"`, 1)
}

// setupAccount makes the asset an account's letters use, through the
// client, and returns its id.
func setupAccount(t *testing.T, c *soakClient, base, key string) string {
	t.Helper()
	rep, err := c.call(context.Background(), "setup", "POST", base+"/v1/assets", key, `{"name":"Welcome letter","type":"template"}`)
	var asset struct{ ID string }
	if err != nil || rep.status != http.StatusCreated || json.Unmarshal(rep.body, &asset) != nil {
		t.Fatalf("create asset: %d %s %v", rep.status, rep.body, err)
	}
	rep, err = c.call(context.Background(), "setup", "POST", base+"/v1/assets/"+asset.ID+"/versions", key,
		`{"content":{"type":"text/html","content":"<p>Dear {{name}},</p>"},"variableDefinitions":[{"name":"name","behavior":"required"}],"publish":true}`)
	if err != nil || rep.status != http.StatusCreated {
		t.Fatalf("create version: %d %s %v", rep.status, rep.body, err)
	}
	return asset.ID
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
	dir := t.TempDir()
	logs := dir
	if d := os.Getenv("LETTERSHOP_SOAK_LOGS"); d != "" {
		logs = d // kept after the run, to read what the report points at
	}
	bin := filepath.Join(dir, "lettershop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// Every server's TMPDIR: nothing may ever appear in it.
	watch := &tmpWatch{dir: filepath.Join(dir, "tmp")}
	if err := os.Mkdir(watch.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"TMPDIR=" + watch.dir}
	pairSchema := newSchema(t, dsn)
	pairArgs := []string{"--store", dsn, "--schema", pairSchema, "--rate-limit", "0"}
	s := &soak{counts: newSoakCounts(), answers: map[string][]outcome{}}
	s.pair = []*soakServer{
		{name: "pair-0", bin: bin, addr: freeAddr(t), args: pairArgs, env: env, logPath: filepath.Join(logs, "pair-0.log")},
		{name: "pair-1", bin: bin, addr: freeAddr(t), args: pairArgs, env: env, logPath: filepath.Join(logs, "pair-1.log")},
	}
	clockArgs, clockOn := []string{"--store", dsn, "--schema", newSchema(t, dsn), "--rate-limit", "0", "--test-clock"}, "on a schema of its own"
	if os.Getenv("LETTERSHOP_SOAK_CLOCK_STORE") == "memory" {
		clockArgs, clockOn = clockArgs[4:], "on the in-memory store"
	}
	s.clock = &soakServer{name: "clock", bin: bin, addr: freeAddr(t), env: env, logPath: filepath.Join(logs, "clock.log"), args: clockArgs}
	servers := []*soakServer{s.pair[0], s.pair[1], s.clock}
	for _, srv := range servers {
		srv.start(t)
	}
	t.Cleanup(func() {
		for _, srv := range servers {
			srv.kill()
		}
	})
	s.normal = newSoakClient(s.counts, "127.0.0.1", true)

	// Memory and TMPDIR are looked at twice a second, to the end.
	sampling, stopSampling := context.WithCancel(context.Background())
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, srv := range servers {
				srv.sample()
			}
			watch.check()
			select {
			case <-tick.C:
			case <-sampling.Done():
				return
			}
		}
	})
	defer func() { stopSampling(); sampler.Wait() }()

	// Four regular accounts, and two with webhooks: fast answers at once,
	// hanging never does. The test-clock server has a fast and a hanging
	// account too, whose letters go through their whole lifecycle.
	rs := startReceivers(t, map[string]bool{"pair-fast": false, "pair-hanging": true, "clock-fast": false, "clock-hanging": true})
	t.Cleanup(rs.stop)
	keys := []string{"sk_test_soak_0", "sk_test_soak_1", "sk_test_soak_2", "sk_test_soak_3", "sk_test_soak_fast", "sk_test_soak_hanging"}
	const accounts, fast, hanging = 6, 4, 5
	assets := make([]string, accounts)
	for i, key := range keys {
		assets[i] = setupAccount(t, s.normal, s.pairURL(0), key)
	}
	makeWebhook(t, s.normal, s.pairURL(0), keys[fast], rs, rs.all["pair-fast"])
	makeWebhook(t, s.normal, s.pairURL(0), keys[hanging], rs, rs.all["pair-hanging"])
	drivers := map[string]*clockDriver{}
	for _, role := range []string{"fast", "hanging"} {
		key := "sk_test_soak_clock_" + role
		d := &clockDriver{c: s.normal, server: s.clock, key: key, role: role, asset: setupAccount(t, s.normal, s.clock.url(), key)}
		makeWebhook(t, s.normal, s.clock.url(), key, rs, rs.all["clock-"+role])
		drivers[role] = d
	}
	hugeKey := "sk_test_soak_huge"
	hugeAsset := setupAccount(t, s.normal, s.pairURL(0), hugeKey)

	type acked struct{ account, id, ik string }
	var ackMu sync.Mutex
	var ackedLetters []acked
	var startedKeys []struct{ account, ik string }

	ctx, stop := context.WithTimeout(context.Background(), duration)
	defer stop()
	var wg sync.WaitGroup
	// The regular traffic, as before: creates, replays, invalid creates,
	// lists, reads, updates and cancels, to either server.
	const workers = 8
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			n := 0
			for ctx.Err() == nil {
				n++
				a := rng.IntN(accounts)
				key := keys[a]
				pick := func() string {
					ackMu.Lock()
					defer ackMu.Unlock()
					if len(ackedLetters) > 0 {
						if l := ackedLetters[rng.IntN(len(ackedLetters))]; l.account == key {
							return l.id
						}
					}
					return ""
				}
				switch p := rng.IntN(100); {
				case p < 45: // create a letter, sometimes retried after success
					ik := fmt.Sprintf("soak-%d-%d", w, n)
					body := withExternalID(letterJSON(assets[a]), ik)
					ackMu.Lock()
					startedKeys = append(startedKeys, struct{ account, ik string }{key, ik})
					ackMu.Unlock()
					o, ok := s.keyed(rng, "create", "POST", "/v1/letters", key, body, ik)
					if !s.expectOutcome("create "+ik, o, ok, http.StatusCreated) {
						continue
					}
					var l struct{ ID string }
					if err := json.Unmarshal([]byte(o.body), &l); err != nil || l.ID == "" {
						t.Errorf("create %s: %s", ik, o.body)
						continue
					}
					ackMu.Lock()
					ackedLetters = append(ackedLetters, acked{key, l.ID, ik})
					ackMu.Unlock()
					if rng.IntN(3) == 0 {
						s.replays.Add(1)
						o, ok := s.keyed(rng, "create-replay", "POST", "/v1/letters", key, body, ik)
						s.expectOutcome("create-replay "+ik, o, ok, http.StatusCreated)
					}
				case p < 55: // an invalid create, its error stored and replayed
					ik := fmt.Sprintf("soak-bad-%d-%d", w, n)
					s.invalidCreates.Add(1)
					for range 2 {
						o, ok := s.keyed(rng, "invalid-create", "POST", "/v1/letters", key, `{"useType":"marketing"}`, ik)
						s.expectOutcome("invalid-create "+ik, o, ok, http.StatusBadRequest)
					}
				case p < 75:
					s.lists.Add(1)
					rep, err := s.normal.call(ctx, "list", "GET", s.pairURL(rng.IntN(2))+"/v1/letters?pageSize=20", key, "")
					s.expect("list", rep, err, http.StatusOK)
				case p < 85:
					id := pick()
					if id == "" {
						continue
					}
					if rng.IntN(2) == 0 {
						s.reads.Add(1)
						rep, err := s.normal.call(ctx, "read", "GET", s.pairURL(rng.IntN(2))+"/v1/letters/"+id, key, "")
						s.expect("read", rep, err, http.StatusOK)
					} else {
						s.updates.Add(1)
						ik := fmt.Sprintf("soak-put-%d-%d", w, n)
						o, ok := s.keyed(rng, "update", "PUT", "/v1/letters/"+id, key, fmt.Sprintf(`{"description":"update %d-%d"}`, w, n), ik)
						s.expectOutcome("update "+ik, o, ok, http.StatusOK)
					}
				default:
					id := pick()
					if id == "" {
						continue
					}
					s.cancels.Add(1)
					ik := fmt.Sprintf("soak-cancel-%d-%d", w, n)
					o, ok := s.keyed(rng, "cancel", "POST", "/v1/letters/"+id+"/cancel", key, "", ik)
					s.expectOutcome("cancel "+ik, o, ok, http.StatusAccepted)
				}
			}
		})
	}
	// The hostile traffic, each from an address of its own.
	wg.Go(func() { s.inboxBodies(ctx, newSoakClient(s.counts, "127.0.0.10", false)) })
	wg.Go(func() { s.hugeUseType(ctx, hugeKey, hugeAsset) })
	wg.Go(func() { s.wrongKeys(ctx, newSoakClient(s.counts, "127.0.0.8", false)) })
	wg.Go(func() { s.oddities(ctx, newSoakClient(s.counts, "127.0.0.9", false), keys[0]) })
	wg.Go(func() { s.webhookReplays(ctx) })
	slowIPs := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"}
	wg.Go(func() {
		s.slowHeaders(ctx, s.pair, slowIPs, func(ip string) int {
			if ip == "127.0.0.7" {
				return 300 // over --max-conns-per-client
			}
			return 190
		})
	})
	// On the test-clock server: the controls of many fresh keys, and the
	// lifecycle of the fast and hanging accounts.
	for g := range 2 {
		wg.Go(func() { s.controls(ctx, newSoakClient(s.counts, "127.0.0.11", false), g) })
	}
	wg.Go(func() { drivers["fast"].run(ctx, t, 1) })
	wg.Go(func() { drivers["hanging"].run(ctx, t, 2) })

	// Kill one server at a third and at two thirds of the run, SIGKILL,
	// and start it again a moment later on the same address.
	var kills []string
	var killedAt []time.Time
	began := time.Now()
	for _, at := range []time.Duration{duration / 3, 2 * duration / 3} {
		pause(ctx, time.Until(began.Add(at)))
		victim := s.pair[len(kills)%2]
		victim.kill()
		killedAt = append(killedAt, time.Now())
		kills = append(kills, fmt.Sprintf("%s at %s", victim.name, time.Since(began).Round(time.Second)))
		t.Logf("killed %s with SIGKILL at %s", victim.name, time.Since(began).Round(time.Second))
		time.Sleep(2 * time.Second)
		victim.start(t)
	}
	wg.Wait()
	trafficEnded := time.Since(began)

	// Webhooks: every event of the fast accounts' letters arrives, kills or
	// not, within a minute and a half of the traffic's end (an attempt cut
	// short by a kill holds its event for the 10 s timeout and 30 s more).
	type hookSet struct {
		receiver *soakReceiver
		server   string
		key      string
		want     map[string]bool
	}
	hooks := []*hookSet{
		{rs.all["pair-fast"], s.pairURL(0), keys[fast], nil},
		{rs.all["pair-hanging"], s.pairURL(0), keys[hanging], nil},
		{rs.all["clock-fast"], s.clock.url(), drivers["fast"].key, nil},
		{rs.all["clock-hanging"], s.clock.url(), drivers["hanging"].key, nil},
	}
	for _, h := range hooks {
		want, err := accountEvents(context.Background(), s.normal, h.server, h.key)
		if err != nil {
			t.Fatalf("events of %s: %v", h.receiver.name, err)
		}
		h.want = want
	}
	settle := time.Now().Add(90 * time.Second)
	for time.Now().Before(settle) && (len(hooks[0].receiver.missing(hooks[0].want)) > 0 || len(hooks[2].receiver.missing(hooks[2].want)) > 0) {
		time.Sleep(250 * time.Millisecond)
	}

	// Every acknowledged letter exists, on both servers, exactly once:
	// exactly one letter carries its idempotency key as externalId.
	var missing, duplicated, unacknowledgedStored atomic.Int64
	ackedByKey := map[string]string{}
	for _, l := range ackedLetters {
		ackedByKey[l.ik] = l.id
	}
	var check sync.WaitGroup
	for g := range 8 {
		check.Go(func() {
			for i := g; i < len(ackedLetters); i += 8 {
				l := ackedLetters[i]
				for j := range s.pair {
					rep, err := s.normal.call(context.Background(), "check", "GET", s.pairURL(j)+"/v1/letters/"+l.id, l.account, "")
					if err != nil || rep.status != http.StatusOK {
						t.Errorf("acknowledged letter %s on %s: %d %s %v", l.id, s.pair[j].name, rep.status, rep.body, err)
					}
				}
			}
			for i := g; i < len(startedKeys); i += 8 {
				k := startedKeys[i]
				rep, err := s.normal.call(context.Background(), "check", "GET", s.pairURL(i)+"/v1/letters?externalId="+k.ik+"&pageSize=10", k.account, "")
				var page struct{ Items []struct{ ID string } }
				if err != nil || rep.status != http.StatusOK || json.Unmarshal(rep.body, &page) != nil {
					t.Errorf("list by externalId %s: %d %s %v", k.ik, rep.status, rep.body, err)
					continue
				}
				id, wasAcked := ackedByKey[k.ik]
				switch {
				case len(page.Items) > 1:
					duplicated.Add(1)
					t.Errorf("idempotency key %s made %d letters", k.ik, len(page.Items))
				case wasAcked && (len(page.Items) == 0 || page.Items[0].ID != id):
					missing.Add(1)
					t.Errorf("acknowledged letter %s (key %s) not found by its externalId: %s", id, k.ik, rep.body)
				case !wasAcked && len(page.Items) == 1:
					unacknowledgedStored.Add(1)
				}
			}
		})
	}
	check.Wait()
	// Every idempotency key answered one outcome: all its definitive
	// answers are the same status and body.
	var keysChecked, answersChecked int
	for ik, got := range s.answers {
		keysChecked++
		for _, o := range got[1:] {
			answersChecked++
			if o != got[0] {
				t.Errorf("idempotency key %s answered %d %s, then %d %s", ik, got[0].status, clip([]byte(got[0].body), 300), o.status, clip([]byte(o.body), 300))
			}
		}
	}
	for _, srv := range servers {
		srv.sample()
	}
	watch.check()

	// The report.
	t.Logf("soak: traffic for %s (ended at %s); pair-0 and pair-1 on one schema, %d SIGKILLs (%s); clock, a test-clock server %s",
		duration, trafficEnded.Round(time.Second), len(kills), strings.Join(kills, ", "), clockOn)
	t.Logf("requests by kind (status 0 under slow-headers: closed unanswered, by the header timeout or to make room; net err: no answer, a server down or a body refused mid-send):\n%s",
		strings.Join(s.counts.table(), "\n"))
	serverLogs := map[*soakServer]serverLog{}
	var logged5xx, logged499 int
	for _, srv := range servers {
		serverLogs[srv] = readServerLog(srv.logPath)
		logged5xx += serverLogs[srv].fivexx
		logged499 += serverLogs[srv].canceled
	}
	t.Logf("5xx: %d answers read by the soak, %d in the servers' request logs; 499 (cut off before the answer) in the request logs %d; to the regular client at 127.0.0.1: 503 %d, 429 %d; answers a kind does not allow: %d",
		s.counts.serverErrors, logged5xx, logged499, s.counts.normalStatus(503), s.counts.normalStatus(429), s.counts.unexpected)
	for _, e := range s.counts.fivexx {
		t.Errorf("5xx: %s", e)
	}
	for _, e := range s.counts.odd {
		t.Errorf("unexpected answer: %s", e)
	}
	if n := s.counts.normalStatus(503); n > 0 {
		t.Errorf("the regular client was answered 503 %d times while slow connections were open", n)
	}
	if n := s.counts.normalStatus(429); n > 0 {
		t.Errorf("the regular client was answered 429 %d times: another address's failures throttled it", n)
	}
	if s.counts.status("wrong-key", http.StatusTooManyRequests) == 0 {
		t.Errorf("bursts of wrong keys were never throttled")
	}
	var rss []string
	for _, srv := range servers {
		bound := int64(rssBound)
		if srv == s.clock {
			bound = rssBoundClock
		}
		for i, l := range srv.lifetimes() {
			end := "end"
			if !l.ended.IsZero() {
				end = "SIGKILL at " + l.ended.Sub(began).Round(time.Second).String()
			}
			rss = append(rss, fmt.Sprintf("  %s #%d (pid %d, to %s): VmHWM %.1f MiB, VmRSS at most %.1f MiB, %d samples; bound %d MiB",
				srv.name, i+1, l.pid, end, float64(l.hwmKB)/1024, float64(l.rssKB)/1024, l.samples, bound>>10))
			if l.hwmKB > bound {
				t.Errorf("%s #%d reached %.1f MiB resident, over its bound of %d MiB", srv.name, i+1, float64(l.hwmKB)/1024, bound>>10)
			}
		}
	}
	t.Logf("memory per process lifetime:\n%s", strings.Join(rss, "\n"))
	tmpReport, tmpEmpty := watch.report()
	t.Logf("%s", tmpReport)
	if !tmpEmpty {
		t.Errorf("a request left files in the servers' TMPDIR")
	}
	t.Logf("letters: creates started %d, acknowledged %d, missing %d, duplicated %d, stored without acknowledgement %d, abandoned after 90 s of retries %d; replays %d, invalid creates %d, lists %d, reads %d, updates %d, cancels %d",
		len(startedKeys), len(ackedLetters), missing.Load(), duplicated.Load(), unacknowledgedStored.Load(), s.abandoned.Load(),
		s.replays.Load(), s.invalidCreates.Load(), s.lists.Load(), s.reads.Load(), s.updates.Load(), s.cancels.Load())
	t.Logf("idempotency: keys with answers %d, repeat answers compared %d, 409 request-in-flight %d; largest answer to a 900,000-byte useType %d bytes",
		keysChecked, answersChecked, s.inFlight409.Load(), s.hugeAnswerMax.Load())
	if s.hugeAnswerMax.Load() > 2048 {
		t.Errorf("an answer to a 900,000-byte useType was %d bytes", s.hugeAnswerMax.Load())
	}
	if n, largest, total, err := storedOutcomes(dsn, pairSchema, httpadapter.SandboxAccount(hugeKey)); err != nil {
		t.Errorf("outcomes kept for the huge useTypes: %v", err)
	} else {
		t.Logf("outcomes kept for the huge useTypes' account: %d, the largest %d bytes, %d bytes in all", n, largest, total)
		if largest > 2048 {
			t.Errorf("an outcome kept for a 900,000-byte useType is %d bytes", largest)
		}
	}
	t.Logf("webhook creates replayed: %d replays checked, secrets in replays %d, first answers lost to a kill %d",
		s.webhookReplaysChecked.Load(), s.webhookSecretsReplayed.Load(), s.webhookSecretsLost.Load())
	if n := s.webhookSecretsReplayed.Load(); n > 0 {
		t.Errorf("%d replays of a webhook's create showed its secret", n)
	}
	for _, h := range hooks {
		r := h.receiver
		got := r.received()
		lost := r.missing(h.want)
		origin := func(e soakEvent) (time.Time, bool) { return e.createdAt, true }
		if d := drivers[strings.TrimPrefix(r.name, "clock-")]; strings.HasPrefix(r.name, "clock-") {
			origin = d.origin
		}
		dr := delays(got, origin, killedAt)
		r.mu.Lock()
		arrivals, dups, bad := r.arrivals, r.duplicates, r.badSignatures
		r.mu.Unlock()
		if r.hang {
			t.Logf("webhooks %s (never answers): events expected %d, received %d (attempts %d), not received %d",
				r.name, len(h.want), len(got), arrivals, len(lost))
		} else {
			t.Logf("webhooks %s: events expected %d, received %d (attempts %d, duplicates %d), missing %d, late (over %s) %d; delay at the median %s, 90th percentile %s, 99th %s, worst %s (%s %s, received %s); events whose origin is unknown %d",
				r.name, len(h.want), len(got), arrivals, dups, len(lost), lateAfter, len(dr.late),
				dr.p50.Round(time.Millisecond), dr.p90.Round(time.Millisecond), dr.p99.Round(time.Millisecond), dr.worst.Round(time.Millisecond),
				dr.worstEvent.id, dr.worstEvent.typ, dr.worstEvent.receivedAt.Format("15:04:05.000"), dr.unplaced)
			for i, l := range dr.late {
				if i == 10 {
					t.Logf("  ... and %d more late", len(dr.late)-10)
					break
				}
				t.Logf("  late: %s", l)
			}
			if len(lost) > 0 {
				t.Errorf("%s: %d events never arrived, such as %v", r.name, len(lost), lost[:min(5, len(lost))])
			}
		}
		if d := drivers[strings.TrimPrefix(r.name, "clock-")]; strings.HasPrefix(r.name, "clock-") {
			t.Logf("  %s: %s", r.name, d.advances())
		}
		for _, b := range bad {
			t.Errorf("%s: an event failed its signature check: %s", r.name, b)
		}
	}
	for _, srv := range servers {
		if l := serverLogs[srv]; l.errors+l.fivexx+l.canceled > 0 {
			t.Errorf("%s logged %d errors, answered %d requests with a 5xx and %d with a 499 (the soak never hangs up on a request), the first:\n  %s",
				srv.name, l.errors, l.fivexx, l.canceled, strings.Join(l.first, "\n  "))
		}
	}
}
