package inbox_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lettershop/lettershop"
)

// The browser tests drive a headless Chromium through the inbox. They look
// for the browser in LETTERSHOP_CHROME, then on the PATH; without one they
// skip. With LETTERSHOP_INBOX_SCREENSHOTS naming a directory they leave a
// PNG of each page there.

// browserNames are the names a Chromium goes by on the PATH.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

func findBrowser() string {
	if p := os.Getenv("LETTERSHOP_CHROME"); p != "" {
		return p
	}
	for _, n := range browserNames {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless browser with a profile of its own, closed
// when the test ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := findBrowser()
	if path == "" {
		t.Skip("no Chromium found (looked for LETTERSHOP_CHROME, then " + strings.Join(browserNames, ", ") +
			" on the PATH): install it with `apt-get install -y chromium` to run the browser tests")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox, // as root, Chromium refuses to start with its sandbox
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// screenshot saves the whole page as name.png in LETTERSHOP_INBOX_SCREENSHOTS.
func screenshot(name string) chromedp.Action[chromedp.Void] {
	dir := os.Getenv("LETTERSHOP_INBOX_SCREENSHOTS")
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if dir == "" {
			return nil
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	})
}

const scriptDescription = `<script>window.pwned = true</script> renewal`

// apiLetter creates a letter over the HTTP API, as a client would.
func (e *env) apiLetter(t *testing.T, assetID string) {
	t.Helper()
	body := `{
	  "sender": {"organization": "Acme Corp", "address": {"addressLine1": "100 Main St", "lastLine": "Springfield, IL 62701"}},
	  "recipient": {"individual": {"firstName": "Jane", "lastName": "Doe"},
	                "address": {"addressLine1": "incorrect unit", "addressLine2": "Apt 9", "city": "Chicago", "state": "IL", "zipCode": "60601"}},
	  "content": {"type": "asset", "assetId": "` + assetID + `"},
	  "useType": "transactional",
	  "description": "` + strings.ReplaceAll(scriptDescription, `"`, `\"`) + `",
	  "variables": [{"name": "name", "value": "Jane"}],
	  "options": {"addressProcessing": {"cassRecipient": {"type": "basic"}}},
	  "metadata": [{"key": "customer", "value": "c-1001"}]}`
	req, _ := http.NewRequest("POST", e.srv.URL+"/v1/letters", strings.NewReader(body))
	req.Header.Set("X-Api-Key", testKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create letter: %d %s", res.StatusCode, b)
	}
}

func TestBrowserJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser tests are not short")
	}
	ctx := newBrowser(t)
	e := newEnv(t)
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(rcv.Close)
	if _, err := e.svc.CreateWebhook(e.ctx, e.account, lettershop.CreateWebhookInput{URL: rcv.URL + "/hooks", Description: "order desk",
		Events: []lettershop.WebhookEventType{lettershop.WebhookLetterCreated, lettershop.WebhookLetterMailed}}); err != nil {
		t.Fatal(err)
	}
	a := e.template()
	// A letter from before, so the table has more than one row.
	otto := e.letter(a, func(in *lettershop.CreateLetterInput) {
		in.Description = "March statement"
		in.Recipient.Individual = &lettershop.Individual{FirstName: "Otto", LastName: "Lilienthal"}
		in.Metadata = lettershop.Metadata{{Key: "customer", Value: "c-7"}}
		in.SendDate = "2026-06-01" // not mailed when the clock has moved a month
	})
	e.clock.Add(90 * time.Minute)

	do(t, ctx, "open the inbox",
		chromedp.Navigate(e.srv.URL+"/inbox/"),
		chromedp.WaitVisible(chromedp.ID("key")),
		screenshot("1-login"),
	)
	if loc := get(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/inbox/login") {
		t.Errorf("the inbox without a key went to %s, want its login page", loc)
	}
	do(t, ctx, "log in",
		chromedp.SendKeys(chromedp.ID("key"), testKey),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.CSS("table.letters")),
	)

	// A letter made through the API shows up without a reload by hand.
	e.apiLetter(t, a.ID)
	do(t, ctx, "see the new letter",
		chromedp.WaitVisible(chromedp.Search(`//a[contains(@class,"recipient")][text()="Jane Doe"]`)),
		screenshot("2-letters"),
	)
	desc := get(t, ctx, chromedp.Text(chromedp.Search(`//tr[.//a[text()="Jane Doe"]]/td[contains(@class,"desc")]`)))
	if desc != scriptDescription {
		t.Errorf("the description shows as %q, want the text %q", desc, scriptDescription)
	}
	if get(t, ctx, chromedp.Evaluate[bool](`window.pwned === true`)) {
		t.Errorf("the description's script ran")
	}

	do(t, ctx, "open the letter",
		chromedp.Click(chromedp.Search(`//a[text()="Jane Doe"]`)),
		chromedp.WaitVisible(chromedp.ID("pdf")),
		waitForFrame("#pdf"),
		screenshot("3-letter-queued"),
	)
	status := get(t, ctx, chromedp.Text(chromedp.ID("status")))
	events := get(t, ctx, chromedp.Text(chromedp.ID("events")))
	pdfType := get(t, ctx, chromedp.Evaluate[string](`fetch(document.getElementById("pdf").src).then(r => r.headers.get("Content-Type"))`,
		chromedp.EvalAwaitPromise))
	if status != "queued" || !strings.Contains(events, "Letter received") || pdfType != "application/pdf" {
		t.Errorf("letter page: status %q, events %q, PDF %q", status, events, pdfType)
	}
	if d := get(t, ctx, chromedp.Text(chromedp.ID("description"))); d != scriptDescription {
		t.Errorf("the description shows as %q", d)
	}
	if get(t, ctx, chromedp.Evaluate[bool](`window.pwned === true`)) {
		t.Errorf("the description's script ran")
	}

	do(t, ctx, "advance the clock",
		chromedp.SetValue(chromedp.CSS(`select[name="duration"]`), "720h"),
		chromedp.Click(chromedp.ID("advance")),
		chromedp.WaitVisible(chromedp.Search(`//span[@id="status"][text()="mailed"]`)),
		waitForFrame("#pdf"),
		screenshot("4-letter-mailed"),
	)
	events = get(t, ctx, chromedp.Text(chromedp.ID("events")))
	for _, want := range []string{"mailed", "delivered", "inTransit"} {
		if !strings.Contains(events, want) {
			t.Errorf("events after a month lack %q: %s", want, events)
		}
	}

	do(t, ctx, "open the other letter",
		chromedp.Navigate(e.srv.URL+"/inbox/?status=mailed"),
		chromedp.WaitVisible(chromedp.CSS("table.letters")),
		screenshot("5-letters-mailed"),
		chromedp.Navigate(e.srv.URL+"/inbox/?q=lilienthal"),
		chromedp.Click(chromedp.Search(`//a[text()="Otto Lilienthal"]`)),
		chromedp.WaitVisible(chromedp.Search(`//span[@id="status"][text()="ready"]`)),
	)
	// The letter's page follows the letter when something else moves it.
	if _, err := e.svc.Simulate(e.ctx, e.account, otto.ID, lettershop.SimulateTarget{Status: lettershop.StatusInProduction}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "see the letter move, then force an event",
		chromedp.WaitVisible(chromedp.Search(`//span[@id="status"][text()="inProduction"]`)),
		chromedp.SetValue(chromedp.CSS(`select[name="target"]`), "event:returnedToSender"),
		chromedp.Click(chromedp.ID("simulate")),
		chromedp.WaitVisible(chromedp.CSS("p.notice, p.error")),
		screenshot("9-letter-forced"),
	)
	if events := get(t, ctx, chromedp.Text(chromedp.ID("events"))); !strings.Contains(events, "returnedToSender") {
		t.Errorf("a forced event is not in the journey: %s", events)
	}

	do(t, ctx, "assets",
		chromedp.Navigate(e.srv.URL+"/inbox/assets"),
		chromedp.WaitVisible(chromedp.CSS("table")),
		screenshot("6-assets"),
		chromedp.Click(chromedp.Search(`//a[starts-with(text(),"Welcome")]`)),
		chromedp.WaitVisible(chromedp.Search(`//h2[text()="Versions"]`)),
		screenshot("7-asset"),
		chromedp.Click(chromedp.Search(`//a[starts-with(@href,"/inbox/assets/`+a.ID+`/versions/")]`)),
		chromedp.WaitVisible(chromedp.ID("source")),
		waitForFrame("#preview"),
		screenshot("8-version"),
	)
	if source := get(t, ctx, chromedp.Text(chromedp.ID("source"))); !strings.Contains(source, `<p class="fine">A &amp; B</p>`) {
		t.Errorf("the template's source shows as %q", source)
	}

	do(t, ctx, "webhooks",
		chromedp.Navigate(e.srv.URL+"/inbox/webhooks"),
		chromedp.WaitVisible(chromedp.CSS("table")),
		chromedp.Click(chromedp.Search(`//a[starts-with(@href,"/inbox/webhooks/wh_")]`)),
		chromedp.WaitVisible(chromedp.ID("deliveries")),
		screenshot("10-webhook"),
	)
	if rows := get(t, ctx, chromedp.Text(chromedp.ID("deliveries"))); !strings.Contains(rows, "letter.mailed") || !strings.Contains(rows, "letter.created") {
		t.Errorf("the deliveries table shows %q", rows)
	}
}

