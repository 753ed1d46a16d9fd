package pdr_test

import (
	"crypto/ecdsa"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/pdr"
)

// Gas targets of DESIGN.md §4.7 for a PACE call to a trivial target, whole transaction
// (intrinsic gas and calldata included), measured from real receipts on the simulated chain.
const (
	gasTargetPolicyOnly   = 40_000
	gasTargetWithApprover = 45_000
)

// execGas executes a 4-byte call to the STOP-only sink in a real transaction and returns the
// receipt's gasUsed. approvers sign when given (the PDR then requires approval).
func execGas(t *testing.T, c *chain, approvers ...*ecdsa.PrivateKey) uint64 {
	t.Helper()
	st := c.state()
	call := pdr.Call{Target: sinkAddr, Data: crypto.Keccak256([]byte("ping()"))[:4]}
	terms := pdr.Terms{
		Nonce: st.Nonce, PolicyID: crypto.Keccak256Hash([]byte("policy")), Decision: pdr.Allow,
		ApprovalRequired: len(approvers) > 0, Expiry: c.now() + 3600, EventID: crypto.Keccak256Hash([]byte{byte(st.Nonce)}),
	}
	s, err := pdr.SignPDR(c.policy, pdr.ForCall(c.dom, call, terms))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range approvers {
		if err := s.Approve(k); err != nil {
			t.Fatal(err)
		}
	}
	if err := pdr.Verify(st, &s, call, c.now()+1, len(approvers) > 0); err != nil {
		t.Fatalf("go rejects the PDR: %v", err)
	}
	return c.send(s.Calldata(call)).GasUsed
}

// TestGasTargets measures steady-state PACE executions (the nonce slot already nonzero, the
// target cold, as for every real call) and fails when a target is missed.
func TestGasTargets(t *testing.T) {
	c := newChain(t, 1, osaka)
	first := execGas(t, c)
	policy := execGas(t, c)
	approved := execGas(t, c, c.approvers[0])
	t.Logf("PACE execute, policy signature only: first %d gas, steady state %d gas (target %d)", first, policy, gasTargetPolicyOnly)
	t.Logf("PACE executeWithApprovals, policy + 1 approver: %d gas (target %d)", approved, gasTargetWithApprover)
	if policy > gasTargetPolicyOnly {
		t.Errorf("policy-only execution: %d gas, want ≤ %d", policy, gasTargetPolicyOnly)
	}
	if approved > gasTargetWithApprover {
		t.Errorf("execution with one approver: %d gas, want ≤ %d", approved, gasTargetWithApprover)
	}
}

// TestGasUnderBogota reports (without asserting) the same figures under the simulated chain's
// default fork set, which includes Amsterdam/Bogota state-access repricing (EIP-8037/8038).
func TestGasUnderBogota(t *testing.T) {
	c := newChain(t, 1)
	execGas(t, c)
	t.Logf("Bogota rules: policy only %d gas, policy + 1 approver %d gas", execGas(t, c), execGas(t, c, c.approvers[0]))
}
