package inbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/echo"
)

// letterPageSize is how many letters a page of the table shows.
const letterPageSize = 25

// searchPageSize and searchPages bound a text search: the API has no text
// filter, so the inbox reads up to searchPages pages of searchPageSize and
// keeps the letters that match, continuing from the API's cursor.
const (
	searchPageSize = 100
	searchPages    = 5
)

// statuses are the letter statuses, in the order a letter goes through them.
var statuses = []lettershop.LetterStatus{
	lettershop.StatusQueued, lettershop.StatusReady, lettershop.StatusInProduction,
	lettershop.StatusMailed, lettershop.StatusIssue, lettershop.StatusCanceled,
}

// simulateTargets are what a letter can be forced to: statuses, then
// tracking events.
var simulateTargets = []simulateTarget{
	{"status:ready", "status: ready"},
	{"status:inProduction", "status: inProduction"},
	{"status:mailed", "status: mailed"},
	{"event:inTransit", "tracking: inTransit"},
	{"event:inLocalArea", "tracking: inLocalArea"},
	{"event:processedForDelivery", "tracking: processedForDelivery"},
	{"event:delivered", "tracking: delivered"},
	{"event:reRouted", "tracking: reRouted"},
	{"event:returnedToSender", "tracking: returnedToSender"},
}

type simulateTarget struct{ Value, Label string }

// targetsFor is what a letter at status st can be offered to be forced to:
// nothing when canceled or at issue, which no move takes on; of the
// statuses, those after st; every tracking event, as the timeline alone
// says which a mailed letter can still reach.
func targetsFor(st lettershop.LetterStatus) []simulateTarget {
	switch st {
	case lettershop.StatusCanceled, lettershop.StatusIssue:
		return nil
	case lettershop.StatusReady:
		return simulateTargets[1:]
	case lettershop.StatusInProduction:
		return simulateTargets[2:]
	case lettershop.StatusMailed:
		return simulateTargets[3:]
	}
	return simulateTargets
}

// listFilter is the letters table's query: ?status=&meta=k=v&q=&token=.
type listFilter struct {
	Status lettershop.LetterStatus
	Meta   []string // "key=value"
	Q      string
	Token  string
}

// listView is the letters page's data.
type listView struct {
	Filter   listFilter
	Letters  []*lettershop.Letter
	Next     string // the URL of the next page, if any
	First    string // the URL of the first page, when this is not it
	Statuses []lettershop.LetterStatus
	// Filtered says the table shows only the letters its filters take, so
	// an empty one does not mean the account has none.
	Filtered bool
}

