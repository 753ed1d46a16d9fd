package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A file at its limit is read; one byte more is refused, a large regular
// file without being read (nothing of its size is allocated), a device
// after limit+1 bytes.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345678"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, 8); err != nil || string(b) != "12345678" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadFile(path, 7); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a byte over: %v, want ErrTooLarge", err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFile(path, 1<<20)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) || after.TotalAlloc-before.TotalAlloc > 1<<20 {
		t.Fatalf("a file of 1 GiB: %v after allocating %d bytes", err, after.TotalAlloc-before.TotalAlloc)
	}
	if _, err := ReadFile("/dev/zero", 1<<10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("/dev/zero: %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}
