package pace

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
)

// DefaultLifetime is how long a PDR stays valid (seconds after Agent's Now)
// when Agent.Lifetime is zero.
const DefaultLifetime = 3600

// Tools of the events an Agent records.
const (
	ToolPace     = "pace"     // intents and outcomes (kind chain_tx)
	ToolPolicy   = "policy"   // policy decisions (kind policy)
	ToolApproval = "approval" // approvals (kind approval)
)

// Agent runs the flow of policy-gated on-chain actions for one agent and one
// PaceSmartAccount. The fields are read, never changed, by its methods, so an
// Agent may be copied (e.g. to propose under another Name); one Agent may be
// used by one goroutine at a time, since the account's nonce orders PDRs.
type Agent struct {
	// Recorder records the flow's events.
	Recorder recorder.EventWriter
	// Client reads the chain and sends the account's transactions.
	Client chain.Client
	// Domain is the account and its chain (the PDRs' EIP-712 domain).
	Domain pdr.Domain
	// Registry decodes calls into intents and reverts into errors; nil
	// decodes with no ABI (selectors and raw arguments only).
	Registry *calldata.Registry
	// Policy decides proposals; PolicySigner signs their PDRs and must be
	// the account's policy signer for allowed PDRs to execute.
	Policy       *pdr.Policy
	PolicySigner *ecdsa.PrivateKey
	// Name is the agent's code provenance (agent version) on the intents
	// and outcomes it records.
	Name string
	// Group is the concurrency-group tag of every event recorded ("" none).
	Group string
	// Lifetime is how long PDRs stay valid, in seconds after Now; 0 means
	// DefaultLifetime.
	Lifetime uint64
	// Now returns the current time for PDR expiries (Unix seconds); nil
	// means the latest block's timestamp.
	Now func(ctx context.Context) (uint64, error)
	// Nonce returns the nonce the next PDR must carry; nil means the
	// account's policy nonce() (see AccountNonce). The Agent's PDRs are
	// policy-signed; delegated PDRs use AccountDelegatedNonce.
	Nonce func(ctx context.Context) (uint64, error)
}

// Proposal is an on-chain action as far as the agent took it: the recorded
// intent, the policy's evaluation and the signed PDR (with the approvals
// added so far), and the events recorded for it.
type Proposal struct {
	// Agent is the proposing Agent's Name.
	Agent       string
	Call        pdr.Call
	Intent      format.Intent
	IntentEvent recorder.Receipt
	Evaluation  pdr.Evaluation
	PDR         pdr.SignedPDR
	// Events are every event recorded for the proposal, intent first.
	Events []recorder.Receipt
}

// EventID is the recorder event id bound in the PDR: the record digest of
// the intent event.
func (p *Proposal) EventID() common.Hash { return common.Hash(p.IntentEvent.Digest) }

// parents returns the context provenance naming the intent event first,
// then extra.
func (p *Proposal) parents(extra ...uint64) *format.ContextProvenance {
	return &format.ContextProvenance{Parents: append([]uint64{p.IntentEvent.Seq}, extra...)}
}

// record records ev with the Agent's group and, on success, adds it to p's
// events (p may be nil).
func (a *Agent) record(ctx context.Context, p *Proposal, ev format.Event) (recorder.Receipt, error) {
	ev.Group = a.Group
	rc, err := a.Recorder.Record(ctx, ev)
	if err == nil && p != nil {
		p.Events = append(p.Events, rc)
	}
	return rc, err
}

// Propose records the intent of call (context parents: parents), evaluates
// the policy, signs the PDR for the recorded event with the policy signer
// and records the decision. It does not approve: when
// p.Evaluation.ApprovalRequired, call Approve for enough approvers. A
// denial is returned as a Proposal whose PDR decides deny, not as an error.
func (a *Agent) Propose(ctx context.Context, call pdr.Call, parents ...uint64) (*Proposal, error) {
	if a.Policy == nil || a.PolicySigner == nil {
		return nil, errors.New("pace: the agent has no policy or no policy signer")
	}
	in := calldata.IntentOf(a.Registry, a.Domain.ChainID, a.Domain.Account, &call.Target, call.Value, call.Data).Record()
	p := &Proposal{Agent: a.Name, Call: call, Intent: in}
	var cp *format.ContextProvenance
	if len(parents) > 0 {
		cp = &format.ContextProvenance{Parents: parents}
	}
	rc, err := a.record(ctx, p, format.Event{Tool: ToolPace, Kind: format.KindChainTx, Payload: format.Payload{
		Intent: &in, Context: cp, Code: &format.CodeProvenance{AgentVersion: a.Name}}})
	if err != nil {
		return nil, err
	}
	p.IntentEvent = rc
	t, err := a.NextTerms(ctx, p.EventID())
	if err != nil {
		return nil, err
	}
	p.PDR, p.Evaluation, err = a.Policy.Decide(pdr.Request{Domain: a.Domain, Call: call, EventID: t.EventID}, t.Nonce, t.Expiry, a.PolicySigner)
	if err != nil {
		return nil, err
	}
	if _, err := a.record(ctx, p, format.Event{Tool: ToolPolicy, Kind: format.KindPolicy, Payload: format.Payload{
		Policy: PolicyRecord(&p.Evaluation, &p.PDR), Context: p.parents()}}); err != nil {
		return nil, err
	}
	return p, nil
}

