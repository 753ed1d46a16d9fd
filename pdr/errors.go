package pdr

// Error is a verification failure. Name is the custom error the contract reverts with for the
// same failure (e.g. "InvalidNonce", or OpenZeppelin's "ECDSAInvalidSignatureS"), so Go and
// on-chain outcomes can be compared; Detail says what exactly failed.
//
// Test for a failure class with errors.Is against the sentinels below, which match any Error
// with the same Name.
type Error struct {
	Name   string
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "pdr: " + e.Name
	}
	return "pdr: " + e.Detail
}

// Is reports whether target is an *Error with the same Name.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Name == e.Name
}

func fail(sentinel *Error, detail string) *Error {
	return &Error{Name: sentinel.Name, Detail: detail}
}

// Failure classes, one per contract error a PDR check can raise.
var (
	ErrInvalidNonce             = &Error{Name: "InvalidNonce"}
	ErrDecisionNotAllow         = &Error{Name: "DecisionNotAllow"}
	ErrPDRExpired               = &Error{Name: "PDRExpired"}
	ErrUnauthorizedPolicySigner = &Error{Name: "UnauthorizedPolicySigner"}
	ErrTooFewApprovals          = &Error{Name: "TooFewApprovals"}
	ErrNotApprover              = &Error{Name: "NotApprover"}
	ErrDuplicateApprover        = &Error{Name: "DuplicateApprover"}
	ErrApproversNotSorted       = &Error{Name: "ApproversNotSorted"}
	ErrEmptyDelegationChain     = &Error{Name: "EmptyDelegationChain"}
	ErrDelegationChainTooLong   = &Error{Name: "DelegationChainTooLong"}
	ErrDelegatorMismatch        = &Error{Name: "DelegatorMismatch"}
	ErrDelegationParentMismatch = &Error{Name: "DelegationParentMismatch"}
	ErrInvalidDelegationSig     = &Error{Name: "InvalidDelegationSignature"}
	ErrRevokedDelegation        = &Error{Name: "RevokedDelegation"}
	ErrDelegationExpired        = &Error{Name: "DelegationExpired"}
	ErrTargetNotDelegated       = &Error{Name: "TargetNotDelegated"}
	ErrSelectorNotDelegated     = &Error{Name: "SelectorNotDelegated"}
	ErrValueOverCallCap         = &Error{Name: "ValueOverCallCap"}
	ErrValueOverTotalCap        = &Error{Name: "ValueOverTotalCap"}
	ErrUnauthorizedDelegate     = &Error{Name: "UnauthorizedDelegate"}
	ErrInvalidSignatureS        = &Error{Name: "ECDSAInvalidSignatureS", Detail: "signature s is in the upper half of the curve order"}
	ErrInvalidSignature         = &Error{Name: "ECDSAInvalidSignature", Detail: "signature does not recover to an address"}
	// ErrTargetIsAccount: a single call (execute, executeWithApprovals, compact, delegated) to
	// the account itself; a PDR with the account as target is a batch PDR.
	ErrTargetIsAccount = &Error{Name: "TargetIsAccount", Detail: "a single call may not target the account itself"}
)
