package evm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/agentflightrecorder/afr/internal/cachefile"
)

// The fork cache file: one JSON document per (chain id, block). The format is
// specified in docs/SPEC.md, "Fork cache"; keep the two in step.
// Version 2 added chain_config, block.difficulty and block.excess_blob_gas;
// version 1 files stay readable.
const (
	cacheFormat  = "afr-fork-cache"
	cacheVersion = 2
)

var cacheKind = cachefile.Format{Name: cacheFormat, Version: cacheVersion}

// cacheKindV1 is the older version still read.
var cacheKindV1 = cachefile.Format{Name: cacheFormat, Version: 1}

// CacheError reports a cache file that cannot be used: unreadable, not a fork
// cache, of an unknown version, or internally inconsistent. A Fork never
// overwrites such a file.
type CacheError struct {
	Path string
	Err  error
}

func (e *CacheError) Error() string {
	if e.Path == "" {
		return "fork cache: " + e.Err.Error()
	}
	return "fork cache " + e.Path + ": " + e.Err.Error()
}

func (e *CacheError) Unwrap() error { return e.Err }

// CacheMismatchError reports a well-formed cache file recorded for another
// chain or block than the one asked for.
type CacheMismatchError struct {
	Path      string
	Field     string // "chain_id", "block.number" or "block.hash"
	Got, Want string
}

func (e *CacheMismatchError) Error() string {
	return fmt.Sprintf("fork cache %s is for another chain or block: %s is %s, want %s", e.Path, e.Field, e.Got, e.Want)
}

// cacheHeader is the pinned block as recorded in the cache.
type cacheHeader struct {
	Number     uint64         `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parent_hash"`
	StateRoot  common.Hash    `json:"state_root"`
	Timestamp  uint64         `json:"timestamp"`
	GasLimit   uint64         `json:"gas_limit"`
	BaseFee    *hexutil.Big   `json:"base_fee,omitempty"`
	Coinbase   common.Address `json:"coinbase"`
	PrevRandao common.Hash    `json:"prev_randao"`
	// Difficulty is a proof-of-work block's difficulty; absent means zero.
	Difficulty *hexutil.Big `json:"difficulty,omitempty"`
	// ExcessBlobGas is the header's, from Cancun on.
	ExcessBlobGas *hexutil.Uint64 `json:"excess_blob_gas,omitempty"`
}

// cacheAccount is an account that exists at the block; a JSON null in the
// accounts map records an account known not to exist.
type cacheAccount struct {
	Balance  *hexutil.Big   `json:"balance"`
	Nonce    hexutil.Uint64 `json:"nonce"`
	CodeHash common.Hash    `json:"code_hash"`
}

type cacheFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	ChainID uint64 `json:"chain_id"`
	// ChainConfig is the rules the state was recorded with (go-ethereum's
	// ChainConfig JSON); chain holds it parsed.
	ChainConfig json.RawMessage `json:"chain_config,omitempty"`
	chain       *params.ChainConfig
	Block       cacheHeader                                    `json:"block"`
	Accounts    map[common.Address]*cacheAccount               `json:"accounts"`
	Codes       map[common.Hash]hexutil.Bytes                  `json:"codes"`
	Storage     map[common.Address]map[common.Hash]common.Hash `json:"storage"`
	BlockHashes map[uint64]common.Hash                         `json:"block_hashes"`
}

