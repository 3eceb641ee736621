package httpadapter

// This file holds the faults a test injects into an account's requests,
// and TestControls, which keeps them and the journal (journal.go) per
// account. Both exist only with WithTestClock.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/echo"
)

// Fault says how some of an account's requests are answered instead of (or
// after) being served. It matches a request by Method ("" for any) and Path,
// a path.Match pattern of the path without /v1 ("" for any; "/letters/*"
// matches /letters/ltr_1 and /v1/letters/ltr_1, not /letters/ltr_1/cancel);
// a pattern written with /v1 ("/v1/letters") matches as it does without.
// The /_test routes are never faulted.
//
// A matching request waits Latency, then:
//   - with AfterWrite, it is served (the write happens: a letter is made, an
//     idempotency key is stored), and its answer is thrown away and replaced
//     by Status (500 unless set) or, with CloseConnection, by a closed
//     connection: the case idempotency keys exist for;
//   - otherwise, with CloseConnection, the connection is closed unanswered;
//     with Status, it is answered Status with the service's own problem body
//     and headers, whose detail names the fault; with neither, it is served
//     late. An injected 429 is a rate-limited problem and an injected 409 a
//     request-in-flight one (the conflict a client retries), both with
//     Retry-After (RetryAfter, 1 second when not set): seconds from now, so
//     a client on the wall clock waits no longer than one on the account's
//     test clock. A 429 carries X-Rate-Limit-* and P-RateLimit-* only when
//     the server has a rate limit.
//
// Times limits the fault to the next Times matching requests (0: every one
// until removed); Probability (0 < p < 1) makes each matching request fault
// with that chance, drawn from the controls' seeded source, so a failed run
// replays with the same seed (0 or 1: every time).
type Fault struct {
	// ID names the fault; AddFault sets it.
	ID              string
	Method          string
	Path            string
	Status          int
	Latency         time.Duration
	CloseConnection bool
	AfterWrite      bool
	Times           int
	Probability     float64
	// RetryAfter is the Retry-After of the answer, with Status 429, 409 or
	// 503 (at most a day); an injected 429 or 409 without it says 1 second.
	RetryAfter time.Duration
}

// validate checks f as a request sets it, naming the field at fault. A
// message quotes no more than the start of what was sent.
func (f Fault) validate() error {
	fe := map[string]string{}
	switch {
	case len(f.Method) > maxFaultMethod:
		fe["method"] = fmt.Sprintf("must be at most %d bytes, got %d (%s)", maxFaultMethod, len(f.Method), echo.Quote(f.Method))
	case f.Method != "" && (strings.ToUpper(f.Method) != f.Method || strings.ContainsAny(f.Method, " /")):
		fe["method"] = fmt.Sprintf("must be an HTTP method in capitals (GET, POST, PUT, DELETE), got %s", echo.Quote(f.Method))
	}
	switch {
	case len(f.Path) > MaxFaultPath:
		fe["path"] = fmt.Sprintf("must be at most %d bytes, got %d (%s)", MaxFaultPath, len(f.Path), echo.Quote(f.Path))
	case f.Path != "":
		if _, err := path.Match(f.Path, "/"); err != nil || !strings.HasPrefix(f.Path, "/") {
			fe["path"] = fmt.Sprintf("must be a path pattern beginning with / (such as /letters or /letters/*), got %s", echo.Quote(f.Path))
		} else if f.Path != "/" && (strings.HasSuffix(f.Path, "/") || strings.Contains(f.Path, "//")) {
			fe["path"] = fmt.Sprintf("has an empty segment, which no route's path has, so it would match nothing (write /letters or /letters/*), got %s", echo.Quote(f.Path))
		}
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		fe["status"] = fmt.Sprintf("must be an error status, 400 to 599, got %d", f.Status)
	}
	if f.Latency < 0 || f.Latency > maxFaultLatency {
		fe["latency"] = fmt.Sprintf("must be from 0 to %s, got %s", maxFaultLatency, f.Latency)
	}
	switch {
	case f.RetryAfter < 0 || f.RetryAfter > maxFaultRetryAfter:
		fe["retryAfter"] = fmt.Sprintf("must be from 0 to %s, got %s", maxFaultRetryAfter, f.RetryAfter)
	case f.RetryAfter > 0 && f.Status != http.StatusTooManyRequests && f.Status != http.StatusConflict && f.Status != http.StatusServiceUnavailable:
		fe["retryAfter"] = fmt.Sprintf("goes with status 429, 409 or 503, got status %d", f.Status)
	}
	if f.Times < 0 {
		fe["times"] = fmt.Sprintf("must not be negative, got %d", f.Times)
	}
	if f.Probability < 0 || f.Probability > 1 {
		fe["probability"] = fmt.Sprintf("must be from 0 to 1, got %g", f.Probability)
	}
	if f.Status != 0 && f.CloseConnection {
		fe["status"] = "give status or closeConnection, not both"
	}
	if f.Status == 0 && f.Latency == 0 && !f.CloseConnection && !f.AfterWrite {
		fe["status"] = "give what the fault does: status, latency, closeConnection or afterWrite"
	}
	if len(fe) == 0 {
		return nil
	}
	return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the fault is invalid", Fields: fe}
}

