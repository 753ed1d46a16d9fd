// Package recorder implements AFR's flight recorder: every agent action
// becomes an evidence object — an envelope chained to its predecessor by
// SHA-256, committed to an RFC 6962 Merkle tree per epoch, with its eight
// semantic fields stored apart under a key-committing commitment and,
// optionally, AES-256-GCM encryption with a per-event key.
//
// The formats (deterministic CBOR records, epoch headers, payload frames,
// segment files, key derivation) are specified byte for byte in
// docs/SPEC.md; a third party can verify a log from that document alone.
//
// # Usage
//
//	r, err := recorder.Open("afr-data", recorder.Options{Recorder: "ops-1", Encrypt: true})
//	rc, err := r.Record(ctx, format.Event{Tool: "shell", Kind: format.KindToolCall, Payload: p})
//	err = r.Close() // seals the open epoch
//
// Many goroutines may call Record: a single writer path assigns gapless
// sequence numbers and the logical clock. Record returns once the event is
// durable under the chosen SyncPolicy. Sealed epochs are announced on
// Sealed() for the anchorer; anchoring never blocks Record.
//
// # Security
//
// The recorder host is trusted until it is compromised (time tc). Records
// acknowledged and anchored before tc cannot be edited, removed, reordered
// or forked without detection by the verifier. The master key never leaves
// the key directory; disclosing one event key reveals nothing about others.
//
// # Compatibility
//
// Open refuses a store written by a newer format version.
package recorder

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/internal/durable"

	"github.com/agentflightrecorder/afr/format"

	"github.com/agentflightrecorder/afr/recorder/segment"
)

// SyncPolicy selects when Record's data is made durable before it returns.
type SyncPolicy uint8

// Sync policies, from safest to fastest.
const (
	// SyncGroup (the default) fsyncs once for every group of concurrent
	// Record calls; each call returns after the fsync covering it. Survives
	// a machine crash.
	SyncGroup SyncPolicy = iota
	// SyncEvent fsyncs every event before Record returns. Survives a
	// machine crash; one fsync per event.
	SyncEvent
	// SyncWrite hands every event to the operating system (write(2)) before
	// Record returns, without fsync. Survives a crash of the process, not of
	// the machine.
	SyncWrite
	// SyncNone buffers in the process and writes when the buffer fills, or
	// on Flush/Seal/Close. Survives nothing in between, and announces sealed
	// epochs before they are written: for bulk imports and benchmarks.
	SyncNone
)

var syncNames = map[SyncPolicy]string{SyncGroup: "group", SyncEvent: "event", SyncWrite: "write", SyncNone: "none"}

func (p SyncPolicy) String() string { return syncNames[p] }

