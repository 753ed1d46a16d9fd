package pdr

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/format"
)

// SignedPDR is a PDR with the signatures that make it executable: the policy signer's (or, with
// a delegation chain, the last delegate's) and, when approval is required, the approvers'.
// Whether it carries a delegation chain decides what every signature is over (Digest): a
// policy-signed PDR and a delegated one are two EIP-712 types.
type SignedPDR struct {
	PDR PDR
	// Signature is by the policy signer over PDR.Digest, or, when Delegations is not empty, by
	// the last delegate over PDR.DelegatedDigest.
	Signature Signature
	// Approvals are over the same digest as Signature, sorted by strictly increasing signer
	// address (SortApprovals).
	Approvals []Signature
	// Delegations is the chain from the owner to the signing delegate, owner's link first.
	Delegations []SignedDelegation
}

// Digest returns the digest that s's signature and approvals are over and that the contract
// emits as pdrHash: s.PDR.DelegatedDigest() when s carries a delegation chain
// (executeDelegated), s.PDR.Digest() otherwise. It panics as PDR.Digest does.
func (s *SignedPDR) Digest() common.Hash {
	return s.PDR.digest(len(s.Delegations) > 0)
}

// State is the part of a PaceSmartAccount's on-chain state that decides whether a PDR executes.
type State struct {
	Owner        common.Address
	PolicySigner common.Address
	Approvers    map[common.Address]bool
	Threshold    uint8
	// Nonce is the policy nonce (nonce()): the nonce of every PDR without delegations.
	Nonce uint64
	// DelegatedNonce is the delegated nonce (delegatedNonce()): the nonce of every PDR with
	// delegations (executeDelegated). A separate space, so that no delegate can invalidate
	// pending policy PDRs (issue 12, finding 7).
	DelegatedNonce uint64
	// Revoked and Spent are keyed by delegation digest; nil maps mean none.
	Revoked map[common.Hash]bool
	Spent   map[common.Hash]*big.Int
}

// SignPDR signs p's digest with key, returning a SignedPDR without approvals. It refuses a PDR
// whose value is not a uint256 (ErrValueRange).
func SignPDR(key *ecdsa.PrivateKey, p PDR) (SignedPDR, error) {
	if err := p.Validate(); err != nil {
		return SignedPDR{}, err
	}
	sig, err := Sign(key, p.Digest())
	if err != nil {
		return SignedPDR{}, err
	}
	return SignedPDR{PDR: p, Signature: sig}, nil
}

// SignDelegatedPDR signs p's DelegatedDigest with key (the last delegate's of chain), returning
// a SignedPDR for executeDelegated with chain and without approvals. It refuses an empty chain
// (ErrEmptyDelegationChain: without one the record would be read as policy-signed) and a PDR
// whose value is not a uint256 (ErrValueRange).
func SignDelegatedPDR(key *ecdsa.PrivateKey, p PDR, chain []SignedDelegation) (SignedPDR, error) {
	if len(chain) == 0 {
		return SignedPDR{}, fail(ErrEmptyDelegationChain, "a delegated PDR needs a delegation chain")
	}
	if err := p.Validate(); err != nil {
		return SignedPDR{}, err
	}
	sig, err := Sign(key, p.DelegatedDigest())
	if err != nil {
		return SignedPDR{}, err
	}
	return SignedPDR{PDR: p, Signature: sig, Delegations: chain}, nil
}

// Approve adds the approver key's signature over s.Digest() and keeps the approvals sorted.
// Approve a delegated PDR once its chain is attached: the chain decides the digest.
func (s *SignedPDR) Approve(key *ecdsa.PrivateKey) error {
	if err := s.PDR.Validate(); err != nil {
		return err
	}
	digest := s.Digest()
	sig, err := Sign(key, digest)
	if err != nil {
		return err
	}
	s.Approvals = append(s.Approvals, sig)
	return SortApprovals(digest, s.Approvals)
}