var maxU256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// decodeCache parses and validates a cache file. Unknown fields, trailing
// data, a wrong format or version and inconsistent contents are errors.
func decodeCache(data []byte) (*cacheFile, error) {
	var c cacheFile
	if err := cachefile.Decode(data, &c, "cache"); err != nil {
		return nil, err
	}
	kind := cacheKind
	if c.Version == cacheKindV1.Version {
		kind = cacheKindV1
	}
	if err := kind.Check(c.Format, c.Version, c.ChainID); err != nil {
		return nil, err
	}
	if len(c.ChainConfig) > 0 {
		if c.Version == cacheKindV1.Version {
			return nil, errors.New("chain_config is not a version 1 field")
		}
		chain, err := decodeChainConfig(c.ChainConfig)
		if err != nil {
			return nil, fmt.Errorf("chain_config: %w", err)
		}
		if !chain.ChainID.IsUint64() || chain.ChainID.Uint64() != c.ChainID {
			return nil, fmt.Errorf("chain_config is for chain %s, chain_id is %d", chain.ChainID, c.ChainID)
		}
		c.chain = chain
	}
	if c.Version == cacheKindV1.Version && (c.Block.Difficulty != nil || c.Block.ExcessBlobGas != nil) {
		return nil, errors.New("block.difficulty and block.excess_blob_gas are not version 1 fields")
	}
	if c.Block.Difficulty != nil && (c.Block.Difficulty.ToInt().Sign() < 0 || c.Block.Difficulty.ToInt().Cmp(maxU256) > 0) {
		return nil, errors.New("block.difficulty out of range")
	}
	if c.Block.Hash == (common.Hash{}) {
		return nil, errors.New("block.hash is missing or zero")
	}
	if c.Block.BaseFee != nil && (c.Block.BaseFee.ToInt().Sign() < 0 || c.Block.BaseFee.ToInt().Cmp(maxU256) > 0) {
		return nil, errors.New("block.base_fee out of range")
	}
	for h, code := range c.Codes {
		if got := crypto.Keccak256Hash(code); got != h {
			return nil, fmt.Errorf("codes: code under %s hashes to %s", h.Hex(), got.Hex())
		}
	}
	for addr, a := range c.Accounts {
		if a == nil {
			continue
		}
		if a.Balance == nil {
			return nil, fmt.Errorf("accounts: %s has no balance", addr.Hex())
		}
		if b := a.Balance.ToInt(); b.Sign() < 0 || b.Cmp(maxU256) > 0 {
			return nil, fmt.Errorf("accounts: %s balance out of range", addr.Hex())
		}
		if a.CodeHash != types.EmptyCodeHash {
			if _, ok := c.Codes[a.CodeHash]; !ok {
				return nil, fmt.Errorf("accounts: %s code %s is not in codes", addr.Hex(), a.CodeHash.Hex())
			}
		}
	}
	for n := range c.BlockHashes {
		if n >= c.Block.Number {
			return nil, fmt.Errorf("block_hashes: block %d is not before the pinned block %d", n, c.Block.Number)
		}
	}
	if c.Accounts == nil {
		c.Accounts = map[common.Address]*cacheAccount{}
	}
	if c.Codes == nil {
		c.Codes = map[common.Hash]hexutil.Bytes{}
	}
	if c.Storage == nil {
		c.Storage = map[common.Address]map[common.Hash]common.Hash{}
	}
	if c.BlockHashes == nil {
		c.BlockHashes = map[uint64]common.Hash{}
	}
	return &c, nil
}

// encodeCache writes c deterministically (maps in key order, two-space
// indent, trailing newline).
func encodeCache(c *cacheFile) ([]byte, error) {
	if c.chain != nil {
		raw, err := json.Marshal(c.chain)
		if err != nil {
			return nil, err
		}
		c.ChainConfig = raw
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// readCache loads the cache at path; os.ErrNotExist is returned as is.
func readCache(path string) (*cacheFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return nil, &CacheError{Path: path, Err: err}
	}
	c, err := decodeCache(data)
	if err != nil {
		return nil, &CacheError{Path: path, Err: err}
	}
	return c, nil
}

// writeCache replaces path atomically and durably.
func writeCache(path string, c *cacheFile) error {
	data, err := encodeCache(c)
	if err == nil {
		err = cachefile.Write(path, data)
	}
	if err != nil {
		return &CacheError{Path: path, Err: err}
	}
	return nil
}

// CachePath is where a Fork with CacheDir dir keeps the cache of block number
// on chain chainID: dir/<chainID>/<number>.json.
func CachePath(dir string, chainID, number uint64) string {
	return filepath.Join(dir, fmt.Sprint(chainID), fmt.Sprintf("%d.json", number))
}
