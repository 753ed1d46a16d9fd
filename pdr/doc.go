// Package pdr implements AFR's Policy Decision Records (docs/DESIGN.md §4.7): the EIP-712 records
// that authorise one on-chain call through a PaceSmartAccount (contracts/src/PaceSmartAccount.sol),
// the scoped delegations that let another key sign them, and a small policy engine that turns an
// agent's intent into a decision with reasons and a signed PDR.
//
// Hashing follows EIP-712 exactly as the contract does (domain name "PaceSmartAccount", version
// "1", the chain id and the account address), and Verify applies the contract's checks in the
// contract's order, so that Go and Solidity accept and reject the same records with the same
// error. The differential tests in this package run the contract in go-ethereum's simulated
// chain on random inputs to prove it.
//
// A policy-signed PDR (SignPDR; execute, executeWithApprovals, the compact form, executeBatch)
// and a delegated one (SignDelegatedPDR; executeDelegated) carry the same fields but are two
// EIP-712 types, PDRType and DelegatedPDRType (Digest, DelegatedDigest), so a signature for one
// never verifies as the other; SignedPDR.Digest picks by whether a delegation chain is attached.
//
// SignedPDR.Calldata packs the contract's ABI entry points; CompactCalldata packs the same
// execution in the contract's compact, unpadded encoding (executeCompact_dFki0, ~2,000 gas
// cheaper with an approver), and ParseCompactCalldata decodes it strictly.
//
// Signatures are ERC-2098 compact secp256k1 signatures (r, yParity<<255 | s) with low s, the
// form the contract takes; a malleable twin of a valid signature cannot be written in it.
//
// Decisions are format.Decision, the type of the log's policy events. The contract numbers them
// otherwise (deny 0, allow 1): ChainDecision converts where a PDR is hashed or encoded for the
// chain (EIP-712, ABI and compact calldata, a PDR's CBOR), and DecisionFromChain back.
//
// Records encode to JSON (snake_case, hex and decimal strings) and to deterministic CBOR
// (RFC 8949 §4.2 core deterministic encoding, fxamacker/cbor/v2, through format.Marshal);
// DecodeCBOR rejects any input that is not exactly the canonical encoding of the value it
// decodes to.
//
// # Security
//
// A PDR authorises a call only together with on-chain state: the nonce, the policy signer, the
// approvers, revocations and delegation spending live in the account. Verify takes a snapshot of
// that state (State); its answer is only as current as the snapshot.
//
// Every value is a uint256. A call value, PDR value, delegation cap, batch total, spent total or
// policy amount that is negative or longer than 256 bits is refused (ErrValueRange) wherever it
// enters, never mapped to another value: hashed as |v| it once let −10 ETH pass a 1 ETH cap while
// the signature authorised +10 ETH. Digest and BatchDataHash panic on such a value.
package pdr
