package evm

// Untraced EVMs that an Env keeps between calls and transactions.

import (
	"math/big"

	"github.com/ethereum/go-ethereum/core/vm"
)

// reusedEVM is an untraced EVM with go-ethereum's default precompiles, kept
// by an Env for the block context it was built for. go-ethereum reuses one
// EVM for every transaction of a block in the same way: ApplyMessage resets
// the transaction context, and the EVM's JUMPDEST analyses (keyed by code
// hash) stay valid for later calls.
type reusedEVM struct {
	evm   *vm.EVM
	block Block // as built; BaseFee and BlobBaseFee are copies
}

// reusedEVM returns the Env's untraced EVM on e.db for block b, building it
// when the block context (or the state) changed since the last use.
func (e *Env) reusedEVM(b Block, zeroFees bool) *reusedEVM {
	i := 0
	if zeroFees {
		i = 1
	}
	r := e.evms[i]
	if r != nil && sameBlockContext(&r.block, &b, zeroFees) {
		if r.evm.StateDB != vm.StateDB(e.db) {
			r.evm.SetStateDB(e.db) // after Revert
		}
		return r
	}
	if r != nil {
		r.evm.Release()
	}
	bctx := e.blockContext(b, zeroFees)
	// Keep copies of the fees: the caller may change its big.Ints in place.
	b.BaseFee, b.BlobBaseFee = bctx.BaseFee, bctx.BlobBaseFee
	if b.Difficulty != nil {
		b.Difficulty = new(big.Int).Set(b.Difficulty)
	}
	r = &reusedEVM{evm: vm.NewEVM(bctx, e.db, e.chain, vm.Config{NoBaseFee: true}), block: b}
	e.evms[i] = r
	return r
}

// dropEVM forgets r (a cancelled EVM cannot be used again).
func (e *Env) dropEVM(r *reusedEVM) {
	for i := range e.evms {
		if e.evms[i] == r {
			e.evms[i] = nil
		}
	}
}

// sameBlockContext reports whether an EVM built for block a serves block b.
// Block.Hash is not part of the EVM's context (it only labels logs).
func sameBlockContext(a, b *Block, zeroFees bool) bool {
	if a.Number != b.Number || a.Time != b.Time || a.GasLimit != b.GasLimit ||
		a.Coinbase != b.Coinbase || a.PrevRandao != b.PrevRandao || !bigEq(a.Difficulty, b.Difficulty) {
		return false
	}
	return zeroFees || (bigEq(a.BaseFee, b.BaseFee) && bigEq(a.BlobBaseFee, b.BlobBaseFee))
}

// bigEq compares two fees, nil meaning zero.
func bigEq(x, y *big.Int) bool {
	switch {
	case x == nil || x.Sign() == 0:
		return y == nil || y.Sign() == 0
	case y == nil:
		return false
	}
	return x.Cmp(y) == 0
}
