package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// DefaultReorgDepth is how many of the latest blocks a poll reads again
// by default: anchors in them may have been reorganised away since.
const DefaultReorgDepth = 64

// Config is what a Watcher watches: logs of operators on one EpochAnchor.
type Config struct {
	Contract common.Address
	// FromBlock is where event searches start (the deployment block).
	FromBlock uint64
	// ReorgDepth is how many of the latest blocks each poll reads again
	// (default DefaultReorgDepth). A reorg deeper than that is still
	// noticed: the contract's heads then disagree with the events kept,
	// and everything is read again.
	ReorgDepth uint64
	Operators  []Operator
}

// Operator is one operator key and the logs it anchors.
type Operator struct {
	Address common.Address
	// BatchesFile is the operator's batches file, where the contents of
	// batches anchored with anchor(0, …) are published ("" for none: such
	// batches are batch_withheld).
	BatchesFile string
	Logs        []Log
}

// Log is one watched log and what its operator declared about it.
type Log struct {
	ID format.Digest
	// Window is the anchoring window the operator declared: the log
	// anchors at least once per Window while it records, and every epoch
	// within Window of its sealing. Zero: no lateness alarms.
	Window time.Duration
	// MayIdle says the log may record nothing for longer than Window:
	// silence alone raises no anchor_late, and lateness is judged from
	// its checkpoints only.
	MayIdle bool
	// Checkpoint is the path of the log's published checkpoint
	// (checkpoint.WritePublished: the note, and its leaves beside it),
	// read at every poll; "" for none. Policy verifies it.
	Checkpoint string
	Policy     *checkpoint.Policy
	// Replica reads the position of the log's off-host copy (nil: none).
	Replica Progress
	// ReplicaStall bounds how long the replica may stay behind the chain
	// without advancing (default Window).
	ReplicaStall time.Duration
}

// Options are a Watcher's clock and witness.
type Options struct {
	// Now is the watcher's clock (default time.Now). Lateness and stalls
	// are measured by it against block times and first sightings.
	Now func() time.Time
	// Witness, when set, cosigns the logs' checkpoints.
	Witness *Witness
}

// Witness cosigns each new checkpoint of a watched log that verifies, is
// consistent with every checkpoint of the log the watcher saw and
// cosigned, and contradicts no anchor on chain, and writes it, cosigned,
// with its leaves, to Dir/<log id in hex>.checkpoint
// (checkpoint.WritePublished). The file is the witness's memory: a
// restarted watcher cosigns nothing inconsistent with it.
type Witness struct {
	Signer note.Signer // a cosignature/v1 signer (checkpoint.ReadCosigner)
	Dir    string
}

// Watcher follows the logs of Config on one chain. Poll runs one round;
// Run polls at an interval. Its methods may be called concurrently.
type Watcher struct {
	client onchain.ChainReader
	cfg    Config
	opts   Options

	mu      sync.Mutex
	started time.Time // the first poll
	ops     []*operatorState
	alarms  *alarms
	polls   uint64
	block   uint64
}

type operatorState struct {
	cfg   Operator
	view  view
	first map[logEpoch]seen // the first anchor seen for each epoch of each log
	logs  []*logState
}

type logEpoch struct {
	log   format.Digest
	epoch uint64
}

type logState struct {
	cfg Log
	// What the chain shows, for metrics.
	lastEpoch *uint64
	lastTime  uint64
	// The largest checkpoint that verified, and when each size was first
	// seen.
	cp       *checkpoint.Checkpoint
	leaves   []format.Anchor
	sizes    []sizeSeen
	badNote  []byte // a note whose leaves did not match in the last poll
	cosigned uint64 // the size the witness last cosigned
	// The replica's position, and when it last changed.
	pos        *Position
	advancedAt time.Time
}

type sizeSeen struct {
	size uint64
	at   time.Time
}

