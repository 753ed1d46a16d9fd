package evm

// Building go-ethereum messages and synthetic transaction hashes.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// message converts a CallMsg. The nonce is checked against the sender's
// account only when checkNonce is set.
func (e *Env) message(msg ethereum.CallMsg, b Block, nonce uint64, checkNonce bool) (*core.Message, error) {
	gas := msg.Gas
	if gas == 0 {
		gas = b.GasLimit
	}
	// One allocation for the message and its values.
	v := new(struct {
		m                                        core.Message
		value, price, feeCap, tipCap, blobFeeCap uint256.Int
	})
	toU256 := func(dst *uint256.Int, name string, x *big.Int) error {
		if x == nil {
			return nil
		}
		if x.Sign() < 0 || dst.SetFromBig(x) {
			return fmt.Errorf("evm: %s out of range", name)
		}
		return nil
	}
	if err := toU256(&v.value, "value", msg.Value); err != nil {
		return nil, err
	}
	price, feeCap, tipCap := &v.price, &v.feeCap, &v.tipCap
	if msg.GasPrice != nil && (msg.GasFeeCap != nil || msg.GasTipCap != nil) {
		return nil, errors.New("evm: both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	if msg.GasPrice != nil {
		if err := toU256(price, "gas price", msg.GasPrice); err != nil {
			return nil, err
		}
		feeCap, tipCap = price, price
	} else {
		if err := toU256(feeCap, "max fee per gas", msg.GasFeeCap); err != nil {
			return nil, err
		}
		if err := toU256(tipCap, "max priority fee per gas", msg.GasTipCap); err != nil {
			return nil, err
		}
		if !feeCap.IsZero() || !tipCap.IsZero() {
			var base uint256.Int
			if b.BaseFee != nil {
				base.SetFromBig(b.BaseFee)
			}
			price.Add(tipCap, &base)
			if price.Gt(feeCap) {
				price.Set(feeCap)
			}
		}
	}
	// Blob fields belong to blob transactions only: go-ethereum refuses a
	// message with a blob fee cap (even a zero one) before Cancun.
	var blobFeeCap *uint256.Int
	if msg.BlobGasFeeCap != nil || len(msg.BlobHashes) > 0 {
		if err := toU256(&v.blobFeeCap, "max fee per blob gas", msg.BlobGasFeeCap); err != nil {
			return nil, err
		}
		blobFeeCap = &v.blobFeeCap
	}
	v.m = core.Message{
		To:                    msg.To,
		From:                  msg.From,
		Nonce:                 nonce,
		Value:                 &v.value,
		GasLimit:              gas,
		GasPrice:              price,
		GasFeeCap:             feeCap,
		GasTipCap:             tipCap,
		Data:                  msg.Data,
		AccessList:            msg.AccessList,
		BlobGasFeeCap:         blobFeeCap,
		BlobHashes:            msg.BlobHashes,
		SetCodeAuthorizations: msg.AuthorizationList,
	}
	m := &v.m
	if !checkNonce {
		m.SkipNonceCheck()
	}
	m.SkipEOACheck().SkipGasLimitCapCheck().SkipExecutionGasCapCheck()
	return m, nil
}

// txHash is the synthetic hash of the e.txs-th transaction or call.
func (e *Env) txHash() common.Hash {
	var buf [len("afr/evm tx") + 8]byte
	n := copy(buf[:], "afr/evm tx")
	binary.BigEndian.PutUint64(buf[n:], e.txs)
	return crypto.Keccak256Hash(buf[:])
}
