package logtest

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// SmallFS mounts a tmpfs of size bytes on a new directory and returns it,
// for tests of a full disk; it is unmounted when the test ends. It skips
// the test, saying why, where mounting needs a privilege the test lacks
// (not root, or in a container that forbids mount).
func SmallFS(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is simulated on a tmpfs mount, which needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("a full disk is simulated on a tmpfs mount, which failed here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting the test's tmpfs %s: %v", dir, err)
		}
	})
	return dir
}
