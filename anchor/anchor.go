// Package anchor commits the epoch roots R_t of an AFR log to the
// EpochAnchor contract (docs/CONTRACTS.md), asynchronously and durably: an
// Anchorer takes sealed epochs from the recorder (Recorder.Sealed, which
// never blocks Record) or from the log on disk, keeps them in a queue file
// in the log directory (docs/SPEC.md, "Anchor queue"), and submits
// anchor(t, R_t, R_{t−1}) in epoch order until each is confirmed.
//
// It survives the faults of a real chain: an RPC endpoint that is down or
// slow (retries with exponential backoff; the queue on disk means a restart
// loses nothing and resumes in order), transactions that stay pending
// (re-signed with the same nonce and bumped fees), nonces consumed by
// another transaction of the same key, reorgs (an epoch is confirmed only
// at a configurable depth, and re-submitted if its block leaves the chain,
// even after confirmation), and another writer anchoring with the same
// operator key (ErrForeignAnchor: never silently accepted).
//
// # Security
//
// The operator is the address of the signing key: EpochAnchor keeps one
// chain of epochs per sender and log id (format.LogID of the log's recorder
// and session, read from the log), so one key anchors any number of logs.
// An epoch of this log that the chain already holds with a different root
// means the key is used elsewhere for this log; the anchorer stops with a
// *ForeignAnchorError instead of skipping the epoch.
package anchor

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// Options configure an Anchorer.
type Options struct {
	// Contract is the EpochAnchor address; Key the operator's key (required).
	Contract common.Address
	Key      *ecdsa.PrivateKey
	// FromBlock is where log searches start (the contract's deployment block).
	FromBlock uint64
	// Confirmations is the depth at which an anchor counts as final,
	// counting its own block (default 2; 1 = mined).
	Confirmations uint64
	// Poll is how often the chain is checked (default 100ms).
	Poll time.Duration
	// ResubmitAfter re-signs a transaction that is not mined after this long
	// with the same nonce and fees bumped by FeeBumpPercent (default 10s and
	// 25%; nodes need at least 10% to replace).
	ResubmitAfter  time.Duration
	FeeBumpPercent int64
	// MaxFeeCap, when set, caps the fee cap (wei per gas) of bumped
	// replacements: past it a stuck transaction is left to wait instead of
	// being re-signed with ever higher fees.
	MaxFeeCap *big.Int
	// MinBackoff and MaxBackoff bound the wait after an RPC failure
	// (default 100ms, doubling up to 5s).
	MinBackoff, MaxBackoff time.Duration
	// Position, when set, lets the window count events of the open epoch.
	Position func() recorder.Position
	// Logf receives progress and fault reports (default: discarded).
	Logf func(format string, args ...any)
	// Now replaces the clock (tests).
	Now func() time.Time
}

