package light_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/light"
)

// vector is a bundle vector of fixtures/vectors/bundle.
type vector struct {
	Bundle  string
	Anchors []format.Anchor
	Level   string
	Verdict string
	Kinds   []verifier.FindingKind
}

func readVector(t *testing.T, name string) (bundle, anchors []byte, v vector) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../../fixtures/vectors/bundle", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if bundle, err = hex.DecodeString(v.Bundle); err != nil {
		t.Fatal(err)
	}
	return bundle, anchorsFile(t, v.Anchors), v
}

// anchorsFile is the anchors file of as, as afr anchors writes it.
func anchorsFile(t *testing.T, as []format.Anchor) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "anchors.json")
	if err := format.WriteAnchorsFile(path, as); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// result is light.Result as the page reads it: JSON.
type result struct {
	Verdict string
	Level   string
	Report  struct {
		Findings       []struct{ Kind verifier.FindingKind }
		PayloadsOpened uint64 `json:"payloads_opened"`
	}
	Events []light.Event
}

func (r result) has(k verifier.FindingKind) bool {
	for _, f := range r.Report.Findings {
		if f.Kind == k {
			return true
		}
	}
	return false
}

func verify(t *testing.T, bundle, anchors []byte, level string) result {
	t.Helper()
	out, err := light.VerifyBundleJSON(bundle, anchors, level)
	if err != nil {
		t.Fatal(err)
	}
	var res result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, out)
	}
	return res
}

// TestBundleVectors: every bundle vector gives, through the page's entry
// point, the verdict and finding kinds it gives the CLI's.
func TestBundleVectors(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/vectors/bundle/*.json")
	if len(files) == 0 {
		t.Fatal("no bundle vectors")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			bundle, anchors, v := readVector(t, filepath.Base(f))
			res := verify(t, bundle, anchors, v.Level)
			if res.Verdict != v.Verdict || res.Level != v.Level {
				t.Fatalf("verdict %s at level %s, want %s at %s: %v", res.Verdict, res.Level, v.Verdict, v.Level, res.Report.Findings)
			}
			for _, k := range v.Kinds {
				if !res.has(k) {
					t.Fatalf("no %s finding: %v", k, res.Report.Findings)
				}
			}
		})
	}
}

// TestDisclosedEvents: the events are the bundle's, in order, with the
// payloads its keys open at level open and none below.
func TestDisclosedEvents(t *testing.T) {
	bundle, anchors, _ := readVector(t, "valid.json")
	b, err := verifier.DecodeBundle(bundle)
	if err != nil {
		t.Fatal(err)
	}
	open := verify(t, bundle, anchors, "")
	if open.Level != "open" || open.Verdict != "verified" {
		t.Fatalf("auto level of a bundle with keys: %s, %s; want open, verified: %v", open.Level, open.Verdict, open.Report.Findings)
	}
	if len(open.Events) != len(b.Events) || len(open.Events) < 2 {
		t.Fatalf("%d events, the bundle has %d", len(open.Events), len(b.Events))
	}
	var seqs []uint64
	for _, e := range open.Events {
		if e.Payload == nil || e.Kind == "" || e.Time == 0 {
			t.Errorf("event %d: %+v, want kind, time and payload", e.Seq, e)
		}
		seqs = append(seqs, e.Seq)
	}
	if !slices.IsSorted(seqs) || open.Report.PayloadsOpened != uint64(len(seqs)) {
		t.Fatalf("seqs %v, payloads opened %d", seqs, open.Report.PayloadsOpened)
	}
	digest := verify(t, bundle, anchors, "digest")
	for _, e := range digest.Events {
		if e.Payload != nil {
			t.Errorf("event %d has a payload at level digest", e.Seq)
		}
	}
	// The same events without keys, then without payloads (afr disclose
	// without --keys, with --no-payloads).
	for _, want := range []string{"digest", "skip"} {
		for i := range b.Events {
			b.Events[i].Key = nil
			if want == "skip" {
				b.Events[i].Payload = nil
			}
		}
		less, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if res := verify(t, less, anchors, ""); res.Level != want || res.Verdict != "verified" || len(res.Events) != len(b.Events) {
			t.Fatalf("auto level: %s, %s, %d events; want %s, verified, %d", res.Level, res.Verdict, len(res.Events), want, len(b.Events))
		}
	}
}

// TestVerdicts: one flipped byte in a record is tampered, a bundle without
// anchors incomplete.
func TestVerdicts(t *testing.T) {
	bundle, anchors, _ := readVector(t, "valid.json")
	b, _ := verifier.DecodeBundle(bundle)
	rec := b.Events[0].Record
	at := bytes.Index(bundle, rec)
	if at < 0 {
		t.Fatal("record not found in the bundle's encoding")
	}
	flipped := bytes.Clone(bundle)
	flipped[at+len(rec)-1] ^= 1 // the last byte of the record's prev digest
	if res := verify(t, flipped, anchors, ""); res.Verdict != "tampered" || !res.has(verifier.KindProofInvalid) {
		t.Fatalf("flipped byte: %s, %v; want tampered with %s", res.Verdict, res.Report.Findings, verifier.KindProofInvalid)
	}
	if res := verify(t, bundle, nil, ""); res.Verdict != "incomplete" || !res.has(verifier.KindUnanchored) {
		t.Fatalf("no anchors: %s, %v; want incomplete with %s", res.Verdict, res.Report.Findings, verifier.KindUnanchored)
	}
}

// TestVerifyErrors: input that gives no verdict is an error naming it.
func TestVerifyErrors(t *testing.T) {
	bundle, anchors, _ := readVector(t, "valid.json")
	if _, err := light.VerifyBundleJSON([]byte("<script>alert(1)</script>"), anchors, ""); err == nil || !strings.Contains(err.Error(), "disclosure bundle") {
		t.Errorf("not a bundle: %v", err)
	}
	if _, err := light.VerifyBundleJSON(bundle, []byte(`{"anchors":[{"epoch":0}]}`), ""); !errors.Is(err, format.ErrAnchorsFile) || !strings.Contains(err.Error(), "Anchors file") {
		t.Errorf("malformed anchors: %v, want ErrAnchorsFile with the format hint", err)
	}
	if _, err := light.VerifyBundleJSON(bundle, anchors, "all"); err == nil || !strings.Contains(err.Error(), `"all"`) {
		t.Errorf("unknown level: %v", err)
	}
}

// TestBundleLogID: the log id the page filters Anchored events by is
// format.LogID of the recorder and session of the bundle's records.
func TestBundleLogID(t *testing.T) {
	bundle, _, _ := readVector(t, "valid.json")
	b, err := verifier.DecodeBundle(bundle)
	if err != nil {
		t.Fatal(err)
	}
	got, err := light.BundleLogID(bundle)
	if err != nil {
		t.Fatal(err)
	}
	env, err := format.DecodeEnvelope(b.Events[0].Record)
	if err != nil {
		t.Fatal(err)
	}
	if want := format.LogID(env.Recorder, env.Session).String(); got != want {
		t.Fatalf("BundleLogID %s, the records' log id is %s", got, want)
	}
	if _, err := light.BundleLogID([]byte("not a bundle")); err == nil || !strings.Contains(err.Error(), "afr disclose") {
		t.Fatalf("a file that is no bundle: %v", err)
	}
}
