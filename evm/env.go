package evm

import (
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// ErrStateRead is matched (errors.Is) by the error of an execution that
// could not read the state it needed (a network failure, a miss in
// replay-only mode); the error wraps the reader's.
var ErrStateRead = errors.New("evm: state read")

// ErrStateUnusable is returned (wrapping the first read error) by every
// operation of an Env whose state hit a read error, until Revert restores a
// snapshot taken before it.
var ErrStateUnusable = errors.New("evm: state unusable after a read error (revert to an earlier snapshot or open a new Env)")

// DefaultGasLimit is the block gas limit of a local Env, and the gas given to
// calls that do not set one.
const DefaultGasLimit = 30_000_000

// Account is a funded test account.
type Account struct {
	Address common.Address
	Key     *ecdsa.PrivateKey
}

// Config configures New. The zero value is an empty state on a chain with
// every fork up to Osaka active and chain id 1337.
type Config struct {
	// ChainConfig selects fork rules; nil means the Fork's rules
	// (Fork.ChainConfig) or, without a Fork, DefaultChainConfig(ChainID).
	ChainConfig *params.ChainConfig
	// ChainID is used when ChainConfig is nil and there is no Fork; 0 means
	// DefaultChainID.
	ChainID uint64
	// Block is the initial block context; nil means the Fork's pinned block,
	// or number 1, time 1700000000, gas limit DefaultGasLimit, zero fees.
	Block *Block
	// Alloc is applied on top of the state source (genesis allocation).
	Alloc types.GenesisAlloc
	// FundedAccounts is the number of deterministic dev accounts to create
	// and fund with FundAmount (nil means 10,000 ether each).
	FundedAccounts int
	FundAmount     *big.Int
	// Fork, when set, is the state source (see OpenFork).
	Fork *Fork
	// BlockHash, when set, answers BLOCKHASH for the blocks before the
	// current one (a chain that keeps its own headers, such as
	// chain/backend's in-process chain); nil means the Fork's real hashes,
	// else a deterministic stand-in.
	BlockHash func(number uint64) common.Hash
}

// Env is an in-process EVM over one state. It is not safe for concurrent use;
// open one Env per goroutine (several Envs may share a Fork).
type Env struct {
	chain    *params.ChainConfig
	block    Block
	db       *state.StateDB
	sdb      state.Database // the trie and code databases db reads (Commit, OpenAt)
	hash     func(uint64) common.Hash
	fork     *Fork
	accounts []Account
	txs      uint64 // transactions executed, for synthetic tx hashes
	blockGas uint64 // gas used by transactions since the block was set
	snaps    []snapshot
	// evms holds the untraced EVMs kept between calls and transactions on
	// db: [0] with the block's fees (transactions, calls with a gas price),
	// [1] with BASEFEE and BLOBBASEFEE reading zero (calls without one).
	evms [2]*reusedEVM
}

type snapshot struct {
	db       *state.StateDB
	block    Block
	txs      uint64
	blockGas uint64
}

// DevAccounts returns n deterministic accounts (keys derived from
// keccak256("afr/evm dev account" || i)); they hold nothing until funded.
func DevAccounts(n int) []Account {
	out := make([]Account, n)
	for i := range out {
		var idx [8]byte
		binary.BigEndian.PutUint64(idx[:], uint64(i))
		seed := crypto.Keccak256([]byte("afr/evm dev account"), idx[:])
		key, err := crypto.ToECDSA(seed)
		if err != nil { // probability ~2^-128
			panic(err)
		}
		out[i] = Account{Address: crypto.PubkeyToAddress(key.PublicKey), Key: key}
	}
	return out
}

// New returns an Env over the configured state source.
func New(cfg Config) (*Env, error) {
	memdb := rawdb.NewMemoryDatabase()
	sdb := state.NewDatabase(triedb.NewDatabase(memdb, nil), state.NewCodeDB(memdb))
	e := &Env{chain: cfg.ChainConfig, fork: cfg.Fork, sdb: sdb, hash: cfg.BlockHash}
	var err error
	if cfg.Fork != nil {
		if e.chain == nil {
			e.chain = cfg.Fork.ChainConfig()
		}
		e.block = cfg.Fork.Block()
		// The root is recorded only; nothing opens the trie (see package doc).
		e.db, err = state.NewWithReader(cfg.Fork.header.StateRoot, sdb, cfg.Fork)
	} else {
		if e.chain == nil {
			id := cfg.ChainID
			if id == 0 {
				id = DefaultChainID
			}
			e.chain = DefaultChainConfig(id)
		}
		e.block = Block{Number: 1, Time: 1_700_000_000, GasLimit: DefaultGasLimit}
		e.db, err = state.New(types.EmptyRootHash, sdb)
	}
	if err != nil {
		return nil, fmt.Errorf("evm: open state: %w", err)
	}
	if cfg.Block != nil {
		e.block = *cfg.Block
	}
	if e.block.GasLimit == 0 {
		e.block.GasLimit = DefaultGasLimit
	}
	for addr, a := range cfg.Alloc {
		if a.Balance != nil {
			b, overflow := uint256.FromBig(a.Balance)
			if overflow {
				return nil, fmt.Errorf("evm: alloc %s: balance out of range", addr.Hex())
			}
			e.db.SetBalance(addr, b, tracing.BalanceIncreaseGenesisBalance)
		}
		if a.Nonce != 0 {
			e.db.SetNonce(addr, a.Nonce, tracing.NonceChangeGenesis)
		}
		if len(a.Code) > 0 {
			e.db.SetCode(addr, a.Code, tracing.CodeChangeGenesis)
		}
		for k, v := range a.Storage {
			e.db.SetState(addr, k, v)
		}
	}
	if cfg.FundedAccounts > 0 {
		amount := cfg.FundAmount
		if amount == nil {
			amount = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether))
		}
		b, overflow := uint256.FromBig(amount)
		if overflow {
			return nil, errors.New("evm: fund amount out of range")
		}
		e.accounts = DevAccounts(cfg.FundedAccounts)
		for _, a := range e.accounts {
			e.db.SetBalance(a.Address, b, tracing.BalanceIncreaseGenesisBalance)
		}
	}
	e.db.Finalise(params.Rules{})
	if err := e.stateErr(); err != nil {
		return nil, err
	}
	return e, nil
}

// ChainConfig returns the fork rules in use.
func (e *Env) ChainConfig() *params.ChainConfig { return e.chain }

// Block returns the current block context.
func (e *Env) Block() Block { return e.block }

// SetBlock replaces the block context of later calls and transactions and
// starts a new block: receipts' cumulative gas counts from zero again.
func (e *Env) SetBlock(b Block) { e.block, e.blockGas = b, 0 }

// Accounts returns the funded dev accounts (Config.FundedAccounts).
func (e *Env) Accounts() []Account { return e.accounts }

// Fork returns the Env's Fork, or nil for a local state.
func (e *Env) Fork() *Fork { return e.fork }

// stateErr returns the first reader error recorded by the StateDB or the
// Fork, wrapped in ErrStateUnusable.
func (e *Env) stateErr() error {
	err := e.db.Error()
	if err == nil && e.fork != nil {
		err = e.fork.codeErr()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStateUnusable, err)
	}
	return nil
}
