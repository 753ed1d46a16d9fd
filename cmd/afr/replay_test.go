package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"
	"github.com/agentflightrecorder/afr/tracesim"
)

// afrOut runs the CLI in-process and returns its exit code, stdout and stderr.
func afrOut(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}, args)
	return code, out.String(), errOut.String()
}

// testChain is an anvil with the evm package's test contracts deployed:
// Store (set emits Set; fail reverts with a reason, a panic or Denied) and
// Caller (forward calls Store.set and Store.get, and emits Forwarded).
type testChain struct {
	t      testing.TB
	node   *anvil.Node
	rpc    *rpc.Client
	abiDir string // Store.abi.json, Caller.abi.json
	store  common.Address
	caller common.Address
	abis   map[string]abi.ABI
}

// contractsJSON holds Store and Caller, compiled (evm/testdata/Store.sol).
const contractsJSON = "../../evm/testdata/contracts.json"

func startTestChain(t testing.TB) *testChain {
	t.Helper()
	raw, err := os.ReadFile(contractsJSON)
	if err != nil {
		t.Fatal(err)
	}
	var arts map[string]struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode hexutil.Bytes   `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &arts); err != nil {
		t.Fatal(err)
	}
	c := &testChain{t: t, abiDir: t.TempDir(), abis: map[string]abi.ABI{}}
	for name, a := range arts {
		if err := os.WriteFile(filepath.Join(c.abiDir, name+".abi.json"), a.ABI, 0o600); err != nil {
			t.Fatal(err)
		}
		if c.abis[name], err = abi.JSON(bytes.NewReader(a.ABI)); err != nil {
			t.Fatal(err)
		}
	}
	c.node = anviltest.Start(t, anvil.Options{Accounts: 3})
	if c.rpc, err = rpc.Dial(c.node.URL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.rpc.Close)
	c.store = c.receipt(c.send(nil, arts["Store"].Bytecode)).ContractAddress
	c.caller = c.receipt(c.send(nil, arts["Caller"].Bytecode)).ContractAddress
	return c
}

func (c *testChain) pack(contract, method string, args ...any) []byte {
	c.t.Helper()
	a := c.abis[contract]
	b, err := a.Pack(method, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

func (c *testChain) call(result any, method string, args ...any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.rpc.CallContext(ctx, result, method, args...); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// send sends a transaction from the first dev account with a fixed gas limit
// (so that a reverting one is mined too) and returns its hash.
func (c *testChain) send(to *common.Address, data []byte) common.Hash {
	c.t.Helper()
	tx := map[string]any{"from": c.node.Accounts()[0], "data": hexutil.Bytes(data), "gas": hexutil.Uint64(3_000_000)}
	if to != nil {
		tx["to"] = *to
	}
	var h common.Hash
	c.call(&h, "eth_sendTransaction", tx)
	return h
}

func (c *testChain) receipt(h common.Hash) *types.Receipt {
	c.t.Helper()
	var r *types.Receipt
	for i := 0; i < 1000 && r == nil; i++ {
		c.call(&r, "eth_getTransactionReceipt", h)
		if r == nil {
			time.Sleep(2 * time.Millisecond)
		}
	}
	if r == nil {
		c.t.Fatalf("no receipt for %s", h.Hex())
	}
	return r
}

// mined sends a transaction, waits for it and checks its status.
func (c *testChain) mined(to common.Address, data []byte, wantStatus uint64) common.Hash {
	c.t.Helper()
	h := c.send(&to, data)
	if r := c.receipt(h); r.Status != wantStatus {
		c.t.Fatalf("transaction %s: status %d, want %d", h.Hex(), r.Status, wantStatus)
	}
	return h
}

func decodeReplay(t *testing.T, stdout string) *tracesim.ReplayResult {
	t.Helper()
	var r tracesim.ReplayResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("--json output does not decode as a ReplayResult: %v\n%s", err, stdout)
	}
	return &r
}

// withoutStats is the JSON of r without its request counts, which differ
// between a live and an offline replay.
func withoutStats(t *testing.T, r *tracesim.ReplayResult) string {
	t.Helper()
	c := *r
	c.Stats.Requests = 0
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReplay replays mined transactions from a live anvil: a nested call
// that emits events, reverts with a reason and with a custom error, and bad
// invocations.
func TestReplay(t *testing.T) {
	c := startTestChain(t)
	url := c.node.URL()
	forward := c.mined(c.caller, c.pack("Caller", "forward", c.store, big.NewInt(1), big.NewInt(42)), 1)
	reason := c.mined(c.store, c.pack("Store", "fail", big.NewInt(0)), 0)
	custom := c.mined(c.store, c.pack("Store", "fail", big.NewInt(7)), 0)

	t.Run("success", func(t *testing.T) {
		code, out, stderr := afrOut("replay", forward.Hex(), "--rpc", url, "--abi", c.abiDir)
		if code != exitOK {
			t.Fatalf("exit %d: %s\n%s", code, stderr, out)
		}
		for _, want := range []string{
			"Transaction " + forward.Hex(),
			"call   Caller.forward(store: " + c.store.Hex() + ", key: 1, value: 42)",
			"CALL " + c.caller.Hex() + " Caller.forward(",
			"├─ ", "CALL " + c.store.Hex() + " Store.set(key: 1, value: 42)",
			"STATICCALL " + c.store.Hex() + " Store.get(key: 1)",
			"emit Store.Set(key: 1, value: 42)",
			"emit Caller.Forwarded(store: " + c.store.Hex() + ", key: 1, value: 42)",
			"Storage changes\n  " + c.store.Hex(),
			"Result: success",
			"Fidelity: OK",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("revert", func(t *testing.T) {
		code, out, stderr := afrOut("replay", reason.Hex(), "--rpc", url, "--abi", c.abiDir)
		if code != exitOK {
			t.Fatalf("exit %d: %s\n%s", code, stderr, out)
		}
		for _, want := range []string{"Result: reverted", "reverted: store: code is zero", "└─ ← [Revert] store: code is zero", "Receipt: status 0", "Fidelity: OK"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		code, out, _ = afrOut("replay", custom.Hex(), "--rpc", url, "--abi", c.abiDir)
		if want := "[Revert] Denied(who=" + c.node.Accounts()[0].Hex() + ", code=7)"; code != exitOK || !strings.Contains(out, want) {
			t.Errorf("custom error: exit %d, output lacks %q:\n%s", code, want, out)
		}
		// Without the ABI the custom error stays visible as its selector.
		code, out, _ = afrOut("replay", custom.Hex(), "--rpc", url)
		if code != exitOK || strings.Contains(out, "Denied(") || !strings.Contains(out, "custom error 0x") {
			t.Errorf("without --abi: exit %d:\n%s", code, out)
		}
	})

	t.Run("json", func(t *testing.T) {
		code, out, stderr := afrOut("replay", "--rpc", url, forward.Hex(), "--abi", c.abiDir, "--json")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r := decodeReplay(t, out)
		if r.TxHash != forward || !r.Fidelity.OK || r.Intent.Call.Name != "forward" || r.Effects.Status != tracesim.StatusSuccess ||
			len(r.Effects.Events) != 2 || r.Effects.Events[0].Name != "Set" || r.Effects.Calls == nil || len(r.Effects.Calls.Calls) != 2 {
			t.Errorf("result: %s", out)
		}
	})

	t.Run("errors", func(t *testing.T) {
		unknown := common.HexToHash("0x" + strings.Repeat("ab", 32))
		code, _, stderr := afrOut("replay", unknown.Hex(), "--rpc", url)
		if code != exitError || !strings.Contains(stderr, "not found") || !strings.Contains(stderr, "hint: check the hash") {
			t.Errorf("unknown hash: exit %d, %q", code, stderr)
		}
		code, _, stderr = afrOut("replay", forward.Hex(), "--rpc", closedURL(t))
		if code != exitError || !strings.Contains(stderr, "connection refused") || !strings.Contains(stderr, "hint: is the node at") {
			t.Errorf("unreachable endpoint: exit %d, %q", code, stderr)
		}
		for _, bad := range []string{"0x1234", forward.Hex()[:65] + "g", strings.TrimPrefix(forward.Hex(), "0x")} {
			code, _, stderr = afrOut("replay", bad, "--rpc", url)
			if code != exitUsage || !strings.Contains(stderr, "want 0x and 64 hex digits") && !strings.Contains(stderr, "not a hex digit") {
				t.Errorf("hash %q: exit %d, %q", bad, code, stderr)
			}
		}
		for _, args := range [][]string{
			{"replay", forward.Hex()},
			{"replay", forward.Hex(), "--offline"},
			{"replay", forward.Hex(), "--rpc", url, "--fixture", t.TempDir(), "--cache", t.TempDir()},
			{"replay", "--rpc", url},
			{"replay", forward.Hex(), reason.Hex(), "--rpc", url},
			{"replay", forward.Hex(), "--rpc", url, "--abi", filepath.Join(t.TempDir(), "missing.json")},
		} {
			if code, _, stderr := afrOut(args...); code != exitUsage || !strings.Contains(stderr, "hint: afr help replay") {
				t.Errorf("%q: exit %d, %q", args, code, stderr)
			}
		}
	})
}

// The fork rules come from the node unless --hardfork or --chain-config
// set them; rules the transaction did not run under make a mismatch, never
// a silent success.
func TestReplayRules(t *testing.T) {
	c := startTestChain(t)
	url := c.node.URL()
	forward := c.mined(c.caller, c.pack("Caller", "forward", c.store, big.NewInt(1), big.NewInt(42)), 1)

	// The contracts are compiled for Cancun (PUSH0 is Shanghai's): under
	// London rules the call cannot run as it did.
	code, out, stderr := afrOut("replay", forward.Hex(), "--rpc", url, "--hardfork", "london")
	if code != exitMismatch || !strings.Contains(out, "Fidelity: MISMATCH") {
		t.Fatalf("--hardfork london: exit %d, %s\n%s", code, stderr, out)
	}
	if code, out, stderr = afrOut("replay", forward.Hex(), "--rpc", url, "--hardfork", "osaka"); code != exitOK {
		t.Fatalf("--hardfork osaka: exit %d, %s\n%s", code, stderr, out)
	}

	dir := t.TempDir()
	genesis := filepath.Join(dir, "genesis.json")
	write := func(chainID uint64) {
		t.Helper()
		js := fmt.Sprintf(`{"config":{"chainId":%d,"homesteadBlock":0,"eip150Block":0,"eip155Block":0,"eip158Block":0,"byzantiumBlock":0,"constantinopleBlock":0,"petersburgBlock":0,"istanbulBlock":0,"berlinBlock":0,"londonBlock":0}}`, chainID)
		if err := os.WriteFile(genesis, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(c.node.ChainID())
	if code, out, stderr = afrOut("replay", forward.Hex(), "--rpc", url, "--chain-config", genesis); code != exitMismatch {
		t.Fatalf("--chain-config (London): exit %d, %s\n%s", code, stderr, out) // PUSH0 is Shanghai's
	}
	write(5)
	if code, _, stderr = afrOut("replay", forward.Hex(), "--rpc", url, "--chain-config", genesis); code != exitError || !strings.Contains(stderr, "for chain 5") {
		t.Fatalf("--chain-config for another chain: exit %d, %s", code, stderr)
	}
	for _, args := range [][]string{
		{"--hardfork", "nosuch"},
		{"--hardfork", "london", "--chain-config", genesis},
		{"--chain-config", filepath.Join(dir, "missing.json")},
	} {
		code, _, stderr := afrOut(append([]string{"replay", forward.Hex(), "--rpc", url}, args...)...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, %s", args, code, stderr)
		}
	}
}

// closedURL is a loopback URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	n := anviltest.Start(t, anvil.Options{})
	url := n.URL()
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	return url
}

// TestReplayOffline: a replay recorded with --cache, and one saved with
// --fixture, replay with --offline to the same result after the node is
// gone; a cache whose receipt disagrees gives exit 6 with the result.
func TestReplayOffline(t *testing.T) {
	c := startTestChain(t)
	url := c.node.URL()
	c.mined(c.store, c.pack("Store", "set", big.NewInt(9), big.NewInt(1)), 1)
	h := c.mined(c.caller, c.pack("Caller", "forward", c.store, big.NewInt(9), big.NewInt(2)), 1)
	cache, fixture := t.TempDir(), t.TempDir()

	code, live, stderr := afrOut("replay", h.Hex(), "--rpc", url, "--abi", c.abiDir, "--cache", cache, "--json")
	if code != exitOK {
		t.Fatalf("--cache: exit %d: %s", code, stderr)
	}
	code, fixed, stderr := afrOut("replay", h.Hex(), "--rpc", url, "--abi", c.abiDir, "--fixture", fixture, "--json")
	if code != exitOK {
		t.Fatalf("--fixture: exit %d: %s", code, stderr)
	}
	if want := "afr replay " + h.Hex() + " --offline --cache " + fixture + " --abi " + c.abiDir; !strings.Contains(stderr, want) {
		t.Errorf("--fixture does not say how to replay offline (%q): %s", want, stderr)
	}
	liveRes := decodeReplay(t, live)
	if liveRes.Stats.Requests == 0 || !liveRes.Fidelity.OK {
		t.Fatalf("live replay: %s", live)
	}
	if err := c.node.Stop(); err != nil {
		t.Fatal(err)
	}

	for dir, recorded := range map[string]string{cache: live, fixture: fixed} {
		code, out, stderr := afrOut("replay", h.Hex(), "--offline", "--cache", dir, "--abi", c.abiDir, "--json")
		if code != exitOK {
			t.Fatalf("--offline --cache %s: exit %d: %s", dir, code, stderr)
		}
		off := decodeReplay(t, out)
		if off.Stats.Requests != 0 {
			t.Errorf("offline replay sent %d requests", off.Stats.Requests)
		}
		if got, want := withoutStats(t, off), withoutStats(t, decodeReplay(t, recorded)); got != want {
			t.Errorf("offline replay from %s differs from the recorded one:\n%s\n%s", dir, got, want)
		}
	}

	// A transaction the cache does not hold.
	code, _, stderr = afrOut("replay", common.HexToHash("0x01").Hex(), "--offline", "--cache", cache)
	if code != exitError || !strings.Contains(stderr, "hint: record it first") {
		t.Errorf("offline, not cached: exit %d, %q", code, stderr)
	}

	// The chain's receipt says other gas than the replay uses: exit 6, and
	// the whole result is printed with the mismatch.
	files, err := filepath.Glob(filepath.Join(cache, "blocks", "*", strconv.FormatUint(liveRes.Block, 10)+".json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("block file of block %d: %v %v", liveRes.Block, files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	rc := f["receipts"].([]any)[liveRes.Index].(map[string]any)
	if rc["gasUsed"] != hexutil.EncodeUint64(liveRes.Receipt.GasUsed) {
		t.Fatalf("receipt in the block file: %v", rc)
	}
	rc["gasUsed"] = hexutil.EncodeUint64(liveRes.Receipt.GasUsed + 1)
	if b, err = json.Marshal(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := afrOut("replay", h.Hex(), "--offline", "--cache", cache, "--abi", c.abiDir)
	wantLine := fmt.Sprintf("gas_used: receipt %d, replay %d", liveRes.Receipt.GasUsed+1, liveRes.Receipt.GasUsed)
	if code != exitMismatch || !strings.Contains(out, "Fidelity: MISMATCH (1)\n  "+wantLine) || !strings.Contains(out, "emit Store.Set(key: 9, value: 2)") ||
		!strings.Contains(stderr, "does not match the chain's receipt") {
		t.Errorf("mismatch: exit %d, stderr %q:\n%s", code, stderr, out)
	}
}
