package anchor

import (
	"context"
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

// submitter anchors the entries of one queue — the epochs of one (operator,
// log id) on EpochAnchor — in order, until each is confirmed, through every
// fault of a real chain (round.go, submit.go). The Anchorer (one log) and
// the Batcher (the batch chain, log id 0) are each a submitter with its own
// source of entries and its own calldata.
type submitter struct {
	c       chain.Client
	opts    Options
	op      common.Address
	log     format.Digest // the log id the entries are anchored under (0: the batch chain)
	unit    string        // what an entry is, in messages: "epoch" or "batch"
	abi     *bindings.EpochAnchor
	chainID *big.Int
	path    string                             // the queue file
	data    func(run []*Entry) ([]byte, error) // the calldata of the transaction anchoring run (consecutive entries)
	// rebuild returns queued entries for the entries from to to − 1 (as
	// many as its source holds), read from their source: a deep reorg takes
	// back confirmed entries the queue has trimmed.
	rebuild func(from, to uint64) ([]*Entry, error)
	maxRun  int // the most entries one transaction anchors

	mu      sync.Mutex
	q       *Queue
	changed chan struct{} // closed and replaced at every change
	kick    chan struct{} // a change left work pending: step now (loop)
	steps   uint64        // completed rounds against the chain
	fatal   error
	stopped bool
	backoff time.Duration
	faults  int

	closed  bool
	stopRun context.CancelFunc // ends the running Run (nil when none runs)
	runDone chan struct{}      // closed when that Run has returned
}

// maxEnqueue bounds the sealed epochs queued with one write of the queue
// file.
const maxEnqueue = 1024

// newSubmitter checks the options and the contract (a *ContractError when
// it is no EpochAnchor version 2), and loads the queue file at path (or
// starts an empty one): a queue of another chain, contract, operator or
// log is an error naming what it is for.
func newSubmitter(ctx context.Context, c chain.Client, opts Options, log format.Digest, unit, path string) (*submitter, error) {
	if opts.Key == nil {
		return nil, errors.New("anchor: Options.Key is required")
	}
	opts.setDefaults()
	if opts.MaxRun > MaxRunLimit {
		return nil, fmt.Errorf("anchor: Options.MaxRun %d is over %d: the transaction would be larger than the 128 KB nodes accept", opts.MaxRun, MaxRunLimit)
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("anchor: chain id: %w", err)
	}
	s := &submitter{c: c, opts: opts, op: chain.Address(opts.Key), log: log, unit: unit, abi: bindings.NewEpochAnchor(), chainID: id,
		path: path, maxRun: 1, changed: make(chan struct{}), kick: make(chan struct{}, 1)}
	q, err := readQueueFile(path)
	switch {
	case err == nil:
		if q.Version < 2 {
			// Version 1 predates log ids: its epochs are this log's.
			q.Log = log
		}
		if q.ChainID != id.Uint64() || q.Contract != opts.Contract || q.Operator != s.op || q.Log != log {
			return nil, fmt.Errorf("anchor: %s belongs to chain %d, contract %s, operator %s, log %s, not chain %d, contract %s, operator %s, log %s "+
				"(hint: anchor a log to one contract only; move the file away to start over)",
				path, q.ChainID, q.Contract, q.Operator, q.Log, id, opts.Contract, s.op, log)
		}
		if q.Version < QueueVersion {
			q.Version = QueueVersion
			q.trim(opts.KeepAnchored)
			if err := q.write(path); err != nil {
				return nil, fmt.Errorf("anchor: rewriting %s as version %d: %w", path, QueueVersion, err)
			}
		}
	case errors.Is(err, errNotExist):
		q = &Queue{Format: QueueFormat, Version: QueueVersion, ChainID: id.Uint64(), Contract: opts.Contract, Operator: s.op, Log: log}
	default:
		return nil, err
	}
	s.q = q
	code, err := c.CodeAt(ctx, opts.Contract, nil)
	if err != nil {
		return nil, fmt.Errorf("anchor: reading contract code: %w", err)
	}
	if len(code) == 0 {
		return nil, &ContractError{Contract: opts.Contract, ChainID: id.Uint64()}
	}
	if _, err := s.nextEpoch(ctx); err != nil {
		return nil, &ContractError{Contract: opts.Contract, ChainID: id.Uint64(), Err: err}
	}
	return s, nil
}

// name names an entry in messages: "epoch 5", "batch 5".
func (s *submitter) name(n uint64) string { return fmt.Sprintf("%s %d", s.unit, n) }

// units is the plural of unit.
func (s *submitter) units() string {
	if s.unit == "batch" {
		return "batches"
	}
	return s.unit + "s"
}

// Operator is the operator address (the key's).
func (s *submitter) Operator() common.Address { return s.op }

// run is Run: it anchors until ctx is done or Close is called (returning
// nil), or a fatal error. Sealed epochs arriving on sealed (may be nil) go
// to enqueue, as many at once as have arrived (up to maxEnqueue); tick, when not nil, runs before every round against the
// chain (the Batcher cuts batches there).
func (s *submitter) run(ctx context.Context, sealed <-chan recorder.SealedEpoch, enqueue func([]recorder.SealedEpoch) error, tick func() error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	s.mu.Lock()
	closed := s.closed
	s.stopRun, s.runDone = cancel, done
	s.mu.Unlock()
	var err error
	if !closed {
		err = s.loop(ctx, sealed, enqueue, tick)
	}
	s.mu.Lock()
	s.fatal, s.stopped, s.stopRun = err, true, nil
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	return err
}

// maxEager is how many rounds in a row the loop takes at once, without
// waiting for Options.Poll, while each leaves the queue changed with work
// pending (its transaction sent, then mined; or the first epochs queued
// after an idle spell): on a chain
// that mines at once, a whole anchoring completes in one burst rather than
// one poll per state. The bound keeps a chain that undoes every change
// (reorgs) from being asked in a tight loop.
const maxEager = 16

func (s *submitter) loop(ctx context.Context, sealed <-chan recorder.SealedEpoch, enqueue func([]recorder.SealedEpoch) error, tick func() error) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	eager, eagerStep := 0, false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.kick:
			if eager < maxEager {
				eager, eagerStep = eager+1, true
				timer.Reset(0)
			}
		case ep, ok := <-sealed:
			if !ok {
				sealed = nil
				continue
			}
			// Take every epoch that has arrived: the queue file is written
			// once for them, not once each.
			eps := []recorder.SealedEpoch{ep}
		more:
			for len(eps) < maxEnqueue {
				select {
				case ep, ok := <-sealed:
					if !ok {
						sealed = nil
						break more
					}
					eps = append(eps, ep)
				default:
					break more
				}
			}
			if err := enqueue(eps); err != nil {
				return err
			}
		case <-timer.C:
			if !eagerStep {
				eager = 0 // a poll went by: eager again
			}
			eagerStep = false
			wait := s.opts.Poll
			err := error(nil)
			if tick != nil {
				err = tick()
			}
			if err == nil {
				err = s.step(ctx)
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if stopsRun(err) {
					return err
				}
				s.mu.Lock()
				s.faults++
				s.backoff = min(max(s.backoff*2, s.opts.MinBackoff), s.opts.MaxBackoff)
				wait = s.backoff
				s.mu.Unlock()
				s.opts.Logf("anchor: %v (retrying in %s)", err, wait)
			} else {
				s.mu.Lock()
				s.backoff = 0
				s.steps++
				close(s.changed)
				s.changed = make(chan struct{})
				s.mu.Unlock()
			}
			timer.Reset(wait)
		}
	}
}

