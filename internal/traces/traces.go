// Package traces finds real agent trajectories written by other projects —
// SWE-agent .traj files and OpenHands event streams, kept beside the project
// in ../shared/traces — for the tests that must run on input nobody here
// wrote and for `afr bench` (RQ1); the importer package turns them into
// events. The trajectories are not part of the repository: Locate says
// where they are, or why there are none.
package traces

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnvDir is the environment variable that names the trajectories'
// directory, overriding the default beside the module.
const EnvDir = "AFR_TRACES"

// module is the module path whose root the default directory is beside.
const module = "github.com/agentflightrecorder/afr"

// Locate returns the trajectories' directory: dir if not empty, else
// $AFR_TRACES, else ../shared/traces beside the root of this module (found
// from the working directory upwards). The error says where it looked when
// that directory holds no trajectory.
func Locate(dir string) (string, error) {
	how := "given"
	if dir == "" {
		dir, how = os.Getenv(EnvDir), "from $"+EnvDir
	}
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", fmt.Errorf("no trajectories: %v, and $%s is not set", err, EnvDir)
		}
		dir, how = filepath.Join(root, "..", "shared", "traces"), "beside the module"
	}
	if len(Files(dir)) == 0 {
		return dir, fmt.Errorf("no trajectories in %s (%s; they are kept beside the project, not in it: set $%s or --traces)", dir, how, EnvDir)
	}
	return dir, nil
}

// moduleRoot finds the directory of this module's go.mod at or above the
// working directory.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(b), "module "+module+"\n") {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", errors.New("the working directory is not inside the afr module")
		}
		d = up
	}
}

// Files returns the trajectory files under dir: */*.traj and */*.json.
func Files(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.traj"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	return append(files, more...)
}

// Format is the importer format of a trajectory file that Files returned:
// the name of its folder, "swe-agent" or "openhands" (importer.Read).
func Format(file string) string { return filepath.Base(filepath.Dir(file)) }
