package anvil

import "syscall"

// sysProcAttr makes the kernel kill anvil if the process that started it dies,
// so a crashed test binary never leaves a node behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
