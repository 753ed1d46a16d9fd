package calldata

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// MaxNesting bounds how deep DecodeCall follows calls nested in calldata
// (PACE account → multicall → ...).
const MaxNesting = 4

// Call is decoded calldata. Data always holds the raw calldata, decoded or
// not: an unknown selector stays visible, never dropped.
type Call struct {
	// Selector is the first four bytes as 0x-hex ("" for calldata shorter
	// than four bytes).
	Selector string `json:"selector,omitempty"`
	// Signature, Name and Contract are set when the calldata decoded.
	Signature string `json:"signature,omitempty"`
	Name      string `json:"name,omitempty"`
	Contract  string `json:"contract,omitempty"`
	Args      []Arg  `json:"args,omitempty"`
	// Collisions lists the other signatures with the same selector whose
	// arguments also decode from this calldata (a selector collision the
	// ABI alone cannot settle). The chosen one is the bound contract's, else
	// the first in registration order.
	Collisions []string `json:"collisions,omitempty"`
	// NonCanonical is set when the arguments decoded but re-encode to other
	// bytes (dirty padding, trailing data).
	NonCanonical bool `json:"non_canonical,omitempty"`
	// Error says why the calldata did not decode (no ABI for the selector,
	// arguments that do not fit any candidate).
	Error string `json:"error,omitempty"`
	// Inner lists the calls this call makes by construction: a PACE
	// account's execute / executeBatch, multicall(bytes[]), Multicall3.
	Inner []InnerCall   `json:"inner,omitempty"`
	Data  hexutil.Bytes `json:"data"`
}

// Decoded reports whether the calldata matched a function.
func (c *Call) Decoded() bool { return c != nil && c.Signature != "" }

// Arg returns the argument with the name.
func (c *Call) Arg(name string) (Arg, bool) {
	for _, a := range c.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

// InnerCall is a call carried in another call's arguments.
type InnerCall struct {
	Target common.Address `json:"target"`
	Value  *Dec           `json:"value"`
	Call   *Call          `json:"call"`
}

// DecodeCall decodes calldata sent to `to` (nil for a contract creation,
// which has no selector). Candidates for the selector are tried in order (the
// contract bound to `to` first); the first one whose arguments re-encode to
// exactly the calldata wins, and every other candidate that also decodes is
// listed in Collisions.
func (r *Registry) DecodeCall(to *common.Address, data []byte) *Call {
	return r.decodeCall(to, data, 0)
}

func (r *Registry) decodeCall(to *common.Address, data []byte, depth int) *Call {
	if r == nil {
		r = emptyRegistry
	}
	c := &Call{Data: common.CopyBytes(data)}
	if to == nil {
		c.Error = "contract creation"
		return c
	}
	if len(data) == 0 {
		return c // a plain value transfer
	}
	if len(data) < 4 {
		c.Error = fmt.Sprintf("calldata of %d bytes has no selector", len(data))
		return c
	}
	var sel [4]byte
	copy(sel[:], data)
	c.Selector = hexutil.Encode(sel[:])
	cands := r.Functions(sel, to)
	if len(cands) == 0 {
		c.Error = (&ABINotFoundError{What: "function", Key: c.Selector}).Error()
		return c
	}
	type ok struct {
		f         *Function
		args      []Arg
		canonical bool
	}
	var good []ok
	var firstErr error
	for _, f := range cands {
		args, _, canon, err := decodeArgs(f.Method.Inputs, data[4:])
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", f.Method.Sig, err)
			}
			continue
		}
		good = append(good, ok{f, args, canon})
	}
	if len(good) == 0 {
		c.Error = "arguments do not decode: " + firstErr.Error()
		return c
	}
	// Canonical decodings beat non-canonical ones; order is otherwise kept.
	sort.SliceStable(good, func(i, j int) bool { return good[i].canonical && !good[j].canonical })
	win := good[0]
	c.Signature, c.Name, c.Contract, c.Args = win.f.Method.Sig, win.f.Method.RawName, win.f.Contract, win.args
	c.NonCanonical = !win.canonical
	for _, g := range good[1:] {
		if g.f.Method.Sig != win.f.Method.Sig && (g.canonical || !win.canonical) {
			c.Collisions = append(c.Collisions, g.f.Method.Sig)
		}
	}
	if depth < MaxNesting {
		c.Inner = r.innerCalls(*to, c, depth)
	}
	return c
}

