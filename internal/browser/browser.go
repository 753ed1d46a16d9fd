// Package browser drives a real headless Chromium for AFR's browser tests,
// through github.com/chromedp/chromedp. Only test code imports it.
//
// Start finds the browser (the file named by $AFR_CHROMIUM, else chromium,
// chromium-browser or google-chrome on PATH; `make setup` installs Debian's
// chromium where it can) and skips the test, saying why, when there is none:
// that is the only skip the browser tests allow. Each Page is one tab bound
// to one test: it loads a page from a local file (file:// URL) or from an
// httptest server on loopback, waits for selectors, attributes and
// JavaScript conditions, reads text and attributes, counts elements, types
// into inputs, sets file inputs, evaluates JavaScript and takes full-page PNG
// screenshots into the test's artifact directory (kept under DIR/_artifacts
// with `go test -artifacts -outputdir DIR`, DIR existing; otherwise removed
// with the test), copied into docs/img when AFR_SCREENSHOTS=1 (set it only
// for the tests of the real pages, whose screenshots the README shows).
//
// Every step runs under a timeout (Timeout, per step), so a page that never
// becomes ready fails its test with the step that waited instead of hanging.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Timeout bounds each step of a Page (a load, a wait, a read) and the start
// of the browser.
const Timeout = 30 * time.Second

// candidates are the names of a Chromium binary looked up on PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome"}

// Find returns the path of the Chromium binary to use: $AFR_CHROMIUM when
// set (it must exist), else the first of chromium, chromium-browser and
// google-chrome on PATH. Its error says what was looked for and how to get
// a browser.
func Find() (string, error) {
	if p := os.Getenv("AFR_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("AFR_CHROMIUM=%s is not an executable file (%v): point it at a Chromium binary or unset it", p, err)
		}
		return p, nil
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found (looked for %s on PATH, and AFR_CHROMIUM is unset): run `make setup` as root or with passwordless sudo to install Debian's chromium, or set AFR_CHROMIUM to a Chromium binary", strings.Join(candidates, ", "))
}

// Browser is one headless Chromium process. Its tabs (Pages) may belong to
// the test that started it or to its subtests.
type Browser struct {
	ctx     context.Context // the browser's first tab, which started the process
	path    string
	version string
}

// Start starts a headless Chromium for the test and stops it when the test
// ends. It skips the test, with the reason, when no Chromium is found, and
// fails it when the browser does not start. The sandbox is off only when
// running as root, where Chromium refuses to start with it.
func Start(t testing.TB) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		t.Skipf("browser test skipped: %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.DisableGPU,
		// The machine's network is closed: no background connections at all.
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); cancelAlloc() })

	v, err := first(ctx, chromedp.Evaluate[string](`navigator.userAgent`))
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return &Browser{ctx: ctx, path: path, version: v}
}

// first runs the first action of a chromedp context, which starts the
// browser or opens the tab. Its context must not carry a timeout (chromedp
// ties the browser or tab to it), so a timer watches it instead and cancels
// the context when it takes longer than Timeout.
func first[T any](ctx context.Context, a chromedp.Action[T]) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := chromedp.Run(ctx, a)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(Timeout):
		_ = chromedp.Cancel(ctx)
		var zero T
		return zero, fmt.Errorf("no answer from the browser within %v", Timeout)
	}
}

// Version is the browser's user agent string, which names its version.
func (b *Browser) Version() string { return b.version }

// Page is one tab of a Browser, bound to one test: every method fails that
// test on error.
type Page struct {
	t   testing.TB
	ctx context.Context
	url string
}

// OpenHTML writes html to a file name in the test's temporary directory and
// opens it as a file:// URL, as a user opens a saved page.
func (b *Browser) OpenHTML(t testing.TB, name string, html []byte) *Page {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, html, 0o644); err != nil {
		t.Fatal(err)
	}
	return b.OpenURL(t, (&url.URL{Scheme: "file", Path: path}).String())
}