// drain waits until the queue has no pending entry and idle (called under
// the lock) holds, or Run stops, or ctx ends. It trusts nothing it has not
// checked against the chain since it was called: at least one round must
// complete first (a chain reset can have removed entries the queue file
// calls confirmed).
func (s *submitter) drain(ctx context.Context, idle func() bool) error {
	s.mu.Lock()
	start := s.steps
	s.mu.Unlock()
	for {
		s.mu.Lock()
		empty, stopped, fatal, ch := len(s.q.Pending) == 0 && idle() && s.steps > start, s.stopped, s.fatal, s.changed
		s.mu.Unlock()
		switch {
		case fatal != nil:
			return fatal
		case empty:
			return nil
		case stopped:
			return fmt.Errorf("anchor: stopped with %s pending", s.units())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-time.After(s.opts.Poll):
		}
	}
}

// Changed returns a channel closed at the next change of the queue.
func (s *submitter) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Queue returns a copy of the queue.
func (s *submitter) Queue() Queue {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := *s.q
	q.Anchored = append([]Anchored(nil), s.q.Anchored...)
	q.Pending = make([]*Entry, len(s.q.Pending))
	for i, e := range s.q.Pending {
		c := *e
		q.Pending[i] = &c
	}
	return q
}

// Faults returns how many chain operations failed and were retried.
func (s *submitter) Faults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// Close stops a running Run, as if its context had ended, and waits until it
// has returned; a Run started after Close returns at once. The queue file is
// left as it is, ready for the next Open. Close may be called more than once,
// but not from Options.Logf.
func (s *submitter) Close() {
	s.mu.Lock()
	s.closed = true
	stop, done := s.stopRun, s.runDone
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// persistLocked writes the queue file (callers hold s.mu) and signals the
// change.
func (s *submitter) persistLocked() error {
	s.q.trim(s.opts.KeepAnchored)
	if err := s.q.write(s.path); err != nil {
		return fmt.Errorf("anchor: writing queue: %w", err)
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// kickLocked asks the loop for a round at once (callers hold s.mu) when
// work is pending: after a round's change (update), or when epochs arrive
// at an idle queue (enqueue) — not for every epoch that arrives while
// others wait, which the next round takes anyway.
func (s *submitter) kickLocked() {
	if len(s.q.Pending) == 0 {
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// update applies f to the queue under the lock and persists it.
func (s *submitter) update(f func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
	if err := s.persistLocked(); err != nil {
		return fmt.Errorf("%w: %w", errPersist, err)
	}
	s.kickLocked()
	return nil
}
