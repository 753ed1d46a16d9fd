package verifier_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

func readMaster(dir string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, "keys", "master.key"))
}

// vectorSeeds returns, decoded, the hex field key of every vector in
// fixtures/vectors/dir that has one.
func vectorSeeds(t testing.TB, dir, key string) [][]byte {
	files, _ := filepath.Glob(filepath.Join("../fixtures/vectors", dir, "*.json"))
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		json.Unmarshal(b, &v)
		if s, ok := v[key].(string); ok {
			if raw, err := hex.DecodeString(s); err == nil {
				out = append(out, raw)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s in fixtures/vectors/%s", key, dir)
	}
	return out
}

// FuzzAnchorsFile: any anchors file either fails to parse with an error or
// yields anchors the verifier checks without panicking.
func FuzzAnchorsFile(f *testing.F) {
	f.Add([]byte(`{"anchors":[{"epoch":0,"root":"0x` + strings.Repeat("11", 32) + `","prev_root":"0x` + strings.Repeat("00", 32) + `"}]}`))
	f.Add([]byte(`{"anchors":[]}`))
	f.Add([]byte(`{"anchors":[{"epoch":1,"root":"0x12"}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "anchors.json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		as, err := verifier.AnchorsFile(path).Anchors(context.Background())
		if err != nil {
			return
		}
		img := &tamper.Image{}
		if _, err := verifier.VerifyLog(context.Background(), img, verifier.AnchorList(as), verifier.Options{}); err != nil {
			t.Fatal(err)
		}
	})
}
