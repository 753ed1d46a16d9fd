package tracesim

import (
	"bytes"
	"errors"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
)

// Execution statuses in Effects.Status.
const (
	StatusSuccess  = "success"
	StatusReverted = "reverted" // REVERT (Revert holds the data)
	StatusFailed   = "failed"   // aborted: out of gas, invalid opcode, ...
)

// Effects is what an execution did, decoded.
type Effects struct {
	Status  string           `json:"status"`
	GasUsed uint64           `json:"gas_used"`
	Revert  *calldata.Revert `json:"revert,omitempty"` // for StatusReverted
	Error   string           `json:"error,omitempty"`  // for StatusFailed, or the revert reason
	// ReturnData is the top-level call's return data (or revert data).
	ReturnData hexutil.Bytes `json:"return_data,omitempty"`
	// Created is the address of a contract created by the transaction.
	Created *common.Address `json:"created,omitempty"`
	// Calls is the call tree (nil when the execution was not traced).
	Calls *Frame `json:"calls,omitempty"`
	// Storage lists changed slots per contract, by address then slot.
	Storage []StorageChanges `json:"storage,omitempty"`
	// Balances lists accounts whose balance changed, by address (the fee
	// paid by the sender and received by the coinbase included).
	Balances []BalanceChange `json:"balances,omitempty"`
	// Code lists accounts whose code changed: contracts created or
	// destroyed, EIP-7702 delegations set or revoked.
	Code []CodeChange `json:"code,omitempty"`
	// Nonces lists accounts whose nonce changed (the sender's, created
	// contracts', EIP-7702 authorities').
	Nonces []NonceChange `json:"nonces,omitempty"`
	// Transfers are the ERC-20 / ERC-721 transfers in the emitted logs.
	Transfers []Transfer `json:"transfers,omitempty"`
	// Events are the emitted logs, decoded, in order.
	Events []*calldata.DecodedLog `json:"events,omitempty"`
}

// Frame is one call of the call tree, its input decoded.
type Frame struct {
	Type    string          `json:"type"` // CALL, STATICCALL, DELEGATECALL, CALLCODE, CREATE, CREATE2, SELFDESTRUCT
	From    common.Address  `json:"from"`
	To      *common.Address `json:"to,omitempty"`
	Value   *calldata.Dec   `json:"value,omitempty"`
	Gas     uint64          `json:"gas"`
	GasUsed uint64          `json:"gas_used"`
	// Call is the decoded input (for CREATE the initcode, undecoded).
	Call   *calldata.Call   `json:"call"`
	Output hexutil.Bytes    `json:"output,omitempty"`
	Error  string           `json:"error,omitempty"`
	Revert *calldata.Revert `json:"revert,omitempty"`
	Calls  []*Frame         `json:"calls,omitempty"`
}

// StorageChanges are the changed slots of one contract.
type StorageChanges struct {
	Address  common.Address `json:"address"`
	Contract string         `json:"contract,omitempty"` // bound name, if any
	Slots    []SlotChange   `json:"slots"`
}

// SlotChange is one storage slot before and after.
type SlotChange struct {
	Slot   common.Hash `json:"slot"`
	Before common.Hash `json:"before"`
	After  common.Hash `json:"after"`
}

// BalanceChange is an account's balance before and after, in wei.
type BalanceChange struct {
	Address common.Address `json:"address"`
	Before  *calldata.Dec  `json:"before"`
	After   *calldata.Dec  `json:"after"`
	Delta   string         `json:"delta"` // signed decimal
}

// Code change kinds (CodeChange.Kind).
const (
	CodeCreated     = "created"     // code where there was none
	CodeDestroyed   = "destroyed"   // code removed
	CodeDelegated   = "delegated"   // an EIP-7702 delegation set (or moved to another target)
	CodeUndelegated = "undelegated" // an EIP-7702 delegation revoked
	CodeReplaced    = "replaced"    // other code replaced
)

// CodeChange is an account whose code changed.
type CodeChange struct {
	Address common.Address `json:"address"`
	Kind    string         `json:"kind"`
	// Delegate is the target of a delegation set (kind delegated).
	Delegate *common.Address `json:"delegate,omitempty"`
	// Before and After are the code hashes (the empty-code hash for none).
	Before common.Hash `json:"before"`
	After  common.Hash `json:"after"`
}

