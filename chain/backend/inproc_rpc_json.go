package backend

// The in-process chain's blocks, transactions and receipts in the JSON a
// go-ethereum node answers with: its ethapi package's RPCMarshalBlock,
// RPCTransaction and MarshalReceipt, which go-ethereum keeps internal, over
// the same public types.

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// marshalBlock is a block as go-ethereum's RPCMarshalBlock gives it.
// c.mu is held.
func (c *InProcess) marshalBlock(b *types.Block, full bool) map[string]any {
	h := b.Header()
	f := map[string]any{
		"number":           (*hexutil.Big)(h.Number),
		"hash":             b.Hash(),
		"parentHash":       h.ParentHash,
		"nonce":            h.Nonce,
		"mixHash":          h.MixDigest,
		"sha3Uncles":       h.UncleHash,
		"logsBloom":        h.Bloom,
		"stateRoot":        h.Root,
		"miner":            h.Coinbase,
		"difficulty":       (*hexutil.Big)(h.Difficulty),
		"extraData":        hexutil.Bytes(h.Extra),
		"gasLimit":         hexutil.Uint64(h.GasLimit),
		"gasUsed":          hexutil.Uint64(h.GasUsed),
		"timestamp":        hexutil.Uint64(h.Time),
		"transactionsRoot": h.TxHash,
		"receiptsRoot":     h.ReceiptHash,
		"size":             hexutil.Uint64(b.Size()),
		"uncles":           []common.Hash{},
	}
	if h.BaseFee != nil {
		f["baseFeePerGas"] = (*hexutil.Big)(h.BaseFee)
	}
	if h.WithdrawalsHash != nil {
		f["withdrawalsRoot"] = h.WithdrawalsHash
	}
	if h.BlobGasUsed != nil {
		f["blobGasUsed"] = hexutil.Uint64(*h.BlobGasUsed)
	}
	if h.ExcessBlobGas != nil {
		f["excessBlobGas"] = hexutil.Uint64(*h.ExcessBlobGas)
	}
	if h.ParentBeaconRoot != nil {
		f["parentBeaconBlockRoot"] = h.ParentBeaconRoot
	}
	if h.RequestsHash != nil {
		f["requestsHash"] = h.RequestsHash
	}
	txs := make([]any, len(b.Transactions()))
	for i, tx := range b.Transactions() {
		if full {
			txs[i] = c.marshalTx(b, i)
		} else {
			txs[i] = tx.Hash()
		}
	}
	f["transactions"] = txs
	if b.Withdrawals() != nil {
		f["withdrawals"] = b.Withdrawals()
	}
	return f
}

// rpcTransaction is a mined transaction as go-ethereum's RPCTransaction
// gives it.
type rpcTransaction struct {
	BlockHash           *common.Hash                 `json:"blockHash"`
	BlockNumber         *hexutil.Big                 `json:"blockNumber"`
	BlockTimestamp      *hexutil.Uint64              `json:"blockTimestamp"`
	From                common.Address               `json:"from"`
	Gas                 hexutil.Uint64               `json:"gas"`
	GasPrice            *hexutil.Big                 `json:"gasPrice"`
	GasFeeCap           *hexutil.Big                 `json:"maxFeePerGas,omitempty"`
	GasTipCap           *hexutil.Big                 `json:"maxPriorityFeePerGas,omitempty"`
	MaxFeePerBlobGas    *hexutil.Big                 `json:"maxFeePerBlobGas,omitempty"`
	Hash                common.Hash                  `json:"hash"`
	Input               hexutil.Bytes                `json:"input"`
	Nonce               hexutil.Uint64               `json:"nonce"`
	To                  *common.Address              `json:"to"`
	TransactionIndex    *hexutil.Uint64              `json:"transactionIndex"`
	Value               *hexutil.Big                 `json:"value"`
	Type                hexutil.Uint64               `json:"type"`
	Accesses            *types.AccessList            `json:"accessList,omitempty"`
	ChainID             *hexutil.Big                 `json:"chainId,omitempty"`
	BlobVersionedHashes []common.Hash                `json:"blobVersionedHashes,omitempty"`
	AuthorizationList   []types.SetCodeAuthorization `json:"authorizationList,omitempty"`
	V                   *hexutil.Big                 `json:"v"`
	R                   *hexutil.Big                 `json:"r"`
	S                   *hexutil.Big                 `json:"s"`
	YParity             *hexutil.Uint64              `json:"yParity,omitempty"`
}

