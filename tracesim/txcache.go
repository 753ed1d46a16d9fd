package tracesim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/internal/cachefile"
)

// The block file: a mined block with its full transactions and receipts, as
// the endpoint returned them, so a replay can run offline. The format is in
// docs/SPEC.md, "Tracesim output"; keep the two in step.
const (
	blockFormat  = "afr-tracesim-block"
	blockVersion = 1
)

var blockKind = cachefile.Format{Name: blockFormat, Version: blockVersion}

// blockFile is the on-disk form.
type blockFile struct {
	Format   string            `json:"format"`
	Version  int               `json:"version"`
	ChainID  uint64            `json:"chain_id"`
	Block    json.RawMessage   `json:"block"`
	Receipts []json.RawMessage `json:"receipts"`
}

// BlockPath is where a replay cache directory keeps block number of chain
// chainID: dir/blocks/<chainID>/<number>.json. The fork state (at the parent
// block) is under dir/forks (evm.CachePath(dir/forks, chainID, number-1)).
func BlockPath(dir string, chainID, number uint64) string {
	return filepath.Join(dir, "blocks", strconv.FormatUint(chainID, 10), strconv.FormatUint(number, 10)+".json")
}

// minedBlock is a decoded block file.
type minedBlock struct {
	ChainID  uint64
	Header   rpcBlock
	Txs      []*minedTx
	Receipts []*rpcReceipt
	raw      *blockFile
}

type minedTx struct {
	Tx   *types.Transaction
	From common.Address
	Hash common.Hash
}

type rpcBlock struct {
	Number        *hexutil.Uint64   `json:"number"`
	Hash          *common.Hash      `json:"hash"`
	ParentHash    common.Hash       `json:"parentHash"`
	Timestamp     hexutil.Uint64    `json:"timestamp"`
	GasLimit      hexutil.Uint64    `json:"gasLimit"`
	BaseFee       *hexutil.Big      `json:"baseFeePerGas"`
	Miner         common.Address    `json:"miner"`
	Difficulty    *hexutil.Big      `json:"difficulty"`
	MixHash       common.Hash       `json:"mixHash"`
	ExcessBlobGas *hexutil.Uint64   `json:"excessBlobGas"`
	Transactions  []json.RawMessage `json:"transactions"`
}

type rpcReceipt struct {
	TxHash common.Hash `json:"transactionHash"`
	// Status is absent before Byzantium, whose receipts carry Root, the
	// post-state root, instead.
	Status            *hexutil.Uint64 `json:"status"`
	Root              hexutil.Bytes   `json:"root"`
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	CumulativeGasUsed *hexutil.Uint64 `json:"cumulativeGasUsed"`
	ContractAddress   *common.Address `json:"contractAddress"`
	Logs              []*rpcLog       `json:"logs"`
}

type rpcLog struct {
	Address common.Address `json:"address"`
	Topics  []common.Hash  `json:"topics"`
	Data    hexutil.Bytes  `json:"data"`
}

// BlockFileError reports a block file or endpoint answer that cannot be used.
type BlockFileError struct {
	Path string // "" for an endpoint answer
	Err  error
}

func (e *BlockFileError) Error() string {
	if e.Path == "" {
		return "tracesim: block: " + e.Err.Error()
	}
	return "tracesim: block file " + e.Path + ": " + e.Err.Error()
}

func (e *BlockFileError) Unwrap() error { return e.Err }

// decodeBlockFile parses and checks a block file: known format and version,
// a block with number and hash, transactions whose hashes and senders verify,
// one receipt per transaction in the same order.
func decodeBlockFile(data []byte) (*minedBlock, error) {
	var f blockFile
	if err := cachefile.Decode(data, &f, "block"); err != nil {
		return nil, err
	}
	if err := blockKind.Check(f.Format, f.Version, f.ChainID); err != nil {
		return nil, err
	}
	return parseBlock(f.ChainID, &f)
}