// NonceChange is an account's nonce before and after.
type NonceChange struct {
	Address common.Address `json:"address"`
	Before  uint64         `json:"before"`
	After   uint64         `json:"after"`
}

// codeChange classifies a code change from before to after.
func codeChange(a common.Address, before, after []byte) CodeChange {
	c := CodeChange{Address: a, Before: crypto.Keccak256Hash(before), After: crypto.Keccak256Hash(after)}
	_, wasDelegated := types.ParseDelegation(before)
	target, delegated := types.ParseDelegation(after)
	switch {
	case delegated:
		c.Kind, c.Delegate = CodeDelegated, &target
	case wasDelegated && len(after) == 0:
		c.Kind = CodeUndelegated
	case len(before) == 0:
		c.Kind = CodeCreated
	case len(after) == 0:
		c.Kind = CodeDestroyed
	default:
		c.Kind = CodeReplaced
	}
	return c
}

// Transfer is a token transfer read from a standard Transfer event.
type Transfer struct {
	Standard string         `json:"standard"` // "erc20" or "erc721"
	Token    common.Address `json:"token"`
	From     common.Address `json:"from"`
	To       common.Address `json:"to"`
	Amount   *calldata.Dec  `json:"amount,omitempty"`   // erc20
	TokenID  *calldata.Dec  `json:"token_id,omitempty"` // erc721
	LogIndex int            `json:"log_index"`
}

// TransferTopic is keccak256("Transfer(address,address,uint256)").
var TransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// Transfers reads ERC-20 transfers (three topics, 32 bytes of data) and
// ERC-721 transfers (four topics, no data) from logs; other shapes of the
// Transfer topic are not transfers of these standards and are skipped.
func Transfers(logs []*types.Log) []Transfer {
	var out []Transfer
	for i, l := range logs {
		if len(l.Topics) == 0 || l.Topics[0] != TransferTopic {
			continue
		}
		from := common.BytesToAddress(l.Topics[1%len(l.Topics)].Bytes())
		switch {
		case len(l.Topics) == 3 && len(l.Data) == 32 && cleanAddr(l.Topics[1]) && cleanAddr(l.Topics[2]):
			out = append(out, Transfer{Standard: "erc20", Token: l.Address, From: from,
				To: common.BytesToAddress(l.Topics[2].Bytes()), Amount: calldata.NewDec(new(big.Int).SetBytes(l.Data)), LogIndex: i})
		case len(l.Topics) == 4 && len(l.Data) == 0 && cleanAddr(l.Topics[1]) && cleanAddr(l.Topics[2]):
			out = append(out, Transfer{Standard: "erc721", Token: l.Address, From: from,
				To: common.BytesToAddress(l.Topics[2].Bytes()), TokenID: calldata.NewDec(l.Topics[3].Big()), LogIndex: i})
		}
	}
	return out
}

func cleanAddr(h common.Hash) bool {
	for _, b := range h[:12] {
		if b != 0 {
			return false
		}
	}
	return true
}

// EffectsOf decodes the outcome of an evm execution. Storage and balance
// changes and the call tree need res.Trace (CallOptions.Trace).
func EffectsOf(r *calldata.Registry, res *evm.Result) *Effects {
	if r == nil {
		r = calldata.NewRegistry()
	}
	e := &Effects{GasUsed: res.GasUsed, ReturnData: common.CopyBytes(res.ReturnData), Status: StatusSuccess}
	var rerr *evm.RevertError
	switch {
	case res.Err == nil:
		if res.ContractAddress != (common.Address{}) {
			a := res.ContractAddress
			e.Created = &a
		}
	case errors.As(res.Err, &rerr):
		e.Status = StatusReverted
		e.Revert = calldata.DecodeRevert(r, rerr.Data, rerr.To)
		e.Error = e.Revert.Reason
	default:
		e.Status = StatusFailed
		e.Error = res.Err.Error()
	}
	for i, l := range res.Logs {
		ev := r.DecodeLog(l.Address, l.Topics, l.Data)
		ev.Index = i
		e.Events = append(e.Events, ev)
	}
	e.Transfers = Transfers(res.Logs)
	if res.Trace != nil {
		e.Calls = decodeFrame(r, &res.Trace.Calls, 0)
		e.Storage, e.Balances, e.Code, e.Nonces = stateDiff(r, res.Trace)
	}
	return e
}

