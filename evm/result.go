package evm

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/agentflightrecorder/afr/calldata"
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
	// To is the contract called, or the address of the contract being
	// created: Data is its answer, which calldata.DecodeRevert decodes with
	// the ABI of the contract a registry binds there.
	To common.Address
	// Reason is Data decoded without ABIs (calldata.DecodeRevert's Reason
	// with no registry): the message of Error(string), "panic 0x…: …" for
	// Panic(uint256), "custom error 0x<selector>" for other selectors, or
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

// execErr is Result.Err for the EVM's error err after a call to (or the
// creation of) to that returned ret.
func execErr(err error, ret []byte, to common.Address) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, vm.ErrExecutionReverted) {
		re := &RevertError{Data: common.CopyBytes(ret), To: to}
		if len(ret) > 0 {
			re.Reason = calldata.DecodeRevert(nil, ret, to).Reason
		}
		return re
	}
	// The EVM's own error ("out of gas", "invalid opcode: ..."), with the
	// text go-ethereum's receipts and call traces show.
	return err
}