// do runs the steps of one part of a journey.
func do(t *testing.T, ctx context.Context, step string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
}

// get runs an action that reads something from the page.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	return v
}

// waitForFrame waits until the frame sel has loaded (or a few seconds have
// passed: a PDF viewer may never say), then a moment for it to paint, so a
// screenshot shows its content. It asserts nothing.
func waitForFrame(sel string) chromedp.Action[chromedp.Void] {
	wait := chromedp.Evaluate[bool](`new Promise(resolve => {
		const f = document.querySelector("`+sel+`");
		const settle = () => setTimeout(() => resolve(true), 700);
		if (!f) return resolve(false);
		let d = null;
		try { d = f.contentDocument; } catch (e) {}
		if (d && d.readyState === "complete" && d.URL !== "about:blank") return settle();
		f.addEventListener("load", settle, {once: true});
		setTimeout(settle, 4000);
	})`, chromedp.EvalAwaitPromise)
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, wait)
		return err
	})
}

// TestBrowserLongValuesStayInTheTable: a long metadata value wraps inside
// its cell, where the table's rounded frame would cut it off, and on a
// narrow screen the table scrolls within itself, not the page.
func TestBrowserLongValuesStayInTheTable(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser tests are not short")
	}
	ctx := newBrowser(t)
	e := newEnv(t)
	long := strings.Repeat("Ünïcødé-long-metadata-value ", 2)
	e.letter(e.template(), func(in *lettershop.CreateLetterInput) {
		in.Description = strings.Repeat("a long description ", 12)
		in.Metadata = lettershop.Metadata{{Key: "customer", Value: strings.TrimSpace(long)}, {Key: "x", Value: strings.Repeat("z", 200)}}
	})
	do(t, ctx, "log in",
		chromedp.Navigate(e.srv.URL+"/inbox/login"),
		chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), testKey),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.CSS("table.letters")),
		screenshot("long-values-wide"),
	)
	// Every tag ends inside the table's frame.
	cut := `Array.from(document.querySelectorAll("table.letters .tag")).filter(el => {
		const t = el.closest("table").getBoundingClientRect(), r = el.getBoundingClientRect();
		return r.right > t.right + 0.5 || el.scrollWidth > el.clientWidth + 1;
	}).map(el => el.textContent.slice(0, 30))`
	if got := get(t, ctx, chromedp.Evaluate[[]string](cut)); len(got) > 0 {
		t.Errorf("tags cut off by the table's frame: %q", got)
	}
	wide := `document.documentElement.scrollWidth > window.innerWidth`
	if get(t, ctx, chromedp.Evaluate[bool](wide)) {
		t.Errorf("at 1280 pixels the page is %v wide: the metadata should wrap",
			get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)))
	}
	a := e.template()
	if _, err := e.svc.UpdateAsset(e.ctx, e.account, a.ID, lettershop.UpdateAssetInput{Metadata: &lettershop.Metadata{{Key: "x", Value: strings.Repeat("z", 200)}}}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "the assets", chromedp.Navigate(e.srv.URL+"/inbox/assets"), chromedp.WaitVisible(chromedp.CSS("table")))
	if get(t, ctx, chromedp.Evaluate[bool](wide)) {
		t.Errorf("at 1280 pixels the assets page is %v wide: the metadata should wrap",
			get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)))
	}
	do(t, ctx, "a phone's width",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(e.srv.URL+"/inbox/"),
		chromedp.WaitVisible(chromedp.CSS("table.letters")),
		screenshot("long-values-narrow"),
	)
	if get(t, ctx, chromedp.Evaluate[bool](wide)) {
		t.Errorf("at 390 pixels the page is %v wide: the table should scroll within itself",
			get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)))
	}
}
