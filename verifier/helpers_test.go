package verifier_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func readMaster(dir string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, "keys", "master.key"))
}

// bundleVectorSeeds returns the bundle bytes of fixtures/vectors/bundle.
func bundleVectorSeeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob("../fixtures/vectors/bundle/*.json")
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Bundle string }
		json.Unmarshal(b, &v)
		if raw, err := hex.DecodeString(v.Bundle); err == nil {
			out = append(out, raw)
		}
	}
	return out
}
