package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/agentflightrecorder/afr/format"
)

// Frame is one record read back from a stream.
type Frame struct {
	Index uint64 // position in the stream, from 0
	Data  []byte
}

// CorruptError reports damage that no crash of the writer leaves: a bad
// header, a file name that disagrees with its header, a checksum mismatch
// or a bad length before the end of the last file, frames missing between
// files, or any damage in a file that is not the last.
type CorruptError struct {
	File   string
	Offset int64
	Index  uint64 // index of the first frame the damage makes unreadable
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("segment: %s at offset %d (frame %d): %s", e.File, e.Offset, e.Index, e.Reason)
}

// TornTailError reports the end of a stream's last file cut short the way
// a crash leaves it: a header or frame cut by the end of the file, a final
// frame whose checksum fails, or a zero-filled tail, MaxTorn bytes at most.
// Open cuts such a tail; Scan and ReadAll report it.
type TornTailError struct {
	File   string
	Offset int64
	Index  uint64 // index of the first frame lost
	Reason string
}

func (e *TornTailError) Error() string {
	return fmt.Sprintf("segment: %s: torn tail at offset %d (frame %d): %s", e.File, e.Offset, e.Index, e.Reason)
}

// VersionError reports a segment file of a format version this build does
// not read. It wraps format.ErrNewerVersion.
type VersionError struct {
	File    string
	Index   uint64 // index the file's first frame would have, as far as the reader knows
	Version byte
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("segment: %s: %v: version %d, this build reads up to %d", e.File, format.ErrNewerVersion, e.Version, Version)
}

func (e *VersionError) Unwrap() error { return format.ErrNewerVersion }

// notLast reclassifies a torn tail found in a file that is not the last of
// its stream: the writer syncs a file before it starts the next one, so
// damage there is corruption.
func notLast(torn *TornTailError) error {
	return &CorruptError{File: torn.File, Offset: torn.Offset, Index: torn.Index, Reason: torn.Reason + " in a segment that is not the last"}
}

// mark is a stream's durable mark: frames [0, durable) were durable before
// anything past them was acknowledged. Without one (set false) damage is
// classified by what it looks like alone.
type mark struct {
	set     bool
	durable uint64
}

var noMark = mark{}

// classify reclassifies damage met in the last file of a stream under its
// durable mark: damage to a frame at or past the mark is a torn tail
// whatever it looks like (a machine crash persists unsynced pages in any
// order), and damage below it is corruption (those frames were fsynced).
// Damage to the file's header (offsets below HeaderSize) at or past the
// mark keeps its class: a writer fsyncs a file's header when it starts the
// file, before any frame of it.
func (m mark) classify(err error) error {
	if !m.set {
		return err
	}
	var torn *TornTailError
	var corrupt *CorruptError
	switch {
	case errors.As(err, &torn) && torn.Index < m.durable:
		return &CorruptError{File: torn.File, Offset: torn.Offset, Index: torn.Index,
			Reason: fmt.Sprintf("%s below the durable mark (%d frames)", torn.Reason, m.durable)}
	case errors.As(err, &corrupt) && corrupt.Index >= m.durable && corrupt.Offset >= HeaderSize:
		return &TornTailError{File: corrupt.File, Offset: corrupt.Offset, Index: corrupt.Index,
			Reason: fmt.Sprintf("%s at or past the durable mark (%d frames): never acknowledged", corrupt.Reason, m.durable)}
	}
	return err
}

// damage is what is wrong with the frame at off.
type damage struct {
	off    int64
	reason string
	torn   bool  // at the end of the file, as a crash leaves it
	skip   int64 // where the next frame starts when only this frame's checksum failed, else 0
}

func (d *damage) err(name string, idx uint64) error {
	if d.torn {
		return &TornTailError{File: name, Offset: d.off, Index: idx, Reason: d.reason}
	}
	return &CorruptError{File: name, Offset: d.off, Index: idx, Reason: d.reason}
}

// view is a segment file read a window at a time, so that reading a
// stream takes memory for a window, not a file. A frame's bytes are a
// slice of one window; each window is a fresh buffer, so the frames handed
// out stay valid however long they are held.
type view struct {
	r    io.ReaderAt // nil: buf is the whole file
	name string      // for errors
	size int64       // the file's size when it was opened
	buf  []byte      // bytes [at, at+len(buf)) of the file
	at   int64
}

