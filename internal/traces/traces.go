// Package traces reads real agent trajectories written by other projects —
// SWE-agent .traj files and OpenHands event streams, kept beside the project
// in ../shared/traces — for tests that must run on input nobody here wrote.
// Only test code imports it.
package traces

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Dir is the trajectories' directory relative to a package directory of
// this module (where go test runs a package's tests).
const Dir = "../../shared/traces"

// Files returns the trajectory files under dir: */*.traj and */*.json.
func Files(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.traj"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	return append(files, more...)
}

// Steps returns the steps of a trajectory as its agent wrote them: the
// `trajectory` (else `history`) entries of a SWE-agent file, or the events
// of an OpenHands stream.
func Steps(path string) ([]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var stream []json.RawMessage
	if json.Unmarshal(b, &stream) == nil {
		return stream, nil
	}
	var traj struct{ Trajectory, History []json.RawMessage }
	if err := json.Unmarshal(b, &traj); err != nil {
		return nil, fmt.Errorf("%s: neither an event stream nor a trajectory: %w", path, err)
	}
	if len(traj.Trajectory) > 0 {
		return traj.Trajectory, nil
	}
	return traj.History, nil
}
