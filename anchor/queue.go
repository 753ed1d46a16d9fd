package anchor

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
// anchor several epochs (field "run"), version 4 the summary of the
// confirmed epochs the file no longer lists (fields "trimmed",
// "trimmed_root", "trimmed_events"); older files are read, and rewritten
// as version 4, by an anchorer of their log.
const (
	QueueFormat  = "afr-anchor-queue"
	QueueVersion = 4
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
// directory, rewritten atomically at every state change. It stays bounded:
// of the confirmed anchors it lists the last Options.KeepAnchored, and
// summarises the ones before them by their number and the last one's root
// and events.
type Queue struct {
	Format   string         `json:"format"`
	Version  int            `json:"version"`
	ChainID  uint64         `json:"chain_id"`
	Contract common.Address `json:"contract"`
	Operator common.Address `json:"operator"`
	// Log is the log id the epochs are anchored under (zero in a version 1
	// file, which predates log ids).
	Log format.Digest `json:"log"`
	// Trimmed is the number of confirmed epochs, 0 to Trimmed − 1, before
	// the first of Anchored, that the file no longer lists; TrimmedRoot is
	// the root of epoch Trimmed − 1 and TrimmedEvents its events_through
	// (all zero when Trimmed is 0; always so before version 4).
	Trimmed       uint64        `json:"trimmed"`
	TrimmedRoot   format.Digest `json:"trimmed_root"`
	TrimmedEvents uint64        `json:"trimmed_events"`
	// Anchored lists the confirmed anchors after them in epoch order
	// (Anchored[i] is epoch Trimmed + i); Pending the epochs after them, in
	// order.
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
	if err := q.checkEpochs(); err != nil {
		return nil, fmt.Errorf("anchor: %s: %w", path, err)
	}
	if err := q.checkRuns(); err != nil {
		return nil, fmt.Errorf("anchor: %s: %w", path, err)
	}
	return &q, nil
}

// checkEpochs checks the summary of the trimmed epochs and that the
// anchored and pending entries are the epochs after them, one each, in
// order: a Batcher checks its batches file by these positions.
func (q *Queue) checkEpochs() error {
	switch {
	case q.Version < 4 && (q.Trimmed != 0 || q.TrimmedRoot != format.Digest{} || q.TrimmedEvents != 0):
		return fmt.Errorf("version %d holds the version 4 fields trimmed, trimmed_root, trimmed_events", q.Version)
	case q.Trimmed == 0 && (q.TrimmedRoot != format.Digest{} || q.TrimmedEvents != 0):
		return errors.New("trimmed_root or trimmed_events set with trimmed 0")
	case q.Trimmed > 0 && len(q.Anchored) > 0 && q.Anchored[0].PrevRoot != q.TrimmedRoot:
		return fmt.Errorf("epoch %d: prev_root %s, trimmed_root %s", q.Trimmed, q.Anchored[0].PrevRoot, q.TrimmedRoot)
	}
	want := q.Trimmed
	for _, a := range q.Anchored {
		if a.Epoch != want {
			return fmt.Errorf("anchored epoch %d where epoch %d comes next", a.Epoch, want)
		}
		want++
	}
	for _, e := range q.Pending {
		if e.Epoch != want {
			return fmt.Errorf("pending epoch %d where epoch %d comes next", e.Epoch, want)
		}
		want++
	}
	return nil
}

// Confirmed is the number of confirmed epochs: the trimmed ones and the
// ones Anchored lists.
func (q Queue) Confirmed() uint64 { return q.Trimmed + uint64(len(q.Anchored)) }

// covered is the number of events the confirmed epochs cover.
func (q *Queue) covered() uint64 {
	if n := len(q.Anchored); n > 0 {
		return q.Anchored[n-1].Events
	}
	return q.TrimmedEvents
}

// lastRoot is the root of the last queued epoch, confirmed or pending (zero
// when there is none).
func (q *Queue) lastRoot() format.Digest {
	if n := len(q.Pending); n > 0 {
		return q.Pending[n-1].Root
	}
	if n := len(q.Anchored); n > 0 {
		return q.Anchored[n-1].Root
	}
	return q.TrimmedRoot
}

// trim summarises the confirmed anchors before the last keep (at least 1).
func (q *Queue) trim(keep int) {
	keep = max(keep, 1)
	n := len(q.Anchored) - keep
	if n <= 0 {
		return
	}
	last := q.Anchored[n-1]
	q.Trimmed, q.TrimmedRoot, q.TrimmedEvents = last.Epoch+1, last.Root, last.Events
	q.Anchored = slices.Clone(q.Anchored[n:])
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
	return q.Confirmed()
}

// SyncLog queues the sealed epochs of the log on disk that are not queued
// yet, and returns how many it added.
func (a *Anchorer) SyncLog() (int, error) {
	a.mu.Lock()
	next := a.q.next()
	a.mu.Unlock()
	eps, err := readSealed(a.dir, next, math.MaxUint64)
	if err != nil {
		return 0, err
	}
	return a.enqueue(eps)
}

// readSealed reads the sealed epochs from to to − 1 (as far as there are)
// of the log in dir from their headers.
func readSealed(dir string, from, to uint64) ([]recorder.SealedEpoch, error) {
	l, err := recorder.OpenLog(dir)
	if err != nil {
		return nil, err
	}
	var eps []recorder.SealedEpoch
	err = l.Epochs(func(t uint64, raw []byte) error {
		if t < from || t >= to {
			return nil
		}
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		eps = append(eps, recorder.SealedEpoch{Header: *h, Root: format.EpochRoot(raw)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("anchor: reading epochs: %w", err)
	}
	return eps, nil
}

// rebuild is the Anchorer's submitter.rebuild: the entries of epochs from
// to to − 1, read from the log's epoch headers.
func (a *Anchorer) rebuild(from, to uint64) ([]*Entry, error) {
	eps, err := readSealed(a.dir, from, to)
	if err != nil {
		return nil, err
	}
	es := make([]*Entry, len(eps))
	for i, s := range eps {
		es[i] = newEntry(s, a.opts.Now())
	}
	return es, nil
}

// newEntry is the queued entry of a sealed epoch.
func newEntry(s recorder.SealedEpoch, now time.Time) *Entry {
	return &Entry{Epoch: s.Header.Epoch, Root: s.Root, PrevRoot: s.Header.PrevRoot,
		FirstSeq: s.Header.FirstSeq, Count: s.Header.Count, Sealed: time.Unix(0, s.Header.Time), Queued: now, State: StateQueued}
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
	if before == 0 {
		a.kickLocked()
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
	a.q.Pending = append(a.q.Pending, newEntry(s, a.opts.Now()))
	return nil
}

// Window computes the unanchored window from the queue, given the number of
// events recorded in the log (0: unknown, only sealed epochs count).
func (q *Queue) Window(recorded uint64, now time.Time) recorder.AnchorWindow {
	var w recorder.AnchorWindow
	covered := q.covered()
	if n := len(q.Anchored); n > 0 {
		a := q.Anchored[n-1]
		w.LastConfirmed, w.ConfirmedAt = &a.Epoch, &a.Confirmed
	} else if q.Trimmed > 0 {
		last := q.Trimmed - 1
		w.LastConfirmed = &last
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
