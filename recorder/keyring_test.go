package recorder_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// Opening keys for reading writes nothing: a missing salts file is not
// created (every epoch's key is then erased), and a read-only key
// directory opens.
func TestOpenKeyringWritesNothing(t *testing.T) {
	dir, m := writeLog(t, 3)
	keys := filepath.Join(dir, "keys")
	salts := filepath.Join(keys, "epoch-salts")
	if err := os.Remove(salts); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(keys, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(keys, 0o700) })
	kr, err := recorder.OpenKeyring(keys, m.Session)
	if err != nil {
		t.Fatalf("OpenKeyring without a salts file: %v", err)
	}
	defer kr.Close()
	if _, err := os.Stat(salts); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenKeyring created %s (stat: %v)", salts, err)
	}
	for epoch := uint64(0); epoch < 3; epoch++ {
		if _, err := kr.EventKey(format.Version, epoch, 2*epoch); !errors.Is(err, format.ErrKeyErased) {
			t.Fatalf("epoch %d without salts: %v, want ErrKeyErased", epoch, err)
		}
	}
}

// The reader opens a master key others can read, and says so; the writer
// keeps refusing it.
func TestOpenKeyringExposedMaster(t *testing.T) {
	dir, m := writeLog(t, 3)
	keys := filepath.Join(dir, "keys")
	kr, err := recorder.OpenKeyring(keys, m.Session)
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.Exposed(); err != nil {
		t.Fatalf("Exposed() of a 0600 key: %v", err)
	}
	want, err := kr.EventKey(format.Version, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	kr.Close()

	master := filepath.Join(keys, "master.key")
	if err := os.Chmod(master, 0o644); err != nil {
		t.Fatal(err)
	}
	kr, err = recorder.OpenKeyring(keys, m.Session)
	if err != nil {
		t.Fatalf("OpenKeyring with a 0644 master key: %v", err)
	}
	defer kr.Close()
	var me *recorder.MasterKeyModeError
	if err := kr.Exposed(); !errors.As(err, &me) || me.Mode != 0o644 || me.Path != master {
		t.Fatalf("Exposed() = %v, want a *MasterKeyModeError for %s mode 0644", err, master)
	}
	if got, err := kr.EventKey(format.Version, 1, 2); err != nil || got != want {
		t.Fatalf("EventKey with the exposed master key: %v", err)
	}
	if _, err := recorder.Open(dir, recorder.Options{}); !errors.As(err, &me) {
		t.Fatalf("the writer opened a store with a 0644 master key: %v", err)
	}
}

// A missing master key is an error the caller can recognise.
func TestOpenKeyringMissing(t *testing.T) {
	dir, m := writeLog(t, 1)
	if err := os.RemoveAll(filepath.Join(dir, "keys")); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), m.Session); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenKeyring of a deleted key directory: %v, want os.ErrNotExist", err)
	}
}

// A key directory comes with a log from anyone: a master.key far larger
// than a key is refused after reading at most a key's length and a byte
// (it was read whole: 64 MiB allocated here, a link to /dev/zero exhausted
// memory), and one that is no regular file is refused without being read.
func TestOpenKeyringBoundedMaster(t *testing.T) {
	dir, m := writeLog(t, 1)
	keys := filepath.Join(dir, "keys")
	master := filepath.Join(keys, "master.key")
	if err := os.Truncate(master, 64<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := recorder.OpenKeyring(keys, m.Session)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("OpenKeyring took a master key of 64 MiB")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("refusing a master key of 64 MiB allocated %d bytes", n)
	}
	if err := os.Remove(master); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(master, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.OpenKeyring(keys, m.Session); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a master.key that is a directory: %v", err)
	}
}

// The salt of an epoch too large for its slot to have an offset is past
// the end of the file, erased (docs/SPEC.md, "Keys at level open"). Before,
// 32·epoch wrapped around: epoch 2^59+1 read the salt of epoch 1.
func TestKeyringSaltOffsetOverflow(t *testing.T) {
	dir, m := writeLog(t, 4) // epochs 0 and 1 have salts
	kr, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), m.Session)
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	if _, err := kr.EventKey(format.Version, 1, 2); err != nil {
		t.Fatalf("epoch 1: %v", err)
	}
	for _, epoch := range []uint64{1<<59 + 1, 1<<58 + 1, math.MaxUint64} {
		if _, err := kr.EventKey(format.Version, epoch, 2); !errors.Is(err, format.ErrKeyErased) {
			t.Errorf("epoch %d: %v, want ErrKeyErased", epoch, err)
		}
	}
}
