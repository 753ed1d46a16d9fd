// Package segment implements AFR's append-only framed files: a stream of
// records split across segment files, each record framed with its length and
// a CRC-32C checksum so that a torn or corrupted tail is detected on open.
//
// The byte layout is specified in docs/SPEC.md ("Segment files"):
//
//	file   = header frame*
//	header = magic "AFRSEG" (6) | version (1) | kind (1) | first index (8, big endian)
//	frame  = length (4, big endian) | crc32c(data) (4, big endian) | data (length bytes)
//
// A stream lives in one directory as files named <kind>-<first index, 16 hex
// digits>.seg. Only the last segment of a stream may end in a torn frame;
// Open cuts it back to the last complete frame and reports what it cut.
//
// # Durability
//
// Append writes into an in-process buffer. Flush hands the buffer to the
// operating system (the data then survives a crash of the process) and Sync
// also calls fsync (the data then survives a crash of the machine). The caller
// decides when to call which; see recorder.SyncPolicy.
package segment

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentflightrecorder/afr/internal/durable"
)

// Version is the segment file format version written by this package.
const Version = 1

// HeaderSize is the size of a segment file header; FrameOverhead the bytes a
// frame adds to its data.
const (
	HeaderSize    = 16
	FrameOverhead = 8
)

// MaxFrame is the largest frame payload accepted on read or write (2 MiB).
const MaxFrame = 2 << 20

// MaxTorn bounds the tail a crash can tear: at most one write of the
// writer's buffer or one frame. A bad tail longer than this is corruption,
// not a torn write, so Open refuses to cut it and acknowledged data is
// never discarded by a misread length.
const MaxTorn = bufSize + FrameOverhead + MaxFrame

const bufSize = 1 << 20

var magic = [6]byte{'A', 'F', 'R', 'S', 'E', 'G'}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrTooLarge is returned by Append for a frame over MaxFrame. Damage found
// on read is a *CorruptError or a *TornTailError, and a file of a newer
// format version a *VersionError (see read.go).
var ErrTooLarge = errors.New("segment: frame too large") // a frame exceeds MaxFrame

// Repair describes a torn tail that Open cut off.
type Repair struct {
	File     string
	Offset   int64 // new file size
	CutBytes int64 // bytes removed
	Reason   string
}

func (r Repair) String() string {
	return fmt.Sprintf("%s: cut %d torn bytes at offset %d (%s)", r.File, r.CutBytes, r.Offset, r.Reason)
}

// Writer appends frames to a stream. It is not safe for concurrent use.
type Writer struct {
	dir     string
	kind    string
	maxSize int64

	f      *os.File
	buf    *bufio.Writer
	size   int64  // bytes in the current segment, buffered included
	next   uint64 // index of the next frame
	hdr    [FrameOverhead]byte
	synced bool

	// flushed: frames before it were handed to the operating system by a
	// Flush or Sync that succeeded (the buffer holds none of them).
	flushed uint64
}

// Open opens the stream kind in dir for appending, creating it if needed.
// It scans every segment, verifies every frame, cuts a torn tail of the last
// segment back to the last complete frame (returned in repairs), and returns
// a writer positioned after the last frame together with all frames read.
// maxSize is the size at which a new segment file is started.
//
// A checksum mismatch or bad length before the last frame of the last
// segment is corruption, not a torn write: Open returns a *CorruptError and
// changes nothing.
func Open(dir, kind string, maxSize int64, visit func(Frame) error) (w *Writer, repairs []Repair, err error) {
	return open(dir, kind, maxSize, visit, false, noMark)
}

// OpenDurable is Open for a stream of which frames [0, durable) were made
// durable before anything past them was acknowledged (the log's durable
// mark, docs/SPEC.md "Durable mark"). Damage of any kind to a frame at
// index durable or later in the last segment was never acknowledged: it is
// cut, with everything after it, and reported. Damage below durable is
// corruption, a frame cut short by the end of the file included.
func OpenDurable(dir, kind string, maxSize int64, durable uint64, visit func(Frame) error) (w *Writer, repairs []Repair, err error) {
	return open(dir, kind, maxSize, visit, false, mark{set: true, durable: durable})
}

// OpenCuttingCorruptTail is Open for a stream its operator chose to repair:
// damage of any kind in the last segment — not only a torn write — is cut
// back to the last good frame and reported, instead of being refused. A
// machine crash can leave such damage in data written after the last fsync
// (the disk may persist later pages and lose earlier ones), but so can
// corruption of acknowledged data, which this then discards: verify a copy
// of the log first.
func OpenCuttingCorruptTail(dir, kind string, maxSize int64, visit func(Frame) error) (w *Writer, repairs []Repair, err error) {
	return open(dir, kind, maxSize, visit, true, noMark)
}