// Approve adds the approver key's signature to the proposal's PDR and
// records the approval, with the signature, as an approval event linked to
// the intent.
func (a *Agent) Approve(ctx context.Context, p *Proposal, key *ecdsa.PrivateKey) (recorder.Receipt, error) {
	if err := p.PDR.Approve(key); err != nil {
		return recorder.Receipt{}, err
	}
	sig, err := pdr.Sign(key, p.PDR.Digest())
	if err != nil {
		return recorder.Receipt{}, err
	}
	return a.record(ctx, p, format.Event{Tool: ToolApproval, Kind: format.KindApproval, Payload: format.Payload{
		Approval: &format.Approval{Approver: chain.Address(key).Hex(), Decision: format.DecisionAllow, Signature: sig[:]},
		Context:  p.parents()}})
}

// Outcome is what became of an attempt to execute through the account: a
// mined transaction (Receipt; status 0 sets Reverted too), a call refused
// in simulation and never sent (Reverted, with RevertData when the node
// returned it), or a failure (Err).
type Outcome struct {
	// Data is the account calldata that was (to be) sent.
	Data    []byte
	Receipt *types.Receipt
	// Reverted reports a revert, in simulation or on chain; Revert is the
	// decoded revert data (a custom error with its arguments, the
	// Error(string) message …), the error RecordOutcome records.
	Reverted   bool
	RevertData []byte
	Revert     string
	// Err is any failure: the revert, or an RPC error.
	Err error
}

// Succeeded reports whether the transaction was mined with status 1.
func (o *Outcome) Succeeded() bool {
	return o != nil && o.Receipt != nil && o.Receipt.Status == types.ReceiptStatusSuccessful
}

// Submit sends the account calldata that executes s for call (execute,
// executeWithApprovals or executeDelegated, as s requires) from the relayer
// key, and waits for the receipt. Like a relayer it simulates the call
// first: one the account would refuse is not broadcast. The call need not be
// the one s was signed for — that is what an attack does, and the account
// refuses it. A call value that is not a uint256 has no calldata: it is not
// sent, and Err wraps pdr.ErrValueRange.
func (a *Agent) Submit(ctx context.Context, relayer *ecdsa.PrivateKey, s *pdr.SignedPDR, call pdr.Call) *Outcome {
	data, err := s.Calldata(call)
	if err != nil {
		return &Outcome{Err: err}
	}
	o := &Outcome{Data: data}
	to := a.Domain.Account
	_, err = a.Client.CallContract(ctx, ethereum.CallMsg{From: chain.Address(relayer), To: &to, Data: o.Data}, nil)
	if err == nil {
		o.Receipt, err = chain.Transact(ctx, a.Client, relayer, &to, nil, o.Data)
	}
	o.Err = err
	switch {
	case o.Receipt != nil:
		o.Reverted = o.Receipt.Status != types.ReceiptStatusSuccessful
	case err != nil:
		o.RevertData, o.Reverted = chain.Reverted(err)
	}
	if o.Reverted {
		o.Revert = calldata.DecodeRevert(a.Registry, o.RevertData, to).Reason
	}
	return o
}

// Execute submits the proposal's own PDR for its own call from relayer.
func (a *Agent) Execute(ctx context.Context, p *Proposal, relayer *ecdsa.PrivateKey) *Outcome {
	return a.Submit(ctx, relayer, &p.PDR, p.Call)
}

// RecordOutcome records what became of proposal p as a chain_tx event linked
// to its intent (then to parents, e.g. an earlier refused attempt the agent
// retried after): status ok with the transaction hash, its block and its
// receipt logs as effects; reverted with o.Revert as the error, so that a
// refused attempt is evidence too; failed with o.Err; or, for a nil o (the
// agent submitted nothing), denied with the policy's name. A nil p records
// an outcome linked to parents only.
func (a *Agent) RecordOutcome(ctx context.Context, p *Proposal, o *Outcome, parents ...uint64) (recorder.Receipt, error) {
	ex := &format.Execution{Status: format.StatusOK}
	var effects []format.Effect
	switch {
	case o == nil:
		name := ""
		if a.Policy != nil {
			name = a.Policy.Name
		}
		ex.Status, ex.Error = format.StatusDenied, fmt.Sprintf("denied by policy %q", name)
	case o.Succeeded():
		ex.TxHash, ex.Block = o.Receipt.TxHash.Bytes(), o.Receipt.BlockNumber.Uint64()
		effects = calldata.LogEffects(a.Domain.ChainID, o.Receipt.Logs)
	case o.Reverted:
		ex.Status, ex.Error = format.StatusReverted, o.Revert
	default:
		ex.Status, ex.Error = format.StatusFailed, fmt.Sprint(o.Err)
	}
	cp := &format.ContextProvenance{Parents: parents}
	if p != nil {
		cp = p.parents(parents...)
	}
	var ext map[string]any
	if o != nil && o.Receipt != nil {
		ext = map[string]any{format.ExtGasUsed: o.Receipt.GasUsed}
	}
	return a.record(ctx, p, format.Event{Tool: ToolPace, Kind: format.KindChainTx, Payload: format.Payload{
		Execution: ex, Effects: effects, Context: cp, Code: &format.CodeProvenance{AgentVersion: a.Name}, Ext: ext}})
}

