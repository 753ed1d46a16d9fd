// Package durable writes files so that a crash at any moment leaves either
// the old content or the new, and what was written survives a power loss:
// the one way AFR replaces a file (manifests, the anchor queue, fork and
// transaction caches) and makes a creation or rename in a directory
// durable.
package durable

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile replaces path with data: it writes a temporary file in the same
// directory, fsyncs it, renames it over path and fsyncs the directory. The
// file gets mode perm. On error path is unchanged and the temporary file is
// removed.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, base+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory, making file creations, renames and removals in
// it durable. File systems that cannot fsync a directory (EINVAL) are
// accepted: they give no stronger guarantee to ask for.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
