package anchor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// Publication says where a Batcher publishes the entries of its batches.
type Publication int

const (
	// PublishFile keeps the entries in the batches file only and anchors
	// each batch with anchor(0, b, root, prevRoot): 30,486 gas per batch,
	// whatever its size. The operator publishes the file to verifiers.
	PublishFile Publication = iota
	// PublishEvents also emits the entries in the batch transaction's
	// BatchContents event (anchorBatch), so that anyone reads them from
	// the chain: about 4,000 gas more per entry (EIP-7623's calldata floor).
	PublishEvents
)

// DefaultMaxEntries is a Batcher's default bound on the entries of a batch.
// With PublishEvents a batch of 1,000 entries is a transaction of ~104 KB,
// under the 128 KB that nodes accept by default.
const DefaultMaxEntries = 1000

// MaxEventEntries bounds the entries of a batch with PublishEvents: 104
// bytes each, a larger batch's transaction is over the 128 KB that nodes
// (go-ethereum's transaction pool, anvil) accept.
const MaxEventEntries = 1200

// BatchOptions configure a Batcher.
type BatchOptions struct {
	// Options are the chain, the operator key, the confirmation depth and
	// the fault handling, as for an Anchorer. Options.Position is not used:
	// each log's position is given with it (LogSource).
	Options
	// BatchesFile is the operator's batches file (docs/SPEC.md, "Batches
	// file"; required): every batch is appended to it, and synced, before
	// it is submitted. The Batcher's queue is BatchesFile + ".queue.json".
	BatchesFile string
	// Publish is where the entries are published besides the file.
	Publish Publication
	// MaxEntries bounds the entries of one batch (default
	// DefaultMaxEntries, at most format.MaxBatchEntries).
	MaxEntries int
	// MaxWait is how long a sealed epoch may wait for others before a batch
	// is cut without MaxEntries epochs. Zero cuts a batch as soon as no
	// batch is in flight: the epochs sealed while the previous batch was
	// being mined go together.
	MaxWait time.Duration
}

// LogSource is one log a Batcher anchors: its directory and, when a
// recorder of this process writes it, the recorder's Sealed channel and
// Position.
type LogSource struct {
	Dir string
	// Sealed delivers the epochs the recorder seals (Recorder.Sealed); nil
	// when another process writes the log (SyncLogs reads them from disk).
	Sealed <-chan recorder.SealedEpoch
	// Position, when set, makes Drain wait for every epoch the recorder
	// has sealed so far.
	Position func() recorder.Position
}

// Batcher anchors the sealed epochs of many logs of one operator in
// aggregate batches (docs/SPEC.md, "Aggregate batches"): each batch is one
// transaction committing the epochs that waited since the previous batch,
// across all logs, as epoch b of the operator's batch chain (log id 0). It
// is the Anchorer's submitter — the same queue file format and the same
// fault handling (RPC loss, stuck transactions, reorgs, nonce gaps, another
// writer of the batch chain) — over batches instead of one log's epochs.
//
// Its durable state is the logs on disk (the epochs not yet in a batch),
// the batches file (what each batch holds: written before the batch is
// submitted) and the queue file (the batch transactions). After a crash it
// resumes a last line of the batches file that was never anchored instead
// of building another batch with that number, and reads the epochs sealed
// since from the logs.
//
// Its methods are safe for concurrent use; Run is called once.
type Batcher struct {
	*submitter
	file    string
	publish Publication
	max     int
	maxWait time.Duration
	in      chan recorder.SealedEpoch // the added logs' Sealed channels, merged
	done    chan struct{}             // closed by Close: stops the merging
	once    sync.Once

	// Guarded by submitter.mu:
	logs     map[format.Digest]*LogSource
	tips     map[format.Digest]*logTip      // per log id, what the batches (file and waiting) hold
	waiting  []waitingEntry                 // sealed epochs not yet in a batch, in arrival order
	contents map[uint64][]format.BatchEntry // the entries of batches not yet confirmed
	flush    int                            // Drain calls in progress: batches are cut without waiting
}

