package pdr

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// cborDecoder bounds the CBOR of PDRs, delegations and policies, which come
// from untrusted parties: 1 MiB, 16 levels, 2^16 items per array or map.
var cborDecoder = format.NewDecoder(format.Limits{Size: 1 << 20, Nesting: 16, Items: 1 << 16})

// DecodeCBOR decodes data into v (a PDR, SignedPDR, Delegation, SignedDelegation, Policy or
// Evaluation, or anything built from them) and fails unless data is exactly format.Marshal's
// output for the decoded value (an error wrapping format.ErrNonCanonical) and within
// cborDecoder's limits.
func DecodeCBOR(data []byte, v any) error {
	if err := cborDecoder.Decode(data, v); err != nil {
		return fmt.Errorf("pdr: cbor: %w", err)
	}
	return nil
}

// ---- PDR ----

type pdrCBOR struct {
	ChainID          uint64         `cbor:"1,keyasint"`
	Account          common.Address `cbor:"2,keyasint"`
	Nonce            uint64         `cbor:"3,keyasint"`
	Target           common.Address `cbor:"4,keyasint"`
	Value            *big.Int       `cbor:"5,keyasint"`
	DataHash         common.Hash    `cbor:"6,keyasint"`
	PolicyID         common.Hash    `cbor:"7,keyasint"`
	Decision         uint8          `cbor:"8,keyasint"`
	ApprovalRequired bool           `cbor:"9,keyasint"`
	Expiry           uint64         `cbor:"10,keyasint"`
	EventID          common.Hash    `cbor:"11,keyasint"`
}

type pdrJSON struct {
	ChainID          uint64         `json:"chain_id"`
	Account          common.Address `json:"account"`
	Nonce            uint64         `json:"nonce"`
	Target           common.Address `json:"target"`
	Value            *hexutil.Big   `json:"value"`
	DataHash         common.Hash    `json:"data_hash"`
	PolicyID         common.Hash    `json:"policy_id"`
	Decision         decisionText   `json:"decision"`
	ApprovalRequired bool           `json:"approval_required"`
	Expiry           uint64         `json:"expiry"`
	EventID          common.Hash    `json:"event_id"`
}

// MarshalCBOR implements cbor.Marshaler (integer keys 1–11 in field order). A value that is not
// a uint256 is refused (ErrValueRange), as the decoder refuses it.
func (p PDR) MarshalCBOR() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return format.Marshal(pdrCBOR{p.ChainID, p.Account, p.Nonce, p.Target, value(p.Value), p.DataHash, p.PolicyID,
		ChainDecision(p.Decision), p.ApprovalRequired, p.Expiry, p.EventID})
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (p *PDR) UnmarshalCBOR(data []byte) error {
	var w pdrCBOR
	if err := cborDecoder.Unmarshal(data, &w); err != nil {
		return err
	}
	if err := checkValue("pdr value", w.Value); err != nil {
		return err
	}
	*p = PDR{Domain{w.ChainID, w.Account}, w.Nonce, w.Target, w.Value, w.DataHash, w.PolicyID,
		DecisionFromChain(w.Decision), w.ApprovalRequired, w.Expiry, w.EventID}
	return nil
}

// MarshalJSON writes snake_case fields; value is 0x-hex, decision "allow" or "deny" (a PDR with
// another decision has no JSON).
func (p PDR) MarshalJSON() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(pdrJSON{p.ChainID, p.Account, p.Nonce, p.Target, (*hexutil.Big)(value(p.Value)), p.DataHash,
		p.PolicyID, decisionText(p.Decision), p.ApprovalRequired, p.Expiry, p.EventID})
}

// UnmarshalJSON reads MarshalJSON's format.
func (p *PDR) UnmarshalJSON(data []byte) error {
	var w pdrJSON
	if err := strictJSON(data, &w); err != nil {
		return err
	}
	if w.Decision == 0 {
		return errors.New("pdr: json: no decision, want \"allow\" or \"deny\"")
	}
	v := (*big.Int)(w.Value)
	if err := checkValue("pdr value", v); err != nil {
		return err
	}
	*p = PDR{Domain{w.ChainID, w.Account}, w.Nonce, w.Target, value(v), w.DataHash, w.PolicyID, format.Decision(w.Decision),
		w.ApprovalRequired, w.Expiry, w.EventID}
	return nil
}

// ---- Delegation ----

type delegationCBOR struct {
	Delegator       common.Address   `cbor:"1,keyasint"`
	Delegate        common.Address   `cbor:"2,keyasint"`
	Parent          common.Hash      `cbor:"3,keyasint"`
	Targets         []common.Address `cbor:"4,keyasint"`
	Selectors       [][4]byte        `cbor:"5,keyasint"`
	MaxValuePerCall *big.Int         `cbor:"6,keyasint"`
	MaxValueTotal   *big.Int         `cbor:"7,keyasint"`
	Expiry          uint64           `cbor:"8,keyasint"`
	Salt            common.Hash      `cbor:"9,keyasint"`
}

type delegationJSON struct {
	Delegator       common.Address   `json:"delegator"`
	Delegate        common.Address   `json:"delegate"`
	Parent          common.Hash      `json:"parent"`
	Targets         []common.Address `json:"targets"`
	Selectors       []hexutil.Bytes  `json:"selectors"`
	MaxValuePerCall *hexutil.Big     `json:"max_value_per_call"`
	MaxValueTotal   *hexutil.Big     `json:"max_value_total"`
	Expiry          uint64           `json:"expiry"`
	Salt            common.Hash      `json:"salt"`
}

