package watch

import (
	"context"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// seen is one Anchored event as the watcher read it.
type seen struct {
	format.Anchor
	log   format.Digest // zero: the operator's batch chain
	tx    common.Hash
	block uint64
	time  uint64 // the block's timestamp (Unix seconds)
}

// view is what the watcher holds of one operator's events on the chain:
// every Anchored and BatchContents event up to block scanned, kept
// between polls and re-read from scanned − Config.ReorgDepth at each.
type view struct {
	started  bool
	scanned  uint64
	anchors  []seen // chain order
	contents []*bindings.EpochAnchorBatchContents
	times    map[uint64]uint64 // block number → timestamp, for events without one
}

// read brings v up to the chain's latest block: it re-reads the events of
// the last depth blocks (those a reorg can have replaced) and the blocks
// since, and checks the result against the contract's heads of the batch
// chain and of every log in logs at that block. A head that does not match
// (a reorg deeper than depth, or a node that hid events) is read once more
// from the deployment block; a mismatch then is the node's doing, a
// *chain.NodeError.
func (v *view) read(ctx context.Context, c onchain.ChainReader, contract, operator common.Address, fromBlock, depth uint64, logs []format.Digest) error {
	head, err := c.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("block number: %w", err)
	}
	from := fromBlock
	if v.started {
		last := min(v.scanned, head) + 1
		from = max(fromBlock, last-min(last, depth))
	}
	watched := map[format.Digest]bool{{}: true}
	for _, id := range logs {
		watched[id] = true
	}
	if err := v.scan(ctx, c, contract, operator, from, head, watched); err != nil {
		return err
	}
	err = v.checkHeads(ctx, c, contract, operator, head, logs)
	if err != nil && from > fromBlock {
		if err = v.scan(ctx, c, contract, operator, fromBlock, head, watched); err == nil {
			err = v.checkHeads(ctx, c, contract, operator, head, logs)
		}
	}
	if err != nil {
		v.started = false // read everything again next time
		return err
	}
	v.started, v.scanned = true, head
	return nil
}

// scan replaces the events of blocks from..to with the chain's, keeping
// the anchors of the watched logs and of the batch chain only.
func (v *view) scan(ctx context.Context, c onchain.ChainReader, contract, operator common.Address, from, to uint64, watched map[format.Digest]bool) error {
	evs, err := chain.FilterAnchored(ctx, c, chain.AnchoredQuery{Contract: contract, Operator: &operator, FromBlock: from, ToBlock: new(big.Int).SetUint64(to)})
	if err != nil {
		return err
	}
	cs, err := chain.FilterBatchContents(ctx, c, chain.BatchContentsQuery{Contract: contract, Operator: operator, FromBlock: from, ToBlock: new(big.Int).SetUint64(to)})
	if err != nil {
		return err
	}
	keep := v.anchors[:0]
	for _, a := range v.anchors {
		if a.block < from {
			keep = append(keep, a)
		}
	}
	v.anchors = keep
	keepC := v.contents[:0]
	for _, ev := range v.contents {
		if ev.Raw.BlockNumber < from {
			keepC = append(keepC, ev)
		}
	}
	v.contents = append(keepC, cs...)
	if v.times == nil {
		v.times = map[uint64]uint64{}
	}
	for n := range v.times {
		if n >= from {
			delete(v.times, n)
		}
	}
	for _, ev := range evs {
		if !watched[ev.LogId] {
			continue
		}
		t := ev.Raw.BlockTimestamp
		if t == 0 {
			if t, err = v.blockTime(ctx, c, ev.Raw.BlockNumber); err != nil {
				return err
			}
		}
		v.anchors = append(v.anchors, seen{
			Anchor: format.Anchor{Epoch: ev.Epoch, Root: format.Digest(ev.Root), PrevRoot: format.Digest(ev.PrevRoot),
				Source: fmt.Sprintf("chain tx %s block %d", ev.Raw.TxHash, ev.Raw.BlockNumber)},
			log: format.Digest(ev.LogId), tx: ev.Raw.TxHash, block: ev.Raw.BlockNumber, time: t})
	}
	return nil
}

// blockTime is the timestamp of block n, for a node whose logs carry none.
func (v *view) blockTime(ctx context.Context, c onchain.ChainReader, n uint64) (uint64, error) {
	if t, ok := v.times[n]; ok {
		return t, nil
	}
	h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return 0, fmt.Errorf("header of block %d: %w", n, err)
	}
	v.times[n] = h.Time
	return h.Time, nil
}

// checkHeads compares the last event of the batch chain and of each log
// with the contract's head at block at, and checks that each one's events
// are the chain EpochAnchor keeps (epochs 0, 1, … each linking the last).
func (v *view) checkHeads(ctx context.Context, c onchain.ChainReader, contract, operator common.Address, at uint64, logs []format.Digest) error {
	ea := bindings.NewEpochAnchor()
	for _, id := range append([]format.Digest{{}}, logs...) {
		as := v.of(id)
		for i, a := range as {
			if a.Epoch != uint64(i) || i > 0 && a.PrevRoot != as[i-1].Root {
				return &chain.NodeError{Problem: fmt.Sprintf("the node's Anchored events of %s break at epoch %d (%s): EpochAnchor keeps one linked chain", name(id), a.Epoch, a.Source),
					Hint: "use another node"}
			}
		}
		res, err := c.CallContract(ctx, ethereum.CallMsg{To: &contract, Data: ea.PackHead(operator, id)}, new(big.Int).SetUint64(at))
		if err != nil {
			return fmt.Errorf("head of %s: %w", name(id), err)
		}
		h, err := ea.UnpackHead(res)
		if err != nil {
			return fmt.Errorf("head of %s: %w (hint: is %s an EpochAnchor?)", name(id), err, contract)
		}
		n := len(as)
		if h.Anchored != (n > 0) || n > 0 && (h.Epoch != as[n-1].Epoch || h.Commitment != bindings.AnchorCommitment(as[n-1].Epoch, as[n-1].Root)) {
			return &chain.NodeError{Problem: fmt.Sprintf("the contract's head of %s at block %d (anchored %v, epoch %d) does not match the %d Anchored events the node returned",
				name(id), at, h.Anchored, h.Epoch, n), Hint: "use an archive node, or another node"}
		}
	}
	return nil
}

// of returns the anchors of log id (zero: the batch chain), by epoch.
func (v *view) of(id format.Digest) []seen {
	var out []seen
	for _, a := range v.anchors {
		if a.log == id {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Epoch < out[j].Epoch })
	return out
}

// batches returns the operator's anchored batches with their contents
// (onchain.AttachContents: from BatchContents events, else the batches
// file), and the block time of each.
func (v *view) batches(file string) ([]format.Batch, []uint64, error) {
	chained := v.of(format.Digest{})
	out := make([]format.Batch, len(chained))
	txs := make([]common.Hash, len(chained))
	times := make([]uint64, len(chained))
	for i, a := range chained {
		out[i] = format.Batch{Number: a.Epoch, Root: a.Root, PrevRoot: a.PrevRoot, Source: a.Source}
		txs[i], times[i] = a.tx, a.time
	}
	if err := onchain.AttachContents(out, txs, v.contents, file); err != nil {
		return nil, nil, err
	}
	return out, times, nil
}

// name names a log id in messages.
func name(id format.Digest) string {
	if id.IsZero() {
		return "the batch chain (log id 0)"
	}
	return "log " + id.String()
}
