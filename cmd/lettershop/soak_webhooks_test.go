//go:build soak

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/webhook"
)

// lateAfter is when a webhook event counts as late: five seconds from its
// creation to its receipt. A server looks for due events each second (and
// at once after a write of its own), so a receiver that answers at once
// gets its events in about a second even on two busy cores; an event that
// waited behind one attempt at the hanging receiver waits its 10 s timeout,
// twice this.
const lateAfter = 5 * time.Second

// soakReceiver is a webhook endpoint of one account. A fast one answers 204
// at once; a hanging one reads the event and then answers nothing until the
// soak ends, so that every attempt at it lasts the server's whole webhook
// timeout.
type soakReceiver struct {
	name    string
	hang    bool
	release <-chan struct{}

	mu     sync.Mutex
	secret string
	// events holds each event received, by id, as first received.
	events     map[string]*soakEvent
	arrivals   int
	duplicates int
	// badSignatures keeps what failed the signature check.
	badSignatures []string
}

// soakEvent is one event as a receiver got it.
type soakEvent struct {
	id, typ, letterID, externalID string
	createdAt, receivedAt         time.Time
}

func (r *soakReceiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

func (r *soakReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	if err != nil {
		return
	}
	var e struct {
		ID        string    `json:"id"`
		Type      string    `json:"type"`
		CreatedAt time.Time `json:"createdAt"`
		Data      struct {
			Object struct {
				ID         string `json:"id"`
				ExternalID string `json:"externalId"`
			} `json:"object"`
		} `json:"data"`
	}
	decodeErr := json.Unmarshal(body, &e)
	r.mu.Lock()
	r.arrivals++
	if err := webhook.VerifyAt(r.secret, req.Header.Get(webhook.SignatureHeader), body, 5*time.Minute, at); err != nil || decodeErr != nil {
		if len(r.badSignatures) < 10 {
			r.badSignatures = append(r.badSignatures, fmt.Sprintf("%v %v: %s", err, decodeErr, clip(body, 200)))
		}
	} else if _, seen := r.events[e.ID]; seen {
		r.duplicates++
	} else {
		r.events[e.ID] = &soakEvent{id: e.ID, typ: e.Type, letterID: e.Data.Object.ID, externalID: e.Data.Object.ExternalID,
			createdAt: e.CreatedAt, receivedAt: at}
	}
	r.mu.Unlock()
	if r.hang {
		<-r.release
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// missing returns the ids of want not received yet.
func (r *soakReceiver) missing(want map[string]bool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id := range want {
		if r.events[id] == nil {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// received returns a copy of the events received.
func (r *soakReceiver) received() []soakEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]soakEvent, 0, len(r.events))
	for _, e := range r.events {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].receivedAt.Before(out[j].receivedAt) })
	return out
}

// soakReceivers serves every receiver on one loopback listener, each
// under /NAME.
type soakReceivers struct {
	srv     *http.Server
	base    string
	release chan struct{}
	all     map[string]*soakReceiver
}

func startReceivers(t *testing.T, names map[string]bool) *soakReceivers {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rs := &soakReceivers{base: "http://" + ln.Addr().String(), release: make(chan struct{}), all: map[string]*soakReceiver{}}
	mux := http.NewServeMux()
	for name, hang := range names {
		r := &soakReceiver{name: name, hang: hang, release: rs.release, events: map[string]*soakEvent{}}
		rs.all[name] = r
		mux.Handle("POST /"+name, r)
	}
	rs.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go rs.srv.Serve(ln)
	return rs
}

// stop lets the hanging handlers return, and closes the listener.
func (rs *soakReceivers) stop() {
	select {
	case <-rs.release:
	default:
		close(rs.release)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = rs.srv.Shutdown(ctx)
}

// makeWebhook gives the account of key a webhook posting to r, and tells r
// its secret.
func makeWebhook(t *testing.T, c *soakClient, base, key string, rs *soakReceivers, r *soakReceiver) {
	t.Helper()
	rep, err := c.call(context.Background(), "setup", "POST", base+"/v1/webhooks", key, `{"url":"`+rs.base+"/"+r.name+`"}`)
	var wh struct{ Secret string }
	if err != nil || rep.status != http.StatusCreated || json.Unmarshal(rep.body, &wh) != nil || wh.Secret == "" {
		t.Fatalf("webhook for %s: %d %s %v", r.name, rep.status, rep.body, err)
	}
	r.setSecret(wh.Secret)
}

// accountEvents returns the ids of every event of every letter of the
// account of key, as the server at base lists them.
func accountEvents(ctx context.Context, c *soakClient, base, key string) (map[string]bool, error) {
	ids := map[string]bool{}
	token := ""
	for {
		u := base + "/v1/letters?pageSize=100"
		if token != "" {
			u += "&nextToken=" + token
		}
		rep, err := c.call(ctx, "check", "GET", u, key, "")
		if err != nil {
			return nil, err
		}
		if rep.status != http.StatusOK {
			return nil, fmt.Errorf("list letters: %d %s", rep.status, clip(rep.body, 300))
		}
		var page struct {
			Items []struct {
				Events []struct{ ID string }
			}
			NextToken string
		}
		if err := json.Unmarshal(rep.body, &page); err != nil {
			return nil, err
		}
		for _, l := range page.Items {
			for _, e := range l.Events {
				ids[e.ID] = true
			}
		}
		if page.NextToken == "" {
			return ids, nil
		}
		token = page.NextToken
	}
}

// delayReport sums up how long a receiver's events took from their
// origin to their receipt.
type delayReport struct {
	worst            time.Duration
	worstEvent       soakEvent
	p50, p90, p99    time.Duration
	late             []string
	unplaced, placed int
}

// delays measures, for each event received, how long it took from its
// origin to its receipt; origin says when an event came to be, false when
// it cannot tell. kills are the times servers were killed: a late event
// made before one and received after it is marked so.
func delays(events []soakEvent, origin func(soakEvent) (time.Time, bool), kills []time.Time) delayReport {
	var r delayReport
	var all []time.Duration
	for _, e := range events {
		at, ok := origin(e)
		if !ok {
			r.unplaced++
			continue
		}
		d := e.receivedAt.Sub(at)
		all = append(all, d)
		if d > r.worst {
			r.worst, r.worstEvent = d, e
		}
		if d > lateAfter {
			why := ""
			for _, k := range kills {
				if !k.Before(at.Add(-time.Second)) && k.Before(e.receivedAt) {
					why = ", a server was killed in between"
				}
			}
			r.late = append(r.late, fmt.Sprintf("%s %s of %s after %s (made %s, received %s%s)", e.id, e.typ, e.letterID,
				d.Round(time.Millisecond), at.Format("15:04:05.000"), e.receivedAt.Format("15:04:05.000"), why))
		}
	}
	r.placed = len(all)
	if len(all) > 0 {
		slices.Sort(all)
		at := func(q float64) time.Duration { return all[min(len(all)-1, int(q*float64(len(all))))] }
		r.p50, r.p90, r.p99 = at(0.5), at(0.9), at(0.99)
	}
	return r
}

// clockDriver makes an account's letters and moves its clock, on a server
// with a test clock, so that its letters go through their whole lifecycle
// (created, ready, inProduction, mailed, then the tracking events) in
// minutes: the events the servers without a test clock would make only
// over days.
//
// On a test clock an event's createdAt is the account's time, not the wall
// clock, so the driver notes when each of its requests was sent: an event
// can have been made no earlier than the start of the request that moved
// the clock past it (or that created its letter). Its delay is measured
// from then, which can only make it longer than it was.
type clockDriver struct {
	c          *soakClient
	server     *soakServer
	key, asset string
	role       string

	ops     []clockOp
	creates map[string]time.Time // externalId -> when its create was sent
	letters int
}

// clockOp is one move of the account's clock: sent at start, from before
// to after.
type clockOp struct {
	start, before, after time.Time
	took                 time.Duration
}

func (d *clockDriver) run(ctx context.Context, t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	d.creates = map[string]time.Time{}
	rep, err := d.c.call(ctx, "clock-read", "GET", d.server.url()+"/_test/clock", d.key, "")
	var clk struct{ Now time.Time }
	if err != nil || rep.status != http.StatusOK || json.Unmarshal(rep.body, &clk) != nil {
		t.Errorf("clock of %s: %d %s %v", d.role, rep.status, rep.body, err)
		return
	}
	now := clk.Now
	for n := 0; ctx.Err() == nil; n++ {
		for i := range 1 + rng.IntN(2) {
			ext := fmt.Sprintf("clock-%s-%d-%d", d.role, n, i)
			body := withExternalID(letterJSON(d.asset), ext)
			start := time.Now()
			rep, err := d.c.call(ctx, "clock-create", "POST", d.server.url()+"/v1/letters", d.key, body)
			if err == nil && rep.status == http.StatusCreated {
				d.creates[ext] = start
				d.letters++
			} else if err == nil {
				d.c.counts.wrong(fmt.Sprintf("clock-create: %d %s", rep.status, clip(rep.body, 300)))
			}
		}
		by := time.Duration(1+rng.IntN(30)) * time.Hour
		start := time.Now()
		rep, err := d.c.call(ctx, "clock-advance", "POST", d.server.url()+"/_test/clock/advance", d.key, `{"duration":"`+by.String()+`"}`)
		if err == nil && rep.status == http.StatusOK && json.Unmarshal(rep.body, &clk) == nil {
			d.ops = append(d.ops, clockOp{start: start, before: now, after: clk.Now, took: time.Since(start)})
			now = clk.Now
		} else if err == nil {
			d.c.counts.wrong(fmt.Sprintf("clock-advance: %d %s", rep.status, clip(rep.body, 300)))
		}
		pause(ctx, 150*time.Millisecond)
	}
}

// origin is when an event of the driver's account can first have been
// made: the send of its letter's create for the first event, else the send
// of the clock move that passed the event's time.
func (d *clockDriver) origin(e soakEvent) (time.Time, bool) {
	if e.typ == "letter.created" {
		at, ok := d.creates[e.externalID]
		return at, ok
	}
	i := sort.Search(len(d.ops), func(i int) bool { return !d.ops[i].after.Before(e.createdAt) })
	if i < len(d.ops) && d.ops[i].before.Before(e.createdAt) {
		return d.ops[i].start, true
	}
	// An event made at the create itself (a recipient at issue).
	at, ok := d.creates[e.externalID]
	return at, ok
}

// advances sums up how long the clock moves took to answer: the most an
// event's measured delay can exceed its true one.
func (d *clockDriver) advances() string {
	if len(d.ops) == 0 {
		return "no clock moves"
	}
	took := make([]time.Duration, len(d.ops))
	for i, op := range d.ops {
		took[i] = op.took
	}
	slices.Sort(took)
	return fmt.Sprintf("%d clock moves of %d letters, answered in %s at the median, %s at worst",
		len(took), d.letters, took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
