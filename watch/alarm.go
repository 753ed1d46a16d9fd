package watch

import (
	"sort"
	"strings"
	"time"
)

// Kind names an alarm. docs/WATCH.md says what raises each.
type Kind string

// The alarms a Watcher raises.
const (
	// KindAnchorLate: no anchor of the log (per log or in a batch) for
	// longer than its window.
	KindAnchorLate Kind = "anchor_late"
	// KindCheckpointUnanchored: epochs a published checkpoint covers have
	// no anchor on chain a window after the watcher first saw them.
	KindCheckpointUnanchored Kind = "checkpoint_unanchored"
	// KindAnchorConflict: the anchors of one log contradict each other
	// (per log against batch, two batches, chain against checkpoint): two
	// roots for an epoch, a back-pointer that is not the previous root, a
	// gap.
	KindAnchorConflict Kind = "anchor_conflict"
	// KindBatchWithheld: the contents of an anchored batch are not
	// available, so an anchor of a watched log in it cannot be excluded.
	KindBatchWithheld Kind = "batch_withheld"
	// KindAnchorReorged: an anchor the watcher saw on chain is no longer
	// there, and nothing replaced it (yet).
	KindAnchorReorged Kind = "anchor_reorged"
	// KindAnchorReplaced: an anchor the watcher saw on chain is gone and
	// another root now stands for its epoch.
	KindAnchorReplaced Kind = "anchor_replaced"
	// KindCheckpointInvalid: the published checkpoint does not verify
	// under the log's policy, or its leaves do not match it.
	KindCheckpointInvalid Kind = "checkpoint_invalid"
	// KindCheckpointFork: the published checkpoint is not consistent with
	// one the watcher saw (or cosigned) before.
	KindCheckpointFork Kind = "checkpoint_fork"
	// KindReplicaStalled: the log's replica holds fewer epochs than the
	// chain or the checkpoint shows, and has not advanced for longer than
	// its stall bound.
	KindReplicaStalled Kind = "replica_stalled"
	// KindReplicaConflict: the replica's last epoch root is not the root
	// anchored (or checkpointed) for that epoch.
	KindReplicaConflict Kind = "replica_conflict"
	// KindSourceError: a source could not be read (the chain, a
	// checkpoint, a batches file, a replica) or a node's answers
	// contradict the contract; what depends on it is neither raised nor
	// cleared meanwhile.
	KindSourceError Kind = "source_error"
)

// Kinds returns every alarm kind, in the order of docs/WATCH.md.
func Kinds() []Kind {
	return []Kind{KindAnchorLate, KindCheckpointUnanchored, KindAnchorConflict, KindBatchWithheld, KindAnchorReorged,
		KindAnchorReplaced, KindCheckpointInvalid, KindCheckpointFork, KindReplicaStalled, KindReplicaConflict, KindSourceError}
}

// State is whether an Event raises an alarm or clears it.
type State string

const (
	Raised  State = "raised"
	Cleared State = "cleared"
)

// Event is one line of afr watch's output (docs/WATCH.md, "Output"): an
// alarm raised, or the same alarm (same Key) cleared. An alarm is raised
// once, when its condition first holds, and cleared once, when it no
// longer holds.
type Event struct {
	Time  time.Time `json:"time"`
	State State     `json:"state"`
	Alarm Kind      `json:"alarm"`
	// Key names the condition: the raised line and its cleared line carry
	// the same key, and no two active alarms share one.
	Key      string `json:"key"`
	Operator string `json:"operator,omitempty"`
	// Log is the log id; the zero id is the operator's batch chain.
	Log      string  `json:"log,omitempty"`
	Epoch    *uint64 `json:"epoch,omitempty"`
	Expected string  `json:"expected,omitempty"`
	Found    string  `json:"found,omitempty"`
	Detail   string  `json:"detail"`
	// RaisedAt, on a cleared line, is when the alarm was raised.
	RaisedAt *time.Time `json:"raised_at,omitempty"`
}

// condition is an alarm's condition found to hold in one poll.
type condition struct {
	Event
	// scope is what the condition was judged from ("chain/<operator>",
	// "checkpoint/<log>"; "" for source errors, judged every poll): an
	// active alarm whose scope could not be read in a poll stays as it is.
	scope string
}

// newCondition keys a condition by kind, operator, log and the parts that
// tell apart two conditions of one kind on one log.
func newCondition(scope string, ev Event, parts ...string) condition {
	ev.Key = strings.Join(append([]string{string(ev.Alarm), ev.Operator, ev.Log}, parts...), "/")
	return condition{ev, scope}
}

// alarms deduplicates conditions into alarms: one raised Event per
// condition until it clears.
type alarms struct {
	active map[string]condition
	raised map[Kind]uint64
}

func newAlarms() *alarms { return &alarms{active: map[string]condition{}, raised: map[Kind]uint64{}} }

// update takes the conditions that hold now and returns the events: a
// raised one for each condition not active yet (in the order given), a
// cleared one for each active alarm whose condition no longer holds and
// whose scope was read (by key).
func (a *alarms) update(now time.Time, conds []condition, failed map[string]bool) []Event {
	var out []Event
	holds := map[string]bool{}
	for _, c := range conds {
		if holds[c.Key] {
			continue
		}
		holds[c.Key] = true
		if _, ok := a.active[c.Key]; ok {
			continue
		}
		c.Time, c.State = now, Raised
		a.active[c.Key] = c
		a.raised[c.Alarm]++
		out = append(out, c.Event)
	}
	keys := make([]string, 0, len(a.active))
	for k := range a.active {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := a.active[k]
		if holds[k] || failed[c.scope] {
			continue
		}
		delete(a.active, k)
		ev := c.Event
		raisedAt := ev.Time
		ev.Time, ev.State, ev.RaisedAt = now, Cleared, &raisedAt
		out = append(out, ev)
	}
	return out
}

// list returns the active alarms, by key.
func (a *alarms) list() []Event {
	out := make([]Event, 0, len(a.active))
	for _, c := range a.active {
		out = append(out, c.Event)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
