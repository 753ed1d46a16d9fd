package evm

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // registers callTracer, prestateTracer, muxTracer
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// TraceConfig selects what a traced execution records. Its fields and JSON
// are the tracerConfig options of go-ethereum's callTracer (OnlyTopCall,
// WithLog) and prestateTracer (DiffMode, DisableCode, DisableStorage), with
// the same meaning.
type TraceConfig struct {
	// OnlyTopCall records the top call frame only, without subcalls.
	OnlyTopCall bool `json:"onlyTopCall,omitempty"`
	// WithLog records the logs each frame emitted (dropped for frames that
	// failed, as they are not emitted).
	WithLog bool `json:"withLog,omitempty"`
	// DiffMode records Pre and Post as the changed fields before and after;
	// without it Pre is every account touched and Post is nil.
	DiffMode bool `json:"diffMode,omitempty"`
	// DisableCode and DisableStorage leave code and storage out of Pre/Post.
	DisableCode    bool `json:"disableCode,omitempty"`
	DisableStorage bool `json:"disableStorage,omitempty"`
}

// FullTrace is the configuration AFR's replay and simulation use: every
// frame with its logs, and the state diff.
func FullTrace() *TraceConfig { return &TraceConfig{WithLog: true, DiffMode: true} }

// Trace is what a traced call or transaction did: its call tree (with the
// logs each frame emitted, if asked) and the state it read and changed.
// Calls marshals to the JSON of go-ethereum's callTracer, byte for byte;
// PrestateJSON gives that of its prestateTracer.
type Trace struct {
	Calls CallFrame `json:"calls"`
	// Pre holds every account touched, as it was before execution (in diff
	// mode only the fields and slots that changed, plus the accounts'
	// existing fields).
	Pre map[common.Address]AccountState `json:"pre"`
	// Post holds, in diff mode, the fields and slots that changed, as they
	// are after.
	Post map[common.Address]AccountState `json:"post,omitempty"`

	diffMode bool
}

// PrestateJSON is the trace's state as go-ethereum's prestateTracer returns
// it: {"post":…,"pre":…} in diff mode, the prestate map otherwise.
func (t *Trace) PrestateJSON() ([]byte, error) {
	if !t.diffMode {
		return json.Marshal(t.Pre)
	}
	return json.Marshal(struct {
		Post map[common.Address]AccountState `json:"post"`
		Pre  map[common.Address]AccountState `json:"pre"`
	}{t.Post, t.Pre})
}

// CallFrame is one call in the tree; its fields are in the order of
// go-ethereum's callTracer output.
type CallFrame struct {
	From         common.Address  `json:"from"`
	Gas          hexutil.Uint64  `json:"gas"`
	GasUsed      hexutil.Uint64  `json:"gasUsed"`
	To           *common.Address `json:"to,omitempty"`
	Input        hexutil.Bytes   `json:"input"`
	Output       hexutil.Bytes   `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`
	RevertReason string          `json:"revertReason,omitempty"`
	Calls        []CallFrame     `json:"calls,omitempty"`
	Logs         []CallLog       `json:"logs,omitempty"`
	Value        *hexutil.Big    `json:"value,omitempty"`
	Type         string          `json:"type"` // CALL, STATICCALL, DELEGATECALL, CREATE, ...
}

// Reverted reports whether the frame ended in REVERT. The callTracer records
// a frame's error as its text only; a revert is vm.ErrExecutionReverted's.
func (f *CallFrame) Reverted() bool { return f.Error == vm.ErrExecutionReverted.Error() }

// CallLog is a log emitted by a frame; Position is its place among the
// frame's subcalls.
type CallLog struct {
	Address  common.Address `json:"address"`
	Topics   []common.Hash  `json:"topics"`
	Data     hexutil.Bytes  `json:"data"`
	Index    hexutil.Uint   `json:"index"`
	Position hexutil.Uint   `json:"position"`
}

// AccountState is an account in a prestate/poststate map, with the fields
// and JSON of go-ethereum's prestateTracer. Code is a pointer so that code
// that is unchanged (nil, omitted) differs from code that was cleared
// (empty, "0x": an EIP-7702 delegation revoked).
type AccountState struct {
	Balance  *hexutil.Big                `json:"balance,omitempty"`
	Code     *hexutil.Bytes              `json:"code,omitempty"`
	CodeHash *common.Hash                `json:"codeHash,omitempty"`
	Nonce    uint64                      `json:"nonce,omitempty"`
	Storage  map[common.Hash]common.Hash `json:"storage,omitempty"`
}

