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
// chain of epochs per sender. An epoch that the chain already holds with a
// different root means the key is used elsewhere; the anchorer stops with a
// *ForeignAnchorError instead of skipping the epoch.
package anchor

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"expvar"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/format"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
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

// ErrForeignAnchor is matched (errors.Is) by *ForeignAnchorError.
var ErrForeignAnchor = errors.New("anchor: epoch anchored by another writer with the same operator key")

// ForeignAnchorError reports an epoch that the chain holds with a root this
// log did not produce: the operator key is being used by another writer.
type ForeignAnchorError struct {
	Operator  common.Address
	Epoch     uint64
	Ours      format.Digest
	Theirs    format.Digest
	Tx        common.Hash
	Block     uint64
	ChainNext uint64 // the operator's next epoch on chain
}

func (e *ForeignAnchorError) Error() string {
	return fmt.Sprintf("anchor: ANOTHER WRITER anchored epoch %d for operator %s: root %s in tx %s (block %d), this log's root is %s; "+
		"the operator key is in use elsewhere (hint: stop the other writer, rotate the key, and investigate before anchoring again)",
		e.Epoch, e.Operator, e.Theirs, e.Tx, e.Block, e.Ours)
}

// Is makes errors.Is(err, ErrForeignAnchor) true.
func (e *ForeignAnchorError) Is(target error) bool { return target == ErrForeignAnchor }

// Anchorer anchors a log's epochs. Its methods are safe for concurrent use;
// Run is called once.
type Anchorer struct {
	dir     string
	c       chain.Client
	opts    Options
	op      common.Address
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
}

// Open loads (or creates) the anchor queue of the log in dir and checks it
// against the chain: a queue for another chain, contract or operator is an
// error. It then queues every sealed epoch of the log not yet queued.
func Open(ctx context.Context, dir string, c chain.Client, opts Options) (*Anchorer, error) {
	if opts.Key == nil {
		return nil, errors.New("anchor: Options.Key is required")
	}
	opts.setDefaults()
	id, err := c.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("anchor: chain id: %w", err)
	}
	a := &Anchorer{dir: dir, c: c, opts: opts, op: chain.Address(opts.Key), abi: bindings.NewEpochAnchor(), chainID: id,
		changed: make(chan struct{})}
	q, err := ReadQueue(dir)
	switch {
	case err == nil:
		if q.ChainID != id.Uint64() || q.Contract != opts.Contract || q.Operator != a.op {
			return nil, fmt.Errorf("anchor: %s/%s belongs to chain %d, contract %s, operator %s, not chain %d, contract %s, operator %s "+
				"(hint: anchor a log to one contract only; move the file away to start over)",
				dir, QueueFile, q.ChainID, q.Contract, q.Operator, id, opts.Contract, a.op)
		}
	case errors.Is(err, errNotExist):
		q = &Queue{Format: QueueFormat, Version: QueueVersion, ChainID: id.Uint64(), Contract: opts.Contract, Operator: a.op}
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
	register(a)
	return a, nil
}

// Operator is the operator address (the key's).
func (a *Anchorer) Operator() common.Address { return a.op }