// New returns a Watcher of cfg on the chain client reads. With a witness,
// it reads the checkpoints the witness cosigned before.
func New(client onchain.ChainReader, cfg Config, opts Options) (*Watcher, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if cfg.ReorgDepth == 0 {
		cfg.ReorgDepth = DefaultReorgDepth
	}
	w := &Watcher{client: client, cfg: cfg, opts: opts, alarms: newAlarms()}
	for _, op := range cfg.Operators {
		st := &operatorState{cfg: op, first: map[logEpoch]seen{}}
		for _, l := range op.Logs {
			switch {
			case l.ID.IsZero():
				return nil, fmt.Errorf("watch: operator %s: a log without an id (log id 0 is the batch chain, watched with the logs)", op.Address)
			case l.Checkpoint != "" && l.Policy == nil:
				return nil, fmt.Errorf("watch: log %s: a checkpoint without the policy that verifies it", l.ID)
			case l.Window < 0 || l.ReplicaStall < 0:
				return nil, fmt.Errorf("watch: log %s: a negative window", l.ID)
			}
			if l.ReplicaStall == 0 {
				l.ReplicaStall = l.Window
			}
			ls := &logState{cfg: l}
			if opts.Witness != nil && l.Checkpoint != "" {
				if err := ls.readCosigned(context.Background(), opts.Witness.Dir, opts.Now()); err != nil {
					return nil, err
				}
			}
			st.logs = append(st.logs, ls)
		}
		w.ops = append(w.ops, st)
	}
	return w, nil
}

