package verifier_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/reports.golden with this build's reports")

// goldenFile pins the verifier's report — verdict, counts, and every
// finding in order — for each case of goldenCases, as a digest of its
// JSON. It was written by the verifier that kept a table of every record
// (before verification was bounded in memory), and every verifier since
// must give the same reports. A change to findings that is meant is made
// with -update, and says why in its commit.
const goldenFile = "testdata/reports.golden"

// TestReportsUnchanged verifies every case of goldenCases and compares
// each report with the one pinned in goldenFile.
//
// The payload commitments are spilled to a file every 100 records, so
// that the reports are those of a long log's verification.
func TestReportsUnchanged(t *testing.T) {
	defer verifier.SetSpillAt(100)()
	got := goldenCases(t)
	if *updateGolden {
		var b strings.Builder
		for _, c := range got {
			fmt.Fprintln(&b, c)
		}
		if err := os.WriteFile(goldenFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d reports written to %s", len(got), goldenFile)
		return
	}
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), " ")
		want[name] = sc.Text()
	}
	if len(want) != len(got) {
		t.Errorf("%s pins %d reports, the cases are %d", goldenFile, len(want), len(got))
	}
	bad := 0
	for _, line := range got {
		name, _, _ := strings.Cut(line, " ")
		if w := want[name]; w != line {
			if bad++; bad <= 20 {
				t.Errorf("report changed:\n  pinned %s\n  now    %s", w, line)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d reports differ from %s", bad, len(got), goldenFile)
	}
}

// detLog records n events of the synthetic workload, with epochs of
// epochSize and segment files of segSize (0: the default), its clock and
// randomness fixed by seed: the same bytes on every run.
func detLog(t testing.TB, n, epochSize int, segSize int64, seed uint64) *testLog {
	t.Helper()
	dir := t.TempDir()
	var tick atomic.Int64
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := logtest.Open(t, dir, recorder.Options{Recorder: fmt.Sprintf("op-%d", seed), Encrypt: true, EpochSize: epochSize, SegmentSize: segSize,
		Sync: recorder.SyncNone, EpochMaxAge: -1,
		Now:  func() time.Time { return base.Add(time.Duration(tick.Add(1)) * time.Millisecond) },
		Rand: rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})})
	for _, ev := range workload.Generate(seed, n) {
		if _, err := r.Record(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	return closeAndLoad(t, dir, r)
}

// goldenLine is a case's name, verdict, counts and report digest; dir,
// where the log is on disk, is taken out of the report's text.
func goldenLine(t testing.TB, name, dir string, src verifier.Source, anchors []format.Anchor, opts verifier.Options) string {
	t.Helper()
	rep := verify(t, src, anchors, opts)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if dir != "" {
		b = []byte(strings.ReplaceAll(string(b), dir, "LOG"))
	}
	d := sha256.Sum256(b)
	return fmt.Sprintf("%s %s events=%d epochs=%d findings=%d %s", name, rep.Verdict, rep.Events, rep.Epochs, len(rep.Findings), hex.EncodeToString(d[:12]))
}

// goldenCases are the reports to pin: every tamper attack at every position
// of a log of small epochs, the attacks around the batch boundaries of a
// log whose epochs span several batches, forged headers whose spans
// overlap others, random damage to frames of every stream, and damage to
// the segment files of a log spread over many.
func goldenCases(t *testing.T) []string {
	var lines []string
	add := func(name string, src verifier.Source, anchors []format.Anchor, opts verifier.Options) {
		lines = append(lines, goldenLine(t, name, "", src, anchors, opts))
	}
	small := detLog(t, 200, 16, 0, 42)
	other := detLog(t, 200, 16, 0, 43).img
	open := verifier.Options{Payloads: verifier.PayloadsOpen, Keys: small.keys}
	attack := func(prefix string, lg *testLog, a tamper.Attack, pos int, opts verifier.Options) {
		img := lg.img.Clone()
		anchors, err := a.Apply(img, pos, other)
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s/%s/%d not-applied", prefix, a.Name, pos))
			return
		}
		if anchors == nil {
			anchors = lg.anchors
		}
		add(fmt.Sprintf("%s/%s/%d", prefix, a.Name, pos), img, anchors, opts)
	}
	add("clean/small", small.img, small.anchors, open)
	for _, a := range tamper.Attacks {
		n := len(small.img.RecordFrames)
		if a.Epochs {
			n = len(small.img.HeaderFrames)
		}
		for pos := range n {
			attack("small", small, a, pos, open)
		}
	}

	// Epochs of 5,000 records: two full batches and a tail each.
	big := detLog(t, 10_000, 5_000, 0, 44)
	digest := verifier.Options{Payloads: verifier.PayloadsDigest}
	add("clean/big", big.img, big.anchors, digest)
	for _, a := range tamper.Attacks {
		positions := []int{0, 1, 4095, 4096, 4097, 4999, 5000, 8191, 8192, 9998, 9999}
		if a.Epochs {
			positions = []int{0, 1}
		}
		for _, pos := range positions {
			attack("big", big, a, pos, digest)
		}
	}
	// Headers whose claimed spans overlap, contain or duplicate others'.
	rng := rand.New(rand.NewPCG(44, 1))
	for k := range 60 {
		img := big.img.Clone()
		for range 1 + k%3 {
			t0 := rng.IntN(len(img.HeaderFrames))
			h, err := format.DecodeEpochHeader(img.HeaderFrames[t0])
			if err != nil {
				t.Fatal(err)
			}
			switch k % 4 {
			case 0:
				h.FirstSeq = uint64(rng.IntN(10_000))
			case 1:
				h.Count = uint64(1 + rng.IntN(12_000))
			case 2:
				h.FirstSeq, h.Count = uint64(rng.IntN(9_000)), uint64(1+rng.IntN(4_100))
			default:
				img.HeaderFrames = append(img.HeaderFrames, img.HeaderFrames[t0])
				continue
			}
			b, err := format.EncodeEpochHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			img.HeaderFrames[t0] = b
		}
		add(fmt.Sprintf("overlap/%d", k), img, big.anchors, digest)
	}

	// Random damage to frames: flipped bytes, cut frames, frames replaced
	// by another's or a vector's, removed, repeated or swapped.
	mid := detLog(t, 300, 7, 0, 45)
	midOpen := verifier.Options{Payloads: verifier.PayloadsOpen, Keys: mid.keys}
	seeds := vectorSeeds(t, "encoding", "cbor")
	rng = rand.New(rand.NewPCG(45, 2))
	for k := range 1500 {
		img := mid.img.Clone()
		streams := []*[][]byte{&img.RecordFrames, &img.PayloadFrames, &img.HeaderFrames}
		for range 1 + rng.IntN(3) {
			fr := streams[rng.IntN(3)]
			i := rng.IntN(len(*fr))
			switch op := rng.IntN(7); op {
			case 0:
				b := slices.Clone((*fr)[i])
				b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
				(*fr)[i] = b
			case 1:
				(*fr)[i] = (*fr)[i][:rng.IntN(len((*fr)[i]))]
			case 2:
				(*fr)[i] = (*fr)[rng.IntN(len(*fr))]
			case 3:
				(*fr)[i] = seeds[rng.IntN(len(seeds))]
			case 4:
				*fr = slices.Delete(*fr, i, i+1)
			case 5:
				*fr = slices.Insert(*fr, i, (*fr)[i])
			default:
				j := rng.IntN(len(*fr))
				(*fr)[i], (*fr)[j] = (*fr)[j], (*fr)[i]
			}
			if len(*fr) == 0 {
				*fr = [][]byte{{0}}
			}
		}
		add(fmt.Sprintf("mutate/%d", k), img, mid.anchors, midOpen)
	}

	// A log over many segment files: a byte flipped at each frame of each
	// file, each file's version raised, each file cut in half.
	seg := detLog(t, 400, 4, 2048, 46)
	onDisk := func(name string, rel string, mutate func([]byte) []byte) {
		dir := t.TempDir()
		err := filepath.Walk(seg.dir, func(path string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			r, _ := filepath.Rel(seg.dir, path)
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if r == rel {
				b = mutate(b)
			}
			os.MkdirAll(filepath.Dir(filepath.Join(dir, r)), 0o700)
			return os.WriteFile(filepath.Join(dir, r), b, fi.Mode())
		})
		if err != nil {
			t.Fatal(err)
		}
		l, err := recorder.OpenLog(dir)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, goldenLine(t, name, dir, l, seg.anchors, verifier.Options{Payloads: verifier.PayloadsOpen, Keys: seg.keys}))
	}
	for _, s := range []string{"records", "payloads", "epochs"} {
		names, err := segment.List(filepath.Join(seg.dir, s), s)
		if err != nil || len(names) < 3 {
			t.Fatalf("%s: %d files, %v", s, len(names), err)
		}
		for _, path := range names {
			rel, _ := filepath.Rel(seg.dir, path)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for off := segment.HeaderSize; off < len(b); off += segment.FrameOverhead + int(binary.BigEndian.Uint32(b[off:])) {
				at := off + 5
				onDisk(fmt.Sprintf("segment/%s/flip-%d", rel, at), rel, func(b []byte) []byte { b[at] ^= 0x10; return b })
			}
			onDisk(fmt.Sprintf("segment/%s/newer", rel), rel, func(b []byte) []byte { b[6] = segment.Version + 1; return b })
			onDisk(fmt.Sprintf("segment/%s/cut", rel), rel, func(b []byte) []byte { return b[:len(b)/2] })
		}
	}
	return lines
}

// Where no temporary file can be made, the payload commitments stay in
// memory and the report is the same.
func TestSpillWithoutTempDir(t *testing.T) {
	lg := detLog(t, 300, 7, 0, 47)
	img := lg.img.Clone()
	if err := img.SwapPayloads(150, 151); err != nil {
		t.Fatal(err)
	}
	opts := verifier.Options{Payloads: verifier.PayloadsOpen, Keys: lg.keys}
	want := goldenLine(t, "swap", "", img, lg.anchors, opts)
	defer verifier.SetSpillAt(40)()
	spilled := goldenLine(t, "swap", "", img, lg.anchors, opts)
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "absent"))
	inMemory := goldenLine(t, "swap", "", img, lg.anchors, opts)
	if spilled != want || inMemory != want {
		t.Fatalf("in memory: %s\nspilled: %s\nno temporary file: %s", want, spilled, inMemory)
	}
	if !strings.Contains(want, "tampered") {
		t.Fatalf("swapped payloads: %s", want)
	}
}
