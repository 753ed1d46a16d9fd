package evm

// Call, Transact and Deploy: executing a message against an Env's state.

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// execHook, when set (by tests), sees every EVM just before it executes.
var execHook func(*vm.EVM)

// CallOptions modify one call or transaction.
type CallOptions struct {
	// State overrides apply to this call only (Call) or are made permanent
	// before the transaction (Transact).
	State StateOverride
	// Block overrides apply to this call or transaction only.
	Block *BlockOverrides
	// Trace attaches tracers and fills Result.Trace.
	Trace bool
}

// Call executes msg against the current state as eth_call does and discards
// every change. The error is non-nil only when the call could not be
// executed (invalid message, state read failure); a revert is Result.Err.
func (e *Env) Call(ctx context.Context, msg ethereum.CallMsg, opts *CallOptions) (*Result, error) {
	return e.exec(ctx, msg, opts, false)
}

// Transact executes msg as a transaction from msg.From with the sender's
// current nonce and keeps its effects (also when it reverts: the nonce and
// gas are spent). Gas is paid only when a gas price is given.
func (e *Env) Transact(ctx context.Context, msg ethereum.CallMsg, opts *CallOptions) (*Result, error) {
	return e.exec(ctx, msg, opts, true)
}

// Deploy creates a contract from initcode (constructor arguments appended)
// sent by from with value wei (nil for none). The address is in
// Result.ContractAddress.
func (e *Env) Deploy(ctx context.Context, from common.Address, initcode []byte, value *big.Int) (*Result, error) {
	return e.Transact(ctx, ethereum.CallMsg{From: from, Data: initcode, Value: value}, nil)
}

func (e *Env) exec(ctx context.Context, msg ethereum.CallMsg, opts *CallOptions, commit bool) (*Result, error) {
	if opts == nil {
		opts = &CallOptions{}
	}
	if err := e.stateErr(); err != nil {
		return nil, err
	}
	b := e.block
	opts.Block.apply(&b)

	db := e.db
	var precompiles vm.PrecompiledContracts
	snap := -1 // journal snapshot a call reverts to
	switch {
	case commit:
		if len(opts.State) > 0 {
			for _, a := range opts.State {
				if a.MovePrecompileToAddress != nil {
					return nil, errors.New("evm: movePrecompileToAddress applies to calls only")
				}
			}
			if err := opts.State.apply(db, vm.ActivePrecompiledContracts(e.rules(b))); err != nil {
				return nil, err
			}
		}
	case len(opts.State) > 0:
		// Overrides are finalised (so that they are the values SSTORE gas
		// is measured against, as in eth_call), which clears the journal:
		// work on a copy.
		db = db.Copy()
		precompiles = vm.ActivePrecompiledContracts(e.rules(b))
		if err := opts.State.apply(db, precompiles); err != nil {
			return nil, err
		}
	default:
		// A call on the Env's own state, traced or not: nothing finalises
		// it, so everything it changes is in the journal, and reverting to
		// this snapshot undoes it.
		snap = db.Snapshot()
	}
	if snap >= 0 {
		defer db.RevertToSnapshot(snap)
	}

	nonce := db.GetNonce(msg.From)
	m, err := e.message(msg, b, nonce, commit)
	if err != nil {
		return nil, err
	}
	// As eth_call: BASEFEE reads zero when no gas price is given.
	zeroFees := !commit && m.GasPrice.IsZero()
	e.txs++
	// A transaction's logs stay in the state under its hash, so it is set
	// now; a call's logs are discarded with the call, and its hash is only
	// computed if it emitted any.
	var txHash common.Hash
	if commit {
		txHash = e.txHash()
	}
	db.SetTxContext(txHash, int(e.txs-1), 0)

	var (
		tr     *tracer
		evm    *vm.EVM
		reused *reusedEVM
	)
	if !opts.Trace && db == e.db {
		reused = e.reusedEVM(b, zeroFees)
		evm = reused.evm
	} else {
		bctx := e.blockContext(b, zeroFees)
		var vmdb vm.StateDB = db
		cfg := vm.Config{NoBaseFee: true}
		if opts.Trace {
			if tr, err = newTracer(e.chain); err != nil {
				return nil, err
			}
			cfg.Tracer = tr.hooks()
			vmdb = state.NewHookedState(db, cfg.Tracer)
		}
		evm = vm.NewEVM(bctx, vmdb, e.chain, cfg)
		defer evm.Release()
		if precompiles != nil {
			evm.SetPrecompiles(precompiles)
		}
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, evm.Cancel)
		defer func() {
			if !stop() && reused != nil {
				// Cancel ran or is running: this EVM stays aborted.
				e.dropEVM(reused)
			}
		}()
	}
	if execHook != nil {
		execHook(evm)
	}

	if tr != nil {
		tr.start(evm, m)
	}
	res, err := core.ApplyMessage(evm, m, nil)
	if serr := e.readErr(db); serr != nil {
		if commit {
			e.db = db // keep the error visible: the state is now unusable
		}
		return nil, serr
	}
	if err != nil {
		if commit {
			e.txs--
		}
		return nil, fmt.Errorf("evm: %w", err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("evm: execution cancelled: %w", ctx.Err())
	}
	out := &Result{
		ReturnData: common.CopyBytes(res.ReturnData),
		GasUsed:    res.UsedGas,
		Err:        execErr(res.Err, res.ReturnData),
	}
	if msg.To == nil && res.Err == nil {
		out.ContractAddress = crypto.CreateAddress(msg.From, nonce)
	}
	if res.Err == nil {
		if logs := db.GetLogs(txHash, b.Number, b.Hash, b.Time); len(logs) > 0 {
			if !commit {
				// The slice is the state's own, which the revert truncates.
				logs = append([]*types.Log(nil), logs...)
				h := e.txHash()
				for _, l := range logs {
					l.TxHash = h
				}
			}
			out.Logs = logs
		}
	}
	if tr != nil {
		if out.Trace, err = tr.finish(res); err != nil {
			return nil, err
		}
	}
	if commit {
		db.Finalise(e.rules(b))
		if serr := e.readErr(db); serr != nil {
			return nil, serr
		}
	}
	return out, nil
}

func (e *Env) readErr(db *state.StateDB) error {
	err := db.Error()
	if err == nil && e.fork != nil {
		err = e.fork.codeErr()
	}
	if err != nil {
		return fmt.Errorf("evm: state read: %w", err)
	}
	return nil
}
