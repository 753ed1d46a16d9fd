package pdr

import (
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Signature is an ERC-2098 compact secp256k1 signature: r (32 bytes) then
// yParity<<255 | s (32 bytes). It is the form PaceSmartAccount takes.
type Signature [64]byte

// secp256k1 group order and its half: signatures with s > halfN are malleable.
var (
	secp256k1N = crypto.S256().Params().N
	halfN      = new(big.Int).Rsh(secp256k1N, 1)
)

// Sign signs digest with key. go-ethereum produces low-s signatures, so the result is the
// unique signature the contract accepts.
func Sign(key *ecdsa.PrivateKey, digest common.Hash) (Signature, error) {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return Signature{}, fmt.Errorf("pdr: sign: %w", err)
	}
	return FromRSV(sig)
}

// FromRSV converts a 65-byte r‖s‖v signature (v ∈ {0, 1, 27, 28}) to compact form. It rejects
// high-s (malleable) signatures, which the compact form cannot carry faithfully.
func FromRSV(sig []byte) (Signature, error) {
	var out Signature
	if len(sig) != 65 {
		return out, fmt.Errorf("pdr: signature length %d, want 65", len(sig))
	}
	v := sig[64]
	if v >= 27 {
		v -= 27
	}
	if v > 1 {
		return out, fmt.Errorf("pdr: signature v %d, want 0, 1, 27 or 28", sig[64])
	}
	if new(big.Int).SetBytes(sig[32:64]).Cmp(halfN) > 0 {
		return out, ErrInvalidSignatureS
	}
	copy(out[:], sig[:64])
	out[32] |= v << 7
	return out, nil
}

// R returns the r half.
func (s Signature) R() [32]byte { return [32]byte(s[:32]) }

// VS returns the yParity<<255 | s half.
func (s Signature) VS() [32]byte { return [32]byte(s[32:]) }

// RSV returns the 65-byte r‖s‖v form with v ∈ {27, 28} (for ERC-1271 and wallets).
func (s Signature) RSV() []byte {
	out := make([]byte, 65)
	copy(out, s[:])
	out[32] &= 0x7f
	out[64] = 27 + s[32]>>7
	return out
}

// String returns the 0x-prefixed hex form.
func (s Signature) String() string { return "0x" + hex.EncodeToString(s[:]) }

// Recover returns the signer of digest exactly as OpenZeppelin's ECDSA.recover(hash, r, vs) on
// the EVM's ecrecover does: ErrInvalidSignatureS when s is in the upper half of the order,
// ErrInvalidSignature when ecrecover would return the zero address.
func (s Signature) Recover(digest common.Hash) (common.Address, error) {
	r := new(big.Int).SetBytes(s[:32])
	vs := s.VS()
	parity := vs[0] >> 7
	vs[0] &= 0x7f
	sv := new(big.Int).SetBytes(vs[:])
	if sv.Cmp(halfN) > 0 {
		return common.Address{}, &Error{Name: ErrInvalidSignatureS.Name, Detail: fmt.Sprintf("signature s %#x is in the upper half of the curve order", sv)}
	}
	// The ecrecover precompile's own checks (go-ethereum core/vm), then recovery.
	if !crypto.ValidateSignatureValues(parity, r, sv, false) {
		return common.Address{}, ErrInvalidSignature
	}
	sig := make([]byte, 65)
	copy(sig, s[:32])
	copy(sig[32:64], vs[:])
	sig[64] = parity
	pub, err := crypto.Ecrecover(digest[:], sig)
	if err != nil {
		return common.Address{}, ErrInvalidSignature
	}
	return common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]), nil
}