// ServeHTML serves html from an httptest server on loopback (stopped when
// the test ends) and opens it.
func (b *Browser) ServeHTML(t testing.TB, html []byte) *Page {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(html)
	}))
	t.Cleanup(srv.Close)
	return b.OpenURL(t, srv.URL)
}

// OpenURL opens a new tab at u (closed when the test ends) and waits for
// the page's load event.
func (b *Browser) OpenURL(t testing.TB, u string) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	if _, err := first(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	return &Page{t: t, ctx: ctx, url: u}
}

// run runs one action under the step timeout and fails the test on error,
// naming the step.
func run[T any](p *Page, step string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			p.t.Fatalf("%s on %s: not done within %v", step, p.url, Timeout)
		}
		p.t.Fatalf("%s on %s: %v", step, p.url, err)
	}
	return v
}

func (p *Page) do(step string, a chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	run(p, step, a)
}

// WaitVisible waits until an element matching the CSS selector is visible.
func (p *Page) WaitVisible(sel string) {
	p.t.Helper()
	p.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// WaitAttr waits until the first element matching sel has the attribute
// name with a non-empty value, and returns the value.
func (p *Page) WaitAttr(sel, name string) string {
	p.t.Helper()
	return p.WaitJS(fmt.Sprintf(`(document.querySelector(%q) || {getAttribute(){return ""}}).getAttribute(%q) || ""`, sel, name),
		fmt.Sprintf("attribute %s of %s", name, sel))
}

// WaitJS waits until the JavaScript expression is a non-empty string and
// returns it; what names the wait in a failure.
func (p *Page) WaitJS(expr, what string) string {
	p.t.Helper()
	return run(p, "wait for "+what, chromedp.Poll[string](expr, chromedp.WithPollingTimeout(Timeout)))
}

// Text is the textContent of the first element matching sel (all of its
// text, shown or not, with markup removed).
func (p *Page) Text(sel string) string {
	p.t.Helper()
	return run(p, "text of "+sel, chromedp.TextContent(chromedp.CSS(sel)))
}

// Attr is the value of attribute name of the first element matching sel
// ("" when it has none).
func (p *Page) Attr(sel, name string) string {
	p.t.Helper()
	return run(p, "attribute "+name+" of "+sel, chromedp.AttributeValue(chromedp.CSS(sel), name)).Value
}

// Count is the number of elements matching sel, without waiting.
func (p *Page) Count(sel string) int {
	p.t.Helper()
	return Eval[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// CountVisible is the number of elements matching sel that are rendered
// (have a layout box: not display:none, nor inside a hidden element).
func (p *Page) CountVisible(sel string) int {
	p.t.Helper()
	return Eval[int](p, fmt.Sprintf(`[...document.querySelectorAll(%q)].filter(e => e.getClientRects().length > 0).length`, sel))
}

// WaitCount waits until the number of elements matching sel (only the
// rendered ones when visible is set, as CountVisible) is n, for pages that
// update after an event or a timer; it fails the test with the last count.
func (p *Page) WaitCount(sel string, n int, visible bool) {
	p.t.Helper()
	count := p.Count
	if visible {
		count = p.CountVisible
	}
	deadline := time.Now().Add(Timeout)
	for {
		got := count(sel)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s on %s: %d elements (visible only: %v) after %v, want %d", sel, p.url, got, visible, Timeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Type focuses the first element matching sel and types text into it, key
// by key, as a user does (input events fire).
func (p *Page) Type(sel, text string) {
	p.t.Helper()
	p.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// Upload sets the files of the file input sel, as a user picking them
// (the input's change event fires).
func (p *Page) Upload(sel string, files ...string) {
	p.t.Helper()
	abs := make([]string, len(files))
	for i, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			p.t.Fatal(err)
		}
		abs[i] = a
	}
	p.do("set files of "+sel, chromedp.SetUploadFiles(chromedp.CSS(sel), abs))
}

// Click clicks the first element matching sel, as a user does (scrolled
// into view, the left button at its centre).
func (p *Page) Click(sel string) {
	p.t.Helper()
	p.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// Drag presses the left mouse button at x0, y0, moves to x1, y1 and
// releases it there, as a user drags (CSS pixels of the viewport; points
// at least 10 pixels apart).
func (p *Page) Drag(x0, y0, x1, y1 float64) {
	p.t.Helper()
	p.do(fmt.Sprintf("drag from %.0f,%.0f to %.0f,%.0f", x0, y0, x1, y1), chromedp.DragAndDropXY(x0, y0, x1, y1))
}

// ClickAt clicks the left mouse button n times at x, y (n = 2: a double
// click).
func (p *Page) ClickAt(x, y float64, n int) {
	p.t.Helper()
	for i := 1; i <= n; i++ {
		p.do(fmt.Sprintf("click %d at %.0f,%.0f", i, x, y), chromedp.MouseClickXY(x, y, chromedp.ClickCount(i)))
	}
}

// Wheel turns the mouse wheel by dy CSS pixels (negative: up) at x, y.
func (p *Page) Wheel(x, y, dy float64) {
	p.t.Helper()
	// Input.dispatchMouseEvent wants deltaX too, which the typed parameters
	// leave out when it is zero.
	wheel := cdp.Command[map[string]any, cdp.Empty]{Method: input.CommandDispatchMouseEvent}
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, wheel, map[string]any{"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": dy}); err != nil {
		p.t.Fatalf("wheel %.0f at %.0f,%.0f on %s: %v", dy, x, y, p.url, err)
	}
}

// Download clicks the element sel, waits until the download the click
// starts has completed, and returns the name the page gave the file and its
// content.
func (p *Page) Download(sel string) (string, []byte) {
	p.t.Helper()
	dir := p.t.TempDir()
	events := true
	if _, err := chromedp.CallBrowser(p.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events}); err != nil {
		p.t.Fatalf("allowing downloads on %s: %v", p.url, err)
	}
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	begin := chromedp.BrowserEvents(ctx, cdpbrowser.DownloadWillBegin)
	progress := chromedp.BrowserEvents(ctx, cdpbrowser.DownloadProgress)
	p.Click(sel)
	var name, guid string
	for ev, err := range begin {
		if err != nil {
			p.t.Fatalf("waiting for the download %s starts on %s: %v", sel, p.url, err)
		}
		name, guid = ev.SuggestedFilename, ev.GUID
		break
	}
	for ev, err := range progress {
		if err != nil {
			p.t.Fatalf("waiting for the download %s started on %s: %v", sel, p.url, err)
		}
		if ev.GUID != guid {
			continue
		}
		if ev.State == cdpbrowser.DownloadProgressStateCanceled {
			p.t.Fatalf("the download %s started on %s was cancelled", sel, p.url)
		}
		if ev.State == cdpbrowser.DownloadProgressStateCompleted {
			break
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, guid))
	if err != nil {
		p.t.Fatalf("the download %s started on %s: %v", sel, p.url, err)
	}
	return name, b
}

// Eval evaluates the JavaScript expression in the page and decodes its
// value (JSON) into T.
func Eval[T any](p *Page, expr string) T {
	p.t.Helper()
	return run(p, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// Screenshot takes a full-page PNG screenshot, writes it as name.png into
// the test's artifact directory and returns its path. With
// AFR_SCREENSHOTS=1 it also copies it into docs/img of the repository, for
// the README.
func (p *Page) Screenshot(name string) string {
	p.t.Helper()
	png := run(p, "screenshot", chromedp.FullScreenshot(100))
	path := filepath.Join(p.t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
	if os.Getenv("AFR_SCREENSHOTS") == "1" {
		dir := filepath.Join(repoRoot(p.t), "docs", "img")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			p.t.Fatal(err)
		}
		keep := filepath.Join(dir, name+".png")
		if err := os.WriteFile(keep, png, 0o644); err != nil {
			p.t.Fatal(err)
		}
		p.t.Logf("screenshot copied to %s", keep)
	}
	return path
}

// repoRoot is the directory holding go.mod, above the test's working
// directory (its package directory).
func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("AFR_SCREENSHOTS=1: no go.mod above the test's directory")
		}
		dir = parent
	}
}