// MaxFaultPath is the longest path pattern a fault takes, in bytes.
const MaxFaultPath = 1024

// maxFaultMethod and maxFaultLatencyText bound a fault's other strings, in
// bytes: a method name, and a duration as sent ("150ms").
const (
	maxFaultMethod      = 32
	maxFaultLatencyText = 64
)

// MaxFaults is the most faults an account has at once. Each of its
// requests tries them in turn; a fault past this is refused.
const MaxFaults = 1000

// maxFaultRetryAfter is the longest Retry-After a fault sets: a day, as
// long as a test on a virtual clock may want its client to wait.
const maxFaultRetryAfter = 24 * time.Hour

// maxFaultLatency is the longest latency a fault adds: a minute, past any
// client's timeout worth testing and short of the server's write timeout.
const maxFaultLatency = time.Minute

func (f Fault) matches(r *http.Request) bool {
	if f.Method != "" && f.Method != r.Method {
		return false
	}
	if f.Path == "" {
		return true
	}
	ok, _ := matchPath(withoutV1(f.Path), withoutV1(r.URL.Path))
	return ok
}

// matchPath is path.Match; tests watch its calls.
var matchPath = path.Match

// MaxFaultMatchWork bounds the work of matching one request against its
// account's faults, in units of matchWork. Matching a path of n bytes
// against a pattern of p bytes with a * takes up to n×p steps (the * is
// tried at each place): without a bound, 1,000 faults of 1,024 bytes
// against a path of 60,000 took minutes of a core for one request. Every
// pattern a route's path needs (hundreds of faults of tens of bytes
// against paths of under a hundred) is well within it; past it, the
// account's later faults do not meet the request.
const MaxFaultMatchWork = 8 << 20

// matchWork is what matching f's pattern against the path p may cost at
// most, with a margin: the product of their lengths for a pattern with a *,
// their sum otherwise.
func matchWork(f *Fault, p string) int {
	if f.Path == "" {
		return 1
	}
	if strings.Contains(f.Path, "*") {
		return (len(f.Path) + 1) * (len(p) + 1)
	}
	return len(f.Path) + len(p) + 1
}

// withoutV1 is p without its /v1 prefix, if it has one: requests and
// fault patterns alike, so that /v1/letters matches as /letters does.
func withoutV1(p string) string {
	if rest, ok := strings.CutPrefix(p, "/v1/"); ok {
		return "/" + rest
	}
	return p
}

