package backend

// The in-process chain's JSON-RPC: go-ethereum's rpc.Server with small
// services over the chain's client, answering the eth_*, net_*, web3_* and
// debug_chainConfig calls that ethclient, cast, tracesim and package evm's
// forks make, in the JSON a go-ethereum node answers with.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/evm"
)

// ClientVersion is what the in-process chain answers web3_clientVersion.
const ClientVersion = "afr-inproc"

// Attacher is a Backend that answers JSON-RPC in the process, without HTTP:
// the in-process chain.
type Attacher interface {
	// Attach returns a client of the chain's JSON-RPC server connected in
	// the process (rpc.DialInProc). It is the chain's: closed with it, and
	// not to be closed by the caller.
	Attach() (*rpc.Client, error)
}

// rpcServer is the in-process chain's JSON-RPC server, its in-process
// client and, once ServeRPC was called, its HTTP listener.
type rpcServer struct {
	srv    *rpc.Server
	client *rpc.Client
	http   *http.Server
	url    string
}

// server returns the chain's JSON-RPC server, starting it on first use.
// c.rpcMu is held; c.mu is not (the services take it).
func (c *InProcess) server() (*rpcServer, error) {
	if c.rpc != nil {
		return c.rpc, nil
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	srv := rpc.NewServer()
	for name, svc := range map[string]any{
		"eth":   &ethAPI{c: c, cl: inprocClient{c}},
		"net":   netAPI{id: c.config.ChainID.String()},
		"web3":  web3API{},
		"debug": ChainConfigAPI{Config: c.config},
	} {
		if err := srv.RegisterName(name, svc); err != nil {
			srv.Stop()
			return nil, fmt.Errorf("chain: in-process JSON-RPC: %w", err)
		}
	}
	c.rpc = &rpcServer{srv: srv, client: rpc.DialInProc(srv)}
	return c.rpc, nil
}

// Attach implements Attacher.
func (c *InProcess) Attach() (*rpc.Client, error) {
	c.rpcMu.Lock()
	defer c.rpcMu.Unlock()
	s, err := c.server()
	if err != nil {
		return nil, err
	}
	return s.client, nil
}

// ServeRPC serves the chain's JSON-RPC over HTTP on a free port of
// 127.0.0.1 (only loopback) and returns its URL, which URL then returns.
// Calling it again returns the same URL. The server stops when the chain
// is closed.
func (c *InProcess) ServeRPC() (string, error) {
	c.rpcMu.Lock()
	defer c.rpcMu.Unlock()
	s, err := c.server()
	if err != nil {
		return "", err
	}
	if s.url != "" {
		return s.url, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("chain: serve in-process JSON-RPC: %w", err)
	}
	s.http = &http.Server{Handler: s.srv}
	go func() { _ = s.http.Serve(l) }()
	s.url = "http://" + l.Addr().String()
	return s.url, nil
}

// closeRPC stops the HTTP listener, the in-process client and the server.
func (c *InProcess) closeRPC() {
	c.rpcMu.Lock()
	defer c.rpcMu.Unlock()
	if c.rpc == nil {
		return
	}
	if c.rpc.http != nil {
		_ = c.rpc.http.Close()
	}
	c.rpc.client.Close()
	c.rpc.srv.Stop()
	c.rpc = nil
}

// netAPI serves net_version: the chain id in decimal, as go-ethereum's dev
// chain answers it.
type netAPI struct{ id string }

// Version is net_version.
func (a netAPI) Version() string { return a.id }

// web3API serves web3_clientVersion.
type web3API struct{}

// ClientVersion is web3_clientVersion.
func (web3API) ClientVersion() string { return ClientVersion }

// ethAPI serves the eth namespace. Its answers are go-ethereum's: the same
// JSON fields (ethapi's RPCMarshalBlock, RPCTransaction and
// MarshalReceipt, which go-ethereum keeps internal), null for an unknown
// block, transaction or receipt, and a revert as code 3 with its data.
type ethAPI struct {
	c  *InProcess
	cl inprocClient
}

// errHeaderNotFound is go-ethereum's answer for state at an unknown block.
var errHeaderNotFound = errors.New("header not found")

// resolve returns the number of the block b names (the head when nil). An
// unknown block is errHeaderNotFound.
func (api *ethAPI) resolve(b *rpc.BlockNumberOrHash) (*big.Int, error) {
	if b == nil {
		return nil, nil
	}
	if h, ok := b.Hash(); ok {
		c := api.c
		c.mu.Lock()
		defer c.mu.Unlock()
		blk, err := c.blockByHash(h)
		if errors.Is(err, ethereum.NotFound) {
			return nil, errHeaderNotFound
		}
		if err != nil {
			return nil, err
		}
		return blk.block.Number(), nil
	}
	n, _ := b.Number()
	return big.NewInt(n.Int64()), nil
}

// atState resolves b and runs f on the block number, mapping an unknown
// block to go-ethereum's error.
func atState[T any](api *ethAPI, b *rpc.BlockNumberOrHash, f func(n *big.Int) (T, error)) (T, error) {
	var zero T
	n, err := api.resolve(b)
	if err != nil {
		return zero, err
	}
	v, err := f(n)
	if errors.Is(err, ethereum.NotFound) {
		return zero, errHeaderNotFound
	}
	return v, err
}

// ChainId is eth_chainId.
func (api *ethAPI) ChainId() *hexutil.Big { return (*hexutil.Big)(api.c.config.ChainID) }

// BlockNumber is eth_blockNumber.
func (api *ethAPI) BlockNumber(ctx context.Context) (hexutil.Uint64, error) {
	n, err := api.cl.BlockNumber(ctx)
	return hexutil.Uint64(n), err
}

// GetBalance is eth_getBalance.
func (api *ethAPI) GetBalance(ctx context.Context, a common.Address, b rpc.BlockNumberOrHash) (*hexutil.Big, error) {
	return atState(api, &b, func(n *big.Int) (*hexutil.Big, error) {
		v, err := api.cl.BalanceAt(ctx, a, n)
		return (*hexutil.Big)(v), err
	})
}

// GetCode is eth_getCode.
func (api *ethAPI) GetCode(ctx context.Context, a common.Address, b rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	return atState(api, &b, func(n *big.Int) (hexutil.Bytes, error) { return api.cl.CodeAt(ctx, a, n) })
}

// GetStorageAt is eth_getStorageAt; the slot is a hex quantity of at most
// 32 bytes, as go-ethereum accepts it.
func (api *ethAPI) GetStorageAt(ctx context.Context, a common.Address, slot string, b rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	key, err := decodeSlot(slot)
	if err != nil {
		return nil, err
	}
	return atState(api, &b, func(n *big.Int) (hexutil.Bytes, error) { return api.cl.StorageAt(ctx, a, key, n) })
}

// decodeSlot parses a storage slot as go-ethereum's eth_getStorageAt does:
// 0x-prefixed (or not) hex of at most 64 digits, left-padded.
func decodeSlot(s string) (common.Hash, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s)%2 == 1 {
		s = "0" + s
	}
	if len(s) > 64 {
		return common.Hash{}, fmt.Errorf("hex string too long, want at most 32 bytes")
	}
	b, err := hexutil.Decode("0x" + s)
	if err != nil && s != "" {
		return common.Hash{}, fmt.Errorf("hex string invalid")
	}
	return common.BytesToHash(b), nil
}