// ParseSyncPolicy parses "group", "event", "write" or "none".
func ParseSyncPolicy(s string) (SyncPolicy, error) {
	for p, n := range syncNames {
		if n == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("recorder: unknown sync policy %q (want group, event, write or none)", s)
}

// Options configure Open. Zero values give the documented defaults.
type Options struct {
	// Recorder is the operator/recorder id written into every record.
	// Required when creating a store; on reopen it must match or be empty.
	Recorder string
	// Session fixes the session id of a new store (random if zero).
	Session format.SessionID
	// Encrypt stores payloads encrypted (disclosure mode). Fixed at creation.
	Encrypt bool
	// EpochSize seals an epoch after this many events (default 100).
	EpochSize int
	// EpochMaxAge seals a non-empty epoch this long after its first event
	// (default 30s; negative disables time-based sealing).
	EpochMaxAge time.Duration
	// Sync is the durability policy (default SyncGroup).
	Sync SyncPolicy
	// GroupWindow is how long SyncGroup waits to gather more events before
	// an fsync (default 0: an fsync starts at once, and events arriving
	// during it are covered by the next).
	GroupWindow time.Duration
	// KeyDir holds the master key and epoch salts (default <dir>/keys). Keep
	// it apart from the log when the log is copied or handed out.
	KeyDir string
	// SegmentSize starts a new segment file past this size (default 64 MiB).
	SegmentSize int64
	// RepairTail makes Open cut damage of any kind at the end of a stream
	// (and report it in Recovery), not only a torn write. A machine crash
	// can leave such damage in unacknowledged writes; so can corruption of
	// acknowledged ones, which this then discards: verify a copy first.
	RepairTail bool
	// Now and Rand replace the clock and randomness source (tests).
	Now  func() time.Time
	Rand io.Reader
}

func (o *Options) setDefaults(dir string) {
	if o.EpochSize <= 0 {
		o.EpochSize = 100
	}
	if o.EpochMaxAge == 0 {
		o.EpochMaxAge = 30 * time.Second
	}
	if o.KeyDir == "" {
		o.KeyDir = filepath.Join(dir, "keys")
	}
	if o.SegmentSize <= 0 {
		o.SegmentSize = 64 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
}

// Receipt acknowledges a recorded event.
type Receipt struct {
	Seq    uint64        `json:"seq"`
	Clock  uint64        `json:"clock"`
	Epoch  uint64        `json:"epoch"`
	Digest format.Digest `json:"digest"`
}

// SealedEpoch announces a sealed, durable epoch.
type SealedEpoch struct {
	Header format.EpochHeader
	Root   format.Digest // R_t, the value to anchor
}

// Errors callers branch on.
var ErrClosed = errors.New("recorder: closed")

// Recorder appends events to a store. It is safe for concurrent use.
type Recorder struct {
	dir  string
	opts Options
	man  Manifest

	master []byte
	salts  *saltFile

	mu       sync.Mutex
	cond     *sync.Cond // signalled when durable advances or err is set
	err      error      // sticky: after a write error nothing more is accepted
	closed   bool
	records  *segment.Writer
	payloads *segment.Writer
	epochs   *segment.Writer
	next     uint64 // next sequence number
	durable  uint64 // events [0, durable) are durable under the policy
	clock    uint64
	last     format.Digest // digest of record next-1
	prevRoot format.Digest // R of the last sealed epoch
	open     *epochBuilder
	openedAt time.Time
	keys     *format.EventKeyDeriver // nil until the open epoch's key is loaded
	nonce    [format.NonceSize]byte  // random per Open; XORed with seq per event
	frameBuf []byte                  // scratch for payload frames
	envBuf   bytes.Buffer            // scratch for envelopes
	unsent   []sealed                // sealed, header not yet written or not yet durable
	recovery Recovery

	syncReq chan struct{}
	notify  *notifier
	done    chan struct{}
	wg      sync.WaitGroup
}

// Recovery reports what Open repaired after a crash.
type Recovery struct {
	Repairs         []segment.Repair // torn frames cut from segment tails
	DroppedRecords  uint64           // complete records without their payload (never acknowledged)
	DroppedPayloads uint64           // payloads without their record (never acknowledged)
	DroppedHeaders  uint64           // epoch headers past the last record
}

// Clean reports whether nothing had to be repaired.
func (r Recovery) Clean() bool {
	return len(r.Repairs) == 0 && r.DroppedRecords == 0 && r.DroppedPayloads == 0 && r.DroppedHeaders == 0
}

// Open opens or creates the store in dir. After a crash it cuts torn tails
// and writes that were never acknowledged, and reports them in Recovery().
func Open(dir string, opts Options) (*Recorder, error) {
	opts.setDefaults(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// Keys first, durable, then the manifest: a store that has a manifest
	// has its keys, and a missing key is an error, never silently replaced
	// (a new key would make every stored payload unreadable).
	if err := os.MkdirAll(opts.KeyDir, 0o700); err != nil {
		return nil, err
	}
	masterPath, saltPath := filepath.Join(opts.KeyDir, "master.key"), filepath.Join(opts.KeyDir, "epoch-salts")
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err == nil {
		for _, p := range []string{masterPath, saltPath} {
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("recorder: %s is an existing store but %s is missing: refusing to create new key material, which would make its payloads unreadable (hint: restore the key directory, or set Options.KeyDir)", dir, p)
			}
		}
	}
	master, err := loadOrCreateMaster(masterPath, opts.Rand)
	if err != nil {
		return nil, err
	}
	salts, err := openSaltFile(saltPath)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{opts.KeyDir, filepath.Dir(filepath.Clean(opts.KeyDir))} {
		if err := durable.SyncDir(d); err != nil {
			salts.close()
			return nil, err
		}
	}
	man, err := loadOrCreateManifest(dir, &opts)
	if err != nil {
		salts.close()
		return nil, err
	}
	r := &Recorder{dir: dir, opts: opts, man: *man, master: master, salts: salts,
		syncReq: make(chan struct{}, 1), done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	if _, err := io.ReadFull(opts.Rand, r.nonce[:]); err != nil {
		return nil, err
	}
	r.notify = newNotifier()
	if err := r.recover(); err != nil {
		r.notify.close()
		salts.close()
		r.closeStreams()
		return nil, err
	}
	if opts.Sync == SyncGroup {
		r.wg.Add(1)
		go r.syncLoop()
	}
	if opts.EpochMaxAge > 0 {
		r.wg.Add(1)
		go r.ageLoop()
	}
	return r, nil
}

// recover opens the three streams, cuts what was never acknowledged, checks
// the chain, and rebuilds the open epoch.
func (r *Recorder) recover() error {
	var headers []*format.EpochHeader
	var err error
	var reps []segment.Repair
	r.epochs, reps, err = r.openStream(filepath.Join(r.dir, "epochs"), "epochs", r.opts.SegmentSize, func(f segment.Frame) error {
		h, err := format.DecodeEpochHeader(f.Data)
		if err != nil {
			return fmt.Errorf("epoch header %d: %w", f.Index, err)
		}
		headers = append(headers, h)
		return nil
	})
	if err != nil {
		return r.openError(err)
	}
	r.recovery.Repairs = append(r.recovery.Repairs, reps...)

	var npay uint64
	r.payloads, reps, err = r.openStream(filepath.Join(r.dir, "payloads"), "payloads", r.opts.SegmentSize, func(segment.Frame) error {
		npay++
		return nil
	})
	if err != nil {
		return r.openError(err)
	}
	r.recovery.Repairs = append(r.recovery.Repairs, reps...)

	// Records: check sequence, chain and identity as we go; keep the digests
	// of records after the last sealed epoch to rebuild the open epoch.
	var sealedEnd uint64
	if n := len(headers); n > 0 {
		sealedEnd = headers[n-1].FirstSeq + headers[n-1].Count
	}
	var tail []format.Digest
	var tailClock []uint64
	var nrec uint64
	r.records, reps, err = r.openStream(filepath.Join(r.dir, "records"), "records", r.opts.SegmentSize, func(f segment.Frame) error {
		e, err := format.DecodeEnvelope(f.Data)
		if err != nil {
			return fmt.Errorf("record %d: %w", f.Index, err)
		}
		if e.Seq != f.Index || e.Prev != r.last || e.Session != r.man.Session || e.Recorder != r.man.Recorder {
			return fmt.Errorf("record %d: does not continue the chain (seq %d); the store is damaged: run afr verify", f.Index, e.Seq)
		}
		r.last = format.RecordDigest(f.Data)
		r.clock = e.Clock
		if f.Index >= sealedEnd {
			tail = append(tail, r.last)
			tailClock = append(tailClock, e.Clock)
		}
		nrec++
		return nil
	})
	if err != nil {
		return r.openError(err)
	}
	r.recovery.Repairs = append(r.recovery.Repairs, reps...)

	// An event is acknowledged only once both its payload and its record
	// are written, so the log ends at the shorter of the two streams.
	n := min(nrec, npay)
	if n < sealedEnd {
		// Headers are written after their records; a header past the last
		// record was never durable, hence never announced. Drop them and
		// scan again, so the open epoch is rebuilt from its records.
		for len(headers) > 0 && headers[len(headers)-1].FirstSeq+headers[len(headers)-1].Count > n {
			headers = headers[:len(headers)-1]
			r.recovery.DroppedHeaders++
		}
		if err := r.epochs.Truncate(uint64(len(headers))); err != nil {
			return err
		}
		r.closeStreams()
		r.last, r.clock = format.Digest{}, 0
		return r.recover()
	}
	if nrec > n {
		r.recovery.DroppedRecords = nrec - n
		if err := r.records.Truncate(n); err != nil {
			return err
		}
		cut := nrec - n
		tail, tailClock = tail[:uint64(len(tail))-cut], tailClock[:uint64(len(tailClock))-cut]
		if len(tail) > 0 {
			r.last, r.clock = tail[len(tail)-1], tailClock[len(tailClock)-1]
		} else if err := r.lastSealed(headers); err != nil {
			return err
		}
	}
	if npay > n {
		r.recovery.DroppedPayloads = npay - n
		if err := r.payloads.Truncate(n); err != nil {
			return err
		}
	}
	r.next, r.durable = n, n
	if len(headers) > 0 {
		root, err := headers[len(headers)-1].Root()
		if err != nil {
			return err
		}
		r.prevRoot = root
	}
	r.open = newEpochBuilder(uint64(len(headers)), sealedEnd)
	for _, d := range tail {
		r.open.add(d)
	}
	r.openedAt = r.opts.Now()
	// A crash between an epoch's last record and its header leaves a full
	// open epoch: seal it now.
	if r.open.count() >= uint64(r.opts.EpochSize) {
		if err := r.seal(); err != nil {
			return err
		}
		return r.persist(true)
	}
	return nil
}

// openStream opens one stream, cutting a corrupt tail when the caller
// asked for repair (Options.RepairTail).
func (r *Recorder) openStream(dir, kind string, size int64, visit func(segment.Frame) error) (*segment.Writer, []segment.Repair, error) {
	if r.opts.RepairTail {
		return segment.OpenCuttingCorruptTail(dir, kind, size, visit)
	}
	return segment.Open(dir, kind, size, visit)
}

func (r *Recorder) openError(err error) error {
	var corrupt *segment.CorruptError
	if errors.As(err, &corrupt) && !r.opts.RepairTail {
		return fmt.Errorf("recorder: open %s: %w (hint: a machine crash can leave damage in writes that were never acknowledged; verify a copy of the log with afr verify, then reopen with Options.RepairTail or afr seal --repair to cut the damaged tail)", r.dir, err)
	}
	return fmt.Errorf("recorder: open %s: %w", r.dir, err)
}

// lastSealed restores the chain head from the last sealed epoch when the
// open epoch turned out empty after cutting unacknowledged records.
func (r *Recorder) lastSealed(headers []*format.EpochHeader) error {
	if len(headers) == 0 {
		r.last, r.clock = format.Digest{}, 0
		return nil
	}
	h := headers[len(headers)-1]
	r.last = h.LastRecord
	// The clock of that record: read it back.
	var clock uint64
	err := segment.ReadAll(filepath.Join(r.dir, "records"), "records", func(f segment.Frame) error {
		if f.Index == h.FirstSeq+h.Count-1 {
			e, err := format.DecodeEnvelope(f.Data)
			if err != nil {
				return err
			}
			clock = e.Clock
		}
		return nil
	})
	r.clock = clock
	return err
}

func (r *Recorder) closeStreams() {
	for _, w := range []*segment.Writer{r.records, r.payloads, r.epochs} {
		if w != nil {
			w.Close()
		}
	}
	r.records, r.payloads, r.epochs = nil, nil, nil
}

// Recovery reports what Open had to repair.
func (r *Recorder) Recovery() Recovery { return r.recovery }

// Manifest returns the store's identity.
func (r *Recorder) Manifest() Manifest { return r.man }

// Sealed delivers sealed epochs, in order, once they are durable. Delivery
// never blocks Record: undelivered epochs queue in memory. The channel is
// closed by Close; epochs not yet received by then are in the store
// (ReadLog) and must be picked up from there.
func (r *Recorder) Sealed() <-chan SealedEpoch { return r.notify.out }

// Record appends ev and returns its receipt once it is durable under the
// sync policy. ctx bounds only the wait for durability (SyncGroup): an event
// whose wait is cancelled is still recorded.
func (r *Recorder) Record(ctx context.Context, ev format.Event) (Receipt, error) {
	// The envelope (kind, tool, group) is checked when it is encoded, before
	// anything is written; the payload here.
	buf := payloadBufs.Get().(*bytes.Buffer)
	defer payloadBufs.Put(buf)
	buf.Reset()
	// Encode from a pooled copy: handing &ev.Payload to the encoder would
	// move the whole event to the heap.
	p := payloadPool.Get().(*format.Payload)
	*p = ev.Payload
	err := format.EncodePayloadTo(buf, p)
	*p = format.Payload{}
	payloadPool.Put(p)
	if err != nil {
		return Receipt{}, err
	}

	r.mu.Lock()
	rc, err := r.append(&ev, buf.Bytes())
	if err != nil {
		r.mu.Unlock()
		return Receipt{}, err
	}
	switch r.opts.Sync {
	case SyncGroup:
		select {
		case r.syncReq <- struct{}{}:
		default:
		}
		err = r.waitDurable(ctx, rc.Seq)
	default:
		err = r.persist(false)
	}
	r.mu.Unlock()
	return rc, err
}

var (
	payloadBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	payloadPool = sync.Pool{New: func() any { return new(format.Payload) }}
)

// append writes one event; r.mu is held.
func (r *Recorder) append(ev *format.Event, plaintext []byte) (Receipt, error) {
	if r.closed {
		return Receipt{}, ErrClosed
	}
	if r.err != nil {
		return Receipt{}, r.err
	}
	if r.keys == nil {
		if err := r.openEpochKey(); err != nil {
			return Receipt{}, r.fail(err)
		}
	}
	seq := r.next
	k := r.keys.Derive(seq)
	nonce := r.nonce
	binary.BigEndian.PutUint64(nonce[4:], binary.BigEndian.Uint64(nonce[4:])^seq)
	frame, err := format.SealPayload(r.frameBuf[:0], &k, r.man.Session, seq, plaintext, r.man.Encrypted, nonce)
	if err != nil {
		return Receipt{}, r.fail(err)
	}
	r.frameBuf = frame
	clock := max(r.clock, ev.After) + 1
	now := r.opts.Now()
	env := format.Envelope{
		Version: format.Version, Recorder: r.man.Recorder, Session: r.man.Session,
		Seq: seq, Clock: clock, Group: ev.Group, Time: now.UnixNano(),
		Tool: ev.Tool, Kind: ev.Kind, Payload: format.PayloadFrameDigest(frame), Prev: r.last,
	}
	r.envBuf.Reset()
	if err := format.EncodeEnvelopeTo(&r.envBuf, &env); err != nil {
		return Receipt{}, err // nothing written yet: not sticky
	}
	enc := r.envBuf.Bytes()
	// Payload first: a record is never durable without its payload.
	if _, err := r.payloads.Append(frame); err != nil {
		return Receipt{}, r.fail(err)
	}
	if _, err := r.records.Append(enc); err != nil {
		return Receipt{}, r.fail(err)
	}
	d := format.RecordDigest(enc)
	if r.open.count() == 0 {
		r.openedAt = now
	}
	r.open.add(d)
	r.last, r.clock, r.next = d, clock, seq+1
	rc := Receipt{Seq: seq, Clock: clock, Epoch: r.open.epoch, Digest: d}
	if r.open.count() >= uint64(r.opts.EpochSize) {
		if err := r.seal(); err != nil {
			return Receipt{}, r.fail(err)
		}
	}
	return rc, nil
}

// openEpochKey loads or creates the open epoch's salt and derives its key;
// r.mu is held. Salts are created ahead in batches (saltFile), so this
// costs an HKDF and no I/O at most epoch boundaries.
func (r *Recorder) openEpochKey() error {
	salt, err := r.salts.getOrCreate(r.open.epoch, r.opts.Rand)
	if err != nil {
		return err
	}
	ek, err := format.EpochKey(r.master, salt, r.man.Session, r.open.epoch)
	if err != nil {
		return err
	}
	r.keys = format.NewEventKeyDeriver(ek)
	return nil
}

// fail makes a write error sticky: the streams may hold a partial event, so
// nothing more is accepted until the store is reopened (which repairs it).
func (r *Recorder) fail(err error) error {
	r.err = fmt.Errorf("recorder: write failed, reopen the store to recover: %w", err)
	r.cond.Broadcast()
	return r.err
}

// sealed is an epoch sealed in memory whose header is written to the
// epochs stream only once its records are durable (writeHeaders), and
// announced only once the header is durable too (advance): a crash never
// leaves a header without the records it covers, and an anchored root
// always has its header on disk.
type sealed struct {
	SealedEpoch
	enc     []byte // encoded header
	written bool   // appended to the epochs stream
}

func (s *sealed) end() uint64 { return s.Header.FirstSeq + s.Header.Count }

// seal closes the open epoch; r.mu is held.
func (r *Recorder) seal() error {
	b := r.open
	if b.count() == 0 {
		return nil
	}
	h := format.EpochHeader{
		Version: format.Version, Recorder: r.man.Recorder, Session: r.man.Session,
		Epoch: b.epoch, FirstSeq: b.firstSeq, Count: b.count(),
		MerkleRoot: b.tree.Root(), LastRecord: r.last, PrevRoot: r.prevRoot,
		Time: r.opts.Now().UnixNano(),
	}
	enc, err := format.EncodeEpochHeader(&h)
	if err != nil {
		return err
	}
	root := format.EpochRoot(enc)
	r.prevRoot = root
	r.unsent = append(r.unsent, sealed{SealedEpoch: SealedEpoch{Header: h, Root: root}, enc: enc})
	r.open = newEpochBuilder(b.epoch+1, r.next)
	r.keys = nil
	return nil
}

// persist makes everything appended so far durable to the level of the
// policy (full=true forces fsync), then announces sealed epochs; r.mu is held.
func (r *Recorder) persist(full bool) error {
	if r.err != nil {
		return r.err
	}
	policy := r.opts.Sync
	if full {
		policy = SyncEvent
	}
	if policy == SyncNone {
		// Nothing is durable under SyncNone, sealed epochs included: they
		// are announced at once rather than after a flush, which would put
		// write(2) calls on the hot path at every epoch boundary. A crash can
		// then lose an epoch that was already anchored (the verifier reports
		// the log as truncated); use another policy where that matters.
		if err := r.writeHeaders(r.next); err != nil {
			return r.fail(err)
		}
		r.advance(r.next)
		return nil
	}
	fsync := policy == SyncEvent || policy == SyncGroup
	files, err := r.flushData(fsync)
	if err == nil {
		err = syncFiles(files)
	}
	if err == nil {
		err = r.persistHeaders(r.next, fsync)
	}
	if err != nil {
		return r.fail(err)
	}
	r.advance(r.next)
	return nil
}

// flushData hands buffered payloads and records to the operating system
// and, if fsync is wanted, returns the files to fsync; r.mu is held.
func (r *Recorder) flushData(fsync bool) ([]*os.File, error) {
	var files []*os.File
	for _, w := range []*segment.Writer{r.payloads, r.records} {
		if err := w.Flush(); err != nil {
			return nil, err
		}
		files = append(files, w.File())
	}
	if !fsync {
		return nil, nil
	}
	if r.salts.dirty.Swap(false) {
		files = append(files, r.salts.f)
	}
	return files, nil
}

// writeHeaders appends the headers of sealed epochs whose records are all
// below upto (and so already durable); r.mu is held.
func (r *Recorder) writeHeaders(upto uint64) error {
	for i := range r.unsent {
		s := &r.unsent[i]
		if s.written {
			continue
		}
		if s.end() > upto {
			break
		}
		if _, err := r.epochs.Append(s.enc); err != nil {
			return err
		}
		s.written = true
	}
	return nil
}

// persistHeaders writes the headers of epochs whose records are durable
// below upto and makes them durable: written (and fsynced if asked) after
// their records, never before; r.mu is held.
func (r *Recorder) persistHeaders(upto uint64, fsync bool) error {
	if err := r.writeHeaders(upto); err != nil {
		return err
	}
	if fsync {
		return r.epochs.Sync() // a no-op when nothing was written since
	}
	return r.epochs.Flush()
}

// syncFiles fsyncs files in parallel. A file closed meanwhile by segment
// rotation was fsynced before it was closed.
func syncFiles(files []*os.File) error {
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// advance records that events [0, upto) are durable, announces the sealed
// epochs they complete, and wakes waiters; r.mu is held.
func (r *Recorder) advance(upto uint64) {
	if upto > r.durable {
		r.durable = upto
	}
	for len(r.unsent) > 0 && r.unsent[0].written && r.unsent[0].end() <= r.durable {
		r.notify.push(r.unsent[0].SealedEpoch)
		r.unsent = r.unsent[1:]
	}
	r.cond.Broadcast()
}

// waitDurable blocks until event seq is durable; r.mu is held.
func (r *Recorder) waitDurable(ctx context.Context, seq uint64) error {
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() {
			r.mu.Lock()
			r.cond.Broadcast()
			r.mu.Unlock()
		})
		defer stop()
	}
	for r.durable <= seq && r.err == nil {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("recorder: waiting for durability of event %d: %w", seq, err)
		}
		r.cond.Wait()
	}
	return r.err
}

// syncLoop is SyncGroup's committer: one fsync covers every event appended
// before it started.
func (r *Recorder) syncLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.done:
			return
		case <-r.syncReq:
		}
		if r.opts.GroupWindow > 0 {
			time.Sleep(r.opts.GroupWindow)
		}
		r.mu.Lock()
		if r.durable >= r.next || r.err != nil || r.closed {
			r.mu.Unlock()
			continue
		}
		// Flush under the lock, fsync without it: writers keep appending
		// during the fsync, and the next round covers them all at once.
		// Headers follow their records (persistHeaders): at an epoch
		// boundary that is a second, small fsync, under the lock.
		files, err := r.flushData(true)
		target := r.next
		r.mu.Unlock()
		if err == nil {
			err = syncFiles(files)
		}
		r.mu.Lock()
		if err == nil {
			err = r.persistHeaders(target, true)
		}
		if err != nil {
			r.fail(err) // sticky; wakes the waiters
		} else {
			r.advance(target)
		}
		r.mu.Unlock()
	}
}

