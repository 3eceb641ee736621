//go:build soak

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The hostile traffic of the soak: each kind of request that once hurt the
// server, sent all through the run beside the regular traffic. Each comes
// from a loopback address of its own (Linux routes all of 127.0.0.0/8 to
// the loopback interface), so that the failed-authentication throttle and
// the connection caps, which go by client address, meet it and not the
// regular client at 127.0.0.1.

// expect notes an answer whose status is none of allowed.
func (s *soak) expect(kind string, rep soakReply, err error, allowed ...int) bool {
	if err != nil {
		return false
	}
	if !slices.Contains(allowed, rep.status) {
		s.counts.wrong(fmt.Sprintf("%s: %d, want one of %v: %s", kind, rep.status, allowed, clip(rep.body, 300)))
		return false
	}
	return true
}

// filler reads as an endless run of one byte.
type filler byte

func (f filler) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

// inboxBodySize is the body the inbox hostile requests send: 2,048 times
// the inbox's limit of 8 KiB.
const inboxBodySize = 16 << 20

// inboxBodies posts multipart forms and large bodies to the inbox's log-in
// (and a multipart form to an action), with and without a Content-Length:
// before, a multipart log-in was parsed into memory and temporary files
// that were never removed. Each is refused before its body is read: a
// multipart form is a 400 naming Content-Type, a url-encoded form over
// 8 KiB a 413.
func (s *soak) inboxBodies(ctx context.Context, c *soakClient) {
	rng := rand.New(rand.NewPCG(3, 3))
	const boundary = "soak-boundary-7d41"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nsk_test_soak_inbox\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n" +
		"Content-Type: application/octet-stream\r\n\r\n"
	tail := "\r\n--" + boundary + "--\r\n"
	for n := 0; ctx.Err() == nil; n++ {
		base := s.pairURL(n)
		var req *http.Request
		var kind string
		var want int
		switch n % 4 {
		case 0, 1:
			kind, want = "inbox-multipart", http.StatusBadRequest
			path := "/inbox/login"
			if n%8 == 1 {
				path = "/inbox/letters/ltr_01m867z8m8d7epdqst8p5dse0f/cancel"
			}
			req, _ = http.NewRequestWithContext(context.WithoutCancel(ctx), "POST", base+path,
				io.MultiReader(strings.NewReader(head), io.LimitReader(filler('a'), inboxBodySize), strings.NewReader(tail)))
			req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
			if n%4 == 0 {
				req.ContentLength = int64(len(head) + inboxBodySize + len(tail))
			}
		default:
			kind, want = "inbox-large-form", http.StatusRequestEntityTooLarge
			req, _ = http.NewRequestWithContext(context.WithoutCancel(ctx), "POST", base+"/inbox/login",
				io.MultiReader(strings.NewReader("key="), io.LimitReader(filler('a'), inboxBodySize)))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if n%4 == 2 {
				req.ContentLength = int64(len("key=") + inboxBodySize)
			}
		}
		rep, err := c.send(kind, req)
		s.expect(kind, rep, err, want)
		pause(ctx, time.Duration(100+rng.IntN(200))*time.Millisecond)
	}
}

// hugeUseType sends creates whose useType is 900,000 bytes, each under a
// fresh idempotency key, from one sandbox key, and some a second time.
// Before, the answer quoted the value whole, and each key kept its answer:
// every request added 900 KB to what the server held. The answer must name
// useType and stay small; the report reads what the keys keep from the
// schema.
func (s *soak) hugeUseType(ctx context.Context, key, asset string) {
	rng := rand.New(rand.NewPCG(5, 5))
	body := strings.Replace(letterJSON(asset), `"useType": "transactional"`, `"useType": "`+strings.Repeat("x", 900_000)+`"`, 1)
	if len(body) < 900_000 {
		panic("soak: the letter's useType was not replaced")
	}
	for n := 0; ctx.Err() == nil; n++ {
		ik := fmt.Sprintf("soak-huge-%d", n)
		for range 1 + rng.IntN(4)/3 { // a quarter of them twice
			o, ok := s.keyed(rng, "huge-usetype", "POST", "/v1/letters", key, body, ik)
			if !ok {
				break
			}
			if o.status != http.StatusBadRequest || !strings.Contains(o.body, "useType") {
				s.counts.wrong(fmt.Sprintf("huge-usetype: %d, want 400 naming useType: %s", o.status, clip([]byte(o.body), 300)))
			}
			s.noteAnswerSize(len(o.body))
		}
		pause(ctx, 50*time.Millisecond)
	}
}

