package tracesim

// Replay from a chain that runs in the process: the block, its receipts and
// the state its transactions ran on are handed over directly, with no
// JSON-RPC round trip.

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
)

// Source is a chain in the process that hands a replay its mined blocks
// and their state directly (chain/backend's in-process chain implements
// it).
type Source interface {
	// AtMined finds the mined transaction hash and calls f with its block,
	// the block's receipts and an Env on the state the block's
	// transactions ran on, in the block's context, under the chain's rules.
	// f runs while the chain is locked: the Env is valid only inside f.
	AtMined(ctx context.Context, hash common.Hash, f func(b *types.Block, receipts []*types.Receipt, pre *evm.Env) error) error
}

// ReplayFrom replays the mined transaction txHash of src as Replay replays
// it from an endpoint — the transactions before it in its block, then it
// with tracing, each compared with its receipt, intent and effects decoded
// with reg — with the block, receipts and state taken from src, so no
// request is made (Stats.Requests is 0). A transaction whose signature
// does not recover a sender (one sent unsigned, as a prank is) is an
// error: the replay executes signed transactions only.
func ReplayFrom(ctx context.Context, src Source, txHash common.Hash, reg *calldata.Registry) (*ReplayResult, error) {
	var out *ReplayResult
	var replayErr error
	err := src.AtMined(ctx, txHash, func(b *types.Block, receipts []*types.Receipt, pre *evm.Env) error {
		mb, err := minedOf(pre.ChainConfig().ChainID, b, receipts)
		if err != nil {
			return err
		}
		out, replayErr = replayIn(ctx, pre, mb, txHash, reg)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tracesim: replay of %s: %w", txHash.Hex(), err)
	}
	return out, replayErr
}

// minedOf is b with its receipts as an endpoint would have answered them.
func minedOf(chainID *big.Int, b *types.Block, receipts []*types.Receipt) (*minedBlock, error) {
	if len(receipts) != len(b.Transactions()) {
		return nil, fmt.Errorf("block %d: %d receipts for %d transactions", b.NumberU64(), len(receipts), len(b.Transactions()))
	}
	number, hash := hexutil.Uint64(b.NumberU64()), b.Hash()
	mb := &minedBlock{ChainID: chainID.Uint64(), Header: rpcBlock{Number: &number, Hash: &hash, ParentHash: b.ParentHash()}}
	signer := types.LatestSignerForChainID(chainID)
	for i, tx := range b.Transactions() {
		from, err := types.Sender(signer, tx)
		if err != nil {
			return nil, fmt.Errorf("transaction %d (%s): sender: %w", i, tx.Hash().Hex(), err)
		}
		mb.Txs = append(mb.Txs, &minedTx{Tx: tx, From: from, Hash: tx.Hash()})
		r := receipts[i]
		status, cumulative := hexutil.Uint64(r.Status), hexutil.Uint64(r.CumulativeGasUsed)
		rc := &rpcReceipt{TxHash: r.TxHash, Status: &status, GasUsed: hexutil.Uint64(r.GasUsed), CumulativeGasUsed: &cumulative}
		if r.ContractAddress != (common.Address{}) {
			rc.ContractAddress = &r.ContractAddress
		}
		for _, l := range r.Logs {
			rc.Logs = append(rc.Logs, &rpcLog{Address: l.Address, Topics: l.Topics, Data: l.Data})
		}
		mb.Receipts = append(mb.Receipts, rc)
	}
	return mb, nil
}
