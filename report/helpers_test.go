package report_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/browser/pagetests"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
)

// The XSS probe: strings an attacker-controlled agent output could carry.
var probes = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`</script>`,
	`javascript:alert(document.cookie)`,
}

// testLog is a real log written by the recorder: n workload events, then a
// delegation, a tool call caused by it and by event 0 whose arguments and
// output carry the XSS probes, and an on-chain execution caused by that
// call. Epochs of 10 events; everything is sealed.
type testLog struct {
	log                          *recorder.Log
	keys                         *recorder.Keyring
	delegation, probe, execution uint64 // sequence numbers
}

func newLog(t testing.TB, n int) *testLog {
	t.Helper()
	return newLogOf(t, n, 10)
}

// newLogOf is newLog with epochs of epochSize events (the last one sealed
// when the log closes).
func newLogOf(t testing.TB, n, epochSize int) *testLog {
	t.Helper()
	evs := workload.Generate(7, n)
	root, del := uint64(0), uint64(n)
	tl := &testLog{delegation: del, probe: del + 1, execution: del + 2}
	// The delegation's tool name is the browser tests' probe, which sets a
	// flag if a page ever runs it.
	evs = append(evs, format.Event{Tool: pagetests.XSSProbe, Kind: format.KindDelegation, Group: "planner", Payload: format.Payload{
		Delegation: &format.DelegationProvenance{Delegator: "planner", Delegate: probes[1], Scope: []string{"shell"}}}},
		format.Event{Tool: probes[0], Kind: format.KindToolCall, Group: probes[1], Payload: format.Payload{
			Intent:    &format.Intent{Tool: probes[2], Args: map[string]any{"cmd": probes[0], "url": probes[3]}},
			Execution: &format.Execution{Status: format.StatusFailed, Error: probes[1] + probes[2]},
			Context:   &format.ContextProvenance{Parents: []uint64{root, del}},
			Ext:       map[string]any{"output": probes[0] + probes[3]},
		}},
		format.Event{Tool: "pace", Kind: format.KindChainTx, Group: "treasury", Payload: format.Payload{
			Execution: &format.Execution{Status: format.StatusOK, TxHash: bytes.Repeat([]byte{0xab}, 32), Block: 42},
			Context:   &format.ContextProvenance{Parents: []uint64{tl.probe}},
			Ext:       map[string]any{format.ExtGasUsed: uint64(38_967)},
		}})
	tl.log = logtest.Write(t, recorder.Options{Recorder: "report-test", Encrypt: true, EpochSize: epochSize, Sync: recorder.SyncNone}, evs)
	_, session, err := tl.log.Identity()
	if err != nil {
		t.Fatal(err)
	}
	if tl.keys, err = recorder.OpenKeyring(filepath.Join(tl.log.Dir, "keys"), session); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.keys.Close() })
	return tl
}

// anchors returns the log's own roots, as an honest operator anchors them.
func (tl *testLog) anchors(t testing.TB) verifier.AnchorList {
	t.Helper()
	as, err := verifier.AnchorsFromLog(tl.log)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// page verifies src against anchors with the log's keys, and renders it.
func (tl *testLog) page(t testing.TB, src verifier.Source, anchors verifier.AnchorSource, causal *uint64) (string, *verifier.Report) {
	t.Helper()
	rep, err := verifier.VerifyLog(context.Background(), src, anchors, verifier.Options{Payloads: verifier.PayloadsOpen, Keys: tl.keys})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := verifier.IndexLog(src, tl.keys)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.Write(&b, report.Input{Report: rep, Index: ix, Causal: causal, Anchors: "test anchors", Generated: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	return b.String(), rep
}
