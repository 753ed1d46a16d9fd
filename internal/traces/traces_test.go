package traces_test

import (
	"os"
	"path/filepath"
	"slices"
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

// The committed trajectories are found from anywhere in the module, one
// of each format, and All lists them first, adding from $AFR_TRACES only
// the trajectories they are not.
func TestCommittedAndAll(t *testing.T) {
	committed, err := traces.Committed()
	if err != nil {
		t.Fatal(err)
	}
	files := traces.Files(committed)
	formats := map[string]int{}
	for _, f := range files {
		formats[traces.Format(f)]++
	}
	if formats["swe-agent"] != 1 || formats["openhands"] != 1 || len(files) != 2 {
		t.Fatalf("committed trajectories %v; want one SWE-agent and one OpenHands file", files)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "swe-agent"), 0o755)
	same := filepath.Join(dir, traces.Format(files[0]), filepath.Base(files[0]))
	os.WriteFile(same, []byte(`{"trajectory":[]}`), 0o644)
	other := filepath.Join(dir, "swe-agent", "other.traj")
	os.WriteFile(other, []byte(`{"trajectory":[]}`), 0o644)
	t.Setenv(traces.EnvDir, dir)
	all, err := traces.All()
	if err != nil {
		t.Fatal(err)
	}
	if want := append(files, other); !slices.Equal(all, want) {
		t.Fatalf("All() = %v; want %v", all, want)
	}
}

func TestFormat(t *testing.T) {
	for file, want := range map[string]string{"/x/swe-agent/a.traj": "swe-agent", "/x/openhands/b.json": "openhands"} {
		if got := traces.Format(file); got != want {
			t.Errorf("Format(%s) = %q, want %q", file, got, want)
		}
	}
}