// DecodeOutput decodes output, the return data of a successful call of input
// to the contract at to, with the outputs of the function the input decodes
// as (DecodeCall). It reports false when the input does not decode or the
// output is not exactly what that function returns.
func (r *Registry) DecodeOutput(to *common.Address, input, output []byte) ([]Arg, bool) {
	if r == nil || to == nil {
		return nil, false
	}
	c := r.DecodeCall(to, input)
	if !c.Decoded() {
		return nil, false
	}
	for _, f := range r.Functions([4]byte(input[:4]), to) {
		if f.Method.Sig != c.Signature {
			continue
		}
		args, _, canon, err := decodeArgs(f.Method.Outputs, output)
		if err != nil || !canon {
			return nil, false
		}
		return args, true
	}
	return nil, false
}

// decodeArgs unpacks args from data, in canonical form (out) and as
// go-ethereum's abi package returns them (vals), and reports whether they
// re-encode to exactly data. A panic inside the ABI decoder is returned as an
// error.
func decodeArgs(in abi.Arguments, data []byte) (out []Arg, vals []any, canon bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, vals, canon, err = nil, nil, false, fmt.Errorf("abi decoder panic: %v", p)
		}
	}()
	if len(in) == 0 {
		return nil, nil, len(data) == 0, nil
	}
	vals, err = in.Unpack(data)
	if err != nil {
		return nil, nil, false, err
	}
	if len(vals) != len(in) {
		return nil, nil, false, fmt.Errorf("decoded %d values, want %d", len(vals), len(in))
	}
	out = make([]Arg, len(in))
	for i, a := range in {
		v, err := canonical(a.Type, vals[i])
		if err != nil {
			return nil, nil, false, fmt.Errorf("argument %d: %w", i, err)
		}
		out[i] = Arg{Name: argName(a, i), Type: a.Type.String(), Value: v}
	}
	again, err := in.Pack(vals...)
	canon = err == nil && bytes.Equal(again, data)
	return out, vals, canon, nil
}

// innerCalls extracts the calls a decoded call carries, by function name and
// argument shape:
//
//   - PACE account: execute / executeWithApprovals (target, value, data),
//     executeDelegated (c), executeBatch (calls)
//   - multicall(bytes[]), multicall(uint256,bytes[]), multicall(bytes32,bytes[]):
//     calls to the same contract
//   - Multicall3: aggregate, tryAggregate, blockAndAggregate,
//     tryBlockAndAggregate, aggregate3, aggregate3Value
func (r *Registry) innerCalls(to common.Address, c *Call, depth int) []InnerCall {
	var raw []rawInner
	switch {
	case (c.Name == "execute" || c.Name == "executeWithApprovals") && len(c.Args) >= 3 &&
		c.Args[0].Type == "address" && c.Args[1].Type == "uint256" && c.Args[2].Type == "bytes":
		raw = append(raw, rawInner{target: c.Args[0].Value, value: c.Args[1].Value, data: c.Args[2].Value})
	case c.Name == "executeDelegated" && len(c.Args) >= 1:
		if m, ok := c.Args[0].Value.(map[string]any); ok {
			raw = append(raw, innerFromTuple(m))
		}
	case c.Name == "executeBatch" && len(c.Args) >= 1:
		raw = innerFromTuples(c.Args[0].Value)
	case c.Name == "multicall":
		last := c.Args[len(c.Args)-1]
		if last.Type == "bytes[]" {
			if list, ok := last.Value.([]any); ok {
				for _, d := range list {
					raw = append(raw, rawInner{target: to.Hex(), value: "0", data: d})
				}
			}
		}
	case strings.Contains(c.Name, "ggregate") && len(c.Args) >= 1:
		raw = innerFromTuples(c.Args[len(c.Args)-1].Value)
	}
	var out []InnerCall
	for _, ri := range raw {
		ic, ok := ri.resolve()
		if !ok {
			continue
		}
		ic.Call = r.decodeCall(&ic.Target, ic.Call.Data, depth+1)
		out = append(out, ic)
	}
	return out
}

