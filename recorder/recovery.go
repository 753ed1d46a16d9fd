package recorder

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
)

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

// recover opens the three streams, cuts what was never acknowledged, checks
// the chain, and rebuilds the open epoch.
func (r *Recorder) recover() error {
	var headers []*format.EpochHeader
	var err error
	var reps []segment.Repair
	r.epochs, reps, err = r.openStream("epochs", r.mark.loaded.Epochs, func(f segment.Frame) error {
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
	r.payloads, reps, err = r.openStream("payloads", r.mark.loaded.Events, func(segment.Frame) error {
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
	r.records, reps, err = r.openStream("records", r.mark.loaded.Events, func(f segment.Frame) error {
		e, err := format.DecodeEnvelope(f.Data)
		if err != nil {
			return fmt.Errorf("record %d: %w", f.Index, err)
		}
		if e.Seq != f.Index || e.Prev != r.last || e.Session != r.man.Session || e.Recorder != r.man.Recorder {
			return &BrokenChainError{Record: f.Index, Seq: e.Seq}
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
	if err := r.checkMark(nrec, npay, uint64(len(headers))); err != nil {
		return err
	}

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
	r.next, r.durable, r.synced = n, n, n
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

// openStream opens one stream: damage at or past the durable mark
// (durable frames) in its last file is cut, as is damage of any kind there
// when the caller asked for repair (Options.RepairTail); a log without a
// mark has only torn writes cut.
func (r *Recorder) openStream(kind string, durable uint64, visit func(segment.Frame) error) (*segment.Writer, []segment.Repair, error) {
	dir := filepath.Join(r.dir, kind)
	switch {
	case r.opts.RepairTail:
		return segment.OpenCuttingCorruptTail(dir, kind, r.opts.SegmentSize, visit)
	case r.mark.found:
		return segment.OpenDurable(dir, kind, r.opts.SegmentSize, durable, visit)
	}
	return segment.Open(dir, kind, r.opts.SegmentSize, visit)
}

// checkMark refuses streams shorter than the durable mark found on open,
// unless the operator asked for repair.
func (r *Recorder) checkMark(records, payloads, epochs uint64) error {
	if !r.mark.found || r.opts.RepairTail {
		return nil
	}
	m := r.mark.loaded
	for _, s := range []struct {
		name         string
		have, marked uint64
	}{{"records", records, m.Events}, {"payloads", payloads, m.Events}, {"epochs", epochs, m.Epochs}} {
		if s.have < s.marked {
			return &LostEventsError{Dir: r.dir, Stream: s.name, Frames: s.have, Durable: s.marked}
		}
	}
	return nil
}

// DamagedTailError is returned by Open, without Options.RepairTail, for a
// stream damaged by more than a torn write at its end (Err, a
// *segment.CorruptError). A machine crash can leave such damage in writes
// that were never acknowledged, but so can corruption of acknowledged
// data: verify a copy of the log, then reopen it with Options.RepairTail
// to cut the damaged tail.
type DamagedTailError struct {
	Dir string
	Err error
}

func (e *DamagedTailError) Error() string { return fmt.Sprintf("recorder: open %s: %v", e.Dir, e.Err) }

func (e *DamagedTailError) Unwrap() error { return e.Err }

// BrokenChainError is returned by Open for a record that does not continue
// the chain of the records before it (its sequence number, its previous
// record's digest, its session or its recorder): the store is damaged, and
// Open repairs nothing of that kind; a verifier says where.
type BrokenChainError struct {
	Record uint64 // the record's index in the records stream
	Seq    uint64 // the sequence number it holds
}

func (e *BrokenChainError) Error() string {
	return fmt.Sprintf("record %d: does not continue the chain (seq %d); the store is damaged", e.Record, e.Seq)
}

func (r *Recorder) openError(err error) error {
	var corrupt *segment.CorruptError
	if errors.As(err, &corrupt) && !r.opts.RepairTail {
		return &DamagedTailError{Dir: r.dir, Err: err}
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

// recoverAndMark recovers the streams, makes what they hold durable (a
// crash of the process leaves writes the disk may not have yet), and
// writes the durable mark of what this writer holds, before anything is
// appended.
func (r *Recorder) recoverAndMark() error {
	if err := r.recover(); err != nil {
		return err
	}
	for _, w := range []*segment.Writer{r.payloads, r.records, r.epochs} {
		if err := w.Sync(); err != nil {
			return fmt.Errorf("recorder: open %s: %w", r.dir, err)
		}
	}
	return r.mark.reset(r.next, r.epochs.Next())
}