// SyncLog queues the sealed epochs of the log on disk that are not queued
// yet, and returns how many it added.
func (a *Anchorer) SyncLog() (int, error) {
	l, err := recorder.OpenLog(a.dir)
	if err != nil {
		return 0, err
	}
	var hs []*format.EpochHeader
	var roots []format.Digest
	a.mu.Lock()
	next := a.q.next()
	a.mu.Unlock()
	err = l.Epochs(func(t uint64, raw []byte) error {
		if t < next {
			return nil
		}
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		hs, roots = append(hs, h), append(roots, format.EpochRoot(raw))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("anchor: reading epochs: %w", err)
	}
	n := 0
	for i, h := range hs {
		added, err := a.enqueue(recorder.SealedEpoch{Header: *h, Root: roots[i]})
		if err != nil {
			return n, err
		}
		if added {
			n++
		}
	}
	return n, nil
}

// Enqueue queues a sealed epoch (durably, before returning). Epochs already
// queued are ignored; an epoch after a gap makes the anchorer read the
// missing headers from the log first.
func (a *Anchorer) Enqueue(s recorder.SealedEpoch) error {
	_, err := a.enqueue(s)
	if errors.Is(err, errGap) {
		if _, err = a.SyncLog(); err == nil {
			_, err = a.enqueue(s)
		}
	}
	return err
}

func (a *Anchorer) enqueue(s recorder.SealedEpoch) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	next := a.q.next()
	switch {
	case s.Header.Epoch < next:
		return false, nil
	case s.Header.Epoch > next:
		return false, fmt.Errorf("%w: epoch %d arrived, epoch %d expected", errGap, s.Header.Epoch, next)
	}
	if n := len(a.q.Pending); n > 0 && a.q.Pending[n-1].Root != s.Header.PrevRoot {
		return false, fmt.Errorf("anchor: epoch %d does not link to the queued epoch %d (prev_root %s, queued root %s): the log was re-sealed differently", s.Header.Epoch, a.q.Pending[n-1].Epoch, s.Header.PrevRoot, a.q.Pending[n-1].Root)
	}
	e := &Entry{Epoch: s.Header.Epoch, Root: s.Root, PrevRoot: s.Header.PrevRoot,
		FirstSeq: s.Header.FirstSeq, Count: s.Header.Count, Sealed: time.Unix(0, s.Header.Time), Queued: a.opts.Now(), State: StateQueued}
	a.q.Pending = append(a.q.Pending, e)
	if err := a.persistLocked(); err != nil {
		// Not durable, so not acknowledged: take it back.
		a.q.Pending = a.q.Pending[:len(a.q.Pending)-1]
		return false, err
	}
	return true, nil
}

func (a *Anchorer) persistLocked() error {
	if err := a.q.write(a.dir); err != nil {
		return fmt.Errorf("anchor: writing queue: %w", err)
	}
	close(a.changed)
	a.changed = make(chan struct{})
	return nil
}

