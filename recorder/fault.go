package recorder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentflightrecorder/afr/format/segment"
)

// WriteError is the recorder's sticky failure: a write or an fsync failed
// (a full disk, an I/O error), or the log's files are no longer where the
// recorder writes them (a *VanishedError). Every later call returns it.
//
// A receipt means durable: events [0, Durable) were durable before the
// failure and stay in the log. Events [Durable, Next) had been appended but
// never acknowledged as durable; the recorder removed them from the log's
// files (truncating the streams back to Durable and syncing them), so that
// reopening the log finds exactly the acknowledged events, and their
// writers can send them again — unless a write of the durable mark failed
// midway: the streams are then kept up to what that mark may cover (a log
// shorter than its mark would be refused on reopen), so events the failed
// write was to acknowledge may be found. Rollback is why that removal failed (they
// may then still be found when the log is reopened), or nil; the recorder
// does not attempt it on a vanished log, whose paths may now name other
// files.
type WriteError struct {
	Err      error
	Durable  uint64
	Next     uint64
	Rollback error
}

func (e *WriteError) Error() string {
	msg := fmt.Sprintf("recorder: write failed, reopen the store to recover: %v", e.Err)
	n := e.Next - e.Durable
	switch {
	case n == 0:
	case e.Rollback != nil:
		msg += fmt.Sprintf("; removing the %d events never acknowledged (seq %d to %d) failed: %v; they may be found when the log is reopened", n, e.Durable, e.Next-1, e.Rollback)
	default:
		msg += fmt.Sprintf("; the %d events never acknowledged (seq %d to %d) were removed from the log", n, e.Durable, e.Next-1)
	}
	return msg
}

func (e *WriteError) Unwrap() error { return e.Err }

// VanishedError is a log whose directory, or one of the files the recorder
// writes, was removed or replaced while it was open: what the recorder
// writes next would reach no reader, so it fails (a *WriteError wrapping
// this) instead of acknowledging events into unlinked files. The recorder
// checks at every group commit, fsync and seal.
type VanishedError struct {
	Path   string
	Reason string // "removed" or "replaced by another file"
}

func (e *VanishedError) Error() string {
	return fmt.Sprintf("recorder: %s was %s while the log was open for writing", e.Path, e.Reason)
}

// fail makes err sticky: the streams may hold a partial event, so nothing
// more is accepted until the store is reopened. Unless the log vanished,
// the events appended since the last durable point are removed from the
// streams (WriteError); r.mu is held.
func (r *Recorder) fail(err error) error {
	if r.err != nil {
		return r.err
	}
	we := &WriteError{Err: err, Durable: r.durable, Next: r.next}
	events, epochs := r.mark.freeze()
	var ve *VanishedError
	if !errors.As(err, &ve) {
		if verr := r.checkLog(); verr != nil {
			we.Rollback = verr
		} else {
			we.Rollback = r.rollback(events, epochs)
		}
	}
	r.err = we
	r.cond.Broadcast()
	return r.err
}

// rollback truncates the streams back to the durable point: records and
// payloads (one frame per event) to r.durable, epoch headers to those
// announced — never below what the durable mark on disk may cover (a mark
// write that failed midway), which reopening would refuse as lost events:
// marked frames are what the mark may cover (markFile.freeze); r.mu is held.
func (r *Recorder) rollback(marked, markedHeaders uint64) error {
	headers := r.epochs.Next()
	for _, s := range r.unsent {
		if s.written {
			headers--
		}
	}
	events := max(r.durable, min(marked, r.next))
	headers = max(headers, min(markedHeaders, r.epochs.Next()))
	return errors.Join(r.records.Truncate(events), r.payloads.Truncate(events), r.epochs.Truncate(headers))
}

// logWatch is what the recorder knows of the log it opened: the directory
// (an open handle) and the lock file, whose identity it compares with what
// their paths name now.
type logWatch struct {
	dir  *os.File
	lock *os.File
}

// checkLog returns a *VanishedError if the log directory, the lock file,
// a stream's current segment or the salts file was removed or replaced
// (its path now names another file, or none, or the file has no link
// left); r.mu is held. Before Open has its handles (during recovery) it
// checks nothing.
func (r *Recorder) checkLog() error {
	if r.watch == nil {
		return nil
	}
	files := []*os.File{r.watch.dir, r.watch.lock, r.salts.f}
	if f := r.mark.file(); f != nil {
		files = append(files, f)
	}
	for _, w := range []*segment.Writer{r.payloads, r.records, r.epochs} {
		files = append(files, w.File())
	}
	for _, f := range files {
		if err := checkFile(f); err != nil {
			return err
		}
	}
	return nil
}

// checkFile compares an open file with what its path names.
func checkFile(f *os.File) error {
	open, err := f.Stat()
	if err != nil {
		if errors.Is(err, os.ErrClosed) {
			return nil // a segment rotated meanwhile: the next check sees its successor
		}
		return err
	}
	if unlinked(open) {
		return &VanishedError{Path: f.Name(), Reason: "removed"}
	}
	now, err := os.Stat(f.Name())
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &VanishedError{Path: f.Name(), Reason: "removed"}
	case err != nil:
		return fmt.Errorf("recorder: checking %s: %w", f.Name(), err)
	case !os.SameFile(open, now):
		return &VanishedError{Path: f.Name(), Reason: "replaced by another file"}
	}
	return nil
}

// openWatch opens the handles checkLog compares.
func openWatch(dir string, lock *os.File) (*logWatch, error) {
	d, err := os.Open(filepath.Clean(dir))
	if err != nil {
		return nil, err
	}
	return &logWatch{dir: d, lock: lock}, nil
}