// AddFault adds f to the account's faults, after those it has, and returns
// it with its ID. An invalid fault is a lettershop.Error of CodeInvalid
// naming the field, and so is one past MaxFaults, naming body.
func (tc *TestControls) AddFault(account string, f Fault) (Fault, error) {
	if err := f.validate(); err != nil {
		return Fault{}, err
	}
	if f.Probability == 0 {
		f.Probability = 1
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	a := tc.account(account)
	if len(a.faults) >= MaxFaults {
		return Fault{}, invalid("body", "the account has %d faults, the most it keeps; remove them with DELETE /_test/faults (ClearFaults)", MaxFaults)
	}
	tc.seq++
	f.ID = "flt_" + strconv.Itoa(tc.seq)
	a.faults = append(a.faults, &f)
	n := faultSize(&f)
	a.faultBytes += n
	tc.relist(a)
	tc.grow(a, n)
	return f, nil
}

// Faults returns the account's faults in force, in the order they are
// tried; Times is what is left of each.
func (tc *TestControls) Faults(account string) []Fault {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := []Fault{}
	if a := tc.lookup(account); a != nil {
		for _, f := range a.faults {
			out = append(out, *f)
		}
	}
	return out
}

// ClearFaults removes the account's faults, and with them the notice of
// faults the account had dropped (see TestControls): a test that clears its
// faults no longer counts on them.
func (tc *TestControls) ClearFaults(account string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.dropped.Remove(account)
	if a := tc.lookup(account); a != nil {
		tc.bytes -= a.faultBytes
		a.faults, a.faultBytes = nil, 0
		tc.relist(a)
	}
}

// random returns the source of the faults' draws, made on first use.
// tc.mu is held.
func (tc *TestControls) random() *rand.Rand {
	if tc.rnd == nil {
		tc.rnd = rand.New(rand.NewSource(tc.seed))
	}
	return tc.rnd
}

// pick returns the fault r meets, if any, counting it off, and the sleep
// function to wait out its latency with. The faults are matched against r
// outside tc.mu, so that one account's patterns, however costly, hold up
// no other account's requests; their Method and Path never change once
// added. Matching stops at MaxFaultMatchWork.
func (tc *TestControls) pick(account string, r *http.Request) (*Fault, func(context.Context, time.Duration) error) {
	tc.mu.Lock()
	a := tc.lookup(account)
	if a == nil || len(a.faults) == 0 {
		tc.mu.Unlock()
		return nil, nil
	}
	faults := slices.Clone(a.faults)
	tc.mu.Unlock()

	var matched []*Fault
	work, p := 0, withoutV1(r.URL.Path)
	for _, f := range faults {
		if work += matchWork(f, p); work > MaxFaultMatchWork {
			break
		}
		if f.matches(r) {
			matched = append(matched, f)
		}
	}
	if len(matched) == 0 {
		return nil, nil
	}

	tc.mu.Lock()
	defer tc.mu.Unlock()
	if a = tc.lookup(account); a == nil {
		return nil, nil
	}
	for _, f := range matched {
		i := slices.Index(a.faults, f)
		if i < 0 {
			continue // cleared, dropped or used up meanwhile
		}
		if f.Probability < 1 && tc.random().Float64() >= f.Probability {
			continue
		}
		picked := *f
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				a.faults = slices.Delete(a.faults, i, i+1)
				n := faultSize(f)
				a.faultBytes -= n
				tc.bytes -= n
				tc.relist(a)
			}
		}
		return &picked, tc.sleep
	}
	return nil, nil
}

// controlled is the handler with faults and the journal in front.
type controlled struct {
	h  *handler
	tc *TestControls
}

// withControls puts faults and the journal in front of h when the test
// routes are on.
func (h *handler) withControls() http.Handler {
	if h.cfg.testClock == nil {
		return h
	}
	return &controlled{h: h, tc: h.cfg.controls}
}