// tracer drives go-ethereum's native tracers through one message.
type tracer struct {
	t   *tracers.Tracer
	cfg TraceConfig
}

func newTracer(chain *params.ChainConfig, cfg *TraceConfig) (*tracer, error) {
	call, err := json.Marshal(struct {
		OnlyTopCall bool `json:"onlyTopCall"`
		WithLog     bool `json:"withLog"`
	}{cfg.OnlyTopCall, cfg.WithLog})
	if err != nil {
		return nil, err
	}
	pre, err := json.Marshal(struct {
		DiffMode       bool `json:"diffMode"`
		DisableCode    bool `json:"disableCode"`
		DisableStorage bool `json:"disableStorage"`
	}{cfg.DiffMode, cfg.DisableCode, cfg.DisableStorage})
	if err != nil {
		return nil, err
	}
	mux := json.RawMessage(`{"callTracer":` + string(call) + `,"prestateTracer":` + string(pre) + `}`)
	t, err := tracers.DefaultDirectory.New("muxTracer", new(tracers.Context), mux, chain)
	if err != nil {
		return nil, fmt.Errorf("evm: tracer: %w", err)
	}
	return &tracer{t: t, cfg: *cfg}, nil
}

func (t *tracer) hooks() *tracing.Hooks { return t.t.Hooks }

// start announces the transaction to the tracers as ApplyTransactionWithEVM
// would: the signed transaction if there is one, else a transaction built
// from the message, of the type its fields make it (the prestate tracer
// reads a set-code transaction's authorities).
func (t *tracer) start(evm *vm.EVM, m *core.Message, tx *types.Transaction) {
	if t.t.OnTxStart == nil {
		return
	}
	if tx == nil {
		tx = messageTx(evm.ChainConfig().ChainID, m)
	}
	t.t.OnTxStart(evm.GetVMContext(), tx, m.From)
}

// messageTx is the unsigned transaction a message stands for.
func messageTx(chainID *big.Int, m *core.Message) *types.Transaction {
	if len(m.SetCodeAuthorizations) > 0 && m.To != nil {
		return types.NewTx(&types.SetCodeTx{
			ChainID:    uint256.MustFromBig(chainID),
			Nonce:      m.Nonce,
			GasTipCap:  m.GasTipCap,
			GasFeeCap:  m.GasFeeCap,
			Gas:        m.GasLimit,
			To:         *m.To,
			Value:      m.Value,
			Data:       m.Data,
			AccessList: m.AccessList,
			AuthList:   m.SetCodeAuthorizations,
		})
	}
	return types.NewTx(&types.DynamicFeeTx{
		ChainID:    chainID,
		Nonce:      m.Nonce,
		GasTipCap:  m.GasTipCap.ToBig(),
		GasFeeCap:  m.GasFeeCap.ToBig(),
		Gas:        m.GasLimit,
		To:         m.To,
		Value:      m.Value.ToBig(),
		Data:       m.Data,
		AccessList: m.AccessList,
	})
}

// finish ends the transaction for the tracers with its receipt (a minimal
// one for messages) and decodes their results.
func (t *tracer) finish(res *core.ExecutionResult, rc *types.Receipt) (*Trace, error) {
	if t.t.OnTxEnd != nil {
		if rc == nil {
			rc = &types.Receipt{GasUsed: res.UsedGas}
		}
		t.t.OnTxEnd(rc, nil)
	}
	raw, err := t.t.GetResult()
	if err != nil {
		return nil, fmt.Errorf("evm: tracer result: %w", err)
	}
	var out struct {
		Call     CallFrame       `json:"callTracer"`
		Prestate json.RawMessage `json:"prestateTracer"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("evm: decode tracer result: %w", err)
	}
	tr := &Trace{Calls: out.Call, diffMode: t.cfg.DiffMode}
	if t.cfg.DiffMode {
		var diff struct {
			Pre  map[common.Address]AccountState `json:"pre"`
			Post map[common.Address]AccountState `json:"post"`
		}
		err = json.Unmarshal(out.Prestate, &diff)
		tr.Pre, tr.Post = diff.Pre, diff.Post
	} else {
		err = json.Unmarshal(out.Prestate, &tr.Pre)
	}
	if err != nil {
		return nil, fmt.Errorf("evm: decode prestate: %w", err)
	}
	return tr, nil
}