// logTip is how far a log's epochs are in batches or waiting for one.
type logTip struct {
	next   uint64        // the log's next epoch to batch
	last   format.Digest // the root of epoch next − 1
	events uint64        // events covered through epoch next − 1 (when its header was read)
}

type waitingEntry struct {
	entry format.BatchEntry
	since time.Time
}

// OpenBatcher opens (or creates) the batch queue and the batches file of
// opts.BatchesFile and checks them against each other and the chain: a
// queue of another chain, contract or operator, or a batches file that is
// not one chain of batches (numbers 0, 1, … each linked to the previous)
// agreeing with the queue, is an error. A last line of the batches file
// that the queue does not hold yet (written, then the process stopped
// before its submission) is queued for submission as it is. Logs are then
// added with AddLog.
func OpenBatcher(ctx context.Context, c chain.Client, opts BatchOptions) (*Batcher, error) {
	if opts.BatchesFile == "" {
		return nil, errors.New("anchor: BatchOptions.BatchesFile is required")
	}
	switch {
	case opts.MaxEntries <= 0:
		opts.MaxEntries = DefaultMaxEntries
	case opts.MaxEntries > format.MaxBatchEntries:
		return nil, fmt.Errorf("anchor: BatchOptions.MaxEntries %d is over %d", opts.MaxEntries, format.MaxBatchEntries)
	}
	switch {
	case opts.Publish != PublishFile && opts.Publish != PublishEvents:
		return nil, fmt.Errorf("anchor: BatchOptions.Publish %d is not PublishFile or PublishEvents", opts.Publish)
	case opts.Publish == PublishEvents && opts.MaxEntries > MaxEventEntries:
		return nil, fmt.Errorf("anchor: BatchOptions.MaxEntries %d with PublishEvents: a batch of over %d entries makes a transaction larger than the 128 KB nodes accept", opts.MaxEntries, MaxEventEntries)
	}
	s, err := newSubmitter(ctx, c, opts.Options, format.Digest{}, "batch", opts.BatchesFile+".queue.json")
	if err != nil {
		return nil, err
	}
	b := &Batcher{submitter: s, file: opts.BatchesFile, publish: opts.Publish, max: opts.MaxEntries, maxWait: opts.MaxWait,
		in: make(chan recorder.SealedEpoch), done: make(chan struct{}),
		logs: map[format.Digest]*LogSource{}, tips: map[format.Digest]*logTip{}, contents: map[uint64][]format.BatchEntry{}}
	s.data = func(run []*Entry) ([]byte, error) { return b.calldata(run[0]) }
	s.rebuild = b.rebuild
	s.maxRun = 1
	if err := b.load(); err != nil {
		return nil, err
	}
	return b, nil
}