// noteAnswerSize keeps the largest answer to a huge useType.
func (s *soak) noteAnswerSize(n int) {
	for {
		old := s.hugeAnswerMax.Load()
		if int64(n) <= old || s.hugeAnswerMax.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}

// wrongKeys sends bursts of unknown API keys, now and then, to the API and
// the inbox's log-in: past 100 failures a minute an address is answered
// 429 whatever its key.
func (s *soak) wrongKeys(ctx context.Context, c *soakClient) {
	for n := 0; ctx.Err() == nil; n++ {
		base := s.pairURL(n)
		var wg sync.WaitGroup
		var sent atomic.Int64
		for g := range 4 {
			wg.Go(func() {
				for i := 0; ctx.Err() == nil && sent.Add(1) <= 150; i++ {
					key := fmt.Sprintf("sk_live_guess_%d_%d_%d", n, g, i)
					var rep soakReply
					var err error
					if i%10 == 9 {
						rep, err = c.call(ctx, "wrong-key", "POST", base+"/inbox/login", "", "key="+key,
							"Content-Type", "application/x-www-form-urlencoded")
					} else {
						rep, err = c.call(ctx, "wrong-key", "GET", base+"/v1/letters", key, "")
					}
					s.expect("wrong-key", rep, err, http.StatusUnauthorized, http.StatusTooManyRequests)
				}
			})
		}
		wg.Wait()
		pause(ctx, 10*time.Second)
	}
}

// slowHeaders keeps conns connections from each of ips to each server,
// each sending its headers a byte a second and never finishing them: more
// than --max-conns (1,024) in all at each server, and from one address
// more than --max-conns-per-client (256). The server closes each after
// its 10 s header timeout, or to make room, or refuses it at once with a
// 503; it is then opened again.
func (s *soak) slowHeaders(ctx context.Context, servers []*soakServer, ips []string, conns func(ip string) int) {
	var wg sync.WaitGroup
	for _, srv := range servers {
		for _, ip := range ips {
			for i := range conns(ip) {
				wg.Go(func() { s.slowConn(ctx, srv, ip, uint64(i)) })
			}
		}
	}
	wg.Wait()
}

func (s *soak) slowConn(ctx context.Context, srv *soakServer, ip string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	pause(ctx, time.Duration(rng.IntN(10_000))*time.Millisecond)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	buf := make([]byte, 512)
	for ctx.Err() == nil {
		c, err := d.DialContext(ctx, "tcp", srv.addr)
		if err != nil {
			s.counts.addRaw("slow-headers (no dial)", 0) // the server is down
			pause(ctx, 500*time.Millisecond)
			continue
		}
		_, err = io.WriteString(c, "GET /v1/letters HTTP/1.1\r\nHost: soak\r\nX-Slow: ")
		outcome := 0
		for err == nil && ctx.Err() == nil {
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			var n int
			n, err = c.Read(buf)
			if n > 0 {
				// The only answer before the headers end is a refusal.
				outcome = statusOf(buf[:n])
				break
			}
			if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
				_, err = c.Write([]byte{'a'})
			}
		}
		c.Close()
		if ctx.Err() != nil {
			return
		}
		// 0: closed without an answer (the header timeout, or room made);
		// else the status the server answered with (503 over a cap).
		s.counts.addRaw("slow-headers (conns)", outcome)
	}
}

// statusOf reads the status of an HTTP/1.1 answer's first bytes, or -1.
func statusOf(b []byte) int {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 3 {
		return -1
	}
	code, err := strconv.Atoi(string(rest[:3]))
	if err != nil {
		return -1
	}
	return code
}