func open(dir, kind string, maxSize int64, visit func(Frame) error, cutCorrupt bool, m mark) (w *Writer, repairs []Repair, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	files, err := List(dir, kind)
	if err != nil {
		return nil, nil, err
	}
	w = &Writer{dir: dir, kind: kind, maxSize: maxSize}
	for i, name := range files {
		last := i == len(files)-1
		n, rep, err := scanFile(name, kind, w.next, last, cutCorrupt, m, visit)
		if err != nil {
			return nil, nil, err
		}
		if rep != nil {
			repairs = append(repairs, *rep)
			if rep.Offset < HeaderSize {
				// A crash while a new segment was being started left it
				// without a complete header: start it again.
				if err := os.Remove(name); err != nil {
					return nil, nil, err
				}
				files = files[:i]
			}
		}
		w.next += n
	}
	if len(files) == 0 {
		if err := w.startSegment(); err != nil {
			return nil, nil, err
		}
		return w, repairs, nil
	}
	f, err := os.OpenFile(files[len(files)-1], os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	w.f, w.size, w.flushed = f, st.Size(), w.next
	w.buf = bufio.NewWriterSize(f, bufSize)
	return w, repairs, nil
}

// List returns the segment files of a stream in order: the entries of dir
// named <kind>-*.seg (a name that is not <kind>-<16 lowercase hex>.seg for
// its header's first index is corruption, which the readers report); every
// other entry is ignored. A dir that does not exist, or that is no
// directory (a file, a symbolic link that loops or leads nowhere), holds
// no segment files; any other error listing it is returned.
func List(dir, kind string) ([]string, error) {
	names, err := listFS(osDir(dir), kind)
	for i, n := range names {
		names[i] = filepath.Join(dir, n)
	}
	return names, err
}

// listFS is List for the root of fsys, returning the files' names in it.
func listFS(fsys fs.FS, kind string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		if noDir(fsys) {
			return nil, nil
		}
		return nil, err
	}
	var names []string
	for _, e := range entries { // sorted by name: fixed-width hex indices sort in stream order
		if name := e.Name(); strings.HasPrefix(name, kind+"-") && strings.HasSuffix(name, ".seg") {
			names = append(names, name)
		}
	}
	return names, nil
}

// noDir reports whether the root of fsys is missing or no directory (an
// error other than a permission error looking at it included).
func noDir(fsys fs.FS) bool {
	st, err := fs.Stat(fsys, ".")
	if err != nil {
		return !errors.Is(err, fs.ErrPermission)
	}
	return !st.IsDir()
}

func segmentName(dir, kind string, first uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%016x.seg", kind, first))
}

func (w *Writer) startSegment() error {
	name := segmentName(w.dir, w.kind, w.next)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	var h [HeaderSize]byte
	copy(h[:6], magic[:])
	h[6] = Version
	h[7] = kindByte(w.kind)
	binary.BigEndian.PutUint64(h[8:], w.next)
	if _, err := f.Write(h[:]); err != nil {
		f.Close()
		return err
	}
	// Make the header and the file's directory entry durable before frames
	// depend on them.
	if err := syncFileAndDir(f, w.dir); err != nil {
		f.Close()
		return err
	}
	w.f, w.size = f, HeaderSize
	w.buf = bufio.NewWriterSize(f, bufSize)
	return nil
}

// kindByte is the first byte of the stream kind, stored in the header so a
// file renamed into the wrong stream is recognised.
func kindByte(kind string) byte {
	if kind == "" {
		return 0
	}
	return kind[0]
}

// Next returns the index the next appended frame will get.
func (w *Writer) Next() uint64 { return w.next }

// Append buffers one frame and returns its index.
func (w *Writer) Append(data []byte) (uint64, error) {
	if len(data) == 0 || len(data) > MaxFrame {
		if len(data) == 0 {
			return 0, errors.New("segment: empty frame")
		}
		return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), MaxFrame)
	}
	if w.size > HeaderSize && w.size+int64(len(data))+FrameOverhead > w.maxSize {
		if err := w.rotate(); err != nil {
			return 0, err
		}
	}
	binary.BigEndian.PutUint32(w.hdr[0:], uint32(len(data)))
	binary.BigEndian.PutUint32(w.hdr[4:], crc32.Checksum(data, castagnoli))
	if _, err := w.buf.Write(w.hdr[:]); err != nil {
		return 0, err
	}
	if _, err := w.buf.Write(data); err != nil {
		return 0, err
	}
	w.size += int64(len(data)) + FrameOverhead
	w.synced = false
	i := w.next
	w.next++
	return i, nil
}

