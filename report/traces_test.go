package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/browser"
	"github.com/agentflightrecorder/afr/internal/browser/pagetests"
	"github.com/agentflightrecorder/afr/internal/traces"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
)

// The report of logs recorded from real agent runs — model output, shell
// commands and file contents nobody here wrote, with quotes, angle brackets
// and code — renders every step, verifies, and in a browser shows the
// verdict and one row per step, with no markup from the agents' text run.
func TestReportOfRealTrajectories(t *testing.T) {
	dir, err := traces.Locate("")
	if err != nil {
		t.Skip(err)
	}
	b := browser.Start(t)
	for _, f := range traces.Files(dir) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			steps, err := traces.Steps(f)
			if err != nil {
				t.Fatal(err)
			}
			l, keys := recordSteps(t, steps)
			as, err := verifier.AnchorsFromLog(l)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(as), verifier.Options{Payloads: verifier.PayloadsOpen, Keys: keys})
			if err != nil {
				t.Fatal(err)
			}
			ix, err := verifier.IndexLog(l, keys)
			if err != nil {
				t.Fatal(err)
			}
			var page bytes.Buffer
			if err := report.Write(&page, report.Input{Report: rep, Index: ix, Anchors: "the log's own roots", Generated: time.Unix(0, 0)}); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(page.String(), "<script"); n != 1 {
				t.Fatalf("%d <script> tags in the page: an agent's text became markup", n)
			}
			epochs := (len(steps) + 3) / 4
			pagetests.CheckReportPage(t, b, page.Bytes(), pagetests.ReportWant{Verdict: "verified", Events: len(steps), Epochs: epochs})
		})
	}
}

// recordSteps records each step, as written by its agent, as an event
// (traces.EventJSON, the form afr record reads), in epochs of 4.
func recordSteps(t *testing.T, steps []json.RawMessage) (*recorder.Log, *recorder.Keyring) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "log")
	r, err := recorder.Open(dir, recorder.Options{Recorder: "traces", Encrypt: true, EpochSize: 4, Sync: recorder.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	for i, step := range steps {
		line, err := traces.EventJSON(step)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := format.ParseEventJSON(line)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if _, err := r.Record(context.Background(), ev); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, session, err := l.Identity()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), session)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keys.Close() })
	return l, keys
}
