package evm

import (
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// AccountOverride replaces parts of one account for a single call. Its JSON is
// that of one entry of eth_call's state-override argument.
type AccountOverride struct {
	Nonce   *hexutil.Uint64 `json:"nonce,omitempty"`
	Code    *hexutil.Bytes  `json:"code,omitempty"`
	Balance *hexutil.Big    `json:"balance,omitempty"`
	// State replaces the whole storage: slots not listed read as zero.
	State map[common.Hash]common.Hash `json:"state,omitempty"`
	// StateDiff replaces only the listed slots.
	StateDiff map[common.Hash]common.Hash `json:"stateDiff,omitempty"`
	// MovePrecompileToAddress moves the precompile at this account's address
	// to another address (the account's own address then holds no precompile).
	MovePrecompileToAddress *common.Address `json:"movePrecompileToAddress,omitempty"`
}

// StateOverride maps accounts to their overrides: eth_call's third argument.
type StateOverride map[common.Address]AccountOverride

// apply writes the overrides into db and removes/moves precompiles in pc.
// Accounts are applied in address order so errors are deterministic. The
// overrides are finalised, so they behave as if a transaction before the
// call had made them (original values for SSTORE gas accounting included).
func (o StateOverride) apply(db *state.StateDB, pc vm.PrecompiledContracts) error {
	if len(o) == 0 {
		return nil
	}
	moved := make(map[common.Address]bool)
	for _, addr := range slices.SortedFunc(maps.Keys(o), common.Address.Cmp) {
		acct := o[addr]
		if moved[addr] {
			return fmt.Errorf("evm: override of %s: a precompile was moved there", addr.Hex())
		}
		if acct.State != nil && acct.StateDiff != nil {
			return fmt.Errorf("evm: override of %s has both 'state' and 'stateDiff'", addr.Hex())
		}
		p, isPrecompile := pc[addr]
		if to := acct.MovePrecompileToAddress; to != nil {
			if !isPrecompile {
				return fmt.Errorf("evm: override of %s: not a precompile, cannot move it", addr.Hex())
			}
			if _, ok := o[*to]; ok {
				return fmt.Errorf("evm: override of %s: cannot move precompile to %s, which is overridden", addr.Hex(), to.Hex())
			}
			pc[*to] = p
			moved[*to] = true
		}
		if isPrecompile {
			delete(pc, addr)
		}
		if acct.Nonce != nil {
			db.SetNonce(addr, uint64(*acct.Nonce), tracing.NonceChangeUnspecified)
		}
		if acct.Code != nil {
			db.SetCode(addr, *acct.Code, tracing.CodeChangeUnspecified)
		}
		if acct.Balance != nil {
			b, overflow := uint256.FromBig((*big.Int)(acct.Balance))
			if overflow || acct.Balance.ToInt().Sign() < 0 {
				return fmt.Errorf("evm: override of %s: balance out of range", addr.Hex())
			}
			db.SetBalance(addr, b, tracing.BalanceChangeUnspecified)
		}
		if acct.State != nil {
			db.SetStorage(addr, acct.State)
		}
		for k, v := range acct.StateDiff {
			db.SetState(addr, k, v)
		}
	}
	db.Finalise(params.Rules{})
	return nil
}

// BlockOverrides replaces block-context fields for a single call: the JSON of
// eth_call's fourth argument (only the fields that affect execution).
type BlockOverrides struct {
	Number        *hexutil.Big    `json:"number,omitempty"`
	Time          *hexutil.Uint64 `json:"time,omitempty"`
	GasLimit      *hexutil.Uint64 `json:"gasLimit,omitempty"`
	FeeRecipient  *common.Address `json:"feeRecipient,omitempty"`
	PrevRandao    *common.Hash    `json:"prevRandao,omitempty"`
	Difficulty    *hexutil.Big    `json:"difficulty,omitempty"`
	BaseFeePerGas *hexutil.Big    `json:"baseFeePerGas,omitempty"`
	BlobBaseFee   *hexutil.Big    `json:"blobBaseFee,omitempty"`
}

func (o *BlockOverrides) apply(b *Block) {
	if o == nil {
		return
	}
	if o.Number != nil {
		b.Number = o.Number.ToInt().Uint64()
	}
	if o.Time != nil {
		b.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		b.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		b.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		b.PrevRandao = *o.PrevRandao
	}
	if o.Difficulty != nil {
		b.Difficulty = new(big.Int).Set(o.Difficulty.ToInt())
	}
	if o.BaseFeePerGas != nil {
		b.BaseFee = new(big.Int).Set(o.BaseFeePerGas.ToInt())
	}
	if o.BlobBaseFee != nil {
		b.BlobBaseFee = new(big.Int).Set(o.BlobBaseFee.ToInt())
	}
}
