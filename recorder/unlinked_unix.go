//go:build unix

package recorder

import (
	"os"
	"syscall"
)

// unlinked reports whether an open file has no name left (its link count
// is zero: removed, or a directory removed).
func unlinked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
