//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package main

// termWidth returns 0 (width unknown: lines are not cut) where the
// terminal's width cannot be asked; COLUMNS still sets it.
func termWidth(any) int { return 0 }
