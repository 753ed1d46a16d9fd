package anchor

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
)

func (s *submitter) checkSent(ctx context.Context, e *Entry) error {
	for i := len(e.Txs) - 1; i >= 0; i-- {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(e.Txs[i]); err != nil {
			return &QueueCorruptError{Epoch: e.Epoch, Err: err}
		}
		rc, err := s.c.TransactionReceipt(ctx, tx.Hash())
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			return fmt.Errorf("receipt of %s: %w", s.name(e.Epoch), err)
		}
		if rc == nil {
			continue
		}
		if rc.Status == types.ReceiptStatusSuccessful {
			return s.mined(e.Epoch, rc)
		}
		s.opts.Logf("anchor: the anchor transaction of %s reverted (tx %s)", s.name(e.Epoch), tx.Hash())
		return s.resolve(ctx, e)
	}
	nonce, err := s.c.NonceAt(ctx, s.op, nil)
	if err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	if nonce > e.Nonce {
		// The nonce was used, but by none of our transactions for this epoch.
		return s.resolve(ctx, e)
	}
	if s.opts.Now().Sub(e.SentAt) < s.opts.ResubmitAfter {
		return nil
	}
	if nonce < e.Nonce {
		// Every earlier epoch is mined, so the nonces below ours belong to
		// another user of the key whose transaction never landed: our
		// transaction waits on a gap it cannot fill. Send again at the
		// chain's next nonce.
		s.opts.Logf("anchor: %s waits on nonce %d, below its own %d, used by another sender and not mined: re-sending at nonce %d", s.span(e), nonce, e.Nonce, nonce)
		s.mu.Lock()
		run := append([]*Entry(nil), s.runAt(e.Epoch)...)
		s.mu.Unlock()
		return s.submitAt(ctx, run, &nonce)
	}
	return s.bump(ctx, e)
}

func (s *submitter) submit(ctx context.Context, run []*Entry) error { return s.submitAt(ctx, run, nil) }

// submitAt signs and sends a fresh transaction anchoring run (consecutive
// pending entries, the first not on chain yet), at the given nonce or, if
// nil, the account's pending nonce.
func (s *submitter) submitAt(ctx context.Context, run []*Entry, at *uint64) error {
	e := run[0]
	next, err := s.nextEpoch(ctx)
	if err != nil {
		return err
	}
	switch {
	case next > e.Epoch:
		return s.resolve(ctx, e)
	case next < e.Epoch:
		return nil // an earlier epoch is not on chain yet (in flight or reorged): wait
	}
	data, err := s.data(run)
	if err != nil {
		return err
	}
	gas, err := s.c.EstimateGas(ctx, ethereum.CallMsg{From: s.op, To: &s.opts.Contract, Data: data})
	if err != nil {
		if rd, ok := chain.RevertData(err); ok {
			return s.reverted(ctx, e, rd)
		}
		return fmt.Errorf("estimate gas for %s: %w", s.name(e.Epoch), err)
	}
	var nonce uint64
	if at != nil {
		nonce = *at
	} else if nonce, err = s.c.PendingNonceAt(ctx, s.op); err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	tip, feeCap, err := chain.Fees(ctx, s.c)
	if err != nil {
		return fmt.Errorf("fees: %w", err)
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: s.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas + gas/4, To: &s.opts.Contract, Data: data}), types.LatestSignerForChainID(s.chainID), s.opts.Key)
	if err != nil {
		return err
	}
	return s.send(ctx, e.Epoch, len(run), tx)
}

// send records the signed transaction in the queue, then sends it: after a
// crash between the two, the queue knows a hash that may be on chain. A
// fresh transaction (n > 0) anchors the n entries from epoch on and
// replaces the run's earlier transactions; a replacement (n = 0) is
// appended to them.
func (s *submitter) send(ctx context.Context, epoch uint64, n int, tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	var what string
	if err := s.update(func() {
		run := s.runAt(epoch)
		if len(run) == 0 {
			return // gone meanwhile
		}
		head, now := run[0], s.opts.Now()
		if n > 0 {
			head.Txs, head.Run = nil, 0
			if n > 1 {
				head.Run = n
			}
			run = s.runAt(epoch)
		}
		for _, m := range run {
			if m.FirstSent.IsZero() {
				m.FirstSent = now
			}
			m.State, m.Nonce, m.SentAt = StateSent, tx.Nonce(), now
		}
		head.Txs = append(head.Txs, raw)
		what = s.span(head)
	}); err != nil {
		return err
	}
	err = s.c.SendTransaction(ctx, tx)
	if err != nil && !isAlreadyKnown(err) {
		return fmt.Errorf("send anchor of %s (nonce %d): %w", what, tx.Nonce(), err)
	}
	return nil
}

