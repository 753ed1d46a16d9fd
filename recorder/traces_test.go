package recorder_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/traces"
	"github.com/agentflightrecorder/afr/recorder"
)

// TestRealTrajectoriesRecordAndVerify: every step of real agent runs
// (SWE-agent .traj files, OpenHands event streams, kept beside the project:
// see traces.Locate), sent as event JSON (the form `afr record` reads) with
// the step as written by its agent in `ext`, is accepted by the write path and the
// log verifies at level open — what the recorder accepts, the verifier
// accepts, on input nobody here wrote.
func TestRealTrajectoriesRecordAndVerify(t *testing.T) {
	dir, err := traces.Locate("")
	if err != nil {
		t.Skip(err)
	}
	for _, f := range traces.Files(dir) {
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
				line, err := traces.EventJSON(step)
				if err != nil {
					t.Fatal(err)
				}
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
