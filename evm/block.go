package evm

// The block context calls and transactions execute in.

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// Block is the block context calls and transactions execute in. The fields
// are those of a block header that execution reads; they are handed to the
// EVM as go-ethereum's own block processing does (core.NewEVMBlockContext):
// a block with a non-zero Difficulty is a proof-of-work block, where
// DIFFICULTY reads Difficulty; with zero Difficulty (every block since the
// merge) the same opcode, PREVRANDAO, reads PrevRandao — if the chain's
// rules include the merge (a terminal total difficulty is set; otherwise
// the block is a proof-of-work block of difficulty zero).
type Block struct {
	Number      uint64
	Time        uint64
	GasLimit    uint64
	BaseFee     *big.Int // nil means zero
	BlobBaseFee *big.Int // nil means zero
	Coinbase    common.Address
	// Difficulty is the proof-of-work difficulty; nil means zero (merged).
	Difficulty *big.Int
	// PrevRandao is the header's mixHash: the beacon chain's randomness
	// after the merge, read only when Difficulty is zero.
	PrevRandao common.Hash
	// Hash is the hash of this block when it is a real one (fork mode).
	Hash common.Hash
}

// merged reports whether b is a proof-of-stake block: zero difficulty on a
// chain whose rules include the merge (a terminal total difficulty). A
// chain without the merge in its rules (a development chain on London or
// earlier) may produce blocks of zero difficulty; they stay proof-of-work
// blocks, where DIFFICULTY reads zero.
func (e *Env) merged(b Block) bool {
	return (b.Difficulty == nil || b.Difficulty.Sign() == 0) && e.chain.TerminalTotalDifficulty != nil
}

func (e *Env) rules(b Block) params.Rules {
	return e.chain.Rules(new(big.Int).SetUint64(b.Number), e.merged(b), b.Time)
}

// blockContext is b as go-ethereum's block context. With zeroFees BASEFEE and
// BLOBBASEFEE read zero whatever b says (a call without a gas price, as
// eth_call).
func (e *Env) blockContext(b Block, zeroFees bool) vm.BlockContext {
	ctx := vm.BlockContext{
		CanTransfer: core.CanTransfer,
		Transfer:    core.Transfer,
		GetHash:     e.getHash,
		Coinbase:    b.Coinbase,
		GasLimit:    b.GasLimit,
		BlockNumber: new(big.Int).SetUint64(b.Number),
		Time:        b.Time,
		Difficulty:  new(big.Int),
		BaseFee:     new(big.Int),
		BlobBaseFee: new(big.Int),
	}
	if e.merged(b) {
		random := b.PrevRandao
		ctx.Random = &random
	} else if b.Difficulty != nil {
		ctx.Difficulty.Set(b.Difficulty)
	}
	if zeroFees {
		return ctx
	}
	if b.BaseFee != nil {
		ctx.BaseFee.Set(b.BaseFee)
	}
	if b.BlobBaseFee != nil {
		ctx.BlobBaseFee.Set(b.BlobBaseFee)
	}
	return ctx
}

// getHash answers BLOCKHASH: Config.BlockHash's answer when set, real hashes
// from the Fork for its blocks, else a deterministic stand-in (keccak256 of
// the decimal number, as geth's core/vm/runtime does).
func (e *Env) getHash(n uint64) common.Hash {
	if e.hash != nil {
		return e.hash(n)
	}
	if e.fork != nil && n <= e.fork.header.Number {
		return e.fork.blockHash(n)
	}
	return common.BytesToHash(crypto.Keccak256([]byte(new(big.Int).SetUint64(n).String())))
}