// ageLoop seals an epoch EpochMaxAge after its first event.
func (r *Recorder) ageLoop() {
	defer r.wg.Done()
	tick := time.NewTicker(min(r.opts.EpochMaxAge/4+1, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-tick.C:
		}
		r.mu.Lock()
		if !r.closed && r.err == nil && r.open.count() > 0 && r.opts.Now().Sub(r.openedAt) >= r.opts.EpochMaxAge {
			if err := r.seal(); err != nil {
				r.fail(err)
			} else {
				r.persist(r.opts.Sync != SyncNone && r.opts.Sync != SyncWrite)
			}
		}
		r.mu.Unlock()
	}
}

// Seal seals the open epoch now (if it holds any event) and makes it
// durable. It returns the sealed epoch, or ok=false if there was none.
func (r *Recorder) Seal() (s SealedEpoch, ok bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return s, false, ErrClosed
	}
	if r.err != nil {
		return s, false, r.err
	}
	if r.open.count() == 0 {
		return s, false, nil
	}
	if err := r.seal(); err != nil {
		return s, false, r.fail(err)
	}
	s = r.unsent[len(r.unsent)-1].SealedEpoch
	return s, true, r.persist(true)
}

// Flush makes every recorded event durable (fsync), whatever the policy.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	return r.persist(true)
}

