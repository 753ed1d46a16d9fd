package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/verifier/light"
	"github.com/agentflightrecorder/afr/verifier/page"
)

// TestVerifyPageOnDemo: the demo writes the page next to its bundle and
// anchors file, and what the page's WebAssembly calls (light.VerifyBundleJSON)
// finds in them: verified, tampered with one flipped byte, incomplete
// without the anchors.
func TestVerifyPageOnDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if _, err := demo(ctx, t.Logf, "embedded", dir, 300); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "verify.html"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := page.Write(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(html, want.Bytes()) {
		t.Fatalf("demo's verify.html (%d bytes) is not the page (%d bytes)", len(html), want.Len())
	}
	bundles, _ := filepath.Glob(filepath.Join(dir, "event-*.afrb"))
	if len(bundles) != 1 {
		t.Fatalf("bundles in the demo's directory: %v", bundles)
	}
	bundle, err := os.ReadFile(bundles[0])
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := os.ReadFile(filepath.Join(dir, "anchors.json"))
	if err != nil {
		t.Fatal(err)
	}
	verdict := func(bundle, anchors []byte) (string, int) {
		out, err := light.VerifyBundleJSON(bundle, anchors, "")
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Verdict string
			Events  []light.Event
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res.Verdict, len(res.Events)
	}
	if v, n := verdict(bundle, anchors); v != "verified" || n != 1 {
		t.Fatalf("demo bundle: %s with %d events, want verified with 1", v, n)
	}
	// The bundle's last bytes are the disclosed event key: flipping one
	// opens nothing, and the payload fails its commitment.
	flipped := bytes.Clone(bundle)
	flipped[len(flipped)-1] ^= 1
	if v, _ := verdict(flipped, anchors); v != "tampered" {
		t.Fatalf("flipped byte: %s, want tampered", v)
	}
	if v, _ := verdict(bundle, nil); v != "incomplete" {
		t.Fatalf("no anchors: %s, want incomplete", v)
	}
}
