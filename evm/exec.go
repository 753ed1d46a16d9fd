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
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// execHook, when set (by tests), sees every EVM just before it executes.
var execHook func(*vm.EVM)

// CallOptions modify one call or transaction.
type CallOptions struct {
	// State overrides apply to this call only (Call) or are made permanent
	// before the transaction (Transact, ApplyTransaction).
	State StateOverride
	// Block overrides apply to this call or transaction only.
	Block *BlockOverrides
	// Nonce, when set, is the sender's nonce for this call or transaction
	// (Call, Transact): the account's nonce is set to it first, so CREATE
	// addresses derive from it and a transaction leaves Nonce+1. Not
	// allowed with ApplyTransaction, whose transaction carries its nonce.
	Nonce *uint64
	// Trace attaches go-ethereum's callTracer and prestateTracer with these
	// options and fills Result.Trace; nil traces nothing.
	Trace *TraceConfig
	// Sender, for ApplyTransaction only, is the sender of the transaction,
	// whose signature is then not checked (it may be unsigned): a
	// transaction sent as an address without its key, as a node's
	// impersonated accounts send (anvil_impersonateAccount).
	Sender *common.Address
	// Hooks, when set and Trace is nil, are go-ethereum tracing hooks
	// attached to the execution as they are (e.g. an OnOpcode that
	// collects coverage). Like Trace, they switch off the reused EVM and
	// geth's fast interpreter path.
	Hooks *tracing.Hooks
}

// Call executes msg against the current state as eth_call does and discards
// every change. The error is non-nil only when the call could not be
// executed (invalid message, state read failure); a revert is Result.Err.
func (e *Env) Call(ctx context.Context, msg ethereum.CallMsg, opts *CallOptions) (*Result, error) {
	return e.exec(ctx, &msg, nil, opts, false)
}

// Transact executes msg as a transaction from msg.From with the sender's
// current nonce (or CallOptions.Nonce) and keeps its effects (also when it
// reverts: the nonce and gas are spent). Gas is paid only when a gas price
// is given. Blob fields are sent only when msg has blob hashes or a blob
// fee cap, and an authorization list makes it an EIP-7702 transaction.
func (e *Env) Transact(ctx context.Context, msg ethereum.CallMsg, opts *CallOptions) (*Result, error) {
	return e.exec(ctx, &msg, nil, opts, true)
}

// Deploy creates a contract from initcode (constructor arguments appended)
// sent by from with value wei (nil for none). The address is in
// Result.ContractAddress.
func (e *Env) Deploy(ctx context.Context, from common.Address, initcode []byte, value *big.Int) (*Result, error) {
	return e.Transact(ctx, ethereum.CallMsg{From: from, Data: initcode, Value: value}, nil)
}

// ApplyTransaction executes a signed transaction of any type (legacy,
// access list, dynamic fee, blob, set code) as a block of the Env's chain
// would, and keeps its effects. The sender is recovered with the signer of
// the chain rules at the block; the nonce, the sender's balance, fee caps
// and the other consensus checks apply, so an invalid transaction is an
// error, not a Result. Result.Receipt holds the receipt fields.
func (e *Env) ApplyTransaction(ctx context.Context, tx *types.Transaction, opts *CallOptions) (*Result, error) {
	if opts != nil && opts.Nonce != nil {
		return nil, errors.New("evm: apply transaction: CallOptions.Nonce is not allowed (the transaction carries its nonce)")
	}
	return e.exec(ctx, nil, tx, opts, true)
}

// ApplyRawTransaction decodes raw, a signed transaction in the encoding of
// eth_sendRawTransaction (RLP for legacy, type byte || payload otherwise),
// and applies it (ApplyTransaction).
func (e *Env) ApplyRawTransaction(ctx context.Context, raw []byte, opts *CallOptions) (*Result, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("evm: decode raw transaction: %w", err)
	}
	return e.ApplyTransaction(ctx, tx, opts)
}

