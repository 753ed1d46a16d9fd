package report_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/internal/browser"
	"github.com/agentflightrecorder/afr/internal/browser/pagetests"
	"github.com/agentflightrecorder/afr/internal/logtest"
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
	files, err := traces.All()
	if err != nil {
		t.Fatal(err)
	}
	b := browser.Start(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			imp, err := importer.Read(traces.Format(f), f)
			if err != nil {
				t.Fatal(err)
			}
			l, keys := recordFile(t, imp)
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
			if n := strings.Count(page.String(), "<script"); n != 4 {
				t.Fatalf("%d <script> tags in the page (want the page's three data elements and its script): an agent's text became markup", n)
			}
			epochs := (len(imp.Events) + 3) / 4
			pagetests.CheckReportPage(t, b, page.Bytes(), pagetests.ReportWant{Verdict: "verified", Events: len(imp.Events), Epochs: epochs})
		})
	}
}

// recordFile records an imported trajectory (importer.Read, as afr import
// does), in epochs of 4.
func recordFile(t *testing.T, imp *importer.File) (*recorder.Log, *recorder.Keyring) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "log")
	r := logtest.Open(t, dir, recorder.Options{Recorder: "traces", Encrypt: true, EpochSize: 4, Sync: recorder.SyncNone})
	if _, err := imp.Record(context.Background(), r); err != nil {
		t.Fatal(err)
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