// sender is the sender of the i-th transaction of b: recovered from its
// signature, or the address it was sent as (SendAs). c.mu is held.
func (c *InProcess) sender(b *types.Block, i int) common.Address {
	tx := b.Transactions()[i]
	if from, ok := c.senders[tx.Hash()]; ok {
		return from
	}
	from, _ := types.Sender(types.MakeSigner(c.config, b.Number(), b.Time()), tx)
	return from
}

// marshalTx is the i-th transaction of the mined block b as go-ethereum's
// newRPCTransaction gives it. c.mu is held.
func (c *InProcess) marshalTx(b *types.Block, i int) *rpcTransaction {
	tx := b.Transactions()[i]
	v, r, s := tx.RawSignatureValues()
	hash, t, index := b.Hash(), b.Time(), hexutil.Uint64(i)
	out := &rpcTransaction{
		BlockHash: &hash, BlockNumber: (*hexutil.Big)(b.Number()), BlockTimestamp: (*hexutil.Uint64)(&t),
		TransactionIndex: &index, From: c.sender(b, i),
		Type: hexutil.Uint64(tx.Type()), Gas: hexutil.Uint64(tx.Gas()), GasPrice: (*hexutil.Big)(tx.GasPrice()),
		Hash: tx.Hash(), Input: tx.Data(), Nonce: hexutil.Uint64(tx.Nonce()), To: tx.To(), Value: (*hexutil.Big)(tx.Value()),
		V: (*hexutil.Big)(v), R: (*hexutil.Big)(r), S: (*hexutil.Big)(s),
	}
	if tx.Type() == types.LegacyTxType {
		if id := tx.ChainId(); id.Sign() != 0 {
			out.ChainID = (*hexutil.Big)(id)
		}
		return out
	}
	al, parity := tx.AccessList(), hexutil.Uint64(v.Sign())
	out.Accesses, out.ChainID, out.YParity = &al, (*hexutil.Big)(tx.ChainId()), &parity
	if tx.Type() == types.AccessListTxType {
		return out
	}
	out.GasFeeCap, out.GasTipCap = (*hexutil.Big)(tx.GasFeeCap()), (*hexutil.Big)(tx.GasTipCap())
	// The effective gas price: min(tip + base fee, fee cap).
	price := new(big.Int).Add(tx.GasTipCap(), b.BaseFee())
	if tx.GasFeeCapIntCmp(price) < 0 {
		price = tx.GasFeeCap()
	}
	out.GasPrice = (*hexutil.Big)(price)
	switch tx.Type() {
	case types.BlobTxType:
		out.MaxFeePerBlobGas, out.BlobVersionedHashes = (*hexutil.Big)(tx.BlobGasFeeCap()), tx.BlobHashes()
	case types.SetCodeTxType:
		out.AuthorizationList = tx.SetCodeAuthorizations()
	}
	return out
}

// marshalReceipt is the receipt of the i-th transaction of b as
// go-ethereum's MarshalReceipt gives it. c.mu is held.
func (c *InProcess) marshalReceipt(b *inprocBlock, i int) map[string]any {
	r, tx := b.receipts[i], b.block.Transactions()[i]
	f := map[string]any{
		"blockHash":         b.block.Hash(),
		"blockNumber":       hexutil.Uint64(b.block.NumberU64()),
		"transactionHash":   tx.Hash(),
		"transactionIndex":  hexutil.Uint64(i),
		"from":              c.sender(b.block, i),
		"to":                tx.To(),
		"gasUsed":           hexutil.Uint64(r.GasUsed),
		"cumulativeGasUsed": hexutil.Uint64(r.CumulativeGasUsed),
		"contractAddress":   nil,
		"logs":              r.Logs,
		"logsBloom":         r.Bloom,
		"type":              hexutil.Uint(tx.Type()),
		"effectiveGasPrice": (*hexutil.Big)(r.EffectiveGasPrice),
		"status":            hexutil.Uint(r.Status),
	}
	if r.Logs == nil {
		f["logs"] = []*types.Log{}
	}
	if tx.Type() == types.BlobTxType {
		f["blobGasUsed"], f["blobGasPrice"] = hexutil.Uint64(r.BlobGasUsed), (*hexutil.Big)(r.BlobGasPrice)
	}
	if r.ContractAddress != (common.Address{}) {
		f["contractAddress"] = r.ContractAddress
	}
	return f
}