// parseFilter reads the table's query. A mistake is a *lettershop.Error
// naming the parameter.
func parseFilter(q url.Values) (listFilter, lettershop.Metadata, error) {
	f := listFilter{
		Status: lettershop.LetterStatus(q.Get("status")),
		Q:      strings.TrimSpace(q.Get("q")),
		Token:  q.Get("token"),
	}
	if f.Status != "" && !slices.Contains(statuses, f.Status) {
		return f, nil, invalid("status", "no status is called %s", echo.Quote(string(f.Status)))
	}
	var md lettershop.Metadata
	for _, m := range q["meta"] {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		k, v, ok := strings.Cut(m, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return f, nil, invalid("meta", "write a metadata filter as key=value, got %s", echo.Quote(m))
		}
		f.Meta = append(f.Meta, m)
		md = append(md, lettershop.MetadataPair{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return f, md, nil
}

func invalid(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &lettershop.Error{Code: lettershop.CodeInvalid, Message: msg, Fields: map[string]string{field: msg}}
}

// query is f as a URL query, with token as the cursor.
func (f listFilter) query(token string) url.Values {
	q := url.Values{}
	if f.Status != "" {
		q.Set("status", string(f.Status))
	}
	for _, m := range f.Meta {
		q.Add("meta", m)
	}
	if f.Q != "" {
		q.Set("q", f.Q)
	}
	if token != "" {
		q.Set("token", token)
	}
	return q
}

// list reads one page of the table, on the API's cursors.
func (h *handler) list(s *session, f listFilter, md lettershop.Metadata) ([]*lettershop.Letter, string, error) {
	in := lettershop.ListLettersInput{Status: f.Status, Metadata: md, IncludeCassDetails: false}
	if f.Q == "" {
		in.PageRequest = lettershop.PageRequest{PageSize: letterPageSize, NextToken: f.Token}
		p, err := h.svc.ListLetters(s.ctx(), s.account(), in)
		return p.Items, p.NextToken, err
	}
	var found []*lettershop.Letter
	token := f.Token
	for range searchPages {
		in.PageRequest = lettershop.PageRequest{PageSize: searchPageSize, NextToken: token}
		p, err := h.svc.ListLetters(s.ctx(), s.account(), in)
		if err != nil {
			return nil, "", err
		}
		for _, l := range p.Items {
			if matches(l, f.Q) {
				found = append(found, l)
			}
		}
		token = p.NextToken
		if token == "" || len(found) >= letterPageSize {
			break
		}
	}
	return found, token, nil
}

// matches reports whether q (case aside) is in the letter's id, description,
// external id, recipient, sender or metadata.
func matches(l *lettershop.Letter, q string) bool {
	q = strings.ToLower(q)
	fields := []string{l.ID, l.Description, l.ExternalID, string(l.Status)}
	for _, p := range []lettershop.Party{l.Recipient, l.Sender} {
		fields = append(fields, partyName(p), p.Organization, p.Address.AddressLine1, p.Address.AddressLine2, p.Address.LastLine)
	}
	for _, m := range l.Metadata {
		fields = append(fields, m.Key+"="+m.Value)
	}
	for _, s := range fields {
		if strings.Contains(strings.ToLower(s), q) {
			return true
		}
	}
	return false
}

// letters is the table of letters, newest first.
func (h *handler) letters(w http.ResponseWriter, s *session) {
	p := h.newPage(s, "Letters")
	p.Nav = "letters"
	f, md, err := parseFilter(s.r.URL.Query())
	v := &listView{Filter: f, Statuses: statuses, Filtered: f.Q != "" || f.Status != "" || len(f.Meta) > 0}
	p.Data = v
	if err == nil {
		var next string
		v.Letters, next, err = h.list(s, f, md)
		if next != "" {
			v.Next = s.base + "/?" + f.query(next).Encode()
		}
		if f.Token != "" {
			v.First = s.base + "/?" + f.query("").Encode()
		}
	}
	if err != nil {
		h.fail(w, s, err)
		return
	}
	p.Poll = s.base + "/letters/state?" + s.r.URL.RawQuery
	p.State = h.state(s, v.Letters)
	h.render(w, http.StatusOK, "letters.html", p)
}

// lettersState answers a fingerprint of what the table with the same query
// shows now; the page's script reloads it when the answer changes.
func (h *handler) lettersState(w http.ResponseWriter, s *session) {
	f, md, err := parseFilter(s.r.URL.Query())
	var ls []*lettershop.Letter
	if err == nil {
		ls, _, err = h.list(s, f, md)
	}
	if err != nil {
		h.fail(w, s, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(h.state(s, ls)))
}

// letterState is lettersState for one letter's page.
func (h *handler) letterState(w http.ResponseWriter, s *session) {
	l, err := h.svc.GetLetter(s.ctx(), s.account(), s.r.PathValue("id"))
	if err != nil {
		h.fail(w, s, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(h.state(s, []*lettershop.Letter{l})))
}

// state fingerprints letters (which, in what status, changed when) and the
// clock, so a letter made, moved or changed shows as a new state.
func (h *handler) state(s *session, ls []*lettershop.Letter) string {
	sum := sha256.New()
	fmt.Fprintf(sum, "%d\n", h.clock.now(s.ctx(), s.account()).UnixNano())
	for _, l := range ls {
		fmt.Fprintf(sum, "%s %s %d\n", l.ID, l.Status, l.ModifiedAt.UnixNano())
	}
	return hex.EncodeToString(sum.Sum(nil)[:12])
}

// letterView is the letter page's data.
type letterView struct {
	Letter    *lettershop.Letter
	Targets   []simulateTarget
	CanCancel bool
	Events    []*lettershop.Event // newest first
}

// letter is one letter: its PDF, parties, options, variables and events.
func (h *handler) letter(w http.ResponseWriter, s *session) {
	h.showLetter(w, s, http.StatusOK, nil)
}

// showLetter renders the letter page, with actionErr (the outcome of an
// action that failed) as its error banner.
func (h *handler) showLetter(w http.ResponseWriter, s *session, status int, actionErr error) {
	l, err := h.svc.GetLetter(s.ctx(), s.account(), s.r.PathValue("id"))
	if err != nil {
		h.fail(w, s, err)
		return
	}
	p := h.newPage(s, "Letter to "+partyName(l.Recipient))
	p.Nav = "letters"
	p.Back = "/letters/" + l.ID
	if actionErr != nil {
		var e *lettershop.Error
		if errors.As(actionErr, &e) && e.Code != lettershop.CodeInternal {
			p.Error = errorMessage(e)
		} else {
			h.fail(w, s, actionErr)
			return
		}
	}
	v := &letterView{Letter: l, Targets: targetsFor(l.Status),
		CanCancel: l.Status == lettershop.StatusQueued || l.Status == lettershop.StatusIssue || l.Status == lettershop.StatusReady}
	for i := len(l.Events) - 1; i >= 0; i-- {
		v.Events = append(v.Events, &l.Events[i])
	}
	p.Data = v
	// The page answering a form (an action refused) does not update
	// itself: reloading it would send the form again.
	if s.r.Method == http.MethodGet {
		p.Poll = s.base + "/letters/" + url.PathEscape(l.ID) + "/state"
		p.State = h.state(s, []*lettershop.Letter{l})
	}
	h.render(w, status, "letter.html", p)
}

// pdfCSP lets the inbox's own pages frame a PDF and the browser's viewer
// show it, and nothing else.
const pdfCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'self'"

// framedCSP is the page policy for an error shown in the inbox's own
// frame (the PDF's, a version's preview): what the frame would have shown.
var framedCSP = strings.Replace(pageCSP, "frame-ancestors 'none'", "frame-ancestors 'self'", 1)

// framedFail is fail for the content of a frame: the error page may be
// framed by the inbox's own pages, so the frame shows why (a letter whose
// content could not be fetched) where a browser would show a refused frame.
// The page is the error alone, without the inbox's header and links, which
// would be a second inbox inside the first.
func framedFail(h *handler, w http.ResponseWriter, s *session, err error) {
	w.Header().Set("Content-Security-Policy", framedCSP)
	w.Header().Set("X-Frame-Options", "SAMEORIGIN")
	if !wantsPage(s.r) {
		h.writeError(w, s.r, err)
		return
	}
	status, msg := h.failure(s.r, err)
	h.render(w, status, "error.html", &page{Title: http.StatusText(status), Base: s.base, Error: msg, Framed: true})
}

// letterPDF is the letter as printed: inline for the page's frame, or as a
// download with ?download=1.
func (h *handler) letterPDF(w http.ResponseWriter, s *session) {
	id := s.r.PathValue("id")
	pdf, err := h.svc.RenderLetter(s.ctx(), s.account(), id)
	if err != nil {
		framedFail(h, w, s, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/pdf")
	hd.Set("Content-Security-Policy", pdfCSP)
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	disposition := "inline"
	if s.r.URL.Query().Get("download") != "" {
		disposition = "attachment"
	}
	// The id was found in the store, so it is of the form ltr_ and letters
	// and digits: safe in a header.
	hd.Set("Content-Disposition", fmt.Sprintf("%s; filename=%q", disposition, id+".pdf"))
	_, _ = w.Write(pdf)
}

// cancel cancels the letter.
func (h *handler) cancel(w http.ResponseWriter, s *session) {
	id := s.r.PathValue("id")
	if _, err := h.svc.CancelLetter(s.ctx(), s.account(), id); err != nil {
		h.actionFailed(w, s, err)
		return
	}
	http.Redirect(w, s.r, s.base+"/letters/"+url.PathEscape(id)+"?done=canceled", http.StatusSeeOther)
}

// simulate forces the letter to a status or tracking event now.
func (h *handler) simulate(w http.ResponseWriter, s *session) {
	id := s.r.PathValue("id")
	kind, value, _ := strings.Cut(s.r.PostFormValue("target"), ":")
	var t lettershop.SimulateTarget
	switch kind {
	case "status":
		t.Status = lettershop.LetterStatus(value)
	case "event":
		t.Event = lettershop.EventStatus(value)
	default:
		h.actionFailed(w, s, invalid("target", "choose a status or a tracking event"))
		return
	}
	if _, err := h.svc.Simulate(s.ctx(), s.account(), id, t); err != nil {
		h.actionFailed(w, s, err)
		return
	}
	http.Redirect(w, s.r, s.base+"/letters/"+url.PathEscape(id)+"?done=moved", http.StatusSeeOther)
}

// actionFailed shows the letter again with what went wrong; a letter that
// can not be found is a plain error page.
func (h *handler) actionFailed(w http.ResponseWriter, s *session, err error) {
	var e *lettershop.Error
	if !errors.As(err, &e) || e.Code == lettershop.CodeNotFound || e.Code == lettershop.CodeInternal {
		h.fail(w, s, err)
		return
	}
	status := http.StatusConflict
	if e.Code == lettershop.CodeInvalid {
		status = http.StatusBadRequest
	}
	h.showLetter(w, s, status, err)
}

// maxAdvance is the longest step the form takes at once.
const maxAdvance = 10 * 366 * 24 * time.Hour

// advance moves the clock on, then returns to the page the form was on.
func (h *handler) advance(w http.ResponseWriter, s *session) {
	if !h.clock.test() {
		h.fail(w, s, &lettershop.Error{Code: lettershop.CodeNotFound, Message: "the clock is not a test clock: start the server with --test-clock"})
		return
	}
	raw := strings.TrimSpace(s.r.PostFormValue("duration"))
	d, err := time.ParseDuration(raw)
	switch {
	case raw == "":
		err = invalid("duration", `give a duration, for example "72h"`)
	case err != nil:
		err = invalid("duration", `must be a duration such as "72h" or "1h30m", got %s`, echo.Quote(raw))
	case d <= 0:
		err = invalid("duration", "the clock only moves forward, got %s", echo.Quote(raw))
	case d > maxAdvance:
		err = invalid("duration", "at most %s at once", maxAdvance)
	default:
		err = h.clock.advance(s.ctx(), s.account(), d)
	}
	if err != nil {
		h.fail(w, s, err)
		return
	}
	http.Redirect(w, s.r, s.base+withDone(safeBack(s.r.PostFormValue("back")), "advanced"), http.StatusSeeOther)
}

// safeBack is back if it is a path of the inbox's own pages, else the
// table: the redirect never leaves the inbox, by another host or by a ..
// segment (written %2e%2e too) that a browser would resolve above it.
func safeBack(back string) string {
	u, err := url.Parse(back)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") ||
		strings.Contains(u.Path, "\\") || !cleanPath(u.Path) {
		return "/"
	}
	q := u.Query()
	q.Del("done")
	u.RawQuery = q.Encode()
	return u.String()
}

func withDone(path, done string) string {
	if strings.Contains(path, "?") {
		return path + "&done=" + done
	}
	return path + "?done=" + done
}