func (c *controlled) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_test/") {
		if c.tc.anyDropped() && !(r.Method == http.MethodDelete && r.URL.Path == "/_test/faults") {
			var account string
			if account, r = c.accountOf(r); account != "" && c.toldDropped(w, r, account) {
				return
			}
		}
		c.h.ServeHTTP(w, r)
		return
	}
	account, r := c.accountOf(r)
	if account == "" {
		c.h.ServeHTTP(w, r)
		return
	}
	jw := &journalWriter{ResponseWriter: w}
	body := &countingBody{ReadCloser: r.Body}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = body
	}
	e := JournalEntry{
		Time:           c.h.svc.AccountNow(account),
		Method:         r.Method,
		Path:           r.URL.Path,
		IdempotencyKey: r.Header.Get(headerIdempotencyKey),
	}
	defer func() {
		e.Status = jw.status
		e.RequestBytes = body.n
		e.ResponseBytes = jw.n
		e.RequestID = jw.Header().Get(headerRequestID)
		e.Replayed = jw.Header().Get(headerReplayed) == "true"
		c.tc.record(account, e)
	}()
	if c.tc.anyDropped() && c.toldDropped(jw, r, account) {
		return
	}
	f, sleep := c.tc.pick(account, r)
	if f == nil {
		c.h.ServeHTTP(jw, r)
		return
	}
	e.Fault = f.ID
	if f.Latency > 0 {
		if err := sleep(r.Context(), f.Latency); err != nil {
			return // the client went away
		}
	}
	switch {
	case f.AfterWrite:
		rec := &statusRecorder{header: http.Header{}}
		c.h.ServeHTTP(rec, r)
		if f.CloseConnection {
			jw.aborted()
			panic(http.ErrAbortHandler)
		}
		status := f.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		c.answer(jw, r, account, f, status)
	case f.CloseConnection:
		jw.aborted()
		panic(http.ErrAbortHandler)
	case f.Status != 0:
		c.answer(jw, r, account, f, f.Status)
	default:
		c.h.ServeHTTP(jw, r)
	}
}

// toldDropped answers 410 when the account's faults were dropped while
// they had uses left (see TestControls), and reports whether it did: the
// test would otherwise go on without them and never know.
func (c *controlled) toldDropped(w http.ResponseWriter, r *http.Request, account string) bool {
	d, ok := c.tc.takeDropped(account)
	if !ok {
		return false
	}
	h := w.Header()
	everyAnswer(h, newRequestID())
	keptByNone(h)
	writeProblem(w, problem{Code: "faults-dropped", Title: "Faults dropped", Status: http.StatusGone,
		Detail: fmt.Sprintf("this account's faults %s were dropped while they had uses left, to keep the server's test controls "+
			"within their bound (too many accounts held faults or journals); set them again. This is said once", d)})
	return true
}

// accountOf returns the account of r's API key, "" without a valid one,
// and r with what the Authenticator said in its context, for the route to
// use rather than ask again. An authenticator that panics is left to the
// handler, which answers 500.
func (c *controlled) accountOf(r *http.Request) (account string, out *http.Request) {
	defer func() {
		if recover() != nil {
			account, out = "", r
		}
	}()
	key, err := apiKeyOf(r)
	if err != nil || key == "" {
		return "", r
	}
	if ok, _ := c.h.cfg.authThrottle.Allow(ClientAddress(r), key); !ok {
		return "", r // the route answers 429 without looking at the key
	}
	p, err := c.h.askAuthenticator(r.Context(), key)
	r = r.WithContext(context.WithValue(r.Context(), authenticatedKey{}, &authenticated{key: key, p: p, err: err}))
	if err != nil {
		return "", r
	}
	return p.Account, r
}

// codeOfStatus maps a status back to the Code the service answers it for.
var codeOfStatus = map[int]lettershop.Code{}

func init() {
	for code, k := range codeKinds {
		if _, ok := codeOfStatus[k.status]; !ok || code == lettershop.CodeConflict {
			codeOfStatus[k.status] = code
		}
	}
}

// defaultRetryAfter is the Retry-After of an injected 429 or 409 whose
// fault does not set one.
const defaultRetryAfter = time.Second

