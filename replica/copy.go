package replica

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/recorder"
)

// Every says how far the replicator copies at each look at the log.
type Every int

const (
	// EveryEpoch copies sealed epochs: the epoch headers under the log's
	// durable mark and the records and payloads they cover.
	EveryEpoch Every = iota
	// EveryCommit copies every durable event as well (each group
	// commit), sealed or not.
	EveryCommit
)

func (e Every) String() string {
	if e == EveryCommit {
		return "commit"
	}
	return "epoch"
}

// ParseEvery reads "epoch" or "commit".
func ParseEvery(s string) (Every, error) {
	switch s {
	case "epoch":
		return EveryEpoch, nil
	case "commit":
		return EveryCommit, nil
	}
	return 0, fmt.Errorf("replica: %q: want epoch or commit", s)
}

// Options tune a Replicator.
type Options struct {
	Every Every
	// Interval is how often the log is looked at (default 200ms); after a
	// failure the wait doubles, up to MaxBackoff (default 10s).
	Interval, MaxBackoff time.Duration
	// Batches and Anchors, when set, are the operator's batches file and
	// an anchors file to copy with the log.
	Batches, Anchors string
	// Keys, when set, is where the log's key directory (KeyDir, default
	// <dir>/keys) is copied, after the log at each pass: a store of its
	// own, neither the log's replica nor under it.
	Keys   *Store
	KeyDir string
	// Logf reports failures and conflicts (default: silent).
	Logf func(format string, args ...any)
}

