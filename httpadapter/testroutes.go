package httpadapter

// This file holds everything that exists for tests only: the option that
// enables the /_test routes, the routes, and their handlers.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/await"
	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/internal/pdftext"
)

// WithTestClock enables the test routes under /_test/ (reading and moving
// the clock, advancing one letter, registering postal moves, faults and the
// request journal). m must be the clock the Service was made with: a
// *testclock.Clock, or a *clock.Mock. Without this option those routes do
// not exist.
//
// Each API key's account keeps a clock of its own: the clock routes read
// and move the caller's account's clock only (lettershop.Service's
// AdvanceAccountClock), so tests sharing one server never see each other's
// time. WithSharedTestClock makes them move m, for every account, instead.
//
// The rate limit stays on (150 requests per 5 seconds per key unless
// WithRateLimit says otherwise), measured on the key's account's clock
// unless WithRateLimitClock names another clock: a key that used up its
// bucket gets 429s until the test moves its clock on.
func WithTestClock(m lettershop.TestClock) Option { return func(c *config) { c.testClock = m } }

// WithSharedTestClock makes the clock routes act on the one clock of
// WithTestClock, which every account follows, as a single-tenant server
// wants: moving it moves every account's letters. Freezing an account's
// clock is then refused.
func WithSharedTestClock() Option { return func(c *config) { c.sharedClock = true } }

// The test routes exist only with WithTestClock. They act in the key's
// account and are not idempotent: a test that moves the clock twice means
// it. Reading the clock takes any valid API key; reading the faults or the
// journal takes letters:read, assets:read and webhooks:read (faults.go);
// the routes that change state take letters:write, as what they change is
// where letters are and where they go (moving the clock moves the letters
// along). The snapshot
// routes take a key with every scope: a snapshot is the whole account,
// its assets and its webhooks with their secrets too.
func (h *handler) testRoutes() {
	h.handleTest(route{method: "GET", path: "/_test/clock", access: anyKey, serve: h.getClock})
	h.handleTest(route{method: "POST", path: "/_test/clock/advance", access: scoped, scope: ScopeLettersWrite, serve: h.advanceClock})
	h.handleTest(route{method: "POST", path: "/_test/clock/set", access: scoped, scope: ScopeLettersWrite, serve: h.setClock})
	h.handleTest(route{method: "POST", path: "/_test/clock/freeze", access: scoped, scope: ScopeLettersWrite, serve: h.freezeClock(true)})
	h.handleTest(route{method: "POST", path: "/_test/clock/unfreeze", access: scoped, scope: ScopeLettersWrite, serve: h.freezeClock(false)})
	h.handleTest(route{method: "POST", path: "/_test/letters/{id}/advance", access: scoped, scope: ScopeLettersWrite, serve: h.advanceLetter})
	h.handleTest(route{method: "POST", path: "/_test/letters/{id}/await", access: scoped, scope: ScopeLettersWrite, serve: h.awaitLetter})
	h.handleTest(route{method: "GET", path: "/_test/letters/{id}/text", access: scoped, scope: ScopeLettersRead, serve: h.letterText})
	h.handleTest(route{method: "POST", path: "/_test/webhooks/settle", access: scoped, ownTime: true, scope: ScopeWebhooksRead, serve: h.settleWebhooks})
	h.handleTest(route{method: "POST", path: "/_test/moves", access: scoped, scope: ScopeLettersWrite, serve: h.registerMove})
	h.handleTest(route{method: "GET", path: "/_test/snapshot", access: scoped, scope: ScopeLettersRead, also: AllScopes, serve: h.getSnapshot})
	h.handleTest(route{method: "PUT", path: "/_test/snapshot", access: scoped, scope: ScopeLettersWrite, also: AllScopes, serve: h.putSnapshot})
	h.handleTest(route{method: "DELETE", path: "/_test/account", access: scoped, scope: ScopeLettersWrite, also: AllScopes, serve: h.eraseAccount})
	h.faultRoutes() // faults.go, journal.go
}

