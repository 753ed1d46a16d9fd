package tracesim

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/calldata"
)

var (
	fuzzRegOnce sync.Once
	fuzzReg     *calldata.Registry
)

func fuzzRegistry(t testing.TB) *calldata.Registry {
	fuzzRegOnce.Do(func() { fuzzReg = testRegistry(t, nil, fixtureABIs, uniCoreBuild, uniPeriBuild) })
	return fuzzReg
}

// fixtureBlock returns the committed block file's transactions and receipts,
// the seeds of every fuzz target.
func fixtureBlock(t testing.TB) (*minedBlock, []byte) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(fixtureCache, "blocks", "*", "*.json"))
	if len(paths) == 0 {
		t.Fatal("no committed block file")
	}
	raw, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeBlockFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	return b, raw
}

// FuzzDecodeCall: calldata is untrusted. Decoding never panics, always keeps
// the raw bytes, and is deterministic.
func FuzzDecodeCall(f *testing.F) {
	b, _ := fixtureBlock(f)
	for _, tx := range b.Txs {
		f.Add(tx.Tx.Data())
	}
	f.Add([]byte{})
	f.Add([]byte{0x42, 0x96, 0x6c, 0x68})
	reg := fuzzRegistry(f)
	to := common.HexToAddress("0x1234")
	f.Fuzz(func(t *testing.T, data []byte) {
		c := reg.DecodeCall(&to, data)
		if !bytes.Equal(c.Data, data) {
			t.Fatal("raw calldata not kept")
		}
		j1, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		j2, _ := json.Marshal(reg.DecodeCall(&to, data))
		if !bytes.Equal(j1, j2) {
			t.Fatal("decoding is not deterministic")
		}
		in := calldata.IntentOf(reg, 1, common.Address{}, &to, nil, data)
		if d := calldata.CompareIntent(in.Record(), in); len(d) != 0 {
			t.Fatalf("an intent differs from its own record: %v", d)
		}
	})
}

// FuzzDecodeLog: topics and data are untrusted.
func FuzzDecodeLog(f *testing.F) {
	b, _ := fixtureBlock(f)
	for _, rc := range b.Receipts {
		for _, l := range rc.Logs {
			var ts []byte
			for _, t := range l.Topics {
				ts = append(ts, t[:]...)
			}
			f.Add(ts, []byte(l.Data))
		}
	}
	reg := fuzzRegistry(f)
	f.Fuzz(func(t *testing.T, topicBytes, data []byte) {
		var topics []common.Hash
		for len(topicBytes) >= 32 && len(topics) < 5 {
			topics = append(topics, common.BytesToHash(topicBytes[:32]))
			topicBytes = topicBytes[32:]
		}
		e := reg.DecodeLog(common.Address{}, topics, data)
		if !bytes.Equal(e.Data, data) || len(e.Topics) != len(topics) {
			t.Fatal("raw log not kept")
		}
		if e.Signature != "" && e.Error != "" {
			t.Fatalf("decoded with an error: %+v", e)
		}
		if _, err := json.Marshal(e); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDecodeRevert: revert data is untrusted.
func FuzzDecodeRevert(f *testing.F) {
	f.Add(common.FromHex("0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000"))
	f.Add(common.FromHex("0x4e487b710000000000000000000000000000000000000000000000000000000000000011"))
	f.Add(common.FromHex("0xe450d38c")) // ERC20InsufficientBalance, no arguments
	f.Add([]byte{})
	reg := fuzzRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := calldata.DecodeRevert(reg, data, common.Address{})
		// Only Error("") has an empty reason.
		if !bytes.Equal(r.Data, data) || r.Kind == "" || (r.Reason == "" && !(r.Kind == "error" && r.Args[0].Value == "")) {
			t.Fatalf("revert %+v", r)
		}
		// Data that did not decode, and only such data, says why.
		if len(data) > 0 && (r.Name == "") != (r.Error != "" && r.Error != "non-canonical encoding") || r.Qualified() == "" {
			t.Fatalf("revert %+v: %s", r, r.Qualified())
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzBlockFile: a replay cache file is untrusted input. Decoding never
// panics; whatever decodes has verified hashes, senders and one receipt per
// transaction, and survives a write/read round trip unchanged.
func FuzzBlockFile(f *testing.F) {
	_, raw := fixtureBlock(f)
	f.Add(raw)
	f.Add([]byte(`{"format":"afr-tracesim-block","version":1,"chain_id":1,"block":{"number":"0x1","hash":"0x` + string(bytes.Repeat([]byte("11"), 32)) + `","transactions":[]},"receipts":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := decodeBlockFile(data)
		if err != nil {
			return
		}
		if len(b.Txs) != len(b.Receipts) {
			t.Fatal("receipts and transactions differ in number")
		}
		for i, tx := range b.Txs {
			if tx.Tx.Hash() != tx.Hash || b.Receipts[i].TxHash != tx.Hash {
				t.Fatal("unverified transaction accepted")
			}
		}
		out, err := json.Marshal(b.raw)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := decodeBlockFile(out)
		if err != nil {
			t.Fatalf("re-encoded block file does not decode: %v", err)
		}
		if b2.number() != b.number() || len(b2.Txs) != len(b.Txs) {
			t.Fatal("round trip changed the block")
		}
	})
}

// FuzzRegistryJSON: ABI files are untrusted input.
func FuzzRegistryJSON(f *testing.F) {
	for _, n := range []string{"Burner", "Multicall3", "TestToken"} {
		raw, err := os.ReadFile(filepath.Join(fixtureABIs, n+".abi.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"abi":[],"contractName":"X"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := calldata.NewRegistry()
		if err := r.AddJSON("X", "", data); err != nil {
			return
		}
		c, ok := r.Contract("X")
		if !ok {
			t.Fatal("added but not registered")
		}
		for _, m := range c.ABI.Methods {
			var sel [4]byte
			copy(sel[:], m.ID)
			if len(r.Functions(sel, nil)) == 0 {
				t.Fatalf("%s not indexed", m.Sig)
			}
			r.DecodeCall(&common.Address{}, append(sel[:], make([]byte, 64)...))
		}
		_ = hexutil.Encode
	})
}
