// Package recorder implements AFR's flight recorder: every agent action
// becomes an evidence object — an envelope chained to its predecessor by
// SHA-256, committed to an RFC 6962 Merkle tree per epoch, with its eight
// semantic fields stored apart under a key-committing commitment and,
// optionally, encryption with a per-event key (ChaCha20-Poly1305 under a key
// commitment; AES-256-GCM in logs of format version 1).
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
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/internal/durable"
)

// Options configure Open. Zero values give the documented defaults.
type Options struct {
	// Recorder is the operator/recorder id written into every record.
	// Required when creating a store; on reopen it must match or be empty.
	Recorder string
	// Session fixes the session id of a new store (random if zero).
	Session format.SessionID
	// Encrypt stores payloads encrypted (disclosure mode). Fixed at creation.
	Encrypt bool
	// FormatVersion is the format version of a new store, 1 to
	// format.Version (3; the default). Version 1 encrypts payloads with
	// AES-256-GCM under an HMAC commitment, for readers that predate
	// version 2 (docs/SPEC.md, "Payload frames and commitments"); versions
	// 1 and 2 lack the fields and kinds of version 3, which a writer refuses
	// to append to them. A store keeps the version it was created with.
	FormatVersion int
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
	if o.FormatVersion == 0 {
		o.FormatVersion = format.Version
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

// Bounds of an event's causal link (format.Event.After), which the logical
// clock takes when it is ahead (docs/SPEC.md, "Record"). A writer could
// otherwise move the clock to its last value in one event and so end the
// log for every writer after it, since clocks strictly increase.
const (
	// MaxClockStep is how far past the log's clock an After may be: no
	// recorder's clock is 2^32 events ahead of another's it is linked to,
	// and ending the clock then takes 2^32 appends.
	MaxClockStep = 1 << 32
	// MaxAfter is the largest After: 2^53 − 1, the largest integer every
	// JSON reader (JavaScript's included) reads exactly. The clock then
	// stays below 2^53 plus the number of events, far from 2^64 − 1.
	MaxAfter = 1<<53 - 1
)

// CausalLinkError refuses an event whose After is more than MaxClockStep
// past the log's clock, or over MaxAfter: it names a clock no recorder it
// is linked to can have reached. Nothing of the event is written. It
// wraps format.ErrLimit.
type CausalLinkError struct {
	After uint64 // the event's causal link
	Clock uint64 // the log's logical clock when the event was refused
}

func (e *CausalLinkError) Error() string {
	return fmt.Sprintf("recorder: causal link after %d refused: the log's clock is %d, and an event may be after at most the clock + %d and at most %d", e.After, e.Clock, uint64(MaxClockStep), uint64(MaxAfter))
}

func (e *CausalLinkError) Unwrap() error { return format.ErrLimit }

// EventWriter is what appends events to a log: a *Recorder that holds the
// log, or a client of the recorder daemon that does (serve.Client). The
// importers, the MCP proxy, the OTLP receiver and pace's agents write
// through it.
type EventWriter interface {
	Record(ctx context.Context, ev format.Event) (Receipt, error)
}

// Recorder appends events to a store. It is safe for concurrent use.
type Recorder struct {
	dir  string
	opts Options
	man  Manifest

	master []byte
	salts  *saltFile
	mark   *markFile
	lock   *os.File // holds LockFile's flock until Close
	watch  *logWatch

	mu       sync.Mutex
	cond     *sync.Cond // signalled when durable advances or err is set
	err      error      // sticky (a *WriteError): after a write error nothing more is accepted
	closed   bool
	records  *segment.Writer
	payloads *segment.Writer
	epochs   *segment.Writer
	next     uint64    // next sequence number
	durable  uint64    // events [0, durable) are durable under the policy
	synced   uint64    // events [0, synced) are fsynced (SyncGroup: their mark may be pending)
	marking  [2]uint64 // SyncGroup: the events and epochs the next mark covers
	clock    uint64
	last     format.Digest // digest of record next-1
	prevRoot format.Digest // R of the last sealed epoch
	open     *epochBuilder
	openedAt time.Time
	keys     *format.EventKeyDeriver // nil until the open epoch's key is loaded
	nonce    [format.NonceSize]byte  // random per Open; XORed with seq per event
	mode     byte                    // payload frame mode (format.FrameMode)
	sealer   format.Sealer           // scratch of the AEAD
	frameBuf []byte                  // scratch for payload frames
	envBuf   bytes.Buffer            // scratch for envelopes
	unsent   []sealed                // sealed, header not yet written or not yet durable
	recovery Recovery

	syncReq chan struct{}
	markReq chan struct{}
	notify  *notifier
	done    chan struct{}
	wg      sync.WaitGroup
}

// Open opens or creates the store in dir. After a crash it cuts torn tails
// and writes that were never acknowledged, and reports them in Recovery().
// One writer at a time: Open takes the store's lock (LockFile) until
// Close, and fails at once with a *LockedError while another holds it.
// Damage it does not repair is a *DamagedTailError (more than a torn write
// at a stream's end, without Options.RepairTail) or a *BrokenChainError.
func Open(dir string, opts Options) (*Recorder, error) {
	if opts.Recorder != "" {
		if err := checkRecorderID(opts.Recorder); err != nil {
			return nil, err
		}
	}
	if opts.FormatVersion < 0 || opts.FormatVersion > format.Version {
		return nil, fmt.Errorf("recorder: format version %d: this build writes versions 1 to %d", opts.FormatVersion, format.Version)
	}
	opts.setDefaults(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recorder: creating the log directory: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	watch, err := openWatch(dir, lock)
	if err != nil {
		lock.Close()
		return nil, err
	}
	r, err := open(dir, opts)
	if err != nil {
		watch.dir.Close()
		lock.Close()
		return nil, err
	}
	r.mu.Lock()
	r.lock, r.watch = lock, watch
	r.mu.Unlock()
	return r, nil
}

// open is Open once the lock is held.
func open(dir string, opts Options) (*Recorder, error) {
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
	mark, err := openMarkFile(dir)
	if err != nil {
		salts.close()
		return nil, err
	}
	r := &Recorder{dir: dir, opts: opts, man: *man, master: master, salts: salts, mark: mark,
		syncReq: make(chan struct{}, 1), markReq: make(chan struct{}, 1), done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	r.mode = format.FrameMode(man.Version, man.Encrypted)
	if _, err := io.ReadFull(opts.Rand, r.nonce[:]); err != nil {
		salts.close()
		return nil, err
	}
	r.notify = newNotifier()
	if err := r.recoverAndMark(); err != nil {
		r.notify.close()
		salts.close()
		mark.close()
		r.closeStreams()
		return nil, err
	}
	if opts.Sync == SyncGroup {
		r.wg.Add(2)
		go r.syncLoop()
		go r.markLoop()
	}
	if opts.EpochMaxAge > 0 {
		r.wg.Add(1)
		go r.ageLoop()
	}
	return r, nil
}

// Sealed delivers sealed epochs, in order, once they are durable. Delivery
// never blocks Record: undelivered epochs queue in memory. The channel is
// closed by Close; epochs not yet received by then are in the store
// (ReadLog) and must be picked up from there.
func (r *Recorder) Sealed() <-chan SealedEpoch { return r.notify.out }

// Record appends ev and returns its receipt once it is durable under the
// sync policy. ctx bounds only the wait for durability (SyncGroup): an event
// whose wait is cancelled is still recorded.
func (r *Recorder) Record(ctx context.Context, ev format.Event) (Receipt, error) {
	return r.record(ctx, ev, true)
}

// Append appends ev and, under SyncGroup, starts its group commit without
// waiting for it: the event is in the log's order at once, and durable
// once WaitDurable(ctx, receipt.Seq) returns. A commit that fails fails
// the recorder (Err), so the next Record or Append fails: nothing is
// appended past an event that could not be made durable. Under the other
// policies Append is Record.
func (r *Recorder) Append(ev format.Event) (Receipt, error) {
	return r.record(context.Background(), ev, false)
}

func (r *Recorder) record(ctx context.Context, ev format.Event, wait bool) (Receipt, error) {
	// The envelope (kind, tool, group) is checked when it is encoded, before
	// anything is written; the payload here.
	buf := payloadBufs.Get().(*bytes.Buffer)
	defer payloadBufs.Put(buf)
	buf.Reset()
	if err := format.EncodePayloadTo(buf, &ev.Payload); err != nil {
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
		if wait {
			err = r.waitDurable(ctx, rc.Seq)
		}
	default:
		err = r.persist(false)
	}
	r.mu.Unlock()
	return rc, err
}

var payloadBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// append writes one event; r.mu is held.
func (r *Recorder) append(ev *format.Event, plaintext []byte) (Receipt, error) {
	if r.closed {
		return Receipt{}, ErrClosed
	}
	if r.err != nil {
		return Receipt{}, r.err
	}
	if err := ev.CheckVersion(uint8(r.man.Version)); err != nil {
		return Receipt{}, fmt.Errorf("recorder: %w", err)
	}
	if ev.After > MaxAfter || ev.After > r.clock && ev.After-r.clock > MaxClockStep {
		return Receipt{}, &CausalLinkError{After: ev.After, Clock: r.clock}
	}
	if r.clock == math.MaxUint64 { // a log written before the bound above
		return Receipt{}, fmt.Errorf("recorder: the logical clock is at %d and cannot pass it: %w", r.clock, format.ErrLimit)
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
	frame, err := r.sealer.Seal(r.frameBuf[:0], &k, r.man.Session, seq, plaintext, r.mode, nonce)
	if err != nil {
		return Receipt{}, r.fail(err)
	}
	r.frameBuf = frame
	clock := max(r.clock, ev.After) + 1
	now := r.opts.Now()
	env := format.Envelope{
		Version: uint8(r.man.Version), Recorder: r.man.Recorder, Session: r.man.Session,
		Seq: seq, Clock: clock, Group: ev.Group, Time: now.UnixNano(),
		Tool: ev.Tool, Kind: ev.Kind, Payload: format.PayloadFrameDigest(frame), Prev: r.last,
		EventTime: ev.EventTime, Run: ev.Run, ID: ev.ID,
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
	err := r.err // a failed log was not closed cleanly
	if err == nil {
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
	return errors.Join(err, r.salts.close(), r.mark.close(), r.watch.dir.Close(), r.lock.Close())
}