func (o *Options) setDefaults() {
	if o.Confirmations == 0 {
		o.Confirmations = 2
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.ResubmitAfter <= 0 {
		o.ResubmitAfter = 10 * time.Second
	}
	if o.FeeBumpPercent < 11 {
		o.FeeBumpPercent = 25
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Anchorer anchors a log's epochs. Its methods are safe for concurrent use;
// Run is called once.
type Anchorer struct {
	dir     string
	c       chain.Client
	opts    Options
	op      common.Address
	log     format.Digest // the log id the epochs are anchored under
	abi     *bindings.EpochAnchor
	chainID *big.Int

	mu      sync.Mutex
	q       *Queue
	changed chan struct{} // closed and replaced at every change
	steps   uint64        // completed rounds against the chain
	fatal   error
	stopped bool
	backoff time.Duration
	faults  int

	closed  bool
	stopRun context.CancelFunc // ends the running Run (nil when none runs)
	runDone chan struct{}      // closed when that Run has returned
}

// Open loads (or creates) the anchor queue of the log in dir and checks it
// against the chain: a queue for another chain, contract, operator or log
// is an error. It then queues every sealed epoch of the log not yet queued.
// The log id comes from the log's evidence (recorder.Log.LogID) or, in a
// log with no records yet, from its MANIFEST.
func Open(ctx context.Context, dir string, c chain.Client, opts Options) (*Anchorer, error) {
	if opts.Key == nil {
		return nil, errors.New("anchor: Options.Key is required")
	}
	opts.setDefaults()
	logID, err := LogIDOf(dir)
	if err != nil {
		return nil, err
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("anchor: chain id: %w", err)
	}
	a := &Anchorer{dir: dir, c: c, opts: opts, op: chain.Address(opts.Key), log: logID, abi: bindings.NewEpochAnchor(), chainID: id,
		changed: make(chan struct{})}
	q, err := ReadQueue(dir)
	switch {
	case err == nil:
		if q.Version < 2 {
			// Version 1 predates log ids: its epochs are this log's.
			q.Log = logID
		}
		if q.ChainID != id.Uint64() || q.Contract != opts.Contract || q.Operator != a.op || q.Log != logID {
			return nil, fmt.Errorf("anchor: %s/%s belongs to chain %d, contract %s, operator %s, log %s, not chain %d, contract %s, operator %s, log %s "+
				"(hint: anchor a log to one contract only; move the file away to start over)",
				dir, QueueFile, q.ChainID, q.Contract, q.Operator, q.Log, id, opts.Contract, a.op, logID)
		}
		if q.Version < QueueVersion {
			q.Version = QueueVersion
			if err := q.write(dir); err != nil {
				return nil, fmt.Errorf("anchor: rewriting %s as version %d: %w", QueueFile, QueueVersion, err)
			}
		}
	case errors.Is(err, errNotExist):
		q = &Queue{Format: QueueFormat, Version: QueueVersion, ChainID: id.Uint64(), Contract: opts.Contract, Operator: a.op, Log: logID}
	default:
		return nil, err
	}
	a.q = q
	code, err := c.CodeAt(ctx, opts.Contract, nil)
	if err != nil {
		return nil, fmt.Errorf("anchor: reading contract code: %w", err)
	}
	if len(code) == 0 {
		return nil, fmt.Errorf("anchor: no contract at %s on chain %d (hint: afr deploy)", opts.Contract, id)
	}
	if _, err := a.SyncLog(); err != nil {
		return nil, err
	}
	return a, nil
}

// Operator is the operator address (the key's).
func (a *Anchorer) Operator() common.Address { return a.op }

// LogID is the id the log is anchored under.
func (a *Anchorer) LogID() format.Digest { return a.log }

// LogIDOf returns the id of the log in dir: that of the recorder and
// session its evidence commits to (recorder.Log.LogID) or, before the log
// has any record, those of its MANIFEST.
func LogIDOf(dir string) (format.Digest, error) {
	l, err := recorder.OpenLog(dir)
	if err != nil {
		return format.Digest{}, fmt.Errorf("anchor: %w", err)
	}
	id, err := l.LogID()
	if err == nil {
		return id, nil
	}
	rec, session, merr := l.ManifestIdentity()
	if merr != nil {
		return format.Digest{}, fmt.Errorf("anchor: %s: no log id: %w", dir, errors.Join(err, merr))
	}
	return format.LogID(rec, session), nil
}

// Run anchors until ctx is done or Close is called (returning nil), or a
// fatal error (*ForeignAnchorError, *QueueCorruptError, or a failure to
// write the queue). Sealed epochs arriving on sealed (may be nil) are queued
// as they come; RPC failures are retried with backoff and reported through
// Options.Logf.
func (a *Anchorer) Run(ctx context.Context, sealed <-chan recorder.SealedEpoch) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	a.mu.Lock()
	closed := a.closed
	a.stopRun, a.runDone = cancel, done
	a.mu.Unlock()
	var err error
	if !closed {
		err = a.run(ctx, sealed)
	}
	a.mu.Lock()
	a.fatal, a.stopped, a.stopRun = err, true, nil
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
	return err
}

func (a *Anchorer) run(ctx context.Context, sealed <-chan recorder.SealedEpoch) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case s, ok := <-sealed:
			if !ok {
				sealed = nil
				continue
			}
			if err := a.Enqueue(s); err != nil {
				return err
			}
		case <-timer.C:
			wait := a.opts.Poll
			if err := a.step(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if stopsRun(err) {
					a.opts.Logf("%v", err)
					return err
				}
				a.mu.Lock()
				a.faults++
				a.backoff = min(max(a.backoff*2, a.opts.MinBackoff), a.opts.MaxBackoff)
				wait = a.backoff
				a.mu.Unlock()
				a.opts.Logf("anchor: %v (retrying in %s)", err, wait)
			} else {
				a.mu.Lock()
				a.backoff = 0
				a.steps++
				close(a.changed)
				a.changed = make(chan struct{})
				a.mu.Unlock()
			}
			timer.Reset(wait)
		}
	}
}

// Drain waits until every queued epoch is confirmed — with Options.Position,
// every epoch the recorder has sealed so far — or Run stops, or ctx ends.
// It trusts nothing it has not checked against the chain since it was
// called: at least one round must complete first (a chain reset can have
// removed epochs the queue file calls confirmed).
func (a *Anchorer) Drain(ctx context.Context) error {
	a.mu.Lock()
	start := a.steps
	a.mu.Unlock()
	for {
		var sealed uint64
		if a.opts.Position != nil {
			p := a.opts.Position()
			sealed = p.Next - p.OpenEvents
		}
		a.mu.Lock()
		covered := uint64(0)
		if n := len(a.q.Anchored); n > 0 {
			covered = a.q.Anchored[n-1].Events
		}
		empty, stopped, fatal, ch := len(a.q.Pending) == 0 && covered >= sealed && a.steps > start, a.stopped, a.fatal, a.changed
		a.mu.Unlock()
		switch {
		case fatal != nil:
			return fatal
		case empty:
			return nil
		case stopped:
			return errors.New("anchor: stopped with epochs pending")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-time.After(a.opts.Poll):
		}
	}
}

// Changed returns a channel closed at the next change of the queue.
func (a *Anchorer) Changed() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.changed
}

// Queue returns a copy of the queue.
func (a *Anchorer) Queue() Queue {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := *a.q
	q.Anchored = append([]Anchored(nil), a.q.Anchored...)
	q.Pending = make([]*Entry, len(a.q.Pending))
	for i, e := range a.q.Pending {
		c := *e
		q.Pending[i] = &c
	}
	return q
}

// Window returns the unanchored window now (afr anchor publishes it as the
// expvar "afr_anchor").
func (a *Anchorer) Window() Window {
	var recorded uint64
	if a.opts.Position != nil {
		recorded = a.opts.Position().Next
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.q.Window(recorded, a.opts.Now())
}

// Faults returns how many chain operations failed and were retried.
func (a *Anchorer) Faults() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.faults
}

// Close stops a running Run, as if its context had ended, and waits until it
// has returned; a Run started after Close returns at once. The queue file is
// left as it is, ready for the next Open. Close may be called more than once,
// but not from Options.Logf.
func (a *Anchorer) Close() {
	a.mu.Lock()
	a.closed = true
	stop, done := a.stopRun, a.runDone
	a.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}
