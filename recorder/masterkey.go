package recorder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/readlimit"
)

// loadOrCreateMaster reads the master key file, creating it (mode 0600)
// with bytes from rnd if absent. A key file group or others can access is
// refused (*MasterKeyModeError).
func loadOrCreateMaster(path string, rnd io.Reader) ([]byte, error) {
	_, err := os.Stat(path)
	if !errors.Is(err, os.ErrNotExist) {
		k, perm, err := readMaster(path)
		if err == nil {
			err = exposed(path, perm)
		}
		if err != nil {
			return nil, err
		}
		return k, nil
	}
	k := make([]byte, format.KeySize)
	if _, err := io.ReadFull(rnd, k); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(k); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return k, f.Close()
}

// MasterKeyModeError reports a master key file that group or others can
// access. The writer refuses such a key; a reader uses it and may warn
// (Keyring.Exposed).
type MasterKeyModeError struct {
	Path string
	Mode fs.FileMode // permission bits
}

func (e *MasterKeyModeError) Error() string {
	return fmt.Sprintf("recorder: master key %s has mode %04o; it must not be accessible to group or others (hint: chmod 600 %s)", e.Path, e.Mode, e.Path)
}

// exposed returns a *MasterKeyModeError if perm lets group or others at
// the key file path, else nil.
func exposed(path string, perm fs.FileMode) error {
	if perm&0o077 != 0 {
		return &MasterKeyModeError{Path: path, Mode: perm}
	}
	return nil
}

// readMaster reads the master key file and returns it with the file's
// permission bits. It reads at most a key's length: the key
// directory may come with a log from anyone, and a master.key that is
// large, or a link to /dev/zero or a FIFO, must not exhaust memory or
// block.
func readMaster(path string) ([]byte, fs.FileMode, error) {
	st, err := regularFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("recorder: master key %w", err)
	}
	k, err := readlimit.ReadFile(path, format.KeySize)
	if err == nil && len(k) != format.KeySize {
		err = fmt.Errorf("%s is %d bytes", path, len(k))
	}
	if err != nil {
		return nil, 0, fmt.Errorf("recorder: master key: %w, want %d", err, format.KeySize)
	}
	return k, st.Mode().Perm(), nil
}

// regularFile returns the FileInfo of path (following links), or an error
// when it is not a regular file: a FIFO would block its reader, a device
// or a directory is no key file.
func regularFile(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	}
	return st, nil
}