// Poll runs one round: it reads every operator's events, every checkpoint
// and every replica, judges the conditions of docs/WATCH.md and returns
// the alarms raised and cleared by this round. A source that cannot be
// read is a source_error alarm, not an error; the error is ctx's only.
func (w *Watcher) Poll(ctx context.Context) ([]Event, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.opts.Now()
	if w.started.IsZero() {
		w.started = now
	}
	var conds []condition
	failed := map[string]bool{}
	for _, op := range w.ops {
		conds = append(conds, w.pollOperator(ctx, now, op, failed)...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	w.polls++
	return w.alarms.update(now, conds, failed), nil
}

// Run polls every interval until ctx ends, passing each event to emit.
func (w *Watcher) Run(ctx context.Context, interval time.Duration, emit func(Event)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		evs, err := w.Poll(ctx)
		if err != nil {
			return nil // ctx ended
		}
		for _, ev := range evs {
			emit(ev)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Active returns the alarms raised and not cleared, by key.
func (w *Watcher) Active() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.alarms.list()
}

// sourceError is the condition of a source that could not be read.
func sourceError(op common.Address, log format.Digest, source string, err error) condition {
	ev := Event{Alarm: KindSourceError, Operator: op.Hex(), Detail: fmt.Sprintf("%s: %v", source, err)}
	if !log.IsZero() {
		ev.Log = log.String()
	}
	return newCondition("", ev, source)
}

// pollOperator reads one operator's sources and returns the conditions
// that hold; a scope it could not read is marked in failed.
func (w *Watcher) pollOperator(ctx context.Context, now time.Time, op *operatorState, failed map[string]bool) []condition {
	var conds []condition
	opHex := op.cfg.Address.Hex()
	// Checkpoints and replicas first: they are judged against the chain.
	for _, l := range op.logs {
		conds = append(conds, l.readCheckpoint(ctx, now, op.cfg.Address, failed)...)
		if l.cfg.Replica != nil {
			pos, err := l.cfg.Replica.Progress(ctx)
			if err != nil {
				conds = append(conds, sourceError(op.cfg.Address, l.cfg.ID, "replica", err))
			} else if l.pos == nil || *l.pos != pos {
				l.pos, l.advancedAt = &pos, now
			}
		}
	}
	scope := "chain/" + opHex
	ids := make([]format.Digest, len(op.logs))
	for i, l := range op.logs {
		ids[i] = l.cfg.ID
	}
	if err := op.view.read(ctx, w.client, w.cfg.Contract, op.cfg.Address, w.cfg.FromBlock, w.cfg.ReorgDepth, ids); err != nil {
		failed[scope] = true
		return append(conds, sourceError(op.cfg.Address, format.Digest{}, "chain", err))
	}
	w.block = max(w.block, op.view.scanned)
	batches, batchTimes, err := op.view.batches(op.cfg.BatchesFile)
	if err != nil {
		failed[scope] = true
		return append(conds, sourceError(op.cfg.Address, format.Digest{}, "batches file", err))
	}
	conds = append(conds, op.reorgs(scope, append(ids, format.Digest{}))...)
	for _, l := range op.logs {
		conds = append(conds, w.judgeLog(ctx, now, scope, op, l, batches, batchTimes)...)
	}
	return conds
}

// reorgs remembers the first anchor seen for each epoch of the logs ids
// (the view holds those only) and returns a condition for each one the
// chain no longer holds.
func (op *operatorState) reorgs(scope string, ids []format.Digest) []condition {
	now := map[logEpoch]seen{}
	for _, a := range op.view.anchors {
		k := logEpoch{a.log, a.Epoch}
		now[k] = a
		if _, ok := op.first[k]; !ok {
			op.first[k] = a
		}
	}
	var conds []condition
	for _, id := range ids {
		for e := uint64(0); ; e++ {
			k := logEpoch{id, e}
			was, ok := op.first[k]
			if !ok {
				break
			}
			ev := Event{Operator: op.cfg.Address.Hex(), Log: id.String(), Epoch: &e, Expected: was.Root.String()}
			switch is, ok := now[k]; {
			case !ok:
				ev.Alarm = KindAnchorReorged
				ev.Detail = fmt.Sprintf("epoch %d of %s was anchored (%s) and is no longer on chain: a reorg took it, and it was not anchored again", e, name(id), was.Source)
			case is.Root != was.Root:
				ev.Alarm, ev.Found = KindAnchorReplaced, is.Root.String()
				ev.Detail = fmt.Sprintf("epoch %d of %s was anchored with root %s (%s); after a reorg another root stands for it (%s): the operator key anchored two roots for one epoch", e, name(id), was.Root, was.Source, is.Source)
			default:
				continue
			}
			conds = append(conds, newCondition(scope, ev, fmt.Sprint(e)))
		}
	}
	return conds
}

// judgeLog returns the conditions of one log that hold, from the chain
// (per-log anchors and batches), its checkpoint and its replica; with a
// witness, it cosigns a new checkpoint that raised nothing.
func (w *Watcher) judgeLog(ctx context.Context, now time.Time, scope string, op *operatorState, l *logState, batches []format.Batch, batchTimes []uint64) []condition {
	opHex, id := op.cfg.Address.Hex(), l.cfg.ID
	var conds []condition
	perLog := op.view.of(id)
	union := make([]format.Anchor, 0, len(perLog))
	chained := map[uint64]format.Digest{} // epochs anchored on chain, per log or in a batch
	var last *uint64
	var lastTime uint64
	for _, a := range perLog {
		union = append(union, a.Anchor)
		chained[a.Epoch] = a.Root
		last, lastTime = &a.Epoch, max(lastTime, a.time)
	}
	for i, b := range batches {
		for _, e := range b.Entries {
			if e.Log == id {
				if _, ok := chained[e.Epoch]; !ok {
					chained[e.Epoch] = e.Root
				}
				if last == nil || e.Epoch > *last {
					last = &e.Epoch
				}
				lastTime = max(lastTime, batchTimes[i])
			}
		}
	}
	ca, err := verifier.BatchAnchors{Batches: verifier.BatchList(batches), Log: id}.CheckAnchors(ctx)
	if err != nil {
		return []condition{sourceError(op.cfg.Address, id, "batches", err)}
	}
	union = append(union, ca.Anchors...)
	union = append(union, l.leaves...)
	findings, err := anchorFindings(ctx, &verifier.CheckedAnchors{Anchors: union, Findings: ca.Findings, Partial: ca.Partial})
	if err != nil {
		return []condition{sourceError(op.cfg.Address, id, "verifier", err)}
	}
	conflicted := false
	for _, f := range findings {
		ev := Event{Operator: opHex, Log: id.String(), Epoch: f.Epoch, Expected: f.Expected, Found: f.Found, Detail: f.Detail}
		switch f.Kind {
		case verifier.KindBatchWithheld:
			// Withheld contents hide anchors of any log: one alarm per
			// operator, whichever log found it.
			ev.Alarm, ev.Log = KindBatchWithheld, ""
			conds = append(conds, newCondition(scope, ev, f.Detail))
		case verifier.KindAnchorConflict:
			conflicted = true
			ev.Alarm = KindAnchorConflict
			epoch := ""
			if f.Epoch != nil {
				epoch = fmt.Sprint(*f.Epoch)
				ev.Detail += "; anchors of epoch " + epoch + ": " + sources(union, *f.Epoch)
			}
			conds = append(conds, newCondition(scope, ev, epoch, f.Expected, f.Found))
		}
	}
	l.lastEpoch, l.lastTime = last, lastTime
	if l.cfg.Window > 0 && !l.cfg.MayIdle {
		ref, what := w.started, "no anchor since the watcher started"
		if last != nil {
			ref = time.Unix(int64(lastTime), 0)
			what = fmt.Sprintf("the last anchor (epoch %d) is from %s,", *last, ref.UTC().Format(time.RFC3339))
		}
		if age := now.Sub(ref); age > l.cfg.Window {
			conds = append(conds, newCondition(scope, Event{Alarm: KindAnchorLate, Operator: opHex, Log: id.String(), Epoch: last,
				Detail: fmt.Sprintf("%s %s ago: longer than the declared window of %s", what, age.Round(time.Second), l.cfg.Window)}))
		}
	}
	if l.cp != nil && l.cfg.Window > 0 {
		var late []uint64
		for e := range l.cp.Size {
			if _, ok := chained[e]; !ok && now.Sub(l.seenAt(e)) > l.cfg.Window {
				late = append(late, e)
			}
		}
		if len(late) > 0 {
			conds = append(conds, newCondition(scope, Event{Alarm: KindCheckpointUnanchored, Operator: opHex, Log: id.String(), Epoch: &late[0],
				Detail: fmt.Sprintf("%d epochs of the checkpoint of size %d (from epoch %d, first seen %s) have no anchor on chain after the declared window of %s",
					len(late), l.cp.Size, late[0], l.seenAt(late[0]).UTC().Format(time.RFC3339), l.cfg.Window)}))
		}
	}
	if l.pos != nil {
		conds = append(conds, l.judgeReplica(now, scope, opHex, chained, last)...)
	}
	if w.opts.Witness != nil && l.cp != nil && l.cp.Size > l.cosigned && !conflicted {
		if err := l.cosign(w.opts.Witness); err != nil {
			conds = append(conds, sourceError(op.cfg.Address, id, "witness", err))
		}
	}
	return conds
}

// judgeReplica returns the replica's conditions: behind the chain (or the
// checkpoint) and not advancing, or holding another root.
func (l *logState) judgeReplica(now time.Time, scope, opHex string, chained map[uint64]format.Digest, last *uint64) []condition {
	var conds []condition
	id := l.cfg.ID
	want := uint64(0)
	if last != nil {
		want = *last + 1
	}
	if l.cp != nil {
		want = max(want, l.cp.Size)
	}
	if p := l.pos; p.Epochs < want && l.cfg.ReplicaStall > 0 && now.Sub(l.advancedAt) > l.cfg.ReplicaStall {
		conds = append(conds, newCondition(scope, Event{Alarm: KindReplicaStalled, Operator: opHex, Log: id.String(), Epoch: &p.Epochs,
			Detail: fmt.Sprintf("the replica holds %d epochs, the chain and checkpoint show %d, and it has not advanced since %s (longer than %s)",
				p.Epochs, want, l.advancedAt.UTC().Format(time.RFC3339), l.cfg.ReplicaStall)}))
	}
	if p := l.pos; p.Epochs > 0 {
		e := p.Epochs - 1
		root, ok := chained[e]
		if !ok && e < uint64(len(l.leaves)) {
			root, ok = l.leaves[e].Root, true
		}
		if ok && root != p.LastRoot {
			conds = append(conds, newCondition(scope, Event{Alarm: KindReplicaConflict, Operator: opHex, Log: id.String(), Epoch: &e,
				Expected: root.String(), Found: p.LastRoot.String(),
				Detail: fmt.Sprintf("the replica's epoch %d has root %s, the root anchored for it is %s: the replica or the log was rewritten", e, p.LastRoot, root)},
				p.LastRoot.String()))
		}
	}
	return conds
}

// sources lists the anchors of epoch e with their sources.
func sources(as []format.Anchor, e uint64) string {
	var s string
	for _, a := range as {
		if a.Epoch == e {
			if s != "" {
				s += "; "
			}
			s += a.Root.String() + " (" + a.Source + ")"
		}
	}
	return s
}

// seenAt is when the watcher first saw a checkpoint covering epoch e.
func (l *logState) seenAt(e uint64) time.Time {
	for _, s := range l.sizes {
		if e < s.size {
			return s.at
		}
	}
	return time.Time{}
}

// readCheckpoint reads the log's published checkpoint and returns its
// conditions (invalid, fork); a checkpoint that verifies and extends the
// largest seen becomes the log's.
func (l *logState) readCheckpoint(ctx context.Context, now time.Time, op common.Address, failed map[string]bool) []condition {
	if l.cfg.Checkpoint == "" {
		return nil
	}
	id := l.cfg.ID
	scope := "checkpoint/" + id.String()
	invalid := func(err error) []condition {
		return []condition{newCondition(scope, Event{Alarm: KindCheckpointInvalid, Operator: op.Hex(), Log: id.String(),
			Detail: fmt.Sprintf("checkpoint %s: %v", l.cfg.Checkpoint, err)})}
	}
	pub, err := checkpoint.ReadPublished(ctx, l.cfg.Checkpoint)
	var missing *checkpoint.LeavesMissingError
	switch {
	case errors.Is(err, checkpoint.ErrMalformed), errors.As(err, &missing), errors.Is(err, format.ErrAnchorsFile):
		return invalid(err)
	case err != nil:
		failed[scope] = true
		return []condition{sourceError(op, id, "checkpoint", err)}
	}
	cp, leaves, err := checkpoint.Open(pub, l.cfg.Policy, id)
	if errors.Is(err, checkpoint.ErrLeaves) && string(pub.Note) != string(l.badNote) {
		// The operator replaces the leaves, then the note: a reader in
		// between sees new leaves beside the old note. Judged at the next
		// poll, if the same note is still there.
		l.badNote = pub.Note
		failed[scope] = true
		return nil
	}
	l.badNote = nil
	if err != nil {
		return invalid(err)
	}
	n := min(len(leaves), len(l.leaves))
	for e := range n {
		if leaves[e].Root != l.leaves[e].Root {
			ep := uint64(e)
			return []condition{newCondition(scope, Event{Alarm: KindCheckpointFork, Operator: op.Hex(), Log: id.String(), Epoch: &ep,
				Expected: l.leaves[e].Root.String(), Found: leaves[e].Root.String(),
				Detail: fmt.Sprintf("checkpoint %s (size %d) gives epoch %d another root than the checkpoint of size %d seen before: the operator signed two histories of the log", l.cfg.Checkpoint, cp.Size, e, l.cp.Size)},
				fmt.Sprint(e))}
		}
	}
	if len(leaves) > len(l.leaves) {
		l.cp, l.leaves = cp, leaves
		l.sizes = append(l.sizes, sizeSeen{cp.Size, now})
	}
	return nil
}

// cosignedPath is where the witness keeps the log's cosigned checkpoint.
func cosignedPath(dir string, id format.Digest) string {
	return filepath.Join(dir, fmt.Sprintf("%x.checkpoint", id[:]))
}

// readCosigned reads the checkpoint the witness last cosigned for the log,
// if any: its leaves are the history every later checkpoint must extend.
func (l *logState) readCosigned(ctx context.Context, dir string, now time.Time) error {
	path := cosignedPath(dir, l.cfg.ID)
	pub, err := checkpoint.ReadPublished(ctx, path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("watch: the witness's checkpoint: %w", err)
	}
	operatorOnly := &checkpoint.Policy{Operator: l.cfg.Policy.Operator, OriginPrefix: l.cfg.Policy.OriginPrefix}
	cp, leaves, err := checkpoint.Open(pub, operatorOnly, l.cfg.ID)
	if err != nil {
		return fmt.Errorf("watch: the witness's checkpoint %s: %w", path, err)
	}
	l.cp, l.leaves, l.cosigned = cp, leaves, cp.Size
	l.sizes = append(l.sizes, sizeSeen{cp.Size, now})
	return nil
}

// cosign cosigns the log's checkpoint and writes it, with its leaves.
func (l *logState) cosign(wt *Witness) error {
	out, err := checkpoint.Cosign(l.cp.Note, wt.Signer)
	if err != nil {
		return err
	}
	if err := checkpoint.WritePublished(cosignedPath(wt.Dir, l.cfg.ID), out, l.leaves); err != nil {
		return err
	}
	l.cosigned = l.cp.Size
	return nil
}

// anchorFindings returns the verifier's findings about anchors alone: ca's
// own (a batch's), and its checks of the anchors against one another (two
// roots for an epoch, broken back-pointers, gaps unless ca is partial).
// They are what VerifyLog finds of anchor_conflict and batch_withheld in a
// log with no epochs, which no other check of it reports.
func anchorFindings(ctx context.Context, ca *verifier.CheckedAnchors) ([]verifier.Finding, error) {
	rep, err := verifier.VerifyLog(ctx, noLog{}, checked{ca}, verifier.Options{Payloads: verifier.PayloadsSkip})
	if err != nil {
		return nil, err
	}
	var out []verifier.Finding
	for _, f := range rep.Findings {
		if f.Kind == verifier.KindAnchorConflict || f.Kind == verifier.KindBatchWithheld {
			out = append(out, f)
		}
	}
	return out, nil
}

// noLog is a log with nothing in it.
type noLog struct{}

func (noLog) Records(func(uint64, []byte) error) error  { return nil }
func (noLog) Payloads(func(uint64, []byte) error) error { return nil }
func (noLog) Epochs(func(uint64, []byte) error) error   { return nil }

// checked is a verifier.AnchorChecker of anchors already read.
type checked struct{ ca *verifier.CheckedAnchors }

func (c checked) Anchors(context.Context) ([]format.Anchor, error) { return c.ca.Anchors, nil }
func (c checked) CheckAnchors(context.Context) (*verifier.CheckedAnchors, error) {
	return c.ca, nil
}