// load reads the batches file, checks it against the queue, queues its
// unanchored last line and learns where each log's epochs stand.
func (b *Batcher) load() error {
	raw, err := os.ReadFile(b.file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("anchor: %w", err)
	}
	if n := bytes.LastIndexByte(raw, '\n'); len(raw) > 0 && n != len(raw)-1 {
		// A line torn by a crash was never synced, so never submitted: cut
		// it, or the next line would be appended to it.
		if err := os.Truncate(b.file, int64(n+1)); err != nil {
			return fmt.Errorf("anchor: cutting the torn last line of %s: %w", b.file, err)
		}
		raw = raw[:n+1]
	}
	lines, err := format.ParseBatches(raw)
	if err != nil {
		return fmt.Errorf("anchor: %s: %w", b.file, err)
	}
	var prev format.Digest
	for i, l := range lines {
		if l.Number != uint64(i) || l.PrevRoot != prev {
			return fmt.Errorf("anchor: %s is not one chain of batches: line %d holds batch %d (back-pointer %s) where batch %d (back-pointer %s) comes next "+
				"(hint: one Batcher, and so one batches file, per operator key)", b.file, i+1, l.Number, l.PrevRoot, i, prev)
		}
		prev = l.Root
		for _, e := range l.Entries {
			t := b.tips[e.Log]
			if t == nil {
				t = &logTip{}
				b.tips[e.Log] = t
			}
			if e.Epoch >= t.next {
				t.next, t.last = e.Epoch+1, e.Root
			}
		}
	}
	// The queue's entries are lines trimmed, trimmed + 1, … of the file.
	trimmed := b.q.Trimmed
	if queued := trimmed + uint64(len(b.q.Anchored)+len(b.q.Pending)); queued > uint64(len(lines)) {
		return fmt.Errorf("anchor: %s.queue.json holds %d batches, %s only %d: the batches file lost lines (hint: restore it; it is what verifiers read)", b.file, queued, b.file, len(lines))
	}
	if trimmed > 0 && lines[trimmed-1].Root != b.q.TrimmedRoot {
		return fmt.Errorf("anchor: batch %d: the queue holds root %s, %s %s", trimmed-1, b.q.TrimmedRoot, b.file, lines[trimmed-1].Root)
	}
	for i, a := range b.q.Anchored {
		if l := lines[trimmed+uint64(i)]; l.Root != a.Root {
			return fmt.Errorf("anchor: batch %d: the queue holds root %s, %s %s", a.Epoch, a.Root, b.file, l.Root)
		}
	}
	queued := int(trimmed) + len(b.q.Anchored)
	for _, e := range b.q.Pending {
		l := lines[queued]
		if l.Root != e.Root {
			return fmt.Errorf("anchor: batch %d: the queue holds root %s, %s %s", e.Epoch, e.Root, b.file, l.Root)
		}
		b.contents[e.Epoch] = l.Entries
		queued++
	}
	for _, l := range lines[queued:] {
		b.opts.Logf("anchor: batch %d (%d epochs) is in %s but was never submitted: submitting it", l.Number, len(l.Entries), b.file)
		b.q.Pending = append(b.q.Pending, batchEntry(l, b.opts.Now()))
		b.contents[l.Number] = l.Entries
	}
	if len(lines) > queued {
		return b.persistLocked()
	}
	return nil
}

// AddLog adds a log to anchor and queues its sealed epochs that are in no
// batch yet, from the log on disk. It returns the log's id. A log whose
// epochs do not continue the ones in the batches file (re-sealed
// differently) is an error.
func (b *Batcher) AddLog(src LogSource) (format.Digest, error) {
	id, err := LogIDOf(src.Dir)
	if err != nil {
		return format.Digest{}, err
	}
	b.mu.Lock()
	if _, dup := b.logs[id]; dup {
		b.mu.Unlock()
		return format.Digest{}, fmt.Errorf("anchor: log %s (%s) is added twice", id, src.Dir)
	}
	l := src
	b.logs[id] = &l
	if b.tips[id] == nil {
		b.tips[id] = &logTip{}
	}
	b.mu.Unlock()
	if err := b.syncLog(id); err != nil {
		return format.Digest{}, err
	}
	if src.Sealed != nil {
		go b.forward(src.Sealed)
	}
	return id, nil
}

// forward passes a log's sealed epochs to Run until the channel closes or
// the Batcher does.
func (b *Batcher) forward(sealed <-chan recorder.SealedEpoch) {
	for {
		select {
		case s, ok := <-sealed:
			if !ok {
				return
			}
			select {
			case b.in <- s:
			case <-b.done:
				return
			}
		case <-b.done:
			return
		}
	}
}