type rawInner struct{ target, value, data any }

func innerFromTuple(m map[string]any) rawInner {
	ri := rawInner{target: m["target"], value: m["value"], data: m["data"]}
	if ri.data == nil {
		ri.data = m["callData"]
	}
	if ri.value == nil {
		ri.value = "0"
	}
	return ri
}

func innerFromTuples(v any) []rawInner {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []rawInner
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, innerFromTuple(m))
		}
	}
	return out
}

func (ri rawInner) resolve() (InnerCall, bool) {
	ts, ok1 := ri.target.(string)
	vs, ok2 := ri.value.(string)
	ds, ok3 := ri.data.(string)
	if !ok1 || !ok2 || !ok3 || !common.IsHexAddress(ts) {
		return InnerCall{}, false
	}
	v, ok := new(big.Int).SetString(vs, 10)
	if !ok {
		return InnerCall{}, false
	}
	d, err := hexutil.Decode(ds)
	if err != nil {
		return InnerCall{}, false
	}
	return InnerCall{Target: common.HexToAddress(ts), Value: NewDec(v), Call: &Call{Data: d}}, true
}

// DecodedLog is a decoded log. Topics and Data are always kept.
type DecodedLog struct {
	Address   common.Address `json:"address"`
	Signature string         `json:"signature,omitempty"`
	Name      string         `json:"name,omitempty"`
	Contract  string         `json:"contract,omitempty"`
	Args      []Arg          `json:"args,omitempty"`
	// Collisions lists other definitions with the same topic and indexing
	// that also decode.
	Collisions []string      `json:"collisions,omitempty"`
	Error      string        `json:"error,omitempty"`
	Topics     []common.Hash `json:"topics"`
	Data       hexutil.Bytes `json:"data"`
	// Index is the log's position in the transaction (0-based).
	Index int `json:"index"`
}

// DecodeLog decodes a log by its first topic, choosing among definitions
// with that topic the ones whose number of indexed arguments matches the
// log (ERC-20 and ERC-721 Transfer share a topic and differ only there).
func (r *Registry) DecodeLog(addr common.Address, topics []common.Hash, data []byte) *DecodedLog {
	if r == nil {
		r = emptyRegistry
	}
	ev := &DecodedLog{Address: addr, Topics: append([]common.Hash(nil), topics...), Data: common.CopyBytes(data)}
	if len(topics) == 0 {
		ev.Error = "anonymous log (no topics)"
		return ev
	}
	cands := r.Events(topics[0], addr)
	cands = append(cands, builtinEvents(topics[0])...)
	if len(cands) == 0 {
		ev.Error = (&ABINotFoundError{What: "event", Key: topics[0].Hex()}).Error()
		return ev
	}
	var firstErr error
	seen := map[string]bool{}
	for _, d := range cands {
		key := fmt.Sprintf("%s/%d", d.Event.Sig, d.indexed)
		if seen[key] {
			continue
		}
		seen[key] = true
		if d.indexed != len(topics)-1 {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s has %d indexed arguments, the log %d", d.Event.Sig, d.indexed, len(topics)-1)
			}
			continue
		}
		args, err := decodeEventArgs(d.Event, topics[1:], data)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", d.Event.Sig, err)
			}
			continue
		}
		if ev.Signature == "" {
			ev.Signature, ev.Name, ev.Contract, ev.Args = d.Event.Sig, d.Event.RawName, d.Contract, args
		} else if d.Event.Sig != ev.Signature {
			ev.Collisions = append(ev.Collisions, d.Event.Sig)
		}
	}
	if ev.Signature == "" {
		ev.Error = "does not decode: " + firstErr.Error()
	}
	return ev
}