func (o *Options) setDefaults() {
	if o.Interval <= 0 {
		o.Interval = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// ConflictError reports that the log no longer extends its replica: a
// file of the replica is not a prefix of the log's (the log was rewritten,
// cut or replaced since it was copied), or the replica holds what the log
// does not. The replicator stops copying; nothing on the replica is
// changed.
type ConflictError struct {
	File   string // in the log directory
	Reason string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("replica: the log does not extend its replica: %s: %s", e.File, e.Reason)
}

// A Replicator copies one log to its replica as the log grows (docs/SPEC.md,
// "Replica"), from the files on disk: it takes no lock, reads only what
// the log's durable mark covers, and never waits on the writer nor makes
// it wait. Every object is written once. Start resumes where the replica
// ends, after any crash of the writer or of the replicator.
type Replicator struct {
	dir   string
	store *Store
	opts  Options

	streams  map[string]*streamCopy
	batches  *fileCopy
	anchors  int  // anchors the replica's newest anchors file holds, -1 none
	manifest bool // MANIFEST is copied
	keys     *keysCopy
	sealed   uint64 // the end of the last epoch whose header is copied

	mu      sync.Mutex
	status  Status
	written time.Time // when the status file was last replaced

	stop chan struct{}
	done chan struct{}
}

// streamCopy is how far one stream is copied: up to offset off of its
// segment file cur, whose frames before next are copied.
type streamCopy struct {
	kind string
	cur  string // base name, "" before the first
	off  int64
	next uint64
}

// fileCopy is how far an append-only file (the batches file) is copied.
type fileCopy struct {
	local string
	off   int64
}

// Start resumes copying the log in dir to the replica s: it lists the
// replica, checks that the log extends what it holds (a *ConflictError
// otherwise), and copies in the background from there until Close.
func Start(ctx context.Context, dir string, s *Store, opts Options) (*Replicator, error) {
	r, err := resume(ctx, dir, s, opts)
	if err != nil {
		return nil, err
	}
	go r.run()
	return r, nil
}

// Once copies what the log in dir holds now (as Start and one pass would)
// and returns the replica's status.
func Once(ctx context.Context, dir string, s *Store, opts Options) (Status, error) {
	r, err := resume(ctx, dir, s, opts)
	if err != nil {
		return Status{}, err
	}
	// A pass reads at most maxRead of each stream: pass again until one
	// copies nothing more.
	for {
		events, epochs := r.copied()
		if err = r.pass(ctx); err != nil {
			return r.Status(), err
		}
		if e, t := r.copied(); e == events && t == epochs {
			return r.Status(), nil
		}
	}
}

func resume(ctx context.Context, dir string, s *Store, opts Options) (*Replicator, error) {
	opts.setDefaults()
	if _, err := recorder.ReadManifest(dir); err != nil {
		return nil, fmt.Errorf("replica: %s is no log to copy: %w", dir, err)
	}
	r := &Replicator{dir: dir, store: s, opts: opts, streams: map[string]*streamCopy{}, anchors: -1,
		stop: make(chan struct{}), done: make(chan struct{})}
	r.status = Status{URL: s.URL(), Every: opts.Every.String()}
	objs, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	t := parseTree(objs)
	if f, ok := t.files[manifestKey]; ok {
		if err := r.same(ctx, manifestKey, f.chunks[0]); err != nil {
			return nil, err
		}
		r.manifest = true
	}
	for _, kind := range streams {
		sc, err := r.resumeStream(ctx, t, kind)
		if err != nil {
			return nil, err
		}
		r.streams[kind] = sc
	}
	if opts.Keys != nil {
		if a, b := s.url+"/", opts.Keys.url+"/"; strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
			return nil, fmt.Errorf("replica: the keys go to a store of their own, not %s beside the log's replica %s", opts.Keys.url, s.url)
		}
		if opts.KeyDir == "" {
			opts.KeyDir = filepath.Join(dir, "keys")
			r.opts.KeyDir = opts.KeyDir
		}
		if r.keys, err = resumeKeys(ctx, opts.KeyDir, opts.Keys); err != nil {
			return nil, err
		}
		r.status.KeysURL = opts.Keys.url
	}
	if opts.Batches != "" {
		r.batches = &fileCopy{local: opts.Batches}
		if f, ok := t.files[batchesFile]; ok {
			last := f.chunks[len(f.chunks)-1]
			if err := r.sameAt(ctx, opts.Batches, batchesFile, last); err != nil {
				return nil, err
			}
			r.batches.off = f.size
		}
	}
	if f, ok := t.files[anchorsFile]; ok {
		var n uint64
		fmt.Sscanf(f.chunks[0].key, anchorsDir+"/%016x.json", &n)
		r.anchors = int(n)
	}
	if n := r.streams["epochs"].next; n > 0 {
		// The end of the last epoch copied, from the log's own copy of
		// its header (the same bytes: checked above).
		err := segment.ReadAll(filepath.Join(dir, "epochs"), "epochs", func(f segment.Frame) error {
			if f.Index == n-1 {
				if h, err := format.DecodeEpochHeader(f.Data); err == nil {
					r.sealed = h.FirstSeq + h.Count
				}
			}
			return nil
		})
		if err != nil && r.sealed == 0 {
			return nil, err
		}
	}
	r.status.Events, r.status.Epochs = r.copied()
	return r, nil
}

// resumeStream finds where the replica's copy of stream kind ends and
// checks the log's files hold the same bytes there.
func (r *Replicator) resumeStream(ctx context.Context, t *tree, kind string) (*streamCopy, error) {
	sc := &streamCopy{kind: kind}
	names := t.segments(kind)
	if len(names) == 0 {
		return sc, nil
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(r.dir, kind, name)); err != nil {
			return nil, &ConflictError{File: kind + "/" + name, Reason: fmt.Sprintf("on the replica, not in the log (%v)", err)}
		}
	}
	sc.cur = names[len(names)-1]
	f := t.files[kind+"/"+sc.cur]
	local := filepath.Join(r.dir, kind, sc.cur)
	if err := r.sameAt(ctx, local, kind+"/"+sc.cur, f.chunks[len(f.chunks)-1]); err != nil {
		return nil, err
	}
	b, err := readAt(local, 0, f.size)
	if err != nil {
		return nil, err
	}
	first, err := segment.FirstIndex(b, local, kind)
	if err != nil {
		return nil, &ConflictError{File: kind + "/" + sc.cur, Reason: err.Error()}
	}
	n, end := segment.Whole(b[segment.HeaderSize:], math.MaxUint64)
	if end != f.size-segment.HeaderSize {
		return nil, &ConflictError{File: kind + "/" + sc.cur, Reason: fmt.Sprintf("the replica's copy ends at offset %d, inside a frame", f.size)}
	}
	sc.off, sc.next = f.size, first+n
	return sc, nil
}