// NextTerms returns the terms of the next PDR bound to eventID: the nonce
// the account expects, an expiry Lifetime after Now and the policy's id. The
// decision is deny: Propose has the policy set it; code that signs a PDR
// itself (delegates, and specs playing a compromised agent) sets it.
func (a *Agent) NextTerms(ctx context.Context, eventID common.Hash) (pdr.Terms, error) {
	t := pdr.Terms{Decision: format.DecisionDeny, EventID: eventID}
	var err error
	if t.Nonce, err = a.NextNonce(ctx); err != nil {
		return t, err
	}
	now, err := a.Time(ctx)
	if err != nil {
		return t, err
	}
	t.Expiry = now + a.lifetime()
	if a.Policy != nil {
		if t.PolicyID, err = a.Policy.ID(); err != nil {
			return t, err
		}
	}
	return t, nil
}

func (a *Agent) lifetime() uint64 {
	if a.Lifetime == 0 {
		return DefaultLifetime
	}
	return a.Lifetime
}

// NextNonce returns the nonce the next policy-signed PDR must carry: a.Nonce,
// or the account's nonce() on chain.
func (a *Agent) NextNonce(ctx context.Context) (uint64, error) {
	if a.Nonce != nil {
		return a.Nonce(ctx)
	}
	return AccountNonce(ctx, a.Client, a.Domain.Account)
}

// Time returns the current time for PDR expiries: a.Now, or the latest
// block's timestamp (the clock the account checks expiries against).
func (a *Agent) Time(ctx context.Context) (uint64, error) {
	if a.Now != nil {
		return a.Now(ctx)
	}
	return BlockTime(ctx, a.Client)
}

// AccountNonce returns a PaceSmartAccount's current policy nonce: the nonce
// of the next PDR without delegations (execute, executeWithApprovals, the
// compact form, executeBatch).
func AccountNonce(ctx context.Context, c ethereum.ContractCaller, account common.Address) (uint64, error) {
	acct := bindings.NewPaceSmartAccount()
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &account, Data: acct.PackNonce()}, nil)
	if err != nil {
		return 0, fmt.Errorf("pace: nonce of %s: %w", account, err)
	}
	return acct.UnpackNonce(out)
}

// AccountDelegatedNonce returns a PaceSmartAccount's current delegated nonce:
// the nonce of the next PDR a delegate signs (executeDelegated). It is a space
// of its own, so delegated executions never invalidate pending policy PDRs.
func AccountDelegatedNonce(ctx context.Context, c ethereum.ContractCaller, account common.Address) (uint64, error) {
	acct := bindings.NewPaceSmartAccount()
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &account, Data: acct.PackDelegatedNonce()}, nil)
	if err != nil {
		return 0, fmt.Errorf("pace: delegated nonce of %s: %w", account, err)
	}
	return acct.UnpackDelegatedNonce(out)
}

// BlockTime returns the latest block's timestamp.
func BlockTime(ctx context.Context, c ethereum.ChainReader) (uint64, error) {
	h, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("pace: latest block: %w", err)
	}
	return h.Time, nil
}

// DecisionOf returns the recorder's decision for a policy evaluation: ask
// when the policy allows subject to human approval, allow when it allows
// outright, deny otherwise.
func DecisionOf(ev *pdr.Evaluation) format.Decision {
	switch {
	case !ev.Allowed():
		return format.DecisionDeny
	case ev.ApprovalRequired:
		return format.DecisionAsk
	}
	return format.DecisionAllow
}

// PolicyRecord returns the recorder's policy field for an evaluation and the
// PDR signed for it: the policy id, the decision (DecisionOf), the first
// matching rule, every reason as "rule: detail", and the PDR's digest.
func PolicyRecord(ev *pdr.Evaluation, s *pdr.SignedPDR) *format.PolicyEvaluation {
	var reasons []string
	rule := ""
	for _, r := range ev.Reasons {
		if r.Matched && rule == "" {
			rule = r.Rule
		}
		reasons = append(reasons, strings.TrimSpace(r.Rule+": "+r.Detail))
	}
	digest := s.Digest()
	return &format.PolicyEvaluation{PolicyID: ev.PolicyID.Hex(), Decision: DecisionOf(ev), Rule: rule, Reasons: reasons, PDRHash: digest[:]}
}
