package verifier_test

import (
	"context"
	"encoding/binary"
	"fmt"
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

// segLog is a log whose three streams span several segment files each,
// written by the recorder, with the anchors of all its epochs.
type segLog struct {
	dir     string
	events  int
	anchors []format.Anchor
	files   map[string][]string // stream → its files, relative to dir
}

func makeSegLog(t *testing.T, segmentSize int64) *segLog {
	t.Helper()
	const n = 120
	log := logtest.Write(t, recorder.Options{Recorder: "op-seg", EpochSize: 4, SegmentSize: segmentSize, Sync: recorder.SyncNone, EpochMaxAge: -1}, workload.Generate(7, n))
	dir := log.Dir
	l := &segLog{dir: dir, events: n, files: map[string][]string{}}
	for _, s := range []string{"records", "payloads", "epochs"} {
		names, _ := segment.List(filepath.Join(dir, s), s)
		if len(names) < 2 {
			t.Fatalf("%s stream has %d files, want several", s, len(names))
		}
		for _, name := range names {
			rel, _ := filepath.Rel(dir, name)
			l.files[s] = append(l.files[s], rel)
		}
	}
	var err error
	if l.anchors, err = verifier.AnchorsFromLog(log); err != nil {
		t.Fatal(err)
	}
	return l
}

// damaged copies the log, lets mutate change one of its files, and
// verifies the copy.
func (l *segLog) damaged(t *testing.T, file string, mutate func([]byte) []byte) *verifier.Report {
	t.Helper()
	return l.verifyCopy(t, func(rel string, b []byte) []byte {
		if rel == file {
			return mutate(b)
		}
		return b
	})
}

// verifyCopy copies the log through mutate, which gets each file's path
// relative to the log and its bytes, and verifies the copy.
func (l *segLog) verifyCopy(t *testing.T, mutate func(rel string, b []byte) []byte) *verifier.Report {
	t.Helper()
	dir := t.TempDir()
	err := filepath.Walk(l.dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(l.dir, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o700)
		return os.WriteFile(filepath.Join(dir, rel), mutate(rel, b), fi.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
	log, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), log, verifier.AnchorList(l.anchors), verifier.Options{})
	if err != nil {
		t.Fatalf("verification did not run: %v", err)
	}
	return rep
}

func flip(off int) func([]byte) []byte {
	return func(b []byte) []byte { b[off] ^= 0x10; return b }
}

// frameStarts returns the offsets of the frames of an intact segment file.
func frameStarts(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	for off := segment.HeaderSize; off < len(b); off += segment.FrameOverhead + int(binary.BigEndian.Uint32(b[off:])) {
		starts = append(starts, off)
	}
	return starts
}

// The clean multi-file log verifies: no false positive.
func TestSegmentsCleanMultiFile(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	rep := l.damaged(t, "", nil)
	if rep.Verdict != verifier.Verified || rep.PayloadsChecked != uint64(l.events) {
		t.Fatalf("clean log: %s, %d payloads checked: %v", rep.Verdict, rep.PayloadsChecked, rep.Findings)
	}
}

// Issue 13.3, first case: one bit flipped in epoch header 0 of a multi-file
// epochs stream, every header anchored: tampered, not incomplete. Here
// every frame is a file of its own, so header 0 ends a file that is not
// the last.
func TestSegmentsHeaderZeroBitFlip(t *testing.T) {
	l := makeSegLog(t, 64)
	first := l.files["epochs"][0]
	rep := l.damaged(t, first, flip(segment.HeaderSize+segment.FrameOverhead+3))
	if rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindSegmentCorrupt) || rep.Has(verifier.KindTornTail) {
		t.Fatalf("%s: %v", rep.Verdict, rep.Findings)
	}
}

// Issue 13.3, second case: damage at the end of the first file of the
// writer's own two-file payload stream is tampered, and the intact payloads
// of the second file are checked, not reported lost.
func TestSegmentsPayloadDamageEndOfFirstFile(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	files := l.files["payloads"]
	starts := frameStarts(t, filepath.Join(l.dir, files[0]))
	damagedSeq := uint64(len(starts) - 1)
	b, _ := os.ReadFile(filepath.Join(l.dir, files[0]))
	rep := l.damaged(t, files[0], flip(len(b)-1))
	if rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindSegmentCorrupt) || rep.Has(verifier.KindTornTail) {
		t.Fatalf("%s: %v", rep.Verdict, rep.Findings)
	}
	if rep.PayloadsChecked != uint64(l.events-1) {
		t.Fatalf("%d payloads checked, want all %d but the damaged one: %v", rep.PayloadsChecked, l.events-1, rep.Findings)
	}
	for _, f := range rep.Findings {
		if (f.Kind == verifier.KindPayloadLost || f.Kind == verifier.KindPayloadMissing) && (*f.Seq != damagedSeq || f.Count > 1) {
			t.Fatalf("intact payloads reported: %v", f)
		}
	}
}

