package tracesim

// Tracing a call on the state of an endpoint at a block, and rendering a
// call tree for people, as forge test -vvvv prints it.

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/internal/show"
)

// TraceCall re-executes call as eth_call did on the endpoint's state at block
// number (the block context is that block's, as eth_call on it has it), with
// go-ethereum's call and prestate tracers (evm.FullTrace), and discards every
// change. A non-zero hash must be that block's hash: a chain that was
// reorganised or reverted since is refused rather than traced. A revert is
// the result's Err, not an error; the error is for a call that could not be
// executed.
func (r *Replayer) TraceCall(ctx context.Context, number uint64, hash common.Hash, call CallRequest) (*evm.Result, error) {
	f, err := r.fork(ctx, r.opts.ChainID, number)
	if err != nil {
		return nil, err
	}
	if hash != (common.Hash{}) && f.Block().Hash != hash {
		return nil, fmt.Errorf("tracesim: block %d is now %s, not %s (the chain was reorganised or reverted since)", number, f.Block().Hash.Hex(), hash.Hex())
	}
	env, err := evm.New(evm.Config{Fork: f, ChainConfig: r.opts.ChainConfig})
	if err != nil {
		return nil, err
	}
	return env.Call(ctx, call.msg(), &evm.CallOptions{Nonce: call.Nonce, Trace: evm.FullTrace()})
}

// RevertOrigin returns the frame where the failure of root started: from a
// failed frame, it follows the last failed subcall whose output (the revert
// data) the frame passed on unchanged, down to the frame that produced it.
// Its To is the contract whose ABI the revert data is decoded with. For a
// frame that did not fail it returns nil.
func RevertOrigin(root *evm.CallFrame) *evm.CallFrame {
	if root == nil || root.Error == "" {
		return nil
	}
	f := root
	for {
		var next *evm.CallFrame
		for i := len(f.Calls) - 1; i >= 0; i-- {
			if c := &f.Calls[i]; c.Error != "" && bytes.Equal(c.Output, f.Output) {
				next = c
				break
			}
		}
		if next == nil {
			return f
		}
		f = next
	}
}

// precompiles names the precompiled contracts a trace may call.
var precompiles = map[common.Address]string{
	common.BytesToAddress([]byte{1}): "ecrecover", common.BytesToAddress([]byte{2}): "sha256",
	common.BytesToAddress([]byte{3}): "ripemd160", common.BytesToAddress([]byte{4}): "identity",
	common.BytesToAddress([]byte{5}): "modexp", common.BytesToAddress([]byte{6}): "ecAdd",
	common.BytesToAddress([]byte{7}): "ecMul", common.BytesToAddress([]byte{8}): "ecPairing",
	common.BytesToAddress([]byte{9}): "blake2f", common.BytesToAddress([]byte{10}): "pointEvaluation",
}

// Labeler names an address in a rendered trace ("alice (0x…)", "Vault
// (0x…)"); nil names contracts bound in the registry and leaves other
// addresses in hex.
type Labeler func(common.Address) string

// FormatTrace renders the call tree root (go-ethereum's call tracer output,
// with logs) as forge test -vvvv prints a trace: one line per frame with the
// gas it used, the called contract, the function and its decoded arguments
// (value and call type when not a plain call), the events it emitted,
// decoded, in order among its subcalls, and what it returned — decoded
// return values, or the revert decoded with the ABI of the contract that
// reverted. r decodes (nil: Error, Panic and the standard events only).
func FormatTrace(r *calldata.Registry, root *evm.CallFrame, label Labeler) string {
	if r == nil {
		r = calldata.NewRegistry()
	}
	if label == nil {
		label = func(a common.Address) string { return show.Address(r, a) }
	}
	p := &tracePrinter{r: r, label: label}
	p.frame(root, "", "")
	return strings.TrimSuffix(p.b.String(), "\n")
}

type tracePrinter struct {
	r     *calldata.Registry
	label Labeler
	b     strings.Builder
}

// frame writes f's line after lead, then its children after indent.
func (p *tracePrinter) frame(f *evm.CallFrame, lead, indent string) {
	fmt.Fprintf(&p.b, "%s[%s] %s\n", lead, show.Commas(uint64(f.GasUsed)), p.callLine(f))
	type item struct {
		log  *evm.CallLog
		call *evm.CallFrame
	}
	var items []item
	li := 0
	for i := range f.Calls {
		for li < len(f.Logs) && int(f.Logs[li].Position) <= i {
			items = append(items, item{log: &f.Logs[li]})
			li++
		}
		items = append(items, item{call: &f.Calls[i]})
	}
	for ; li < len(f.Logs); li++ {
		items = append(items, item{log: &f.Logs[li]})
	}
	for _, it := range items {
		if it.call != nil {
			p.frame(it.call, indent+"├─ ", indent+"│  ")
			continue
		}
		fmt.Fprintf(&p.b, "%s├─ emit %s\n", indent, p.event(it.log))
	}
	fmt.Fprintf(&p.b, "%s└─ ← %s\n", indent, p.outcome(f))
}

