package pdr

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/format"
)

// EIP-712 domain of every PaceSmartAccount.
const (
	DomainName    = "PaceSmartAccount"
	DomainVersion = "1"
)

// EIP-712 type strings, exactly as in the contract.
const (
	// PDRType is the struct the policy signer (and the approvers) sign for execute,
	// executeWithApprovals, the compact form and executeBatch.
	PDRType = "PDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)"
	// DelegatedPDRType is the struct a delegate (and the approvers) sign for executeDelegated:
	// PDRType's fields under another name, so that a signature for one kind of PDR never
	// verifies as the other, even when the owner delegates to the policy signer's own key.
	DelegatedPDRType = "DelegatedPDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)"
	DelegationType   = "Delegation(address delegator,address delegate,bytes32 parent,address[] targets,bytes4[] selectors,uint256 maxValuePerCall,uint256 maxValueTotal,uint64 expiry,bytes32 salt)"
	domainType       = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
)

var (
	// PDRTypeHash is keccak256(PDRType).
	PDRTypeHash = crypto.Keccak256Hash([]byte(PDRType))
	// DelegatedPDRTypeHash is keccak256(DelegatedPDRType).
	DelegatedPDRTypeHash = crypto.Keccak256Hash([]byte(DelegatedPDRType))
	// DelegationTypeHash is keccak256(DelegationType).
	DelegationTypeHash = crypto.Keccak256Hash([]byte(DelegationType))
	domainTypeHash     = crypto.Keccak256Hash([]byte(domainType))
	nameHash           = crypto.Keccak256Hash([]byte(DomainName))
	versionHash        = crypto.Keccak256Hash([]byte(DomainVersion))
)

// Domain identifies one PaceSmartAccount on one chain: the EIP-712 domain's chain id and
// verifying contract.
type Domain struct {
	ChainID uint64
	Account common.Address
}

// Separator returns the EIP-712 domain separator.
func (d Domain) Separator() common.Hash {
	return keccakWords(domainTypeHash, nameHash, versionHash, u64(d.ChainID), addr(d.Account))
}

// typedDigest returns keccak256("\x19\x01" ‖ domainSeparator ‖ structHash).
func (d Domain) typedDigest(structHash common.Hash) common.Hash {
	sep := d.Separator()
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, sep[:], structHash[:])
}

// PDR is a Policy Decision Record: the decision to allow (or deny) exactly one call (or batch)
// from one account on one chain.
type PDR struct {
	Domain
	// Nonce must equal the account's nonce when the PDR is executed.
	Nonce uint64
	// Target is the called address (the account itself for a batch).
	Target common.Address
	// Value is the wei sent (the sum for a batch); nil means zero.
	Value *big.Int
	// DataHash is keccak256 of the calldata (BatchDataHash for a batch).
	DataHash common.Hash
	// PolicyID identifies the policy that decided (see Policy.ID).
	PolicyID common.Hash
	// Decision is format.DecisionAllow or format.DecisionDeny; only allow executes on chain
	// (see ChainDecision for the number the contract sees).
	Decision format.Decision
	// ApprovalRequired says that the account's approvers must also sign.
	ApprovalRequired bool
	// Expiry is the last valid block timestamp (inclusive).
	Expiry uint64
	// EventID is the recorder event id of the intent.
	EventID common.Hash
}

// Call is one call (target, value, calldata).
type Call struct {
	Target common.Address
	Value  *big.Int
	Data   []byte
}

// Selector returns the first four bytes of the calldata, or zero when it is shorter.
func (c Call) Selector() [4]byte {
	var s [4]byte
	if len(c.Data) >= 4 {
		copy(s[:], c.Data)
	}
	return s
}

// Terms are the PDR fields that the call does not imply.
type Terms struct {
	Nonce            uint64
	PolicyID         common.Hash
	Decision         format.Decision
	ApprovalRequired bool
	Expiry           uint64
	EventID          common.Hash
}

// ForCall returns the PDR for call c under terms t in domain d. It does not check c's value:
// a PDR whose value is not a uint256 is refused by Validate, SignPDR, Approve, the encoders and
// Verify, and Digest panics on it.
func ForCall(d Domain, c Call, t Terms) PDR {
	return PDR{
		Domain: d, Nonce: t.Nonce, Target: c.Target, Value: value(c.Value), DataHash: crypto.Keccak256Hash(c.Data),
		PolicyID: t.PolicyID, Decision: t.Decision, ApprovalRequired: t.ApprovalRequired, Expiry: t.Expiry, EventID: t.EventID,
	}
}

// ForBatch returns the PDR for a batch: target is the account, value the sum of the values and
// the data hash BatchDataHash(calls).
//
// Every value and the sum must be uint256s, as the contract's checked sum requires. ForBatch
// does not fail: when they are not, the PDR's Value is the first call value that is not a
// uint256, or else the overflowing sum, and (for a bad call value) its DataHash is zero, so
// that Validate, SignPDR and every other path refuse the PDR (ErrValueRange).
func ForBatch(d Domain, calls []Call, t Terms) PDR {
	total, callsOK, _ := batchValue(calls)
	var dataHash common.Hash
	if callsOK {
		dataHash = BatchDataHash(calls)
	}
	return PDR{
		Domain: d, Nonce: t.Nonce, Target: d.Account, Value: total, DataHash: dataHash,
		PolicyID: t.PolicyID, Decision: t.Decision, ApprovalRequired: t.ApprovalRequired, Expiry: t.Expiry, EventID: t.EventID,
	}
}

