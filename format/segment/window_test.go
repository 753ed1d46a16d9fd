package segment

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// wholeFS is a directory whose files cannot be read at an offset: the
// reader reads each whole, as it does a replica's.
type wholeFS struct{ osDir }

type wholeFile struct{ fs.File } // no ReadAt

func (w wholeFS) Open(name string) (fs.File, error) {
	f, err := w.osDir.Open(name)
	if err != nil {
		return nil, err
	}
	return wholeFile{f}, nil
}

// readDesc reads a stream and describes what it read: each frame and the
// damage reported.
func readDesc(fsys fs.FS, root string) string {
	var b bytes.Buffer
	err := ReadAllDurableFS(fsys, root, "records", 3, func(f Frame) error {
		fmt.Fprintf(&b, "%d:%x\n", f.Index, f.Data)
		return nil
	})
	fmt.Fprintf(&b, "err: %v", err)
	return b.String()
}

// withWindow runs f with the view's window set to w.
func withWindow(w int64, f func()) {
	old := window
	window = w
	defer func() { window = old }()
	f()
}

// sameWindowed fails unless the stream in dir reads the same — frames and
// damage — a window at a time, for windows that end inside frames and
// headers, as read whole.
func sameWindowed(t *testing.T, dir, what string) {
	t.Helper()
	whole := readDesc(wholeFS{osDir(dir)}, dir)
	for _, w := range []int64{1, 7, 16, 61, 200, 4 << 20} {
		withWindow(w, func() {
			if got := readDesc(Dir(dir), dir); got != whole {
				t.Fatalf("%s, window %d: read\n%s\nwhere the whole files read\n%s", what, w, got, whole)
			}
		})
	}
}

// A bit flipped anywhere in a multi-file stream reads the same a window at
// a time as whole: the same frames, the same damage at the same offsets.
func TestWindowedReadSameAsWhole(t *testing.T) {
	src := t.TempDir()
	writeFrames(t, src, 24, 160)
	names, err := List(src, "records")
	if err != nil || len(names) < 4 {
		t.Fatalf("%d files, %v", len(names), err)
	}
	sameWindowed(t, src, "intact")
	for fi, name := range names {
		orig, _ := os.ReadFile(name)
		for off := 0; off < len(orig); off++ {
			dir := copyStream(t, src)
			b := bytes.Clone(orig)
			b[off] ^= 0x41
			os.WriteFile(filepath.Join(dir, filepath.Base(name)), b, 0o600)
			sameWindowed(t, dir, fmt.Sprintf("file %d offset %d flipped", fi, off))
		}
		dir := copyStream(t, src)
		os.WriteFile(filepath.Join(dir, filepath.Base(name)), orig[:len(orig)*2/3], 0o600)
		sameWindowed(t, dir, fmt.Sprintf("file %d cut", fi))
	}
}

// FuzzWindowedSameAsWhole reads fuzzed bytes as the one file of a stream,
// a window at a time and whole. Seeded from an intact file, cut and
// zero-extended.
func FuzzWindowedSameAsWhole(f *testing.F) {
	src := f.TempDir()
	w, _, err := Open(src, "records", 1<<20, nil)
	if err != nil {
		f.Fatal(err)
	}
	for i := range 6 {
		if _, err := w.Append(bytes.Repeat([]byte{byte(i + 1)}, 10+i)); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	first, err := os.ReadFile(filepath.Join(src, "records-0000000000000000.seg"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(first)
	f.Add(first[:len(first)-3])
	f.Add(append(bytes.Clone(first), make([]byte, 40)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "records-0000000000000000.seg"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		sameWindowed(t, dir, "fuzzed file")
	})
}