// bump re-signs the newest transaction of e with the same nonce and higher
// fees and sends it (also re-broadcasting to a node that lost it).
func (s *submitter) bump(ctx context.Context, e *Entry) error {
	last := new(types.Transaction)
	if err := last.UnmarshalBinary(e.Txs[len(e.Txs)-1]); err != nil {
		return err
	}
	tip, feeCap, err := chain.Fees(ctx, s.c)
	if err != nil {
		return fmt.Errorf("fees: %w", err)
	}
	pct := big.NewInt(100 + s.opts.FeeBumpPercent)
	bumped := func(old, now *big.Int) *big.Int {
		b := new(big.Int).Div(new(big.Int).Mul(old, pct), big.NewInt(100))
		if b.Cmp(now) < 0 {
			b = now
		}
		return b
	}
	tip = bumped(last.GasTipCap(), tip)
	feeCap = bumped(last.GasFeeCap(), feeCap)
	if feeCap.Cmp(tip) < 0 {
		feeCap = tip
	}
	if max := s.opts.MaxFeeCap; max != nil && feeCap.Cmp(max) > 0 {
		if last.GasFeeCap().Cmp(max) >= 0 {
			s.opts.Logf("anchor: %s not mined and its fee cap is at the limit (%s wei): waiting", s.name(e.Epoch), max)
			return nil
		}
		feeCap = new(big.Int).Set(max)
		if tip.Cmp(feeCap) > 0 {
			tip = new(big.Int).Set(feeCap)
		}
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: s.chainID, Nonce: e.Nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: last.Gas(), To: last.To(), Data: last.Data()}), types.LatestSignerForChainID(s.chainID), s.opts.Key)
	if err != nil {
		return err
	}
	if e.SentAt.IsZero() {
		s.opts.Logf("anchor: %s: re-sending after a reorg as a replacement of tx %s (nonce %d), fees +%d%% (tip %s, cap %s wei)",
			s.span(e), last.Hash(), e.Nonce, s.opts.FeeBumpPercent, tip, feeCap)
	} else {
		s.opts.Logf("anchor: %s not mined after %s: replacing tx %s (nonce %d) with fees +%d%% (tip %s, cap %s wei)",
			s.span(e), s.opts.Now().Sub(e.SentAt).Round(time.Millisecond), last.Hash(), e.Nonce, s.opts.FeeBumpPercent, tip, feeCap)
	}
	err = s.send(ctx, e.Epoch, 0, tx)
	if isNonceTooLow(err) {
		return s.resolve(ctx, e)
	}
	return err
}

// reverted handles a revert found by gas estimation.
func (s *submitter) reverted(ctx context.Context, e *Entry, data []byte) error {
	reason, _ := s.abi.UnpackError(data)
	switch r := reason.(type) {
	case *bindings.EpochAnchorEpochOutOfOrder:
		if r.Expected > e.Epoch {
			return s.resolve(ctx, e)
		}
		return fmt.Errorf("%s: EpochOutOfOrder(expected %d): waiting for earlier %s", s.name(e.Epoch), r.Expected, s.units())
	case *bindings.EpochAnchorBackPointerMismatch:
		// The chain's epoch e−1 is not ours.
		if e.Epoch > 0 {
			prev := e.Epoch - 1
			ev, err := s.findAnchored(ctx, prev)
			if err == nil && ev != nil {
				return &ForeignAnchorError{Operator: s.op, Log: s.log, Epoch: prev, Ours: e.PrevRoot, Theirs: format.Digest(ev.Root),
					Tx: ev.Raw.TxHash, Block: ev.Raw.BlockNumber, ChainNext: e.Epoch}
			}
		}
		return fmt.Errorf("%s: BackPointerMismatch: the chain's root of %s is not ours", s.name(e.Epoch), s.name(e.Epoch-1))
	}
	return fmt.Errorf("%s: anchor would revert: %x", s.name(e.Epoch), data)
}

// ---- metrics ----