// window is how much of a file a view reads at once (more when a frame or
// a torn tail needs more): 4 MiB, about two frames of MaxFrame bytes.
// Tests lower it to put window edges inside frames.
var window int64 = 4 << 20

// bytesView is a view of b, the whole of a file.
func bytesView(b []byte) *view { return &view{buf: b, size: int64(len(b))} }

// bytes returns bytes [off, off+n) of the file, within its size.
func (v *view) bytes(off, n int64) ([]byte, error) {
	if off >= v.at && off+n <= v.at+int64(len(v.buf)) {
		i := off - v.at
		return v.buf[i : i+n : i+n], nil
	}
	buf := make([]byte, min(max(window, n), v.size-off))
	if k, err := v.r.ReadAt(buf, off); k < len(buf) {
		if err == io.EOF {
			err = fmt.Errorf("segment: %s: %d bytes at offset %d, the file ends at %d: it was cut while it was read", v.name, len(buf), off, off+int64(k))
		}
		return nil, err
	}
	v.buf, v.at = buf, off
	return buf[:n:n], nil
}

// frameAt reads the frame at off of a segment file. The checks run in the
// order docs/SPEC.md gives, so that every damage it calls torn is at most
// MaxTorn bytes long. An error is the reader's (an I/O error), not damage.
func frameAt(v *view, off int64) ([]byte, *damage, error) {
	rest := v.size - off
	if rest < FrameOverhead {
		return nil, &damage{off: off, reason: "frame header cut short", torn: true}, nil
	}
	h, err := v.bytes(off, FrameOverhead)
	if err != nil {
		return nil, nil, err
	}
	n := int64(binary.BigEndian.Uint32(h))
	switch {
	case n == 0 && rest <= MaxTorn:
		tail, err := v.bytes(off, rest)
		if err != nil {
			return nil, nil, err
		}
		if isZero(tail) {
			// Frames are never empty; zeros at the end are a file extended
			// by the filesystem before its data reached the disk.
			return nil, &damage{off: off, reason: "zero-filled tail", torn: true}, nil
		}
		return nil, &damage{off: off, reason: "empty frame"}, nil
	case n == 0:
		return nil, &damage{off: off, reason: "empty frame"}, nil
	case n > MaxFrame:
		// The writer never writes such a length, so it is never a torn
		// write, wherever it ends.
		return nil, &damage{off: off, reason: fmt.Sprintf("frame length %d over limit %d", n, MaxFrame)}, nil
	case FrameOverhead+n > rest:
		return nil, &damage{off: off, reason: fmt.Sprintf("frame of %d bytes cut short", n), torn: true}, nil
	}
	b, err := v.bytes(off, FrameOverhead+n)
	if err != nil {
		return nil, nil, err
	}
	end := off + FrameOverhead + n
	data := b[FrameOverhead:]
	if crc32.Checksum(data, castagnoli) != binary.BigEndian.Uint32(b[4:]) {
		if end == v.size {
			return nil, &damage{off: off, reason: "checksum mismatch in the final frame", torn: true, skip: end}, nil
		}
		return nil, &damage{off: off, reason: "checksum mismatch", skip: end}, nil
	}
	return data, nil, nil
}

// headerOf reads and checks a segment file's header (header).
func headerOf(v *view, name, kind string, idx uint64) (uint64, error) {
	n := min(v.size, HeaderSize)
	if v.size <= MaxTorn {
		n = v.size // all of it, for the zero-filled check
	}
	b, err := v.bytes(0, n)
	if err != nil {
		return 0, err
	}
	return header(b, v.size, name, kind, idx)
}

