package pdr

import (
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ERC-1271 signatures of a PaceSmartAccount are bound to the account (ERC-7739 nested EIP-712,
// https://eips.ethereum.org/EIPS/eip-7739): the owner never signs the hash an application asks
// the account to validate, which would make the signature valid on every account the same key
// owns (app digests such as Permit2's carry no owner field), but a digest that contains the
// account's EIP-712 domain (Domain: chain id and account address). The contract's
// isValidSignature accepts two forms, both 65-byte r‖s‖v owner signatures with low s:
//
//   - PersonalSign, for any hash: sign PersonalSignDigest(d, hash) and pass the signature as is
//     (SignERC1271).
//   - TypedDataSign, for the EIP-712 digest of an application's struct, TypedDataHash(appSeparator,
//     contents): sign TypedDataSignDigest, which a wallet can show as the application's struct
//     nested in the account's domain, and pass EncodeTypedDataSig's nested encoding
//     (SignERC1271TypedData).

// PersonalSignType is ERC-7739's EIP-712 type for a hash signed for one account.
const PersonalSignType = "PersonalSign(bytes prefixed)"

var (
	// PersonalSignTypeHash is keccak256(PersonalSignType).
	PersonalSignTypeHash = crypto.Keccak256Hash([]byte(PersonalSignType))

	// ERC7739Probe is ERC-7739's detection hash: isValidSignature(ERC7739Probe, empty signature)
	// returns ERC7739Supported on an account that takes nested signatures.
	ERC7739Probe = common.HexToHash("0x7739773977397739773977397739773977397739773977397739773977397739")
)

// ERC-1271 return values of isValidSignature.
var (
	// ERC1271Magic is returned for a valid signature: the selector of isValidSignature(bytes32,bytes).
	ERC1271Magic = [4]byte{0x16, 0x26, 0xba, 0x7e}
	// ERC1271Invalid is returned for any other signature; isValidSignature never reverts for one.
	ERC1271Invalid = [4]byte{0xff, 0xff, 0xff, 0xff}
	// ERC7739Supported is the answer to ERC7739Probe.
	ERC7739Supported = [4]byte{0x77, 0x39, 0x00, 0x01}
)

// ErrContentsDescr reports an ERC-7739 contents descriptor that the contract would refuse.
var ErrContentsDescr = errors.New("pdr: invalid ERC-7739 contents descriptor")

// typedDataSignTail follows the contents type's name in TypedDataSign's type string.
const typedDataSignTail = " contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)"

// PersonalSignDigest returns the digest the account's owner signs for isValidSignature(hash, …)
// on the account d names, and on no other account or chain:
//
//	keccak256("\x19\x01" ‖ d.Separator() ‖ keccak256(PersonalSignTypeHash ‖ hash))
func PersonalSignDigest(d Domain, hash common.Hash) common.Hash {
	return d.typedDigest(keccakWords(PersonalSignTypeHash, hash))
}

// SignERC1271 signs hash for the account d names with its owner's key (PersonalSign form) and
// returns the 65-byte r‖s‖v signature that isValidSignature(hash, signature) accepts.
func SignERC1271(owner *ecdsa.PrivateKey, d Domain, hash common.Hash) ([]byte, error) {
	sig, err := Sign(owner, PersonalSignDigest(d, hash))
	if err != nil {
		return nil, err
	}
	return sig.RSV(), nil
}

// TypedDataHash returns an EIP-712 application's digest of its struct, keccak256("\x19\x01" ‖
// appSeparator ‖ contents), contents being the struct's hashStruct: the hash the application
// passes to isValidSignature.
func TypedDataHash(appSeparator, contents common.Hash) common.Hash {
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, appSeparator[:], contents[:])
}

// ParseContentsDescr splits an ERC-7739 contents descriptor into the contents type's name and
// its EIP-712 type string, as the contract (OpenZeppelin's ERC7739Utils.decodeContentsDescr)
// does. In the implicit mode the descriptor is the type string, "Name(…)…", and ends with ')';
// in the explicit mode it is the type string followed by the name, "…)Name". The name must be
// non-empty and free of NUL, space, ',', '(' and ')'; otherwise it returns ErrContentsDescr.
func ParseContentsDescr(descr string) (name, typ string, err error) {
	const forbidden = "\x00 ,()"
	switch {
	case descr == "":
	case strings.HasSuffix(descr, ")"):
		i := strings.IndexAny(descr, forbidden)
		if i > 0 && descr[i] == '(' {
			return descr[:i], descr, nil
		}
	default:
		i := strings.LastIndexAny(descr, forbidden)
		if i >= 0 && descr[i] == ')' {
			return descr[i+1:], descr[:i+1], nil
		}
	}
	return "", "", fmt.Errorf("%w: %q", ErrContentsDescr, descr)
}

// TypedDataSignDigest returns the digest the account's owner signs for isValidSignature(
// TypedDataHash(appSeparator, contents), …) on the account d names: the application's digest of
// ERC-7739's TypedDataSign struct, which nests contents in the account's domain,
//
//	keccak256("\x19\x01" ‖ appSeparator ‖ keccak256(typeHash ‖ contents ‖ keccak256(DomainName) ‖
//	    keccak256(DomainVersion) ‖ chainId ‖ account ‖ salt 0))
//
// with typeHash = keccak256("TypedDataSign(" ‖ name ‖ " contents,string name,string version,
// uint256 chainId,address verifyingContract,bytes32 salt)" ‖ type) for the name and type of
// ParseContentsDescr(contentsDescr).
func TypedDataSignDigest(d Domain, appSeparator, contents common.Hash, contentsDescr string) (common.Hash, error) {
	name, typ, err := ParseContentsDescr(contentsDescr)
	if err != nil {
		return common.Hash{}, err
	}
	typeHash := crypto.Keccak256Hash([]byte("TypedDataSign(" + name + typedDataSignTail + typ))
	structHash := keccakWords(typeHash, contents, nameHash, versionHash, u64(d.ChainID), addr(d.Account), common.Hash{})
	return TypedDataHash(appSeparator, structHash), nil
}

// EncodeTypedDataSig returns the nested signature isValidSignature takes for the TypedDataSign
// form: sig ‖ appSeparator ‖ contents ‖ contentsDescr ‖ uint16(len(contentsDescr)), sig being
// the owner's 65-byte signature of TypedDataSignDigest. It refuses a descriptor that
// ParseContentsDescr refuses or that is longer than 65,535 bytes.
func EncodeTypedDataSig(sig []byte, appSeparator, contents common.Hash, contentsDescr string) ([]byte, error) {
	if _, _, err := ParseContentsDescr(contentsDescr); err != nil {
		return nil, err
	}
	if len(contentsDescr) > 0xffff {
		return nil, fmt.Errorf("%w: length %d, want at most 65535", ErrContentsDescr, len(contentsDescr))
	}
	out := make([]byte, 0, len(sig)+64+len(contentsDescr)+2)
	out = append(out, sig...)
	out = append(out, appSeparator[:]...)
	out = append(out, contents[:]...)
	out = append(out, contentsDescr...)
	return binary.BigEndian.AppendUint16(out, uint16(len(contentsDescr))), nil
}

// SignERC1271TypedData signs an application's struct (its domain separator, hashStruct and
// ERC-7739 contents descriptor) for the account d names with its owner's key, and returns the
// nested signature that isValidSignature(TypedDataHash(appSeparator, contents), signature)
// accepts.
func SignERC1271TypedData(owner *ecdsa.PrivateKey, d Domain, appSeparator, contents common.Hash, contentsDescr string) ([]byte, error) {
	digest, err := TypedDataSignDigest(d, appSeparator, contents, contentsDescr)
	if err != nil {
		return nil, err
	}
	sig, err := Sign(owner, digest)
	if err != nil {
		return nil, err
	}
	return EncodeTypedDataSig(sig.RSV(), appSeparator, contents, contentsDescr)
}
