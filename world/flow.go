package world

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pace"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
)

// PDRLifetime is how long the PDRs of Propose stay valid (seconds after
// World.Clock).
const PDRLifetime = 3600

// DefaultPolicy is the policy of a World unless Config.Policy is set:
// calls to the attacker are denied; Counter.bump(by) is allowed up to
// 1 ether of value and needs human approval when by > 1000; Sink.ping() is
// allowed; everything else is denied (no rule allows it).
func DefaultPolicy(w *World) *pdr.Policy {
	return &pdr.Policy{Name: "afrspec-default", Rules: []pdr.Rule{
		{Name: "never-pay-the-attacker", Effect: format.DecisionDeny, Targets: []common.Address{w.attacker.Address}},
		{Name: "counter-bump", Effect: format.DecisionAllow, Targets: []common.Address{w.counter}, Method: "bump(uint256)",
			MaxValue: "1000000000000000000", ApprovalIf: []pdr.Condition{{Arg: 0, Op: "gt", Value: "1000"}}},
		{Name: "sink-ping", Effect: format.DecisionAllow, Targets: []common.Address{w.sink}, Method: "ping()"},
	}}
}

var (
	counterABI = mustABI(`[{"type":"function","name":"bump","inputs":[{"name":"by","type":"uint256"}],"outputs":[],"stateMutability":"payable"},
{"type":"function","name":"count","inputs":[],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"}]`)
	sinkABI = mustABI(`[{"type":"function","name":"ping","inputs":[],"outputs":[],"stateMutability":"payable"}]`)
)

// SetPolicy makes p the policy that decides the World's proposals; nil
// restores DefaultPolicy(w). A policy naming contracts the spec deploys
// itself is set this way after deploying them.
func (w *World) SetPolicy(p *pdr.Policy) {
	if p == nil {
		p = DefaultPolicy(w)
	}
	w.policy, w.pace.Policy = p, p
}

// Policy is the policy that decides the World's proposals.
func (w *World) Policy() *pdr.Policy { return w.policy }

// CounterCall is the call Counter.bump(by) with no value.
func (w *World) CounterCall(by int64) pdr.Call {
	data, _ := counterABI.Pack("bump", big.NewInt(by))
	return pdr.Call{Target: w.counter, Value: new(big.Int), Data: data}
}

// PingCall is the call Sink.ping().
func (w *World) PingCall() pdr.Call {
	data, _ := sinkABI.Pack("ping")
	return pdr.Call{Target: w.sink, Value: new(big.Int), Data: data}
}

// Proposal is an on-chain action an agent proposed, as far as the
// harness took it: the intent recorded, the policy's evaluation and the
// signed PDR (approved by the first Threshold approvers when the policy
// asked for approval). It is pace's Proposal.
type Proposal = pace.Proposal

// paceAgent returns the World's pace agent proposing as name.
func (w *World) paceAgent(name string) *pace.Agent {
	a := *w.pace
	a.Name = name
	return &a
}

