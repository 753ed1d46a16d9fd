package pdr

import (
	"errors"
	"fmt"
	"math/big"
)

// ErrValueRange is wrapped by every error about a wei amount or other uint256 that is not one:
// negative, or of more than 256 bits. Such a value has no EIP-712 or ABI encoding, so pdr
// refuses it wherever it enters — calls (Evaluate, Decide, Verify, VerifyBatch, Calldata,
// CompactCalldata), PDRs (SignPDR, Approve, the encoders and decoders), delegation caps
// (SignDelegation, Verify, the encoders and decoders), a batch's total, the spent totals of a
// State, and the wei amounts and integer conditions of policies — instead of hashing or
// packing something else (common.BigToHash keeps the absolute value, the ABI packer reduces
// mod 2^256).
var ErrValueRange = errors.New("pdr: value out of uint256 range")

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// inUint256 reports whether v is nil (zero) or 0 ≤ v ≤ 2^256 − 1.
func inUint256(v *big.Int) bool {
	return v == nil || (v.Sign() >= 0 && v.BitLen() <= 256)
}

// checkValue returns nil when v is nil or a uint256, else an error wrapping ErrValueRange that
// names the field.
func checkValue(field string, v *big.Int) error {
	if inUint256(v) {
		return nil
	}
	return fmt.Errorf("%w: %s %s", ErrValueRange, field, describe(v))
}

// describe prints v, or only its sign and size when it is long (decoded values can be huge).
func describe(v *big.Int) string {
	if v.BitLen() <= 320 {
		return v.String()
	}
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%sa %d-bit number", sign, v.BitLen())
}

// Validate reports whether the call's value is a uint256 (nil is zero); the error wraps
// ErrValueRange.
func (c Call) Validate() error { return checkValue("call value", c.Value) }

// Validate reports whether the PDR's value is a uint256 (nil is zero), the condition for it
// to have a digest; the error wraps ErrValueRange.
func (p *PDR) Validate() error { return checkValue("pdr value", p.Value) }

// Validate reports whether the delegation's caps are uint256s (nil is zero), the condition for
// it to have a digest; the error wraps ErrValueRange.
func (d *Delegation) Validate() error {
	if err := checkValue("delegation max_value_per_call", d.MaxValuePerCall); err != nil {
		return err
	}
	return checkValue("delegation max_value_total", d.MaxValueTotal)
}

// batchValue returns the sum of the calls' values and nil when every value and the sum are
// uint256s. Otherwise it returns the first value that is not (or the sum, when only the sum
// overflows) and an error wrapping ErrValueRange; callsOK is false when a call's own value is
// out of range (then the batch has no data hash either).
func batchValue(calls []Call) (total *big.Int, callsOK bool, err error) {
	total = new(big.Int)
	for i, c := range calls {
		if err := checkValue(fmt.Sprintf("batch call %d value", i), c.Value); err != nil {
			return new(big.Int).Set(c.Value), false, err
		}
		total.Add(total, value(c.Value))
	}
	if total.Cmp(maxUint256) > 0 {
		return total, true, fmt.Errorf("%w: batch total %s (the contract's checked sum overflows)", ErrValueRange, describe(total))
	}
	return total, true, nil
}
