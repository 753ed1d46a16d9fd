package recorder_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/traces"
	"github.com/agentflightrecorder/afr/recorder"
)

// tracesDir holds real agent trajectories written by other projects
// (SWE-agent .traj files, OpenHands event streams): see its README files.
// TestRealTrajectoriesRecordAndVerify: every step of real agent runs,
// sent as event JSON (the form `afr record` reads) with the step as
// written by its agent in `ext`, is accepted by the write path and the
// log verifies at level open — what the recorder accepts, the verifier
// accepts, on input nobody here wrote.
func TestRealTrajectoriesRecordAndVerify(t *testing.T) {
	files := traces.Files(traces.Dir)
	if len(files) == 0 {
		t.Skipf("no trajectories in %s (they are test data kept beside the project, not in it)", traces.Dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			steps, err := traces.Steps(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) == 0 {
				t.Fatalf("no steps in %s", f)
			}
			dir := t.TempDir()
			r, err := recorder.Open(dir, recorder.Options{Recorder: "traces", Encrypt: true, EpochSize: 4})
			if err != nil {
				t.Fatal(err)
			}
			for i, step := range steps {
				line, _ := json.Marshal(map[string]any{"tool": filepath.Base(f), "kind": "observation",
					"payload": map[string]any{"ext": map[string]json.RawMessage{"step": step}}})
				ev, err := format.ParseEventJSON(line)
				if err != nil {
					t.Fatalf("step %d: the event JSON parser refuses a real step: %v", i, err)
				}
				if _, err := r.Record(context.Background(), ev); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if rep := verifyStore(t, dir); rep.Events != uint64(len(steps)) || rep.PayloadsOpened != uint64(len(steps)) {
				t.Fatalf("%d events, %d payloads opened; want %d", rep.Events, rep.PayloadsOpened, len(steps))
			}
		})
	}
}
