package tracesim

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"math/big"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/format"
)

// Record returns the effects as the recorder's typed fields: one ChainState
// per changed storage slot (32-byte slot, before and after), one ChainState
// per balance change (no slot; big-endian amounts without leading zeros) and
// one ChainLog per emitted log, in that order.
func (e *Effects) Record(chainID uint64) []format.Effect {
	var out []format.Effect
	for _, sc := range e.Storage {
		for _, s := range sc.Slots {
			out = append(out, format.Effect{ChainState: &format.ChainState{
				ChainID: chainID, Address: sc.Address.Bytes(), Slot: s.Slot.Bytes(), Before: s.Before.Bytes(), After: s.After.Bytes(),
			}})
		}
	}
	for _, b := range e.Balances {
		out = append(out, format.Effect{ChainState: &format.ChainState{
			ChainID: chainID, Address: b.Address.Bytes(), Before: minimal(b.Before.Big()), After: minimal(b.After.Big()),
		}})
	}
	for _, ev := range e.Events {
		out = append(out, format.Effect{ChainLog: calldata.ChainLog(chainID, ev.Address, ev.Topics, ev.Data)})
	}
	return out
}

func minimal(v *big.Int) []byte {
	if v.Sign() == 0 {
		return nil
	}
	return v.Bytes()
}

// Execution returns the recorder's execution field for the replayed
// transaction: status ok or reverted (failed for an aborted execution), the
// revert reason as Error, the transaction hash and block.
func (r *ReplayResult) Execution() *format.Execution {
	x := &format.Execution{Status: format.StatusOK, TxHash: r.TxHash.Bytes(), Block: r.Block}
	switch r.Effects.Status {
	case StatusReverted:
		x.Status, x.Error = format.StatusReverted, r.Effects.Error
	case StatusFailed:
		x.Status, x.Error = format.StatusFailed, r.Effects.Error
	}
	return x
}

// MaxExtBytes is the largest JSON of one Ext entry Payload keeps (a quarter
// of format.MaxPayloadSize).
const MaxExtBytes = format.MaxPayloadSize / 4

// Ext keys under which Payload puts what the recorder has no typed field
// for. Values are the JSON of the fields (see docs/SPEC.md, "Tracesim
// output") decoded as generic maps, lists and strings.
const (
	ExtCalls     = "tracesim.calls"
	ExtTransfers = "tracesim.transfers"
	ExtRevert    = "tracesim.revert"
)

// Payload returns the recorder fields rebuilt from the replay: intent,
// execution, effects, and in Ext the gas used (format.ExtGasUsed), the call
// tree, the token transfers and the decoded revert — each as maps and
// lists; as its JSON text when it nests deeper than a payload value may (a
// re-entrant call tree); or, when its JSON exceeds MaxExtBytes, as its size
// and SHA-256 only. (A transaction with so many logs or storage writes that
// the typed effects alone exceed format.MaxPayloadSize still does not
// record.)
func (r *ReplayResult) Payload() *format.Payload {
	in := r.Intent.Record()
	p := &format.Payload{Intent: &in, Execution: r.Execution(), Effects: r.Effects.Record(r.ChainID)}
	parts := map[string]any{}
	if r.Effects.Calls != nil {
		parts[ExtCalls] = r.Effects.Calls
	}
	if len(r.Effects.Transfers) > 0 {
		parts[ExtTransfers] = r.Effects.Transfers
	}
	if r.Effects.Revert != nil {
		parts[ExtRevert] = r.Effects.Revert
	}
	ext := map[string]any{format.ExtGasUsed: r.Receipt.GasUsed}
	for k, v := range parts {
		b, err := json.Marshal(v)
		switch {
		case err != nil:
			continue // not representable: left out
		case len(b) > MaxExtBytes:
			// Too large for a payload (a batch of thousands of
			// transfers): its size and digest stand in for it.
			sum := sha256.Sum256(b)
			ext[k] = map[string]any{"omitted": "larger than the payload allows", "json_bytes": uint64(len(b)), "sha256": sum[:]}
			continue
		}
		ext[k] = generic(v)
		if (&format.Payload{Ext: map[string]any{k: ext[k]}}).Validate() != nil {
			// Nested deeper (a re-entrant call tree) than the recorder
			// takes a value: kept whole, as its JSON text.
			ext[k] = string(b)
		}
	}
	p.Ext = ext
	return p
}

// generic turns v into maps, lists, strings and bools through its JSON
// (numbers become decimal strings), the shapes deterministic CBOR keeps.
func generic(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil
	}
	return stringNumbers(out)
}

func stringNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case []any:
		for i := range x {
			x[i] = stringNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = stringNumbers(x[k])
		}
	}
	return v
}
