package fuzz

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentflightrecorder/afr/format"
	afrlog "github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/world"
)

// ToolInvariant is the tool name of the event Record writes for the broken
// invariant; ExtInvariant the Ext key of the invariant's name in it.
const (
	ToolInvariant = "fuzz.invariant"
	ExtInvariant  = "fuzz.invariant"
)

// Attack is a violation recorded as evidence in the World's log by
// Violation.Record.
type Attack struct {
	// Calls is the evidence of each call of the sequence, in order: its
	// intent and its outcome with the effects of its replay
	// (World.RecordTx), each intent caused by the outcome before.
	Calls []*world.Evidence
	// Broken is the observation naming the broken invariant and its error
	// after the last call, caused by that call's outcome.
	Broken afrlog.Receipt
	// Verification is the verifier's report on the World's log, sealed
	// and anchored after Broken.
	Verification *world.Verification
}

// Record replays the violation's shrunk sequence on w from the state its
// campaign started from (Invariants' snapshot, reverted to first), records
// each call as evidence with World.RecordTx — one intent and one outcome
// with effects per call — then checks the broken invariant again and
// records an observation event (tool ToolInvariant) naming it with its
// error, and seals, anchors and verifies the log. It leaves w as the
// attack left it, with the log holding the evidence (World.LogDir; revert
// when done, as afrspec's Isolate does). w must be the campaign's World,
// not reverted since to a snapshot older than the campaign (that drops
// the campaign's snapshot). Record fails when a call succeeds or reverts
// otherwise than in the campaign, or the invariant holds after the
// replay: the violation is then not reproducible from that state.
func (v *Violation) Record(ctx context.Context, w *world.World) (*Attack, error) {
	if v.start == nil {
		return nil, errors.New("fuzz: Record: the violation has no starting state (use one Invariants returned)")
	}
	if err := w.Revert(ctx, v.start); err != nil {
		return nil, fmt.Errorf("fuzz: Record: reverting to the campaign's starting state: %w", err)
	}
	a := &Attack{}
	var parents []uint64
	for i, c := range v.Calls {
		data, err := c.Method.Inputs.Pack(c.Args...)
		if err != nil {
			return nil, fmt.Errorf("fuzz: Record: packing call %d (%s): %w", i+1, c.Method.Sig, err)
		}
		res := w.Send(ctx, c.Sender, c.To, nil, append(slices.Clone(c.Method.ID), data...))
		if res.Succeeded() == c.Reverted {
			return nil, fmt.Errorf("fuzz: Record: call %d (%s) went otherwise than in the campaign (reverted then: %t): %s", i+1, c, c.Reverted, res)
		}
		ev, err := w.RecordTx(ctx, c.Sender.Name, res, parents...)
		if err != nil {
			return nil, fmt.Errorf("fuzz: Record: call %d: %w", i+1, err)
		}
		a.Calls = append(a.Calls, ev)
		parents = []uint64{ev.Outcome.Seq}
	}
	broken := v.check.Check(ctx, w)
	if broken == nil {
		return nil, fmt.Errorf("fuzz: Record: invariant %q holds after replaying the %d call(s): the violation does not reproduce", v.Invariant, len(v.Calls))
	}
	var err error
	text := fmt.Sprintf("invariant %q broken after call %d of %d (%s): %v", v.Invariant, len(v.Calls), len(v.Calls), v.Calls[len(v.Calls)-1], broken)
	if a.Broken, err = w.Record(ctx, format.Event{Tool: ToolInvariant, Kind: format.KindObservation, Payload: format.Payload{
		Context: &format.ContextProvenance{Parents: parents},
		Content: format.NewText([]byte(text)),
		Ext:     map[string]any{ExtInvariant: v.Invariant},
	}}); err != nil {
		return nil, fmt.Errorf("fuzz: Record: recording the broken invariant: %w", err)
	}
	if a.Verification, err = w.SealAndVerify(ctx); err != nil {
		return nil, fmt.Errorf("fuzz: Record: sealing and verifying the log: %w", err)
	}
	return a, nil
}
