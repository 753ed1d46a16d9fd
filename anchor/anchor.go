// Package anchor commits the epoch roots R_t of AFR logs to the
// EpochAnchor contract (docs/CONTRACTS.md), asynchronously and durably, in
// one of two ways:
//
//   - An Anchorer anchors one log: it takes sealed epochs from the recorder
//     (Recorder.Sealed, which never blocks Record) or from the log on disk,
//     keeps them in a queue file in the log directory (docs/SPEC.md,
//     "Anchor queue"), and submits anchor(log, t, R_t, R_{t−1}) in epoch
//     order until each is confirmed: ~30,900 gas per epoch.
//   - A Batcher anchors many logs of one operator in aggregate batches
//     (docs/SPEC.md, "Aggregate batches"): the epochs sealed across all its
//     logs while the previous batch was in flight (up to MaxEntries, or
//     after MaxWait) go into one transaction, written to the batches file
//     before it is submitted — 30,486 gas per batch when the operator
//     publishes the file, ~4,000 gas per epoch more when the entries go in
//     the transaction's event.
//
// Both run the same submitter (submitter.go, round.go, submit.go), which
// survives the faults of a real chain: an RPC endpoint that is down or slow
// (retries with exponential backoff; the queue on disk means a restart
// loses nothing and resumes in order), transactions that stay pending
// (re-signed with the same nonce and bumped fees), nonces consumed by
// another transaction of the same key, reorgs (an entry is confirmed only
// at a configurable depth, and re-submitted if its block leaves the chain,
// even after confirmation), and another writer anchoring with the same
// operator key (ErrForeignAnchor: never silently accepted).
//
// # Security
//
// The operator is the address of the signing key: EpochAnchor keeps one
// chain of epochs per sender and log id (format.LogID of the log's recorder
// and session, read from the log), so one key anchors any number of logs,
// and one more chain, log id 0, for the sender's batches. An epoch (or a
// batch) that the chain already holds with a different root means the key
// is used elsewhere for this log (or another Batcher runs with this key);
// the anchorer stops with a *ForeignAnchorError naming the log instead of
// skipping the epoch. Anchorers and a Batcher may share a key (each repairs
// the nonce clashes of the other), but run one Batcher per key: its
// batches file is the batch chain's only record of what each batch holds.
package anchor

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
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
	// Poll is how often the chain is checked while nothing changes (default
	// 100ms). A round that changes the queue and leaves work pending (a
	// transaction sent, then mined), and the first epochs queued after an
	// idle spell, are followed at once by the next round, up to 16 in a
	// row, so a chain that mines at once is not waited on once per state;
	// epochs sealed while others wait are taken at the next round.
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
	// MaxRun bounds how many consecutive sealed epochs one transaction
	// anchors (EpochAnchor.anchorRoots; default 256, at most MaxRunLimit;
	// 1: one anchor per epoch). An Anchorer sends every epoch waiting when
	// the previous transaction is mined, up to MaxRun, so its throughput
	// grows with the backlog. A Batcher sends one batch per transaction.
	MaxRun int
	// KeepAnchored is how many confirmed anchors the queue file lists
	// (default DefaultKeepAnchored, at least 1); older ones are summarised
	// by their number and the last one's root and events, so the file stays
	// bounded. A reorg that takes off the chain confirmed epochs the file no
	// longer lists re-queues them from the log's epoch headers (a Batcher:
	// from its batches file), checked against the summary's root.
	KeepAnchored int
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
	if o.MaxRun <= 0 {
		o.MaxRun = DefaultMaxRun
	}
	if o.KeepAnchored <= 0 {
		o.KeepAnchored = DefaultKeepAnchored
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// DefaultMaxRun is Options.MaxRun's default: 256 epochs per transaction,
// ~800,000 gas and 8 KB of roots. MaxRunLimit bounds it: 4,096 roots are
// 128 KB of calldata, the most nodes accept in a transaction.
const (
	DefaultMaxRun = 256
	MaxRunLimit   = 4000
)

// DefaultKeepAnchored is Options.KeepAnchored's default: four runs of
// DefaultMaxRun epochs, far more than a reorg within any confirmation depth
// takes back; the queue file then stays under ~0.5 MB.
const DefaultKeepAnchored = 1024

// Anchorer anchors a log's epochs. Its methods are safe for concurrent use;
// Run is called once.
type Anchorer struct {
	*submitter
	dir string
}

// Open loads (or creates) the anchor queue of the log in dir and checks it
// against the chain: a queue for another chain, contract, operator or log
// is an error, and so is a contract that is not EpochAnchor version 2 (a
// *ContractError). It then queues every sealed epoch of the log not yet queued.
// The log id comes from the log's evidence (recorder.Log.LogID) or, in a
// log with no records yet, from its MANIFEST.
func Open(ctx context.Context, dir string, c chain.Client, opts Options) (*Anchorer, error) {
	logID, err := LogIDOf(dir)
	if err != nil {
		return nil, err
	}
	s, err := newSubmitter(ctx, c, opts, logID, "epoch", filepath.Join(dir, QueueFile))
	if err != nil {
		return nil, err
	}
	a := &Anchorer{submitter: s, dir: dir}
	s.data, s.rebuild = a.calldata, a.rebuild
	s.maxRun = s.opts.MaxRun
	if _, err := a.SyncLog(); err != nil {
		return nil, err
	}
	return a, nil
}

// calldata is the anchor transaction of a run of consecutive epochs:
// anchor(log, t, R_t, R_{t−1}) for one, anchorRoots(log, t, [R_t, …],
// R_{t−1}) for more.
func (a *Anchorer) calldata(run []*Entry) ([]byte, error) {
	first := run[0]
	if len(run) == 1 {
		return a.abi.PackAnchor(a.log, first.Epoch, first.Root, first.PrevRoot), nil
	}
	roots := make([][32]byte, len(run))
	for i, e := range run {
		roots[i] = e.Root
	}
	return a.abi.PackAnchorRoots(a.log, first.Epoch, roots, first.PrevRoot), nil
}

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
	return a.run(ctx, sealed, a.enqueueAll, nil)
}

// Drain waits until every queued epoch is confirmed — with Options.Position,
// every epoch the recorder has sealed so far — or Run stops, or ctx ends.
// It trusts nothing it has not checked against the chain since it was
// called: at least one round must complete first (a chain reset can have
// removed epochs the queue file calls confirmed).
func (a *Anchorer) Drain(ctx context.Context) error {
	return a.drain(ctx, func() bool {
		if a.opts.Position == nil {
			return true
		}
		p := a.opts.Position()
		return a.q.covered() >= p.Next-p.OpenEvents
	})
}

// Window returns the unanchored window now (afr anchor publishes it as the
// expvar "afr_anchor").
func (a *Anchorer) Window() recorder.AnchorWindow {
	var recorded uint64
	if a.opts.Position != nil {
		recorded = a.opts.Position().Next
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.q.Window(recorded, a.opts.Now())
}
