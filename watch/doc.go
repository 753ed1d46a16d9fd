// Package watch is the anchoring watcher of AFR's threat model (docs/DESIGN.md
// §1: "an external watcher"): a party other than the operator that follows
// EpochAnchor for a set of operators and log ids — their per-log anchors
// and their aggregate batch chains — and, where the operator publishes
// them, their checkpoints and off-host replicas, and raises an alarm when
//
//   - a log's anchoring falls behind the window its operator declared
//     (anchor_late, checkpoint_unanchored);
//   - anchors conflict: per log against a batch, two batches, the chain
//     against a checkpoint, a broken back-pointer (anchor_conflict), a
//     batch whose contents are withheld (batch_withheld), an anchor seen
//     and then gone or replaced (anchor_reorged, anchor_replaced);
//   - a checkpoint does not verify or forks (checkpoint_invalid,
//     checkpoint_fork);
//   - a replica stops advancing or holds another root (replica_stalled,
//     replica_conflict);
//   - a source cannot be read (source_error).
//
// Nothing on chain declares an anchoring window: the watcher takes it from
// its configuration, per log (Log.Window), as the operator publishes it.
//
// A Watcher holds its view of the chain between polls: each Poll re-reads
// the last Config.ReorgDepth blocks and the new ones, checks what it holds
// against the contract's heads, and judges every condition again. Alarms
// are deduplicated: a condition raises one Event when it first holds and
// one "cleared" Event when it no longer does (Event.Key ties the two). The
// watcher's clock (Options.Now) and its polls are the caller's, so tests
// drive it step by step. Checks of anchors against one another are the
// verifier's own (verifier.BatchAnchors, and VerifyLog's checks of anchors
// run on anchors alone); batch
// contents are matched as onchain.AttachContents does for afr verify.
//
// With a Witness it cosigns each new checkpoint that verifies, extends
// every checkpoint of the log it saw or cosigned before, and contradicts
// no anchor on chain (C2SP tlog-cosignature, through package checkpoint).
//
// Collector exposes the watcher's state as Prometheus metrics; Webhook
// posts events to a URL. docs/WATCH.md documents the output and the
// configuration of afr watch.
//
// # Security
//
// The node is not trusted: events are checked against the contract's heads
// (a node that hides events is a source_error, never an alarm against the
// operator), and a reorg deeper than the depth re-read is noticed the same
// way. What the watcher remembers (the first root it saw for each epoch,
// the checkpoints it saw) is held in memory, except a witness's cosigned
// checkpoints: a restarted watcher has forgotten the anchors it saw before.
package watch