// header checks a segment file's header and returns the index of its first
// frame, given the file's size and its first bytes b: all of them when
// size is at most MaxTorn, else at least HeaderSize. idx is the index the
// reader expects, for errors.
func header(b []byte, size int64, name, kind string, idx uint64) (uint64, error) {
	torn := func(reason string) error { return &TornTailError{File: name, Index: idx, Reason: reason} }
	corrupt := func(off int64, reason string) error {
		return &CorruptError{File: name, Offset: off, Index: idx, Reason: reason}
	}
	switch {
	case size == 0:
		return 0, torn("empty segment file")
	case size < HeaderSize:
		return 0, torn("segment header cut short")
	case size <= MaxTorn && isZero(b):
		// A file the filesystem extended before any of its data reached
		// the disk (a crash right after the segment was started).
		return 0, torn("zero-filled segment")
	case [6]byte(b[:6]) != magic:
		return 0, corrupt(0, "not an AFR segment file (bad magic)")
	case b[6] > Version:
		return 0, &VersionError{File: name, Index: idx, Version: b[6]}
	case b[6] == 0:
		return 0, corrupt(6, "version 0")
	case b[7] != kindByte(kind):
		return 0, corrupt(7, fmt.Sprintf("segment of stream %q, want %q", b[7], kind))
	}
	return binary.BigEndian.Uint64(b[8:]), nil
}

// checkName checks that a segment file is named after the index of its
// first frame, first.
func checkName(name, kind string, first uint64) error {
	if want := filepath.Base(segmentName("", kind, first)); filepath.Base(name) != want {
		return &CorruptError{File: name, Offset: 8, Index: first, Reason: fmt.Sprintf("the header's first index %d names the file %s", first, want)}
	}
	return nil
}

// Scan reads a segment of stream kind from r (of the given size), checks its
// header and every frame, and calls visit for each frame in order with
// indices starting at first. It stops at the first damage and returns the
// offset just past the last good frame: damage at the end of the file that
// a crash can leave is a *TornTailError (a torn tail if this is the last
// file of its stream), any other a *CorruptError, a newer version a
// *VersionError. name is used in errors only. Scan reads the segment into
// one buffer of size bytes; the frames are slices of it.
func Scan(r io.ReaderAt, size int64, name, kind string, first uint64, visit func(Frame) error) (int64, error) {
	b := make([]byte, size)
	if size > 0 {
		if _, err := r.ReadAt(b, 0); err != nil {
			return 0, err
		}
	}
	got, err := header(b, size, name, kind, first)
	if err != nil {
		return 0, err
	}
	if got != first {
		return 0, &CorruptError{File: name, Offset: 8, Index: first, Reason: fmt.Sprintf("first index %d, want %d", got, first)}
	}
	off := int64(HeaderSize)
	v := bytesView(b)
	for idx := first; off < size; idx++ {
		data, d, _ := frameAt(v, off) // all in memory: no read to fail
		if d != nil {
			return off, d.err(name, idx)
		}
		if err := visit(Frame{Index: idx, Data: data}); err != nil {
			return off, err
		}
		off += FrameOverhead + int64(len(data))
	}
	return off, nil
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// ReadAll reads every frame of a stream without modifying anything, and
// goes on reading past damage where it safely can (docs/SPEC.md, "Segment
// files"): a later file is read at the index its header gives when the
// bytes the damage made unreadable can hold the frames it skips, and a
// frame whose checksum alone fails is skipped when the next file's first
// index confirms the count. An error of visit stops it at once. Otherwise
// it returns nil, or every damage it met joined (errors.Join) in stream
// order: *CorruptError, *TornTailError (the end of the last file only)
// and *VersionError.
func ReadAll(dir, kind string, visit func(Frame) error) error {
	return readStream(osDir(dir), dir, kind, noMark, visit)
}

// ReadAllDurable is ReadAll for a stream of which frames [0, durable) were
// made durable before anything past them was acknowledged (docs/SPEC.md,
// "Durable mark"): damage of any kind to a frame at index durable or later
// in the last file is a *TornTailError, and damage below durable a
// *CorruptError, a frame cut short by the end of the file included.
func ReadAllDurable(dir, kind string, durable uint64, visit func(Frame) error) error {
	return readStream(osDir(dir), dir, kind, mark{set: true, durable: durable}, visit)
}

// ReadAllFS is ReadAll for a stream whose directory is the root of fsys:
// Dir(path) for a local directory, or another file system (a log's
// replica in object storage). Files are named in errors as root joined
// with their name. fsys must report a name that is no regular file as
// fs.Stat does for a local directory.
func ReadAllFS(fsys fs.FS, root, kind string, visit func(Frame) error) error {
	return readStream(fsys, root, kind, noMark, visit)
}

// ReadAllDurableFS is ReadAllDurable for a stream whose directory is the
// root of fsys, as ReadAllFS reads it.
func ReadAllDurableFS(fsys fs.FS, root, kind string, durable uint64, visit func(Frame) error) error {
	return readStream(fsys, root, kind, mark{set: true, durable: durable}, visit)
}

// Dir returns the local directory dir as an fs.FS. Unlike os.DirFS it
// names files in errors by their full path, as the os functions do.
func Dir(dir string) fs.FS { return osDir(dir) }

type osDir string

func (d osDir) path(name string) string { return filepath.Join(string(d), name) }

func (d osDir) Open(name string) (fs.File, error) { return os.Open(d.path(name)) }

func (d osDir) Stat(name string) (fs.FileInfo, error) { return os.Stat(d.path(name)) }

func (d osDir) ReadFile(name string) ([]byte, error) { return os.ReadFile(d.path(name)) }

func (d osDir) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(d.path(name)) }