func decodeEventArgs(e abi.Event, topics []common.Hash, data []byte) (out []Arg, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("abi decoder panic: %v", p)
		}
	}()
	nonIdx := e.Inputs.NonIndexed()
	var vals []any
	if len(nonIdx) > 0 {
		if vals, err = nonIdx.Unpack(data); err != nil {
			return nil, err
		}
		again, perr := nonIdx.Pack(vals...)
		if perr != nil || !bytes.Equal(again, data) {
			return nil, errors.New("data does not re-encode to the same bytes")
		}
	} else if len(data) != 0 {
		return nil, fmt.Errorf("%d bytes of data, want none", len(data))
	}
	out = make([]Arg, 0, len(e.Inputs))
	ti, vi := 0, 0
	for i, in := range e.Inputs {
		a := Arg{Name: argName(in, i), Type: in.Type.String(), Indexed: in.Indexed}
		if in.Indexed {
			t := topics[ti]
			ti++
			switch in.Type.T {
			case abi.StringTy, abi.BytesTy, abi.SliceTy, abi.ArrayTy, abi.TupleTy:
				a.Value, a.Hashed = t.Hex(), true
			default:
				v, err := topicValue(in.Type, t)
				if err != nil {
					return nil, fmt.Errorf("topic %d: %w", ti, err)
				}
				a.Value = v
			}
		} else {
			v, err := canonical(in.Type, vals[vi])
			if err != nil {
				return nil, err
			}
			vi++
			a.Value = v
		}
		out = append(out, a)
	}
	return out, nil
}

// topicValue decodes an indexed static value; the topic must be its exact
// 32-byte encoding (clean padding).
func topicValue(t abi.Type, topic common.Hash) (any, error) {
	args := abi.Arguments{{Type: t}}
	vals, err := args.Unpack(topic[:])
	if err != nil {
		return nil, err
	}
	again, err := args.Pack(vals...)
	if err != nil || !bytes.Equal(again, topic[:]) {
		return nil, fmt.Errorf("topic %s is not a clean %s", topic.Hex(), t.String())
	}
	return canonical(t, vals[0])
}

var emptyRegistry = NewRegistry()

// Standard event definitions used when the registry has none: ERC-20 and
// ERC-721 Transfer and Approval, ERC-721 ApprovalForAll.
var builtinEventDefs = func() map[common.Hash][]*EventDef {
	const src = `[
{"type":"event","name":"Transfer","inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]},
{"type":"event","name":"Approval","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"spender","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]},
{"type":"event","name":"ApprovalForAll","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"operator","type":"address","indexed":true},{"name":"approved","type":"bool","indexed":false}]}]`
	const src721 = `[
{"type":"event","name":"Transfer","inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"tokenId","type":"uint256","indexed":true}]},
{"type":"event","name":"Approval","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"approved","type":"address","indexed":true},{"name":"tokenId","type":"uint256","indexed":true}]}]`
	out := map[common.Hash][]*EventDef{}
	for name, s := range map[string]string{"ERC20": src, "ERC721": src721} {
		a, err := abi.JSON(strings.NewReader(s))
		if err != nil {
			panic(err)
		}
		for _, ev := range a.Events {
			n := 0
			for _, in := range ev.Inputs {
				if in.Indexed {
					n++
				}
			}
			out[ev.ID] = append(out[ev.ID], &EventDef{Contract: name, Event: ev, indexed: n})
		}
	}
	for _, l := range out {
		sort.Slice(l, func(i, j int) bool { return l[i].Contract < l[j].Contract })
	}
	return out
}()

func builtinEvents(id common.Hash) []*EventDef { return builtinEventDefs[id] }
