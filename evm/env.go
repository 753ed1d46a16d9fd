package evm

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// ErrStateUnusable is returned (wrapping the first read error) by every
// operation of an Env whose state hit a read error, until Revert restores a
// snapshot taken before it.
var ErrStateUnusable = errors.New("evm: state unusable after a read error (revert to an earlier snapshot or open a new Env)")

// DefaultGasLimit is the block gas limit of a local Env, and the gas given to
// calls that do not set one.
const DefaultGasLimit = 30_000_000

// Block is the block context calls and transactions execute in.
type Block struct {
	Number      uint64
	Time        uint64
	GasLimit    uint64
	BaseFee     *big.Int // nil means zero
	BlobBaseFee *big.Int // nil means zero
	Coinbase    common.Address
	PrevRandao  common.Hash
	// Hash is the hash of this block when it is a real one (fork mode).
	Hash common.Hash
}

// Account is a funded test account.
type Account struct {
	Address common.Address
	Key     *ecdsa.PrivateKey
}

// Config configures New. The zero value is an empty state on a chain with
// every fork up to Osaka active and chain id 1337.
type Config struct {
	// ChainConfig selects fork rules; nil means DefaultChainConfig(ChainID),
	// or the chain of the Fork (ChainConfigFor its chain id).
	ChainConfig *params.ChainConfig
	// ChainID is used when ChainConfig is nil and there is no Fork; 0 means 1337.
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
}

// Env is an in-process EVM over one state. It is not safe for concurrent use;
// open one Env per goroutine (several Envs may share a Fork).
type Env struct {
	chain    *params.ChainConfig
	block    Block
	db       *state.StateDB
	fork     *Fork
	accounts []Account
	txs      uint64 // transactions executed, for synthetic tx hashes
	snaps    []snapshot
	// evms holds the untraced EVMs kept between calls and transactions on
	// db: [0] with the block's fees (transactions, calls with a gas price),
	// [1] with BASEFEE and BLOBBASEFEE reading zero (calls without one).
	evms [2]*reusedEVM
}

// reusedEVM is an untraced EVM with go-ethereum's default precompiles, kept
// by an Env for the block context it was built for. go-ethereum reuses one
// EVM for every transaction of a block in the same way: ApplyMessage resets
// the transaction context, and the EVM's JUMPDEST analyses (keyed by code
// hash) stay valid for later calls.
type reusedEVM struct {
	evm   *vm.EVM
	block Block // as built; BaseFee and BlobBaseFee are copies
}

// execHook, when set (by tests), sees every EVM just before it executes.
var execHook func(*vm.EVM)

type snapshot struct {
	db    *state.StateDB
	block Block
	txs   uint64
}

// DefaultChainConfig returns a chain config with every fork up to Osaka active
// from genesis and the given chain id.
func DefaultChainConfig(chainID uint64) *params.ChainConfig {
	c := *params.MergedTestChainConfig
	c.ChainID = new(big.Int).SetUint64(chainID)
	return &c
}

