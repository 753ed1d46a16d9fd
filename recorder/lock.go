package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// LockFile is the writer lock in a log directory (docs/SPEC.md, "Log:
// store layout"). Open holds an exclusive flock on it until Close, and the
// kernel releases it when the process dies; its content names the holder.
// Readers (OpenLog) never take it.
const LockFile = "LOCK"

// LockHolder is the content of LockFile (JSON): who holds, or last held,
// the log's writer lock.
type LockHolder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// LockedError is returned by Open when another writer (another process, or
// another Recorder of this one) has the log open: two writers would fork
// its chain.
type LockedError struct {
	Dir    string
	Holder *LockHolder // nil if the holder has not written its name yet
}

func (e *LockedError) Error() string {
	who := "another writer"
	if h := e.Holder; h != nil {
		who = fmt.Sprintf("pid %d on host %s since %s", h.PID, h.Host, h.Since.Format(time.RFC3339))
	}
	return fmt.Sprintf("recorder: %s is open for writing by %s (hint: stop that writer, or wait until it closes the log; verifying, querying and disclosing need no lock)", e.Dir, who)
}

// lockDir takes the writer lock of dir without waiting: it fails at once
// with a *LockedError if another writer holds it. Closing the file
// releases it.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("recorder: opening the lock: %w", err)
	}
	if err := tryLock(f); err != nil {
		defer f.Close()
		if !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("recorder: locking %s: %w", f.Name(), err)
		}
		le := &LockedError{Dir: dir}
		var h LockHolder
		if b, err := io.ReadAll(f); err == nil && strictjson.Unmarshal(b, &h) == nil {
			le.Holder = &h
		}
		return nil, le
	}
	host, _ := os.Hostname()
	b, _ := json.Marshal(LockHolder{PID: os.Getpid(), Host: host, Since: time.Now().UTC()})
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.WriteAt(append(b, '\n'), 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
