package verifier_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// brokenSource is a log whose records cannot be read (a disk gone).
type brokenSource struct{ verifier.Source }

var errDiskGone = errors.New("disk gone")

func (brokenSource) Records(func(uint64, []byte) error) error { return errDiskGone }

// VerifyLogs gives, log by log, the report VerifyLog gives — a clean log,
// one copy per attack class, and a log that cannot be read (its error in
// its place, the others still verified) — whether the cores go to logs
// (more logs than workers) or to each log's epochs (fewer).
func TestVerifyLogsSameAsOneByOne(t *testing.T) {
	lg := makeLog(t, 80, 8, 1, 51)
	lg.other = makeLog(t, 80, 8, 1, 52).img
	logs := []verifier.LogToVerify{{Source: lg.img, Anchors: verifier.AnchorList(lg.anchors)}}
	for _, a := range tamper.Attacks {
		img := lg.img.Clone()
		anchors, err := a.Apply(img, 5, lg.other)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if anchors == nil {
			anchors = lg.anchors
		}
		logs = append(logs, verifier.LogToVerify{Source: img, Anchors: verifier.AnchorList(anchors)})
	}
	broken := len(logs) / 2
	logs = append(logs[:broken+1], logs[broken:]...)
	logs[broken] = verifier.LogToVerify{Source: brokenSource{lg.img}, Anchors: verifier.AnchorList(lg.anchors)}

	want := make([]*verifier.Report, len(logs))
	tampered := 0
	for i, l := range logs {
		rep, err := verifier.VerifyLog(context.Background(), l.Source, l.Anchors, verifier.Options{Workers: 1})
		if (err != nil) != (i == broken) {
			t.Fatalf("log %d: VerifyLog error %v", i, err)
		}
		if rep != nil && rep.Verdict == verifier.Tampered {
			tampered++
		}
		want[i] = rep
	}
	if want[0].Verdict != verifier.Verified || tampered < len(tamper.Attacks)/2 {
		t.Fatalf("the inputs: clean log %s, %d of %d attacked copies tampered", want[0].Verdict, tampered, len(tamper.Attacks))
	}
	for _, workers := range []int{2, len(logs) + 1} {
		got, errs := verifier.VerifyLogs(context.Background(), logs, verifier.Options{Workers: workers})
		if len(got) != len(logs) || len(errs) != len(logs) {
			t.Fatalf("%d workers: %d reports, %d errors for %d logs", workers, len(got), len(errs), len(logs))
		}
		for i := range logs {
			if i == broken {
				if got[i] != nil || !errors.Is(errs[i], errDiskGone) {
					t.Errorf("%d workers, the unreadable log: report %v, error %v", workers, got[i], errs[i])
				}
				continue
			}
			if errs[i] != nil || !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%d workers, log %d: %v %+v, want %s %+v", workers, i, errs[i], got[i], want[i].Verdict, want[i].Findings)
			}
		}
	}
}

// Each log's own keys open its payloads: two logs of different sessions
// verified at PayloadsOpen in one run, with no keys in the Options.
func TestVerifyLogsOwnKeys(t *testing.T) {
	a, b := makeLog(t, 40, 8, 1, 53), makeLog(t, 40, 8, 1, 54)
	logs := []verifier.LogToVerify{
		{Source: a.img, Anchors: verifier.AnchorList(a.anchors), Keys: a.keys},
		{Source: b.img, Anchors: verifier.AnchorList(b.anchors), Keys: b.keys},
	}
	for _, workers := range []int{1, 2} {
		reps, errs := verifier.VerifyLogs(context.Background(), logs, verifier.Options{Payloads: verifier.PayloadsOpen, Workers: workers})
		for i, rep := range reps {
			if errs[i] != nil || rep.Verdict != verifier.Verified || rep.PayloadsOpened != 40 {
				t.Fatalf("%d workers, log %d: %v %+v", workers, i, errs[i], rep)
			}
		}
	}
	// The other log's keys open none of its payloads.
	logs[0].Keys, logs[1].Keys = b.keys, a.keys
	reps, _ := verifier.VerifyLogs(context.Background(), logs, verifier.Options{Payloads: verifier.PayloadsOpen})
	for i, rep := range reps {
		if rep == nil || rep.Verdict != verifier.Tampered {
			t.Fatalf("log %d with the other's keys: %+v", i, rep)
		}
	}
}
