package onchain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// ChainBatches is a verifier.BatchSource reading an operator's aggregate
// batches (docs/SPEC.md, "Aggregate batches") from an EpochAnchor contract:
// the anchored roots are the operator's batch chain (log id 0), read with
// the same checks as ChainAnchors (the events form a chain whose last is
// the contract's head), and each batch's contents come from the chain —
// the BatchContents event anchorBatch emits in the same transaction — or,
// for batches anchored with anchor(0, …), from the operator's batches file.
//
// A file may hold lines that were never anchored (written before a
// submission that did not land) and several lines for one batch number:
// per batch, the line whose root was anchored is kept. Contents found
// nowhere are left nil: verifier.BatchAnchors makes such a batch
// batch_withheld (incomplete), since it could hold any log's epochs.
type ChainBatches struct {
	Client   ChainReader
	Contract common.Address
	Operator common.Address
	// FromBlock is where the event search starts (the deployment block).
	FromBlock uint64
	// File is the operator's batches file (docs/SPEC.md, "Batches file");
	// empty when the operator publishes its batches in events only.
	File string
}

// Batches implements verifier.BatchSource, at the latest block.
func (c ChainBatches) Batches(ctx context.Context) ([]format.Batch, error) {
	at, err := c.Client.BlockNumber(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain batches: block number: %w", err)
	}
	return c.batchesAt(ctx, at)
}

// batchesAt reads the batches anchored up to block at.
func (c ChainBatches) batchesAt(ctx context.Context, at uint64) ([]format.Batch, error) {
	chained, err := readChain(ctx, c.Client, c.Contract, c.Operator, format.Digest{}, c.FromBlock, at)
	if err != nil {
		return nil, err
	}
	out := make([]format.Batch, len(chained))
	if len(chained) == 0 {
		return out, nil
	}
	txs := make([]common.Hash, len(chained))
	for i, a := range chained {
		out[i] = format.Batch{Number: a.Epoch, Root: a.Root, PrevRoot: a.PrevRoot, Source: a.Source}
		txs[i] = a.tx
	}
	evs, err := chain.FilterBatchContents(ctx, c.Client, chain.BatchContentsQuery{Contract: c.Contract, Operator: c.Operator,
		FromBlock: c.FromBlock, ToBlock: blockNumber(at)})
	if err != nil {
		return nil, fmt.Errorf("chain batches: %w", err)
	}
	if err := AttachContents(out, txs, evs, c.File); err != nil {
		return nil, fmt.Errorf("chain batches: %w", err)
	}
	return out, nil
}

// AttachContents fills in the entries of anchored batches: batches[i] is
// batch i of an operator's batch chain (its number, root and back-pointer
// as anchored), anchored in transaction txs[i]. Contents come from the
// operator's BatchContents events evs — anchorBatch emits them right after
// the batch's Anchored event, in the same transaction; an event of another
// transaction is not the anchored batch's — or else from the line of the
// batches file (file, "" for none; a missing file is none) whose root was
// anchored. Contents that do not give the anchored root are no contents:
// the batch's Entries stay nil (withheld). Only an unreadable file is an
// error.
func AttachContents(batches []format.Batch, txs []common.Hash, evs []*bindings.EpochAnchorBatchContents, file string) error {
	for _, ev := range evs {
		i := ev.Batch
		if i >= uint64(len(batches)) || batches[i].Entries != nil || txs[i] != ev.Raw.TxHash {
			continue // not the contents of an anchored batch (another transaction)
		}
		entries, err := format.DecodeBatchEntries(ev.Entries)
		if err != nil {
			continue // malformed contents are no contents: withheld
		}
		if root, _ := format.BatchRoot(i, entries); root == batches[i].Root {
			batches[i].Entries = entries
			batches[i].Source += ", contents in its BatchContents event"
		}
	}
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		// No file: every batch anchored without event contents is withheld.
		return nil
	}
	if err != nil {
		return err
	}
	// Only lines whose root was anchored matter: a malformed line (a
	// damaged copy) is no contents, so its batch is withheld, not an error.
	lines, _ := format.ScanBatches(b)
	for _, l := range lines {
		if i := l.Number; i < uint64(len(batches)) && batches[i].Entries == nil && l.Root == batches[i].Root {
			batches[i].Entries = l.Entries
			batches[i].Source += ", contents in " + file
		}
	}
	return nil
}