func readStream(fsys fs.FS, root, kind string, m mark, visit func(Frame) error) error {
	names, err := listFS(fsys, kind)
	if err != nil {
		return err
	}
	var found []error
	var next uint64  // index of the next frame
	var unread int64 // bytes damage made unreadable since the last frame read
	for i, base := range names {
		name := filepath.Join(root, base)
		v, closeFile, err := openFile(fsys, base, name)
		var nf *notAFileError
		if errors.As(err, &nf) {
			// Not part of any stream a writer leaves: corruption, and it
			// may have held any number of frames.
			found = append(found, &CorruptError{File: name, Index: next, Reason: nf.Error()})
			unread = math.MaxInt64
			continue
		}
		if err != nil {
			return err
		}
		var confirm *uint64 // the next file's first index
		if i+1 < len(names) {
			confirm = firstIndex(fsys, names[i+1], kind)
		}
		end, left, errs, err := readSegment(v, name, kind, next, unread, confirm, visit)
		closeFile()
		if err != nil {
			return err
		}
		for _, err := range errs {
			var torn *TornTailError
			switch {
			case i+1 == len(names):
				err = m.classify(err)
			case errors.As(err, &torn):
				err = notLast(torn)
			}
			found = append(found, err)
		}
		next, unread = end, left
	}
	return errors.Join(found...)
}

// notAFileError reports a segment path that is no regular file: a
// directory, or a symbolic link that loops or leads nowhere.
type notAFileError struct{ err error }

func (e *notAFileError) Error() string { return "not a regular file: " + e.err.Error() }

// openFile opens the segment file name of fsys, named display in errors,
// as a view: read a window at a time where the file system's files can be
// read at an offset (a local directory), else whole. A path that is no
// regular file is a *notAFileError: the log's layout is wrong. Any other
// error (no permission, an I/O error) is the reader's and is returned as
// it is.
func openFile(fsys fs.FS, name, display string) (*view, func(), error) {
	fi, err := fs.Stat(fsys, name)
	switch {
	case err != nil && !errors.Is(err, fs.ErrPermission):
		return nil, nil, &notAFileError{err}
	case err == nil && !fi.Mode().IsRegular():
		return nil, nil, &notAFileError{fmt.Errorf("%s is a %s", display, kindOf(fi.Mode()))}
	case err != nil:
		return nil, nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	if r, ok := f.(io.ReaderAt); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return &view{r: r, name: display, size: st.Size()}, func() { f.Close() }, nil
		}
	}
	f.Close()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	return bytesView(b), func() {}, nil
}

func kindOf(m fs.FileMode) string {
	if m.IsDir() {
		return "directory"
	}
	return "special file (" + m.Type().String() + ")"
}