// Run anchors until ctx is done (returning nil) or a fatal error
// (*ForeignAnchorError, or a failure to write the queue). Sealed epochs
// arriving on sealed (may be nil) are queued as they come; RPC failures are
// retried with backoff and reported through Options.Logf.
func (a *Anchorer) Run(ctx context.Context, sealed <-chan recorder.SealedEpoch) error {
	err := a.run(ctx, sealed)
	a.mu.Lock()
	a.fatal, a.stopped = err, true
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
				var fe *ForeignAnchorError
				if errors.As(err, &fe) || errors.Is(err, errPersist) {
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

var errPersist = errors.New("anchor: writing queue")

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

// Window returns the unanchored window now (the metric exported as the
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

// ---- one round ----

func (a *Anchorer) step(ctx context.Context) error {
	head, err := a.c.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("block number: %w", err)
	}
	if err := a.watchConfirmed(ctx); err != nil {
		return err
	}
	a.mu.Lock()
	pending := append([]*Entry(nil), a.q.Pending...)
	a.mu.Unlock()
	allMined := true
	for i, e := range pending {
		switch e.State {
		case StateMined:
			if err := a.checkMined(ctx, e, i == 0, head); err != nil {
				return err
			}
		case StateSent:
			allMined = false
			if err := a.checkSent(ctx, e); err != nil {
				return err
			}
		case StateQueued:
			if !allMined {
				return nil
			}
			allMined = false
			if err := a.submit(ctx, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// update applies f to the entry under the lock and persists the queue.
func (a *Anchorer) update(f func()) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
	if err := a.persistLocked(); err != nil {
		return fmt.Errorf("%w: %v", errPersist, err)
	}
	return nil
}

// watchConfirmed re-queues confirmed epochs that the chain no longer holds
// (a reorg deeper than the confirmation depth, or a chain reset).
func (a *Anchorer) watchConfirmed(ctx context.Context) error {
	a.mu.Lock()
	n := len(a.q.Anchored)
	var last uint64
	if n > 0 {
		last = a.q.Anchored[n-1].Epoch
	}
	a.mu.Unlock()
	if n == 0 {
		return nil
	}
	next, err := a.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next > last {
		return nil
	}
	a.opts.Logf("anchor: DEEP REORG: the chain holds epochs up to %d only, %d..%d were confirmed; re-anchoring them", int64(next)-1, next, last)
	return a.update(func() {
		var keep []Anchored
		var back []*Entry
		for _, an := range a.q.Anchored {
			if an.Epoch < next {
				keep = append(keep, an)
				continue
			}
			back = append(back, &Entry{Epoch: an.Epoch, Root: an.Root, PrevRoot: an.PrevRoot, FirstSeq: an.FirstSeq, Count: an.Count,
				Sealed: an.Sealed, Queued: a.opts.Now(), State: StateQueued})
		}
		for _, e := range a.q.Pending {
			e.State, e.Txs, e.Tx = StateQueued, nil, common.Hash{}
		}
		a.q.Anchored, a.q.Pending = keep, append(back, a.q.Pending...)
	})
}

func (a *Anchorer) checkMined(ctx context.Context, e *Entry, first bool, head uint64) error {
	rc, err := a.c.TransactionReceipt(ctx, e.Tx)
	if err != nil && !errors.Is(err, ethereum.NotFound) {
		return fmt.Errorf("receipt of epoch %d: %w", e.Epoch, err)
	}
	canonical := false
	if rc != nil && rc.BlockHash == e.BlockHash {
		h, err := a.c.HeaderByNumber(ctx, new(big.Int).SetUint64(e.Block))
		if err != nil {
			return fmt.Errorf("header %d: %w", e.Block, err)
		}
		canonical = h.Hash() == e.BlockHash
	}
	if !canonical {
		a.opts.Logf("anchor: reorg: the anchor of epoch %d (tx %s, block %d) left the chain; re-submitting", e.Epoch, e.Tx, e.Block)
		return a.update(func() {
			e0 := a.find(e.Epoch)
			e0.State, e0.Tx, e0.Block, e0.BlockHash, e0.SentAt = StateSent, common.Hash{}, 0, common.Hash{}, time.Time{}
		})
	}
	if !first || head+1 < e.Block+a.opts.Confirmations {
		return nil
	}
	return a.update(func() {
		now := a.opts.Now()
		a.q.Anchored = append(a.q.Anchored, Anchored{Epoch: e.Epoch, Root: e.Root, PrevRoot: e.PrevRoot, FirstSeq: e.FirstSeq, Count: e.Count,
			Events: e.FirstSeq + e.Count, Tx: e.Tx,
			Block: e.Block, BlockHash: e.BlockHash, GasUsed: e.GasUsed, Submissions: len(e.Txs), Sealed: e.Sealed,
			FirstSent: e.FirstSent, Mined: e.Mined, Confirmed: now})
		a.q.Pending = a.q.Pending[1:]
		a.opts.Logf("anchor: epoch %d confirmed (%d blocks deep, tx %s, %d gas)", e.Epoch, a.opts.Confirmations, e.Tx, e.GasUsed)
	})
}

// find returns the live entry for epoch (callers hold a.mu).
func (a *Anchorer) find(epoch uint64) *Entry {
	for _, e := range a.q.Pending {
		if e.Epoch == epoch {
			return e
		}
	}
	return &Entry{} // gone meanwhile: writes go nowhere
}

func (a *Anchorer) checkSent(ctx context.Context, e *Entry) error {
	for i := len(e.Txs) - 1; i >= 0; i-- {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(e.Txs[i]); err != nil {
			return fmt.Errorf("%w: queue holds an undecodable transaction for epoch %d: %v", errPersist, e.Epoch, err)
		}
		rc, err := a.c.TransactionReceipt(ctx, tx.Hash())
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			return fmt.Errorf("receipt of epoch %d: %w", e.Epoch, err)
		}
		if rc == nil {
			continue
		}
		if rc.Status == types.ReceiptStatusSuccessful {
			return a.mined(e.Epoch, rc)
		}
		a.opts.Logf("anchor: the anchor transaction of epoch %d reverted (tx %s)", e.Epoch, tx.Hash())
		return a.resolve(ctx, e)
	}
	nonce, err := a.c.NonceAt(ctx, a.op, nil)
	if err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	if nonce > e.Nonce {
		// The nonce was used, but by none of our transactions for this epoch.
		return a.resolve(ctx, e)
	}
	if a.opts.Now().Sub(e.SentAt) < a.opts.ResubmitAfter {
		return nil
	}
	if nonce < e.Nonce {
		// Every earlier epoch is mined, so the nonces below ours belong to
		// another user of the key whose transaction never landed: our
		// transaction waits on a gap it cannot fill. Send again at the
		// chain's next nonce.
		a.opts.Logf("anchor: epoch %d waits on nonce %d, below its own %d, used by another sender and not mined: re-sending at nonce %d", e.Epoch, nonce, e.Nonce, nonce)
		return a.submitAt(ctx, e, &nonce)
	}
	return a.bump(ctx, e)
}

func (a *Anchorer) mined(epoch uint64, rc *types.Receipt) error {
	return a.update(func() {
		e := a.find(epoch)
		e.State, e.Tx, e.Block, e.BlockHash, e.GasUsed, e.Mined = StateMined, rc.TxHash, rc.BlockNumber.Uint64(), rc.BlockHash, rc.GasUsed, a.opts.Now()
	})
}

// resolve asks the chain what happened to an epoch whose transaction did not
// simply succeed: anchored by us after all, anchored by someone else, or not
// anchored (send it again).
func (a *Anchorer) resolve(ctx context.Context, e *Entry) error {
	next, err := a.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next > e.Epoch {
		ev, err := a.findAnchored(ctx, e.Epoch)
		if err != nil {
			return err
		}
		if ev == nil {
			return fmt.Errorf("epoch %d: the chain's next epoch is %d but no Anchored event was found yet", e.Epoch, next)
		}
		if ev.Root != e.Root {
			return &ForeignAnchorError{Operator: a.op, Epoch: e.Epoch, Ours: e.Root, Theirs: format.Digest(ev.Root),
				Tx: ev.Raw.TxHash, Block: ev.Raw.BlockNumber, ChainNext: next}
		}
		rc, err := a.c.TransactionReceipt(ctx, ev.Raw.TxHash)
		if err != nil {
			return fmt.Errorf("receipt of epoch %d: %w", e.Epoch, err)
		}
		a.opts.Logf("anchor: epoch %d is on chain from an earlier submission (tx %s)", e.Epoch, ev.Raw.TxHash)
		return a.mined(e.Epoch, rc)
	}
	a.opts.Logf("anchor: epoch %d not on chain (chain expects %d); sending again with a fresh nonce", e.Epoch, next)
	return a.update(func() {
		e0 := a.find(e.Epoch)
		e0.State = StateQueued
	})
}

func (a *Anchorer) nextEpoch(ctx context.Context) (uint64, error) {
	out, err := a.c.CallContract(ctx, ethereum.CallMsg{To: &a.opts.Contract, Data: a.abi.PackNextEpoch(a.op)}, nil)
	if err != nil {
		return 0, fmt.Errorf("nextEpoch: %w", err)
	}
	if len(out) == 0 {
		return 0, fmt.Errorf("nextEpoch: no contract at %s (chain reset?)", a.opts.Contract)
	}
	return a.abi.UnpackNextEpoch(out)
}

// findAnchored returns the Anchored event of (operator, epoch), or nil.
func (a *Anchorer) findAnchored(ctx context.Context, epoch uint64) (*bindings.EpochAnchorAnchored, error) {
	evs, err := FilterAnchored(ctx, a.c, a.opts.Contract, a.op, &epoch, a.opts.FromBlock)
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		return nil, nil
	}
	return evs[len(evs)-1], nil
}

// FilterAnchored returns the Anchored events of an operator (of one epoch
// when epoch is not nil), from block from on, in chain order.
func FilterAnchored(ctx context.Context, c chain.LogReader, contract, operator common.Address, epoch *uint64, from uint64) ([]*bindings.EpochAnchorAnchored, error) {
	ea := bindings.NewEpochAnchor()
	topics := [][]common.Hash{{ea.GetABI().Events["Anchored"].ID}, {common.BytesToHash(operator[:])}}
	if epoch != nil {
		topics = append(topics, []common.Hash{common.BigToHash(new(big.Int).SetUint64(*epoch))})
	}
	logs, err := chain.FilterLogs(ctx, c, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), Addresses: []common.Address{contract}, Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("filter Anchored events: %w", err)
	}
	out := make([]*bindings.EpochAnchorAnchored, 0, len(logs))
	for i := range logs {
		if logs[i].Removed {
			continue
		}
		ev, err := ea.UnpackAnchoredEvent(&logs[i])
		if err != nil {
			return nil, fmt.Errorf("Anchored event in tx %s: %w", logs[i].TxHash, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

func (a *Anchorer) submit(ctx context.Context, e *Entry) error { return a.submitAt(ctx, e, nil) }

// submitAt signs and sends a fresh anchor transaction for e, at the given
// nonce or, if nil, the account's pending nonce.
func (a *Anchorer) submitAt(ctx context.Context, e *Entry, at *uint64) error {
	next, err := a.nextEpoch(ctx)
	if err != nil {
		return err
	}
	switch {
	case next > e.Epoch:
		return a.resolve(ctx, e)
	case next < e.Epoch:
		return nil // an earlier epoch is not on chain yet (in flight or reorged): wait
	}
	data := a.abi.PackAnchor(e.Epoch, e.Root, e.PrevRoot)
	gas, err := a.c.EstimateGas(ctx, ethereum.CallMsg{From: a.op, To: &a.opts.Contract, Data: data})
	if err != nil {
		if rd, ok := chain.RevertData(err); ok {
			return a.reverted(ctx, e, rd)
		}
		return fmt.Errorf("estimate gas for epoch %d: %w", e.Epoch, err)
	}
	var nonce uint64
	if at != nil {
		nonce = *at
	} else if nonce, err = a.c.PendingNonceAt(ctx, a.op); err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	tip, feeCap, err := chain.Fees(ctx, a.c)
	if err != nil {
		return fmt.Errorf("fees: %w", err)
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: a.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas + gas/4, To: &a.opts.Contract, Data: data}), types.LatestSignerForChainID(a.chainID), a.opts.Key)
	if err != nil {
		return err
	}
	return a.send(ctx, e.Epoch, tx, true)
}

// send records the signed transaction in the queue, then sends it: after a
// crash between the two, the queue knows a hash that may be on chain.
func (a *Anchorer) send(ctx context.Context, epoch uint64, tx *types.Transaction, fresh bool) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	if err := a.update(func() {
		e := a.find(epoch)
		now := a.opts.Now()
		if fresh {
			e.Txs = nil
		}
		if e.FirstSent.IsZero() {
			e.FirstSent = now
		}
		e.State, e.Nonce, e.SentAt, e.Txs = StateSent, tx.Nonce(), now, append(e.Txs, raw)
	}); err != nil {
		return err
	}
	err = a.c.SendTransaction(ctx, tx)
	if err != nil && !strings.Contains(strings.ToLower(err.Error()), "already known") {
		return fmt.Errorf("send anchor of epoch %d (nonce %d): %w", epoch, tx.Nonce(), err)
	}
	return nil
}

// bump re-signs the newest transaction of e with the same nonce and higher
// fees and sends it (also re-broadcasting to a node that lost it).
func (a *Anchorer) bump(ctx context.Context, e *Entry) error {
	last := new(types.Transaction)
	if err := last.UnmarshalBinary(e.Txs[len(e.Txs)-1]); err != nil {
		return err
	}
	tip, feeCap, err := chain.Fees(ctx, a.c)
	if err != nil {
		return fmt.Errorf("fees: %w", err)
	}
	pct := big.NewInt(100 + a.opts.FeeBumpPercent)
	bumped := func(old, now *big.Int) *big.Int {
		b := new(big.Int).Div(new(big.Int).Mul(old, pct), big.NewInt(100))
		if b.Cmp(now) < 0 {
			b = now
		}
		return b
	}
	tip = bumped(last.GasTipCap(), tip)
	feeCap = bumped(last.GasFeeCap(), feeCap)
	if feeCap.Cmp(tip) < 0 {
		feeCap = tip
	}
	if max := a.opts.MaxFeeCap; max != nil && feeCap.Cmp(max) > 0 {
		if last.GasFeeCap().Cmp(max) >= 0 {
			a.opts.Logf("anchor: epoch %d not mined and its fee cap is at the limit (%s wei): waiting", e.Epoch, max)
			return nil
		}
		feeCap = new(big.Int).Set(max)
		if tip.Cmp(feeCap) > 0 {
			tip = new(big.Int).Set(feeCap)
		}
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: a.chainID, Nonce: e.Nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: last.Gas(), To: last.To(), Data: last.Data()}), types.LatestSignerForChainID(a.chainID), a.opts.Key)
	if err != nil {
		return err
	}
	if e.SentAt.IsZero() {
		a.opts.Logf("anchor: epoch %d: re-sending after a reorg as a replacement of tx %s (nonce %d), fees +%d%% (tip %s, cap %s wei)",
			e.Epoch, last.Hash(), e.Nonce, a.opts.FeeBumpPercent, tip, feeCap)
	} else {
		a.opts.Logf("anchor: epoch %d not mined after %s: replacing tx %s (nonce %d) with fees +%d%% (tip %s, cap %s wei)",
			e.Epoch, a.opts.Now().Sub(e.SentAt).Round(time.Millisecond), last.Hash(), e.Nonce, a.opts.FeeBumpPercent, tip, feeCap)
	}
	err = a.send(ctx, e.Epoch, tx, false)
	if err != nil && strings.Contains(strings.ToLower(err.Error()), "nonce too low") {
		return a.resolve(ctx, e)
	}
	return err
}