// LogAnchors is the verifier.AnchorSource of one log of one operator: the
// anchors it committed per log (ChainAnchors) and those it committed in its
// aggregate batches (ChainBatches, through verifier.BatchAnchors), read at
// one block. As a verifier.AnchorChecker it also returns the batches'
// findings (batch_withheld, anchor_conflict); the verifier checks the
// union of both kinds of anchors for conflicts, so an epoch anchored per
// log and in a batch with different roots is an equivocation.
//
// When the operator has no anchor at all for the log, the verdict is at
// best incomplete (unanchored), never tampered: another operator's
// anchors say nothing about this one's. LogAnchors then adds an
// unanchored finding naming the operators that did anchor this log id per
// log (Anchored events with its log id topic), if any — the usual cause is
// a wrong --operator.
type LogAnchors struct {
	Client   ChainReader
	Contract common.Address
	Operator common.Address
	LogID    format.Digest
	// FromBlock is where the event search starts (the deployment block).
	FromBlock uint64
	// BatchesFile is the operator's batches file (see ChainBatches.File).
	BatchesFile string
}

// Anchors implements verifier.AnchorSource.
func (l LogAnchors) Anchors(ctx context.Context) ([]format.Anchor, error) {
	ca, err := l.CheckAnchors(ctx)
	if err != nil {
		return nil, err
	}
	return ca.Anchors, nil
}

// CheckAnchors implements verifier.AnchorChecker.
func (l LogAnchors) CheckAnchors(ctx context.Context) (*verifier.CheckedAnchors, error) {
	if l.LogID.IsZero() {
		return nil, errors.New("log anchors: no log id (log id zero is the batch chain)")
	}
	at, err := l.Client.BlockNumber(ctx)
	if err != nil {
		return nil, fmt.Errorf("log anchors: block number: %w", err)
	}
	perLog, err := readChain(ctx, l.Client, l.Contract, l.Operator, l.LogID, l.FromBlock, at)
	if err != nil {
		return nil, err
	}
	batches, err := ChainBatches{Client: l.Client, Contract: l.Contract, Operator: l.Operator, FromBlock: l.FromBlock, File: l.BatchesFile}.batchesAt(ctx, at)
	if err != nil {
		return nil, err
	}
	ca, err := verifier.BatchAnchors{Batches: verifier.BatchList(batches), Log: l.LogID}.CheckAnchors(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]format.Anchor, 0, len(perLog)+len(ca.Anchors))
	for _, a := range perLog {
		out = append(out, a.Anchor)
	}
	ca.Anchors = append(out, ca.Anchors...)
	if len(ca.Anchors) == 0 && len(ca.Findings) == 0 {
		f, err := l.noAnchors(ctx, at, len(batches))
		if err != nil {
			return nil, err
		}
		ca.Findings = append(ca.Findings, f)
	}
	return ca, nil
}

// noAnchors is the finding for an operator without anchors for the log: it
// names the operators whose Anchored events carry the log id.
func (l LogAnchors) noAnchors(ctx context.Context, at uint64, batches int) (verifier.Finding, error) {
	id := [32]byte(l.LogID)
	evs, err := chain.FilterAnchored(ctx, l.Client, chain.AnchoredQuery{Contract: l.Contract, LogID: &id, FromBlock: l.FromBlock, ToBlock: blockNumber(at)})
	if err != nil {
		return verifier.Finding{}, fmt.Errorf("log anchors: who anchored the log: %w", err)
	}
	var others []string
	for _, ev := range evs {
		if s := ev.Operator.Hex(); ev.Operator != l.Operator && !slices.Contains(others, s) {
			others = append(others, s)
		}
	}
	detail := fmt.Sprintf("operator %s has no anchors for log %s on EpochAnchor %s, neither per log nor in its %d batches (hint: is --operator the address of the log's operator?)", l.Operator, l.LogID, l.Contract, batches)
	if len(others) > 0 {
		// Anyone can anchor under any log id: these addresses are leads to
		// check with the log's owner, never a recommendation.
		detail += fmt.Sprintf("; per-log anchors of this log id exist from %s — anyone can anchor under any log id, so an address that did says nothing about who runs the log: confirm the operator's address with the log's owner before verifying against it", strings.Join(others, ", "))
	} else {
		detail += "; no address anchored this log id per log (anchors in other operators' batches are not searched)"
	}
	return verifier.Finding{Kind: verifier.KindUnanchored, Detail: detail}, nil
}
