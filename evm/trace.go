package evm

import (
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // registers callTracer, prestateTracer, muxTracer
	"github.com/ethereum/go-ethereum/params"
)

// Trace is what a traced call or transaction did: its call tree (with the
// logs each frame emitted) and the state it read and changed. The JSON is
// that of go-ethereum's callTracer (withLog) and prestateTracer (diffMode),
// as debug_traceCall returns them.
type Trace struct {
	Calls CallFrame `json:"calls"`
	// Pre holds every account touched, as it was before execution (only the
	// fields and slots that changed, plus the accounts' existing fields).
	Pre map[common.Address]AccountState `json:"pre"`
	// Post holds the fields and slots that changed, as they are after.
	Post map[common.Address]AccountState `json:"post"`
}

// CallFrame is one call in the tree.
type CallFrame struct {
	Type         string          `json:"type"` // CALL, STATICCALL, DELEGATECALL, CREATE, ...
	From         common.Address  `json:"from"`
	To           *common.Address `json:"to,omitempty"`
	Value        *hexutil.Big    `json:"value,omitempty"`
	Gas          hexutil.Uint64  `json:"gas"`
	GasUsed      hexutil.Uint64  `json:"gasUsed"`
	Input        hexutil.Bytes   `json:"input"`
	Output       hexutil.Bytes   `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`
	RevertReason string          `json:"revertReason,omitempty"`
	Calls        []CallFrame     `json:"calls,omitempty"`
	Logs         []CallLog       `json:"logs,omitempty"`
}

// CallLog is a log emitted by a frame; Position is its place among the
// frame's subcalls.
type CallLog struct {
	Address  common.Address `json:"address"`
	Topics   []common.Hash  `json:"topics"`
	Data     hexutil.Bytes  `json:"data"`
	Index    hexutil.Uint   `json:"index"`
	Position hexutil.Uint   `json:"position"`
}

// AccountState is an account in a prestate/poststate map.
type AccountState struct {
	Balance  *hexutil.Big                `json:"balance,omitempty"`
	Nonce    uint64                      `json:"nonce,omitempty"`
	Code     hexutil.Bytes               `json:"code,omitempty"`
	CodeHash *common.Hash                `json:"codeHash,omitempty"`
	Storage  map[common.Hash]common.Hash `json:"storage,omitempty"`
}

// tracer drives go-ethereum's native tracers through one message.
type tracer struct {
	t   *tracers.Tracer
	evm *vm.EVM
	msg *core.Message
}

func newTracer(chain *params.ChainConfig) (*tracer, error) {
	cfg := json.RawMessage(`{"callTracer":{"withLog":true},"prestateTracer":{"diffMode":true}}`)
	t, err := tracers.DefaultDirectory.New("muxTracer", new(tracers.Context), cfg, chain)
	if err != nil {
		return nil, fmt.Errorf("evm: tracer: %w", err)
	}
	return &tracer{t: t}, nil
}

func (t *tracer) hooks() *tracing.Hooks { return t.t.Hooks }

// start announces the transaction to the tracers as ApplyTransactionWithEVM
// would, with a transaction built from the message.
func (t *tracer) start(evm *vm.EVM, m *core.Message) {
	t.evm, t.msg = evm, m
	if t.t.OnTxStart == nil {
		return
	}
	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID:    evm.ChainConfig().ChainID,
		Nonce:      m.Nonce,
		GasTipCap:  m.GasTipCap.ToBig(),
		GasFeeCap:  m.GasFeeCap.ToBig(),
		Gas:        m.GasLimit,
		To:         m.To,
		Value:      m.Value.ToBig(),
		Data:       m.Data,
		AccessList: m.AccessList,
	})
	t.t.OnTxStart(evm.GetVMContext(), tx, m.From)
}

func (t *tracer) finish(res *core.ExecutionResult) (*Trace, error) {
	if t.t.OnTxEnd != nil {
		t.t.OnTxEnd(&types.Receipt{GasUsed: res.UsedGas}, nil)
	}
	raw, err := t.t.GetResult()
	if err != nil {
		return nil, fmt.Errorf("evm: tracer result: %w", err)
	}
	var out struct {
		Call     CallFrame `json:"callTracer"`
		Prestate struct {
			Pre  map[common.Address]AccountState `json:"pre"`
			Post map[common.Address]AccountState `json:"post"`
		} `json:"prestateTracer"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("evm: decode tracer result: %w", err)
	}
	return &Trace{Calls: out.Call, Pre: out.Prestate.Pre, Post: out.Prestate.Post}, nil
}
