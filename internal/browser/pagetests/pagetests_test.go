package pagetests_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/internal/browser"
	"github.com/agentflightrecorder/afr/internal/browser/pagetests"
)

// The checks run here against the fixture pages of internal/browser's
// testdata, which follow the same DOM contracts as the real pages.

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckReportPage(t *testing.T) {
	b := browser.Start(t)
	d := pagetests.CheckReportPage(t, b, fixture(t, "report.html"), pagetests.ReportWant{
		Verdict:      "tampered",
		Events:       6,
		Epochs:       2,
		FindingKinds: []string{"anchor_mismatch", "merkle_mismatch"},
		Causal:       []int{5, 0, 2},
		Probe:        true,
		ProbeSeq:     2,
		Proofs:       map[int]bool{4: true},
		Search:       "alice",
		SearchHits:   4,
		Screenshot:   "fixture-report",
	})
	t.Logf("report fixture: verdict shown %v after opening", d)
}

// TestCheckVerifyPage: the fixture verifier shows verified for the bundle
// its anchors file names, and tampered for the same bundle with one byte
// changed.
func TestCheckVerifyPage(t *testing.T) {
	b := browser.Start(t)
	bundle := fixture(t, "bundle.json")
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sum := sha256.Sum256(bundle)
	anchors := write("anchors.txt", []byte(hex.EncodeToString(sum[:])))
	html := fixture(t, "verify.html")

	t.Run("verified", func(t *testing.T) {
		d := pagetests.CheckVerifyPage(t, b, html, filepath.Join("..", "testdata", "bundle.json"), anchors, pagetests.VerifyWant{
			Verdict: "verified", Events: 3, Probe: true, Screenshot: "fixture-verify",
		})
		t.Logf("verify fixture: verdict %v after choosing the files", d)
	})
	t.Run("tampered", func(t *testing.T) {
		tampered := write("tampered.json", bytes.Replace(bundle, []byte("10 USDC"), []byte("90 USDC"), 1))
		pagetests.CheckVerifyPage(t, b, html, tampered, anchors, pagetests.VerifyWant{
			Verdict: "tampered", Events: 3, FindingKinds: []string{"anchor_mismatch"}, Probe: true, Screenshot: "fixture-verify-tampered",
		})
	})
}
