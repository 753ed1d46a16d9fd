package world

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// openLog reopens the log after a Revert, at its first use: it copies the
// log saved in the snapshot reverted to into a new directory and opens the
// recorder, the keyring and the anchorer on the copy, with the log's clock
// and randomness as the snapshot saved them. Until then the log is the
// snapshot's, unchanged, so a spec that never uses the log pays neither the
// copy nor the opening, and one that does opens it exactly as after every
// other Revert to that snapshot. It returns nil when the log is open. Every
// method that uses the log calls it, from any goroutine: logMu makes one
// of them reopen the log and the others wait for it. A failed reopening is
// undone and tried again at the next use.
func (w *World) openLog(ctx context.Context) error {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	s := w.restore
	if s == nil {
		return nil
	}
	if err := w.rng.unmarshal(s.rng); err != nil {
		return err
	}
	w.clock.set(s.clock)
	run := w.newDir("run")
	dir := filepath.Join(run, "log")
	err := copyDir(dir, s.logDir)
	if err != nil {
		err = fmt.Errorf("world: reopening the log: copying the saved log: %w", err)
	} else {
		err = w.openRecorder(ctx, dir)
	}
	if err != nil {
		return errors.Join(err, w.closeRecorder(), os.RemoveAll(run))
	}
	w.restore, w.spent = nil, run
	return nil
}

// openRecorder opens the recorder, the keyring and the anchorer on the log
// in dir (new or existing) and starts anchoring.
func (w *World) openRecorder(ctx context.Context, dir string) error {
	w.logDir = dir
	opts := recorder.Options{Recorder: w.cfg.Recorder, Session: w.session, Encrypt: !w.cfg.Plaintext,
		EpochSize: w.cfg.EpochSize, Sync: recorder.SyncWrite}
	if w.cfg.Durable {
		opts.Sync = recorder.SyncGroup
	}
	if w.clock != nil {
		// Deterministic: epochs seal by count only, never by age.
		opts.Now, opts.Rand, opts.EpochMaxAge = w.clock.Now, w.rng, -1
	}
	rec, err := recorder.Open(w.logDir, opts)
	if err != nil {
		return fmt.Errorf("world: opening the recorder: %w", err)
	}
	w.rec = rec
	if !w.cfg.Plaintext {
		if w.keys, err = recorder.OpenKeyring(filepath.Join(w.logDir, "keys"), w.session); err != nil {
			return fmt.Errorf("world: opening the keyring: %w", err)
		}
	}
	// One epoch per transaction (MaxRun 1): how many epochs wait when a
	// transaction is sent depends on timing, and the World's gas figures
	// (the gas baseline, the demo) must repeat exactly.
	w.anchorer, err = anchor.Open(ctx, w.logDir, w.home().client, anchor.Options{Contract: w.epochAnchor, Key: w.operator.Key, MaxRun: 1,
		FromBlock: w.deployment.Block, Confirmations: w.cfg.Confirmations, Poll: 10 * time.Millisecond, MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond, Position: rec.Position, Logf: w.cfg.Logf})
	if err != nil {
		return fmt.Errorf("world: opening the anchorer: %w", err)
	}
	// On demand, the anchorer learns of sealed epochs only from
	// SealAndAnchor and Snapshot (SyncLog), not from the recorder's
	// channel: it sends nothing while the spec runs (see AnchorOnDemand).
	var sealed <-chan recorder.SealedEpoch
	if w.cfg.Anchoring == AnchorAsSealed {
		sealed = rec.Sealed()
	}
	runCtx, cancel := context.WithCancel(context.Background())
	w.cancel, w.runDone = cancel, make(chan error, 1)
	go func() { w.runDone <- w.anchorer.Run(runCtx, sealed) }()
	return nil
}

// closeRecorder stops the anchorer and closes the keyring and the recorder.
func (w *World) closeRecorder() error {
	var errs []error
	if w.cancel != nil {
		w.cancel()
		if err := <-w.runDone; err != nil {
			errs = append(errs, err)
		}
		w.cancel = nil
	}
	if w.anchorer != nil {
		w.anchorer.Close()
		w.anchorer = nil
	}
	if w.keys != nil {
		errs = append(errs, w.keys.Close())
		w.keys = nil
	}
	if w.rec != nil {
		errs = append(errs, w.rec.Close())
		w.rec = nil
	}
	return errors.Join(errs...)
}

// LogDir is the directory of the World's log (it changes with Revert).
// After a Revert, the log is reopened first (see Record).
func (w *World) LogDir() string {
	_ = w.openLog(context.Background()) // on an error, a directory that may not exist: Record says why
	return w.logDir
}

// LogID is the World's log id (its recorder and session).
func (w *World) LogID() format.Digest { return format.LogID(w.cfg.Recorder, w.session) }

// Keys is the log's keyring (nil for a plaintext log): disclose and open
// payloads with it. It is replaced by Revert; nil while the log cannot be
// reopened (see Record).
func (w *World) Keys() *recorder.Keyring {
	if w.openLog(context.Background()) != nil {
		return nil
	}
	return w.keys
}