func (p *tracePrinter) callLine(f *evm.CallFrame) string {
	var s string
	switch {
	case f.Type == "CREATE" || f.Type == "CREATE2":
		s = "→ new contract"
		if f.To != nil {
			s += " at " + p.label(*f.To)
		}
		s += fmt.Sprintf(" (%d bytes of initcode)", len(f.Input))
	case f.To == nil:
		s = "<no target>"
	case precompiles[*f.To] != "":
		s = fmt.Sprintf("%s::%s(%s)", f.To.Hex(), precompiles[*f.To], hexutil.Encode(f.Input))
	default:
		s = p.label(*f.To) + "::" + p.call(f)
	}
	if f.Value != nil && f.Value.ToInt().Sign() > 0 {
		s += fmt.Sprintf(" {value: %s}", f.Value.ToInt())
	}
	if f.Type != "CALL" && f.Type != "CREATE" && f.Type != "CREATE2" {
		s += " [" + strings.ToLower(f.Type) + "]"
	}
	return s
}

func (p *tracePrinter) call(f *evm.CallFrame) string {
	c := p.r.DecodeCall(f.To, f.Input)
	switch {
	case c.Decoded():
		return c.Name + "(" + p.args(c.Args) + ")"
	case len(f.Input) == 0:
		return "receive()"
	case len(f.Input) < 4:
		return "fallback(" + hexutil.Encode(f.Input) + ")"
	}
	return fmt.Sprintf("%s(%s)", hexutil.Encode(f.Input[:4]), hexutil.Encode(f.Input[4:]))
}

func (p *tracePrinter) event(l *evm.CallLog) string {
	ev := p.r.DecodeLog(l.Address, l.Topics, l.Data)
	if ev.Name == "" {
		topics := make([]string, len(l.Topics))
		for i, t := range l.Topics {
			topics[i] = t.Hex()
		}
		return fmt.Sprintf("log from %s (topics: %s; data: %s)", p.label(l.Address), strings.Join(topics, ", "), hexutil.Encode(l.Data))
	}
	return ev.Name + "(" + p.args(ev.Args) + ")"
}

func (p *tracePrinter) outcome(f *evm.CallFrame) string {
	switch {
	case f.Reverted():
		// Data passed on from a subcall decodes with the ABI of the
		// contract that raised it.
		var at common.Address
		if o := RevertOrigin(f); o != nil && o.To != nil {
			at = *o.To
		}
		return "[Revert] " + FormatRevert(calldata.DecodeRevert(p.r, f.Output, at), p.label)
	case f.Error != "":
		return "[" + f.Error + "]"
	case f.Type == "CREATE" || f.Type == "CREATE2":
		return fmt.Sprintf("[Return] %d bytes of code", len(f.Output))
	case len(f.Output) == 0:
		return "[Stop]"
	}
	if args, ok := p.r.DecodeOutput(f.To, f.Input, f.Output); ok {
		vals := make([]string, len(args))
		for i, a := range args {
			vals[i] = p.value(a)
		}
		return "[Return] " + strings.Join(vals, ", ")
	}
	return "[Return] " + hexutil.Encode(f.Output)
}

// FormatRevert renders a decoded revert as Revert.Qualified does
// (Vault.NotOwner(caller=…, owner=…)), with its address arguments named by
// label (nil: in hex).
func FormatRevert(rv *calldata.Revert, label Labeler) string {
	if rv.Name == "" || rv.Kind != "custom" {
		return rv.String()
	}
	s := rv.Name + "(" + formatArgs(rv.Args, label) + ")"
	if rv.Contract != "" {
		s = rv.Contract + "." + s
	}
	return s
}

func (p *tracePrinter) args(args []calldata.Arg) string { return formatArgs(args, p.label) }

func (p *tracePrinter) value(a calldata.Arg) string { return formatValue(a, p.label) }

func formatArgs(args []calldata.Arg, label Labeler) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.Name + "=" + formatValue(a, label)
	}
	return strings.Join(parts, ", ")
}

func formatValue(a calldata.Arg, label Labeler) string {
	if s, ok := a.Value.(string); ok {
		if a.Type == "address" && common.IsHexAddress(s) && label != nil {
			return label(common.HexToAddress(s))
		}
		if a.Type == "string" {
			return fmt.Sprintf("%q", s)
		}
		return s
	}
	return calldata.Normalize(a.Value)
}
