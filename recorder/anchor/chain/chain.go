// Package chain gives AFR's anchorer, deployer, demo and verifier one view of
// an EVM chain, whatever runs it: go-ethereum's in-process simulated chain
// (Embedded, the default), an anvil process AFR starts (StartAnvil), or any
// JSON-RPC endpoint (Dial). All three are used through the go-ethereum client
// interfaces collected in Client, so nothing above this package knows which
// backend it talks to.
//
// The embedded chain lives in the process that created it: it is gone when
// the process exits. Separate afr invocations share a chain only through
// JSON-RPC: "afr chain" serves an embedded chain (or runs anvil) on a
// loopback port until interrupted.
package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// Client is what AFR needs from a chain. *ethclient.Client and the
// simulated backend's client implement it.
type Client interface {
	ethereum.ChainIDReader
	ethereum.BlockNumberReader
	ethereum.ChainReader
	ethereum.ChainStateReader
	ethereum.ContractCaller
	ethereum.GasEstimator
	ethereum.GasPricer
	ethereum.GasPricer1559
	ethereum.LogFilterer
	ethereum.PendingStateReader
	ethereum.TransactionReader
	ethereum.TransactionSender
}

// Backend is a running chain with funded keys.
type Backend interface {
	// Name is "embedded", "anvil" or "rpc".
	Name() string
	Client() Client
	// URL is the JSON-RPC endpoint, or "" for an embedded chain that is not
	// served over HTTP.
	URL() string
	// Keys are funded keys (dev accounts); none for a plain RPC endpoint.
	Keys() []*ecdsa.PrivateKey
	Close() error
}

// Dial connects to a JSON-RPC endpoint. Keys come from key files.
func Dial(ctx context.Context, url string, keys ...*ecdsa.PrivateKey) (Backend, error) {
	c, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("chain: dial %s: %w", url, err)
	}
	return &rpcBackend{c: c, url: url, keys: keys}, nil
}

type rpcBackend struct {
	c    *ethclient.Client
	url  string
	keys []*ecdsa.PrivateKey
}

func (b *rpcBackend) Name() string              { return "rpc" }
func (b *rpcBackend) Client() Client            { return b.c }
func (b *rpcBackend) URL() string               { return b.url }
func (b *rpcBackend) Keys() []*ecdsa.PrivateKey { return b.keys }
func (b *rpcBackend) Close() error              { b.c.Close(); return nil }

// ReadKey reads a private key file: 64 hex digits, optionally 0x-prefixed,
// surrounding white space ignored.
func ReadKey(path string) (*ecdsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := strings.TrimPrefix(strings.TrimSpace(string(b)), "0x")
	k, err := crypto.HexToECDSA(s)
	if err != nil {
		return nil, fmt.Errorf("chain: key file %s: %w", path, err)
	}
	return k, nil
}

// WriteKey writes k as a key file (mode 0600).
func WriteKey(path string, k *ecdsa.PrivateKey) error {
	return os.WriteFile(path, []byte(fmt.Sprintf("0x%x\n", crypto.FromECDSA(k))), 0o600)
}

// Address returns the address of k.
func Address(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// Fees returns EIP-1559 fee caps for a new transaction: the suggested tip and
// twice the latest base fee plus the tip.
func Fees(ctx context.Context, c Client) (tip, feeCap *big.Int, err error) {
	tip, err = c.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, nil, err
	}
	if tip.Sign() == 0 {
		tip = big.NewInt(1)
	}
	h, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	base := h.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	feeCap = new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	return tip, feeCap, nil
}

// Transact signs and sends a transaction from key (to nil: a contract
// creation) with estimated gas and current fees, and waits for its receipt.
// A reverted transaction is returned with its receipt and an error.
func Transact(ctx context.Context, c Client, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error) {
	tx, err := SignTx(ctx, c, key, to, value, data)
	if err != nil {
		return nil, err
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("chain: send: %w", err)
	}
	rc, err := WaitMined(ctx, c, tx.Hash())
	if err != nil {
		return nil, err
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return rc, fmt.Errorf("chain: transaction %s reverted", tx.Hash())
	}
	return rc, nil
}

// SignTx builds and signs a dynamic-fee transaction with the pending nonce,
// estimated gas (+20%) and current fees. Estimation runs the call, so a call
// that would revert fails here with the node's revert error (see RevertData).
func SignTx(ctx context.Context, c Client, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	from := Address(key)
	if value == nil {
		value = new(big.Int)
	}
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, err
	}
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Value: value, Data: data})
	if err != nil {
		return nil, err
	}
	tip, feeCap, err := Fees(ctx, c)
	if err != nil {
		return nil, err
	}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas + gas/5, To: to, Value: value, Data: data})
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), key)
}

// WaitMined polls for a transaction's receipt until it is mined or ctx ends.
func WaitMined(ctx context.Context, c Client, hash common.Hash) (*types.Receipt, error) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		rc, err := c.TransactionReceipt(ctx, hash)
		if err == nil && rc != nil {
			return rc, nil
		}
		if err != nil && !errors.Is(err, ethereum.NotFound) && ctx.Err() == nil {
			// transient: keep polling
			_ = err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("chain: waiting for %s: %w", hash, ctx.Err())
		case <-t.C:
		}
	}
}

// RevertData returns the revert data carried by an error from eth_call or
// eth_estimateGas, if any.
func RevertData(err error) ([]byte, bool) {
	var de interface{ ErrorData() any }
	if !errors.As(err, &de) {
		return nil, false
	}
	switch d := de.ErrorData().(type) {
	case string:
		b, err := hexDecode(d)
		return b, err == nil && len(b) >= 4
	case []byte:
		return d, len(d) >= 4
	}
	return nil, false
}

func hexDecode(s string) ([]byte, error) { return hexutil.Decode(s) }