// oddities sends the requests whose handling was once wrong: a NUL in a
// query, two X-Api-Key headers, a key that is not UTF-8, and paths that try
// to leave the inbox's static files. Each must be refused with a problem.
func (s *soak) oddities(ctx context.Context, c *soakClient, key string) {
	tricks := []string{
		"/inbox/static/%2e%2e/inbox.go",
		"/inbox/static/%2e%2e/templates/login.html",
		"/inbox/static/%2E%2E/%2E%2E/go.mod",
		"/inbox/static/../templates/letters.html",
		"/inbox/static/..%2finbox.go",
		"/inbox/static/",
		"/inbox/static//style.css",
		"/inbox/static/./style.css",
		"/inbox/static/templates",
	}
	for n := 0; ctx.Err() == nil; n++ {
		base := s.pairURL(n)
		switch n % 5 {
		case 0:
			rep, err := c.call(ctx, "odd-nul-query", "GET", base+"/v1/letters?externalId=%00", key, "")
			if s.expect("odd-nul-query", rep, err, http.StatusBadRequest) && !bytes.Contains(rep.body, []byte("externalId")) {
				s.counts.wrong("odd-nul-query: the problem does not name externalId: " + clip(rep.body, 300))
			}
		case 1:
			req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), "GET", base+"/v1/letters", nil)
			req.Header["X-Api-Key"] = []string{key, "sk_test_soak_other"}
			rep, err := c.send("odd-two-keys", req)
			if s.expect("odd-two-keys", rep, err, http.StatusBadRequest) && !bytes.Contains(rep.body, []byte("X-Api-Key")) {
				s.counts.wrong("odd-two-keys: the problem does not name X-Api-Key: " + clip(rep.body, 300))
			}
		case 2:
			// Unknown keys, so failures: past 100 a minute, 429s.
			req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), "GET", base+"/v1/letters", nil)
			req.Header["X-Api-Key"] = []string{"sk_test_\xff\xfe" + fmt.Sprint(n)}
			rep, err := c.send("odd-non-utf8-key", req)
			s.expect("odd-non-utf8-key", rep, err, http.StatusUnauthorized, http.StatusTooManyRequests)
		default:
			p := tricks[n%len(tricks)]
			req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), "GET", base+p, nil)
			req.URL.Opaque = p // sent as written: no cleaning, no re-escaping
			rep, err := c.send("odd-static-path", req)
			if s.expect("odd-static-path "+p, rep, err, http.StatusNotFound) &&
				!strings.HasPrefix(rep.header.Get("Content-Type"), "application/problem+json") {
				s.counts.wrong(fmt.Sprintf("odd-static-path %s: a 404 of type %q: %s", p, rep.header.Get("Content-Type"), clip(rep.body, 200)))
			}
		}
		pause(ctx, 100*time.Millisecond)
	}
}

// webhookReplays makes a webhook under an idempotency key, each in a
// fresh account, and sends the create again to either server: the replay
// answers the webhook without its secret, which is shown once.
func (s *soak) webhookReplays(ctx context.Context) {
	rng := rand.New(rand.NewPCG(13, 13))
	for n := 0; ctx.Err() == nil; n++ {
		key := fmt.Sprintf("sk_test_soak_webhook_%d", n)
		ik := fmt.Sprintf("soak-webhook-%d", n)
		body := `{"url":"http://127.0.0.1:9/soak/` + ik + `","description":"replayed"}`
		first, ok := s.keyedOnce(rng, "webhook-create", "/v1/webhooks", key, body, ik)
		if !ok {
			continue
		}
		var wh struct{ ID, Secret string }
		if first.status != http.StatusCreated || json.Unmarshal(first.body, &wh) != nil || wh.ID == "" {
			s.counts.wrong(fmt.Sprintf("webhook-create: %d %s", first.status, clip(first.body, 300)))
			continue
		}
		if wh.Secret == "" {
			// The first answer was lost to a kill; the retry was a replay.
			s.webhookSecretsLost.Add(1)
		}
		for range 1 + rng.IntN(2) {
			again, ok := s.keyedOnce(rng, "webhook-replay", "/v1/webhooks", key, body, ik)
			if !ok {
				break
			}
			s.webhookReplaysChecked.Add(1)
			var got struct{ ID string }
			_ = json.Unmarshal(again.body, &got)
			switch {
			case again.status != http.StatusCreated || got.ID != wh.ID || again.header.Get("Idempotent-Replayed") != "true":
				s.counts.wrong(fmt.Sprintf("webhook-replay of %s: %d replayed=%q %s", wh.ID, again.status,
					again.header.Get("Idempotent-Replayed"), clip(again.body, 300)))
			case bytes.Contains(again.body, []byte(`"secret"`)) || bytes.Contains(again.body, []byte("whsec_")) ||
				(wh.Secret != "" && bytes.Contains(again.body, []byte(wh.Secret))):
				s.webhookSecretsReplayed.Add(1)
				s.counts.wrong(fmt.Sprintf("webhook-replay of %s shows a secret: %s", wh.ID, clip(again.body, 300)))
			}
		}
		pause(ctx, 200*time.Millisecond)
	}
}

