//go:build !linux

package logtest

import (
	"runtime"
	"testing"
)

// SmallFS skips the test: a full disk is simulated on a Linux tmpfs mount.
func SmallFS(t testing.TB, size int64) string {
	t.Skip("a full disk is simulated on a tmpfs mount, which needs Linux, not " + runtime.GOOS)
	return ""
}
