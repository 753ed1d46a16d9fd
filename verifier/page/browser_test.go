package page_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/browser"
	"github.com/agentflightrecorder/afr/internal/browser/pagetests"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/page"
)

// disclosed writes a real log of n events whose last one's tool name is the
// XSS probe, discloses that event with its key and payload, and returns the
// bundle and the anchors file of the log's roots (as afr anchors writes it).
func disclosed(t testing.TB, n int) (bundle, anchors string) {
	bundle, anchors, _ = disclosedLog(t, n)
	return bundle, anchors
}

// disclosedLog is disclosed, also returning the anchors themselves.
func disclosedLog(t testing.TB, n int) (bundle, anchors string, as []format.Anchor) {
	t.Helper()
	dir := t.TempDir()
	evs := make([]format.Event, n)
	for i := range evs {
		tool := "shell"
		if i == n-1 {
			tool = pagetests.XSSProbe
		}
		evs[i] = format.Event{Tool: tool, Kind: format.KindToolCall, Payload: format.Payload{
			Intent: &format.Intent{Tool: tool, Args: map[string]any{"cmd": pagetests.XSSProbe}}}}
	}
	last := uint64(n - 1)
	l := logtest.Write(t, recorder.Options{Recorder: "page-test", Encrypt: true, EpochSize: 8, Sync: recorder.SyncNone}, evs)
	keys := keyring(t, l)
	b, err := verifier.Disclose(l, []uint64{last}, verifier.DiscloseOptions{Keys: keys, Payloads: true})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	bundle = filepath.Join(dir, "event.afrb")
	if err := os.WriteFile(bundle, enc, 0o600); err != nil {
		t.Fatal(err)
	}
	if as, err = verifier.AnchorsFromLog(l); err != nil {
		t.Fatal(err)
	}
	anchors = filepath.Join(dir, "anchors.json")
	if err := format.WriteAnchorsFile(anchors, as); err != nil {
		t.Fatal(err)
	}
	return bundle, anchors, as
}

// keyring opens the keys of the log l, closed when the test ends.
func keyring(t testing.TB, l *recorder.Log) *recorder.Keyring {
	t.Helper()
	_, session, err := l.Identity()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := recorder.OpenKeyring(filepath.Join(l.Dir, "keys"), session)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keys.Close() })
	return keys
}

// The verifier page in a real browser (headless Chromium): the WebAssembly
// verifier loads offline, verifies a disclosed event against an anchors
// file, shows it with the attacker-controlled tool name as text, says
// tampered for a bundle with one byte flipped and incomplete without
// anchors; screenshots in the test's artifact directory (docs/img with
// AFR_SCREENSHOTS=1).
func TestVerifyPageInABrowser(t *testing.T) {
	b := browser.Start(t)
	var html bytes.Buffer
	if err := page.Write(&html); err != nil {
		t.Fatal(err)
	}
	bundle, anchors := disclosed(t, 20)
	d := pagetests.CheckVerifyPage(t, b, html.Bytes(), bundle, anchors, pagetests.VerifyWant{
		Verdict: "verified", Events: 1, Probe: true, Screenshot: "verify",
	})
	t.Logf("time to verdict, one-event bundle: %v", d)

	raw, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := verifier.DecodeBundle(raw)
	if err != nil {
		t.Fatal(err)
	}
	rec := dec.Events[0].Record
	at := bytes.Index(raw, rec)
	raw[at+len(rec)-1] ^= 1 // the record's last byte: its prev digest
	flipped := filepath.Join(t.TempDir(), "flipped.afrb")
	if err := os.WriteFile(flipped, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	pagetests.CheckVerifyPage(t, b, html.Bytes(), flipped, anchors, pagetests.VerifyWant{
		Verdict: "tampered", Events: 1, FindingKinds: []string{string(verifier.KindProofInvalid)}, Probe: true, Screenshot: "verify-tampered",
	})
	pagetests.CheckVerifyPage(t, b, html.Bytes(), bundle, "", pagetests.VerifyWant{
		Verdict: "incomplete", Events: 1, FindingKinds: []string{string(verifier.KindUnanchored)}, Probe: true,
	})
}

// Time to verdict of a one-event bundle in the browser, from choosing the
// files to the verdict shown (ns/op), and the time for a new tab to open the
// page and load its WebAssembly (load-ms) (docs/PERFORMANCE.md, Reports):
// go test -run '^$' -bench BenchmarkVerifyPageInABrowser -benchtime 10x ./verifier/page
func BenchmarkVerifyPageInABrowser(b *testing.B) {
	br := browser.Start(b)
	var html bytes.Buffer
	if err := page.Write(&html); err != nil {
		b.Fatal(err)
	}
	bundle, anchors := disclosed(b, 20)
	var load time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		opened := time.Now()
		p := br.OpenHTML(b, "verify.html", html.Bytes())
		p.WaitAttr("body", "data-ready")
		load += time.Since(opened)
		b.StartTimer()
		p.Upload("#anchors", anchors)
		p.Upload("#bundle", bundle)
		if v := p.WaitAttr("#verdict", "data-verdict"); v != "verified" {
			b.Fatalf("run %d: verdict %q", i, v)
		}
	}
	b.StopTimer()
	load /= time.Duration(b.N)
	b.ReportMetric(float64(html.Len()), "page-bytes")
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
}