// controls uses many fresh sandbox keys on the test-clock server, each
// setting faults and filling its journal: together they soon pass the
// 64 MiB the server keeps of them, so whole accounts go, and a key whose
// faults went is answered 410 once. Each key sets faults whose paths are
// near their limit of 1,024 bytes, and sends five requests whose paths are
// 60,000 bytes, which its journal keeps up to 256 KiB. Several run side by
// side, told apart by g.
func (s *soak) controls(ctx context.Context, c *soakClient, g int) {
	rng := rand.New(rand.NewPCG(17, uint64(g)))
	long := `{"path":"/nowhere/` + strings.Repeat("p", 1000) + `","status":429}`
	junk := "/v1/letters/ltr_" + strings.Repeat("j", 60_000)
	base := s.clock.url()
	var keys []string
	for n := 0; ctx.Err() == nil; n++ {
		key := fmt.Sprintf("sk_test_soak_controls_%d_%d", g, n)
		keys = append(keys, key)
		for range 3 {
			rep, err := c.call(ctx, "controls-fault", "POST", base+"/_test/faults", key, long)
			s.expect("controls-fault", rep, err, http.StatusCreated)
		}
		rep, err := c.call(ctx, "controls-fault", "POST", base+"/_test/faults", key, `{"method":"GET","path":"/letters","status":429,"times":1}`)
		s.expect("controls-fault", rep, err, http.StatusCreated)
		rep, err = c.call(ctx, "controls-faulted", "GET", base+"/v1/letters", key, "")
		s.expect("controls-faulted", rep, err, http.StatusTooManyRequests)
		for range 5 {
			rep, err = c.call(ctx, "controls-long-path", "GET", base+junk, key, "")
			if s.expect("controls-long-path", rep, err, http.StatusBadRequest, http.StatusNotFound) && len(rep.body) > 2048 {
				s.counts.wrong(fmt.Sprintf("controls-long-path: an answer of %d bytes to a long path: %s", len(rep.body), clip(rep.body, 300)))
			}
		}
		rep, err = c.call(ctx, "controls-journal", "GET", base+"/_test/requests", key, "")
		var j struct{ Items []struct{ Status int } }
		if s.expect("controls-journal", rep, err, http.StatusOK) && (json.Unmarshal(rep.body, &j) != nil || len(j.Items) == 0 || len(rep.body) > 300<<10) {
			s.counts.wrong(fmt.Sprintf("controls-journal: a journal of %d entries in %d bytes: %s", len(j.Items), len(rep.body), clip(rep.body, 300)))
		}
		if n > 0 && rng.IntN(3) == 0 {
			// An older key: its faults are there, or went with the
			// account and are answered 410 once.
			old := keys[rng.IntN(len(keys)-1)]
			rep, err := c.call(ctx, "controls-old-key", "GET", base+"/_test/faults", old, "")
			s.expect("controls-old-key", rep, err, http.StatusOK, http.StatusGone)
		}
		pause(ctx, 20*time.Millisecond)
	}
}
