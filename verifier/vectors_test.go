package verifier_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// TestBundleVectors checks every bundle vector: decode, verify at the given
// level against the given anchors, and compare verdict and finding kinds.
func TestBundleVectors(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/vectors/bundle/*.json")
	if len(files) == 0 {
		t.Fatal("no bundle vectors")
	}
	levels := map[string]verifier.PayloadLevel{"skip": verifier.PayloadsSkip, "digest": verifier.PayloadsDigest, "open": verifier.PayloadsOpen}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, _ := os.ReadFile(f)
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
			data, _ := hex.DecodeString(v.Bundle)
			b, err := verifier.DecodeBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := verifier.VerifyBundle(context.Background(), b, verifier.AnchorList(v.Anchors), verifier.Options{Payloads: levels[v.Level]})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict.String() != v.Verdict {
				t.Fatalf("verdict %s, want %s: %v", rep.Verdict, v.Verdict, rep.Findings)
			}
			for _, k := range v.Kinds {
				if !rep.Has(k) {
					t.Fatalf("no %s finding: %v", k, rep.Findings)
				}
			}
		})
	}
}

// TestLogVectors checks every log vector: the log's streams and key
// directory verified at the given level against the given anchors give
// the verdict and exactly the finding kinds listed.
func TestLogVectors(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/vectors/log/*.json")
	if len(files) == 0 {
		t.Fatal("no log vectors")
	}
	levels := map[string]verifier.PayloadLevel{"skip": verifier.PayloadsSkip, "digest": verifier.PayloadsDigest, "open": verifier.PayloadsOpen}
	frames := func(t *testing.T, hexes []string) [][]byte {
		out := make([][]byte, len(hexes))
		for i, h := range hexes {
			var err error
			if out[i], err = hex.DecodeString(h); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, _ := os.ReadFile(f)
			var v struct {
				Records, Payloads, Epochs []string
				Master, Salts             string
				Anchors                   []format.Anchor
				Level, Verdict            string
				Kinds                     []verifier.FindingKind
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			img := &tamper.Image{RecordFrames: frames(t, v.Records), PayloadFrames: frames(t, v.Payloads), HeaderFrames: frames(t, v.Epochs)}
			keyDir := t.TempDir()
			for name, h := range map[string]string{"master.key": v.Master, "epoch-salts": v.Salts} {
				b, _ := hex.DecodeString(h)
				if err := os.WriteFile(filepath.Join(keyDir, name), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			h, err := format.DecodeEpochHeader(img.HeaderFrames[0])
			if err != nil {
				t.Fatal(err)
			}
			kr, err := recorder.OpenKeyring(keyDir, h.Session)
			if err != nil {
				t.Fatal(err)
			}
			defer kr.Close()
			rep, err := verifier.VerifyLog(context.Background(), img, verifier.AnchorList(v.Anchors), verifier.Options{Payloads: levels[v.Level], Keys: kr})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict.String() != v.Verdict {
				t.Fatalf("verdict %s, want %s: %v", rep.Verdict, v.Verdict, rep.Findings)
			}
			var got []verifier.FindingKind
			for _, k := range verifier.Kinds() {
				if rep.Has(k) {
					got = append(got, k)
				}
			}
			if !slices.Equal(got, v.Kinds) {
				t.Fatalf("finding kinds %v, want exactly %v: %v", got, v.Kinds, rep.Findings)
			}
		})
	}
}