// exec executes msg (a call, or a transaction when commit is set) or the
// signed transaction tx (commit is then set).
func (e *Env) exec(ctx context.Context, msg *ethereum.CallMsg, tx *types.Transaction, opts *CallOptions, commit bool) (*Result, error) {
	if opts == nil {
		opts = &CallOptions{}
	}
	if err := e.stateErr(); err != nil {
		return nil, err
	}
	b := e.block
	opts.Block.apply(&b)

	// The message first for a signed transaction: a bad signature or fee
	// must not leave overrides behind.
	var (
		m    *core.Message
		from common.Address
		err  error
	)
	if tx != nil {
		var signer types.Signer = types.MakeSigner(e.chain, new(big.Int).SetUint64(b.Number), b.Time)
		if opts.Sender != nil {
			signer = impersonated{signer, *opts.Sender}
		}
		baseFee := b.BaseFee
		if baseFee == nil {
			baseFee = new(big.Int)
		}
		if m, err = core.TransactionToMessage(tx, signer, baseFee); err != nil {
			return nil, fmt.Errorf("evm: transaction %s: %w", tx.Hash().Hex(), err)
		}
		from = m.From
	} else {
		if opts.Sender != nil {
			return nil, errors.New("evm: CallOptions.Sender applies to ApplyTransaction only (a message carries its sender)")
		}
		from = msg.From
	}

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

	if opts.Nonce != nil {
		db.SetNonce(from, *opts.Nonce, tracing.NonceChangeUnspecified)
	}
	nonce := db.GetNonce(from)
	if tx != nil {
		nonce = tx.Nonce()
	} else if m, err = e.message(*msg, b, nonce, commit); err != nil {
		return nil, err
	}
	// As eth_call: BASEFEE reads zero when no gas price is given.
	zeroFees := !commit && m.GasPrice.IsZero()
	e.txs++
	// A transaction's logs stay in the state under its hash, so it is set
	// now; a call's logs are discarded with the call, and its hash is only
	// computed if it emitted any.
	var txHash common.Hash
	switch {
	case tx != nil:
		txHash = tx.Hash()
	case commit:
		txHash = e.txHash()
	}
	db.SetTxContext(txHash, int(e.txs-1), 0)

	var (
		tr     *tracer
		evm    *vm.EVM
		reused *reusedEVM
	)
	if opts.Trace == nil && opts.Hooks == nil && db == e.db {
		reused = e.reusedEVM(b, zeroFees)
		evm = reused.evm
	} else {
		bctx := e.blockContext(b, zeroFees)
		var vmdb vm.StateDB = db
		cfg := vm.Config{NoBaseFee: true}
		if opts.Trace != nil {
			if tr, err = newTracer(e.chain, opts.Trace); err != nil {
				return nil, err
			}
			cfg.Tracer = tr.hooks()
			vmdb = state.NewHookedState(db, cfg.Tracer)
		} else if opts.Hooks != nil {
			cfg.Tracer = opts.Hooks
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
		tr.start(evm, m, tx)
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
	vmErr := res.Err
	if errors.Is(vmErr, vm.ErrCodeStoreOutOfGas) && !e.rules(b).IsHomestead {
		// Frontier: a creation that cannot pay for its code stands, without
		// code, with its state changes and logs (go-ethereum keeps them).
		vmErr = nil
	}
	out := &Result{
		ReturnData: common.CopyBytes(res.ReturnData),
		GasUsed:    res.UsedGas,
	}
	to := m.To
	if to == nil {
		// Receipts carry the address of every creation, failed or not.
		out.ContractAddress = crypto.CreateAddress(from, nonce)
		to = &out.ContractAddress
	}
	out.Err = execErr(vmErr, res.ReturnData, *to)
	if vmErr == nil {
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
	if commit {
		e.blockGas += res.UsedGas
		if tx != nil {
			out.Receipt = e.receipt(tx, m, b, out)
		}
	}
	if tr != nil {
		if out.Trace, err = tr.finish(res, out.Receipt); err != nil {
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

// receipt is the receipt go-ethereum would store for tx executed as out in
// block b (core.MakeReceipt), without the post-state root of pre-Byzantium
// receipts: a forked state computes no roots.
func (e *Env) receipt(tx *types.Transaction, m *core.Message, b Block, out *Result) *types.Receipt {
	r := &types.Receipt{
		Type:              tx.Type(),
		Status:            types.ReceiptStatusSuccessful,
		CumulativeGasUsed: e.blockGas,
		Logs:              out.Logs,
		TxHash:            tx.Hash(),
		ContractAddress:   out.ContractAddress,
		GasUsed:           out.GasUsed,
		EffectiveGasPrice: m.GasPrice.ToBig(),
		BlockHash:         b.Hash,
		BlockNumber:       new(big.Int).SetUint64(b.Number),
		TransactionIndex:  uint(e.txs - 1),
	}
	if out.Failed() {
		r.Status = types.ReceiptStatusFailed
	}
	if r.Logs == nil {
		r.Logs = []*types.Log{}
	}
	if tx.Type() == types.BlobTxType {
		r.BlobGasUsed = tx.BlobGas()
		r.BlobGasPrice = new(big.Int)
		if b.BlobBaseFee != nil {
			r.BlobGasPrice.Set(b.BlobBaseFee)
		}
	}
	r.Bloom = types.CreateBloom(r)
	return r
}

func (e *Env) readErr(db *state.StateDB) error {
	err := db.Error()
	if err == nil && e.fork != nil {
		err = e.fork.codeErr()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStateRead, err)
	}
	return nil
}

// impersonated is a signer that takes a transaction's sender as given: the
// transaction's signature is neither checked nor needed.
type impersonated struct {
	types.Signer
	from common.Address
}

func (s impersonated) Sender(*types.Transaction) (common.Address, error) { return s.from, nil }

// Equal is false for every signer, so that types.Sender never caches the
// given sender in the transaction for a real signer to find.
func (impersonated) Equal(types.Signer) bool { return false }
