package pdr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Compact calldata: the packed, non-ABI form of PaceSmartAccount's execute and
// executeWithApprovals, taken by executeCompact_dFki0() (docs/CONTRACTS.md, "Compact
// calldata"; docs/SPEC.md, "PACE compact calldata"). The function's selector 0x0000008d was
// mined to be the contract's lowest, which Solidity's dispatcher finds first; its "arguments"
// follow it big-endian and unpadded, where the ABI decoder does not look:
//
//	offset      size  field
//	0           4     CompactSelector (0x0000008d)
//	4           20    target
//	24          8     nonce (uint64)
//	32          8     expiry (uint64)
//	40          1     decision (uint8)
//	41          1     approvalRequired (0 or 1)
//	42          1     n, the number of approvals
//	43          1     L, the length of value (0–32)
//	44          32    policyId
//	76          32    eventId
//	108         64    policy signature r ‖ vs (ERC-2098)
//	172         64·n  approvals r ‖ vs, sorted by signer address
//	172+64n     L     value (uint256), minimal big-endian: no leading zero byte, L = 0 for zero
//	172+64n+L   rest  the call's data
//
// The PDR signed is the same EIP-712 record as for the ABI entry points: the encoding changes
// how the call is transported, not what is signed.
const (
	// CompactHeaderSize is the size of compact calldata without approvals, value and call data.
	CompactHeaderSize = 172
	// MaxCompactApprovals is the most approvals compact calldata can carry (n is one byte).
	MaxCompactApprovals = 255
)

// CompactSelector is the selector of executeCompact_dFki0(), the first four bytes of compact
// calldata.
var CompactSelector = [4]byte{0x00, 0x00, 0x00, 0x8d}

// ErrMalformedCompactCall is the contract's outcome for compact calldata shorter than its
// header, approvals and value, with an approvalRequired byte above 1, or with a value longer
// than 32 bytes or not minimal.
var ErrMalformedCompactCall = &Error{Name: "MalformedCompactCall"}

// CompactCalldata returns the compact calldata that executes s for call c: the equivalent of
// executeWithApprovals (of execute when s carries no approvals and the PDR requires none) in
// 172 + 64·len(s.Approvals) + len(value) + len(c.Data) bytes. Delegated PDRs have no compact
// form.
func CompactCalldata(s *SignedPDR, c Call) ([]byte, error) {
	if len(s.Delegations) > 0 {
		return nil, errors.New("pdr: delegated PDRs have no compact calldata (use executeDelegated)")
	}
	if len(s.Approvals) > MaxCompactApprovals {
		return nil, fmt.Errorf("pdr: %d approvals, compact calldata carries at most %d", len(s.Approvals), MaxCompactApprovals)
	}
	v := value(c.Value)
	if err := checkValue("call value", v); err != nil {
		return nil, err
	}
	vb := v.Bytes() // minimal big-endian, empty for zero
	p := &s.PDR
	out := make([]byte, CompactHeaderSize, CompactHeaderSize+64*len(s.Approvals)+len(vb)+len(c.Data))
	copy(out, CompactSelector[:])
	copy(out[4:24], c.Target[:])
	binary.BigEndian.PutUint64(out[24:32], p.Nonce)
	binary.BigEndian.PutUint64(out[32:40], p.Expiry)
	out[40] = ChainDecision(p.Decision)
	if p.ApprovalRequired {
		out[41] = 1
	}
	out[42] = byte(len(s.Approvals))
	out[43] = byte(len(vb))
	copy(out[44:76], p.PolicyID[:])
	copy(out[76:108], p.EventID[:])
	copy(out[108:172], s.Signature[:])
	for _, a := range s.Approvals {
		out = append(out, a[:]...)
	}
	out = append(out, vb...)
	return append(out, c.Data...), nil
}

// ParseCompactCalldata decodes compact calldata sent to the account of domain dom. It returns
// the signed PDR for the call (its Target, Value and DataHash taken from the call, as on
// chain) and the call. It rejects exactly what the contract does not decode: a selector
// other than CompactSelector, and (as ErrMalformedCompactCall) calldata shorter than its header,
// approvals and value, an approvalRequired byte above 1, or a value longer than 32 bytes or
// with a leading zero byte. Every byte string it accepts is the CompactCalldata of its result.
func ParseCompactCalldata(dom Domain, b []byte) (SignedPDR, Call, error) {
	if len(b) < 4 || [4]byte(b[:4]) != CompactSelector {
		return SignedPDR{}, Call{}, errors.New("pdr: not compact calldata (selector is not 0x0000008d)")
	}
	if len(b) < CompactHeaderSize {
		return SignedPDR{}, Call{}, fail(ErrMalformedCompactCall, fmt.Sprintf("compact calldata of %d bytes, the header alone is %d", len(b), CompactHeaderSize))
	}
	n, vlen := int(b[42]), int(b[43])
	valueAt := CompactHeaderSize + 64*n
	dataAt := valueAt + vlen
	switch {
	case len(b) < dataAt:
		return SignedPDR{}, Call{}, fail(ErrMalformedCompactCall, fmt.Sprintf("compact calldata of %d bytes, %d approvals and a %d-byte value need %d", len(b), n, vlen, dataAt))
	case b[41] > 1:
		return SignedPDR{}, Call{}, fail(ErrMalformedCompactCall, fmt.Sprintf("approvalRequired byte is %d, want 0 or 1", b[41]))
	case vlen > 32:
		return SignedPDR{}, Call{}, fail(ErrMalformedCompactCall, fmt.Sprintf("value of %d bytes, at most 32", vlen))
	case vlen > 0 && b[valueAt] == 0:
		return SignedPDR{}, Call{}, fail(ErrMalformedCompactCall, "value not minimal (leading zero byte)")
	}
	c := Call{
		Target: common.BytesToAddress(b[4:24]),
		Value:  new(big.Int).SetBytes(b[valueAt:dataAt]),
		Data:   append([]byte{}, b[dataAt:]...),
	}
	t := Terms{
		Nonce:            binary.BigEndian.Uint64(b[24:32]),
		Expiry:           binary.BigEndian.Uint64(b[32:40]),
		Decision:         DecisionFromChain(b[40]),
		ApprovalRequired: b[41] == 1,
		PolicyID:         common.Hash(b[44:76]),
		EventID:          common.Hash(b[76:108]),
	}
	s := SignedPDR{PDR: ForCall(dom, c, t), Signature: Signature(b[108:172])}
	for i := range n {
		s.Approvals = append(s.Approvals, Signature(b[CompactHeaderSize+64*i:CompactHeaderSize+64*(i+1)]))
	}
	return s, c, nil
}
