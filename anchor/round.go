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

func (s *submitter) step(ctx context.Context) error {
	head, err := s.c.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("block number: %w", err)
	}
	if err := s.watchConfirmed(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	pending := append([]*Entry(nil), s.q.Pending...)
	s.mu.Unlock()
	allMined := true
	for i, e := range pending {
		switch e.State {
		case StateMined:
			if err := s.checkMined(ctx, e, i == 0, head); err != nil {
				return err
			}
		case StateSent:
			allMined = false
			if err := s.checkSent(ctx, e); err != nil {
				return err
			}
		case StateQueued:
			if !allMined {
				return nil
			}
			allMined = false
			if err := s.submit(ctx, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// watchConfirmed re-queues confirmed epochs that the chain no longer holds
// (a reorg deeper than the confirmation depth, or a chain reset).
func (s *submitter) watchConfirmed(ctx context.Context) error {
	s.mu.Lock()
	n := len(s.q.Anchored)
	var last uint64
	if n > 0 {
		last = s.q.Anchored[n-1].Epoch
	}
	s.mu.Unlock()
	if n == 0 {
		return nil
	}
	next, err := s.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next > last {
		return nil
	}
	s.opts.Logf("anchor: DEEP REORG: the chain holds %s up to %d only, %d..%d were confirmed; re-anchoring them", s.units(), int64(next)-1, next, last)
	return s.update(func() {
		var keep []Anchored
		var back []*Entry
		for _, an := range s.q.Anchored {
			if an.Epoch < next {
				keep = append(keep, an)
				continue
			}
			back = append(back, &Entry{Epoch: an.Epoch, Root: an.Root, PrevRoot: an.PrevRoot, FirstSeq: an.FirstSeq, Count: an.Count,
				Sealed: an.Sealed, Queued: s.opts.Now(), State: StateQueued})
		}
		for _, e := range s.q.Pending {
			e.State, e.Txs, e.Tx = StateQueued, nil, common.Hash{}
		}
		s.q.Anchored, s.q.Pending = keep, append(back, s.q.Pending...)
	})
}

func (s *submitter) checkMined(ctx context.Context, e *Entry, first bool, head uint64) error {
	rc, err := s.c.TransactionReceipt(ctx, e.Tx)
	if err != nil && !errors.Is(err, ethereum.NotFound) {
		return fmt.Errorf("receipt of %s: %w", s.name(e.Epoch), err)
	}
	canonical := false
	if rc != nil && rc.BlockHash == e.BlockHash {
		h, err := s.c.HeaderByNumber(ctx, new(big.Int).SetUint64(e.Block))
		if err != nil {
			return fmt.Errorf("header %d: %w", e.Block, err)
		}
		canonical = h.Hash() == e.BlockHash
	}
	if !canonical {
		s.opts.Logf("anchor: reorg: the anchor of %s (tx %s, block %d) left the chain; re-submitting", s.name(e.Epoch), e.Tx, e.Block)
		return s.update(func() {
			e0 := s.find(e.Epoch)
			e0.State, e0.Tx, e0.Block, e0.BlockHash, e0.SentAt = StateSent, common.Hash{}, 0, common.Hash{}, time.Time{}
		})
	}
	if !first || head+1 < e.Block+s.opts.Confirmations {
		return nil
	}
	return s.update(func() {
		now := s.opts.Now()
		s.q.Anchored = append(s.q.Anchored, Anchored{Epoch: e.Epoch, Root: e.Root, PrevRoot: e.PrevRoot, FirstSeq: e.FirstSeq, Count: e.Count,
			Events: e.FirstSeq + e.Count, Tx: e.Tx,
			Block: e.Block, BlockHash: e.BlockHash, GasUsed: e.GasUsed, Submissions: len(e.Txs), Sealed: e.Sealed,
			FirstSent: e.FirstSent, Mined: e.Mined, Confirmed: now})
		s.q.Pending = s.q.Pending[1:]
		s.opts.Logf("anchor: %s confirmed (%d blocks deep, tx %s, %d gas)", s.name(e.Epoch), s.opts.Confirmations, e.Tx, e.GasUsed)
	})
}

// find returns the live entry for epoch (callers hold s.mu).
func (s *submitter) find(epoch uint64) *Entry {
	for _, e := range s.q.Pending {
		if e.Epoch == epoch {
			return e
		}
	}
	return &Entry{} // gone meanwhile: writes go nowhere
}

func (s *submitter) mined(epoch uint64, rc *types.Receipt) error {
	return s.update(func() {
		e := s.find(epoch)
		e.State, e.Tx, e.Block, e.BlockHash, e.GasUsed, e.Mined = StateMined, rc.TxHash, rc.BlockNumber.Uint64(), rc.BlockHash, rc.GasUsed, s.opts.Now()
	})
}

// resolve asks the chain what happened to an epoch whose transaction did not
// simply succeed: anchored by us after all, anchored by someone else, or not
// anchored (send it again).
func (s *submitter) resolve(ctx context.Context, e *Entry) error {
	next, err := s.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next > e.Epoch {
		ev, err := s.findAnchored(ctx, e.Epoch)
		if err != nil {
			return err
		}
		if ev == nil {
			return fmt.Errorf("%s: the chain's next %s is %d but no Anchored event was found yet", s.name(e.Epoch), s.unit, next)
		}
		if ev.Root != e.Root {
			return &ForeignAnchorError{Operator: s.op, Log: s.log, Epoch: e.Epoch, Ours: e.Root, Theirs: format.Digest(ev.Root),
				Tx: ev.Raw.TxHash, Block: ev.Raw.BlockNumber, ChainNext: next}
		}
		rc, err := s.c.TransactionReceipt(ctx, ev.Raw.TxHash)
		if err != nil {
			return fmt.Errorf("receipt of %s: %w", s.name(e.Epoch), err)
		}
		s.opts.Logf("anchor: %s is on chain from an earlier submission (tx %s)", s.name(e.Epoch), ev.Raw.TxHash)
		return s.mined(e.Epoch, rc)
	}
	s.opts.Logf("anchor: %s not on chain (chain expects %d); sending again with a fresh nonce", s.name(e.Epoch), next)
	return s.update(func() {
		e0 := s.find(e.Epoch)
		e0.State = StateQueued
	})
}

func (s *submitter) nextEpoch(ctx context.Context) (uint64, error) {
	out, err := s.c.CallContract(ctx, ethereum.CallMsg{To: &s.opts.Contract, Data: s.abi.PackNextEpoch(s.op, s.log)}, nil)
	if err != nil {
		return 0, fmt.Errorf("nextEpoch: %w", err)
	}
	if len(out) == 0 {
		return 0, fmt.Errorf("nextEpoch: no contract at %s (chain reset?)", s.opts.Contract)
	}
	return s.abi.UnpackNextEpoch(out)
}

// findAnchored returns the Anchored event of (operator, log, epoch), or nil.
func (s *submitter) findAnchored(ctx context.Context, epoch uint64) (*bindings.EpochAnchorAnchored, error) {
	id := [32]byte(s.log)
	evs, err := chain.FilterAnchored(ctx, s.c, chain.AnchoredQuery{Contract: s.opts.Contract, Operator: &s.op, LogID: &id, Epoch: &epoch, FromBlock: s.opts.FromBlock})
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		return nil, nil
	}
	return evs[len(evs)-1], nil
}
