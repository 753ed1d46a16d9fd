package evm

// Reading and changing an Env's state directly; snapshots.

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// Balance returns addr's balance.
func (e *Env) Balance(addr common.Address) (*big.Int, error) {
	if err := e.stateErr(); err != nil {
		return nil, err
	}
	b := e.db.GetBalance(addr).ToBig()
	return b, e.stateErr()
}

// Nonce returns addr's nonce.
func (e *Env) Nonce(addr common.Address) (uint64, error) {
	if err := e.stateErr(); err != nil {
		return 0, err
	}
	n := e.db.GetNonce(addr)
	return n, e.stateErr()
}

// Code returns addr's code.
func (e *Env) Code(addr common.Address) ([]byte, error) {
	if err := e.stateErr(); err != nil {
		return nil, err
	}
	c := common.CopyBytes(e.db.GetCode(addr))
	return c, e.stateErr()
}

// Storage returns the value of slot in addr's storage.
func (e *Env) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	if err := e.stateErr(); err != nil {
		return common.Hash{}, err
	}
	v := e.db.GetState(addr, slot)
	return v, e.stateErr()
}

// SetBalance, SetNonce, SetCode and SetStorage change the state directly, as
// a transaction before the next one would.
func (e *Env) SetBalance(addr common.Address, wei *big.Int) error {
	b, overflow := uint256.FromBig(wei)
	if overflow || wei.Sign() < 0 {
		return errors.New("evm: balance out of range")
	}
	return e.mutate(func() { e.db.SetBalance(addr, b, tracing.BalanceChangeUnspecified) })
}

func (e *Env) SetNonce(addr common.Address, nonce uint64) error {
	return e.mutate(func() { e.db.SetNonce(addr, nonce, tracing.NonceChangeUnspecified) })
}

func (e *Env) SetCode(addr common.Address, code []byte) error {
	return e.mutate(func() { e.db.SetCode(addr, code, tracing.CodeChangeUnspecified) })
}

func (e *Env) SetStorage(addr common.Address, slot, value common.Hash) error {
	return e.mutate(func() { e.db.SetState(addr, slot, value) })
}

// ApplyOverrides applies o to the Env's state permanently (Call applies them
// to one call only).
func (e *Env) ApplyOverrides(o StateOverride) error {
	if err := e.stateErr(); err != nil {
		return err
	}
	pc := vm.ActivePrecompiledContracts(e.rules(e.block))
	for _, a := range o {
		if a.MovePrecompileToAddress != nil {
			return errors.New("evm: movePrecompileToAddress applies to one call only")
		}
	}
	if err := o.apply(e.db, pc); err != nil {
		return err
	}
	return e.stateErr()
}

func (e *Env) mutate(f func()) error {
	if err := e.stateErr(); err != nil {
		return err
	}
	f()
	e.db.Finalise(params.Rules{})
	return e.stateErr()
}

// Snapshot records the current state and block; Revert(id) returns to it.
func (e *Env) Snapshot() int {
	e.snaps = append(e.snaps, snapshot{db: e.db.Copy(), block: e.block, txs: e.txs, blockGas: e.blockGas})
	return len(e.snaps) - 1
}

// Revert restores the snapshot id and discards every later snapshot. The
// snapshot stays valid: it can be reverted to again.
func (e *Env) Revert(id int) error {
	if id < 0 || id >= len(e.snaps) {
		return fmt.Errorf("evm: no snapshot %d", id)
	}
	s := e.snaps[id]
	e.db, e.block, e.txs, e.blockGas = s.db.Copy(), s.block, s.txs, s.blockGas
	e.snaps = e.snaps[:id+1]
	return nil
}
