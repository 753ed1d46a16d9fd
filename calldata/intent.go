package calldata

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/format"
)

// Tool names for calls that have no decoded function.
const (
	ToolValueTransfer = "value_transfer" // empty calldata
	ToolCreate        = "create"         // contract creation
	ToolFallback      = "fallback"       // 1 to 3 bytes of calldata
)

// Intent is an on-chain action rebuilt from a transaction or a proposed
// call: who called what, with which value, and the decoded calldata.
type Intent struct {
	ChainID uint64          `json:"chain_id"`
	From    common.Address  `json:"from"`
	Target  *common.Address `json:"target"` // nil for a contract creation
	Value   *Dec            `json:"value"`
	// Tool is the decoded function signature, e.g.
	// "transfer(address,uint256)"; for calldata that did not decode it is
	// the raw selector ("0xa9059cbb"), and see ToolValueTransfer,
	// ToolCreate and ToolFallback.
	Tool string `json:"tool"`
	Call *Call  `json:"call"`
}

// IntentOf decodes a call into an Intent.
func IntentOf(r *Registry, chainID uint64, from common.Address, to *common.Address, value *big.Int, data []byte) Intent {
	in := Intent{ChainID: chainID, From: from, Value: NewDec(orZero(value)), Call: r.DecodeCall(to, data)}
	if to != nil {
		t := *to
		in.Target = &t
	}
	in.Tool = toolOf(to, in.Call)
	return in
}

func toolOf(to *common.Address, c *Call) string {
	switch {
	case to == nil:
		return ToolCreate
	case c.Decoded():
		return c.Signature
	case len(c.Data) == 0:
		return ToolValueTransfer
	case c.Selector == "":
		return ToolFallback
	}
	return c.Selector
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// Inner returns the calls this intent makes by construction (through a PACE
// account or a multicall) as intents from the called contract.
func (in Intent) Inner() []Intent {
	if in.Call == nil || in.Target == nil {
		return nil
	}
	out := make([]Intent, 0, len(in.Call.Inner))
	for _, ic := range in.Call.Inner {
		t := ic.Target
		out = append(out, Intent{ChainID: in.ChainID, From: *in.Target, Target: &t, Value: NewDec(ic.Value.Big()),
			Tool: toolOf(&t, ic.Call), Call: ic.Call})
	}
	return out
}

// Record returns the intent as the recorder's typed field: Tool, Args by
// name (each {"type": ABI type, "value": canonical value, see Arg}), ChainID,
// Target (20 bytes), Value (big-endian, no leading zeros) and Data.
func (in Intent) Record() format.Intent {
	out := format.Intent{Tool: in.Tool, ChainID: in.ChainID}
	if in.Target != nil {
		out.Target = in.Target.Bytes()
	}
	if v := in.Value.Big(); v.Sign() > 0 {
		out.Value = v.Bytes()
	}
	if in.Call != nil {
		if len(in.Call.Data) > 0 {
			out.Data = common.CopyBytes(in.Call.Data)
		}
		if len(in.Call.Args) > 0 {
			out.Args = make(map[string]any, len(in.Call.Args))
			for _, a := range in.Call.Args {
				out.Args[a.Name] = map[string]any{"type": a.Type, "value": a.Value}
			}
		}
	}
	return out
}

// Difference is one way a recorded intent and an observed execution differ.
type Difference struct {
	// Field is "chain_id", "target", "value", "function", "data", or
	// "args.<name>" for one argument.
	Field    string `json:"field"`
	Recorded string `json:"recorded"`
	Observed string `json:"observed"`
	// Level is "call" when the recorded intent was compared with the
	// transaction's own call, "inner" when with the one call it made
	// through a PACE account or multicall.
	Level string `json:"level"`
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: recorded %s, observed %s", d.Field, d.Recorded, d.Observed)
}

// CompareIntent reports every difference between what an agent recorded and
// what was executed: chain id (when recorded), target, value, function,
// arguments (by name, each value compared in canonical form; an argument on
// one side only is a difference) and calldata (when recorded). No
// difference means the execution matches the record.
//
// The observed intent is usually a transaction's (ReplayResult.Intent). When
// the recorded target is not the transaction's target and the transaction
// carries exactly one inner call (a PACE account's execute, a one-call
// multicall), the record is compared with that inner call instead: an agent
// records the action it asked its account to perform.
func CompareIntent(recorded format.Intent, observed Intent) []Difference {
	level := "call"
	obsTarget := []byte(nil)
	if observed.Target != nil {
		obsTarget = observed.Target.Bytes()
	}
	if !bytes.Equal(recorded.Target, obsTarget) {
		if inner := observed.Inner(); len(inner) == 1 {
			observed, level = inner[0], "inner"
		}
	}
	obs := observed.Record()
	var d []Difference
	add := func(field, rec, o string) {
		d = append(d, Difference{Field: field, Recorded: rec, Observed: o, Level: level})
	}
	if recorded.ChainID != 0 && recorded.ChainID != obs.ChainID {
		add("chain_id", fmt.Sprint(recorded.ChainID), fmt.Sprint(obs.ChainID))
	}
	if !bytes.Equal(recorded.Target, obs.Target) {
		add("target", addrString(recorded.Target), addrString(obs.Target))
	}
	rv, ov := new(big.Int).SetBytes(recorded.Value), new(big.Int).SetBytes(obs.Value)
	if rv.Cmp(ov) != 0 {
		add("value", rv.String(), ov.String())
	}
	if recorded.Tool != obs.Tool {
		add("function", recorded.Tool, obs.Tool)
	}
	names := map[string]bool{}
	for k := range recorded.Args {
		names[k] = true
	}
	for k := range obs.Args {
		names[k] = true
	}
	sorted := make([]string, 0, len(names))
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		rv, rok := recorded.Args[k]
		ov, ook := obs.Args[k]
		switch {
		case !rok:
			add("args."+k, "(absent)", argString(ov))
		case !ook:
			add("args."+k, argString(rv), "(absent)")
		default:
			rt, rval := argParts(rv)
			ot, oval := argParts(ov)
			if rval != oval || (rt != "" && ot != "" && rt != ot) {
				add("args."+k, argString(rv), argString(ov))
			}
		}
	}
	if recorded.Data != nil && !bytes.Equal(recorded.Data, obs.Data) {
		add("data", hexutil.Encode(recorded.Data), hexutil.Encode(obs.Data))
	}
	return d
}

func addrString(b []byte) string {
	if len(b) == 0 {
		return "(none)"
	}
	if len(b) == common.AddressLength {
		return common.BytesToAddress(b).Hex()
	}
	return hexutil.Encode(b)
}

// argString renders an argument as recorded: {"type", "value"} maps compare
// by both; anything else (an agent that recorded a bare value) by value.
func argString(v any) string {
	if m, ok := asMap(v); ok {
		if val, ok := m["value"]; ok {
			t, _ := m["type"].(string)
			return t + " " + Normalize(val)
		}
	}
	return Normalize(v)
}

// argParts splits a recorded argument into its type ("" when the record has
// none) and its normalised value.
func argParts(v any) (string, string) {
	if m, ok := asMap(v); ok {
		if val, ok := m["value"]; ok {
			t, _ := m["type"].(string)
			return t, Normalize(val)
		}
	}
	return "", Normalize(v)
}

func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[fmt.Sprint(k)] = e
		}
		return out, true
	}
	return nil, false
}
