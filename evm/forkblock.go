package evm

// A Fork's pinned block: parsing block references, block headers and the
// hashes of earlier blocks.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// parseBlock parses a pinned block reference.
func parseBlock(s string) (number uint64, hash common.Hash, isHash bool, err error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "latest", "pending", "safe", "finalized", "earliest":
		return 0, common.Hash{}, false, fmt.Errorf("%w: %q", ErrUnpinnedBlock, s)
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if len(s) == 66 {
			b, err := hexutil.Decode(s)
			if err != nil {
				return 0, common.Hash{}, false, fmt.Errorf("evm: fork block %q: %w", s, err)
			}
			return 0, common.BytesToHash(b), true, nil
		}
		n, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, common.Hash{}, false, fmt.Errorf("evm: fork block %q is not a number or a 32-byte hash", s)
		}
		return n, common.Hash{}, false, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, common.Hash{}, false, fmt.Errorf("evm: fork block %q is not a number or a 32-byte hash", s)
	}
	return n, common.Hash{}, false, nil
}

// PinLatest asks url for its latest block number and returns it as a Block
// string for ForkConfig: the explicit way to fork "now".
func PinLatest(ctx context.Context, url string) (string, error) {
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		return "", fmt.Errorf("evm: dial %s: %w", url, err)
	}
	defer c.Close()
	var n hexutil.Uint64
	if err := c.CallContext(ctx, &n, "eth_blockNumber"); err != nil {
		return "", &RPCError{URL: url, Method: "eth_blockNumber", Attempts: 1, Err: err}
	}
	return strconv.FormatUint(uint64(n), 10), nil
}

// rpcHeader is the subset of a JSON-RPC block the fork uses.
type rpcHeader struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
	StateRoot  common.Hash    `json:"stateRoot"`
	Timestamp  hexutil.Uint64 `json:"timestamp"`
	GasLimit   hexutil.Uint64 `json:"gasLimit"`
	BaseFee    *hexutil.Big   `json:"baseFeePerGas"`
	Miner      common.Address `json:"miner"`
	MixHash    common.Hash    `json:"mixHash"`
	Difficulty *hexutil.Big   `json:"difficulty"`
	// ExcessBlobGas is present from Cancun on.
	ExcessBlobGas *hexutil.Uint64 `json:"excessBlobGas"`
}

// rulesQuery asks a fork endpoint for its rules: debug_chainConfig (nodes
// that serve it, AFR's embedded chain among them) and anvil_nodeInfo (anvil,
// which names its hardfork). Either may be unknown to the endpoint; an error
// answer is no answer.
type rulesQuery struct {
	config json.RawMessage
	node   *struct {
		HardFork string `json:"hardFork"`
	}
}

func (q *rulesQuery) elems() []rpc.BatchElem {
	return []rpc.BatchElem{
		{Method: "debug_chainConfig", Result: &q.config},
		{Method: "anvil_nodeInfo", Result: &q.node},
	}
}

// answer returns the rules the endpoint gave and where they came from
// (debug_chainConfig first), or a *UnknownChainError if it gave none.
func (q *rulesQuery) answer(chainID uint64) (*params.ChainConfig, string, error) {
	if len(q.config) > 0 && string(q.config) != "null" {
		c, err := LoadChainConfig(q.config)
		if err != nil {
			return nil, "", fmt.Errorf("evm: fork endpoint's debug_chainConfig answer: %w", err)
		}
		return c, "debug_chainConfig", nil
	}
	if q.node != nil && q.node.HardFork != "" {
		c, err := HardforkConfig(q.node.HardFork, chainID)
		if err != nil {
			return nil, "", fmt.Errorf("%v (the fork endpoint's anvil_nodeInfo hardFork): %w", err, &UnknownChainError{ChainID: chainID})
		}
		return c, "anvil_nodeInfo hardfork " + q.node.HardFork, nil
	}
	return nil, "", &UnknownChainError{ChainID: chainID}
}

func (f *Fork) blockArg() hexutil.Uint64 { return hexutil.Uint64(f.header.Number) }

// blockHash returns the hash of block n (n <= the pinned block).
func (f *Fork) blockHash(n uint64) common.Hash {
	if n == f.header.Number {
		return f.header.Hash
	}
	if n+1 == f.header.Number {
		return f.header.ParentHash
	}
	f.mu.Lock()
	h, ok := f.hashes[n]
	f.mu.Unlock()
	if ok {
		f.hits.Add(1)
		return h
	}
	if err := f.load(f.ctx, []fetchKey{{kind: kindBlockHash, num: n}}); err != nil {
		f.noteSticky(err)
		return common.Hash{}
	}
	f.mu.Lock()
	h = f.hashes[n]
	f.mu.Unlock()
	return h
}