// readSegment reads one file of a stream whose next frame has index next;
// unread bytes before it were unreadable, so its first index may be up to
// unread/(FrameOverhead+1) higher. confirm is the first index of the next
// file, nil for the last file: skipping a frame whose checksum failed is
// only safe when the count it gives reaches confirm, because the length
// that was skipped is not covered by the checksum. It calls visit with the
// good frames — those before the first skip as they are read, those after
// it once the count confirms them — and returns the index after the last
// one, the bytes now unread, the damage met, and visit's error if it
// stopped the reading.
func readSegment(v *view, name, kind string, next uint64, unread int64, confirm *uint64, visit func(Frame) error) (uint64, int64, []error, error) {
	size := v.size
	first, err := headerOf(v, name, kind, next)
	var corrupt *CorruptError
	var torn *TornTailError
	var version *VersionError
	if err != nil && !errors.As(err, &corrupt) && !errors.As(err, &torn) && !errors.As(err, &version) {
		return next, 0, nil, err // the reader's error, not damage
	}
	if err == nil {
		err = checkName(name, kind, first)
	}
	if err == nil && (first < next || first-next > uint64(unread/(FrameOverhead+1))) {
		err = &CorruptError{File: name, Offset: 8, Index: next, Reason: fmt.Sprintf("first index %d, want %d (or at most %d more, the frames the damage before it can hide)", first, next, unread/(FrameOverhead+1))}
	}
	if err != nil {
		return next, addUnread(unread, size), []error{err}, nil
	}
	var held []Frame // frames after a skip, visited once the count confirms them
	var errs []error
	var stop error
	idx, off := first, int64(HeaderSize)
	for off < size {
		data, d, err := frameAt(v, off)
		if err != nil {
			return idx, 0, nil, err
		}
		if d != nil && (d.skip == 0 || confirm == nil) {
			stop = d.err(name, idx)
			break
		}
		switch {
		case d != nil:
			errs = append(errs, &CorruptError{File: name, Offset: d.off, Index: idx, Reason: d.reason})
			off = d.skip
		case len(errs) > 0:
			held = append(held, Frame{Index: idx, Data: data})
			off += FrameOverhead + int64(len(data))
		default:
			if err := visit(Frame{Index: idx, Data: data}); err != nil {
				return idx, 0, nil, err
			}
			off += FrameOverhead + int64(len(data))
		}
		idx++
	}
	if len(errs) > 0 && (stop != nil || idx != *confirm) {
		// The count does not confirm the skips: the file is unreadable
		// from the first one on.
		ce := errs[0].(*CorruptError)
		ce.Reason += "; the frames after it in this file cannot be located safely"
		return ce.Index, size - ce.Offset, errs[:1], nil
	}
	for _, f := range held {
		if err := visit(f); err != nil {
			return idx, 0, nil, err
		}
	}
	if stop != nil {
		return idx, size - off, append(errs, stop), nil
	}
	return idx, 0, errs, nil
}

// addUnread adds n unreadable bytes to unread, which may be unbounded
// (math.MaxInt64: a path that was no file).
func addUnread(unread, n int64) int64 {
	if unread > math.MaxInt64-n {
		return math.MaxInt64
	}
	return unread + n
}

// firstIndex returns the first index in the header of segment file name
// of fsys, or nil if it cannot be read.
func firstIndex(fsys fs.FS, name, kind string) *uint64 {
	f, err := fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	var h [HeaderSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil
	}
	first, err := header(h[:], HeaderSize, name, kind, 0)
	if err != nil {
		return nil
	}
	return &first
}

// Whole returns how many frames at the start of b — bytes of a segment
// file from a frame boundary on, its header excluded — are whole and pass
// their checksum, at most max, and how many bytes they take. A copier of a
// growing stream (package replica) copies whole frames only.
func Whole(b []byte, max uint64) (frames uint64, n int64) {
	v := bytesView(b)
	for frames < max && n < int64(len(b)) {
		data, d, _ := frameAt(v, n) // all in memory: no read to fail
		if d != nil {
			break
		}
		frames++
		n += FrameOverhead + int64(len(data))
	}
	return frames, n
}

// FirstIndex returns the index of the first frame of a segment file of
// stream kind from the file's header h, checking it.
func FirstIndex(h []byte, name, kind string) (uint64, error) {
	if len(h) > HeaderSize {
		h = h[:HeaderSize]
	}
	return header(h, int64(len(h)), name, kind, 0)
}
