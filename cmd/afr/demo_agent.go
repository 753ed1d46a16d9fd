package main

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/bench"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pace"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

func mustAnchors(src verifier.AnchorSource, ctx context.Context) []format.Anchor {
	as, _ := src.Anchors(ctx)
	return as
}

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
		sortFloats(lat)
		d.LatencyMedianMs, d.LatencyMaxMs = lat[len(lat)/2], lat[len(lat)-1]
	}
	return d
}

func sortFloats(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

var (
	vendor   = common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	stranger = common.HexToAddress("0x0000000000000000000000000000000000BadBad")
)

func ether(x float64) *big.Int {
	v, _ := new(big.Float).Mul(big.NewFloat(x), big.NewFloat(1e18)).Int(nil)
	return v
}

func mustKey() *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		panic(err)
	}
	return k
}

func short(s string) string {
	if len(s) > 14 {
		return s[:10] + "…"
	}
	return s
}

// treasuryAgent is the demo's on-chain agent: it pays the vendor through
// the account, under a policy that allows payments to the vendor up to 10
// ETH and asks a human above 1 ETH.
func treasuryAgent(r recorder.EventWriter, c chain.Client, p demoParty, chainID uint64, acct common.Address) *pace.Agent {
	return &pace.Agent{Recorder: r, Client: c, Domain: pdr.Domain{ChainID: chainID, Account: acct}, Registry: onchain.DefaultRegistry(),
		Policy: &pdr.Policy{Name: "treasury", Rules: []pdr.Rule{
			{Name: "pay-vendor", Effect: format.DecisionAllow, Targets: []common.Address{vendor}, MaxValue: ether(10).String(), ApprovalAbove: ether(1).String()},
		}},
		PolicySigner: p.policy, Name: "treasury-agent/1.0", Group: "treasury"}
}

// treasuryAct runs one action of the treasury agent: propose (intent and policy
// decision recorded), approve by the demo's human when the policy asks,
// execute through the account from the relayer (the account refuses a
// denied PDR: it is not sent), and record the outcome.
func treasuryAct(ctx context.Context, a *pace.Agent, p demoParty, what string, call pdr.Call) (demoAction, error) {
	da := demoAction{What: what}
	pr, err := a.Propose(ctx, call)
	if err != nil {
		return da, err
	}
	da.IntentSeq, da.EventID = pr.IntentEvent.Seq, pr.EventID().Hex()
	da.Decision, da.Approval = pr.Evaluation.Decision.String(), pr.Evaluation.ApprovalRequired
	if pr.Evaluation.Allowed() && pr.Evaluation.ApprovalRequired {
		if _, err := a.Approve(ctx, pr, p.approver); err != nil {
			return da, err
		}
		da.Approver = chain.Address(p.approver).Hex()
	}
	res := a.Execute(ctx, pr, p.relayer)
	switch {
	case res.Succeeded():
		da.Tx, da.GasUsed = res.Receipt.TxHash.Hex(), res.Receipt.GasUsed
	case pr.Evaluation.Allowed() || !res.Reverted:
		return da, fmt.Errorf("%s: %w", what, res.Err)
	default:
		// The policy denied it and the account refused it (simulated, not
		// sent): recorded as denied.
		da.Refused, _, _ = strings.Cut(res.Revert, "(")
		res = nil
	}
	_, err = a.RecordOutcome(ctx, pr, res)
	return da, err
}

// unrecorded signs an allowing PDR for call bound to eventID with the policy
// signer and executes it, recording nothing: what a compromised agent
// holding the policy key could do.
func unrecorded(ctx context.Context, a *pace.Agent, p demoParty, call pdr.Call, eventID common.Hash) *pace.Outcome {
	t, err := a.NextTerms(ctx, eventID)
	if err != nil {
		return &pace.Outcome{Err: err}
	}
	t.Decision = format.DecisionAllow
	s, err := pdr.SignPDR(a.PolicySigner, pdr.ForCall(a.Domain, call, t))
	if err != nil {
		return &pace.Outcome{Err: err}
	}
	return a.Submit(ctx, p.relayer, &s, call)
}