// SortApprovals sorts approval signatures over digest by signer address, as the contract requires.
func SortApprovals(digest common.Hash, sigs []Signature) error {
	signers := make([]common.Address, len(sigs))
	for i, s := range sigs {
		a, err := s.Recover(digest)
		if err != nil {
			return err
		}
		signers[i] = a
	}
	for i := 1; i < len(sigs); i++ { // insertion sort: a handful of approvers
		for j := i; j > 0 && signers[j].Cmp(signers[j-1]) < 0; j-- {
			signers[j], signers[j-1] = signers[j-1], signers[j]
			sigs[j], sigs[j-1] = sigs[j-1], sigs[j]
		}
	}
	return nil
}

// Verify reports whether s authorises call c on the account with state st at block timestamp
// now, with the checks, order and outcome of the contract: execute (withApprovals false) or
// executeWithApprovals (true) when s has no delegations, executeDelegated when it has. It
// returns nil or an *Error whose Name is the custom error the contract reverts with.
//
// As on chain, the digest is computed from c and the PDR's terms: s.PDR's Target, Value and
// DataHash are not trusted, so a PDR signed for another call fails as an unauthorised signer.
// It is the PDRType digest without delegations and the DelegatedPDRType digest with them, so a
// policy-signed PDR under a chain to the policy signer's key fails as an unauthorised delegate,
// and a delegated PDR without its chain as an unauthorised policy signer. Verify does not
// change st.
//
// Before the contract's checks, Verify refuses (with an error wrapping ErrValueRange, not an
// *Error: no calldata can carry them) a call value, a PDR value or a delegation cap that is
// not a uint256, and, while checking the chain, a spent total in st that is not one.
func Verify(st *State, s *SignedPDR, c Call, now uint64, withApprovals bool) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := validateSigned(s); err != nil {
		return err
	}
	p := ForCall(s.PDR.Domain, c, s.PDR.Terms())
	if err := verify(st, s, &p, c, now, withApprovals); err != nil {
		return err
	}
	// After every PDR check, as on chain: a PDR whose target is the account
	// is a batch PDR, never a single call.
	if c.Target == s.PDR.Account {
		return fail(ErrTargetIsAccount, "target "+c.Target.Hex()+" is the account")
	}
	return nil
}

// VerifyBatch is Verify for executeBatch (no delegations; approvals checked when required).
// Every call value and their sum must be uint256s (ErrValueRange): the contract's checked sum
// reverts on overflow.
func VerifyBatch(st *State, s *SignedPDR, calls []Call, now uint64) error {
	if len(s.Delegations) != 0 {
		return fmt.Errorf("pdr: batches cannot be delegated")
	}
	if _, _, err := batchValue(calls); err != nil {
		return err
	}
	if err := validateSigned(s); err != nil {
		return err
	}
	p := ForBatch(s.PDR.Domain, calls, s.PDR.Terms())
	return verify(st, s, &p, Call{}, now, true)
}

// validateSigned checks the values a signed PDR carries: its PDR's value (not used by Verify,
// which takes the call's, but a record that cannot have been signed) and its delegations' caps.
func validateSigned(s *SignedPDR) error {
	if err := s.PDR.Validate(); err != nil {
		return err
	}
	for i := range s.Delegations {
		d := &s.Delegations[i].Delegation
		if err := checkValue(fmt.Sprintf("delegation link %d max_value_per_call", i), d.MaxValuePerCall); err != nil {
			return err
		}
		if err := checkValue(fmt.Sprintf("delegation link %d max_value_total", i), d.MaxValueTotal); err != nil {
			return err
		}
	}
	return nil
}

// MaxPolicyNonce and MaxDelegatedNonce bound the account's two nonce spaces (48 and 39 bits of
// its packed state). A policy PDR whose nonce exceeds MaxPolicyNonce never executes; nor does a
// delegated PDR whose nonce is MaxDelegatedNonce or more: that last value is never consumed.
const (
	MaxPolicyNonce    = 1<<48 - 1
	MaxDelegatedNonce = 1<<39 - 1
)