// same checks that the object of chunk c holds the log's file name.
func (r *Replicator) same(ctx context.Context, name string, c chunk) error {
	local, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		return err
	}
	got, err := r.store.get(ctx, c.key, max(c.size, 0))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, local) {
		return &ConflictError{File: name, Reason: "differs from the replica's copy"}
	}
	return nil
}

// sameAt checks that the chunk c of a file of the replica holds the bytes
// of the local file at its offset.
func (r *Replicator) sameAt(ctx context.Context, local, name string, c chunk) error {
	got, err := r.store.get(ctx, c.key, c.size)
	if err != nil {
		return err
	}
	have, err := readAt(local, c.off, c.size)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, have) {
		return &ConflictError{File: name, Reason: fmt.Sprintf("the %d bytes at offset %d differ from the replica's", c.size, c.off)}
	}
	return nil
}

// readAt reads n bytes of the file at off; a file shorter than that is a
// *ConflictError (the replica holds more of it than the log).
func readAt(name string, off, n int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ConflictError{File: name, Reason: fmt.Sprintf("shorter than the replica's copy (%d bytes)", off+n)}
		}
		return nil, err
	}
	return b, nil
}

func (r *Replicator) run() {
	defer close(r.done)
	wait := r.opts.Interval
	for {
		select {
		case <-r.stop:
			return
		case <-time.After(wait):
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := r.pass(ctx)
		cancel()
		var conflict *ConflictError
		switch {
		case errors.As(err, &conflict):
			r.opts.Logf("replica %s: %v; copying stopped", r.store.url, err)
			<-r.stop
			return
		case err != nil:
			wait = min(2*wait, r.opts.MaxBackoff)
			r.opts.Logf("replica %s: %v; retrying in %s", r.store.url, err, wait)
		default:
			wait = r.opts.Interval
		}
	}
}

// Close stops copying after one last pass, bounded by ctx, that copies
// what the log holds now (after the writer closed it, its last epoch).
func (r *Replicator) Close(ctx context.Context) error {
	close(r.stop)
	<-r.done
	if r.Status().Conflict != "" {
		return nil
	}
	return r.pass(ctx)
}

// pass copies what the log holds now under its durable mark, as far as
// Options.Every says: payloads, records, epoch headers, then the other
// files.
func (r *Replicator) pass(ctx context.Context) error {
	err := r.copyLog(ctx)
	if errors.Is(err, errAgain) {
		err = nil
	}
	r.mu.Lock()
	st := &r.status
	before := *st
	st.Events, st.Epochs = r.copied()
	st.Checked = time.Now().UTC()
	var conflict *ConflictError
	switch {
	case errors.As(err, &conflict):
		st.Conflict = err.Error()
	case err != nil:
		st.Error = err.Error()
	default:
		st.Error = ""
	}
	st.LagEpochs = sub(st.DurableEpochs, st.Epochs)
	st.LagEvents = sub(st.DurableEvents, st.Events)
	lagging := st.LagEpochs > 0 || (r.opts.Every == EveryCommit && st.LagEvents > 0)
	switch {
	case !lagging:
		st.BehindSince = nil
	case st.BehindSince == nil:
		now := st.Checked
		st.BehindSince = &now
	}
	// The status file is replaced when something other than the time of
	// the look changed, and every few seconds.
	write := st.Checked.Sub(r.written) >= statusEvery || st.Events != before.Events || st.Epochs != before.Epochs ||
		st.Error != before.Error || st.Conflict != before.Conflict || (st.BehindSince == nil) != (before.BehindSince == nil)
	snapshot := *st
	r.mu.Unlock()
	if write {
		if werr := writeStatus(r.dir, snapshot); werr != nil {
			r.opts.Logf("replica %s: writing %s: %v", r.store.url, StatusFile, werr)
		} else {
			r.written = snapshot.Checked
		}
	}
	return err
}

// statusEvery is how often the status file is replaced when only the lag
// changes.
const statusEvery = 5 * time.Second

// copied returns the events whose records and payloads are copied and the
// epoch headers copied.
func (r *Replicator) copied() (events, epochs uint64) {
	return min(r.streams["records"].next, r.streams["payloads"].next), r.streams["epochs"].next
}

func (r *Replicator) copyLog(ctx context.Context) error {
	if !r.manifest {
		b, err := os.ReadFile(filepath.Join(r.dir, manifestKey))
		if err != nil {
			return err
		}
		if err := r.put(ctx, manifestKey, b, func(got []byte) bool { return bytes.Equal(got, b) }); err != nil {
			return err
		}
		r.manifest = true
	}
	mark, marked, err := recorder.ReadMark(r.dir)
	if err != nil {
		return err
	}
	// Without a durable mark (a log written before it existed) every
	// whole frame is copied.
	events, epochs := uint64(math.MaxUint64), uint64(math.MaxUint64)
	if marked {
		events, epochs = mark.Events, mark.Epochs
		r.mu.Lock()
		r.status.DurableEvents, r.status.DurableEpochs = mark.Events, mark.Epochs
		r.mu.Unlock()
	}
	headers, err := r.plan(r.streams["epochs"], epochs)
	if err != nil {
		return err
	}
	if r.opts.Every == EveryEpoch {
		// Records and payloads up to the end of the last epoch whose
		// header will be copied.
		events = r.sealedEnd(headers)
	}
	for _, kind := range streams[:2] {
		cs, err := r.plan(r.streams[kind], events)
		if err != nil {
			return err
		}
		if err := r.upload(ctx, r.streams[kind], cs); err != nil {
			return err
		}
	}
	// An epoch header is copied only once its epoch's records and payloads
	// are: a look reads at most maxRead of each stream, and a replica whose
	// headers ran ahead of its payloads would verify as payloads lost.
	copied := min(r.streams["records"].next, r.streams["payloads"].next)
	if n, all := headersWithin(headers, copied); !all {
		if headers, err = r.plan(r.streams["epochs"], r.streams["epochs"].next+n); err != nil {
			return err
		}
	}
	if err := r.upload(ctx, r.streams["epochs"], headers); err != nil {
		return err
	}
	r.sealed = r.sealedEnd(headers)
	if r.batches != nil {
		if err := r.copyBatches(ctx); err != nil {
			return err
		}
	}
	if r.opts.Anchors != "" {
		if err := r.copyAnchors(ctx); err != nil {
			return err
		}
	}
	if r.keys != nil {
		// After the log: the salts of every epoch under the durable mark
		// were on disk before the mark covered it.
		changed, err := r.keys.copy(ctx)
		if err != nil {
			return err
		}
		r.mu.Lock()
		if changed {
			r.status.KeysCopied = time.Now().UTC()
		}
		r.mu.Unlock()
	}
	return nil
}

// sealedEnd returns the end (first sequence number past it) of the last
// epoch whose header is copied or in cs.
func (r *Replicator) sealedEnd(cs []pending) uint64 {
	if len(cs) == 0 {
		return r.sealed
	}
	h, err := format.DecodeEpochHeader(cs[len(cs)-1].lastFrame)
	if err != nil {
		// The verifier reports it; copy no events past the ones copied.
		return r.sealed
	}
	return h.FirstSeq + h.Count
}

// headersWithin counts the epoch headers in cs, in order, whose epochs
// end at or before the event end, and says whether that is all of them.
func headersWithin(cs []pending, end uint64) (n uint64, all bool) {
	for _, c := range cs {
		b := c.data
		if c.off == 0 {
			b = b[segment.HeaderSize:]
		}
		for len(b) > 0 {
			k, size := segment.Whole(b, 1)
			if k == 0 {
				break
			}
			h, err := format.DecodeEpochHeader(b[segment.FrameOverhead:size])
			if err != nil || h.FirstSeq+h.Count > end {
				return n, false
			}
			n, b = n+1, b[size:]
		}
	}
	return n, true
}

// pending is a chunk to write.
type pending struct {
	file      string // base name of the segment file
	off       int64
	data      []byte
	frames    uint64
	lastFrame []byte // of an epochs chunk: its last header
}

// maxRead bounds what one look reads of one stream (a variable for the
// tests of logs larger than a look).
var maxRead int64 = 32 << 20

// plan returns the chunks that copy stream sc up to frame limit (not
// included): whole frames of its segment files, from where the replica
// ends.
func (r *Replicator) plan(sc *streamCopy, limit uint64) ([]pending, error) {
	dir := filepath.Join(r.dir, sc.kind)
	files, err := segment.List(dir, sc.kind)
	if err != nil {
		return nil, err
	}
	start := 0
	if sc.cur != "" {
		start = -1
		for i, f := range files {
			if filepath.Base(f) == sc.cur {
				start = i
			}
		}
		if start < 0 {
			return nil, &ConflictError{File: sc.kind + "/" + sc.cur, Reason: "on the replica, no longer in the log"}
		}
	}
	var out []pending
	name, off, next, budget := sc.cur, sc.off, sc.next, maxRead
	for i := start; i < len(files) && next < limit && budget > 0; i++ {
		base := filepath.Base(files[i])
		if base != name {
			name, off = base, 0
		}
		b, eof, err := readFrom(files[i], off, budget)
		if err != nil {
			return nil, err
		}
		budget -= int64(len(b))
		body, at := b, off
		if off == 0 {
			if len(b) < segment.HeaderSize {
				break // a segment being started
			}
			first, err := segment.FirstIndex(b, files[i], sc.kind)
			if err != nil {
				return nil, err
			}
			if first != next {
				return nil, &ConflictError{File: sc.kind + "/" + base, Reason: fmt.Sprintf("starts at frame %d, want %d", first, next)}
			}
			body = b[segment.HeaderSize:]
		}
		for next < limit && len(body) > 0 {
			n, size := segment.Whole(body[:min(len(body), maxChunk)], limit-next)
			if n == 0 {
				n, size = segment.Whole(body, 1) // a frame larger than maxChunk
			}
			if n == 0 {
				break
			}
			p := pending{file: base, off: at, data: body[:size], frames: n}
			if at == 0 {
				p.data = b[:segment.HeaderSize+size]
			}
			if sc.kind == "epochs" {
				p.lastFrame = lastFrame(body[:size])
			}
			out = append(out, p)
			at += int64(len(p.data))
			body = body[size:]
			next += n
		}
		off = at
		if len(body) > 0 || !eof {
			break // a frame being written, or as far as this look reads
		}
		// This file is copied to its end: the writer started the next
		// one only after it ended this one.
	}
	return out, nil
}

// lastFrame returns the data of the last of the whole frames b holds.
func lastFrame(b []byte) []byte {
	var last []byte
	for len(b) > 0 {
		n, size := segment.Whole(b, 1)
		if n == 0 {
			break
		}
		last, b = b[segment.FrameOverhead:size], b[size:]
	}
	return last
}

// readFrom reads the file name from off on, at most n bytes; eof reports
// that they reach its end. A file shorter than off is a *ConflictError.
func readFrom(name string, off, n int64) (b []byte, eof bool, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if st.Size() < off {
		return nil, false, &ConflictError{File: name, Reason: fmt.Sprintf("%d bytes, shorter than the replica's copy (%d)", st.Size(), off)}
	}
	size := min(st.Size()-off, n)
	b = make([]byte, size)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return b, off+size == st.Size(), nil
}

// upload writes the chunks of stream sc in order, advancing it past each.
func (r *Replicator) upload(ctx context.Context, sc *streamCopy, cs []pending) error {
	for _, c := range cs {
		local := filepath.Join(r.dir, sc.kind, c.file)
		frames, size := c.frames, int64(len(c.data))
		err := r.put(ctx, chunkName(sc.kind+"/"+c.file, c.off), c.data, func(got []byte) bool {
			// Written before, by a pass that did not live to record it:
			// the log's bytes at this offset, whole frames.
			have, err := readAt(local, c.off, int64(len(got)))
			if err != nil || !bytes.Equal(got, have) {
				return false
			}
			body := got
			if c.off == 0 {
				body = got[min(len(got), segment.HeaderSize):]
			}
			n, whole := segment.Whole(body, math.MaxUint64)
			frames, size = n, int64(len(got))
			return n > 0 && whole == int64(len(body))
		})
		if err != nil {
			return err
		}
		sc.cur, sc.off, sc.next = c.file, c.off+size, sc.next+frames
		r.copiedNow()
		if frames != c.frames {
			// The replica's chunk there is of another length: plan again
			// from its end, before anything that comes after it.
			return errAgain
		}
	}
	return nil
}

// errAgain stops a pass that must plan again: it is no failure.
var errAgain = errors.New("replica: plan again")

// put writes one object. When it exists already, same says whether its
// content is what this replicator would have written there; if not, the
// log and its replica have diverged.
func (r *Replicator) put(ctx context.Context, key string, data []byte, same func(got []byte) bool) error {
	err := r.store.put(ctx, key, data)
	if !errors.Is(err, ErrExists) {
		return err
	}
	got, gerr := r.store.get(ctx, key, maxRead+maxChunk)
	if gerr != nil {
		return gerr
	}
	if !same(got) {
		return &ConflictError{File: key, Reason: "the replica holds other bytes at this key"}
	}
	return nil
}

func (r *Replicator) copiedNow() {
	r.mu.Lock()
	r.status.Copied = time.Now().UTC()
	r.mu.Unlock()
}

// copyBatches copies the batches file's complete lines.
func (r *Replicator) copyBatches(ctx context.Context) error {
	fc := r.batches
	b, _, err := readFrom(fc.local, fc.off, maxChunk)
	if errors.Is(err, os.ErrNotExist) && fc.off == 0 {
		return nil // no batch yet
	}
	if err != nil {
		return err
	}
	end := bytes.LastIndexByte(b, '\n') + 1
	if end == 0 {
		return nil
	}
	data := b[:end]
	if err := r.put(ctx, chunkName(batchesFile, fc.off), data, func(got []byte) bool { return bytes.Equal(got, data) }); err != nil {
		return err
	}
	fc.off += int64(end)
	r.copiedNow()
	return nil
}

// copyAnchors copies the anchors file when it holds more anchors than the
// replica's newest copy.
func (r *Replicator) copyAnchors(ctx context.Context) error {
	b, err := os.ReadFile(r.opts.Anchors)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	anchors, err := format.ParseAnchors(b)
	if err != nil {
		return fmt.Errorf("replica: %s: %w", r.opts.Anchors, err)
	}
	if len(anchors) <= r.anchors {
		return nil
	}
	if err := r.put(ctx, anchorsName(len(anchors)), b, func(got []byte) bool { return bytes.Equal(got, b) }); err != nil {
		return err
	}
	r.anchors = len(anchors)
	r.copiedNow()
	return nil
}

// Status returns how far the replica is, at the last look at the log.
func (r *Replicator) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
