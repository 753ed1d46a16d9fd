package recorder

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/agentflightrecorder/afr/format"
)

// saltFile stores one random 32-byte salt per epoch at offset 32·epoch. An
// all-zero slot is an erased (or never created) epoch. Erasing an epoch's
// salt makes its epoch key — and so every event key of the epoch —
// underivable, even with the master key: crypto-erasure.
type saltFile struct {
	f     *os.File
	dirty atomic.Bool // written since the last fsync
	// ahead holds salts created for epochs not yet opened (see getOrCreate).
	ahead map[uint64][]byte
}

// saltBatch is how many epochs' salts getOrCreate creates at once: one read
// and one write per batch instead of file I/O at every epoch boundary.
const saltBatch = 64

func openSaltFile(path string) (*saltFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &saltFile{f: f}, nil
}

// maxSaltEpoch is the last epoch whose slot has an offset: a larger one
// would overflow int64 (and wrap to another epoch's slot), so it is past
// the end of every file, erased.
const maxSaltEpoch = math.MaxInt64/format.KeySize - 1

func (s *saltFile) get(epoch uint64) ([]byte, error) {
	if epoch > maxSaltEpoch {
		return nil, nil
	}
	salt := make([]byte, format.KeySize)
	n, err := s.f.ReadAt(salt, int64(epoch)*format.KeySize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if n < format.KeySize || isZero(salt) {
		return nil, nil
	}
	return salt, nil
}

// getOrCreate returns the salt of epoch, creating it if the slot is empty.
// Creating reuses a slot only when it is empty: a salt, once written, is
// never replaced (that would silently change the epoch key).
// Salts are created saltBatch epochs at a time, for epoch and the
// epochs after it, and kept in memory until their epoch opens; they are
// written (and fsynced with the next sync) before any event of those epochs
// can be acknowledged.
func (s *saltFile) getOrCreate(epoch uint64, rnd io.Reader) ([]byte, error) {
	if salt, ok := s.ahead[epoch]; ok {
		delete(s.ahead, epoch)
		return salt, nil
	}
	batch := make([]byte, saltBatch*format.KeySize)
	n, err := s.f.ReadAt(batch, int64(epoch)*format.KeySize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	clear(batch[n-n%format.KeySize:])
	if first := batch[:format.KeySize]; !isZero(first) {
		return append([]byte(nil), first...), nil // created before a restart
	}
	s.ahead = map[uint64][]byte{}
	for i := 0; i < saltBatch; i++ {
		slot := batch[i*format.KeySize : (i+1)*format.KeySize]
		if isZero(slot) {
			if _, err := io.ReadFull(rnd, slot); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			s.ahead[epoch+uint64(i)] = slot
		}
	}
	if _, err := s.f.WriteAt(batch, int64(epoch)*format.KeySize); err != nil {
		return nil, err
	}
	s.dirty.Store(true)
	return batch[:format.KeySize], nil
}

func (s *saltFile) sync() error {
	if !s.dirty.Swap(false) {
		return nil
	}
	return s.f.Sync()
}

func (s *saltFile) close() error {
	err := s.sync()
	return errors.Join(err, s.f.Close())
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Keyring derives event keys from a store's key directory, for disclosure
// and for the recorder's owner reading payloads back. It reads the key
// directory and writes to it only in Erase.
type Keyring struct {
	master    []byte
	saltsPath string
	salts     *saltFile // nil: no salts file, every epoch erased
	session   format.SessionID
	exposed   error
}

// OpenKeyring opens the key directory of a store (default <dir>/keys)
// read-only, for session: the session the log's records commit to
// (Log.Identity), not the MANIFEST's. It creates nothing: without an
// epoch-salts file every epoch's key is erased. A master key that group
// or others can access is used (see Exposed); a missing one is an error
// wrapping os.ErrNotExist.
func OpenKeyring(keyDir string, session format.SessionID) (*Keyring, error) {
	path := filepath.Join(keyDir, "master.key")
	master, perm, err := readMaster(path)
	if err != nil {
		return nil, fmt.Errorf("recorder: key directory %s: %w", keyDir, err)
	}
	k := &Keyring{master: master, saltsPath: filepath.Join(keyDir, "epoch-salts"), session: session, exposed: exposed(path, perm)}
	if _, err := regularFile(k.saltsPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("recorder: key directory %s: epoch salts %w", keyDir, err)
	}
	f, err := os.Open(k.saltsPath)
	switch {
	case err == nil:
		k.salts = &saltFile{f: f}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("recorder: key directory %s: %w", keyDir, err)
	}
	return k, nil
}

// Exposed returns a *MasterKeyModeError if the master key file is
// accessible to group or others (the writer refuses such a key), else nil.
func (k *Keyring) Exposed() error { return k.exposed }

// EventKey returns the key of event seq in epoch of a log of format
// version (that of the event's record), or ErrKeyErased.
func (k *Keyring) EventKey(version int, epoch, seq uint64) (format.EventKey, error) {
	var salt []byte
	if k.salts != nil {
		var err error
		if salt, err = k.salts.get(epoch); err != nil {
			return format.EventKey{}, err
		}
	}
	if salt == nil {
		return format.EventKey{}, fmt.Errorf("%w: epoch %d", format.ErrKeyErased, epoch)
	}
	ek, err := format.EpochKey(k.master, salt, k.session, epoch)
	if err != nil {
		return format.EventKey{}, err
	}
	return format.DeriveEventKey(version, ek, seq), nil
}

// Erase destroys the key material of epoch (its salt) and fsyncs. Payloads
// of that epoch become unrecoverable; hashes, proofs and anchors still
// verify. Without a salts file there is nothing left to erase. This is a
// mechanism, not a legal claim: copies of the key directory, backups, or
// the filesystem's own block reuse are out of scope.
func (k *Keyring) Erase(epoch uint64) error {
	if k.salts == nil {
		return nil
	}
	f, err := os.OpenFile(k.saltsPath, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(make([]byte, format.KeySize), int64(epoch)*format.KeySize); err != nil {
		f.Close()
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// Close releases the key files.
func (k *Keyring) Close() error {
	if k.salts == nil {
		return nil
	}
	return k.salts.f.Close()
}