// One bit flipped at many positions of every file of every stream: the
// verdict is tampered, except in the final frame of a stream's last file,
// where a torn write looks the same (then it is never verified); damage in
// a file that is not the last never hides the files after it.
func TestSegmentsDamageAtEveryPosition(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	for stream, files := range l.files {
		for fi, file := range files {
			path := filepath.Join(l.dir, file)
			b, _ := os.ReadFile(path)
			starts := frameStarts(t, path)
			final := starts[len(starts)-1]
			last := fi == len(files)-1
			var offs []int
			for _, o := range []int{0, 6, 7, 15} { // magic, version, kind, first index
				offs = append(offs, o)
			}
			for k, s := range starts {
				if k < 2 || k >= len(starts)-2 {
					offs = append(offs, s+3, s+5, s+segment.FrameOverhead) // length, checksum, data
				}
			}
			offs = append(offs, len(b)-1)
			for _, off := range offs {
				rep := l.damaged(t, file, flip(off))
				where := fmt.Sprintf("%s offset %d", file, off)
				switch {
				case last && off >= final:
					if rep.Verdict == verifier.Verified {
						t.Fatalf("%s: verified: %v", where, rep.Findings)
					}
				case off == 6:
					// The version byte flipped to a newer version: this
					// build cannot judge that file.
					if !rep.Has(verifier.KindUnsupportedVersion) {
						t.Fatalf("%s: %s %v", where, rep.Verdict, rep.Findings)
					}
				case rep.Verdict != verifier.Tampered || rep.Has(verifier.KindTornTail):
					t.Fatalf("%s: %s %v", where, rep.Verdict, rep.Findings)
				}
				if !last && off != 6 {
					checkLaterFilesRead(t, file, stream, rep, l)
				}
			}
		}
	}
}

// checkLaterFilesRead checks that damage in one file of a stream (not the
// last) left the frames of the other files read.
func checkLaterFilesRead(t *testing.T, file, stream string, rep *verifier.Report, l *segLog) {
	t.Helper()
	switch stream {
	case "records":
		if rep.Events != uint64(l.events) {
			t.Fatalf("%s: %d record positions read, want %d", file, rep.Events, l.events)
		}
	case "epochs":
		if rep.Epochs != uint64(len(l.anchors)) {
			t.Fatalf("%s: %d epoch positions read, want %d", file, rep.Epochs, len(l.anchors))
		}
	case "payloads":
		if rep.PayloadsChecked < uint64(l.events-len(frameStarts(t, filepath.Join(l.dir, file)))) {
			t.Fatalf("%s: only %d payloads checked", file, rep.PayloadsChecked)
		}
	}
}

// Cut short: inside the final frame of a stream's last file is a torn tail
// (never verified) in a log without a durable mark, and tampered when the
// mark says the frame was durable (the log was closed); inside a file that
// is not the last is tampered.
func TestSegmentsTruncated(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	for _, files := range l.files {
		for fi, file := range files {
			starts := frameStarts(t, filepath.Join(l.dir, file))
			final := starts[len(starts)-1]
			for _, cut := range []int{final + 1, final + segment.FrameOverhead + 1} {
				rep := l.damaged(t, file, func(b []byte) []byte { return b[:cut] })
				unmarked := l.verifyCopy(t, func(rel string, b []byte) []byte {
					switch rel {
					case file:
						return b[:cut]
					case recorder.MarkFile:
						return nil // no valid slot: no mark
					}
					return b
				})
				switch {
				case fi == len(files)-1 && (!unmarked.Has(verifier.KindTornTail) || unmarked.Verdict == verifier.Verified):
					t.Fatalf("%s cut at %d, no mark: %s %v", file, cut, unmarked.Verdict, unmarked.Findings)
				case fi == len(files)-1 && (rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindSegmentCorrupt)):
					t.Fatalf("%s cut at %d below the mark: %s %v", file, cut, rep.Verdict, rep.Findings)
				case fi < len(files)-1 && (rep.Verdict != verifier.Tampered || rep.Has(verifier.KindTornTail)):
					t.Fatalf("%s cut at %d: %s %v", file, cut, rep.Verdict, rep.Findings)
				}
			}
		}
	}
}