// answer writes the problem the service answers status with, with the
// headers such an answer carries, saying that f injected it. An injected
// 429 or 409 (a request-in-flight problem, the conflict a client retries)
// carries Retry-After: seconds from now, which a client on the wall clock
// and one on the account's test clock read alike; the 429's
// X-Rate-Limit-Reset, sent only when the server has a rate limit, is that
// many seconds past the account's time, on the clock the limit is
// measured by.
func (c *controlled) answer(w http.ResponseWriter, r *http.Request, account string, f *Fault, status int) {
	reqID := newRequestID()
	h := w.Header()
	everyAnswer(h, reqID)
	keptByNone(h) // the answer to a request with an API key, as every one is
	ctx := context.WithValue(r.Context(), requestIDKey{}, reqID)
	wait := f.RetryAfter
	if wait <= 0 {
		wait = defaultRetryAfter
	}
	switch status {
	case http.StatusTooManyRequests:
		if n, per := c.h.cfg.rateN, c.h.cfg.ratePer; n > 0 && per > 0 {
			setRateHeaders(h, n, 0, ceilSecond(c.h.rateNow(account).Add(wait)))
		}
		s := RetryAfter(w, wait)
		writeProblem(w, problemFor(ctx, errorf(lettershop.CodeRateLimited,
			"a 429 injected by the test's fault %s (not a rate limit); retry after %ss (Retry-After)", f.ID, s)))
		return
	case http.StatusConflict:
		s := RetryAfter(w, wait)
		writeProblem(w, problemFor(ctx, errorf(lettershop.CodeInFlight,
			"a 409 injected by the test's fault %s: as if a request with the same idempotency key were in flight; retry after %ss (Retry-After)", f.ID, s)))
		return
	}
	if f.RetryAfter > 0 {
		RetryAfter(w, f.RetryAfter)
	}
	text := http.StatusText(status)
	if text == "" {
		text = "Error"
	}
	detail := fmt.Sprintf("a %d injected by the test's fault %s", status, f.ID)
	code, ok := codeOfStatus[status]
	if !ok {
		// A status no error of the service is answered with has the code
		// of any other status (as cmd/lettershop's own answers have), one
		// the document lists, rather than a name made up from its text.
		writeProblem(w, problem{Code: "http-error", Title: text, Status: status, Detail: detail})
		return
	}
	p := problemFor(ctx, errorf(code, "%s", detail))
	if code == lettershop.CodeInternal {
		// problemFor hides an internal error's cause; this one's cause is
		// the test's own fault, which a failing test's reader must see.
		p.Detail = detail + "; quote request id " + reqID + " when reporting it"
	}
	writeProblem(w, p)
}

// FaultJSON is a Fault on the wire, as POST /_test/faults takes it and
// GET /_test/faults answers it: Latency and RetryAfter as Go durations
// ("2s", "150ms"). The server sets ID. A Go test helper (lettershoptest)
// hands its faults to TestControls through it, so that they are read and
// refused as a request's are.
type FaultJSON struct {
	ID              string  `json:"id,omitempty"`
	Method          string  `json:"method,omitempty"`
	Path            string  `json:"path,omitempty"`
	Status          int     `json:"status,omitempty"`
	Latency         string  `json:"latency,omitempty"`
	CloseConnection bool    `json:"closeConnection,omitempty"`
	AfterWrite      bool    `json:"afterWrite,omitempty"`
	Times           int     `json:"times,omitempty"`
	Probability     float64 `json:"probability,omitempty"`
	RetryAfter      string  `json:"retryAfter,omitempty"`
}

// Fault reads j as a fault to add: its durations parsed, an ID refused
// (the server gives it). What is wrong is a lettershop.Error of
// CodeInvalid naming the field; AddFault checks the rest of the fault.
func (j FaultJSON) Fault() (Fault, error) {
	if j.ID != "" {
		return Fault{}, invalid("id", "is given by the server; leave it out")
	}
	f := Fault{Method: j.Method, Path: j.Path, Status: j.Status, CloseConnection: j.CloseConnection,
		AfterWrite: j.AfterWrite, Times: j.Times, Probability: j.Probability}
	for _, d := range []struct {
		field, text, example string
		to                   *time.Duration
	}{{"latency", j.Latency, `"2s" or "150ms"`, &f.Latency}, {"retryAfter", j.RetryAfter, `"30s" or "2h"`, &f.RetryAfter}} {
		if d.text == "" {
			continue
		}
		if len(d.text) > maxFaultLatencyText {
			return Fault{}, invalid(d.field, "must be at most %d bytes, got %d (%s)", maxFaultLatencyText, len(d.text), echo.Quote(d.text))
		}
		v, err := time.ParseDuration(d.text)
		if err != nil {
			return Fault{}, invalid(d.field, "must be a duration such as %s, got %s", d.example, echo.Quote(d.text))
		}
		*d.to = v
	}
	return f, nil
}

