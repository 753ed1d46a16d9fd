package traces_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/internal/traces"
)

func TestLocate(t *testing.T) {
	empty := t.TempDir()
	if _, err := traces.Locate(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Fatalf("Locate(an empty directory) = %v; want an error naming it", err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "swe-agent"), 0o755)
	os.WriteFile(filepath.Join(dir, "swe-agent", "a.traj"), []byte(`{"trajectory":[]}`), 0o644)
	if got, err := traces.Locate(dir); err != nil || got != dir {
		t.Fatalf("Locate(%s) = %s, %v", dir, got, err)
	}
	t.Setenv(traces.EnvDir, dir)
	if got, err := traces.Locate(""); err != nil || got != dir {
		t.Fatalf("Locate with $%s = %s, %v", traces.EnvDir, got, err)
	}
	t.Setenv(traces.EnvDir, empty)
	if _, err := traces.Locate(""); err == nil || !strings.Contains(err.Error(), "$"+traces.EnvDir) {
		t.Fatalf("Locate with an empty $%s = %v; want an error naming the variable", traces.EnvDir, err)
	}
}

func TestFormat(t *testing.T) {
	for file, want := range map[string]string{"/x/swe-agent/a.traj": "swe-agent", "/x/openhands/b.json": "openhands"} {
		if got := traces.Format(file); got != want {
			t.Errorf("Format(%s) = %q, want %q", file, got, want)
		}
	}
}
