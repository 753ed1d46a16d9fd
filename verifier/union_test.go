package verifier_test

import (
	"context"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
)

// The union of anchors (a checkpoint's, say) with a source that judges its
// anchors (batch anchors with a withheld batch) keeps that source's
// findings: the log is incomplete, not verified on the other anchors alone.
func TestAnchorSourcesKeepFindings(t *testing.T) {
	l := logtest.Write(t, recorder.Options{Recorder: "ops", EpochSize: 5, Sync: recorder.SyncNone, EpochMaxAge: -1}, workload.Generate(1, 20))
	id, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	withheld := verifier.BatchAnchors{Log: id, Batches: verifier.BatchList{{Number: 0, Root: format.Digest{1}}}}
	for name, c := range map[string]struct {
		src  verifier.AnchorSource
		want verifier.Verdict
	}{
		"anchors alone":        {verifier.AnchorSources{verifier.AnchorList(anchors)}, verifier.Verified},
		"with withheld batch":  {verifier.AnchorSources{withheld, verifier.AnchorList(anchors)}, verifier.Incomplete},
		"withheld batch first": {verifier.AnchorSources{verifier.AnchorList(anchors), withheld}, verifier.Incomplete},
	} {
		rep, err := verifier.VerifyLog(context.Background(), l, c.src, verifier.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != c.want || (c.want == verifier.Incomplete && !rep.Has(verifier.KindBatchWithheld)) {
			t.Errorf("%s: verdict %s, findings %v; want %s", name, rep.Verdict, rep.Findings, c.want)
		}
	}
}
