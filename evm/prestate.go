package evm

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// Prestate is a complete state at one block with the rules it runs under:
// what a pre-state file holds (for example the genesis allocation and block
// context of a go-ethereum tracer test fixture).
type Prestate struct {
	ChainID     uint64
	ChainConfig *params.ChainConfig
	// Block is the block the state is pinned to. Hash must be non-zero (any
	// value that names the block); BlobBaseFee must be nil: the fee is
	// derived from ExcessBlobGas under ChainConfig, as for a recorded block.
	Block Block
	// ExcessBlobGas is the header's excess blob gas (Cancun on); nil for none.
	ExcessBlobGas *uint64
	// ParentHash answers BLOCKHASH(Block.Number-1); other earlier hashes are
	// not known (a *MissError).
	ParentHash common.Hash
	// Alloc is every account there is; an account or slot it lacks does not
	// exist / is zero. An empty account it lists (no balance, nonce or code)
	// exists: before Spurious Dragon a CALL to it costs no new-account gas.
	Alloc types.GenesisAlloc
}

// WritePrestate writes p as a fork cache file (version 2) at path. It is the
// way to replay from a pre-state file: open the file with
//
//	OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: path, AbsentIsEmpty: true})
//
// and the Fork has p's rules (RulesSource "fork cache chain_config"), p's
// block as Block() (Difficulty, BaseFee, the blob base fee from
// ExcessBlobGas, Coinbase, PrevRandao, Hash) and exactly p's state.
func WritePrestate(path string, p Prestate) error {
	switch {
	case p.ChainID == 0:
		return errors.New("evm: prestate: ChainID is zero")
	case p.ChainConfig == nil:
		return errors.New("evm: prestate: ChainConfig is nil (see HardforkConfig and LoadChainConfig)")
	case p.ChainConfig.ChainID == nil || !p.ChainConfig.ChainID.IsUint64() || p.ChainConfig.ChainID.Uint64() != p.ChainID:
		return fmt.Errorf("evm: prestate: ChainConfig is for chain %v, ChainID is %d", p.ChainConfig.ChainID, p.ChainID)
	case p.Block.Hash == (common.Hash{}):
		return errors.New("evm: prestate: Block.Hash is zero; give the block a hash (the fork cache is keyed by it)")
	case p.Block.BlobBaseFee != nil:
		return errors.New("evm: prestate: Block.BlobBaseFee is derived; give ExcessBlobGas instead")
	}
	b := p.Block
	h := cacheHeader{
		Number: b.Number, Hash: b.Hash, ParentHash: p.ParentHash, Timestamp: b.Time, GasLimit: b.GasLimit,
		Coinbase: b.Coinbase, PrevRandao: b.PrevRandao,
	}
	var err error
	if h.BaseFee, err = u256Field("Block.BaseFee", b.BaseFee); err != nil {
		return err
	}
	if b.Difficulty != nil && b.Difficulty.Sign() != 0 {
		if h.Difficulty, err = u256Field("Block.Difficulty", b.Difficulty); err != nil {
			return err
		}
	}
	if p.ExcessBlobGas != nil {
		eg := hexutil.Uint64(*p.ExcessBlobGas)
		h.ExcessBlobGas = &eg
		if _, err := BlobBaseFee(p.ChainConfig, b.Number, b.Time, *p.ExcessBlobGas); err != nil {
			return fmt.Errorf("evm: prestate: %w", err)
		}
	}
	c := &cacheFile{
		Format: cacheFormat, Version: cacheVersion, ChainID: p.ChainID, chain: p.ChainConfig, Block: h,
		Accounts: map[common.Address]*cacheAccount{}, Codes: map[common.Hash]hexutil.Bytes{},
		Storage: map[common.Address]map[common.Hash]common.Hash{}, BlockHashes: map[uint64]common.Hash{},
	}
	for addr, a := range p.Alloc {
		bal, err := u256Field("balance of "+addr.Hex(), a.Balance)
		if err != nil {
			return err
		}
		if bal == nil {
			bal = new(hexutil.Big)
		}
		codeHash := types.EmptyCodeHash
		if len(a.Code) > 0 {
			codeHash = crypto.Keccak256Hash(a.Code)
			c.Codes[codeHash] = hexutil.Bytes(a.Code)
		}
		c.Accounts[addr] = &cacheAccount{Balance: bal, Nonce: hexutil.Uint64(a.Nonce), CodeHash: codeHash}
		if len(a.Storage) > 0 {
			slots := make(map[common.Hash]common.Hash, len(a.Storage))
			for k, v := range a.Storage {
				slots[k] = v
			}
			c.Storage[addr] = slots
		}
	}
	return writeCache(path, c)
}

// u256Field converts v (nil allowed) to a cache quantity, refusing values
// outside uint256.
func u256Field(name string, v *big.Int) (*hexutil.Big, error) {
	if v == nil {
		return nil, nil
	}
	if v.Sign() < 0 || v.Cmp(maxU256) > 0 {
		return nil, fmt.Errorf("evm: prestate: %s %s is not a uint256", name, v)
	}
	return (*hexutil.Big)(new(big.Int).Set(v)), nil
}
