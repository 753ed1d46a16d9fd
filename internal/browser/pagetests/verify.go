package pagetests

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/internal/browser"
)

// VerifyWant is what the verifier page must show after a bundle (and an
// anchors file) is chosen. The DOM contract: <input type="file"
// id="bundle">, <input type="file" id="anchors">, #rpc, #contract,
// #operator; <body data-ready="1"> (or a window.afrReady promise) once the
// WebAssembly verifier is loaded; <section id="verdict" data-verdict="…">;
// <li class="event" data-seq data-origin="imported|observed|unknown"> per
// disclosed event of <ul id="events">, its summary saying the origin
// (unknown: the payload, which holds the import mark, is not disclosed); one
// <li class="finding" data-kind="…"> per finding of <ul id="findings">.
type VerifyWant struct {
	Verdict      string         // verified, tampered or incomplete
	Events       int            // disclosed events listed
	FindingKinds []string       // data-kind of every finding, in any order
	Probe        bool           // a disclosed event's text is XSSProbe and must be shown literally
	Origins      map[int]string // data-origin of disclosed events, by seq; nil: not checked
	Screenshot   string         // name of the screenshot (without .png)
}

// ready waits for the page's verifier: body[data-ready="1"], or the
// resolution of window.afrReady, which it marks on the body the same way.
const ready = `(() => {
  if (document.body.dataset.ready === "1") return "1";
  if (window.afrReady && !window.afrReadyWatched) {
    window.afrReadyWatched = true;
    window.afrReady.then(() => { document.body.dataset.ready = "1"; });
  }
  return "";
})()`

// CheckVerifyPage opens the verifier page html from a file, as an auditor
// does offline, waits for its verifier to load, chooses the anchors file
// (when not empty) and the bundle file, checks what the page shows against
// want and takes a full-page screenshot. It returns the time from choosing
// the files to the verdict shown.
func CheckVerifyPage(t *testing.T, b *browser.Browser, html []byte, bundle, anchors string, want VerifyWant) time.Duration {
	t.Helper()
	p := b.OpenHTML(t, "verify.html", html)
	for _, id := range []string{"#bundle", "#anchors", "#rpc", "#contract", "#operator"} {
		if p.Count(id) != 1 {
			t.Errorf("the page has no %s", id)
		}
	}
	p.WaitJS(ready, "the verifier to load")
	start := time.Now()
	if anchors != "" {
		p.Upload("#anchors", anchors)
	}
	p.Upload("#bundle", bundle)
	got := p.WaitAttr("#verdict", "data-verdict")
	elapsed := time.Since(start)
	if got != want.Verdict {
		t.Errorf("verdict %q, want %q (findings: %s)", got, want.Verdict, p.Text("#findings"))
	}
	p.WaitCount("#events li.event", want.Events, false)
	sameKinds(t, "findings", kinds(p, "#findings li.finding"), want.FindingKinds)
	checkProbe(t, p, "#events li.event", want.Probe)
	for seq, origin := range want.Origins {
		sel := `#events li.event[data-seq="` + strconv.Itoa(seq) + `"]`
		if got := p.Attr(sel, "data-origin"); got != origin {
			t.Errorf("event %d: data-origin %q, want %q", seq, got, origin)
		}
		if got := p.Text(sel + " summary"); !strings.Contains(got, origin) {
			t.Errorf("event %d: its row %q does not say %s", seq, got, origin)
		}
	}
	if want.Screenshot != "" {
		p.Screenshot(want.Screenshot)
	}
	return elapsed
}
