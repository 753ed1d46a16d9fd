package recorder

import (
	"time"

	"github.com/agentflightrecorder/afr/format"
)

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
	r.keys = format.NewEventKeyDeriver(r.man.Version, ek)
	return nil
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
	if err := r.checkLog(); err != nil {
		return err
	}
	h := format.EpochHeader{
		Version: uint8(r.man.Version), Recorder: r.man.Recorder, Session: r.man.Session,
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