// Position is where the log stands: the next sequence number, the open
// epoch and its events (zero while the log cannot be reopened: see
// Record).
func (w *World) Position() recorder.Position {
	if w.openLog(context.Background()) != nil {
		return recorder.Position{}
	}
	return w.rec.Position()
}

// AnchorWindow is the unanchored window now: the events and time not yet
// covered by a confirmed anchor (zero while the log cannot be reopened:
// see Record).
func (w *World) AnchorWindow() recorder.AnchorWindow {
	if w.openLog(context.Background()) != nil {
		return recorder.AnchorWindow{}
	}
	return w.anchorer.Window()
}

// AnchorQueue is the anchorer's queue: the epochs anchored (with their
// transactions, gas and confirmation times) and those pending (empty
// while the log cannot be reopened: see Record).
func (w *World) AnchorQueue() anchor.Queue {
	if w.openLog(context.Background()) != nil {
		return anchor.Queue{}
	}
	return w.anchorer.Queue()
}

// Record records an event and returns its receipt. It may be called from
// several goroutines at once. After a Revert, the first use of the log —
// Record, or any other method that reads or writes it — reopens it on a
// copy of the snapshot's; an error doing so is returned by the methods
// that return errors (Record, Propose, SealAndAnchor, Verify, …), and the
// next use tries again.
func (w *World) Record(ctx context.Context, ev format.Event) (recorder.Receipt, error) {
	if err := w.openLog(ctx); err != nil {
		return recorder.Receipt{}, err
	}
	return w.rec.Record(ctx, ev)
}

// SealAndAnchor seals the open epoch (if it has events) and waits until
// every sealed epoch is anchored on chain. It returns the anchored epochs
// (the last anchor.DefaultKeepAnchored of them: the queue keeps no more).
func (w *World) SealAndAnchor(ctx context.Context) ([]anchor.Anchored, error) {
	if err := w.openLog(ctx); err != nil {
		return nil, err
	}
	if _, _, err := w.rec.Seal(); err != nil {
		return nil, fmt.Errorf("world: seal: %w", err)
	}
	if err := w.drain(ctx); err != nil {
		return nil, err
	}
	return w.anchorer.Queue().Anchored, nil
}

// drain queues every sealed epoch of the log and waits until all are
// anchored.
func (w *World) drain(ctx context.Context) error {
	if _, err := w.anchorer.SyncLog(); err != nil {
		return fmt.Errorf("world: queueing sealed epochs: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := w.anchorer.Drain(dctx); err != nil {
		return fmt.Errorf("world: anchoring: %w (queue: %d pending, %d faults)", err, len(w.anchorer.Queue().Pending), w.anchorer.Faults())
	}
	return nil
}

// onchain is how the World's log is verified on chain: its anchors (per
// log and in the operator's batches) and the account's executions.
func (w *World) onchain() onchain.Deployed {
	d := onchain.ForDeployment(w.home().client, &w.deployment, w.operator.Address, w.LogID(), "")
	d.Executions.Registry = w.registry
	return d
}

// Anchors returns the World's anchor source: the operator's anchors of the
// World's log on the EpochAnchor contract, checked against its head.
func (w *World) Anchors() verifier.AnchorSource { return w.onchain().Anchors }

// Verify verifies the World's log against the anchors on chain, opening
// every payload with the log's keys, and checks its completeness: every
// execution of the World's PaceSmartAccount must match an intent the log
// recorded (findings exec_unrecorded, exec_mismatch …; the counts are in
// Report.Executions).
func (w *World) Verify(ctx context.Context) (*Verification, error) {
	if err := w.openLog(ctx); err != nil {
		return nil, err
	}
	l, err := recorder.OpenLog(w.logDir)
	if err != nil {
		return nil, err
	}
	d := w.onchain()
	opts := verifier.Options{Payloads: verifier.PayloadsDigest, Keys: w.keys, Completeness: *d.Executions}
	if w.keys != nil {
		opts.Payloads = verifier.PayloadsOpen
	}
	rep, err := verifier.VerifyLog(ctx, l, d.Anchors, opts)
	if err != nil {
		return nil, err
	}
	return w.verification(rep)
}

// SealAndVerify is SealAndAnchor followed by Verify.
func (w *World) SealAndVerify(ctx context.Context) (*Verification, error) {
	if _, err := w.SealAndAnchor(ctx); err != nil {
		return nil, err
	}
	return w.Verify(ctx)
}

// Index builds the forensic index of the World's log with its keys.
func (w *World) Index() (*verifier.Index, error) {
	if err := w.openLog(context.Background()); err != nil {
		return nil, err
	}
	l, err := recorder.OpenLog(w.logDir)
	if err != nil {
		return nil, err
	}
	if w.keys == nil {
		return verifier.IndexLog(l, nil)
	}
	return verifier.IndexLog(l, w.keys)
}
