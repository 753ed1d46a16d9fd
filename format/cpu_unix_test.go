//go:build unix

package format_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time this process has used (user and
// system, all threads, the collector's included).
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
