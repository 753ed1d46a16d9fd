package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
)

// layout is where the frames of a stream are: per file, the offset of each
// frame and its index.
type layout struct {
	files  []string
	starts [][]int // frame offsets per file
	firsts []int   // index of each file's first frame
}

func streamLayout(t *testing.T, dir string, want [][]byte) layout {
	t.Helper()
	files, err := List(dir, "records")
	if err != nil {
		t.Fatal(err)
	}
	l := layout{files: files}
	idx := 0
	for _, name := range files {
		b, _ := os.ReadFile(name)
		l.firsts = append(l.firsts, idx)
		var starts []int
		for off := HeaderSize; off < len(b); idx++ {
			starts = append(starts, off)
			off += FrameOverhead + len(want[idx])
		}
		l.starts = append(l.starts, starts)
	}
	if idx != len(want) {
		t.Fatalf("layout: %d frames, want %d", idx, len(want))
	}
	return l
}

// readAll reads a stream and checks that every frame it visits is the one
// written at that index.
func readAll(t *testing.T, dir string, want [][]byte) (map[uint64]bool, error) {
	t.Helper()
	seen := map[uint64]bool{}
	err := ReadAll(dir, "records", func(f Frame) error {
		if f.Index >= uint64(len(want)) || !bytes.Equal(f.Data, want[f.Index]) || seen[f.Index] {
			return fmt.Errorf("frame %d is not the frame written there", f.Index)
		}
		seen[f.Index] = true
		return nil
	})
	return seen, err
}

