package inbox

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// page is what every template gets: the layout's parts, and Data for the
// page's own.
type page struct {
	Title string
	Base  string
	Nav   string // "letters" or "assets": the tab shown as current
	// Session parts; empty on the login page.
	Account   string
	Now       time.Time
	TestClock bool
	CanWrite  bool
	// Tabs are the tabs the key may read: "letters", "assets", "webhooks".
	Tabs map[string]bool
	CSRF string
	// Back is the inbox path a clock form returns to.
	Back   string
	Notice string
	Error  string
	// Poll, when set, is the URL a page polls to learn that it changed,
	// and State what it answered when the page was made.
	Poll  string
	State string
	// Framed is a page shown in a frame of another: no header, no links.
	Framed bool
	Data   any
}

func (h *handler) newPage(s *session, title string) *page {
	back := s.r.URL.RequestURI()
	if s.r.Method != http.MethodGet {
		back = "/" // a form's own path is no page to return to
	}
	return &page{
		Title:     title,
		Base:      s.base,
		Account:   s.account(),
		Now:       h.clock.now(s.ctx(), s.account()),
		TestClock: h.clock.test(),
		CanWrite:  s.can(httpadapter.ScopeLettersWrite),
		Tabs: map[string]bool{"letters": s.can(httpadapter.ScopeLettersRead), "assets": s.can(httpadapter.ScopeAssetsRead),
			"webhooks": s.can(httpadapter.ScopeWebhooksRead)},
		CSRF:   s.csrf,
		Back:   back,
		Notice: notices[s.r.URL.Query().Get("done")],
	}
}

// notices are the messages an action's redirect asks for (?done=...): a
// fixed set, so the URL can not make the page say anything else.
var notices = map[string]string{
	"canceled": "The letter is canceled.",
	"moved":    "The letter was moved on.",
	"advanced": "The clock was advanced; every letter due has moved.",
	"retried":  "The delivery will be attempted again now.",
}

// render writes the named page, buffered so a template error is a clean 500.
func (h *handler) render(w http.ResponseWriter, status int, name string, p *page) {
	t, ok := h.pages[name]
	if !ok {
		h.logger.Error("inbox: no template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		h.logger.Error("inbox: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// parsePages parses each page with the layout. The templates are embedded,
// so an error is a bug caught by every test.
func parsePages() map[string]*template.Template {
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimPrefix(n, "templates/")
		if base == "layout.html" {
			continue
		}
		pages[base] = template.Must(template.New(base).Funcs(funcs).ParseFS(files, "templates/layout.html", n))
	}
	return pages
}

var funcs = template.FuncMap{
	"time":      formatTime,
	"datetime":  machineTime,
	"rel":       relative,
	"partyName": partyName,
	"deref":     func(s *string) string { return deref(s) },
	"join":      strings.Join,
	"kib":       kib,
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m
	},
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// machineTime is t as a <time> element's datetime attribute takes it: the
// text formatTime prints is for people, and no valid time string.
func machineTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// relative says how far t is from now, in the largest whole unit.
func relative(t, now time.Time) string {
	if t.IsZero() || now.IsZero() {
		return ""
	}
	d := now.Sub(t)
	suffix := "ago"
	if d < 0 {
		d, suffix = -d, "from now"
	}
	var n int
	var unit string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		n, unit = int(d/time.Minute), "minute"
	case d < 24*time.Hour:
		n, unit = int(d/time.Hour), "hour"
	default:
		n, unit = int(d/(24*time.Hour)), "day"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s %s", n, unit, suffix)
}

// partyName is who a party is: the person, else the organization.
func partyName(p lettershop.Party) string {
	if p.Individual != nil {
		if p.Individual.FullName != "" {
			return p.Individual.FullName
		}
		name := strings.TrimSpace(p.Individual.FirstName + " " + p.Individual.LastName)
		if name != "" {
			return name
		}
	}
	return p.Organization
}

func kib(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
