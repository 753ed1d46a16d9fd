package world

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/pdr"
)

// Snapshot is a saved World: the chain's state (blocks, time, contracts,
// balances, nonces), a copy of the log with its anchor queue and keys, the
// log's clock and randomness, the delegation salts and the policy. Revert
// returns to it as often as needed.
type Snapshot struct {
	forks  forksSnapshot
	logDir string
	clock  time.Time
	rng    []byte
	salt   uint64
	policy *pdr.Policy
}

// ErrNoSnapshots is returned by Snapshot on a backend that cannot take
// snapshots.
var ErrNoSnapshots = errors.New("world: the backend cannot snapshot")

// Snapshot saves the World for Revert. It first waits until every sealed
// epoch is anchored, so that the chain and the log it saves agree; the open
// epoch is saved open. The log is copied only if it was used since the last
// Revert: otherwise it is still the one saved in that Revert's snapshot,
// which the new one shares. Every fork of the World is saved (CreateFork's
// forks are started first), and which one is selected. The in-process,
// embedded and anvil backends (fork included) can snapshot; a World whose
// log follows the wall clock (Config.BlockTime) cannot.
func (w *World) Snapshot(ctx context.Context) (*Snapshot, error) {
	if _, ok := w.home().chain.(backend.Snapshotter); !ok || w.clock == nil {
		return nil, fmt.Errorf("%w (%s backend)", ErrNoSnapshots, w.cfg.Backend)
	}
	w.logMu.Lock()
	unused := w.restore
	w.logMu.Unlock()
	if unused == nil {
		if err := w.settle(ctx); err != nil {
			return nil, err
		}
	}
	forks, err := w.snapshotForks(ctx)
	if err != nil {
		return nil, fmt.Errorf("world: snapshot: %w", err)
	}
	rng, err := w.rng.marshal()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{forks: forks, rng: rng, salt: w.salt, policy: w.policy, clock: w.clock.get()}
	if unused != nil {
		s.logDir = unused.logDir
		return s, nil
	}
	s.logDir = w.newDir("snapshot")
	if err := copyDir(s.logDir, w.logDir); err != nil {
		return nil, fmt.Errorf("world: snapshot: copying the log: %w", err)
	}
	return s, nil
}

// Revert returns the World to s: the chain is reverted (what was mined
// since is gone, EpochAnchor's head included), and so is every fork saved
// in s, the one selected then selected again (forks created since are
// stopped and dropped), and so are the log's clock and randomness, the
// delegation salts and the policy. The log is closed and left as s saved
// it: the recorder, keyring and anchorer are reopened on a fresh copy of it
// at the log's first use (Record, Propose, SealAndAnchor, Verify, LogDir,
// Position, …), so a spec that does not record pays only for the chain's
// revert. Whatever ran before, a spec
// after Revert(s) records, anchors and measures gas exactly as after every
// other Revert(s) on the in-process and embedded chains. (On anvil, the
// priority fee it suggests comes from a fee-history cache that evm_revert
// does not roll back, so transaction hashes recorded in outcomes, and
// through them event ids, can differ between reverts.) (The reopened
// recorder draws its per-open nonce from the restored randomness, so its
// ciphertexts and roots differ from those the World would have written had
// it gone on from the snapshot without reverting: revert before the first
// spec too, as afrspec's Isolate does.) Actors, and ABIs registered in the
// World's registry since, are kept (an address bound to a contract
// deployed since has no code until it is deployed again). s stays valid;
// snapshots taken after s do not.
func (w *World) Revert(ctx context.Context, s *Snapshot) error {
	w.logMu.Lock()
	open := w.restore == nil
	w.logMu.Unlock()
	if err := w.closeRecorder(); err != nil {
		return fmt.Errorf("world: revert: closing the log: %w", err)
	}
	forksErr, err := w.revertForks(ctx, s.forks)
	if err != nil {
		// Nothing was reverted: the World goes on with the log it had.
		err = fmt.Errorf("world: revert: %w", err)
		if open {
			err = errors.Join(err, w.openRecorder(ctx, w.logDir))
		}
		return err
	}
	if err := w.rng.unmarshal(s.rng); err != nil {
		return err
	}
	w.clock.set(s.clock)
	w.salt = s.salt
	w.SetPolicy(s.policy)
	if w.spent != "" {
		if err := os.RemoveAll(w.spent); err != nil {
			return err
		}
		w.spent = ""
	}
	w.logMu.Lock()
	w.restore = s
	w.logMu.Unlock()
	return forksErr
}

// settle waits until the anchorer has anchored every sealed epoch.
func (w *World) settle(ctx context.Context) error {
	p := w.rec.Position()
	q := w.anchorer.Queue()
	covered := uint64(0)
	if n := len(q.Anchored); n > 0 {
		covered = q.Anchored[n-1].Events
	}
	if len(q.Pending) == 0 && covered >= p.Next-p.OpenEvents {
		return nil
	}
	return w.drain(ctx)
}

// newDir names a new directory under the World's root (created by its
// first use).
func (w *World) newDir(kind string) string {
	return filepath.Join(w.root, fmt.Sprintf("%s-%d", kind, w.dirs.Add(1)))
}

// copyDir copies the directory tree src to dst (which must not exist),
// keeping permissions: the log's keys must stay private to their owner.
func copyDir(dst, src string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// lockedRand is mutex-guarded deterministic randomness for the recorder (it
// reads from a background goroutine too).
type lockedRand struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

func (l *lockedRand) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

func (l *lockedRand) marshal() ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.MarshalBinary()
}

func (l *lockedRand) unmarshal(b []byte) error {
	r := rand.NewChaCha8([32]byte{})
	if err := r.UnmarshalBinary(b); err != nil {
		return err
	}
	l.mu.Lock()
	l.r = r
	l.mu.Unlock()
	return nil
}

// stepClock is a fixed clock that advances one millisecond per reading:
// deterministic event times (and so roots and gas) on every run.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func (c *stepClock) get() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}
