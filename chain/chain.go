// Package chain is what AFR does with an EVM chain through go-ethereum's
// client interfaces (Client), whatever runs it: fees, signing, sending and
// waiting for transactions, paged log queries (FilterLogs), the one reader
// of EpochAnchor's Anchored events (FilterAnchored), and deployment of AFR's
// contracts. It starts no chain: package chain/backend runs them (the
// embedded simulated chain, anvil, or a JSON-RPC endpoint).
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
	"github.com/ethereum/go-ethereum/rpc"
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

// NewKeyFile creates a random secp256k1 key and writes it to path in the
// format ReadKey reads, mode 0600. It never replaces a file: an existing
// path is an error wrapping fs.ErrExist.
func NewKeyFile(path string) (*ecdsa.PrivateKey, error) {
	k, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = fmt.Fprintf(f, "0x%x\n", crypto.FromECDSA(k))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return k, nil
}

// Address returns the address of k.
func Address(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// FeeChooser is a Client that chooses the fees of its transactions itself;
// Fees asks it instead of the node. (afrspec's World pins its fees so that
// its transactions hash alike on every backend.)
type FeeChooser interface {
	ChooseFees(ctx context.Context) (tip, feeCap *big.Int, err error)
}

// Fees returns EIP-1559 fee caps for a new transaction: the suggested tip and
// twice the latest base fee plus the tip, or a FeeChooser's choice.
func Fees(ctx context.Context, c Client) (tip, feeCap *big.Int, err error) {
	if fc, ok := c.(FeeChooser); ok {
		return fc.ChooseFees(ctx)
	}
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

// WaitMined polls for a transaction's receipt until it is mined, its block
// is the node's latest or older and still the chain's block at that height,
// or ctx ends. A node stores a block's
// receipts before it makes the block its head: returning the receipt alone
// would let the caller's next call at "latest" (a nonce, an eth_call) still
// see the state before the transaction. The first polls follow each other
// closely (a local chain mines at once) and the interval doubles up to
// 200ms (a public chain mines every few seconds). Errors other than "not
// found" are taken as transient.
func WaitMined(ctx context.Context, c Client, hash common.Hash) (*types.Receipt, error) {
	wait := time.Millisecond
	var mined *types.Receipt
	for {
		if mined == nil {
			if rc, err := c.TransactionReceipt(ctx, hash); err == nil && rc != nil {
				mined = rc
			}
		}
		if mined != nil && mined.BlockNumber != nil {
			head, err := c.BlockNumber(ctx)
			if err == nil && head >= mined.BlockNumber.Uint64() {
				// Still the chain's block at that height? A reorg (or a
				// test chain's revert) in between drops the receipt.
				if h, err := c.HeaderByNumber(ctx, mined.BlockNumber); err == nil && h.Hash() == mined.BlockHash {
					return mined, nil
				}
				mined = nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("chain: waiting for %s: %w", hash, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// RevertData returns the revert data carried by an error from eth_call or
// eth_estimateGas, if it holds at least a selector's four bytes.
func RevertData(err error) ([]byte, bool) {
	data, ok := errorData(err)
	return data, ok && len(data) >= 4
}

// codeReverted is the JSON-RPC error code with which go-ethereum and anvil
// answer eth_call and eth_estimateGas for a call that reverts; the error's
// data is the revert data ("0x" when there is none).
const codeReverted = 3

// Reverted reports whether err from eth_call or eth_estimateGas says the
// call reverted: a JSON-RPC error with code 3, or one carrying revert data
// with a selector (RevertData). It returns the revert data the error
// carries, which may be empty or shorter than a selector.
func Reverted(err error) ([]byte, bool) {
	data, ok := errorData(err)
	var re rpc.Error
	if errors.As(err, &re) && re.ErrorCode() == codeReverted {
		return data, true
	}
	return data, ok && len(data) >= 4
}

// errorData returns the data of a JSON-RPC error (rpc.DataError) as bytes:
// a hex string, as nodes send it, or bytes.
func errorData(err error) ([]byte, bool) {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil, false
	}
	switch d := de.ErrorData().(type) {
	case string:
		b, err := hexutil.Decode(d)
		return b, err == nil
	case []byte:
		return d, true
	}
	return nil, false
}
