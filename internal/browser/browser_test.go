package browser_test

import (
	"bytes"
	"image/png"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/internal/browser"
)

// probe is the agent-supplied string of the fixtures' event 2: markup that
// sets window.afrXSS if it is ever parsed as HTML.
const probe = `<script>window.afrXSS=1</script><img src=x onerror="window.afrXSS=1">`

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFindSaysWhatIsMissing: without a browser, Find's error names what it
// looked for and how to get one; a wrong AFR_CHROMIUM is named as such.
func TestFindSaysWhatIsMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("AFR_CHROMIUM", "")
	_, err := browser.Find()
	if err == nil || !strings.Contains(err.Error(), "chromium-browser") || !strings.Contains(err.Error(), "make setup") {
		t.Errorf("Find with an empty PATH: %v, want an error naming the binaries looked for and make setup", err)
	}
	t.Setenv("AFR_CHROMIUM", "/nonexistent/chromium")
	_, err = browser.Find()
	if err == nil || !strings.Contains(err.Error(), "AFR_CHROMIUM=/nonexistent/chromium") {
		t.Errorf("Find with a missing AFR_CHROMIUM: %v, want an error naming it", err)
	}
}

// TestHarness drives the fixture pages of testdata in one real Chromium:
// every helper of Page against what the page really shows.
func TestHarness(t *testing.T) {
	b := browser.Start(t)
	t.Logf("browser: %s", b.Version())
	report := readFixture(t, "report.html")

	t.Run("load a file and read the verdict and the rows", func(t *testing.T) {
		p := b.OpenHTML(t, "report.html", report)
		p.WaitVisible("#timeline .event")
		if got := p.Attr("#verdict", "data-verdict"); got != "tampered" {
			t.Errorf("verdict %q, want tampered", got)
		}
		if got := strings.TrimSpace(p.Text("#verdict")); got != "TAMPERED" {
			t.Errorf("verdict text %q, want TAMPERED", got)
		}
		if got := p.Count(".event"); got != 6 {
			t.Errorf("%d event rows, want 6", got)
		}
		if got := p.Count("li.finding"); got != 2 {
			t.Errorf("%d findings, want 2", got)
		}
		if got := p.Count(".event[data-kind=chain_tx]"); got != 1 {
			t.Errorf("%d chain_tx rows, want 1", got)
		}
		if got := p.Count("#no-such-element"); got != 0 {
			t.Errorf("Count of a missing selector: %d", got)
		}
	})

	t.Run("search filters the rows", func(t *testing.T) {
		p := b.OpenHTML(t, "report.html", report)
		p.WaitVisible("#timeline .event")
		p.Type("#search", "alice")
		p.WaitCount(".event", 4, true)
		if got := p.CountVisible(".event[data-agent=bob]"); got != 0 {
			t.Errorf("%d of bob's rows still shown after searching alice", got)
		}
		if got := p.Count(".event"); got != 6 {
			t.Errorf("%d rows in the page after filtering, want all 6 (hidden, not removed)", got)
		}
	})

	t.Run("an injected script stays text", func(t *testing.T) {
		p := b.OpenHTML(t, "report.html", report)
		p.WaitVisible("#timeline .event")
		if got := p.Text(`.event[data-seq="2"] pre`); got != probe {
			t.Errorf("event 2 shows %q, want the probe literally: %q", got, probe)
		}
		if browser.Eval[bool](p, `"afrXSS" in window`) {
			t.Error("the probe ran: window.afrXSS is set")
		}
	})

	t.Run("the probe fires on a page that renders it as HTML", func(t *testing.T) {
		// The control of the test above: the same string through innerHTML,
		// served over loopback, does run. ("</" is written "<\/" in the
		// script's string literal, which would otherwise end the script.)
		literal := strings.ReplaceAll(strconv.Quote(probe), "</", `<\/`)
		vulnerable := []byte(`<!DOCTYPE html><body><div id="out"></div><script>
document.getElementById("out").innerHTML = ` + literal + `;</script></body>`)
		p := b.ServeHTML(t, vulnerable)
		if got := p.WaitJS(`window.afrXSS ? "fired" : ""`, "the probe to fire"); got != "fired" {
			t.Errorf("window.afrXSS: %q", got)
		}
	})

	t.Run("a file input reads the chosen file", func(t *testing.T) {
		p := b.OpenHTML(t, "verify.html", readFixture(t, "verify.html"))
		p.WaitAttr("body", "data-ready")
		p.Upload("#bundle", "testdata/bundle.json")
		got := p.WaitJS(`document.getElementById("size").textContent`, "the byte count")
		if want := strconv.Itoa(len(readFixture(t, "bundle.json"))); got != want {
			t.Errorf("the page read %s bytes, want %s", got, want)
		}
	})

	t.Run("a full-page screenshot is a PNG", func(t *testing.T) {
		p := b.OpenHTML(t, "report.html", report)
		p.WaitVisible("#timeline .event")
		path := p.Screenshot("fixture-report")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("screenshot %s: %v", path, err)
		}
		if r := img.Bounds(); r.Dx() != 1280 || r.Dy() < 300 {
			t.Errorf("screenshot is %dx%d, want the page at the window's width 1280", r.Dx(), r.Dy())
		}
	})
}