func parseBlock(chainID uint64, f *blockFile) (*minedBlock, error) {
	b := &minedBlock{ChainID: chainID, raw: f}
	if err := json.Unmarshal(f.Block, &b.Header); err != nil {
		return nil, fmt.Errorf("block: %w", err)
	}
	if b.Header.Number == nil || b.Header.Hash == nil {
		return nil, errors.New("block: number or hash missing (a pending block?)")
	}
	if uint64(*b.Header.Number) == 0 {
		return nil, errors.New("block 0 (genesis) has no parent to fork from")
	}
	if b.Header.BaseFee != nil && b.Header.BaseFee.ToInt().Sign() < 0 {
		return nil, errors.New("block: negative base fee")
	}
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(chainID))
	for i, raw := range b.Header.Transactions {
		if len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '"' {
			return nil, errors.New("block: transactions are hashes only (fetch with full transactions)")
		}
		var tx types.Transaction
		if err := tx.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("transaction %d: %w", i, err)
		}
		var meta struct {
			From common.Address `json:"from"`
			Hash common.Hash    `json:"hash"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("transaction %d: %w", i, err)
		}
		if tx.Hash() != meta.Hash {
			return nil, fmt.Errorf("transaction %d: hash is %s, the fields hash to %s", i, meta.Hash.Hex(), tx.Hash().Hex())
		}
		from, err := types.Sender(signer, &tx)
		if err != nil {
			return nil, fmt.Errorf("transaction %d (%s): sender: %w", i, meta.Hash.Hex(), err)
		}
		if from != meta.From {
			return nil, fmt.Errorf("transaction %d (%s): from is %s, the signature recovers %s", i, meta.Hash.Hex(), meta.From.Hex(), from.Hex())
		}
		b.Txs = append(b.Txs, &minedTx{Tx: &tx, From: from, Hash: meta.Hash})
	}
	if len(f.Receipts) != len(b.Txs) {
		return nil, fmt.Errorf("%d receipts for %d transactions", len(f.Receipts), len(b.Txs))
	}
	for i, raw := range f.Receipts {
		var r rpcReceipt
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("receipt %d: %w", i, err)
		}
		if r.TxHash != b.Txs[i].Hash {
			return nil, fmt.Errorf("receipt %d is for %s, transaction %d is %s", i, r.TxHash.Hex(), i, b.Txs[i].Hash.Hex())
		}
		if r.Status == nil && len(r.Root) == 0 {
			return nil, fmt.Errorf("receipt %d: neither a status nor a post-state root", i)
		}
		b.Receipts = append(b.Receipts, &r)
	}
	return b, nil
}

func (b *minedBlock) number() uint64 { return uint64(*b.Header.Number) }

func (b *minedBlock) index(h common.Hash) int {
	for i, t := range b.Txs {
		if t.Hash == h {
			return i
		}
	}
	return -1
}

// writeBlockFile writes b's raw form to path atomically and durably.
func writeBlockFile(path string, f *blockFile) error {
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	return cachefile.Write(path, append(data, '\n'))
}

// findBlockFile looks for the block holding tx under dir/blocks (every chain
// when chainID is 0).
func findBlockFile(dir string, chainID uint64, tx common.Hash) (*minedBlock, string, error) {
	pattern := filepath.Join(dir, "blocks", "*", "*.json")
	if chainID != 0 {
		pattern = filepath.Join(dir, "blocks", strconv.FormatUint(chainID, 10), "*.json")
	}
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, "", err
	}
	needle := []byte(tx.Hex())
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, p, &BlockFileError{Path: p, Err: err}
		}
		if !bytes.Contains(bytes.ToLower(data), bytes.ToLower(needle)) {
			continue
		}
		b, err := decodeBlockFile(data)
		if err != nil {
			return nil, p, &BlockFileError{Path: p, Err: err}
		}
		if b.index(tx) >= 0 {
			return b, p, nil
		}
	}
	return nil, "", &TxNotFoundError{Hash: tx, Where: "replay cache " + dir}
}

// TxNotFoundError reports a transaction the endpoint or the cache does not have.
type TxNotFoundError struct {
	Hash  common.Hash
	Where string
}

func (e *TxNotFoundError) Error() string {
	return fmt.Sprintf("tracesim: transaction %s not found in %s", e.Hash.Hex(), e.Where)
}

// ErrTxNotFound is matched (errors.Is) by *TxNotFoundError.
var ErrTxNotFound = errors.New("tracesim: transaction not found")

func (e *TxNotFoundError) Is(target error) bool { return target == ErrTxNotFound }