// MaxSnapshotBody is the largest snapshot PUT /_test/snapshot takes, in
// bytes: content travels in it, and a fixture's images and fonts with it.
const MaxSnapshotBody = 64 << 20

// getSnapshot answers the key's account's records and clock.
func (h *handler) getSnapshot(w http.ResponseWriter, r *http.Request, c *call) {
	if err := noQuery(r); err != nil {
		h.fail(w, r, err)
		return
	}
	snap, err := h.svc.SnapshotAccount(r.Context(), c.account)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, snap)
}

// restored is the answer of PUT /_test/snapshot: the snapshot's ids, each
// mapped to the id it was restored with.
type restored struct {
	IDs map[string]string `json:"ids"`
}

// putSnapshot restores a snapshot into the key's account, which must have
// no records yet: with fresh ids, or with ?keepIds=true its own.
func (h *handler) putSnapshot(w http.ResponseWriter, r *http.Request, c *call) {
	fields := map[string]string{}
	q := queryParams(r, fields)
	keep := boolParam(q, "keepIds", fields)
	onlyParams(q, fields, false, "keepIds")
	if err := invalidFields(fields); err != nil {
		h.fail(w, r, err)
		return
	}
	body, held, err := h.readBody(w, r, MaxSnapshotBody)
	defer h.releaseBody(held)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	snap, err := h.snapshotOf(body)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ids, err := h.svc.RestoreAccount(r.Context(), c.account, snap, lettershop.RestoreOptions{KeepIDs: keep, SharedClock: h.cfg.sharedClock})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, restored{IDs: ids})
}

// eraseAccount empties the key's account (Service.EraseAccount), and
// forgets its faults and journal: a suite whose tests share one key starts
// each test from an account as a new one, its clock aside, which stays.
func (h *handler) eraseAccount(w http.ResponseWriter, r *http.Request, c *call) {
	if err := noQuery(r); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.svc.EraseAccount(r.Context(), c.account); err != nil {
		h.fail(w, r, err)
		return
	}
	h.cfg.controls.ForgetAccount(c.account)
	w.WriteHeader(http.StatusNoContent)
}

// handleTest registers a test route, only bare: test routes live under /_test/.
func (h *handler) handleTest(rt route) { h.mux.route(rt, "") }

// clockState is the body of the clock routes.
type clockState struct {
	// Now is the time on the caller's account's clock.
	Now time.Time `json:"now"`
	// Frozen: the account's clock stays put when the server's clock moves.
	Frozen bool `json:"frozen"`
	// Shared: the clock is the server's, which every account follows.
	Shared bool `json:"shared"`
}

func (h *handler) clockState(account string) clockState {
	if h.cfg.sharedClock {
		return clockState{Now: h.svc.Now(), Shared: true}
	}
	c := h.svc.AccountClock(account)
	return clockState{Now: c.Now, Frozen: c.Frozen}
}

// getClock answers the clock as the store has it, another server's moves
// included (the answers to a move show the clock this server just moved).
func (h *handler) getClock(w http.ResponseWriter, r *http.Request, c *call) {
	if h.cfg.sharedClock {
		writeJSON(w, http.StatusOK, h.clockState(c.account))
		return
	}
	ac := h.svc.ReadAccountClock(r.Context(), c.account)
	writeJSON(w, http.StatusOK, clockState{Now: ac.Now, Frozen: ac.Frozen})
}

// advanceInput is the body of POST /_test/clock/advance: a Go duration
// ("72h", "90m", "1h30m").
type advanceInput struct {
	Duration string `json:"duration"`
}