// GetTransactionCount is eth_getTransactionCount.
func (api *ethAPI) GetTransactionCount(ctx context.Context, a common.Address, b rpc.BlockNumberOrHash) (*hexutil.Uint64, error) {
	return atState(api, &b, func(n *big.Int) (*hexutil.Uint64, error) {
		v, err := api.cl.NonceAt(ctx, a, n)
		return (*hexutil.Uint64)(&v), err
	})
}

// callArgs are the arguments of eth_call and eth_estimateGas (go-ethereum's
// TransactionArgs, the fields a call uses).
type callArgs struct {
	From                 *common.Address   `json:"from"`
	To                   *common.Address   `json:"to"`
	Gas                  *hexutil.Uint64   `json:"gas"`
	GasPrice             *hexutil.Big      `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big      `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big      `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big      `json:"value"`
	Nonce                *hexutil.Uint64   `json:"nonce"`
	Data                 *hexutil.Bytes    `json:"data"`
	Input                *hexutil.Bytes    `json:"input"`
	AccessList           *types.AccessList `json:"accessList"`
	ChainID              *hexutil.Big      `json:"chainId"`
}

// msg converts the arguments to a call message, refusing what go-ethereum
// refuses.
func (a *callArgs) msg(chainID *big.Int) (ethereum.CallMsg, error) {
	var m ethereum.CallMsg
	if a.Data != nil && a.Input != nil && !slices.Equal(*a.Data, *a.Input) {
		return m, errors.New(`both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`)
	}
	if a.ChainID != nil && a.ChainID.ToInt().Cmp(chainID) != 0 {
		return m, fmt.Errorf("chainId does not match node's (have=%v, want=%v)", a.ChainID.ToInt(), chainID)
	}
	if a.From != nil {
		m.From = *a.From
	}
	m.To = a.To
	if a.Gas != nil {
		m.Gas = uint64(*a.Gas)
	}
	m.GasPrice, m.GasFeeCap, m.GasTipCap, m.Value = a.GasPrice.ToInt(), a.MaxFeePerGas.ToInt(), a.MaxPriorityFeePerGas.ToInt(), a.Value.ToInt()
	switch {
	case a.Input != nil:
		m.Data = *a.Input
	case a.Data != nil:
		m.Data = *a.Data
	}
	if a.AccessList != nil {
		m.AccessList = *a.AccessList
	}
	return m, nil
}

// Call is eth_call at block b (default: the head). A revert is an error
// with code 3 and the revert data, as go-ethereum answers it.
func (api *ethAPI) Call(ctx context.Context, args callArgs, b *rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	m, err := args.msg(api.c.config.ChainID)
	if err != nil {
		return nil, err
	}
	return atState(api, b, func(n *big.Int) (hexutil.Bytes, error) { return api.cl.CallContract(ctx, m, n) })
}

// EstimateGas is eth_estimateGas at block b (default: the head).
func (api *ethAPI) EstimateGas(ctx context.Context, args callArgs, b *rpc.BlockNumberOrHash) (hexutil.Uint64, error) {
	m, err := args.msg(api.c.config.ChainID)
	if err != nil {
		return 0, err
	}
	return atState(api, b, func(n *big.Int) (hexutil.Uint64, error) {
		var gas uint64
		err := api.c.state(n, func(e *evm.Env) error {
			var err error
			gas, err = e.EstimateGas(ctx, m)
			return execErr(err)
		})
		return hexutil.Uint64(gas), err
	})
}

// GasPrice is eth_gasPrice.
func (api *ethAPI) GasPrice(ctx context.Context) (*hexutil.Big, error) {
	p, err := api.cl.SuggestGasPrice(ctx)
	return (*hexutil.Big)(p), err
}

// MaxPriorityFeePerGas is eth_maxPriorityFeePerGas.
func (api *ethAPI) MaxPriorityFeePerGas(ctx context.Context) (*hexutil.Big, error) {
	p, err := api.cl.SuggestGasTipCap(ctx)
	return (*hexutil.Big)(p), err
}

// feeHistory is eth_feeHistory's answer (go-ethereum's feeHistoryResult).
type feeHistory struct {
	OldestBlock      *hexutil.Big     `json:"oldestBlock"`
	Reward           [][]*hexutil.Big `json:"reward,omitempty"`
	BaseFee          []*hexutil.Big   `json:"baseFeePerGas,omitempty"`
	GasUsedRatio     []float64        `json:"gasUsedRatio"`
	BlobBaseFee      []*hexutil.Big   `json:"baseFeePerBlobGas,omitempty"`
	BlobGasUsedRatio []float64        `json:"blobGasUsedRatio,omitempty"`
}

// maxFeeHistory is the most blocks eth_feeHistory answers for, and
// maxPercentiles the most reward percentiles (go-ethereum's defaults).
const (
	maxFeeHistory  = 1024
	maxPercentiles = 100
)

// FeeHistory is eth_feeHistory: base fees (with the next block's), gas used
// ratios, blob fees and, per reward percentile, the effective tip below
// which that share of each block's gas was paid, computed as go-ethereum's
// gas price oracle does. "pending" is the head (no pending block).
func (api *ethAPI) FeeHistory(blockCount math.HexOrDecimal64, last rpc.BlockNumber, percentiles []float64) (*feeHistory, error) {
	if len(percentiles) > maxPercentiles {
		return nil, fmt.Errorf("invalid reward percentile: over the query limit %d", maxPercentiles)
	}
	for i, p := range percentiles {
		if p < 0 || p > 100 {
			return nil, fmt.Errorf("invalid reward percentile: %f", p)
		}
		if i > 0 && p <= percentiles[i-1] {
			return nil, fmt.Errorf("invalid reward percentile: #%d:%f >= #%d:%f", i-1, percentiles[i-1], i, p)
		}
	}
	c := api.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	blocks := min(uint64(blockCount), maxFeeHistory)
	out := &feeHistory{OldestBlock: (*hexutil.Big)(new(big.Int))}
	if blocks == 0 {
		return out, nil
	}
	head := c.head().block.NumberU64()
	end := head
	switch {
	case last >= 0 && uint64(last) > head:
		return nil, fmt.Errorf("request beyond head block: requested %d, head %d", last, head)
	case last == rpc.EarliestBlockNumber:
		end = 0
	case last == rpc.PendingBlockNumber:
		if blocks--; blocks == 0 { // no pending block: up to the head, one block fewer
			return out, nil
		}
	case last >= 0:
		end = uint64(last)
	}
	blocks = min(blocks, end+1)
	oldest := end + 1 - blocks
	out.OldestBlock = (*hexutil.Big)(new(big.Int).SetUint64(oldest))
	for _, b := range c.blocks[oldest : end+1] {
		h := b.block.Header()
		out.BaseFee = append(out.BaseFee, (*hexutil.Big)(h.BaseFee))
		out.GasUsedRatio = append(out.GasUsedRatio, float64(h.GasUsed)/float64(h.GasLimit))
		blobFee, ratio := new(big.Int), 0.0
		if h.ExcessBlobGas != nil {
			blobFee = eip4844.CalcBlobFee(c.config, h)
			if max := eip4844.MaxBlobGasPerBlock(c.config, h.Time); max != 0 && h.BlobGasUsed != nil {
				ratio = float64(*h.BlobGasUsed) / float64(max)
			}
		}
		out.BlobBaseFee, out.BlobGasUsedRatio = append(out.BlobBaseFee, (*hexutil.Big)(blobFee)), append(out.BlobGasUsedRatio, ratio)
		if len(percentiles) > 0 {
			out.Reward = append(out.Reward, rewards(b, percentiles))
		}
	}
	last1 := c.blocks[end].block.Header()
	out.BaseFee = append(out.BaseFee, (*hexutil.Big)(eip1559.CalcBaseFee(c.config, last1)))
	next := new(big.Int)
	if last1.ExcessBlobGas != nil {
		excess := eip4844.CalcExcessBlobGas(c.config, last1, last1.Time)
		next = eip4844.CalcBlobFee(c.config, &types.Header{Number: last1.Number, Time: last1.Time, ExcessBlobGas: &excess})
	}
	out.BlobBaseFee = append(out.BlobBaseFee, (*hexutil.Big)(next))
	return out, nil
}

// rewards is one block's row of eth_feeHistory rewards: for each
// percentile, the effective tip of the transaction at which that share of
// the block's gas was used, the transactions sorted by tip (go-ethereum's
// oracle.processBlock).
func rewards(b *inprocBlock, percentiles []float64) []*hexutil.Big {
	row := make([]*hexutil.Big, len(percentiles))
	txs := b.block.Transactions()
	if len(txs) == 0 {
		for i := range row {
			row[i] = (*hexutil.Big)(new(big.Int))
		}
		return row
	}
	type gasTip struct {
		gas uint64
		tip *big.Int
	}
	sorted := make([]gasTip, len(txs))
	for i, tx := range txs {
		tip, _ := tx.EffectiveGasTip(b.block.BaseFee())
		sorted[i] = gasTip{gas: b.receipts[i].GasUsed, tip: tip}
	}
	slices.SortStableFunc(sorted, func(x, y gasTip) int { return x.tip.Cmp(y.tip) })
	i, sum := 0, sorted[0].gas
	for j, p := range percentiles {
		threshold := uint64(float64(b.block.GasUsed()) * p / 100)
		for sum < threshold && i < len(sorted)-1 {
			i++
			sum += sorted[i].gas
		}
		row[j] = (*hexutil.Big)(sorted[i].tip)
	}
	return row
}

// SendRawTransaction is eth_sendRawTransaction: the transaction is
// executed at once in a block of its own (see inprocClient.SendTransaction).
func (api *ethAPI) SendRawTransaction(ctx context.Context, raw hexutil.Bytes) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, err
	}
	if err := api.cl.SendTransaction(ctx, tx); err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), nil
}

// GetTransactionByHash is eth_getTransactionByHash (null when unknown).
func (api *ethAPI) GetTransactionByHash(h common.Hash) (tx *rpcTransaction, err error) {
	_, err = api.c.withTx(h, func(b *inprocBlock, i int) { tx = api.c.marshalTx(b.block, i) })
	return tx, err
}

// GetTransactionReceipt is eth_getTransactionReceipt (null when unknown).
func (api *ethAPI) GetTransactionReceipt(h common.Hash) (rc map[string]any, err error) {
	_, err = api.c.withTx(h, func(b *inprocBlock, i int) { rc = api.c.marshalReceipt(b, i) })
	return rc, err
}

// rpcBlock returns the block b names, nil when there is none. c.mu is held.
func (c *InProcess) rpcBlock(b rpc.BlockNumberOrHash) (*inprocBlock, error) {
	if c.closed {
		return nil, errClosed
	}
	var blk *inprocBlock
	var err error
	if h, ok := b.Hash(); ok {
		blk, err = c.blockByHash(h)
	} else {
		n, _ := b.Number()
		blk, err = c.block(big.NewInt(n.Int64()))
	}
	if errors.Is(err, ethereum.NotFound) {
		return nil, nil
	}
	return blk, err
}

// GetBlockByNumber is eth_getBlockByNumber: the block with transaction
// hashes, or whole transactions when full (null when unknown).
func (api *ethAPI) GetBlockByNumber(n rpc.BlockNumber, full bool) (map[string]any, error) {
	return api.getBlock(rpc.BlockNumberOrHashWithNumber(n), full)
}

// GetBlockByHash is eth_getBlockByHash.
func (api *ethAPI) GetBlockByHash(h common.Hash, full bool) (map[string]any, error) {
	return api.getBlock(rpc.BlockNumberOrHashWithHash(h, false), full)
}

func (api *ethAPI) getBlock(b rpc.BlockNumberOrHash, full bool) (map[string]any, error) {
	c := api.c
	c.mu.Lock()
	defer c.mu.Unlock()
	blk, err := c.rpcBlock(b)
	if blk == nil || err != nil {
		return nil, err
	}
	return c.marshalBlock(blk.block, full), nil
}

// GetBlockReceipts is eth_getBlockReceipts (null for an unknown block).
func (api *ethAPI) GetBlockReceipts(b rpc.BlockNumberOrHash) ([]map[string]any, error) {
	c := api.c
	c.mu.Lock()
	defer c.mu.Unlock()
	blk, err := c.rpcBlock(b)
	if blk == nil || err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(blk.receipts))
	for i := range blk.receipts {
		out[i] = c.marshalReceipt(blk, i)
	}
	return out, nil
}

// GetLogs is eth_getLogs (an empty list, not null, when nothing matches).
func (api *ethAPI) GetLogs(ctx context.Context, q filters.FilterCriteria) ([]types.Log, error) {
	logs, err := api.cl.FilterLogs(ctx, ethereum.FilterQuery(q))
	if logs == nil && err == nil {
		logs = []types.Log{}
	}
	return logs, err
}
