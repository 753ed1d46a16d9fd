package anchor

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
)

func (a *Anchorer) step(ctx context.Context) error {
	head, err := a.c.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("block number: %w", err)
	}
	if err := a.watchConfirmed(ctx); err != nil {
		return err
	}
	a.mu.Lock()
	pending := append([]*Entry(nil), a.q.Pending...)
	a.mu.Unlock()
	allMined := true
	for i, e := range pending {
		switch e.State {
		case StateMined:
			if err := a.checkMined(ctx, e, i == 0, head); err != nil {
				return err
			}
		case StateSent:
			allMined = false
			if err := a.checkSent(ctx, e); err != nil {
				return err
			}
		case StateQueued:
			if !allMined {
				return nil
			}
			allMined = false
			if err := a.submit(ctx, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// update applies f to the entry under the lock and persists the queue.
func (a *Anchorer) update(f func()) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
	if err := a.persistLocked(); err != nil {
		return fmt.Errorf("%w: %w", errPersist, err)
	}
	return nil
}

// watchConfirmed re-queues confirmed epochs that the chain no longer holds
// (a reorg deeper than the confirmation depth, or a chain reset).
func (a *Anchorer) watchConfirmed(ctx context.Context) error {
	a.mu.Lock()
	n := len(a.q.Anchored)
	var last uint64
	if n > 0 {
		last = a.q.Anchored[n-1].Epoch
	}
	a.mu.Unlock()
	if n == 0 {
		return nil
	}
	next, err := a.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next > last {
		return nil
	}
	a.opts.Logf("anchor: DEEP REORG: the chain holds epochs up to %d only, %d..%d were confirmed; re-anchoring them", int64(next)-1, next, last)
	return a.update(func() {
		var keep []Anchored
		var back []*Entry
		for _, an := range a.q.Anchored {
			if an.Epoch < next {
				keep = append(keep, an)
				continue
			}
			back = append(back, &Entry{Epoch: an.Epoch, Root: an.Root, PrevRoot: an.PrevRoot, FirstSeq: an.FirstSeq, Count: an.Count,
				Sealed: an.Sealed, Queued: a.opts.Now(), State: StateQueued})
		}
		for _, e := range a.q.Pending {
			e.State, e.Txs, e.Tx = StateQueued, nil, common.Hash{}
		}
		a.q.Anchored, a.q.Pending = keep, append(back, a.q.Pending...)
	})
}

func (a *Anchorer) checkMined(ctx context.Context, e *Entry, first bool, head uint64) error {
	rc, err := a.c.TransactionReceipt(ctx, e.Tx)
	if err != nil && !errors.Is(err, ethereum.NotFound) {
		return fmt.Errorf("receipt of epoch %d: %w", e.Epoch, err)
	}
	canonical := false
	if rc != nil && rc.BlockHash == e.BlockHash {
		h, err := a.c.HeaderByNumber(ctx, new(big.Int).SetUint64(e.Block))
		if err != nil {
			return fmt.Errorf("header %d: %w", e.Block, err)
		}
		canonical = h.Hash() == e.BlockHash
	}
	if !canonical {
		a.opts.Logf("anchor: reorg: the anchor of epoch %d (tx %s, block %d) left the chain; re-submitting", e.Epoch, e.Tx, e.Block)
		return a.update(func() {
			e0 := a.find(e.Epoch)
			e0.State, e0.Tx, e0.Block, e0.BlockHash, e0.SentAt = StateSent, common.Hash{}, 0, common.Hash{}, time.Time{}
		})
	}
	if !first || head+1 < e.Block+a.opts.Confirmations {
		return nil
	}
	return a.update(func() {
		now := a.opts.Now()
		a.q.Anchored = append(a.q.Anchored, Anchored{Epoch: e.Epoch, Root: e.Root, PrevRoot: e.PrevRoot, FirstSeq: e.FirstSeq, Count: e.Count,
			Events: e.FirstSeq + e.Count, Tx: e.Tx,
			Block: e.Block, BlockHash: e.BlockHash, GasUsed: e.GasUsed, Submissions: len(e.Txs), Sealed: e.Sealed,
			FirstSent: e.FirstSent, Mined: e.Mined, Confirmed: now})
		a.q.Pending = a.q.Pending[1:]
		a.opts.Logf("anchor: epoch %d confirmed (%d blocks deep, tx %s, %d gas)", e.Epoch, a.opts.Confirmations, e.Tx, e.GasUsed)
	})
}

// find returns the live entry for epoch (callers hold a.mu).
func (a *Anchorer) find(epoch uint64) *Entry {
	for _, e := range a.q.Pending {
		if e.Epoch == epoch {
			return e
		}
	}
	return &Entry{} // gone meanwhile: writes go nowhere
}

func (a *Anchorer) mined(epoch uint64, rc *types.Receipt) error {
	return a.update(func() {
		e := a.find(epoch)
		e.State, e.Tx, e.Block, e.BlockHash, e.GasUsed, e.Mined = StateMined, rc.TxHash, rc.BlockNumber.Uint64(), rc.BlockHash, rc.GasUsed, a.opts.Now()
	})
}

// resolve asks the chain what happened to an epoch whose transaction did not
// simply succeed: anchored by us after all, anchored by someone else, or not
// anchored (send it again).
func (a *Anchorer) resolve(ctx context.Context, e *Entry) error {
	next, err := a.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next > e.Epoch {
		ev, err := a.findAnchored(ctx, e.Epoch)
		if err != nil {
			return err
		}
		if ev == nil {
			return fmt.Errorf("epoch %d: the chain's next epoch is %d but no Anchored event was found yet", e.Epoch, next)
		}
		if ev.Root != e.Root {
			return &ForeignAnchorError{Operator: a.op, Log: a.log, Epoch: e.Epoch, Ours: e.Root, Theirs: format.Digest(ev.Root),
				Tx: ev.Raw.TxHash, Block: ev.Raw.BlockNumber, ChainNext: next}
		}
		rc, err := a.c.TransactionReceipt(ctx, ev.Raw.TxHash)
		if err != nil {
			return fmt.Errorf("receipt of epoch %d: %w", e.Epoch, err)
		}
		a.opts.Logf("anchor: epoch %d is on chain from an earlier submission (tx %s)", e.Epoch, ev.Raw.TxHash)
		return a.mined(e.Epoch, rc)
	}
	a.opts.Logf("anchor: epoch %d not on chain (chain expects %d); sending again with a fresh nonce", e.Epoch, next)
	return a.update(func() {
		e0 := a.find(e.Epoch)
		e0.State = StateQueued
	})
}

func (a *Anchorer) nextEpoch(ctx context.Context) (uint64, error) {
	out, err := a.c.CallContract(ctx, ethereum.CallMsg{To: &a.opts.Contract, Data: a.abi.PackNextEpoch(a.op, a.log)}, nil)
	if err != nil {
		return 0, fmt.Errorf("nextEpoch: %w", err)
	}
	if len(out) == 0 {
		return 0, fmt.Errorf("nextEpoch: no contract at %s (chain reset?)", a.opts.Contract)
	}
	return a.abi.UnpackNextEpoch(out)
}

// findAnchored returns the Anchored event of (operator, log, epoch), or nil.
func (a *Anchorer) findAnchored(ctx context.Context, epoch uint64) (*bindings.EpochAnchorAnchored, error) {
	id := [32]byte(a.log)
	evs, err := chain.FilterAnchored(ctx, a.c, chain.AnchoredQuery{Contract: a.opts.Contract, Operator: &a.op, LogID: &id, Epoch: &epoch, FromBlock: a.opts.FromBlock})
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		return nil, nil
	}
	return evs[len(evs)-1], nil
}