// Terms returns the PDR fields that the call does not imply.
func (p *PDR) Terms() Terms {
	return Terms{p.Nonce, p.PolicyID, p.Decision, p.ApprovalRequired, p.Expiry, p.EventID}
}

// Matches reports whether the PDR is for exactly call c. A PDR or call whose value is not a
// uint256 matches nothing.
func (p *PDR) Matches(c Call) bool {
	return inUint256(p.Value) && inUint256(c.Value) && p.Target == c.Target && value(p.Value).Cmp(value(c.Value)) == 0 && p.DataHash == crypto.Keccak256Hash(c.Data)
}

// StructHash returns the EIP-712 hashStruct of the PDR as PDRType. It panics when the value
// is not a uint256 (Validate reports it): such a PDR has no EIP-712 encoding.
func (p *PDR) StructHash() common.Hash {
	return p.structHash(PDRTypeHash)
}

// structHash returns the hashStruct of the PDR's fields under typeHash (PDRTypeHash or
// DelegatedPDRTypeHash).
func (p *PDR) structHash(typeHash common.Hash) common.Hash {
	return keccakWords(typeHash, u64(p.Nonce), addr(p.Target), u256(p.Value), p.DataHash, p.PolicyID,
		u64(uint64(ChainDecision(p.Decision))), boolWord(p.ApprovalRequired), u64(p.Expiry), p.EventID)
}

// Digest returns the EIP-712 digest of the PDR as PDRType: what the policy signer and the
// approvers sign for execute, executeWithApprovals, the compact form and executeBatch, and what
// the contract emits as their pdrHash. It panics when the value is not a uint256 (see
// StructHash); SignPDR, Approve and Verify return ErrValueRange instead.
func (p *PDR) Digest() common.Hash {
	return p.Domain.typedDigest(p.StructHash())
}

// DelegatedDigest returns the EIP-712 digest of the PDR as DelegatedPDRType: what a delegate
// and the approvers sign for executeDelegated, and what the contract emits as its pdrHash. It
// never equals Digest, so no signature serves both. It panics as Digest does.
func (p *PDR) DelegatedDigest() common.Hash {
	return p.Domain.typedDigest(p.structHash(DelegatedPDRTypeHash))
}

// digest returns DelegatedDigest when delegated, else Digest.
func (p *PDR) digest(delegated bool) common.Hash {
	if delegated {
		return p.DelegatedDigest()
	}
	return p.Digest()
}

// BatchDataHash returns keccak256(abi.encode(calls)) for calls as the contract's Call[] type.
// It panics when a value is not a uint256 (the ABI would reduce 2^256 to 0): check the calls
// first, as ForBatch and VerifyBatch do.
func BatchDataHash(calls []Call) common.Hash {
	type call struct {
		Target common.Address
		Value  *big.Int
		Data   []byte
	}
	in := make([]call, len(calls))
	for i, c := range calls {
		if err := checkValue(fmt.Sprintf("batch call %d value", i), c.Value); err != nil {
			panic(err.Error())
		}
		in[i] = call{c.Target, value(c.Value), c.Data}
	}
	enc, err := batchArgs.Pack(in)
	if err != nil {
		panic("pdr: encoding batch: " + err.Error()) // unreachable: the values are checked above
	}
	return crypto.Keccak256Hash(enc)
}

var batchArgs = func() abi.Arguments {
	t, err := abi.NewType("tuple[]", "", []abi.ArgumentMarshaling{
		{Name: "target", Type: "address"}, {Name: "value", Type: "uint256"}, {Name: "data", Type: "bytes"},
	})
	if err != nil {
		panic(err)
	}
	return abi.Arguments{{Type: t}}
}()

// ---- word helpers ----

func keccakWords(words ...common.Hash) common.Hash {
	buf := make([]byte, 0, 32*len(words))
	for _, w := range words {
		buf = append(buf, w[:]...)
	}
	return crypto.Keccak256Hash(buf)
}

func u64(v uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(v)) }

// u256 returns v as an EIP-712 uint256 word. It panics when v is not a uint256:
// common.BigToHash would hash |v|, or v mod 2^256, instead. Every path that reaches it with a
// value from outside checks the value first and returns ErrValueRange.
func u256(v *big.Int) common.Hash {
	if err := checkValue("value", v); err != nil {
		panic(err.Error() + " (hashed unchecked)")
	}
	return common.BigToHash(value(v))
}

func addr(a common.Address) common.Hash { return common.BytesToHash(a[:]) }

func boolWord(b bool) common.Hash {
	if b {
		return u64(1)
	}
	return common.Hash{}
}

// value returns v, or zero for nil.
func value(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