// advanceClock moves the clock, then runs everything that fell due, so the
// answer describes a world that has caught up.
func (h *handler) advanceClock(w http.ResponseWriter, r *http.Request, c *call) {
	var in advanceInput
	if err := h.readJSON(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := time.ParseDuration(in.Duration)
	switch {
	case in.Duration == "":
		err = invalid("duration", `duration is required, for example "72h"`)
	case err != nil:
		err = invalid("duration", `must be a duration such as "72h" or "1h30m", got %s`, echo.Quote(in.Duration))
	case d < 0:
		err = invalid("duration", "the clock only moves forward, got %s", echo.Quote(in.Duration))
	case h.cfg.sharedClock:
		_, err = h.svc.AdvanceClock(r.Context(), d)
	default:
		_, err = h.svc.AdvanceAccountClock(r.Context(), c.account, d)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.clockState(c.account))
}

// setInput is the body of POST /_test/clock/set: the time to move the
// clock forward to.
type setInput struct {
	Now *time.Time `json:"now"`
}

// setClock moves the clock forward to an instant and runs what fell due.
func (h *handler) setClock(w http.ResponseWriter, r *http.Request, c *call) {
	var in setInput
	if err := h.readJSON(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	var err error
	switch {
	case in.Now == nil:
		err = invalid("now", `now is required, a time such as "2027-01-31T09:00:00Z"`)
	case h.cfg.sharedClock:
		_, err = h.svc.SetClock(r.Context(), *in.Now)
	default:
		_, err = h.svc.SetAccountClock(r.Context(), c.account, *in.Now)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.clockState(c.account))
}

// freezeClock freezes or unfreezes the caller's account's clock.
func (h *handler) freezeClock(frozen bool) func(http.ResponseWriter, *http.Request, *call) {
	return func(w http.ResponseWriter, r *http.Request, c *call) {
		if h.cfg.sharedClock {
			h.fail(w, r, errorf(lettershop.CodeConflict, "the test clock is shared by every account and moves only when told; there is no account clock to freeze"))
			return
		}
		if _, err := h.svc.FreezeAccountClock(r.Context(), c.account, frozen); err != nil {
			h.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, h.clockState(c.account))
	}
}

// advanceLetter moves one letter to a status or tracking event now,
// through every step before it, without moving the clock.
func (h *handler) advanceLetter(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	var in lettershop.SimulateTarget
	if err := h.readJSON(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	l, err := h.svc.Simulate(r.Context(), c.account, id.value, in)
	if err != nil {
		h.fail(w, r, targetHint(err, in))
		return
	}
	letterResponse(http.StatusOK, l).write(w)
}

// awaitInput is the body of POST /_test/letters/{id}/await: where the
// letter is awaited (a status or a tracking event), and how long the clock
// may move for it.
type awaitInput struct {
	Status lettershop.LetterStatus `json:"status,omitempty"`
	Event  lettershop.EventStatus  `json:"event,omitempty"`
	Within string                  `json:"within,omitempty"`
}

// defaultAwait is how long the clock may move for an await that does not
// say: longer than any letter's course.
const defaultAwait = 30 * 24 * time.Hour

// awaitLetter moves the clock to each next step of the letter until it
// gets where it is awaited (package await): one request where a client
// would otherwise step the clock and read the letter in turn.
func (h *handler) awaitLetter(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	var in awaitInput
	if err := h.readJSON(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	within, err := withinParam(in.Within, defaultAwait, 0, "720h")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	o := await.Options{Within: within, SharedClock: h.cfg.sharedClock}
	target := lettershop.SimulateTarget{Status: in.Status, Event: in.Event}
	l, err := await.Letter(r.Context(), h.svc, c.account, id.value, target, o)
	if err != nil {
		h.fail(w, r, targetHint(err, target))
		return
	}
	letterResponse(http.StatusOK, l).write(w)
}

// trackingEvents are the events a letter has while it stays mailed, which
// are no letter status.
var trackingEvents = []lettershop.EventStatus{lettershop.EventInTransit, lettershop.EventInLocalArea,
	lettershop.EventProcessedForDelivery, lettershop.EventDelivered, lettershop.EventReRouted, lettershop.EventReturnedToSender}

// targetHint adds to a refused status that is a tracking event's (or a
// refused event that is a letter status) the field to send it in: a test
// that asks for status "delivered" is told to ask for the event.
func targetHint(err error, t lettershop.SimulateTarget) error {
	var e *lettershop.Error
	if !errors.As(err, &e) || e.Code != lettershop.CodeInvalid {
		return err
	}
	fields := maps.Clone(e.Fields)
	switch {
	case t.Status != "" && fields["status"] != "" && slices.Contains(trackingEvents, lettershop.EventStatus(t.Status)):
		fields["status"] += fmt.Sprintf(`: that is a tracking event, not a letter status; send {"event": %q}`, t.Status)
	case t.Event != "" && fields["event"] != "" && lettershop.SimulateTarget{Status: lettershop.LetterStatus(t.Event)}.Check() == nil:
		fields["event"] += fmt.Sprintf(`: that is a letter status, not a tracking event; send {"status": %q}`, t.Event)
	default:
		return err
	}
	out := *e
	out.Fields = fields
	return &out
}

// withinParam reads a wait's within: def when not given, else a positive
// duration, at most limit when limit is set; example is one for the
// message.
func withinParam(text string, def, limit time.Duration, example string) (time.Duration, error) {
	if text == "" {
		return def, nil
	}
	d, err := time.ParseDuration(text)
	switch {
	case err != nil || d <= 0:
		return 0, invalid("within", `must be a positive duration such as %q, got %s`, example, echo.Quote(text))
	case limit > 0 && d > limit:
		return 0, invalid("within", "must be at most %s, got %s", limit, echo.Quote(text))
	}
	return d, nil
}

// settleInput is the optional body of POST /_test/webhooks/settle.
type settleInput struct {
	Within string `json:"within,omitempty"`
}

// Bounds of how long a settle waits, in real time: past the attempts'
// own timeout, within the server's write timeout.
const (
	defaultSettle = 30 * time.Second
	maxSettle     = 50 * time.Second
)

// settleWebhooks waits until every webhook delivery of the account due on
// its clock has been attempted and recorded (await.Deliveries): what a
// suite's receiver did not get by then was not sent, with no sleep to
// prove it.
func (h *handler) settleWebhooks(w http.ResponseWriter, r *http.Request, c *call) {
	body, held, err := h.readBody(w, r, MaxJSONBody)
	var in settleInput
	if err == nil && len(bytes.TrimSpace(body)) > 0 {
		err = decodeJSON(body, &in)
	}
	h.releaseBody(held) // the wait that follows holds no body
	if err != nil {
		h.fail(w, r, err)
		return
	}
	within, err := withinParam(in.Within, defaultSettle, maxSettle, "10s")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := await.Deliveries(r.Context(), h.svc, c.account, within); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// letterText answers the text of the letter's rendered PDF, page after
// page, a row of text a line: what a test in any language checks was
// printed, without reading a PDF itself.
func (h *handler) letterText(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	pdf, err := h.svc.RenderLetter(r.Context(), c.account, id.value)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	text, err := h.texts.Text(pdf)
	if err != nil {
		h.fail(w, r, errorf(lettershop.CodeConflict, "the text of letter %s could not be read from its PDF (%v): read the PDF itself, from /letters/%s/download", id.value, err, id.value))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(text)))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, text)
}

// readLetterText reads the text of a letter's PDF for letterText, through
// the handler's cache of texts; a variable so that tests count the reads.
var readLetterText = pdftext.Text

// registerMove files a change of address for NCOA in the key's account.
func (h *handler) registerMove(w http.ResponseWriter, r *http.Request, c *call) {
	var in lettershop.Move
	if err := h.readJSON(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.svc.RegisterMove(r.Context(), c.account, in); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
