// Package readlimit reads files of bounded size: key files, checkpoint
// notes and disclosure bundles that may come from anyone, where a file far
// larger than its format allows (or a link to /dev/zero) must be refused
// before it is held in memory.
package readlimit

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is wrapped by the error of ReadFile for a file larger than
// its limit.
var ErrTooLarge = errors.New("readlimit: file too large")

// ReadFile reads the file at path, which must hold at most limit bytes. A
// larger regular file is refused from its size, unread; any other file (a
// pipe, a device) after limit+1 bytes. The error of a larger file wraps
// ErrTooLarge and names path and limit.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	tooLarge := func(size string) error {
		return fmt.Errorf("%w: %s is %s bytes, limit %d", ErrTooLarge, path, size, limit)
	}
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, tooLarge(fmt.Sprint(st.Size()))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge("more than " + fmt.Sprint(limit))
	}
	return b, nil
}