// SyncLogs queues the sealed epochs of every added log that are on disk
// but in no batch yet (written by another process), and returns how many.
func (b *Batcher) SyncLogs() (int, error) {
	b.mu.Lock()
	ids := make([]format.Digest, 0, len(b.logs))
	for id := range b.logs {
		ids = append(ids, id)
	}
	before := len(b.waiting)
	b.mu.Unlock()
	for _, id := range ids {
		if err := b.syncLog(id); err != nil {
			return 0, err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiting) - before, nil
}

// syncLog queues the epochs of log id on disk that are not in a batch or
// waiting, and notes how many events the batched ones cover.
func (b *Batcher) syncLog(id format.Digest) error {
	b.mu.Lock()
	dir, next := b.logs[id].Dir, b.tips[id].next
	b.mu.Unlock()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		return err
	}
	var sealed []recorder.SealedEpoch
	var covered uint64
	err = l.Epochs(func(t uint64, raw []byte) error {
		if t+1 < next {
			return nil
		}
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		if t+1 == next {
			covered = h.FirstSeq + h.Count
			return nil
		}
		sealed = append(sealed, recorder.SealedEpoch{Header: *h, Root: format.EpochRoot(raw)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("anchor: reading the epochs of %s: %w", dir, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.tips[id]; t.next == next {
		t.events = max(t.events, covered)
	}
	for _, s := range sealed {
		if _, err := b.enqueueLocked(s); err != nil {
			return err
		}
	}
	return nil
}

// Enqueue queues a sealed epoch of an added log for the next batch.
// Epochs already in a batch or waiting are ignored; an epoch after a gap
// makes the Batcher read the missing headers from the log first.
func (b *Batcher) Enqueue(s recorder.SealedEpoch) error {
	b.mu.Lock()
	id, err := b.enqueueLocked(s)
	b.mu.Unlock()
	if errors.Is(err, errGap) {
		if err = b.syncLog(id); err == nil {
			b.mu.Lock()
			_, err = b.enqueueLocked(s)
			b.mu.Unlock()
		}
	}
	return err
}

func (b *Batcher) enqueueLocked(s recorder.SealedEpoch) (format.Digest, error) {
	h := s.Header
	id := format.LogID(h.Recorder, h.Session)
	if b.logs[id] == nil {
		return id, fmt.Errorf("anchor: epoch %d of log %s (recorder %q): the log was not added to this Batcher (hint: AddLog)", h.Epoch, id, h.Recorder)
	}
	t := b.tips[id]
	switch {
	case h.Epoch < t.next:
		return id, nil
	case h.Epoch > t.next:
		return id, fmt.Errorf("%w: epoch %d of log %s arrived, epoch %d expected", errGap, h.Epoch, id, t.next)
	case t.next > 0 && h.PrevRoot != t.last:
		return id, fmt.Errorf("anchor: epoch %d of log %s does not link to its epoch %d in the batches (prev_root %s, batched root %s): the log was re-sealed differently",
			h.Epoch, id, h.Epoch-1, h.PrevRoot, t.last)
	}
	b.waiting = append(b.waiting, waitingEntry{format.BatchEntry{Log: id, Epoch: h.Epoch, Root: s.Root, PrevRoot: h.PrevRoot}, b.opts.Now()})
	t.next, t.last, t.events = h.Epoch+1, s.Root, h.FirstSeq+h.Count
	return id, nil
}

// Run anchors until ctx is done or Close is called (returning nil), or a
// fatal error (*ForeignAnchorError of the batch chain, *QueueCorruptError,
// or a failure to write the queue or the batches file). Sealed epochs of
// the added logs are queued as they come; batches are cut and submitted
// one at a time.
func (b *Batcher) Run(ctx context.Context) error {
	return b.run(ctx, b.in, func(eps []recorder.SealedEpoch) error {
		for _, ep := range eps {
			if err := b.Enqueue(ep); err != nil {
				return err
			}
		}
		return nil
	}, b.cut)
}

// Drain cuts batches without waiting (MaxWait) and waits until every epoch
// queued so far — with LogSource.Position, every epoch those recorders have
// sealed — is in a confirmed batch, or Run stops, or ctx ends.
func (b *Batcher) Drain(ctx context.Context) error {
	b.mu.Lock()
	b.flush++
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.flush--
		b.mu.Unlock()
	}()
	return b.drain(ctx, func() bool {
		if len(b.waiting) > 0 {
			return false
		}
		for id, l := range b.logs {
			if l.Position != nil {
				if p := l.Position(); b.tips[id].events < p.Next-p.OpenEvents {
					return false
				}
			}
		}
		return true
	})
}

// Close stops a running Run and the reading of the logs' Sealed channels.
func (b *Batcher) Close() {
	b.once.Do(func() { close(b.done) })
	b.submitter.Close()
}

// Waiting returns how many sealed epochs wait for a batch.
func (b *Batcher) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiting)
}

// cut makes the next batch when one is due: epochs wait, no batch is in
// flight (every queued batch is mined), and MaxEntries epochs wait, the
// oldest has waited MaxWait, or Drain asks. The batch is appended to the
// batches file, synced, then queued.
func (b *Batcher) cut() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiting) == 0 {
		return nil
	}
	for _, e := range b.q.Pending {
		if e.State != StateMined {
			return nil
		}
	}
	if b.flush == 0 && len(b.waiting) < b.max && b.opts.Now().Sub(b.waiting[0].since) < b.maxWait {
		return nil
	}
	n := min(len(b.waiting), b.max)
	for k := range b.contents {
		if len(b.q.Pending) == 0 || k < b.q.Pending[0].Epoch {
			delete(b.contents, k) // confirmed: calldata reads it from the file if a reorg sends it back
		}
	}
	entries := make([]format.BatchEntry, n)
	for i := range entries {
		entries[i] = b.waiting[i].entry
	}
	number := b.q.next()
	prev := b.q.lastRoot()
	root, err := format.AppendBatch(b.file, number, prev, entries)
	if err != nil {
		return fmt.Errorf("%w: appending batch %d to %s: %w", errPersist, number, b.file, err)
	}
	now := b.opts.Now()
	b.q.Pending = append(b.q.Pending, &Entry{Epoch: number, Root: root, PrevRoot: prev, Count: uint64(n),
		Sealed: b.waiting[0].since, Queued: now, State: StateQueued})
	b.contents[number] = entries
	b.waiting = b.waiting[n:]
	if err := b.persistLocked(); err != nil {
		return fmt.Errorf("%w: %w", errPersist, err)
	}
	b.opts.Logf("anchor: batch %d: %d epochs, root %s", number, n, root)
	return nil
}

