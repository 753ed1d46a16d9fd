package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The flow of make demo, end to end, on both backends (fewer events).
func TestDemoFlow(t *testing.T) {
	for _, backend := range []string{"embedded", "anvil"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dir := t.TempDir()
			rep, err := demo(ctx, t.Logf, backend, dir, 800)
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(filepath.Join(dir, "report.html"))
			if err != nil {
				t.Fatal(err)
			}
			// The kind filter offers chain_tx: the timeline holds on-chain events.
			for _, want := range []string{`data-verdict="verified"`, `<svg id="causal"`, `<option>chain_tx</option>`} {
				if !strings.Contains(string(page), want) {
					t.Errorf("report.html has no %s", want)
				}
			}
			if !rep.OK || rep.Verify.Verdict != "verified" || rep.Bundle.Verdict != "verified" || rep.Rogue.Verdict != "incomplete" {
				t.Fatalf("verdicts: %+v %+v %+v", rep.Verify, rep.Bundle, rep.Rogue)
			}
			for _, v := range rep.Tamper {
				if v.Verdict != "tampered" {
					t.Errorf("%s: %s", v.What, v.Verdict)
				}
			}
			if a := rep.Anchoring; a.Epochs != rep.Recording.Epochs || a.WindowAfter != 0 || a.SteadyGasMax > 31_000 {
				t.Errorf("anchoring %+v, recording %+v", a, rep.Recording)
			}
			var denied, approved int
			for _, a := range rep.Actions {
				if a.Decision == "deny" && a.Refused == "DecisionNotAllow" && a.Tx == "" {
					denied++
				}
				if a.Approval && a.Approver != "" && a.Tx != "" {
					approved++
				}
			}
			if denied != 1 || approved != 1 {
				t.Errorf("actions: %d denied and refused, %d approved by a human; want 1 and 1: %+v", denied, approved, rep.Actions)
			}
			t.Logf("%s: anchor gas first %d, steady %d–%d; confirmation median %.0f ms", backend, rep.Anchoring.FirstGas,
				rep.Anchoring.SteadyGasMin, rep.Anchoring.SteadyGasMax, rep.Anchoring.LatencyMedianMs)
		})
	}
}
