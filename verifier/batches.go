package verifier

import (
	"context"
	"fmt"
	"sort"

	"github.com/agentflightrecorder/afr/format"
)

// BatchSource supplies every batch an operator anchored, in any order.
// An error means the batches could not be read at all, never a verdict.
type BatchSource interface {
	Batches(ctx context.Context) ([]format.Batch, error)
}

// BatchList is an in-memory BatchSource.
type BatchList []format.Batch

// Batches implements BatchSource.
func (l BatchList) Batches(context.Context) ([]format.Batch, error) { return l, nil }

// AnchorChecker is an AnchorSource that judges the anchors it derives as
// it reads them (BatchAnchors: withheld batch contents, an epoch in two
// batches). VerifyLog and VerifyBundle use CheckAnchors when a source
// implements it and add its findings to their report.
type AnchorChecker interface {
	AnchorSource
	CheckAnchors(ctx context.Context) (*CheckedAnchors, error)
}

// CheckedAnchors is what an AnchorChecker read.
type CheckedAnchors struct {
	Anchors  []format.Anchor
	Findings []Finding
	// Partial says that anchors may be missing from Anchors for a reason
	// the findings name (contents not available): a gap in the epochs is
	// then not a conflict, and the findings keep the verdict incomplete.
	Partial bool
}

// BatchAnchors is the AnchorSource of one log anchored in an operator's
// aggregate batches: the entries of log Log, each an Anchor whose Source
// names its batch and position.
//
// EpochAnchor enforces no gap, no rewrite and no fork for the batch chain
// itself; for each log the verifier enforces the same from the batches'
// contents, which is why it needs all of them: a batch whose contents are
// not available could hold a second root for one of this log's epochs, so
// it makes the verdict at best incomplete (batch_withheld). Within the
// available contents, the log's entries must name consecutive epochs in
// batch order, each at most once (anchor_conflict otherwise); gaps,
// back-pointers and epoch 0 are checked with every other anchor.
type BatchAnchors struct {
	Batches BatchSource
	Log     format.Digest
}

// Anchors implements AnchorSource; CheckAnchors also returns the findings.
func (b BatchAnchors) Anchors(ctx context.Context) ([]format.Anchor, error) {
	ca, err := b.CheckAnchors(ctx)
	if err != nil {
		return nil, err
	}
	return ca.Anchors, nil
}

