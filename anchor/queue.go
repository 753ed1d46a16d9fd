package anchor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/durable"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/recorder"
)

// QueueFile is the name of the anchor queue in a log directory
// (docs/SPEC.md, "Anchor queue").
const QueueFile = "anchor-queue.json"

// QueueFormat is the queue file's format tag; QueueVersion its version.
// Version 2 added the log id (field "log"), version 3 transactions that
// anchor several epochs (field "run"); older files are read, and rewritten
// as version 3, by an anchorer of their log.
const (
	QueueFormat  = "afr-anchor-queue"
	QueueVersion = 3
)

// Entry states.
const (
	StateQueued = "queued" // not sent yet
	StateSent   = "sent"   // signed and sent, no receipt yet
	StateMined  = "mined"  // in a block, not yet deep enough
)

// Entry is one epoch waiting for a confirmed anchor.
type Entry struct {
	Epoch    uint64        `json:"epoch"`
	Root     format.Digest `json:"root"`
	PrevRoot format.Digest `json:"prev_root"`
	FirstSeq uint64        `json:"first_seq"`
	Count    uint64        `json:"count"`
	Sealed   time.Time     `json:"sealed"` // the header's seal time
	Queued   time.Time     `json:"queued"`
	State    string        `json:"state"`
	// Run, on the first entry of a transaction that anchors several
	// consecutive entries (EpochAnchor.anchorRoots), is their number; the
	// Run − 1 entries after it share its state, nonce, times and block, and
	// only the first holds Txs. Zero (omitted) means the transaction
	// anchors this entry alone.
	Run int `json:"run,omitempty"`
	// Nonce and Txs: the operator nonce used and every signed transaction
	// sent for it (the first, then fee-bumped replacements), raw.
	Nonce     uint64          `json:"nonce,omitempty"`
	Txs       []hexutil.Bytes `json:"txs,omitempty"`
	FirstSent time.Time       `json:"first_sent,omitempty"`
	SentAt    time.Time       `json:"sent_at,omitempty"`
	// Where it was mined (StateMined).
	Tx        common.Hash `json:"tx,omitempty"`
	Block     uint64      `json:"block,omitempty"`
	BlockHash common.Hash `json:"block_hash,omitempty"`
	GasUsed   uint64      `json:"gas_used,omitempty"`
	Mined     time.Time   `json:"mined,omitempty"`
}

// Anchored is a confirmed anchor.
type Anchored struct {
	Epoch     uint64        `json:"epoch"`
	Root      format.Digest `json:"root"`
	PrevRoot  format.Digest `json:"prev_root"`
	FirstSeq  uint64        `json:"first_seq"`
	Count     uint64        `json:"count"`
	Events    uint64        `json:"events_through"` // first_seq + count: events covered up to this epoch
	Tx        common.Hash   `json:"tx"`
	Block     uint64        `json:"block"`
	BlockHash common.Hash   `json:"block_hash"`
	// GasUsed is the epoch's share of its transaction's gas: the gas used
	// divided among the Run epochs it anchored (the first takes the
	// remainder).
	GasUsed uint64 `json:"gas_used"`
	// Run is the number of epochs its transaction anchored (omitted: 1).
	Run int `json:"run,omitempty"`
	// Submissions counts the transactions signed for it (1 + fee bumps + resends after reorgs).
	Submissions int       `json:"submissions"`
	Sealed      time.Time `json:"sealed"`
	FirstSent   time.Time `json:"first_sent"`
	Mined       time.Time `json:"mined"`
	Confirmed   time.Time `json:"confirmed"`
}

// Queue is the anchorer's persistent state: the file QueueFile in the log
// directory, rewritten atomically at every state change.
type Queue struct {
	Format   string         `json:"format"`
	Version  int            `json:"version"`
	ChainID  uint64         `json:"chain_id"`
	Contract common.Address `json:"contract"`
	Operator common.Address `json:"operator"`
	// Log is the log id the epochs are anchored under (zero in a version 1
	// file, which predates log ids).
	Log format.Digest `json:"log"`
	// Anchored lists the confirmed anchors in epoch order; Pending the
	// epochs after them, in order.
	Anchored []Anchored `json:"anchored"`
	Pending  []*Entry   `json:"pending"`
}

