package verifier_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
)

// findingsAt lists the kinds found at epoch t.
func findingsAt(rep *verifier.Report, t uint64) []verifier.FindingKind {
	var out []verifier.FindingKind
	for _, f := range rep.Findings {
		if f.Epoch != nil && *f.Epoch == t {
			out = append(out, f.Kind)
		}
	}
	return out
}

// docs/SPEC.md "Epoch header": a header removed from the middle is
// epoch_missing for its epoch when that epoch is anchored, and the header
// after the gap, now at position t, is epoch_sequence and epoch_link at t.
// Without anchors only the latter two remain.
func TestDroppedHeaderFindings(t *testing.T) {
	lg := makeLog(t, 50, 10, 1, 7)
	for _, drop := range []uint64{0, 1, 2, 3} {
		img := lg.img.Clone()
		if err := img.DropHeader(int(drop)); err != nil {
			t.Fatal(err)
		}
		rep := verify(t, img, lg.anchors, verifier.Options{})
		got := findingsAt(rep, drop)
		for _, k := range []verifier.FindingKind{verifier.KindEpochMissing, verifier.KindEpochSequence, verifier.KindEpochLink} {
			if !slices.Contains(got, k) {
				t.Errorf("drop %d, anchored: no %s at epoch %d: %v", drop, k, drop, rep.Findings)
			}
		}
		rep = verify(t, img, nil, verifier.Options{})
		got = findingsAt(rep, drop)
		if slices.Contains(got, verifier.KindEpochMissing) || !slices.Contains(got, verifier.KindEpochSequence) || !slices.Contains(got, verifier.KindEpochLink) {
			t.Errorf("drop %d, no anchors: %v", drop, got)
		}
	}
	if rep := verify(t, lg.img, lg.anchors, verifier.Options{}); rep.Verdict != verifier.Verified {
		t.Fatalf("clean log: %s %v", rep.Verdict, rep.Findings)
	}
}

// docs/SPEC.md "Keys": an event after the last epoch header is keyed with
// the epoch that would contain it next (the number of headers): the
// recorder's open epoch. Checked with the keys at level open, where any
// other epoch's key fails to decrypt.
func TestUnsealedEventsUseTheOpenEpochKey(t *testing.T) {
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: "op", Encrypt: true, EpochSize: 10, EpochMaxAge: -1})
	for _, ev := range workload.Generate(3, 25) {
		if _, err := r.Record(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	kr, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), r.Manifest().Session)
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	rep := verify(t, l, nil, verifier.Options{Payloads: verifier.PayloadsOpen, Keys: kr})
	if rep.PayloadsOpened != 25 || rep.Has(verifier.KindPayloadDecrypt) || rep.Has(verifier.KindPayloadCommit) || !rep.Has(verifier.KindUnsealed) {
		t.Fatalf("opened %d: %v", rep.PayloadsOpened, rep.Findings)
	}
	var frame []byte
	l.Payloads(func(seq uint64, f []byte) error {
		if seq == 22 {
			frame = f
		}
		return nil
	})
	for epoch, opens := range map[uint64]bool{1: false, 2: true, 3: false} {
		k, err := kr.EventKey(format.Version, epoch, 22)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := format.OpenPayload(&k, r.Manifest().Session, 22, frame); (err == nil) != opens {
			t.Errorf("event 22 with epoch %d's key: %v", epoch, err)
		}
	}
}
