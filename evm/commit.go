package evm

// Committing a local state as a chain does after each block, reopening a
// committed state, and go-ethereum's gas estimation on it.

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/gasestimator"
	"github.com/ethereum/go-ethereum/params"
)

// errForkCommit is returned by Commit, OpenAt and EstimateGas on a forked
// Env: its trie is not local (see the package doc).
var errForkCommit = errors.New("evm: a forked state has no local trie")

// Commit hashes the state into the Env's in-memory trie database, as a
// chain does at the end of a block, and goes on from a fresh state at the
// returned root: the journal, logs and access lists of the transactions
// before it are gone (and with them the Env's snapshots), and OpenAt(root)
// opens the same state again. Only a local Env commits.
func (e *Env) Commit() (common.Hash, error) {
	if e.fork != nil {
		return common.Hash{}, errForkCommit
	}
	if err := e.stateErr(); err != nil {
		return common.Hash{}, err
	}
	root, err := e.db.Commit(e.rules(e.block), e.block.Number)
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm: commit: %w", err)
	}
	db, err := state.New(root, e.sdb)
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm: reopen committed state %s: %w", root, err)
	}
	e.db, e.snaps = db, nil
	return root, nil
}

// OpenAt returns a new Env over the state at root, a root Commit returned on
// this Env or on one opened from it, in block context b: the chain rules,
// funded accounts and BLOCKHASH source are this Env's. The two Envs share
// the trie database and nothing else, so either may be used (one goroutine
// at a time each) while the other goes on.
func (e *Env) OpenAt(root common.Hash, b Block) (*Env, error) {
	if e.fork != nil {
		return nil, errForkCommit
	}
	db, err := state.New(root, e.sdb)
	if err != nil {
		return nil, fmt.Errorf("evm: open state %s: %w", root, err)
	}
	if b.GasLimit == 0 {
		b.GasLimit = DefaultGasLimit
	}
	return &Env{chain: e.chain, block: b, db: db, sdb: e.sdb, hash: e.hash, accounts: e.accounts}, nil
}

// The gas cap and the error ratio of go-ethereum's eth_estimateGas
// (ethconfig.Defaults.RPCGasCap, internal/ethapi's estimateGasErrorRatio).
const (
	estimateGasCap        = 50_000_000
	estimateGasErrorRatio = 0.015
)

// EstimateGas answers as go-ethereum's eth_estimateGas does for msg on the
// current state and block: the same search (eth/gasestimator), gas cap and
// error ratio, so the estimate is the one a go-ethereum node gives for the
// same state. A call that reverts is an error wrapping a *RevertError (with
// the revert data) that matches vm.ErrExecutionReverted. Only a local Env
// estimates.
func (e *Env) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	if e.fork != nil {
		return 0, errForkCommit
	}
	if err := e.stateErr(); err != nil {
		return 0, err
	}
	b := e.block
	m, err := e.message(msg, b, 0, false)
	if err != nil {
		return 0, err
	}
	if msg.Gas == 0 {
		m.GasLimit = 0 // the search starts from the block's gas limit
	}
	h := &types.Header{Number: new(big.Int).SetUint64(b.Number), Time: b.Time, GasLimit: b.GasLimit, BaseFee: b.BaseFee,
		Coinbase: b.Coinbase, Difficulty: new(big.Int), MixDigest: b.PrevRandao}
	if b.Difficulty != nil {
		h.Difficulty.Set(b.Difficulty)
	}
	blobFee := b.BlobBaseFee
	if blobFee == nil {
		blobFee = new(big.Int)
	}
	opts := &gasestimator.Options{Config: e.chain, Chain: headerless{e.chain}, Header: h, State: e.db,
		BlobBaseFee: blobFee, ErrorRatio: estimateGasErrorRatio}
	gas, revert, err := gasestimator.Estimate(ctx, m, opts, estimateGasCap)
	if err != nil {
		if errors.Is(err, vm.ErrExecutionReverted) {
			to := common.Address{}
			if msg.To != nil {
				to = *msg.To
			}
			return 0, fmt.Errorf("evm: estimate gas: %w", execErr(vm.ErrExecutionReverted, revert, to))
		}
		return 0, fmt.Errorf("evm: estimate gas: %w", err)
	}
	return gas, e.stateErr()
}

// headerless is the chain context of an estimation: the rules, no headers
// (BLOCKHASH reads zero while estimating, which costs the same gas), and an
// engine that names the header's coinbase as its author.
type headerless struct{ config *params.ChainConfig }

func (h headerless) Config() *params.ChainConfig               { return h.config }
func (headerless) CurrentHeader() *types.Header                { return nil }
func (headerless) GetHeader(common.Hash, uint64) *types.Header { return nil }
func (headerless) GetHeaderByNumber(uint64) *types.Header      { return nil }
func (headerless) GetHeaderByHash(common.Hash) *types.Header   { return nil }
func (headerless) Engine() consensus.Engine                    { return coinbaseEngine }

// coinbaseEngine names a header's coinbase as its author, as a beacon
// chain's engine does.
var coinbaseEngine consensus.Engine = beacon.New(ethash.NewFaker())
