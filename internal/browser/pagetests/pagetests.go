// Package pagetests holds the browser checks of AFR's two pages, the
// forensic report (package report) and the verifier page (package
// verifier/page): their tests write a page, hand its bytes to CheckReportPage
// or CheckVerifyPage with what it must show, and log the time to verdict
// these return. The checks rely only on the pages' DOM contract (ids,
// classes and data- attributes, listed on each Want type). Only test code
// imports this package.
package pagetests

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentflightrecorder/afr/internal/browser"
)

// XSSProbe is the agent-supplied string to record in an event whose text a
// page shows: if the page ever parses it as HTML, it sets window.afrXSS
// (the img's onerror runs even where an injected <script> would not). The
// checks assert the flag stays unset and the string is shown literally.
const XSSProbe = `<script>window.afrXSS=1</script><img src=x onerror="window.afrXSS=1">`

// checkProbe fails the test when the probe ran in the page, or when want is
// set and no element matching sel shows the probe literally.
func checkProbe(t *testing.T, p *browser.Page, sel string, want bool) {
	t.Helper()
	if browser.Eval[bool](p, `"afrXSS" in window`) {
		t.Error("the XSS probe ran: window.afrXSS is set")
	}
	if !want {
		return
	}
	shown := browser.Eval[bool](p, `[...document.querySelectorAll(`+quote(sel)+`)].some(e => e.textContent.includes(`+quote(XSSProbe)+`))`)
	if !shown {
		t.Errorf("no %s shows the probe %q as text", sel, XSSProbe)
	}
}

// kinds is the sorted list of the data-kind attributes of the elements
// matching sel.
func kinds(p *browser.Page, sel string) []string {
	k := browser.Eval[[]string](p, `[...document.querySelectorAll(`+quote(sel)+`)].map(e => e.dataset.kind || "")`)
	slices.Sort(k)
	return k
}

// sameKinds fails the test when the kinds found differ from want, in any
// order.
func sameKinds(t *testing.T, what string, got, want []string) {
	t.Helper()
	w := slices.Clone(want)
	slices.Sort(w)
	if !slices.Equal(got, w) {
		t.Errorf("%s: kinds %q, want %q", what, got, w)
	}
}

// quote makes a JavaScript string literal of s.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
