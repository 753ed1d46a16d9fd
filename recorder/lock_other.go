//go:build !unix

package recorder

import (
	"errors"
	"os"
	"runtime"
)

var errLocked = errors.New("locked")

// tryLock fails: without flock nothing would release the lock of a writer
// that died, so writing is refused rather than left unguarded.
func tryLock(*os.File) error {
	return errors.New("writing a log needs flock, which " + runtime.GOOS + " lacks")
}
