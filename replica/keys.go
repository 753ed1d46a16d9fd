package replica

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/minio/minio-go/v7"
)

// A log's key directory, when asked for, is copied to a store of its own
// (docs/SPEC.md, "Replica of the keys"), never the log's: whoever reads
// the log's replica cannot open its payloads unless also given the keys.
// Keys relative to that store's prefix:
//
//	master.key                  the master key file, written once
//	epoch-salts/<generation>    the epoch-salts file whole, as it was at generation (16 hex digits)
//
// The epoch-salts file changes in place (salts are created ahead of their
// epochs, and afr erase zeroes one), so each change is a new snapshot, and
// the snapshots it supersedes are deleted: an erased salt leaves the
// replica of the keys at the next pass, unless the store keeps what is
// deleted (versioning, Object Lock).
const (
	masterKey   = "master.key"
	saltsFile   = "epoch-salts"
	maxKeysFile = 64 << 20
)

var saltsKey = regexp.MustCompile(`^epoch-salts/([0-9a-f]{16})$`)

// keysCopy is how far a key directory is copied.
type keysCopy struct {
	dir    string
	store  *Store
	master bool   // master.key is copied
	gen    int64  // the newest snapshot of the salts file on the store, -1 none
	salts  []byte // its content
	old    []int64
}

// keysListing reads the keys store's listing: whether it holds the master
// key, and the generations of the salts snapshots, ascending.
func keysListing(ctx context.Context, s *Store) (master bool, gens []int64, err error) {
	objs, err := s.list(ctx)
	if err != nil {
		return false, nil, err
	}
	for _, o := range objs {
		if o.key == masterKey {
			master = true
		} else if m := saltsKey.FindStringSubmatch(o.key); m != nil {
			n, _ := strconv.ParseUint(m[1], 16, 63)
			gens = append(gens, int64(n))
		}
	}
	return master, gens, nil // the listing is in key order: generations ascend
}

func saltsName(gen int64) string { return saltsFile + "/" + hex16(uint64(gen)) }

// resumeKeys checks that the keys store holds dir's master key, if any,
// and reads its newest salts snapshot.
func resumeKeys(ctx context.Context, dir string, s *Store) (*keysCopy, error) {
	kc := &keysCopy{dir: dir, store: s, gen: -1}
	master, gens, err := keysListing(ctx, s)
	if err != nil {
		return nil, err
	}
	if master {
		local, err := os.ReadFile(filepath.Join(dir, masterKey))
		if err != nil {
			return nil, err
		}
		if err := kc.sameMaster(ctx, local); err != nil {
			return nil, err
		}
		kc.master = true
	}
	if len(gens) > 0 {
		kc.gen, kc.old = gens[len(gens)-1], gens[:len(gens)-1]
		if kc.salts, err = s.get(ctx, saltsName(kc.gen), maxKeysFile); err != nil {
			return nil, err
		}
	}
	return kc, nil
}

// sameMaster checks that the store's master key is local, the log's.
func (kc *keysCopy) sameMaster(ctx context.Context, local []byte) error {
	got, err := kc.store.get(ctx, masterKey, maxKeysFile)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, local) {
		return &ConflictError{File: kc.store.url + "/" + masterKey, Reason: "another master key than the log's (the keys of another log?)"}
	}
	return nil
}

// copy writes the master key once, and the salts file when it differs
// from the newest snapshot; then deletes the snapshots superseded.
func (kc *keysCopy) copy(ctx context.Context) (changed bool, err error) {
	if !kc.master {
		b, err := os.ReadFile(filepath.Join(kc.dir, masterKey))
		if err != nil {
			return false, err
		}
		err = kc.store.put(ctx, masterKey, b)
		if errors.Is(err, ErrExists) {
			err = kc.sameMaster(ctx, b)
		}
		if err != nil {
			return false, err
		}
		kc.master, changed = true, true
	}
	salts, err := os.ReadFile(filepath.Join(kc.dir, saltsFile))
	if errors.Is(err, os.ErrNotExist) {
		salts, err = nil, nil // no epoch yet, or every one erased
	}
	if err != nil {
		return changed, err
	}
	if kc.gen < 0 || !bytes.Equal(salts, kc.salts) {
		next := kc.gen + 1
		if err := kc.store.put(ctx, saltsName(next), salts); err != nil {
			if errors.Is(err, ErrExists) {
				// Another writer took this generation (a second
				// replicator of the log): the next pass starts from the
				// newest one on the store.
				if fresh, rerr := resumeKeys(ctx, kc.dir, kc.store); rerr == nil {
					*kc = *fresh
				}
			}
			return changed, err
		}
		if kc.gen >= 0 {
			kc.old = append(kc.old, kc.gen)
		}
		kc.gen, kc.salts, changed = next, salts, true
	}
	for len(kc.old) > 0 {
		if err := kc.store.remove(ctx, saltsName(kc.old[0])); err != nil {
			return changed, err
		}
		kc.old = kc.old[1:]
	}
	return changed, nil
}

// FetchKeys writes the keys the keys store s holds — the master key and
// the newest snapshot of the epoch salts — into the directory into (which
// must exist), as a key directory for recorder.OpenKeyring.
func FetchKeys(ctx context.Context, s *Store, into string) error {
	master, gens, err := keysListing(ctx, s)
	if err != nil {
		return err
	}
	if !master {
		return fmt.Errorf("replica: %s holds no master key (hint: afr replicate --keys-to %s copies a log's keys there): %w", s.url, s.url, os.ErrNotExist)
	}
	b, err := s.get(ctx, masterKey, maxKeysFile)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(into, masterKey), b, 0o600); err != nil {
		return err
	}
	if len(gens) == 0 {
		return nil // no salts: every epoch's key is unavailable
	}
	if b, err = s.get(ctx, saltsName(gens[len(gens)-1]), maxKeysFile); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(into, saltsFile), b, 0o600)
}

// remove deletes the object at key.
func (s *Store) remove(ctx context.Context, key string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("replica: deleting %s/%s: %w", s.url, key, err)
	}
	return nil
}
