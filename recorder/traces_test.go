package recorder_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/internal/traces"
	"github.com/agentflightrecorder/afr/recorder"
)

// TestRealTrajectoriesRecordAndVerify: every step of real agent runs
// (SWE-agent .traj files, OpenHands event streams: those committed with the
// module and those kept beside the project, see traces.All), converted as `afr import` converts them (importer.Read:
// the step as written by its agent in `ext`), is accepted by the write path and the
// log verifies at level open — what the recorder accepts, the verifier
// accepts, on input nobody here wrote.
func TestRealTrajectoriesRecordAndVerify(t *testing.T) {
	files, err := traces.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			imp, err := importer.Read(traces.Format(f), f)
			if err != nil {
				t.Fatalf("the importer refuses a real trajectory: %v", err)
			}
			if len(imp.Events) == 0 {
				t.Fatalf("no events in %s", f)
			}
			dir := t.TempDir()
			r := logtest.Open(t, dir, recorder.Options{Recorder: "traces", Encrypt: true, EpochSize: 4})
			if _, err := imp.Record(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if rep := verifyStore(t, dir); rep.Events != uint64(len(imp.Events)) || rep.PayloadsOpened != uint64(len(imp.Events)) {
				t.Fatalf("%d events, %d payloads opened; want %d", rep.Events, rep.PayloadsOpened, len(imp.Events))
			}
		})
	}
}