func faultToJSON(f Fault) FaultJSON {
	j := FaultJSON{ID: f.ID, Method: f.Method, Path: f.Path, Status: f.Status, CloseConnection: f.CloseConnection,
		AfterWrite: f.AfterWrite, Times: f.Times, Probability: f.Probability}
	if f.Latency > 0 {
		j.Latency = f.Latency.String()
	}
	if f.RetryAfter > 0 {
		j.RetryAfter = f.RetryAfter.String()
	}
	return j
}

// faultList is the body of GET /_test/faults.
type faultList struct {
	Items []FaultJSON `json:"items"`
}

func (h *handler) faultRoutes() {
	if h.cfg.controls == nil {
		h.cfg.controls = NewTestControls(1)
	}
	// The faults and the journal name the account's requests to any route,
	// its letters', assets' and webhooks' paths among them, and the journal
	// the Idempotency-Keys they carried: reading either takes a key that may
	// read all three.
	everyRead := []Scope{ScopeAssetsRead, ScopeWebhooksRead}
	h.handleTest(route{method: "GET", path: "/_test/faults", access: scoped, scope: ScopeLettersRead, also: everyRead, serve: h.listFaults})
	h.handleTest(route{method: "POST", path: "/_test/faults", access: scoped, scope: ScopeLettersWrite, serve: h.addFault})
	h.handleTest(route{method: "DELETE", path: "/_test/faults", access: scoped, scope: ScopeLettersWrite, serve: h.clearFaults})
	h.handleTest(route{method: "GET", path: "/_test/requests", access: scoped, scope: ScopeLettersRead, also: everyRead, serve: h.listRequests})
	h.handleTest(route{method: "DELETE", path: "/_test/requests", access: scoped, scope: ScopeLettersWrite, serve: h.clearRequests})
}

// noQuery refuses a query on a route that takes none, naming the first
// parameter, so that a typo never goes unnoticed.
func noQuery(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	slices.Sort(names)
	if err != nil || len(names) == 0 {
		return invalid("query", "this route takes no query parameters, got %s", echo.Quote(r.URL.RawQuery))
	}
	if len(names[0]) > echo.MaxRunes {
		return invalid("query", "this route takes no query parameters, got one named %s", echo.Quote(names[0]))
	}
	return invalid(names[0], "this route takes no query parameters")
}

func (h *handler) listFaults(w http.ResponseWriter, r *http.Request, c *call) {
	if err := noQuery(r); err != nil {
		h.fail(w, r, err)
		return
	}
	out := faultList{Items: []FaultJSON{}}
	for _, f := range h.cfg.controls.Faults(c.account) {
		out.Items = append(out.Items, faultToJSON(f))
	}
	jsonResponse(http.StatusOK, out).write(w)
}

// addFault adds a fault to the key's account; the answer is the fault with
// its id.
func (h *handler) addFault(w http.ResponseWriter, r *http.Request, c *call) {
	var in FaultJSON
	body, held, err := h.readBody(w, r, MaxJSONBody)
	if err == nil {
		err = decodeJSON(body, &in)
	}
	h.releaseBody(held)
	if err == nil {
		err = sentZeros(body)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := in.Fault()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err = h.cfg.controls.AddFault(c.account, f)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	jsonResponse(http.StatusCreated, faultToJSON(f)).write(w)
}

// sentZeros refuses a times or probability sent as 0. A Fault reads 0 in
// them as left out (every matching request, every time), the opposite of
// what a test that sends 0 (no request, no chance) means.
func sentZeros(body []byte) error {
	var z struct {
		Times       *int     `json:"times"`
		Probability *float64 `json:"probability"`
	}
	if json.Unmarshal(body, &z) != nil {
		return nil
	}
	fe := map[string]string{}
	if z.Times != nil && *z.Times == 0 {
		fe["times"] = "must be at least 1, got 0: leave times out for every matching request, or remove faults with DELETE /_test/faults"
	}
	if z.Probability != nil && *z.Probability == 0 {
		fe["probability"] = "must be above 0, got 0: a fault that never comes up does nothing; leave probability out for 1"
	}
	return invalidFields(fe)
}

func (h *handler) clearFaults(w http.ResponseWriter, _ *http.Request, c *call) {
	h.cfg.controls.ClearFaults(c.account)
	w.WriteHeader(http.StatusNoContent)
}
