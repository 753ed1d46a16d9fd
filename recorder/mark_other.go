//go:build !linux

package recorder

import "os"

// syncMark makes a slot written in place durable.
func syncMark(f *os.File) error { return f.Sync() }