// MarshalCBOR implements cbor.Marshaler.
func (d Delegation) MarshalCBOR() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return format.Marshal(delegationCBOR{d.Delegator, d.Delegate, d.Parent, nonNil(d.Targets), nonNil(d.Selectors),
		value(d.MaxValuePerCall), value(d.MaxValueTotal), d.Expiry, d.Salt})
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (d *Delegation) UnmarshalCBOR(data []byte) error {
	var w delegationCBOR
	if err := cborDecoder.Unmarshal(data, &w); err != nil {
		return err
	}
	dec := Delegation{w.Delegator, w.Delegate, w.Parent, w.Targets, w.Selectors, w.MaxValuePerCall, w.MaxValueTotal, w.Expiry, w.Salt}
	if err := dec.Validate(); err != nil {
		return err
	}
	*d = dec
	return nil
}

// MarshalJSON writes snake_case fields; selectors are 0x-hex, caps 0x-hex quantities.
func (d Delegation) MarshalJSON() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	sels := make([]hexutil.Bytes, len(d.Selectors))
	for i, s := range d.Selectors {
		sels[i] = append(hexutil.Bytes(nil), s[:]...)
	}
	return json.Marshal(delegationJSON{d.Delegator, d.Delegate, d.Parent, nonNil(d.Targets), sels,
		(*hexutil.Big)(value(d.MaxValuePerCall)), (*hexutil.Big)(value(d.MaxValueTotal)), d.Expiry, d.Salt})
}

// UnmarshalJSON reads MarshalJSON's format.
func (d *Delegation) UnmarshalJSON(data []byte) error {
	var w delegationJSON
	if err := strictJSON(data, &w); err != nil {
		return err
	}
	sels := make([][4]byte, len(w.Selectors))
	for i, s := range w.Selectors {
		if len(s) != 4 {
			return fmt.Errorf("pdr: selector %d has %d bytes, want 4", i, len(s))
		}
		sels[i] = [4]byte(s)
	}
	dec := Delegation{w.Delegator, w.Delegate, w.Parent, w.Targets, sels, value((*big.Int)(w.MaxValuePerCall)),
		value((*big.Int)(w.MaxValueTotal)), w.Expiry, w.Salt}
	if err := dec.Validate(); err != nil {
		return err
	}
	*d = dec
	return nil
}

// ---- signed forms ----

type signedDelegationWire struct {
	Delegation Delegation `json:"delegation" cbor:"1,keyasint"`
	Signature  Signature  `json:"signature" cbor:"2,keyasint"`
}

// MarshalCBOR implements cbor.Marshaler.
func (s SignedDelegation) MarshalCBOR() ([]byte, error) {
	return format.Marshal(signedDelegationWire(s))
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (s *SignedDelegation) UnmarshalCBOR(data []byte) error {
	return cborDecoder.Unmarshal(data, (*signedDelegationWire)(s))
}

type signedPDRWire struct {
	PDR         PDR                `json:"pdr" cbor:"1,keyasint"`
	Signature   Signature          `json:"signature" cbor:"2,keyasint"`
	Approvals   []Signature        `json:"approvals" cbor:"3,keyasint"`
	Delegations []SignedDelegation `json:"delegations" cbor:"4,keyasint"`
}

// MarshalCBOR implements cbor.Marshaler.
func (s SignedPDR) MarshalCBOR() ([]byte, error) {
	w := signedPDRWire(s)
	w.Approvals, w.Delegations = nonNil(w.Approvals), nonNil(w.Delegations)
	return format.Marshal(w)
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (s *SignedPDR) UnmarshalCBOR(data []byte) error {
	return cborDecoder.Unmarshal(data, (*signedPDRWire)(s))
}

// MarshalJSON writes {"pdr", "signature", "approvals", "delegations"}.
func (s SignedPDR) MarshalJSON() ([]byte, error) {
	w := signedPDRWire(s)
	w.Approvals, w.Delegations = nonNil(w.Approvals), nonNil(w.Delegations)
	return json.Marshal(w)
}

// UnmarshalJSON reads MarshalJSON's format.
func (s *SignedPDR) UnmarshalJSON(data []byte) error {
	return strictJSON(data, (*signedPDRWire)(s))
}

// MarshalText writes the signature as 0x-hex (JSON strings).
func (s Signature) MarshalText() ([]byte, error) {
	return hexutil.Bytes(s[:]).MarshalText()
}

// UnmarshalText reads 0x-hex of exactly 64 bytes.
func (s *Signature) UnmarshalText(text []byte) error {
	var b hexutil.Bytes
	if err := b.UnmarshalText(text); err != nil {
		return err
	}
	if len(b) != len(s) {
		return fmt.Errorf("pdr: signature has %d bytes, want %d", len(b), len(s))
	}
	copy(s[:], b)
	return nil
}

// ---- helpers ----

func strictJSON(data []byte, v any) error {
	if err := strictjson.UnmarshalKnown(data, v); err != nil {
		return fmt.Errorf("pdr: json: %w", err)
	}
	return nil
}

// nonNil returns an empty slice for nil so that nil and empty encode the same way.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