func decodeFrame(r *calldata.Registry, f *evm.CallFrame, depth int) *Frame {
	out := &Frame{Type: f.Type, From: f.From, To: f.To, Gas: uint64(f.Gas), GasUsed: uint64(f.GasUsed),
		Output: common.CopyBytes(f.Output), Error: f.Error}
	if f.Value != nil {
		out.Value = calldata.NewDec(f.Value.ToInt())
	}
	if f.Type == "CREATE" || f.Type == "CREATE2" {
		out.Call = &calldata.Call{Data: common.CopyBytes(f.Input), Error: "contract creation"}
	} else {
		out.Call = r.DecodeCall(f.To, f.Input)
	}
	if f.Reverted() || f.Error != "" && len(f.Output) > 0 {
		var at common.Address // a failed creation has none
		if f.To != nil {
			at = *f.To
		}
		out.Revert = calldata.DecodeRevert(r, f.Output, at)
	}
	for i := range f.Calls {
		out.Calls = append(out.Calls, decodeFrame(r, &f.Calls[i], depth+1))
	}
	return out
}

// stateDiff turns the prestate tracer's diff (pre: changed slots' old
// non-zero values; post: new non-zero values) into per-contract slot changes
// and balance, code and nonce changes.
func stateDiff(r *calldata.Registry, t *evm.Trace) ([]StorageChanges, []BalanceChange, []CodeChange, []NonceChange) {
	addrs := map[common.Address]bool{}
	for a := range t.Pre {
		addrs[a] = true
	}
	for a := range t.Post {
		addrs[a] = true
	}
	sorted := make([]common.Address, 0, len(addrs))
	for a := range addrs {
		sorted = append(sorted, a)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Cmp(sorted[j]) < 0 })
	var storage []StorageChanges
	var balances []BalanceChange
	var codes []CodeChange
	var nonces []NonceChange
	for _, a := range sorted {
		pre, inPre := t.Pre[a]
		post, inPost := t.Post[a]
		if !inPost {
			// Unmodified accounts are pruned from pre; an account in pre
			// only was deleted (SELFDESTRUCT in its creating transaction).
			if !inPre {
				continue
			}
			empty := hexutil.Bytes{}
			post = evm.AccountState{Balance: (*hexutil.Big)(new(big.Int))}
			if pre.Code != nil && len(*pre.Code) > 0 {
				post.Code = &empty
			}
		}
		if post.Code != nil {
			var before []byte
			if pre.Code != nil {
				before = *pre.Code
			}
			if !bytes.Equal(before, *post.Code) {
				codes = append(codes, codeChange(a, before, *post.Code))
			}
		}
		if post.Nonce != 0 && post.Nonce != pre.Nonce {
			nonces = append(nonces, NonceChange{Address: a, Before: pre.Nonce, After: post.Nonce})
		}
		slots := map[common.Hash]bool{}
		for s := range pre.Storage {
			slots[s] = true
		}
		for s := range post.Storage {
			slots[s] = true
		}
		if len(slots) > 0 {
			sc := StorageChanges{Address: a}
			sc.Contract, _ = r.BoundTo(a)
			for s := range slots {
				before, after := pre.Storage[s], post.Storage[s]
				if before != after {
					sc.Slots = append(sc.Slots, SlotChange{Slot: s, Before: before, After: after})
				}
			}
			sort.Slice(sc.Slots, func(i, j int) bool { return sc.Slots[i].Slot.Cmp(sc.Slots[j].Slot) < 0 })
			if len(sc.Slots) > 0 {
				storage = append(storage, sc)
			}
		}
		if post.Balance != nil {
			before := new(big.Int)
			if pre.Balance != nil {
				before = pre.Balance.ToInt()
			}
			after := post.Balance.ToInt()
			if before.Cmp(after) != 0 {
				balances = append(balances, BalanceChange{Address: a, Before: calldata.NewDec(before), After: calldata.NewDec(after),
					Delta: new(big.Int).Sub(after, before).String()})
			}
		}
	}
	return storage, balances, codes, nonces
}