// Bytes appended to a file that is not the last: tampered, and the files
// after it are still read.
func TestSegmentsAppendedToNonLastFile(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	for stream, files := range l.files {
		for _, tail := range [][]byte{{1, 2, 3}, make([]byte, 64), {0, 0, 0, 4, 0, 0, 0, 0, 9, 9, 9, 9}} {
			rep := l.damaged(t, files[0], func(b []byte) []byte { return append(b, tail...) })
			if rep.Verdict != verifier.Tampered || rep.Has(verifier.KindTornTail) {
				t.Fatalf("%s + %x: %s %v", files[0], tail, rep.Verdict, rep.Findings)
			}
			checkLaterFilesRead(t, files[0], stream, rep, l)
		}
	}
}

// A log written in a newer segment format version is a verdict, not an
// error: this build cannot judge it (incomplete, unsupported_version).
func TestSegmentsNewerVersion(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	rep := l.verifyCopy(t, func(rel string, b []byte) []byte {
		if filepath.Ext(rel) == ".seg" {
			b[6] = segment.Version + 1
		}
		return b
	})
	if rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnsupportedVersion) {
		t.Fatalf("%s: %v", rep.Verdict, rep.Findings)
	}
	// Only the records from some file on of a newer version, while the
	// (version 1) epoch headers cover them: this build cannot read them,
	// which is incomplete, never records_missing.
	for _, file := range l.files["records"][1:] {
		rep = l.damaged(t, file, func(b []byte) []byte { b[6] = segment.Version + 1; return b })
		if rep.Verdict != verifier.Incomplete || rep.Has(verifier.KindRecordsMissing) {
			t.Fatalf("%s of a newer version: %s %v", file, rep.Verdict, rep.Findings)
		}
	}
	// Only the payloads of a newer version: not lost, only unchecked.
	for _, file := range l.files["payloads"] {
		rep = l.damaged(t, file, func(b []byte) []byte { b[6] = segment.Version + 1; return b })
		if rep.Verdict != verifier.Incomplete || rep.Has(verifier.KindPayloadLost) {
			t.Fatalf("%s of a newer version: %s %v", file, rep.Verdict, rep.Findings)
		}
	}
}

// A segment path that is no regular file — a directory, a symbolic link
// that loops or leads nowhere — is damage of that stream, a verdict: the
// log's own layout is wrong, not the reader's access to it. In a file that
// is not the last, the files after it are still read.
func TestSegmentsPathNotAFile(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	for name, replace := range map[string]func(path string) error{
		"directory": func(path string) error { return os.Mkdir(path, 0o700) },
		"symlink loop": func(path string) error {
			return os.Symlink(filepath.Base(path), path)
		},
		"dangling symlink": func(path string) error { return os.Symlink("nowhere.seg", path) },
	} {
		for stream, files := range l.files {
			for _, fi := range []int{0, len(files) - 1} {
				file := files[fi]
				dir := t.TempDir()
				if err := os.CopyFS(dir, os.DirFS(l.dir)); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, file)
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if err := replace(path); err != nil {
					t.Fatal(err)
				}
				log, err := recorder.OpenLog(dir)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := verifier.VerifyLog(context.Background(), log, verifier.AnchorList(l.anchors), verifier.Options{})
				if err != nil {
					t.Fatalf("%s %s: verification did not run: %v", name, file, err)
				}
				if rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindSegmentCorrupt) || rep.Has(verifier.KindTornTail) {
					t.Fatalf("%s %s: %s %v", name, file, rep.Verdict, rep.Findings)
				}
				if fi < len(files)-1 {
					checkLaterFilesRead(t, file, stream, rep, l)
				}
			}
		}
	}
}

// The last file of the epochs stream in a newer format version: the
// anchored epochs it holds are unread, not missing (incomplete,
// unsupported_version), even with records after the last header read.
func TestSegmentsNewerVersionLastEpochsFile(t *testing.T) {
	l := makeSegLog(t, 4<<10)
	files := l.files["epochs"]
	rep := l.damaged(t, files[len(files)-1], func(b []byte) []byte { b[6] = segment.Version + 1; return b })
	if rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnsupportedVersion) || rep.Has(verifier.KindEpochMissing) || rep.Has(verifier.KindTruncated) {
		t.Fatalf("%s: %v", rep.Verdict, rep.Findings)
	}
}