// Position is a snapshot of where the recorder stands.
type Position struct {
	Next       uint64        `json:"next_seq"`
	Durable    uint64        `json:"durable"`
	OpenEpoch  uint64        `json:"open_epoch"`
	OpenEvents uint64        `json:"open_events"`
	LastRecord format.Digest `json:"last_record"`
	LastRoot   format.Digest `json:"last_root"`
}

// Position returns the recorder's current position.
func (r *Recorder) Position() Position {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Position{Next: r.next, Durable: r.durable, OpenEpoch: r.open.epoch, OpenEvents: r.open.count(), LastRecord: r.last, LastRoot: r.prevRoot}
}

// Close seals the open epoch, makes everything durable and closes the
// store. Sealed() is closed too.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	var err error
	if r.err == nil {
		if err = r.seal(); err != nil {
			err = r.fail(err)
		} else {
			err = r.persist(true)
		}
	}
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
	close(r.done)
	r.wg.Wait()
	r.notify.close()
	for _, w := range []*segment.Writer{r.payloads, r.records, r.epochs} {
		err = errors.Join(err, w.Close())
	}
	return errors.Join(err, r.salts.close())
}

// Manifest identifies a store. It is the file MANIFEST (JSON) in the store
// directory; see docs/SPEC.md, "Store layout".
type Manifest struct {
	Format    string           `json:"format"` // "afr-log"
	Version   int              `json:"version"`
	Recorder  string           `json:"recorder"`
	Session   format.SessionID `json:"session"`
	Encrypted bool             `json:"encrypted"`
	Created   time.Time        `json:"created"`
}

