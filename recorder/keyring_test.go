package recorder_test

import (
	"errors"
	"os"
	"path/filepath"
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
