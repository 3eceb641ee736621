package httpadapter

import (
	"io"
	"net/http"
	"time"
)

// JournalSize is how many requests an account's journal keeps: the last
// ones, older ones dropped. A journal also keeps at most 256 KiB (a request
// path counts its length), and the newest entry always.
const JournalSize = 200

// JournalEntry is one request of an account's journal and what it was
// answered: enough for a test to assert that its client retried with the
// same Idempotency-Key, or sent what it meant to.
type JournalEntry struct {
	// Time is when the request arrived, on its account's clock.
	Time time.Time `json:"time"`
	// Method and Path are the request's, Path as sent (with /v1 if it was).
	Method string `json:"method"`
	Path   string `json:"path"`
	// Status is the answer's status; 0 when the connection was closed
	// unanswered (a fault) or the client went away first.
	Status int `json:"status"`
	// IdempotencyKey is the request's Idempotency-Key, "" without one.
	IdempotencyKey string `json:"idempotencyKey"`
	// Replayed says the answer was a stored one (Idempotent-Replayed).
	Replayed bool `json:"replayed"`
	// RequestBytes and ResponseBytes are the sizes of the bodies the
	// handler read and wrote.
	RequestBytes  int64 `json:"requestBytes"`
	ResponseBytes int64 `json:"responseBytes"`
	// RequestID is the answer's X-Request-Id.
	RequestID string `json:"requestId"`
	// Fault is the id of the fault that met the request, "" for none.
	Fault string `json:"fault"`
}

// record adds e to the account's journal, dropping the account's oldest
// entries past JournalSize or maxJournalBytes.
func (tc *TestControls) record(account string, e JournalEntry) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	a := tc.account(account)
	a.journal = append(a.journal, e)
	n := entrySize(e)
	a.journalBytes += n
	for len(a.journal)-a.head > JournalSize || a.journalBytes > maxJournalBytes && a.head < len(a.journal)-1 {
		m := entrySize(a.journal[a.head])
		a.journalBytes -= m
		n -= m
		a.journal[a.head] = JournalEntry{}
		a.head++
	}
	// Entries dropped stay in the slice, zeroed, until there are
	// journalSlack of them, so that dropping the oldest costs a copy only
	// every journalSlack times.
	if a.head >= journalSlack {
		a.journal = append(a.journal[:0], a.journal[a.head:]...)
		clear(a.journal[len(a.journal):cap(a.journal)][:a.head])
		a.head = 0
	}
	tc.grow(a, n)
}

// Requests returns the account's journal, oldest first: requests with its
// API key, other than to the /_test routes.
func (tc *TestControls) Requests(account string) []JournalEntry {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := []JournalEntry{}
	if a := tc.lookup(account); a != nil {
		out = append(out, a.journal[a.head:]...)
	}
	return out
}

// ClearRequests empties the account's journal.
func (tc *TestControls) ClearRequests(account string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if a := tc.lookup(account); a != nil {
		tc.bytes -= a.journalBytes
		a.journal, a.head, a.journalBytes = nil, 0, 0
	}
}

// journalSlack is how many dropped entries a journal's slice keeps before
// it moves its entries down.
const journalSlack = 32

// journalWriter notes the status and size of an answer.
type journalWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (j *journalWriter) WriteHeader(code int) {
	if j.status == 0 {
		j.status = code
	}
	j.ResponseWriter.WriteHeader(code)
}

func (j *journalWriter) Write(p []byte) (int, error) {
	if j.status == 0 {
		j.status = http.StatusOK
	}
	n, err := j.ResponseWriter.Write(p)
	j.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (j *journalWriter) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// aborted notes that the connection is closed unanswered.
func (j *journalWriter) aborted() { j.status = 0 }

// countingBody counts the bytes of a request body the handler reads.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n += int64(n)
	return n, err
}

// journalList is the body of GET /_test/requests.
type journalList struct {
	Items []JournalEntry `json:"items"`
}

func (h *handler) listRequests(w http.ResponseWriter, r *http.Request, c *call) {
	if err := noQuery(r); err != nil {
		h.fail(w, r, err)
		return
	}
	jsonResponse(http.StatusOK, journalList{Items: h.cfg.controls.Requests(c.account)}).write(w)
}

func (h *handler) clearRequests(w http.ResponseWriter, _ *http.Request, c *call) {
	h.cfg.controls.ClearRequests(c.account)
	w.WriteHeader(http.StatusNoContent)
}
