package verifier_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
)

// powerLost is a running writer's log seen at two group commits: the
// durable mark after the first acked events (at), and the files and mark
// after all of them (all).
type powerLost struct {
	dir      string
	at, all  []byte // DURABLE after the first group of events, after all
	atMark   format.Mark
	receipts []recorder.Receipt
	acked    int
}

func newPowerLost(t *testing.T) *powerLost {
	t.Helper()
	p := &powerLost{dir: t.TempDir(), acked: 10}
	r := logtest.Open(t, p.dir, recorder.Options{Recorder: "op-power", EpochSize: 4, EpochMaxAge: -1})
	for i, ev := range workload.Generate(11, 40) {
		rc, err := r.Record(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		p.receipts = append(p.receipts, rc)
		if i+1 == p.acked {
			p.at = readFile(t, filepath.Join(p.dir, recorder.MarkFile))
		}
	}
	p.all = readFile(t, filepath.Join(p.dir, recorder.MarkFile))
	var err error
	if p.atMark, err = format.DecodeMark(p.at); err != nil {
		t.Fatal(err)
	}
	if p.atMark.Events != uint64(p.acked) || p.atMark.Epochs != 2 {
		t.Fatalf("mark after %d events: %+v, want %d events, 2 epochs", p.acked, p.atMark, p.acked)
	}
	return p
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// image copies the log with mark as its DURABLE file; in stream, frame
// index is damaged by damage (its bytes rewritten in place, every frame
// after it intact), and, when cut is set, the epochs stream ends at the
// mark's epochs (what a crash leaves before the group's headers are
// written).
func (p *powerLost) image(t *testing.T, mark []byte, stream string, index int, damage func([]byte), cut bool) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.Walk(p.dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(p.dir, path)
		b := readFile(t, path)
		switch {
		case rel == recorder.MarkFile:
			b = mark
		case filepath.Dir(rel) == stream:
			at := frameStarts(t, path)[index]
			damage(b[at : at+segment.FrameOverhead+int(binary.BigEndian.Uint32(b[at:]))])
		}
		if cut && filepath.Dir(rel) == "epochs" {
			b = b[:frameStarts(t, path)[p.atMark.Epochs]]
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o700)
		return os.WriteFile(filepath.Join(dir, rel), b, fi.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func verifyDir(t *testing.T, dir string) *verifier.Report {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(nil), verifier.Options{})
	if err != nil {
		t.Fatalf("verification did not run: %v", err)
	}
	return rep
}

func hasKind(rep *verifier.Report, k verifier.FindingKind) bool {
	for _, f := range rep.Findings {
		if f.Kind == k {
			return true
		}
	}
	return false
}

var outOfOrder = []struct {
	name   string
	damage func([]byte)
}{
	{"zeroed", func(b []byte) { clear(b) }},
	{"garbage", func(b []byte) {
		for i := range b {
			b[i] = 0xa5
		}
	}},
}

// Damage confined to what the writer never acknowledged — frames past the
// durable mark in a stream's last file, with intact frames after them, as
// a power loss persisting unsynced pages out of order leaves — is a torn
// tail: the log verifies as incomplete, and a writer reopens it by itself,
// keeping every acknowledged event.
func TestPowerLossOutOfOrderTailIsTorn(t *testing.T) {
	p := newPowerLost(t)
	for _, stream := range []string{"records", "payloads", "epochs"} {
		for _, d := range outOfOrder {
			t.Run(stream+"/"+d.name, func(t *testing.T) {
				index := p.acked
				if stream == "epochs" {
					index = int(p.atMark.Epochs)
				}
				dir := p.image(t, p.at, stream, index, d.damage, stream != "epochs")
				rep := verifyDir(t, dir)
				if rep.Verdict != verifier.Incomplete || !hasKind(rep, verifier.KindTornTail) {
					t.Fatalf("verdict %s, want incomplete with torn_tail: %v", rep.Verdict, rep.Findings)
				}
				r, err := recorder.Open(dir, recorder.Options{EpochSize: 4, EpochMaxAge: -1})
				if err != nil {
					t.Fatalf("the writer does not reopen by itself: %v", err)
				}
				if rc := r.Recovery(); len(rc.Repairs) == 0 {
					t.Errorf("nothing repaired: %+v", rc)
				}
				if _, err := r.Record(context.Background(), workload.Generate(12, 1)[0]); err != nil {
					t.Fatal(err)
				}
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
				checkAcked(t, dir, p.receipts[:p.acked])
				if rep := verifyDir(t, dir); rep.Verdict == verifier.Tampered {
					t.Fatalf("after the writer's repair: tampered: %v", rep.Findings)
				}
			})
		}
	}
}

// The same damage below the durable mark hit frames that were fsynced
// before they were acknowledged: no crash leaves that. It is tampered, and
// no writer cuts it without being asked.
func TestPowerLossDamageBelowMarkIsTampered(t *testing.T) {
	p := newPowerLost(t)
	for _, stream := range []string{"records", "payloads", "epochs"} {
		for _, d := range outOfOrder {
			t.Run(stream+"/"+d.name, func(t *testing.T) {
				index := p.acked
				if stream == "epochs" {
					index = int(p.atMark.Epochs)
				}
				dir := p.image(t, p.all, stream, index, d.damage, false)
				rep := verifyDir(t, dir)
				if rep.Verdict != verifier.Tampered || !hasKind(rep, verifier.KindSegmentCorrupt) {
					t.Fatalf("verdict %s, want tampered with segment_corrupt: %v", rep.Verdict, rep.Findings)
				}
				_, err := recorder.Open(dir, recorder.Options{EpochSize: 4, EpochMaxAge: -1})
				var dt *recorder.DamagedTailError
				if !errors.As(err, &dt) {
					t.Fatalf("writer open: %v, want a *DamagedTailError", err)
				}
			})
		}
	}
}

// A log without a DURABLE file (written before the mark existed) keeps the
// rules of segment damage alone: out-of-order damage is corruption.
func TestPowerLossWithoutMarkKeepsStrictRules(t *testing.T) {
	p := newPowerLost(t)
	dir := p.image(t, nil, "records", p.acked, outOfOrder[0].damage, true)
	if err := os.Remove(filepath.Join(dir, recorder.MarkFile)); err != nil {
		t.Fatal(err)
	}
	if rep := verifyDir(t, dir); rep.Verdict != verifier.Tampered {
		t.Fatalf("verdict %s, want tampered: %v", rep.Verdict, rep.Findings)
	}
}

// A stream that ends, undamaged, before the durable mark lost events that
// were acknowledged: a writer refuses to continue it (it would give their
// sequence numbers to new events) unless the operator asks for repair.
func TestWriterRefusesStreamsShorterThanMark(t *testing.T) {
	p := newPowerLost(t)
	dir := p.image(t, p.all, "", 0, nil, false)
	name := filepath.Join(dir, "records", "records-0000000000000000.seg")
	if err := os.Truncate(name, int64(frameStarts(t, name)[20])); err != nil {
		t.Fatal(err)
	}
	_, err := recorder.Open(dir, recorder.Options{EpochSize: 4, EpochMaxAge: -1})
	var lost *recorder.LostEventsError
	if !errors.As(err, &lost) || lost.Stream != "records" || lost.Frames != 20 || lost.Durable != 40 {
		t.Fatalf("writer open: %v, want a *LostEventsError for 20 of 40 records", err)
	}
	r, err := recorder.Open(dir, recorder.Options{EpochSize: 4, EpochMaxAge: -1, RepairTail: true})
	if err != nil {
		t.Fatalf("with RepairTail: %v", err)
	}
	r.Close()
}

// checkAcked fails unless the log in dir holds every acknowledged event,
// byte for byte as its receipt's digest says.
func checkAcked(t *testing.T, dir string, receipts []recorder.Receipt) {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []format.Digest
	if err := l.Records(func(_ uint64, raw []byte) error {
		got = append(got, format.RecordDigest(raw))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, rc := range receipts {
		if i >= len(got) || !bytes.Equal(got[i][:], rc.Digest[:]) {
			t.Fatalf("acknowledged event %d lost or changed", i)
		}
	}
}