// batchEntry is the queued entry of a line of the batches file.
func batchEntry(l format.Batch, now time.Time) *Entry {
	return &Entry{Epoch: l.Number, Root: l.Root, PrevRoot: l.PrevRoot, Count: uint64(len(l.Entries)), Sealed: now, Queued: now, State: StateQueued}
}

// rebuild is the Batcher's submitter.rebuild: the entries of batches from
// to to − 1, read from the batches file.
func (b *Batcher) rebuild(from, to uint64) ([]*Entry, error) {
	lines, err := format.ReadBatchesFile(b.file)
	if err != nil {
		return nil, err
	}
	var es []*Entry
	for _, l := range lines[min(from, uint64(len(lines))):min(to, uint64(len(lines)))] {
		es = append(es, batchEntry(l, b.opts.Now()))
	}
	return es, nil
}

// calldata is the anchor transaction of batch e: anchor(0, …), or
// anchorBatch with its entries.
func (b *Batcher) calldata(e *Entry) ([]byte, error) {
	if b.publish == PublishFile {
		return b.abi.PackAnchor([32]byte{}, e.Epoch, e.Root, e.PrevRoot), nil
	}
	b.mu.Lock()
	entries := b.contents[e.Epoch]
	b.mu.Unlock()
	if entries == nil {
		// A confirmed batch sent back by a deep reorg: read it again.
		lines, err := format.ReadBatchesFile(b.file)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			if l.Number == e.Epoch && l.Root == e.Root {
				entries = l.Entries
			}
		}
		if entries == nil {
			return nil, fmt.Errorf("%w: batch %d is not in %s", errPersist, e.Epoch, b.file)
		}
	}
	return b.abi.PackAnchorBatch(e.Epoch, e.Root, e.PrevRoot, format.EncodeBatchEntries(entries)), nil
}