// ReadQueue reads the anchor queue of a log directory. It returns
// os.ErrNotExist (wrapped) when the log was never anchored.
func ReadQueue(dir string) (*Queue, error) { return readQueueFile(filepath.Join(dir, QueueFile)) }

// readQueueFile reads a queue file: a log's, or a Batcher's.
func readQueueFile(path string) (*Queue, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseQueue(path, b)
}

// parseQueue reads the content b of the queue file at path.
func parseQueue(path string, b []byte) (*Queue, error) {
	var q Queue
	if err := strictjson.Unmarshal(b, &q); err != nil {
		return nil, fmt.Errorf("anchor: %s: %w", path, err)
	}
	if q.Format != QueueFormat {
		return nil, fmt.Errorf("anchor: %s: format %q, want %q", path, q.Format, QueueFormat)
	}
	if q.Version > QueueVersion {
		return nil, fmt.Errorf("anchor: %s: version %d, this build reads up to %d", path, q.Version, QueueVersion)
	}
	if q.Version < 1 {
		return nil, fmt.Errorf("anchor: %s: version %d, want 1 to %d", path, q.Version, QueueVersion)
	}
	// The anchorer and Window read every entry: a null one, which no
	// writer produces, would stop them with a nil dereference.
	if i := slices.Index(q.Pending, nil); i >= 0 {
		return nil, fmt.Errorf("anchor: %s: pending entry %d is null", path, i)
	}
	if err := q.checkRuns(); err != nil {
		return nil, fmt.Errorf("anchor: %s: %w", path, err)
	}
	return &q, nil
}

// checkRuns checks that every pending run is Run consecutive entries in
// one state that is not queued, none of them the start of another.
func (q *Queue) checkRuns() error {
	for i := 0; i < len(q.Pending); i++ {
		e := q.Pending[i]
		if e.Run < 0 || e.Run == 1 || e.Run > MaxRunLimit || (e.Run > 1 && e.State == StateQueued) {
			return fmt.Errorf("epoch %d: run %d in state %q", e.Epoch, e.Run, e.State)
		}
		for k := 1; k < e.Run; k++ {
			if i+k >= len(q.Pending) {
				return fmt.Errorf("epoch %d: run of %d, only %d pending entries from it", e.Epoch, e.Run, len(q.Pending)-i)
			}
			f := q.Pending[i+k]
			if f.Epoch != e.Epoch+uint64(k) || f.State != e.State || f.Run != 0 || len(f.Txs) != 0 {
				return fmt.Errorf("epoch %d (in the run of %d from epoch %d): epoch %d, state %q, run %d, %d transactions", e.Epoch+uint64(k), e.Run, e.Epoch, f.Epoch, f.State, f.Run, len(f.Txs))
			}
		}
		i += max(e.Run, 1) - 1
	}
	return nil
}

// write replaces the queue file at path atomically and durably.
func (q *Queue) write(path string) error {
	b, err := json.MarshalIndent(q, "", " ")
	if err != nil {
		return err
	}
	return durable.WriteFile(path, append(b, '\n'), 0o600)
}

// next is the epoch the queue expects next.
func (q *Queue) next() uint64 {
	if n := len(q.Pending); n > 0 {
		return q.Pending[n-1].Epoch + 1
	}
	if n := len(q.Anchored); n > 0 {
		return q.Anchored[n-1].Epoch + 1
	}
	return 0
}

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
	eps := make([]recorder.SealedEpoch, len(hs))
	for i, h := range hs {
		eps[i] = recorder.SealedEpoch{Header: *h, Root: roots[i]}
	}
	return a.enqueue(eps)
}

// Enqueue queues a sealed epoch (durably, before returning). Epochs already
// queued are ignored; an epoch after a gap makes the anchorer read the
// missing headers from the log first.
func (a *Anchorer) Enqueue(s recorder.SealedEpoch) error {
	return a.enqueueAll([]recorder.SealedEpoch{s})
}

