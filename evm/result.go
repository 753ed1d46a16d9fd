package evm

import (
	"encoding/hex"
	"errors"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

// Result is the outcome of a call or transaction that was executed (it may
// still have reverted or run out of gas: see Err).
type Result struct {
	// ReturnData is the call's return data, or the revert data if it reverted.
	ReturnData []byte
	// GasUsed is the gas charged, after refunds (as in a receipt).
	GasUsed uint64
	// Err is nil on success, a *RevertError on REVERT, or the EVM error that
	// aborted execution (out of gas, invalid opcode, ...).
	Err error
	// Logs emitted by a successful execution, in order.
	Logs []*types.Log
	// ContractAddress is the address a creation creates at, set for every
	// creation (as in receipts), also when it failed and nothing is there.
	ContractAddress common.Address
	// Trace is set only when CallOptions.Trace was requested.
	Trace *Trace
	// Receipt is set by ApplyTransaction: the receipt fields of the
	// transaction (status, gas used, cumulative gas since the block context
	// was set, logs, bloom, contract address, effective gas price, blob gas).
	Receipt *types.Receipt
}

// Failed reports whether execution reverted or aborted.
func (r *Result) Failed() bool { return r.Err != nil }

// RevertError is Result.Err for an execution that ended in REVERT.
type RevertError struct {
	// Data is the raw revert data.
	Data []byte
	// Reason is the decoded reason: the message of Error(string), "panic: ..."
	// for Panic(uint256), "custom error 0x<selector>" for other selectors, or
	// empty when there is no data.
	Reason string
}

func (e *RevertError) Error() string {
	if e.Reason == "" {
		return "execution reverted"
	}
	return "execution reverted: " + e.Reason
}

// Is makes errors.Is(err, vm.ErrExecutionReverted) hold.
func (e *RevertError) Is(target error) bool { return target == vm.ErrExecutionReverted }

// Selector returns the first four bytes of the revert data, if any.
func (e *RevertError) Selector() (sel [4]byte, ok bool) {
	if len(e.Data) < 4 {
		return sel, false
	}
	copy(sel[:], e.Data)
	return sel, true
}

// DecodeRevert decodes revert data as Solidity emits it: Error(string),
// Panic(uint256), or a custom error (named by selector).
func DecodeRevert(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	if reason, err := abi.UnpackRevert(data); err == nil {
		if len(data) >= 4 && data[0] == 0x4e && data[1] == 0x48 && data[2] == 0x7b && data[3] == 0x71 {
			return "panic: " + reason
		}
		return reason
	}
	if len(data) >= 4 {
		return "custom error 0x" + hex.EncodeToString(data[:4])
	}
	return "malformed revert data 0x" + hex.EncodeToString(data)
}

func execErr(err error, ret []byte) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, vm.ErrExecutionReverted) {
		return &RevertError{Data: common.CopyBytes(ret), Reason: DecodeRevert(ret)}
	}
	// The EVM's own error ("out of gas", "invalid opcode: ..."), with the
	// text go-ethereum's receipts and call traces show.
	return err
}