func (w *Writer) rotate() error {
	if err := w.Sync(); err != nil {
		return err
	}
	if err := w.f.Close(); err != nil {
		return err
	}
	return w.startSegment()
}

// Flush writes buffered frames to the operating system.
func (w *Writer) Flush() error {
	if err := w.buf.Flush(); err != nil {
		return err
	}
	w.flushed = w.next
	return nil
}

// Sync flushes and fsyncs the current segment.
func (w *Writer) Sync() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.synced {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		return err
	}
	w.synced = true
	return nil
}

// File returns the current segment file, for callers that fsync outside the
// writer's lock (fsync of a file covers every write that returned before it).
func (w *Writer) File() *os.File { return w.f }

// Close flushes, fsyncs and closes the stream.
func (w *Writer) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}

// scanFile verifies one segment file and visits its frames. For the last
// segment of a stream, a torn final frame is cut off and reported.
func scanFile(name, kind string, first uint64, last, cutCorrupt bool, m mark, visit func(Frame) error) (uint64, *Repair, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	if err := checkName(name, kind, first); err != nil {
		return 0, nil, err
	}
	var n uint64
	end, err := Scan(f, st.Size(), name, kind, first, func(fr Frame) error {
		n++
		if visit != nil {
			return visit(fr)
		}
		return nil
	})
	if last {
		err = m.classify(err)
	}
	var torn *TornTailError
	var corrupt *CorruptError
	switch {
	case errors.As(err, &corrupt) && last && cutCorrupt:
		if err := f.Truncate(end); err != nil {
			return 0, nil, err
		}
		if err := f.Sync(); err != nil {
			return 0, nil, err
		}
		return n, &Repair{File: name, Offset: end, CutBytes: st.Size() - end, Reason: "cut on request: " + corrupt.Reason}, nil
	case errors.As(err, &torn) && last:
		if err := f.Truncate(end); err != nil {
			return 0, nil, err
		}
		if err := f.Sync(); err != nil {
			return 0, nil, err
		}
		return n, &Repair{File: name, Offset: end, CutBytes: st.Size() - end, Reason: torn.Reason}, nil
	case errors.As(err, &torn):
		return 0, nil, notLast(torn)
	case err != nil:
		return 0, nil, err
	}
	return n, nil, nil
}

func syncFileAndDir(f *os.File, dir string) error {
	if err := f.Sync(); err != nil {
		return err
	}
	return durable.SyncDir(dir)
}

// Truncate drops every frame from index n on, so that Next() == n. It is used
// on open to cut frames that were written but never acknowledged (see
// recorder.Open), and after a failed write to remove them. Segments past
// the one holding frame n are deleted. Buffered frames from n on are
// discarded unwritten, so Truncate works after a write failed (a full
// disk) as long as every frame before n was flushed.
func (w *Writer) Truncate(n uint64) error {
	if n >= w.next {
		return nil
	}
	if n <= w.flushed {
		w.buf.Reset(w.f)
	} else if err := w.Flush(); err != nil {
		return err
	}
	files, err := List(w.dir, w.kind)
	if err != nil {
		return err
	}
	var first uint64
	keep := -1
	for i, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		var h [HeaderSize]byte
		_, err = f.ReadAt(h[:], 0)
		f.Close()
		if err != nil {
			return err
		}
		if start := binary.BigEndian.Uint64(h[8:]); start <= n {
			keep, first = i, start
		}
	}
	if keep < 0 {
		return fmt.Errorf("segment: no segment holds frame %d", n)
	}
	// Find the byte offset of frame n in the segment that holds it.
	name := files[keep]
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	off := int64(HeaderSize)
	idx := first
	_, err = Scan(f, st.Size(), name, w.kind, first, func(fr Frame) error {
		if idx == n {
			return errStop
		}
		off += FrameOverhead + int64(len(fr.Data))
		idx++
		return nil
	})
	f.Close()
	if idx != n {
		// Damage past frame n (a write torn by the failure) is cut with it.
		if err == nil {
			err = fmt.Errorf("segment: %s ends before frame %d", name, n)
		}
		return err
	}
	if err := w.f.Close(); err != nil {
		return err
	}
	// Newest first, so a crash in between never leaves a gap in the stream.
	for i := len(files) - 1; i > keep; i-- {
		if err := os.Remove(files[i]); err != nil {
			return err
		}
	}
	if err := os.Truncate(name, off); err != nil {
		return err
	}
	nf, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if err := syncFileAndDir(nf, w.dir); err != nil {
		nf.Close()
		return err
	}
	w.f, w.size, w.next, w.flushed = nf, off, n, n
	w.buf.Reset(nf)
	return nil
}

var errStop = errors.New("stop")