// Every disclosure bundle vector (fixtures/vectors/bundle) gives in the
// browser the verdict and finding kinds the CLI gives: the same verifier,
// compiled to WebAssembly, on the same inputs.
func TestBundleVectorsInABrowser(t *testing.T) {
	b := browser.Start(t)
	var html bytes.Buffer
	if err := page.Write(&html); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../fixtures/vectors/bundle/*.json")
	if len(files) == 0 {
		t.Fatal("no bundle vectors")
	}
	p := b.OpenHTML(t, "verify.html", html.Bytes())
	p.WaitAttr("body", "data-ready")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Bundle  string
			Anchors []format.Anchor
			Level   string
			Verdict string
			Kinds   []verifier.FindingKind
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		bundle, err := hex.DecodeString(v.Bundle)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		bundleFile, anchorsFile := filepath.Join(dir, name+".afrb"), filepath.Join(dir, name+".anchors.json")
		if err := os.WriteFile(bundleFile, bundle, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := format.WriteAnchorsFile(anchorsFile, v.Anchors); err != nil {
			t.Fatal(err)
		}
		// The level, then both files; the verdict is this vector's once the
		// summary names its anchors file and the status its bundle.
		browser.Eval[bool](p, `(document.getElementById("level").value = `+strconv.Quote(v.Level)+`, true)`)
		p.Upload("#anchors", anchorsFile)
		p.Upload("#bundle", bundleFile)
		p.WaitJS(`document.getElementById("summary").textContent.includes(`+strconv.Quote(name+".anchors.json")+`) &&
			document.body.textContent.includes(`+strconv.Quote("Bundle "+name+".afrb")+`) &&
			document.getElementById("verdict").hasAttribute("data-verdict") ? "1" : ""`, "the verdict of "+name)
		got := p.WaitAttr("#verdict", "data-verdict")
		kinds := browser.Eval[[]string](p, `[...document.querySelectorAll("#findings li.finding")].map(e => e.dataset.kind)`)
		if got != v.Verdict {
			t.Errorf("%s: verdict %s in the browser, %s by the CLI (findings %v)", filepath.Base(f), got, v.Verdict, kinds)
		}
		for _, k := range v.Kinds {
			if !slices.Contains(kinds, string(k)) {
				t.Errorf("%s: no %s finding in the browser: %v", filepath.Base(f), k, kinds)
			}
		}
	}
}

// The page reads the anchors from a chain itself: the operator anchors the
// log's epochs on EpochAnchor on a real anvil (which allows cross-origin
// requests), and the page, given the node's URL, the contract and the
// operator (the log id it takes from the bundle), fetches the Anchored
// events with eth_getLogs from the browser and verifies the bundle against
// them.
func TestVerifyPageReadsAnchorsFromTheChain(t *testing.T) {
	b := browser.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	node, err := backend.StartAnvil(ctx, anvil.Options{Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	c := node.Client()
	dep, err := chain.Deploy(ctx, c, node.Keys()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	bundle, _, as := disclosedLog(t, 20)
	raw, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	b0, err := verifier.DecodeBundle(raw)
	if err != nil {
		t.Fatal(err)
	}
	op := node.Keys()[1]
	ea := bindings.NewEpochAnchor()
	for _, a := range as {
		if _, err := chain.Transact(ctx, c, op, &dep.EpochAnchor, nil, ea.PackAnchor(b0.LogID(), a.Epoch, a.Root, a.PrevRoot)); err != nil {
			t.Fatal(err)
		}
	}
	var html bytes.Buffer
	if err := page.Write(&html); err != nil {
		t.Fatal(err)
	}
	p := b.OpenHTML(t, "verify.html", html.Bytes())
	p.WaitAttr("body", "data-ready")
	// The bundle first: unanchored, and the log id field is filled in
	// from it.
	p.Upload("#bundle", bundle)
	p.WaitJS(`document.body.textContent.includes("Bundle event.afrb") &&
		document.getElementById("verdict").hasAttribute("data-verdict") ? "1" : ""`, "the verdict without anchors")
	if v := p.Attr("#verdict", "data-verdict"); v != "incomplete" {
		t.Fatalf("verdict %s without anchors", v)
	}
	if id := browser.Eval[string](p, `document.getElementById("log-id").value`); id != b0.LogID().String() {
		t.Fatalf("log id field %q, the bundle's log id is %s", id, b0.LogID())
	}
	p.Type("#rpc", node.URL())
	p.Type("#contract", dep.EpochAnchor.Hex())
	p.Type("#operator", chain.Address(op).Hex())
	browser.Eval[bool](p, `(document.getElementById("fetch-anchors").click(), true)`)
	p.WaitJS(`document.body.textContent.includes("epochs anchored by") ? "1" : (document.getElementById("error").textContent || "")`, "the anchors read from the chain")
	if e := p.Text("#error"); e != "" {
		t.Fatalf("the page could not read the anchors: %s", e)
	}
	// The verdict of this bundle against these anchors: the summary names
	// the node.
	p.WaitJS(`document.getElementById("summary").textContent.includes(`+strconv.Quote("read from "+node.URL())+`) &&
		document.getElementById("verdict").hasAttribute("data-verdict") ? "1" : ""`, "the verdict against the chain's anchors")
	if v := p.Attr("#verdict", "data-verdict"); v != "verified" {
		t.Fatalf("verdict %s against the chain's anchors (findings: %s; summary: %s)", v, p.Text("#findings"), p.Text("#summary"))
	}
	// The page says whose word the anchors rest on, and which chain.
	if sum := p.Text("#summary"); !strings.Contains(sum, fmt.Sprintf("chain id %d", node.Node.ChainID())) || !strings.Contains(sum, "as trustworthy as that node") {
		t.Errorf("the summary does not say the verdict rests on the node: %s", sum)
	}
}

// Every disclosed event's row says whether it was imported (ext "import")
// or observed, and that it cannot tell when the payload is not disclosed
// (its encrypted frame without the event's key).
func TestVerifyPageMarksImported(t *testing.T) {
	evs := []format.Event{
		{Tool: "shell", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: "bash"},
			Ext: map[string]any{"import": map[string]any{"format": "swe-agent"}}}},
		{Tool: "shell", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: "bash"}}},
	}
	l := logtest.Write(t, recorder.Options{Recorder: "origin-test", Encrypt: true, EpochSize: 2, Sync: recorder.SyncNone}, evs)
	keys := keyring(t, l)
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	anchors := filepath.Join(dir, "anchors.json")
	if err := format.WriteAnchorsFile(anchors, as); err != nil {
		t.Fatal(err)
	}
	bundleOf := func(name string, opts verifier.DiscloseOptions) string {
		b, err := verifier.Disclose(l, []uint64{0, 1}, opts)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, enc, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	b := browser.Start(t)
	var html bytes.Buffer
	if err := page.Write(&html); err != nil {
		t.Fatal(err)
	}
	pagetests.CheckVerifyPage(t, b, html.Bytes(), bundleOf("open.afrb", verifier.DiscloseOptions{Keys: keys}), anchors, pagetests.VerifyWant{
		Verdict: "verified", Events: 2, Origins: map[int]string{0: "imported", 1: "observed"},
	})
	pagetests.CheckVerifyPage(t, b, html.Bytes(), bundleOf("sealed.afrb", verifier.DiscloseOptions{Payloads: true}), anchors, pagetests.VerifyWant{
		Verdict: "verified", Events: 2, Origins: map[int]string{0: "unknown", 1: "unknown"},
	})
}
