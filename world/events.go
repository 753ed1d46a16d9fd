package world

// Decoding the logs of a transaction with the World's registry.

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/pdr"
)

// DecodedEvent is one log decoded by the harness.
type DecodedEvent struct {
	Name string
	// Contract is the contract whose ABI defines the event (the one bound
	// to the emitter when several do).
	Contract string
	Address  common.Address
	// Args are the event's arguments in order (an indexed string, bytes,
	// array or tuple is its topic hash); Fields has them by name.
	Args   []any
	Fields map[string]any
	// Names are the argument names in order (with target, selector and
	// success after them for an Executed event).
	Names []string
}

func (e DecodedEvent) String() string {
	parts := make([]string, 0, len(e.Names))
	for _, k := range e.Names {
		parts = append(parts, k+"="+show.Arg(e.Fields[k]))
	}
	name := e.Name
	if e.Contract != "" {
		name = e.Contract + "." + name
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(parts, ", "))
}

// DecodeLog decodes a log without a World: events of AFR's contracts and
// the standard ERC-20/721 events. Executed events also get the fields
// packed in their call word: target, selector, success (pdr.ParseExecuted).
// Results of World.Send decode with the World's registry (TxResult.Events).
func DecodeLog(l *types.Log) (DecodedEvent, bool) { return DecodeLogWith(nil, l) }

// Events decodes the logs of the result's transaction with the registry of
// the World that produced it; logs no known contract defines are left out.
func (r *TxResult) Events() []DecodedEvent {
	if r == nil || r.Receipt == nil {
		return nil
	}
	var out []DecodedEvent
	for _, l := range r.Receipt.Logs {
		if ev, ok := DecodeLogWith(r.Registry, l); ok {
			out = append(out, ev)
		}
	}
	return out
}

// DecodeLogWith decodes a log with reg (nil: AFR's contracts) and the
// standard ERC-20/721 events.
func DecodeLogWith(reg *calldata.Registry, l *types.Log) (DecodedEvent, bool) {
	if len(l.Topics) == 0 {
		return DecodedEvent{}, false
	}
	for _, rg := range Decoders(reg) {
		for _, d := range rg.Events(l.Topics[0], l.Address) {
			if ev, ok := decodeWith(d.Contract, d.Event, l); ok {
				return ev, true
			}
		}
	}
	return DecodedEvent{}, false
}

func decodeWith(contract string, e abi.Event, l *types.Log) (DecodedEvent, bool) {
	nonIdx := e.Inputs.NonIndexed()
	vals, err := nonIdx.Unpack(l.Data)
	if err != nil || len(e.Inputs)-len(nonIdx) != len(l.Topics)-1 {
		return DecodedEvent{}, false
	}
	ev := DecodedEvent{Name: e.RawName, Contract: contract, Address: l.Address, Fields: map[string]any{}}
	ti, vi := 1, 0
	for i, in := range e.Inputs {
		var v any
		if in.Indexed {
			t := l.Topics[ti]
			ti++
			switch in.Type.T {
			case abi.StringTy, abi.BytesTy, abi.SliceTy, abi.ArrayTy, abi.TupleTy:
				v = [32]byte(t) // only the hash is in the topic
			default:
				tv, err := abi.Arguments{{Type: in.Type}}.Unpack(t[:])
				if err != nil {
					return DecodedEvent{}, false
				}
				v = tv[0]
			}
		} else {
			v = vals[vi]
			vi++
		}
		name := in.Name
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		ev.Args, ev.Fields[name], ev.Names = append(ev.Args, v), v, append(ev.Names, name)
	}
	if contract == "PaceSmartAccount" && e.RawName == "Executed" {
		if x, err := pdr.ParseExecuted(l); err == nil {
			ev.Fields["target"], ev.Fields["selector"], ev.Fields["success"] = x.Target, x.Selector, x.Success
			ev.Names = append(ev.Names, "target", "selector", "success")
		}
	}
	return ev, true
}
