package recorder

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentflightrecorder/afr/format"
)

// loadOrCreateMaster reads the master key file, creating it (mode 0600)
// with bytes from rnd if absent.
func loadOrCreateMaster(path string, rnd io.Reader) ([]byte, error) {
	_, err := os.Stat(path)
	if !errors.Is(err, os.ErrNotExist) {
		return readMaster(path)
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

// readMaster reads the master key file. A key file readable or writable by
// group or others is refused.
func readMaster(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("recorder: master key %s has mode %04o; it must not be accessible to group or others (hint: chmod 600 %s)", path, st.Mode().Perm(), path)
	}
	k, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(k) != format.KeySize {
		return nil, fmt.Errorf("recorder: master key %s is %d bytes, want %d", path, len(k), format.KeySize)
	}
	return k, nil
}