func copyStream(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	names, _ := List(src, "records")
	for _, name := range names {
		b, _ := os.ReadFile(name)
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(name)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// One flipped bit anywhere in a multi-file stream: ReadAll reports damage,
// never a torn tail outside the last file, never misplaces a frame, and
// still reads every frame of every other file. A frame whose checksum
// alone fails in a file that is not the last costs that frame only.
func TestReadAllDamageEveryOffset(t *testing.T) {
	src := t.TempDir()
	want := writeFrames(t, src, 24, 160)
	l := streamLayout(t, src, want)
	if len(l.files) < 4 {
		t.Fatalf("%d files, want at least 4", len(l.files))
	}
	for fi, name := range l.files {
		last := fi == len(l.files)-1
		orig, _ := os.ReadFile(name)
		for off := 0; off < len(orig); off++ {
			for _, bit := range []byte{0x01, 0x40} {
				dir := copyStream(t, src)
				b := bytes.Clone(orig)
				b[off] ^= bit
				os.WriteFile(filepath.Join(dir, filepath.Base(name)), b, 0o600)
				seen, err := readAll(t, dir, want)
				where := fmt.Sprintf("file %d offset %d bit %#x", fi, off, bit)
				var ce *CorruptError
				var tt *TornTailError
				switch {
				case err == nil:
					t.Fatalf("%s: damage not reported", where)
				case !errors.As(err, &ce) && !errors.As(err, &tt) && !errors.Is(err, format.ErrNewerVersion):
					t.Fatalf("%s: %v", where, err)
				case !last && errors.As(err, &tt):
					t.Fatalf("%s: torn tail in a file that is not the last: %v", where, err)
				}
				for fj := range l.files {
					if fj == fi {
						continue
					}
					for k := range l.starts[fj] {
						if !seen[uint64(l.firsts[fj]+k)] {
							t.Fatalf("%s: frame %d of intact file %d not read (%v)", where, l.firsts[fj]+k, fj, err)
						}
					}
				}
				// A flip in a frame's checksum or data (not its length).
				k := len(l.starts[fi]) - 1
				for k >= 0 && l.starts[fi][k] > off {
					k--
				}
				if k < 0 || off < l.starts[fi][k]+4 {
					continue
				}
				if !last && len(seen) != len(want)-1 {
					t.Fatalf("%s: %d frames read, want all but one (%v)", where, len(seen), err)
				}
				if last && k < len(l.starts[fi])-1 && errors.As(err, &tt) {
					t.Fatalf("%s: a checksum error before the final frame is a torn tail: %v", where, err)
				}
			}
		}
	}
}

// appendFrame writes a frame with a valid checksum and any length to the
// end of a segment file, as the writer never would.
func appendFrame(t *testing.T, name string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	var h [FrameOverhead]byte
	binary.BigEndian.PutUint32(h[:], uint32(len(data)))
	binary.BigEndian.PutUint32(h[4:], crc32.Checksum(data, castagnoli))
	f.Write(h[:])
	f.Write(data)
	f.Close()
}

// A complete frame over MaxFrame with a valid checksum at the end of the
// last file breaks the limit: corruption, which Open refuses to cut.
func TestOversizeFinalFrameIsCorrupt(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 3, 1<<20)
	name := filepath.Join(dir, "records-0000000000000000.seg")
	appendFrame(t, name, bytes.Repeat([]byte{9}, MaxFrame+1))
	before, _ := os.ReadFile(name)
	n := 0
	err := ReadAll(dir, "records", func(Frame) error { n++; return nil })
	var ce *CorruptError
	if !errors.As(err, &ce) || n != 3 {
		t.Fatalf("ReadAll: %v after %d frames, want a *CorruptError after 3", err, n)
	}
	if _, _, err := Open(dir, "records", 1<<20, nil); !errors.As(err, &ce) {
		t.Fatalf("Open: %v, want a *CorruptError", err)
	}
	if after, _ := os.ReadFile(name); !bytes.Equal(after, before) {
		t.Fatal("Open cut an oversize frame as a torn tail")
	}
}

// A frame length past the end of the file with more than a torn write's
// worth of data after it is corruption, not a torn tail.
func TestLengthPastEndWithDataAfterIsCorrupt(t *testing.T) {
	dir := t.TempDir()
	w, _, err := Open(dir, "records", 64<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		w.Append(bytes.Repeat([]byte{byte(i + 1)}, 1<<20))
	}
	w.Close()
	name := filepath.Join(dir, "records-0000000000000000.seg")
	b, _ := os.ReadFile(name)
	binary.BigEndian.PutUint32(b[HeaderSize:], 0x7fffffff)
	os.WriteFile(name, b, 0o600)
	err = ReadAll(dir, "records", func(Frame) error { return nil })
	var ce *CorruptError
	var tt *TornTailError
	if !errors.As(err, &ce) || errors.As(err, &tt) {
		t.Fatalf("got %v, want a *CorruptError and no torn tail", err)
	}
}

// A segment file removed from the middle of a stream is corruption. The
// file after it cannot be placed (nothing damaged explains the frames it
// skips) and is corrupt too; its unreadable bytes can hide the frames the
// file after that skips, which is read at its own indices.
func TestMissingMiddleFile(t *testing.T) {
	dir := t.TempDir()
	want := writeFrames(t, dir, 24, 160)
	l := streamLayout(t, dir, want)
	os.Remove(l.files[1])
	seen, err := readAll(t, dir, want)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.File != l.files[2] {
		t.Fatalf("got %v, want a *CorruptError for %s", err, l.files[2])
	}
	for fi := range l.files {
		for k := range l.starts[fi] {
			if read := seen[uint64(l.firsts[fi]+k)]; read != (fi != 1 && fi != 2) {
				t.Fatalf("frame %d of file %d: read %v", l.firsts[fi]+k, fi, read)
			}
		}
	}
}

// A file whose first index jumps further than any damage before it can
// explain is corrupt: a reader never places frames at made-up positions
// (nor allocates for them).
func TestImplausibleFirstIndex(t *testing.T) {
	dir := t.TempDir()
	want := writeFrames(t, dir, 24, 160)
	l := streamLayout(t, dir, want)
	b, _ := os.ReadFile(l.files[0])
	b[HeaderSize+FrameOverhead] ^= 1 // frame 0's data
	os.WriteFile(l.files[0], b, 0o600)
	last := l.files[len(l.files)-1]
	b, _ = os.ReadFile(last)
	binary.BigEndian.PutUint64(b[8:], 1<<60)
	os.Remove(last)
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("records-%016x.seg", uint64(1)<<60)), b, 0o600)
	seen, err := readAll(t, dir, want)
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *CorruptError", err)
	}
	if len(seen) != len(want)-1-len(l.starts[len(l.files)-1]) {
		t.Fatalf("%d frames read", len(seen))
	}
}