// enqueueAll is Enqueue for consecutive sealed epochs, written to the queue
// file once.
func (a *Anchorer) enqueueAll(eps []recorder.SealedEpoch) error {
	_, err := a.enqueue(eps)
	if errors.Is(err, errGap) {
		if _, err = a.SyncLog(); err == nil {
			_, err = a.enqueue(eps)
		}
	}
	return err
}

// enqueue queues the epochs of eps not queued yet, in order, and writes the
// queue file once; it returns how many it added. On an error nothing of eps
// is queued.
func (a *Anchorer) enqueue(eps []recorder.SealedEpoch) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	before := len(a.q.Pending)
	for _, s := range eps {
		if err := a.enqueueLocked(s); err != nil {
			a.q.Pending = a.q.Pending[:before]
			return 0, err
		}
	}
	n := len(a.q.Pending) - before
	if n == 0 {
		return 0, nil
	}
	if err := a.persistLocked(); err != nil {
		// Not durable, so not acknowledged: take them back.
		a.q.Pending = a.q.Pending[:before]
		return 0, err
	}
	return n, nil
}

// enqueueLocked appends s to the pending entries unless it is queued
// already (callers hold a.mu and persist).
func (a *Anchorer) enqueueLocked(s recorder.SealedEpoch) error {
	if id := format.LogID(s.Header.Recorder, s.Header.Session); id != a.log {
		return fmt.Errorf("anchor: epoch %d of log %s (recorder %q) given to the anchorer of log %s", s.Header.Epoch, id, s.Header.Recorder, a.log)
	}
	next := a.q.next()
	switch {
	case s.Header.Epoch < next:
		return nil
	case s.Header.Epoch > next:
		return fmt.Errorf("%w: epoch %d arrived, epoch %d expected", errGap, s.Header.Epoch, next)
	}
	if n := len(a.q.Pending); n > 0 && a.q.Pending[n-1].Root != s.Header.PrevRoot {
		return fmt.Errorf("anchor: epoch %d does not link to the queued epoch %d (prev_root %s, queued root %s): the log was re-sealed differently", s.Header.Epoch, a.q.Pending[n-1].Epoch, s.Header.PrevRoot, a.q.Pending[n-1].Root)
	}
	a.q.Pending = append(a.q.Pending, &Entry{Epoch: s.Header.Epoch, Root: s.Root, PrevRoot: s.Header.PrevRoot,
		FirstSeq: s.Header.FirstSeq, Count: s.Header.Count, Sealed: time.Unix(0, s.Header.Time), Queued: a.opts.Now(), State: StateQueued})
	return nil
}

// Window computes the unanchored window from the queue, given the number of
// events recorded in the log (0: unknown, only sealed epochs count).
func (q *Queue) Window(recorded uint64, now time.Time) recorder.AnchorWindow {
	var w recorder.AnchorWindow
	var covered uint64
	if n := len(q.Anchored); n > 0 {
		a := q.Anchored[n-1]
		w.LastConfirmed, w.ConfirmedAt, covered = &a.Epoch, &a.Confirmed, a.Events
	}
	w.Epochs = len(q.Pending)
	sealed := covered
	for _, e := range q.Pending {
		sealed = max(sealed, e.FirstSeq+e.Count)
	}
	w.Events = max(recorded, sealed) - covered
	if w.Events > 0 {
		switch {
		case w.ConfirmedAt != nil:
			w.Age = now.Sub(*w.ConfirmedAt)
		case len(q.Pending) > 0:
			w.Age = now.Sub(q.Pending[0].Sealed)
		}
		w.Age = max(w.Age, 0)
	}
	if len(q.Pending) > 0 {
		w.Oldest = max(now.Sub(q.Pending[0].Sealed), 0)
	}
	return w
}

var (
	errGap      = errors.New("anchor: epoch gap")
	errNotExist = os.ErrNotExist
)
