package verifier_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// Verify a log against its anchored roots, then a tampered copy of it.
func ExampleVerifyLog() {
	dir, _ := os.MkdirTemp("", "afr-example")
	defer os.RemoveAll(dir)
	r, _ := recorder.Open(dir, recorder.Options{Recorder: "ops-1", EpochSize: 10})
	for _, ev := range workload.Generate(42, 30) {
		r.Record(context.Background(), ev)
	}
	r.Close()

	l, _ := recorder.OpenLog(dir)
	// In production the anchors come from the chain (package verifier/onchain: onchain.ChainAnchors).
	anchors, _ := verifier.AnchorsFromLog(l)
	rep, _ := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(anchors), verifier.Options{})
	fmt.Println(rep.Verdict, rep.Events, "events,", rep.AnchoredEpochs, "anchored epochs")

	img, _ := tamper.Load(l)
	img.DeleteRecord(12)
	rep, _ = verifier.VerifyLog(context.Background(), img, verifier.AnchorList(anchors), verifier.Options{})
	fmt.Println(rep.Verdict, "first finding:", rep.Findings[0].Kind, "at event", *rep.Findings[0].Seq)
	// Output:
	// verified 30 events, 3 anchored epochs
	// tampered first finding: sequence at event 12
}