// reverted handles a revert found by gas estimation.
func (a *Anchorer) reverted(ctx context.Context, e *Entry, data []byte) error {
	reason, _ := a.abi.UnpackError(data)
	switch r := reason.(type) {
	case *bindings.EpochAnchorEpochOutOfOrder:
		if r.Expected > e.Epoch {
			return a.resolve(ctx, e)
		}
		return fmt.Errorf("epoch %d: EpochOutOfOrder(expected %d): waiting for earlier epochs", e.Epoch, r.Expected)
	case *bindings.EpochAnchorBackPointerMismatch:
		// The chain's epoch e−1 is not ours.
		if e.Epoch > 0 {
			prev := e.Epoch - 1
			ev, err := a.findAnchored(ctx, prev)
			if err == nil && ev != nil {
				return &ForeignAnchorError{Operator: a.op, Epoch: prev, Ours: e.PrevRoot, Theirs: format.Digest(ev.Root),
					Tx: ev.Raw.TxHash, Block: ev.Raw.BlockNumber, ChainNext: e.Epoch}
			}
		}
		return fmt.Errorf("epoch %d: BackPointerMismatch: the chain's root of epoch %d is not this log's", e.Epoch, e.Epoch-1)
	}
	return fmt.Errorf("epoch %d: anchor would revert: %x", e.Epoch, data)
}

// ---- metrics ----

var (
	registry   sync.Map // dir → *Anchorer
	publishOne sync.Once
)

// register publishes the windows of live anchorers as the expvar
// "afr_anchor": {"<log dir>": Window, …}.
func register(a *Anchorer) {
	registry.Store(a.dir, a)
	publishOne.Do(func() {
		expvar.Publish("afr_anchor", expvar.Func(func() any {
			out := map[string]Window{}
			registry.Range(func(k, v any) bool {
				out[k.(string)] = v.(*Anchorer).Window()
				return true
			})
			return out
		}))
	})
}

// Close unregisters the anchorer's metric. It does not touch the queue file.
func (a *Anchorer) Close() { registry.CompareAndDelete(a.dir, a) }
