package main

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/bench"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

func verdictOf(what string, r *verifier.Report, want verifier.Verdict) demoVerdict {
	v := demoVerdict{What: what, Verdict: r.Verdict.String(), Expected: want.String(), Execs: r.Executions}
	for _, f := range r.Findings {
		if len(v.Findings) == 3 {
			break
		}
		v.Findings = append(v.Findings, f.String())
	}
	return v
}

func anchoringFigures(q anchor.Queue, conf uint64) demoAnchoring {
	g := bench.GasOf(q.Anchored)
	d := demoAnchoring{Epochs: len(q.Anchored), Confirmations: conf,
		FirstGas: g.First, SteadyGasMin: g.SteadyMin, SteadyGasMax: g.SteadyMax, SteadyGasMean: g.SteadyMean}
	var lat []float64
	for _, an := range q.Anchored {
		d.Submissions += an.Submissions
		lat = append(lat, float64(an.Confirmed.Sub(an.FirstSent).Microseconds())/1000)
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		d.LatencyMedianMs, d.LatencyMaxMs = lat[len(lat)/2], lat[len(lat)-1]
	}
	return d
}

var (
	vendor   = common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	stranger = common.HexToAddress("0x0000000000000000000000000000000000BadBad")
)

func ether(x float64) *big.Int {
	v, _ := new(big.Float).Mul(big.NewFloat(x), big.NewFloat(1e18)).Int(nil)
	return v
}

func short(s string) string {
	if len(s) > 14 {
		return s[:10] + "…"
	}
	return s
}

// treasuryPolicy is the policy of the demo's treasury agent: payments to
// the vendor up to 10 ETH, with a human's approval above 1 ETH.
func treasuryPolicy() *pdr.Policy {
	return &pdr.Policy{Name: "treasury", Rules: []pdr.Rule{
		{Name: "pay-vendor", Effect: format.DecisionAllow, Targets: []common.Address{vendor}, MaxValue: ether(10).String(), ApprovalAbove: ether(1).String()},
	}}
}

// treasuryAct runs one action of the treasury agent: propose (intent and
// policy decision recorded; approved by the account's approver when the
// policy asks), execute through the account (the account refuses a denied
// PDR: it is not sent), and record the outcome.
func treasuryAct(ctx context.Context, w *world.World, what string, call pdr.Call) (demoAction, error) {
	da := demoAction{What: what}
	pr, err := w.Propose(ctx, "treasury-agent/1.0", call)
	if err != nil {
		return da, err
	}
	da.IntentSeq, da.EventID = pr.IntentEvent.Seq, pr.EventID().Hex()
	da.Decision, da.Approval = pr.Evaluation.Decision.String(), pr.Evaluation.ApprovalRequired
	if pr.Evaluation.Allowed() && pr.Evaluation.ApprovalRequired {
		da.Approver = w.Approvers()[0].Address.Hex()
	}
	res := w.Execute(ctx, pr)
	switch {
	case res.Succeeded():
		da.Tx, da.GasUsed = res.Receipt.TxHash.Hex(), res.Receipt.GasUsed
	case pr.Evaluation.Allowed() || !res.Reverted:
		if res.Err != nil {
			return da, fmt.Errorf("%s: %w", what, res.Err)
		}
		return da, fmt.Errorf("%s: %s", what, res)
	default:
		// The policy denied it and the account refused it (simulated, not
		// sent): recorded as denied.
		da.Refused = res.DecodeRevert().Name
		res = nil
	}
	_, err = w.RecordOutcome(ctx, pr, res)
	return da, err
}
