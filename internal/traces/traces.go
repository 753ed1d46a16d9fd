// Package traces finds real agent trajectories written by other projects —
// SWE-agent .traj files and OpenHands event streams — for the tests that
// must run on input nobody here wrote and for `afr bench` (RQ1); the
// importer package turns them into events. One small trajectory of each
// format is committed with the module (Fixtures), so those tests run on a
// fresh clone; a larger set may be kept beside the project in
// ../shared/traces, not in it. Locate says where the trajectories are, or
// why there are none; All lists every one there is.
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

// Fixtures is the directory, relative to the module's root, of the
// trajectories committed with the module, laid out as the set beside it:
// one folder per format.
const Fixtures = "fixtures/trajectories"

// module is the module path whose root the default directory is beside.
const module = "github.com/agentflightrecorder/afr"

// Locate returns the trajectories' directory: dir if not empty, else
// $AFR_TRACES, else ../shared/traces beside the root of this module (found
// from the working directory upwards) when it holds trajectories, else the
// committed ones (Fixtures). The error says where it looked when that
// directory holds no trajectory.
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
		if len(Files(dir)) == 0 {
			dir, how = filepath.Join(root, filepath.FromSlash(Fixtures)), "committed with the module, as nothing is beside it"
		}
	}
	if len(Files(dir)) == 0 {
		return dir, fmt.Errorf("no trajectories in %s (%s; set $%s or --traces)", dir, how, EnvDir)
	}
	return dir, nil
}

// Committed returns the directory of the trajectories committed with the
// module (Fixtures under its root); the error says why there is none.
func Committed() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("no committed trajectories: %v", err)
	}
	dir := filepath.Join(root, filepath.FromSlash(Fixtures))
	if len(Files(dir)) == 0 {
		return dir, fmt.Errorf("no trajectories in %s, where the module commits them", dir)
	}
	return dir, nil
}

// All returns the committed trajectories, then those Locate("") finds
// elsewhere ($AFR_TRACES or beside the module), each trajectory once: a
// file with the folder and name of a committed one is that one. Only the
// committed ones are required; the error says why they are missing.
func All() ([]string, error) {
	dir, err := Committed()
	if err != nil {
		return nil, err
	}
	files := Files(dir)
	seen := map[string]bool{}
	for _, f := range files {
		seen[key(f)] = true
	}
	if more, err := Locate(""); err == nil {
		for _, f := range Files(more) {
			if !seen[key(f)] {
				seen[key(f)] = true
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// key names a trajectory file by its format folder and name.
func key(file string) string { return Format(file) + "/" + filepath.Base(file) }

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