// ChainConfigFor returns go-ethereum's config for a known public chain
// (mainnet, sepolia, hoodi) and DefaultChainConfig otherwise.
func ChainConfigFor(chainID uint64) *params.ChainConfig {
	for _, c := range []*params.ChainConfig{params.MainnetChainConfig, params.SepoliaChainConfig, params.HoodiChainConfig} {
		if c != nil && c.ChainID != nil && c.ChainID.Uint64() == chainID {
			return c
		}
	}
	return DefaultChainConfig(chainID)
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
	e := &Env{chain: cfg.ChainConfig, fork: cfg.Fork}
	memdb := rawdb.NewMemoryDatabase()
	sdb := state.NewDatabase(triedb.NewDatabase(memdb, nil), state.NewCodeDB(memdb))
	var err error
	if cfg.Fork != nil {
		if e.chain == nil {
			e.chain = ChainConfigFor(cfg.Fork.ChainID())
		}
		e.block = cfg.Fork.Block()
		// The root is recorded only; nothing opens the trie (see package doc).
		e.db, err = state.NewWithReader(cfg.Fork.header.StateRoot, sdb, cfg.Fork)
	} else {
		if e.chain == nil {
			id := cfg.ChainID
			if id == 0 {
				id = 1337
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

// SetBlock replaces the block context of later calls and transactions.
func (e *Env) SetBlock(b Block) { e.block = b }

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
	e.snaps = append(e.snaps, snapshot{db: e.db.Copy(), block: e.block, txs: e.txs})
	return len(e.snaps) - 1
}

// Revert restores the snapshot id and discards every later snapshot. The
// snapshot stays valid: it can be reverted to again.
func (e *Env) Revert(id int) error {
	if id < 0 || id >= len(e.snaps) {
		return fmt.Errorf("evm: no snapshot %d", id)
	}
	s := e.snaps[id]
	e.db, e.block, e.txs = s.db.Copy(), s.block, s.txs
	e.snaps = e.snaps[:id+1]
	return nil
}

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

func (e *Env) rules(b Block) params.Rules {
	return e.chain.Rules(new(big.Int).SetUint64(b.Number), true, b.Time)
}

func (e *Env) blockContext(b Block) vm.BlockContext {
	random := b.PrevRandao
	ctx := vm.BlockContext{
		CanTransfer: core.CanTransfer,
		Transfer:    core.Transfer,
		GetHash:     e.getHash,
		Coinbase:    b.Coinbase,
		GasLimit:    b.GasLimit,
		BlockNumber: new(big.Int).SetUint64(b.Number),
		Time:        b.Time,
		Difficulty:  new(big.Int),
		BaseFee:     new(big.Int),
		BlobBaseFee: new(big.Int),
		Random:      &random,
	}
	if b.BaseFee != nil {
		ctx.BaseFee.Set(b.BaseFee)
	}
	if b.BlobBaseFee != nil {
		ctx.BlobBaseFee.Set(b.BlobBaseFee)
	}
	return ctx
}

// getHash answers BLOCKHASH: real hashes from the Fork for its blocks, else a
// deterministic stand-in (keccak256 of the decimal number, as geth's
// core/vm/runtime does).
func (e *Env) getHash(n uint64) common.Hash {
	if e.fork != nil && n <= e.fork.header.Number {
		return e.fork.blockHash(n)
	}
	return common.BytesToHash(crypto.Keccak256([]byte(new(big.Int).SetUint64(n).String())))
}

// message converts a CallMsg; nonce is used only when checkNonce is set.
func (e *Env) message(msg ethereum.CallMsg, b Block, nonce uint64, checkNonce bool) (*core.Message, error) {
	gas := msg.Gas
	if gas == 0 {
		gas = b.GasLimit
	}
	// One allocation for the message and its values.
	v := new(struct {
		m                                        core.Message
		value, price, feeCap, tipCap, blobFeeCap uint256.Int
	})
	toU256 := func(dst *uint256.Int, name string, x *big.Int) error {
		if x == nil {
			return nil
		}
		if x.Sign() < 0 || dst.SetFromBig(x) {
			return fmt.Errorf("evm: %s out of range", name)
		}
		return nil
	}
	if err := toU256(&v.value, "value", msg.Value); err != nil {
		return nil, err
	}
	price, feeCap, tipCap := &v.price, &v.feeCap, &v.tipCap
	if msg.GasPrice != nil && (msg.GasFeeCap != nil || msg.GasTipCap != nil) {
		return nil, errors.New("evm: both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	if msg.GasPrice != nil {
		if err := toU256(price, "gas price", msg.GasPrice); err != nil {
			return nil, err
		}
		feeCap, tipCap = price, price
	} else {
		if err := toU256(feeCap, "max fee per gas", msg.GasFeeCap); err != nil {
			return nil, err
		}
		if err := toU256(tipCap, "max priority fee per gas", msg.GasTipCap); err != nil {
			return nil, err
		}
		if !feeCap.IsZero() || !tipCap.IsZero() {
			var base uint256.Int
			if b.BaseFee != nil {
				base.SetFromBig(b.BaseFee)
			}
			price.Add(tipCap, &base)
			if price.Gt(feeCap) {
				price.Set(feeCap)
			}
		}
	}
	if err := toU256(&v.blobFeeCap, "max fee per blob gas", msg.BlobGasFeeCap); err != nil {
		return nil, err
	}
	v.m = core.Message{
		To:                    msg.To,
		From:                  msg.From,
		Nonce:                 nonce,
		Value:                 &v.value,
		GasLimit:              gas,
		GasPrice:              price,
		GasFeeCap:             feeCap,
		GasTipCap:             tipCap,
		Data:                  msg.Data,
		AccessList:            msg.AccessList,
		BlobGasFeeCap:         &v.blobFeeCap,
		BlobHashes:            msg.BlobHashes,
		SetCodeAuthorizations: msg.AuthorizationList,
	}
	m := &v.m
	if !checkNonce {
		m.SkipNonceCheck()
	}
	m.SkipEOACheck().SkipGasLimitCapCheck().SkipExecutionGasCapCheck()
	return m, nil
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
		bctx := e.blockContext(b)
		if zeroFees {
			bctx.BaseFee = new(big.Int)
			bctx.BlobBaseFee = new(big.Int)
		}
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

// txHash is the synthetic hash of the e.txs-th transaction or call.
func (e *Env) txHash() common.Hash {
	var buf [len("afr/evm tx") + 8]byte
	n := copy(buf[:], "afr/evm tx")
	binary.BigEndian.PutUint64(buf[n:], e.txs)
	return crypto.Keccak256Hash(buf[:])
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
	bctx := e.blockContext(b)
	if zeroFees {
		bctx.BaseFee = new(big.Int)
		bctx.BlobBaseFee = new(big.Int)
	}
	// Keep copies of the fees: the caller may change its big.Ints in place.
	b.BaseFee, b.BlobBaseFee = bctx.BaseFee, bctx.BlobBaseFee
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
		a.Coinbase != b.Coinbase || a.PrevRandao != b.PrevRandao {
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