func verify(st *State, s *SignedPDR, p *PDR, c Call, now uint64, withApprovals bool) error {
	if len(s.Delegations) == 0 {
		if p.Nonce != st.Nonce {
			return fail(ErrInvalidNonce, fmt.Sprintf("nonce %d, want %d", p.Nonce, st.Nonce))
		}
	} else if p.Nonce != st.DelegatedNonce || st.DelegatedNonce >= MaxDelegatedNonce {
		return fail(ErrInvalidNonce, fmt.Sprintf("delegated nonce %d, want %d", p.Nonce, st.DelegatedNonce))
	}
	if p.Decision != format.DecisionAllow {
		return fail(ErrDecisionNotAllow, "decision is "+p.Decision.String())
	}
	if now > p.Expiry {
		return fail(ErrPDRExpired, fmt.Sprintf("expired at %d, now %d", p.Expiry, now))
	}
	digest := p.digest(len(s.Delegations) > 0)
	if len(s.Delegations) == 0 {
		signer, err := s.Signature.Recover(digest)
		if err != nil {
			return err
		}
		if signer != st.PolicySigner {
			return fail(ErrUnauthorizedPolicySigner, "signed by "+signer.Hex()+", not the policy signer")
		}
		if p.ApprovalRequired && !withApprovals {
			return fail(ErrTooFewApprovals, fmt.Sprintf("0 approvals, want %d", st.Threshold))
		}
	} else {
		delegate, err := checkChain(st, s.Delegations, p.Domain, c, now)
		if err != nil {
			return err
		}
		signer, err := s.Signature.Recover(digest)
		if err != nil {
			return err
		}
		if signer != delegate {
			return fail(ErrUnauthorizedDelegate, "signed by "+signer.Hex()+", not delegate "+delegate.Hex())
		}
	}
	if p.ApprovalRequired {
		return checkApprovals(st, digest, s.Approvals)
	}
	return nil
}

func checkApprovals(st *State, digest common.Hash, sigs []Signature) error {
	required := int(st.Threshold)
	if required == 0 {
		required = 1
	}
	if len(sigs) < required {
		return fail(ErrTooFewApprovals, fmt.Sprintf("%d approvals, want %d", len(sigs), required))
	}
	var previous common.Address
	for _, sig := range sigs {
		signer, err := sig.Recover(digest)
		if err != nil {
			return err
		}
		switch c := signer.Cmp(previous); {
		case c == 0:
			return fail(ErrDuplicateApprover, "approver "+signer.Hex()+" signed twice")
		case c < 0:
			return fail(ErrApproversNotSorted, "approver "+signer.Hex()+" after "+previous.Hex())
		}
		if !st.Approvers[signer] {
			return fail(ErrNotApprover, signer.Hex()+" is not an approver")
		}
		previous = signer
	}
	return nil
}

// checkChain walks the delegation chain for call c and returns the last delegate.
func checkChain(st *State, chain []SignedDelegation, dom Domain, c Call, now uint64) (common.Address, error) {
	n := len(chain)
	if n > MaxDelegationDepth {
		return common.Address{}, fail(ErrDelegationChainTooLong, fmt.Sprintf("chain of %d, max %d", n, MaxDelegationDepth))
	}
	if err := checkDelegatedData(c); err != nil {
		return common.Address{}, err
	}
	delegator, parent := st.Owner, common.Hash{}
	for i := range chain {
		link := &chain[i]
		d := &link.Delegation
		h := d.Digest(dom)
		if d.Delegator != delegator {
			return common.Address{}, fail(ErrDelegatorMismatch, fmt.Sprintf("link %d delegator %s, want %s", i, d.Delegator.Hex(), delegator.Hex()))
		}
		if d.Parent != parent {
			return common.Address{}, fail(ErrDelegationParentMismatch, fmt.Sprintf("link %d parent %s, want %s", i, d.Parent.Hex(), parent.Hex()))
		}
		signer, err := link.Signature.Recover(h)
		if err != nil {
			return common.Address{}, err
		}
		if signer != delegator {
			return common.Address{}, fail(ErrInvalidDelegationSig, fmt.Sprintf("link %d signed by %s", i, signer.Hex()))
		}
		if st.Revoked[h] {
			return common.Address{}, fail(ErrRevokedDelegation, "delegation "+h.Hex()+" revoked")
		}
		if err := d.allows(h, c, st.Spent[h], now); err != nil {
			return common.Address{}, err
		}
		delegator, parent = d.Delegate, h
	}
	return delegator, nil
}
