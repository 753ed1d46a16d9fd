package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/bench"
	"github.com/agentflightrecorder/afr/internal/traces"
)

// benchRun runs afr bench with args in-process.
func benchRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}, append([]string{"bench"}, args...))
	return code, out.String(), errOut.String()
}

// readTable reads DIR/ID.json, decoding its data into data (unless the
// table was not measured: it then has none).
func readTable(t *testing.T, dir, id string, data any) *bench.Table {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab struct {
		bench.Table
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatalf("%s.json: %v", id, err)
	}
	if data != nil && tab.Skipped == "" {
		if err := json.Unmarshal(tab.Data, data); err != nil {
			t.Fatalf("%s.json data: %v", id, err)
		}
	}
	return &tab.Table
}

// checkPlots checks that every plot of the table is a PNG that decodes and
// an SVG document.
func checkPlots(t *testing.T, dir string, tab *bench.Table) {
	t.Helper()
	if len(tab.Plots) == 0 {
		t.Errorf("%s has no plot", tab.ID)
	}
	for _, p := range tab.Plots {
		f, err := os.Open(filepath.Join(dir, p+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s.png: %v", p, err)
		} else if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 100 {
			t.Errorf("%s.png is %v", p, b)
		}
		svg, err := os.ReadFile(filepath.Join(dir, p+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		var root struct {
			XMLName xml.Name
			Paths   []struct{} `xml:"g>path"`
		}
		if err := xml.Unmarshal(svg, &root); err != nil || root.XMLName.Local != "svg" || len(root.Paths) == 0 {
			t.Errorf("%s.svg: root <%s>, %d paths, %v: not a drawing", p, root.XMLName.Local, len(root.Paths), err)
		}
	}
}

// afr bench --quick, end to end: every table printed and written, with
// the outcomes the system must have — every attack detected and no false
// positive (Table IV), the incident rebuilt exactly (RQ4), anchors that
// verify on the chain (Table III) — and valid plots.
func TestBenchQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: afr bench --quick records, anchors and attacks logs for about 20 s")
	}
	tracesDir, tracesErr := traces.Locate("")
	out := t.TempDir()
	md := filepath.Join(t.TempDir(), "REPRODUCTION.md")
	args := []string{"--quick", "-o", out, "--markdown", md}
	if tracesErr == nil {
		args = append(args, "--traces", tracesDir)
	}
	code, stdout, stderr := benchRun(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	reproduction, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"Table II", "Table III", "Table IV", "RQ1", "RQ4"} {
		for what, text := range map[string]string{"stdout": stdout, "README.md": string(readme), "--markdown": string(reproduction)} {
			if !strings.Contains(text, title+" — ") {
				t.Errorf("%s has no %s", what, title)
			}
		}
	}
	if !strings.Contains(string(reproduction), "afr bench --quick") || !strings.Contains(string(reproduction), "| cores |") {
		t.Errorf("the Markdown report does not give the command and the machine:\n%.500s", reproduction)
	}
	if !strings.Contains(stderr, "afr bench: table4 ") {
		t.Errorf("no progress lines on stderr (not a terminal):\n%s", stderr)
	}

	var t2 struct{ Rows []bench.LadderRow }
	checkPlots(t, out, readTable(t, out, "table2", &t2))
	if len(t2.Rows) != 2*5 {
		t.Errorf("Table II: %d rows, want 5 rungs at 2 sizes", len(t2.Rows))
	}
	for _, r := range t2.Rows {
		if r.MedianNs <= 0 || r.P95Ns < r.MedianNs || r.P99Ns < r.P95Ns || r.Bytes < 100 || r.Seeds != 3 {
			t.Errorf("Table II row %+v", r)
		}
	}

	var t3 struct {
		Measured []bench.Gas
		Costs    []bench.Cost
		Verdict  string
		Batches  []bench.BatchGas `json:"aggregated"`
	}
	checkPlots(t, out, readTable(t, out, "table3", &t3))
	if len(t3.Measured) != 1 || t3.Measured[0].Transactions != 4 || t3.Measured[0].SteadyMean <= 0 || t3.Measured[0].First <= uint64(t3.Measured[0].SteadyMean) ||
		len(t3.Costs) != len(bench.EpochSizes) || !strings.HasPrefix(t3.Verdict, "verified") {
		t.Errorf("Table III: %+v", t3)
	}
	// Aggregated anchoring: batches of 1, 10 and 100 logs in both
	// publication modes, every log verified; with the contents in the
	// batches file, 100 logs per batch cost at most 2,000 gas per log-epoch
	// (the fleets issue's goal) and a batch costs about one anchor.
	if len(t3.Batches) != 6 {
		t.Fatalf("Table III aggregated: %d rows, want 6: %+v", len(t3.Batches), t3.Batches)
	}
	for _, g := range t3.Batches {
		// (A first batch in the event costs less than the second: its
		// entries' zero back-pointers are cheap calldata.)
		if g.Verified != g.Logs || g.BatchGas == 0 || g.FirstGas == 0 || g.PerLogEpoch != float64(g.BatchGas)/float64(g.Logs) {
			t.Errorf("Table III aggregated row %+v", g)
		}
		if g.Publication == "batches file" && g.Logs == 100 && g.PerLogEpoch > 2_000 {
			t.Errorf("100 logs per batch cost %.0f gas per log-epoch, want ≤ 2,000", g.PerLogEpoch)
		}
		if g.Publication == "batches file" && (g.BatchGas > 31_000 || g.FirstGas <= g.BatchGas) {
			t.Errorf("a batch of %d logs costs %d gas, more than one per-log anchor's bar (31,000)", g.Logs, g.BatchGas)
		}
	}

	var t4 struct {
		Cells          []struct{ Detected bool }
		Detected       int
		Attacks        int
		Clean          []struct{ Verdict string } `json:"clean_runs"`
		FalsePositives int                        `json:"false_positives"`
	}
	checkPlots(t, out, readTable(t, out, "table4", &t4))
	if t4.Attacks < 15*10 || t4.Detected != t4.Attacks || len(t4.Cells) != t4.Attacks {
		t.Errorf("Table IV: %d of %d attacks detected, %d cells", t4.Detected, t4.Attacks, len(t4.Cells))
	}
	if t4.FalsePositives != 0 || len(t4.Clean) != 2*3 {
		t.Errorf("Table IV: %d false positives in %d clean verifications", t4.FalsePositives, len(t4.Clean))
	}

	var rq4 struct {
		Structured struct{ Precision, Recall float64 }
		Grep       []struct{ Precision, Recall float64 }
	}
	checkPlots(t, out, readTable(t, out, "rq4", &rq4))
	if rq4.Structured.Precision != 1 || rq4.Structured.Recall != 1 || len(rq4.Grep) == 0 {
		t.Errorf("RQ4: structured %+v, %d grep baselines", rq4.Structured, len(rq4.Grep))
	}
	for _, g := range rq4.Grep {
		if g.Precision == 1 && g.Recall == 1 {
			t.Errorf("RQ4: a grep baseline rebuilt the incident exactly: %+v", rq4.Grep)
		}
	}

	var rq1 struct {
		Trajectories []struct{ Verdict string }
		Actions      int
		Timings      []bench.RungTiming
	}
	tab := readTable(t, out, "rq1", &rq1)
	if tracesErr != nil {
		t.Logf("RQ1 not checked: %v", tracesErr)
		if tab.Skipped == "" || !strings.Contains(stdout, "Not measured: ") {
			t.Errorf("RQ1 without trajectories does not say so: %+v", tab)
		}
		return
	}
	checkPlots(t, out, tab)
	if len(rq1.Trajectories) == 0 || rq1.Actions == 0 || len(rq1.Timings) != 2 {
		t.Fatalf("RQ1: %+v", rq1)
	}
	for _, tr := range rq1.Trajectories {
		if tr.Verdict != "verified" {
			t.Errorf("RQ1: a trajectory's log is %s", tr.Verdict)
		}
	}
}

// Without trajectories RQ1 says why in its table, and the run succeeds.
func TestBenchWithoutTrajectories(t *testing.T) {
	empty, out := t.TempDir(), t.TempDir()
	code, stdout, stderr := benchRun(t, "--only", "rq1", "--traces", empty, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	tab := readTable(t, out, "rq1", nil)
	if !strings.Contains(tab.Skipped, empty) || !strings.Contains(stdout, "Not measured: no trajectories in "+empty) {
		t.Fatalf("RQ1 does not say the trajectories are absent: %q\n%s", tab.Skipped, stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, "rq1.md"))
	if err != nil || !strings.Contains(string(md), "**Not measured:**") {
		t.Fatalf("rq1.md: %v\n%s", err, md)
	}
}

// Table III on a real anvil.
func TestBenchAnchoringOnAnvil(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts anvil and anchors logs")
	}
	out := t.TempDir()
	code, stdout, stderr := benchRun(t, "--quick", "--only", "table3", "--backend", "anvil", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var t3 struct {
		Measured []bench.Gas
		Verdict  string
	}
	readTable(t, out, "table3", &t3)
	if len(t3.Measured) != 1 || !strings.HasPrefix(t3.Measured[0].Where, "anvil at http://127.0.0.1:") || t3.Measured[0].SteadyMean <= 0 || !strings.HasPrefix(t3.Verdict, "verified") {
		t.Fatalf("Table III on anvil: %+v", t3)
	}
}

func TestBenchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-h"}, 0, "--only table2,table3,table4,rq1,rq4"},
		{[]string{"--only", "table9"}, 2, `unknown table "table9"`},
		{[]string{"--backend", "ganache"}, 2, `unknown backend "ganache"`},
		{[]string{"--seeds", "-1"}, 2, "seeds"},
		{[]string{"table2"}, 2, "unexpected arguments"},
	} {
		code, stdout, stderr := benchRun(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("afr bench %v: exit %d, want %d with %q\n%s%s", tc.args, code, tc.code, tc.want, stdout, stderr)
		}
	}
}
