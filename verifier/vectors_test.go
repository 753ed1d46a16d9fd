package verifier_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
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