// A file whose name does not match its header's first index is corrupt.
func TestFileNameMustMatchHeader(t *testing.T) {
	dir := t.TempDir()
	want := writeFrames(t, dir, 24, 160)
	l := streamLayout(t, dir, want)
	renamed := filepath.Join(dir, fmt.Sprintf("records-%016x.seg", l.firsts[1]+1))
	os.Rename(l.files[1], renamed)
	_, err := readAll(t, dir, want)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.File != renamed {
		t.Fatalf("ReadAll: %v, want a *CorruptError for %s", err, renamed)
	}
	if _, _, err := Open(dir, "records", 160, nil); !errors.As(err, &ce) {
		t.Fatalf("Open: %v, want a *CorruptError", err)
	}
}

// A file of a newer format version is reported (wrapping
// format.ErrNewerVersion) and the files after it are still read.
func TestNewerVersionFileSkipped(t *testing.T) {
	dir := t.TempDir()
	want := writeFrames(t, dir, 24, 160)
	l := streamLayout(t, dir, want)
	b, _ := os.ReadFile(l.files[1])
	b[6] = Version + 1
	os.WriteFile(l.files[1], b, 0o600)
	seen, err := readAll(t, dir, want)
	var ce *CorruptError
	if !errors.Is(err, format.ErrNewerVersion) || errors.As(err, &ce) {
		t.Fatalf("got %v, want only ErrNewerVersion", err)
	}
	if len(seen) != len(want)-len(l.starts[1]) {
		t.Fatalf("%d frames read, want %d", len(seen), len(want)-len(l.starts[1]))
	}
}

// Which names are part of a stream (docs/SPEC.md, "Segment files"): every
// <kind>-*.seg, refused unless it is <kind>-<16 lowercase hex>.seg of its
// header's first index; any other name is ignored. The directory's own
// name is never a pattern.
func TestStreamFileNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log[1]*")
	want := writeFrames(t, dir, 24, 160)
	l := streamLayout(t, dir, want)
	b, _ := os.ReadFile(l.files[1])
	for _, ignored := range []string{"records-0000000000000001.seg.bak", "records.seg", "epochs-0000000000000000.seg", "README"} {
		os.WriteFile(filepath.Join(dir, ignored), b, 0o600)
	}
	if seen, err := readAll(t, dir, want); err != nil || len(seen) != len(want) {
		t.Fatalf("with ignored names: %d of %d frames, %v", len(seen), len(want), err)
	}
	for _, refused := range []string{"records-1.seg", "records-.seg", "records-zzzzzzzzzzzzzzzz.seg"} {
		t.Run(refused, func(t *testing.T) {
			dir := copyStream(t, dir)
			name := filepath.Join(dir, refused)
			os.Rename(filepath.Join(dir, filepath.Base(l.files[1])), name)
			_, err := readAll(t, dir, want)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("ReadAll: %v, want a *CorruptError", err)
			}
		})
	}
}

// A stream path that is no directory holds no segment files; one that is a
// directory the reader may not list is an error, never an empty stream.
func TestListStreamPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "records")
	os.WriteFile(file, []byte("x"), 0o600)
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	for _, p := range []string{file, loop, filepath.Join(dir, "absent")} {
		if files, err := List(p, "records"); err != nil || len(files) != 0 {
			t.Fatalf("List(%s) = %v, %v; want none", p, files, err)
		}
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: permissions do not apply")
		return
	}
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0)
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	if _, err := List(locked, "records"); err == nil {
		t.Fatal("List of an unreadable directory: no error")
	}
}
