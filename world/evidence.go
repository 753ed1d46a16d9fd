package world

// Evidence of any transaction, and replay on either backend.

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/tracesim"
)

// ToolTx is the tool name of the events RecordTx writes.
const ToolTx = "afrspec.tx"

// Evidence is what RecordTx recorded about one transaction.
type Evidence struct {
	// Intent is the event of the call as it was sent (decoded with the
	// World's registry); Outcome the event of what it did, caused by it.
	Intent, Outcome recorder.Receipt
	// Replay is the mined transaction replayed and decoded (nil for a call
	// that was refused in simulation and never mined).
	Replay *tracesim.ReplayResult
}

// Replay re-executes a transaction mined on the World's chain with tracesim
// — on every backend, with the chain's own rules: through the in-process
// chain's in-process JSON-RPC client (no HTTP, no Config.RPC), else the
// backend's JSON-RPC endpoint — decodes it with w.registry and checks it
// against its receipt: the call tree, events, storage, balance, code and
// nonce changes of the transaction (a *tracesim.FidelityError, with the
// result, when the replay disagrees).
func (w *World) Replay(ctx context.Context, tx common.Hash) (*tracesim.ReplayResult, error) {
	opts := &tracesim.ReplayOptions{Registry: w.registry, ChainID: w.chainID}
	url := w.chain.URL()
	if a, ok := w.chain.(backend.Attacher); ok {
		cl, err := a.Attach()
		if err != nil {
			return nil, fmt.Errorf("world: replay: %w", err)
		}
		opts.Client, url = cl, ""
	}
	if url == "" && opts.Client == nil {
		return nil, fmt.Errorf("world: replay: the %s backend serves no JSON-RPC endpoint", w.cfg.Backend)
	}
	return tracesim.Replay(ctx, url, tx, opts)
}

// replayEvidence replays tx for RecordTx: from the chain's own blocks and
// state where the backend hands them over (the in-process chain:
// tracesim.ReplayFrom, the same re-execution and checks as Replay with no
// JSON-RPC round trip), else as Replay.
func (w *World) replayEvidence(ctx context.Context, tx common.Hash) (*tracesim.ReplayResult, error) {
	if src, ok := w.chain.(tracesim.Source); ok {
		return tracesim.ReplayFrom(ctx, src, tx, w.registry)
	}
	return w.Replay(ctx, tx)
}

// RecordTx records res — any transaction a spec sent with Send: an attack,
// a setup step, a call to your own contracts — as evidence in the World's
// log, the way the PACE flow records an agent's own transactions: an intent
// event (who called what, decoded with w.registry; context parents:
// parents) and an outcome event caused by it with the execution (status,
// transaction hash and block, revert reason) and the effects the replay of
// the mined transaction shows (storage slots, balances, logs; the call tree
// and token transfers under the payload's ext): replayed as Replay does, or
// on the in-process chain straight from its blocks and state. actor names
// who acted (the events' code provenance).
func (w *World) RecordTx(ctx context.Context, actor string, res *TxResult, parents ...uint64) (*Evidence, error) {
	if res == nil || res.From == nil {
		return nil, errors.New("world: RecordTx: no transaction result (use the *TxResult Send returned)")
	}
	if res.Receipt != nil && (res.From.Key == nil || res.unsigned) {
		return nil, fmt.Errorf("world: RecordTx: %w", ErrPrankedReplay)
	}
	code := &format.CodeProvenance{AgentVersion: actor}
	in := calldata.IntentOf(w.registry, w.chainID, res.From.Address, &res.To, res.Value, res.Data).Record()
	var cp *format.ContextProvenance
	if len(parents) > 0 {
		cp = &format.ContextProvenance{Parents: parents}
	}
	ev := &Evidence{}
	var err error
	if ev.Intent, err = w.Record(ctx, format.Event{Tool: ToolTx, Kind: format.KindChainTx,
		Payload: format.Payload{Intent: &in, Context: cp, Code: code}}); err != nil {
		return nil, fmt.Errorf("world: recording the intent: %w", err)
	}
	out := format.Payload{Context: &format.ContextProvenance{Parents: []uint64{ev.Intent.Seq}}, Code: code}
	switch {
	case res.Receipt != nil:
		ev.Replay, err = w.replayEvidence(ctx, res.Receipt.TxHash)
		if err != nil {
			return nil, fmt.Errorf("world: replaying %s for its effects: %w", res.Receipt.TxHash.Hex(), err)
		}
		p := ev.Replay.Payload()
		out.Execution, out.Effects, out.Ext = p.Execution, p.Effects, p.Ext
	case res.Reverted:
		out.Execution = &format.Execution{Status: format.StatusReverted, Error: calldata.DecodeRevert(w.registry, res.RevertData, res.To).Reason}
	default:
		out.Execution = &format.Execution{Status: format.StatusFailed, Error: fmt.Sprint(res.Err)}
	}
	if ev.Outcome, err = w.Record(ctx, format.Event{Tool: ToolTx, Kind: format.KindChainTx, Payload: out}); err != nil {
		return nil, fmt.Errorf("world: recording the outcome: %w", err)
	}
	return ev, nil
}
