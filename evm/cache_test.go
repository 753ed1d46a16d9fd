package evm

import (
	"bytes"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

func sampleCache() *cacheFile {
	code := hexutil.Bytes{0x60, 0x00, 0x60, 0x00, 0xf3}
	ch := crypto.Keccak256Hash(code)
	bal := hexutil.Big(*big.NewInt(1e18))
	zero := hexutil.Big(*new(big.Int))
	fee := hexutil.Big(*big.NewInt(7))
	diff := hexutil.Big(*big.NewInt(131072))
	excess := hexutil.Uint64(3 * 131072)
	chain, err := HardforkConfig("cancun", 31337)
	if err != nil {
		panic(err)
	}
	return &cacheFile{
		Format: cacheFormat, Version: cacheVersion, ChainID: 31337, chain: chain,
		Block: cacheHeader{Number: 12, Hash: common.HexToHash("0x12"), ParentHash: common.HexToHash("0x11"), Timestamp: 1_700_000_012,
			GasLimit: 30_000_000, BaseFee: &fee, Difficulty: &diff, ExcessBlobGas: &excess},
		Accounts: map[common.Address]*cacheAccount{
			common.HexToAddress("0xaa"): {Balance: &bal, Nonce: 1, CodeHash: ch},
			common.HexToAddress("0xbb"): {Balance: &zero, Nonce: 3, CodeHash: types.EmptyCodeHash},
			common.HexToAddress("0xcc"): nil,
		},
		Codes:       map[common.Hash]hexutil.Bytes{ch: code},
		Storage:     map[common.Address]map[common.Hash]common.Hash{common.HexToAddress("0xaa"): {common.HexToHash("0x1"): common.HexToHash("0x2a")}},
		BlockHashes: map[uint64]common.Hash{11: common.HexToHash("0x11"), 3: common.HexToHash("0x03")},
	}
}

func TestCacheRoundTrip(t *testing.T) {
	enc, err := encodeCache(sampleCache())
	if err != nil {
		t.Fatal(err)
	}
	c, err := decodeCache(enc)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := encodeCache(c)
	if !bytes.Equal(enc, again) {
		t.Fatalf("re-encoding changed the bytes:\n%s\n%s", enc, again)
	}
	if c.chain == nil || !reflect.DeepEqual(c.chain, sampleCache().chain) {
		t.Fatalf("chain_config did not round-trip: %v", c.chain)
	}
	if !bytes.Contains(enc, []byte(`"chain_config": {`)) || !bytes.Contains(enc, []byte(`"difficulty": "0x20000"`)) || !bytes.Contains(enc, []byte(`"excess_blob_gas": "0x60000"`)) {
		t.Fatalf("version 2 fields not written:\n%s", enc)
	}
	for name, mutate := range map[string]func(*cacheFile){
		"format":  func(c *cacheFile) { c.Format = "other" },
		"version": func(c *cacheFile) { c.Version = 3 },
		"chain_config of another chain": func(c *cacheFile) {
			c.chain.ChainID = big.NewInt(1)
		},
		"chain_config without chainId": func(c *cacheFile) { c.chain = &params.ChainConfig{} },
		"chain_config in version 1":    func(c *cacheFile) { c.Version, c.Block.Difficulty, c.Block.ExcessBlobGas = 1, nil, nil },
		"difficulty in version 1":      func(c *cacheFile) { c.Version, c.chain = 1, nil },
		"negative difficulty":          func(c *cacheFile) { c.Block.Difficulty = (*hexutil.Big)(big.NewInt(-1)) },
		"chain id":                     func(c *cacheFile) { c.ChainID = 0 },
		"block hash":                   func(c *cacheFile) { c.Block.Hash = common.Hash{} },
		"missing code":                 func(c *cacheFile) { c.Codes = nil },
		"no balance":                   func(c *cacheFile) { c.Accounts[common.HexToAddress("0xaa")].Balance = nil },
		"future hashes":                func(c *cacheFile) { c.BlockHashes[12] = common.Hash{} },
	} {
		c := sampleCache()
		mutate(c)
		b, _ := encodeCache(c)
		if _, err := decodeCache(b); err == nil {
			t.Errorf("%s: a bad cache decoded", name)
		}
	}
	if _, err := decodeCache(append(enc, []byte("{}")...)); err == nil {
		t.Error("trailing data accepted")
	}
	if _, err := decodeCache(bytes.Replace(enc, []byte(`"format"`), []byte(`"extra": 1, "format"`), 1)); err == nil {
		t.Error("unknown field accepted")
	}
}

// TestCacheVersion1Readable: a version 1 file (no chain_config, difficulty
// or excess blob gas) still decodes, with no rules of its own.
func TestCacheVersion1Readable(t *testing.T) {
	c := sampleCache()
	c.Version, c.chain, c.Block.Difficulty, c.Block.ExcessBlobGas = 1, nil, nil, nil
	enc, err := encodeCache(c)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(enc, []byte("chain_config")) {
		t.Fatalf("version 1 sample has chain_config:\n%s", enc)
	}
	got, err := decodeCache(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 1 || got.chain != nil || len(got.Accounts) != 3 {
		t.Fatalf("decoded version 1 cache: version %d, rules %v, %d accounts", got.Version, got.chain, len(got.Accounts))
	}
}

func FuzzDecodeCache(f *testing.F) {
	enc, _ := encodeCache(sampleCache())
	f.Add(enc)
	v1 := sampleCache()
	v1.Version, v1.chain, v1.Block.Difficulty, v1.Block.ExcessBlobGas = 1, nil, nil, nil
	encV1, _ := encodeCache(v1)
	f.Add(encV1)
	f.Add([]byte(`{"format":"afr-fork-cache","version":1,"chain_id":1,"block":{"number":1,"hash":"0x0000000000000000000000000000000000000000000000000000000000000001"}}`))
	f.Add([]byte(`{"format":"afr-fork-cache","version":2,"chain_id":5,"chain_config":{"chainId":5,"homesteadBlock":0},"block":{"number":1,"hash":"0x0000000000000000000000000000000000000000000000000000000000000001","difficulty":"0x1","excess_blob_gas":"0x0"}}`))
	f.Add([]byte(`{"format":"afr-fork-cache","version":2,"chain_id":5,"chain_config":{"homesteadBlock":0},"block":{"number":1,"hash":"0x0000000000000000000000000000000000000000000000000000000000000001"}}`))
	f.Add([]byte(`{}`))
	f.Add(enc[:len(enc)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeCache(data)
		if err != nil {
			return
		}
		b1, err := encodeCache(c)
		if err != nil {
			t.Fatalf("encode of a decoded cache: %v", err)
		}
		c2, err := decodeCache(b1)
		if err != nil {
			t.Fatalf("decode of an encoded cache: %v\n%s", err, b1)
		}
		b2, _ := encodeCache(c2)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("encoding not stable:\n%s\n%s", b1, b2)
		}
	})
}

func TestCacheWantCheck(t *testing.T) {
	c := sampleCache()
	chain, otherChain := uint64(31337), uint64(1)
	num, otherNum := uint64(12), uint64(13)
	hash, otherHash := common.HexToHash("0x12"), common.HexToHash("0x13")
	for _, tc := range []struct {
		desc  string
		want  cacheWant
		field string // "" for a match
	}{
		{"nothing checked", cacheWant{}, ""},
		{"all match", cacheWant{chainID: &chain, number: &num, hash: &hash}, ""},
		{"other chain", cacheWant{chainID: &otherChain, number: &otherNum, hash: &otherHash}, "chain_id"},
		{"other number", cacheWant{chainID: &chain, number: &otherNum, hash: &otherHash}, "block.number"},
		{"other hash", cacheWant{chainID: &chain, number: &num, hash: &otherHash}, "block.hash"},
		{"hash only", cacheWant{hash: &otherHash}, "block.hash"},
	} {
		err := tc.want.check("p.json", c)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.desc, err)
			}
			continue
		}
		me, ok := err.(*CacheMismatchError)
		if !ok || me.Field != tc.field || me.Path != "p.json" {
			t.Errorf("%s: %v, want a %s mismatch", tc.desc, err, tc.field)
		}
	}
}
