package pdr

import (
	"fmt"

	"github.com/agentflightrecorder/afr/format"
)

// chainDeny is the contract's number for deny; it executes only format.DecisionAllow's 1.
const chainDeny = 0

// ChainDecision returns d as PaceSmartAccount's PDR type carries it, the uint8 decision of
// PDRType that the EIP-712 hash, the ABI and compact calldata and a PDR's CBOR encode: 1 for format.DecisionAllow, the only decision the contract executes, and 0 for
// format.DecisionDeny. The mapping is one to one on every uint8, so that any PDR read from
// calldata or CBOR hashes and re-encodes exactly as it came: the zero Decision (no decision)
// is 2, and every other value, format.DecisionAsk among them, is itself. DecisionFromChain is
// its inverse.
func ChainDecision(d format.Decision) uint8 {
	switch d {
	case format.DecisionDeny:
		return chainDeny
	case 0:
		return uint8(format.DecisionDeny)
	}
	return uint8(d)
}

// DecisionFromChain returns the decision of the contract's uint8 v: the inverse of
// ChainDecision.
func DecisionFromChain(v uint8) format.Decision {
	switch v {
	case chainDeny:
		return format.DecisionDeny
	case uint8(format.DecisionDeny):
		return 0
	}
	return format.Decision(v)
}

// decisionText is a decision as policies, evaluations and a PDR's JSON spell it: "allow" or
// "deny", never another decision. Policy ids hash the CBOR of rules with it, so its CBOR is
// that text string too.
type decisionText format.Decision

// MarshalText returns "allow" or "deny".
func (d decisionText) MarshalText() ([]byte, error) {
	if format.Decision(d) != format.DecisionAllow && format.Decision(d) != format.DecisionDeny {
		return nil, fmt.Errorf("pdr: decision %d has no name", uint8(d))
	}
	return []byte(format.Decision(d).String()), nil
}

// UnmarshalText reads "allow" or "deny" and refuses anything else.
func (d *decisionText) UnmarshalText(text []byte) error {
	switch string(text) {
	case "allow":
		*d = decisionText(format.DecisionAllow)
	case "deny":
		*d = decisionText(format.DecisionDeny)
	default:
		return fmt.Errorf("pdr: decision %q, want \"allow\" or \"deny\"", text)
	}
	return nil
}

// MarshalCBOR encodes the decision as the text string "allow" or "deny".
func (d decisionText) MarshalCBOR() ([]byte, error) {
	text, err := d.MarshalText()
	if err != nil {
		return nil, err
	}
	return format.Marshal(string(text))
}

// UnmarshalCBOR reads MarshalCBOR's text string.
func (d *decisionText) UnmarshalCBOR(data []byte) error {
	var s string
	if err := cborDecoder.Unmarshal(data, &s); err != nil {
		return err
	}
	return d.UnmarshalText([]byte(s))
}