// Propose runs the agent side of an on-chain action up to the signed PDR
// (pace.Agent.Propose): it records the call's intent as a chain_tx event
// (context parents: parents), has the policy decide and sign the PDR for the
// recorded event, records the decision, and, when approval is required,
// collects and records Threshold approvals. A denial is a result, not an
// error: the PDR then carries decision deny.
func (w *World) Propose(ctx context.Context, agent string, call pdr.Call, parents ...uint64) (*Proposal, error) {
	p, err := w.paceAgent(agent).Propose(ctx, call, parents...)
	if err != nil {
		return nil, err
	}
	if p.Evaluation.Allowed() && p.Evaluation.ApprovalRequired {
		for _, a := range w.approvers[:w.cfg.Threshold] {
			if _, err := w.Approve(ctx, p, a); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// Approve adds approver a's signature to the proposal's PDR and records the
// approval (with the signature) as an approval event.
func (w *World) Approve(ctx context.Context, p *Proposal, a *Actor) (recorder.Receipt, error) {
	return w.pace.Approve(ctx, p, a.Key)
}

// Submit sends the account calldata that executes s for call (execute,
// executeWithApprovals or executeDelegated, as s requires) from relayer.
// The call need not be the one s was signed for: that is what attacks do.
func (w *World) Submit(ctx context.Context, relayer *Actor, s *pdr.SignedPDR, call pdr.Call) *TxResult {
	o := w.pace.Submit(ctx, relayer.Key, s, call)
	res := &TxResult{From: relayer, To: w.account, Value: new(big.Int), Data: o.Data,
		Receipt: o.Receipt, Reverted: o.Reverted, RevertData: o.RevertData, Err: o.Err, Registry: w.registry, Client: w.home().client, w: w, on: w.home()}
	if o.Reverted && o.Receipt == nil {
		res.simulatedAt = refusedAt(ctx, res.Client)
	}
	w.minedRevert(ctx, res)
	return res
}

// Execute submits the proposal's own PDR for its own call from the agent.
func (w *World) Execute(ctx context.Context, p *Proposal) *TxResult {
	return w.Submit(ctx, w.agent, &p.PDR, p.Call)
}

// RecordOutcome records what happened to a proposal on chain as a chain_tx
// event linked to its intent (pace.Agent.RecordOutcome): ok with the
// transaction, its block and its logs as effects; or reverted (the decoded
// custom error in Error) for an attempt the account refused — so a denied
// attempt is evidence too; a nil res (the agent submitted nothing, as for
// a PDR the policy denied) is recorded as denied. Extra context parents (e.g. an earlier refused
// attempt the agent retried after) may be given.
func (w *World) RecordOutcome(ctx context.Context, p *Proposal, res *TxResult, parents ...uint64) (recorder.Receipt, error) {
	name := "unknown"
	if p != nil {
		name = p.Agent
	}
	var o *pace.Outcome
	if res != nil {
		o = &pace.Outcome{Data: res.Data, Receipt: res.Receipt, Reverted: res.Reverted, RevertData: res.RevertData, Err: res.Err}
		if res.Reverted {
			o.Revert = res.DecodeRevert().String()
		}
	}
	return w.paceAgent(name).RecordOutcome(ctx, p, o, parents...)
}

// SignUnrecorded has the World's policy signer sign an allowing PDR for
// call bound to eventID, with the account's next nonce, whatever the policy
// and the log say: what a compromised agent holding the policy key can
// execute. Submit it to make the account execute a call the log never saw.
func (w *World) SignUnrecorded(ctx context.Context, call pdr.Call, eventID common.Hash) (pdr.SignedPDR, error) {
	t, err := w.pace.NextTerms(ctx, eventID)
	if err != nil {
		return pdr.SignedPDR{}, err
	}
	t.Decision = format.DecisionAllow
	return pdr.SignPDR(w.policySig.Key, pdr.ForCall(w.domain, call, t))
}

// ---- delegations ----

// Scope is what a delegation allows.
type Scope struct {
	Targets   []common.Address
	Selectors [][4]byte
	// MaxValuePerCall and MaxValueTotal in wei; nil means zero.
	MaxValuePerCall, MaxValueTotal *big.Int
	// Expiry is the last valid block timestamp; 0 means World.Clock +
	// PDRLifetime.
	Expiry uint64
}

// Selector returns the 4-byte selector of a Solidity signature.
func Selector(sig string) [4]byte { return [4]byte(crypto.Keccak256([]byte(sig))[:4]) }

// Delegate signs a delegation from one actor to another within scope,
// extending chain (the owner's link first; empty for the owner's own link,
// which must then be signed by w.owner). Salts are fresh per call.
func (w *World) Delegate(ctx context.Context, from, to *Actor, chain []pdr.SignedDelegation, s Scope) ([]pdr.SignedDelegation, error) {
	if s.Expiry == 0 {
		now, err := w.Clock(ctx)
		if err != nil {
			return nil, err
		}
		s.Expiry = now + PDRLifetime
	}
	var parent common.Hash
	if n := len(chain); n > 0 {
		parent = chain[n-1].Delegation.Digest(w.domain)
	}
	w.salt++
	d := pdr.Delegation{Delegator: from.Address, Delegate: to.Address, Parent: parent, Targets: s.Targets, Selectors: s.Selectors,
		MaxValuePerCall: s.MaxValuePerCall, MaxValueTotal: s.MaxValueTotal, Expiry: s.Expiry,
		Salt: crypto.Keccak256Hash([]byte(fmt.Sprintf("afrspec salt %d", w.salt)))}
	sd, err := pdr.SignDelegation(from.Key, w.domain, d)
	if err != nil {
		return nil, err
	}
	return append(append([]pdr.SignedDelegation{}, chain...), sd), nil
}

// SignDelegated returns a PDR for call signed by delegate under a
// delegation chain (executeDelegated), bound to eventID.
func (w *World) SignDelegated(ctx context.Context, delegate *Actor, chain []pdr.SignedDelegation, call pdr.Call, eventID common.Hash) (pdr.SignedPDR, error) {
	nonce, err := w.NextDelegatedNonce(ctx)
	if err != nil {
		return pdr.SignedPDR{}, err
	}
	now, err := w.Clock(ctx)
	if err != nil {
		return pdr.SignedPDR{}, err
	}
	return pdr.SignDelegatedPDR(delegate.Key, pdr.ForCall(w.domain, call, pdr.Terms{Nonce: nonce, Decision: format.DecisionAllow, Expiry: now + PDRLifetime, EventID: eventID}), chain)
}

// Revoke revokes a delegation link (and everything below it) as the owner.
func (w *World) Revoke(ctx context.Context, d pdr.SignedDelegation) *TxResult {
	return w.Send(ctx, w.owner, w.account, nil, bindings.NewPaceSmartAccount().PackRevokeDelegation(d.Delegation.Digest(w.domain)))
}

func mustABI(s string) *abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic(err)
	}
	return &a
}