// CheckAnchors implements AnchorChecker.
func (b BatchAnchors) CheckAnchors(ctx context.Context) (*CheckedAnchors, error) {
	batches, err := b.Batches.Batches(ctx)
	if err != nil {
		return nil, err
	}
	batches = append([]format.Batch(nil), batches...)
	sort.SliceStable(batches, func(i, j int) bool { return batches[i].Number < batches[j].Number })
	var (
		out      []format.Anchor
		findings []Finding
		seen     = map[uint64]string{} // epoch → where it was anchored
		next     uint64                // the epoch the log's next entry must name
		started  bool
		expected uint64 // the batch number expected next
		partial  bool
	)
	// unavailable records a batch (or a run of batches) whose contents are
	// unknown: it may hold any number of this log's epochs, so the next
	// entry need not follow the last one seen.
	unavailable := func(f Finding) {
		findings = append(findings, f)
		partial, started = true, false
	}
	conflict := func(epoch uint64, detail string) {
		findings = append(findings, Finding{Kind: KindAnchorConflict, Epoch: u64(epoch), Detail: detail})
	}
	for i, bt := range batches {
		if i > 0 && bt.Number == batches[i-1].Number {
			if bt.Root != batches[i-1].Root {
				findings = append(findings, Finding{Kind: KindAnchorConflict, Expected: batches[i-1].Root.String(), Found: bt.Root.String(),
					Detail: fmt.Sprintf("two roots anchored for batch %d (equivocation by the operator key)", bt.Number)})
			}
			continue
		}
		if bt.Number != expected {
			// EpochAnchor accepts batch b only after b − 1: missing batches
			// could hold this log's epochs.
			unavailable(Finding{Kind: KindBatchWithheld,
				Detail: fmt.Sprintf("batches %d..%d are not among the anchored batches given: an anchor of this log in them cannot be excluded", expected, bt.Number-1)})
		}
		switch {
		case bt.Number == 0 && !bt.PrevRoot.IsZero():
			findings = append(findings, Finding{Kind: KindAnchorConflict, Found: bt.PrevRoot.String(),
				Detail: "batch 0 has a non-zero back-pointer"})
		case i > 0 && batches[i-1].Number == bt.Number-1 && batches[i-1].Root != bt.PrevRoot:
			findings = append(findings, Finding{Kind: KindAnchorConflict, Expected: batches[i-1].Root.String(), Found: bt.PrevRoot.String(),
				Detail: fmt.Sprintf("batch %d's back-pointer is not the root of batch %d", bt.Number, bt.Number-1)})
		}
		expected = bt.Number + 1
		if bt.Entries == nil {
			unavailable(Finding{Kind: KindBatchWithheld,
				Detail: fmt.Sprintf("the contents of batch %d are not available: an anchor of this log in it cannot be excluded", bt.Number)})
			continue
		}
		if root, err := format.BatchRoot(bt.Number, bt.Entries); err != nil || root != bt.Root {
			unavailable(Finding{Kind: KindBatchWithheld, Expected: bt.Root.String(), Found: root.String(),
				Detail: fmt.Sprintf("the published contents of batch %d do not give its anchored root: its real contents are not available", bt.Number)})
			continue
		}
		for j, e := range bt.Entries {
			if e.Log != b.Log {
				continue
			}
			where := fmt.Sprintf("batch %d entry %d", bt.Number, j)
			if bt.Source != "" {
				where += " (" + bt.Source + ")"
			}
			if prev, dup := seen[e.Epoch]; dup {
				conflict(e.Epoch, fmt.Sprintf("epoch %d of this log is anchored twice: in %s and in %s", e.Epoch, prev, where))
				continue
			}
			if started && e.Epoch != next {
				conflict(e.Epoch, fmt.Sprintf("%s anchors epoch %d of this log where epoch %d comes next: the batches skip or reorder its epochs", where, e.Epoch, next))
			}
			seen[e.Epoch] = where
			started, next = true, e.Epoch+1
			out = append(out, format.Anchor{Epoch: e.Epoch, Root: e.Root, PrevRoot: e.PrevRoot, Source: where})
		}
	}
	return &CheckedAnchors{Anchors: out, Findings: findings, Partial: partial}, nil
}

// readAnchors reads the anchors of src, adding the findings of an
// AnchorChecker to c. complete says that a gap in the anchors' epochs is a
// conflict (false when the source says anchors may be missing).
func readAnchors(ctx context.Context, src AnchorSource, c *collector) (as []format.Anchor, complete bool, err error) {
	if src == nil {
		return nil, true, nil
	}
	if ac, ok := src.(AnchorChecker); ok {
		ca, err := ac.CheckAnchors(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("verifier: reading anchors: %w", err)
		}
		for _, f := range ca.Findings {
			c.add(f)
		}
		return ca.Anchors, !ca.Partial, nil
	}
	if as, err = src.Anchors(ctx); err != nil {
		return nil, false, fmt.Errorf("verifier: reading anchors: %w", err)
	}
	return as, true, nil
}

// BatchesFile is a BatchSource reading a batches file
// (format.ReadBatchesFile; docs/SPEC.md, "Batches file"). A file that breaks
// the format is an error wrapping format.ErrBatchesFile.
type BatchesFile string

// Batches implements BatchSource: every batch in the file, taken as
// anchored. Use it for batches whose roots come from a trusted copy;
// verifier/onchain reads the anchored roots from the chain and the
// contents from this file.
func (f BatchesFile) Batches(context.Context) ([]format.Batch, error) {
	return format.ReadBatchesFile(string(f))
}
