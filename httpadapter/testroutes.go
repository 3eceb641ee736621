package httpadapter

// This file holds everything that exists for tests only: the option that
// enables the /_test routes, the routes, and their handlers.

import (
	"net/http"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
)

// WithTestClock enables the test routes under /_test/ (reading and moving
// the clock, advancing one letter, registering postal moves). m must be the
// clock the Service was made with. Without this option those routes do not
// exist.
//
// The rate limit stays on (150 requests per 5 seconds per key unless
// WithRateLimit says otherwise), measured on m unless WithRateLimitClock
// names another clock: a key that used up its bucket gets 429s until the
// test moves m on.
func WithTestClock(m *clock.Mock) Option { return func(c *config) { c.testClock = m } }

// The test routes exist only with WithTestClock. They act in the key's
// account and are not idempotent: a test that moves the clock twice means
// it. Reading the clock takes any valid API key; the routes that change
// state take letters:write, as what they change is where letters are and
// where they go (moving the clock moves every letter along).
func (h *handler) testRoutes() {
	h.handleTest(route{method: "GET", path: "/_test/clock", access: anyKey, serve: h.getClock})
	h.handleTest(route{method: "POST", path: "/_test/clock/advance", access: scoped, scope: ScopeLettersWrite, serve: h.advanceClock})
	h.handleTest(route{method: "POST", path: "/_test/letters/{id}/advance", access: scoped, scope: ScopeLettersWrite, serve: h.advanceLetter})
	h.handleTest(route{method: "POST", path: "/_test/moves", access: scoped, scope: ScopeLettersWrite, serve: h.registerMove})
	h.faultRoutes() // faults.go, journal.go
}

// handleTest registers a test route, only bare: test routes live under /_test/.
func (h *handler) handleTest(rt route) {
	h.mux.HandleFunc(rt.method+" "+rt.path, func(w http.ResponseWriter, r *http.Request) {
		h.serveRoute(w, r, rt, "")
	})
}

// clockState is the body of the clock routes.
type clockState struct {
	Now time.Time `json:"now"`
}

func (h *handler) clockState() clockState {
	return clockState{Now: h.cfg.testClock.Now().UTC()}
}

func (h *handler) getClock(w http.ResponseWriter, _ *http.Request, _ *call) {
	writeJSON(w, http.StatusOK, h.clockState())
}

// lastTestTime is as far as the test clock goes. JSON writes no year past
// 9999, and letters' schedules run days past the clock, so it stops a year
// short: a clock moved further would make every answer with a time in it
// fail.
var lastTestTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// advanceInput is the body of POST /_test/clock/advance: a Go duration
// ("72h", "90m", "1h30m").
type advanceInput struct {
	Duration string `json:"duration"`
}

// advanceClock moves the clock, then runs everything that fell due, so the
// answer describes a world that has caught up.
func (h *handler) advanceClock(w http.ResponseWriter, r *http.Request, _ *call) {
	body, err := h.readBody(w, r, MaxJSONBody)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var in advanceInput
	if err := decodeJSON(body, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := time.ParseDuration(in.Duration)
	switch {
	case in.Duration == "":
		h.fail(w, r, invalid("duration", `duration is required, for example "72h"`))
		return
	case err != nil:
		h.fail(w, r, invalid("duration", `must be a duration such as "72h" or "1h30m", got %q`, in.Duration))
		return
	case d < 0:
		h.fail(w, r, invalid("duration", "the clock only moves forward, got %s", in.Duration))
		return
	case h.cfg.testClock.Now().Add(d).After(lastTestTime):
		h.fail(w, r, invalid("duration", "the clock goes no further than %s; it is at %s, and %s would pass that",
			lastTestTime.Format(time.RFC3339), h.cfg.testClock.Now().UTC().Format(time.RFC3339), in.Duration))
		return
	}
	h.cfg.testClock.Add(d)
	if _, err := h.svc.RunDue(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.clockState())
}

// advanceLetter moves one letter to a status or tracking event now,
// through every step before it, without moving the clock.
func (h *handler) advanceLetter(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	body, err := h.readBody(w, r, MaxJSONBody)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var in lettershop.SimulateTarget
	if err := decodeJSON(body, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	l, err := h.svc.Simulate(r.Context(), c.account, id.value, in)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, l)
}

// registerMove files a change of address for NCOA in the key's account.
func (h *handler) registerMove(w http.ResponseWriter, r *http.Request, c *call) {
	body, err := h.readBody(w, r, MaxJSONBody)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var in lettershop.Move
	if err := decodeJSON(body, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.svc.RegisterMove(r.Context(), c.account, in); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
