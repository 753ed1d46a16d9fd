package recorder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/internal/durable"
)

// MarkFile is the name of the durable mark in a log directory
// (docs/SPEC.md, "Durable mark").
const MarkFile = "DURABLE"

// ReadMark reads the durable mark of the log in dir. ok is false when the
// log has none: no DURABLE file (a log written before the mark existed),
// or one without a valid slot; its readers then classify damage without
// it. An error is returned when the file exists but cannot be read.
func ReadMark(dir string) (m format.Mark, ok bool, err error) {
	return readMarkFS(segment.Dir(dir), MarkFile)
}

func readMarkFS(fsys fs.FS, name string) (m format.Mark, ok bool, err error) {
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return format.Mark{}, false, nil
	}
	if err != nil {
		return format.Mark{}, false, fmt.Errorf("recorder: reading the durable mark: %w", err)
	}
	if m, err = format.DecodeMark(b); err != nil {
		return format.Mark{}, false, nil
	}
	return m, true, nil
}

// errMarkFrozen is a mark write after the recorder failed.
var errMarkFrozen = errors.New("recorder: the log failed; its durable mark is not advanced")

// markFile writes the durable mark: after an fsync of the streams and
// before the events it covers are acknowledged, one of its two slots is
// replaced in place and fsynced. Safe for concurrent use.
type markFile struct {
	path   string
	loaded format.Mark // the mark found on open
	found  bool        // the log had a valid mark on open

	mu     sync.Mutex
	f      *os.File    // nil until the file is written by this writer
	last   format.Mark // the mark last made durable
	tried  format.Mark // the highest mark a write was attempted for: a failed write may have left it on disk
	frozen bool        // the recorder failed: the mark stays as it is
}

func openMarkFile(dir string) (*markFile, error) {
	m, ok, err := ReadMark(dir)
	if err != nil {
		return nil, err
	}
	return &markFile{path: filepath.Join(dir, MarkFile), loaded: m, found: ok, last: m}, nil
}

// advance makes a mark durable that covers events and epochs frames,
// unless the last one written covers them already.
func (mf *markFile) advance(events, epochs uint64) error {
	mf.mu.Lock()
	defer mf.mu.Unlock()
	if mf.f != nil && events <= mf.last.Events && epochs <= mf.last.Epochs {
		return nil
	}
	return mf.write(max(events, mf.last.Events), max(epochs, mf.last.Epochs))
}

// reset makes a mark durable that covers exactly events and epochs frames:
// what a writer holds once it has opened the log and synced its streams
// (less than the mark it found when the operator had damage cut).
func (mf *markFile) reset(events, epochs uint64) error {
	mf.mu.Lock()
	defer mf.mu.Unlock()
	return mf.write(events, epochs)
}

// write writes the next generation; mf.mu is held.
func (mf *markFile) write(events, epochs uint64) error {
	if mf.frozen {
		return errMarkFrozen
	}
	next := format.Mark{Generation: mf.last.Generation + 1, Events: events, Epochs: epochs}
	mf.tried.Events, mf.tried.Epochs = max(mf.tried.Events, events), max(mf.tried.Epochs, epochs)
	if mf.f == nil {
		// Replace whatever is there (nothing, a file of no valid slot, a
		// mark this writer read) by a whole file, atomically.
		if err := durable.WriteFile(mf.path, format.EncodeMarkFile(next), 0o600); err != nil {
			return fmt.Errorf("recorder: writing the durable mark: %w", err)
		}
		f, err := os.OpenFile(mf.path, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("recorder: writing the durable mark: %w", err)
		}
		mf.f = f
		next.Generation++ // EncodeMarkFile wrote it at two generations
		mf.last = next
		return nil
	}
	slot := format.EncodeMarkSlot(next)
	if _, err := mf.f.WriteAt(slot[:], int64(format.MarkSlotStride*(next.Generation%2))); err != nil {
		return fmt.Errorf("recorder: writing the durable mark: %w", err)
	}
	if err := syncMark(mf.f); err != nil {
		return fmt.Errorf("recorder: writing the durable mark: %w", err)
	}
	mf.last = next
	return nil
}

// freeze stops the mark for good (the recorder failed: no write after it
// acknowledges anything) and returns the events and epoch headers a mark
// on disk may cover: what the last write covered, or more if a write failed
// after it began. A stream cut below that would be refused on reopen as
// lost events. A write under way finishes first.
func (mf *markFile) freeze() (events, epochs uint64) {
	mf.mu.Lock()
	defer mf.mu.Unlock()
	mf.frozen = true
	return max(mf.last.Events, mf.tried.Events), max(mf.last.Epochs, mf.tried.Epochs)
}

// file is the mark's open file, or nil before this writer wrote it.
func (mf *markFile) file() *os.File {
	mf.mu.Lock()
	defer mf.mu.Unlock()
	return mf.f
}

func (mf *markFile) close() error {
	mf.mu.Lock()
	defer mf.mu.Unlock()
	if mf.f == nil {
		return nil
	}
	err := mf.f.Close()
	mf.f = nil
	return err
}

// LostEventsError is returned by Open, without Options.RepairTail, for a
// stream that holds fewer frames than the log's durable mark says were
// made durable and acknowledged: the log was cut below what its writer
// acknowledged, or the storage lost synced writes. Continuing it would give
// the lost events' sequence numbers to new events.
type LostEventsError struct {
	Dir     string
	Stream  string
	Frames  uint64 // frames the stream holds
	Durable uint64 // frames the mark says were durable
}

func (e *LostEventsError) Error() string {
	return fmt.Sprintf("recorder: open %s: the %s stream holds %d frames, but %d were made durable and acknowledged", e.Dir, e.Stream, e.Frames, e.Durable)
}
