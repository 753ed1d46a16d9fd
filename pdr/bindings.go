package pdr

import (
	"github.com/agentflightrecorder/afr/contracts/bindings"
)

// Binding returns the terms as the PaceSmartAccount binding's struct.
func (t Terms) Binding() bindings.IPaceSmartAccountPDRTerms {
	return bindings.IPaceSmartAccountPDRTerms{
		Nonce: t.Nonce, PolicyId: t.PolicyID, Decision: ChainDecision(t.Decision), ApprovalRequired: t.ApprovalRequired,
		Expiry: t.Expiry, EventId: t.EventID,
	}
}

// Binding returns the signature as the PaceSmartAccount binding's Sig.
func (s Signature) Binding() bindings.IPaceSmartAccountSig {
	return bindings.IPaceSmartAccountSig{R: s.R(), Vs: s.VS()}
}

// BindingSigs converts signatures for the binding.
func BindingSigs(sigs []Signature) []bindings.IPaceSmartAccountSig {
	out := make([]bindings.IPaceSmartAccountSig, len(sigs))
	for i, s := range sigs {
		out[i] = s.Binding()
	}
	return out
}

// Binding returns the call as the binding's Call. The value is not checked (the ABI packer
// would reduce 2^256 to 0 and panic on a negative value): check Call.Validate first, as
// Calldata does.
func (c Call) Binding() bindings.IPaceSmartAccountCall {
	return bindings.IPaceSmartAccountCall{Target: c.Target, Value: value(c.Value), Data: nonNil(c.Data)}
}

// Binding returns the delegation as the binding's Delegation; the caps are not checked (see
// Delegation.Validate).
func (d *Delegation) Binding() bindings.IPaceSmartAccountDelegation {
	return bindings.IPaceSmartAccountDelegation{
		Delegator: d.Delegator, Delegate: d.Delegate, Parent: d.Parent, Targets: nonNil(d.Targets),
		Selectors: nonNil(d.Selectors), MaxValuePerCall: value(d.MaxValuePerCall), MaxValueTotal: value(d.MaxValueTotal),
		Expiry: d.Expiry, Salt: d.Salt,
	}
}

// BindingChain converts a delegation chain for the binding.
func BindingChain(chain []SignedDelegation) []bindings.IPaceSmartAccountSignedDelegation {
	out := make([]bindings.IPaceSmartAccountSignedDelegation, len(chain))
	for i := range chain {
		out[i] = bindings.IPaceSmartAccountSignedDelegation{
			Delegation: chain[i].Delegation.Binding(), Signature: chain[i].Signature.Binding(),
		}
	}
	return out
}

// Calldata returns the account calldata that executes s for call c: execute when no approval is
// required, executeWithApprovals when it is, executeDelegated when s carries a delegation chain.
// It refuses a call value or delegation cap that is not a uint256 (ErrValueRange), which the
// ABI cannot carry (it would pack 2^256 as 0).
func (s *SignedPDR) Calldata(c Call) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := validateSigned(s); err != nil {
		return nil, err
	}
	acct := bindings.NewPaceSmartAccount()
	t := s.PDR.Terms().Binding()
	switch {
	case len(s.Delegations) > 0:
		return acct.PackExecuteDelegated(c.Binding(), t, s.Signature.Binding(), BindingSigs(s.Approvals), BindingChain(s.Delegations)), nil
	case s.PDR.ApprovalRequired:
		return acct.PackExecuteWithApprovals(c.Target, value(c.Value), nonNil(c.Data), t, s.Signature.Binding(), BindingSigs(s.Approvals)), nil
	default:
		return acct.PackExecute(c.Target, value(c.Value), nonNil(c.Data), t, s.Signature.Binding()), nil
	}
}
