package recorder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/format/segment"
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

// persist makes everything appended so far durable to the level of the
// policy (full=true forces fsync) and, after an fsync, writes the durable
// mark, then announces sealed epochs; r.mu is held.
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
	if err == nil && fsync {
		err = r.checkLog()
	}
	if err == nil {
		err = r.persistHeaders(r.next, fsync)
	}
	if err == nil && fsync {
		err = r.mark.advance(r.next, r.epochs.Next())
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
	r.synced = max(r.synced, upto)
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
	if r.durable > seq {
		return nil // durable before a failure: its receipt holds
	}
	return r.err
}

// WaitDurable blocks until event seq is durable under the sync policy, ctx
// ends (an error wrapping ctx's) or the recorder fails (its *WriteError).
// Appending with a cancelled context and then waiting for the last event
// makes a batch wait for one group commit.
func (r *Recorder) WaitDurable(ctx context.Context, seq uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.durable > seq {
		return nil
	}
	if r.opts.Sync == SyncGroup {
		select {
		case r.syncReq <- struct{}{}:
		default:
		}
	}
	return r.waitDurable(ctx, seq)
}

// Err returns the recorder's sticky failure (a *WriteError), ErrClosed
// once closed, or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failure()
}

// Check checks now, as every group commit does, that the log's directory
// and files are still where the recorder writes them, failing sticky if
// not, and returns what Err returns.
func (r *Recorder) Check() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil && !r.closed {
		if err := r.checkLog(); err != nil {
			var ve *VanishedError
			if !errors.As(err, &ve) {
				return err // the check itself failed (a permission): nothing is known
			}
			r.fail(err)
		}
	}
	return r.failure()
}

// failure is Err; r.mu is held.
func (r *Recorder) failure() error {
	if r.err == nil && r.closed {
		return ErrClosed
	}
	return r.err
}

// syncLoop is SyncGroup's committer: one fsync covers every event appended
// before it started; markLoop then acknowledges them.
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
		if r.synced >= r.next || r.err != nil || r.closed {
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
		if r.err != nil {
			// Failed meanwhile: the streams were rolled back to the
			// durable point, which this round must not pass.
			r.mu.Unlock()
			continue
		}
		if err == nil {
			err = r.checkLog() // once per group commit, not per event
		}
		if err == nil {
			err = r.persistHeaders(target, true)
		}
		if err != nil {
			r.fail(err) // sticky; wakes the waiters
		} else if target > r.synced {
			// The events are acknowledged once markLoop has made the
			// durable mark cover them; the next round's fsync meanwhile
			// overlaps that write.
			r.synced, r.marking = target, [2]uint64{target, r.epochs.Next()}
			select {
			case r.markReq <- struct{}{}:
			default:
			}
		}
		r.mu.Unlock()
	}
}

// markLoop is SyncGroup's second stage: it writes the durable mark for
// what syncLoop fsynced, then acknowledges those events.
func (r *Recorder) markLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.done:
			return
		case <-r.markReq:
		}
		r.mu.Lock()
		m := r.marking
		r.mu.Unlock()
		err := r.mark.advance(m[0], m[1])
		r.mu.Lock()
		if err != nil {
			r.fail(err)
		} else {
			r.advance(m[0])
		}
		r.mu.Unlock()
	}
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