const manifestFormat = "afr-log"

// ReadManifest reads and checks the manifest of the store in dir.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("recorder: %s/MANIFEST: %w", dir, err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("recorder: %s is not an AFR log (format %q)", dir, m.Format)
	}
	if m.Version > format.Version {
		return nil, fmt.Errorf("recorder: %s: %w: version %d, this build reads up to %d (hint: upgrade afr)", dir, format.ErrNewerVersion, m.Version, format.Version)
	}
	if m.Version < 1 {
		return nil, fmt.Errorf("recorder: %s/MANIFEST: version %d", dir, m.Version)
	}
	return &m, nil
}

func loadOrCreateManifest(dir string, o *Options) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err == nil {
		if o.Recorder != "" && o.Recorder != m.Recorder {
			return nil, fmt.Errorf("recorder: %s belongs to recorder %q, not %q", dir, m.Recorder, o.Recorder)
		}
		return m, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if o.Recorder == "" {
		return nil, fmt.Errorf("recorder: creating %s: Options.Recorder (the operator id) is required", dir)
	}
	if len(o.Recorder) > format.MaxStringLength {
		return nil, fmt.Errorf("recorder: recorder id over %d bytes", format.MaxStringLength)
	}
	m = &Manifest{Format: manifestFormat, Version: format.Version, Recorder: o.Recorder, Session: o.Session, Encrypted: o.Encrypt, Created: o.Now().UTC()}
	if m.Session == (format.SessionID{}) {
		if _, err := io.ReadFull(o.Rand, m.Session[:]); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return m, durable.WriteFile(filepath.Join(dir, "MANIFEST"), append(b, '\n'), 0o600)
}

// epochBuilder accumulates the open epoch's tree incrementally, so sealing
// costs a few hashes however large the epoch (no latency spike at epoch
// boundaries).
type epochBuilder struct {
	epoch    uint64
	firstSeq uint64
	tree     *format.Tree
}

func newEpochBuilder(epoch, firstSeq uint64) *epochBuilder {
	return &epochBuilder{epoch: epoch, firstSeq: firstSeq, tree: format.NewTree()}
}

func (b *epochBuilder) add(d format.Digest) { b.tree.Append(d) }

func (b *epochBuilder) count() uint64 { return b.tree.Size() }
