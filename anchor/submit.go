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

func (a *Anchorer) checkSent(ctx context.Context, e *Entry) error {
	for i := len(e.Txs) - 1; i >= 0; i-- {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(e.Txs[i]); err != nil {
			return &QueueCorruptError{Epoch: e.Epoch, Err: err}
		}
		rc, err := a.c.TransactionReceipt(ctx, tx.Hash())
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			return fmt.Errorf("receipt of epoch %d: %w", e.Epoch, err)
		}
		if rc == nil {
			continue
		}
		if rc.Status == types.ReceiptStatusSuccessful {
			return a.mined(e.Epoch, rc)
		}
		a.opts.Logf("anchor: the anchor transaction of epoch %d reverted (tx %s)", e.Epoch, tx.Hash())
		return a.resolve(ctx, e)
	}
	nonce, err := a.c.NonceAt(ctx, a.op, nil)
	if err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	if nonce > e.Nonce {
		// The nonce was used, but by none of our transactions for this epoch.
		return a.resolve(ctx, e)
	}
	if a.opts.Now().Sub(e.SentAt) < a.opts.ResubmitAfter {
		return nil
	}
	if nonce < e.Nonce {
		// Every earlier epoch is mined, so the nonces below ours belong to
		// another user of the key whose transaction never landed: our
		// transaction waits on a gap it cannot fill. Send again at the
		// chain's next nonce.
		a.opts.Logf("anchor: epoch %d waits on nonce %d, below its own %d, used by another sender and not mined: re-sending at nonce %d", e.Epoch, nonce, e.Nonce, nonce)
		return a.submitAt(ctx, e, &nonce)
	}
	return a.bump(ctx, e)
}

func (a *Anchorer) submit(ctx context.Context, e *Entry) error { return a.submitAt(ctx, e, nil) }

// submitAt signs and sends a fresh anchor transaction for e, at the given
// nonce or, if nil, the account's pending nonce.
func (a *Anchorer) submitAt(ctx context.Context, e *Entry, at *uint64) error {
	next, err := a.nextEpoch(ctx)
	if err != nil {
		return err
	}
	switch {
	case next > e.Epoch:
		return a.resolve(ctx, e)
	case next < e.Epoch:
		return nil // an earlier epoch is not on chain yet (in flight or reorged): wait
	}
	data := a.abi.PackAnchor(a.log, e.Epoch, e.Root, e.PrevRoot)
	gas, err := a.c.EstimateGas(ctx, ethereum.CallMsg{From: a.op, To: &a.opts.Contract, Data: data})
	if err != nil {
		if rd, ok := chain.RevertData(err); ok {
			return a.reverted(ctx, e, rd)
		}
		return fmt.Errorf("estimate gas for epoch %d: %w", e.Epoch, err)
	}
	var nonce uint64
	if at != nil {
		nonce = *at
	} else if nonce, err = a.c.PendingNonceAt(ctx, a.op); err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	tip, feeCap, err := chain.Fees(ctx, a.c)
	if err != nil {
		return fmt.Errorf("fees: %w", err)
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: a.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas + gas/4, To: &a.opts.Contract, Data: data}), types.LatestSignerForChainID(a.chainID), a.opts.Key)
	if err != nil {
		return err
	}
	return a.send(ctx, e.Epoch, tx, true)
}

// send records the signed transaction in the queue, then sends it: after a
// crash between the two, the queue knows a hash that may be on chain.
func (a *Anchorer) send(ctx context.Context, epoch uint64, tx *types.Transaction, fresh bool) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	if err := a.update(func() {
		e := a.find(epoch)
		now := a.opts.Now()
		if fresh {
			e.Txs = nil
		}
		if e.FirstSent.IsZero() {
			e.FirstSent = now
		}
		e.State, e.Nonce, e.SentAt, e.Txs = StateSent, tx.Nonce(), now, append(e.Txs, raw)
	}); err != nil {
		return err
	}
	err = a.c.SendTransaction(ctx, tx)
	if err != nil && !isAlreadyKnown(err) {
		return fmt.Errorf("send anchor of epoch %d (nonce %d): %w", epoch, tx.Nonce(), err)
	}
	return nil
}

// bump re-signs the newest transaction of e with the same nonce and higher
// fees and sends it (also re-broadcasting to a node that lost it).
func (a *Anchorer) bump(ctx context.Context, e *Entry) error {
	last := new(types.Transaction)
	if err := last.UnmarshalBinary(e.Txs[len(e.Txs)-1]); err != nil {
		return err
	}
	tip, feeCap, err := chain.Fees(ctx, a.c)
	if err != nil {
		return fmt.Errorf("fees: %w", err)
	}
	pct := big.NewInt(100 + a.opts.FeeBumpPercent)
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
	if max := a.opts.MaxFeeCap; max != nil && feeCap.Cmp(max) > 0 {
		if last.GasFeeCap().Cmp(max) >= 0 {
			a.opts.Logf("anchor: epoch %d not mined and its fee cap is at the limit (%s wei): waiting", e.Epoch, max)
			return nil
		}
		feeCap = new(big.Int).Set(max)
		if tip.Cmp(feeCap) > 0 {
			tip = new(big.Int).Set(feeCap)
		}
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: a.chainID, Nonce: e.Nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: last.Gas(), To: last.To(), Data: last.Data()}), types.LatestSignerForChainID(a.chainID), a.opts.Key)
	if err != nil {
		return err
	}
	if e.SentAt.IsZero() {
		a.opts.Logf("anchor: epoch %d: re-sending after a reorg as a replacement of tx %s (nonce %d), fees +%d%% (tip %s, cap %s wei)",
			e.Epoch, last.Hash(), e.Nonce, a.opts.FeeBumpPercent, tip, feeCap)
	} else {
		a.opts.Logf("anchor: epoch %d not mined after %s: replacing tx %s (nonce %d) with fees +%d%% (tip %s, cap %s wei)",
			e.Epoch, a.opts.Now().Sub(e.SentAt).Round(time.Millisecond), last.Hash(), e.Nonce, a.opts.FeeBumpPercent, tip, feeCap)
	}
	err = a.send(ctx, e.Epoch, tx, false)
	if isNonceTooLow(err) {
		return a.resolve(ctx, e)
	}
	return err
}

// reverted handles a revert found by gas estimation.
func (a *Anchorer) reverted(ctx context.Context, e *Entry, data []byte) error {
	reason, _ := a.abi.UnpackError(data)
	switch r := reason.(type) {
	case *bindings.EpochAnchorEpochOutOfOrder:
		if r.Expected > e.Epoch {
			return a.resolve(ctx, e)
		}
		return fmt.Errorf("epoch %d: EpochOutOfOrder(expected %d): waiting for earlier epochs", e.Epoch, r.Expected)
	case *bindings.EpochAnchorBackPointerMismatch:
		// The chain's epoch e−1 is not ours.
		if e.Epoch > 0 {
			prev := e.Epoch - 1
			ev, err := a.findAnchored(ctx, prev)
			if err == nil && ev != nil {
				return &ForeignAnchorError{Operator: a.op, Log: a.log, Epoch: prev, Ours: e.PrevRoot, Theirs: format.Digest(ev.Root),
					Tx: ev.Raw.TxHash, Block: ev.Raw.BlockNumber, ChainNext: e.Epoch}
			}
		}
		return fmt.Errorf("epoch %d: BackPointerMismatch: the chain's root of epoch %d is not this log's", e.Epoch, e.Epoch-1)
	}
	return fmt.Errorf("epoch %d: anchor would revert: %x", e.Epoch, data)
}

// ---- metrics ----
