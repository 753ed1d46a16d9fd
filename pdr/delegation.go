package pdr

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// MaxDelegationDepth is the longest delegation chain the contract accepts.
const MaxDelegationDepth = 4

// Delegation lets Delegate sign PDRs (or delegate further) for the account within a scope.
// The first link of a chain is signed by the account owner, each later one by the previous
// link's delegate, and names the previous link's digest as Parent. A call must be within the
// scope of every link: a sub-delegation can never widen its parent's scope.
type Delegation struct {
	Delegator common.Address
	Delegate  common.Address
	// Parent is the previous link's Digest, zero for the owner's link.
	Parent common.Hash
	// Targets allowed; empty allows none.
	Targets []common.Address
	// Selectors allowed; empty allows none. The entry 0x00000000 allows plain transfers (empty
	// call data) and nothing else: a delegated call with 1–3 bytes of data, or whose selector is
	// 0x00000000, is refused (ErrUndelegableCalldata), so functions with selector 0x00000000
	// cannot be delegated.
	Selectors       [][4]byte
	MaxValuePerCall *big.Int
	MaxValueTotal   *big.Int
	// Expiry is the last valid block timestamp (inclusive).
	Expiry uint64
	Salt   common.Hash
}

// StructHash returns the EIP-712 hashStruct of the delegation. It panics when a cap is not a
// uint256 (Validate reports it).
func (d *Delegation) StructHash() common.Hash {
	targets := make([]byte, 0, 32*len(d.Targets))
	for _, t := range d.Targets {
		w := addr(t)
		targets = append(targets, w[:]...)
	}
	selectors := make([]byte, 0, 32*len(d.Selectors))
	for _, s := range d.Selectors {
		var w common.Hash // bytes4 is left-aligned in its word
		copy(w[:], s[:])
		selectors = append(selectors, w[:]...)
	}
	return keccakWords(DelegationTypeHash, addr(d.Delegator), addr(d.Delegate), d.Parent,
		crypto.Keccak256Hash(targets), crypto.Keccak256Hash(selectors),
		u256(d.MaxValuePerCall), u256(d.MaxValueTotal), u64(d.Expiry), d.Salt)
}

// Digest returns the EIP-712 digest of the delegation in domain dom: what the delegator signs,
// and the delegation's id for revocation, parent links and spending.
func (d *Delegation) Digest(dom Domain) common.Hash {
	return dom.typedDigest(d.StructHash())
}

// ErrUndelegableCalldata is the contract's outcome for a delegated call whose data is neither
// empty (a plain transfer) nor starts with a nonzero selector: 1–3 bytes, or selector
// 0x00000000 (issue 12, finding 3: such data would match a 0x00000000 "plain transfer" entry).
var ErrUndelegableCalldata = &Error{Name: "UndelegableCalldata"}

// checkDelegatedData refuses, as the contract does before checking any link, call data that
// a delegation cannot scope: 1–3 bytes, or a 0x00000000 selector.
func checkDelegatedData(c Call) error {
	n := len(c.Data)
	if n != 0 && (n < 4 || c.Selector() == [4]byte{}) {
		return fail(ErrUndelegableCalldata, fmt.Sprintf("delegated call data of %d bytes has no nonzero selector", n))
	}
	return nil
}

// allows reports which scope rule, if any, call c breaks; nil when c is within scope.
func (d *Delegation) allows(h common.Hash, c Call, spent *big.Int, now uint64) error {
	if err := checkValue("spent of delegation "+h.Hex(), spent); err != nil {
		return err // a broken state snapshot: on chain, spent is a uint256
	}
	if now > d.Expiry {
		return fail(ErrDelegationExpired, "delegation "+h.Hex()+" expired")
	}
	found := false
	for _, t := range d.Targets {
		found = found || t == c.Target
	}
	if !found {
		return fail(ErrTargetNotDelegated, "target "+c.Target.Hex()+" not in delegation "+h.Hex())
	}
	sel, found := c.Selector(), false
	for _, s := range d.Selectors {
		found = found || s == sel
	}
	if !found {
		return fail(ErrSelectorNotDelegated, "selector not in delegation "+h.Hex())
	}
	v := value(c.Value)
	if v.Cmp(value(d.MaxValuePerCall)) > 0 {
		return fail(ErrValueOverCallCap, "value "+v.String()+" over per-call cap "+value(d.MaxValuePerCall).String())
	}
	if v.Sign() != 0 {
		total := new(big.Int).Add(value(spent), v)
		if total.Cmp(value(d.MaxValueTotal)) > 0 {
			return fail(ErrValueOverTotalCap, "total "+total.String()+" over cap "+value(d.MaxValueTotal).String())
		}
	}
	return nil
}

// SignedDelegation is a delegation with its delegator's signature.
type SignedDelegation struct {
	Delegation Delegation
	Signature  Signature
}

// SignDelegation signs d for domain dom with key (the delegator's). It refuses caps that are not
// uint256s (ErrValueRange).
func SignDelegation(key *ecdsa.PrivateKey, dom Domain, d Delegation) (SignedDelegation, error) {
	if err := d.Validate(); err != nil {
		return SignedDelegation{}, err
	}
	sig, err := Sign(key, d.Digest(dom))
	if err != nil {
		return SignedDelegation{}, err
	}
	return SignedDelegation{Delegation: d, Signature: sig}, nil
}
