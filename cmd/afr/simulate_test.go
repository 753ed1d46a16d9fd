package main

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/tracesim"
)

func decodeSimulation(t *testing.T, stdout string) *tracesim.Simulation {
	t.Helper()
	var s tracesim.Simulation
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--json output does not decode as a Simulation: %v\n%s", err, stdout)
	}
	if len(s.Calls) != 1 {
		t.Fatalf("%d calls simulated, want 1", len(s.Calls))
	}
	return &s
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSimulate simulates calls and signed transactions on a fork of a live
// anvil, with state and block overrides that change the outcome.
func TestSimulate(t *testing.T) {
	c := startTestChain(t)
	url := c.node.URL()
	from := c.node.Accounts()[0].Hex()
	set := hexutil.Encode(c.pack("Store", "set", big.NewInt(5), big.NewInt(9)))
	var head hexutil.Uint64
	c.call(&head, "eth_blockNumber")

	t.Run("call", func(t *testing.T) {
		code, out, stderr := afrOut("simulate", "--rpc", url, "--block", "latest", "--from", from, "--to", c.store.Hex(), "--data", set, "--abi", c.abiDir)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if want := "latest is block " + strconv.FormatUint(uint64(head), 10); !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
		for _, want := range []string{
			"at block " + strconv.FormatUint(uint64(head), 10) + " (",
			"call   Store.set(key: 5, value: 9)", "Result: success", "emit Store.Set(key: 5, value: 9)", "Storage changes\n  " + c.store.Hex(),
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		// The chain is not changed.
		var got hexutil.Bytes
		c.call(&got, "eth_call", map[string]any{"to": c.store, "data": hexutil.Bytes(c.pack("Store", "get", big.NewInt(5)))}, "latest")
		if new(big.Int).SetBytes(got).Sign() != 0 {
			t.Errorf("data[5] on the chain is %x after a simulation", got)
		}
		code, out, _ = afrOut("simulate", "--rpc", url, "--block", strconv.FormatUint(uint64(head), 10), "--from", from, "--to", c.store.Hex(),
			"--data", hexutil.Encode(c.pack("Store", "fail", big.NewInt(0))))
		if code != exitOK || !strings.Contains(out, "Result: reverted, gas used") || !strings.Contains(out, "reverted: store: code is zero") {
			t.Errorf("reverting call: exit %d:\n%s", code, out)
		}
	})

	t.Run("overrides", func(t *testing.T) {
		args := []string{"simulate", "--rpc", url, "--block", "latest", "--from", from, "--to", c.store.Hex(), "--data", set, "--json", "--abi", c.abiDir}
		code, out, stderr := afrOut(args...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if s := decodeSimulation(t, out); s.Calls[0].Effects.Status != tracesim.StatusSuccess {
			t.Fatalf("without overrides: %s", out)
		}
		// counter (slot 0) at its maximum: set's counter += 1 overflows.
		state := writeFile(t, "state.json", `{"`+c.store.Hex()+`": {"stateDiff": {"0x0000000000000000000000000000000000000000000000000000000000000000": "0x`+strings.Repeat("ff", 32)+`"}}}`)
		code, out, stderr = afrOut(append(args, "--state-override", state)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		s := decodeSimulation(t, out)
		if ef := s.Calls[0].Effects; ef.Status != tracesim.StatusReverted || ef.Revert == nil || ef.Revert.Kind != "panic" || !strings.Contains(ef.Revert.Reason, "overflow") {
			t.Errorf("with counter at its maximum: %s", out)
		}
		// env() returns the block number first.
		blockOv := writeFile(t, "block.json", `{"number": "0x1234"}`)
		code, out, stderr = afrOut("simulate", "--rpc", url, "--block", "latest", "--from", from, "--to", c.store.Hex(),
			"--data", hexutil.Encode(c.pack("Store", "env")), "--json", "--block-override", blockOv)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if rd := decodeSimulation(t, out).Calls[0].Effects.ReturnData; len(rd) < 32 || new(big.Int).SetBytes(rd[:32]).Int64() != 0x1234 {
			t.Errorf("block override: return data %x", rd)
		}
		typo := writeFile(t, "typo.json", `{"`+c.store.Hex()+`": {"stateDif": {}}}`)
		if code, _, stderr := afrOut(append(args, "--state-override", typo)...); code != exitUsage || !strings.Contains(stderr, "stateDif") {
			t.Errorf("misspelt override: exit %d, %q", code, stderr)
		}
	})

	t.Run("raw", func(t *testing.T) {
		key := c.node.Keys()[1]
		sender := c.node.Accounts()[1]
		chainID := new(big.Int).SetUint64(c.node.ChainID())
		sign := func(chain *big.Int, nonce uint64) string {
			tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chain), &types.DynamicFeeTx{
				ChainID: chain, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e10), Gas: 200_000,
				To: &c.store, Value: big.NewInt(0), Data: c.pack("Store", "set", big.NewInt(7), big.NewInt(8)),
			})
			if err != nil {
				t.Fatal(err)
			}
			b, err := tx.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			return hexutil.Encode(b)
		}
		code, out, stderr := afrOut("simulate", "--rpc", url, "--block", "latest", "--raw", sign(chainID, 0), "--json", "--abi", c.abiDir)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		s := decodeSimulation(t, out)
		in, ef := s.Calls[0].Intent, s.Calls[0].Effects
		if in.From != sender || in.Target == nil || *in.Target != c.store || in.Call.Name != "set" || ef.Status != tracesim.StatusSuccess ||
			len(ef.Events) != 1 || ef.Events[0].Name != "Set" {
			t.Errorf("raw transaction: %s", out)
		}
		if strings.Contains(stderr, "nonce") {
			t.Errorf("nonce reported for a transaction with the sender's nonce: %s", stderr)
		}
		code, _, stderr = afrOut("simulate", "--rpc", url, "--block", "latest", "--raw", sign(chainID, 5))
		if code != exitOK || !strings.Contains(stderr, "nonce is 5, the sender's nonce at the block is 0") {
			t.Errorf("future nonce: exit %d, %q", code, stderr)
		}
		code, _, stderr = afrOut("simulate", "--rpc", url, "--block", "latest", "--raw", sign(big.NewInt(1), 0))
		if code != exitUsage || !strings.Contains(stderr, "signed for chain 1, the endpoint is chain "+chainID.String()) {
			t.Errorf("other chain: exit %d, %q", code, stderr)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"--block", "latest", "--from", from, "--to", c.store.Hex()},
			{"--rpc", url, "--from", from, "--to", c.store.Hex()},
			{"--rpc", url, "--block", "latest"},
			{"--rpc", url, "--block", "latest", "--raw", "0x02", "--from", from},
			{"--rpc", url, "--block", "latest", "--raw", "0x1234"},
			{"--rpc", url, "--block", "latest", "--from", "0x12", "--to", c.store.Hex()},
			{"--rpc", url, "--block", "latest", "--from", from, "--to", c.store.Hex(), "--data", "0xzz"},
			{"--rpc", url, "--block", "latest", "--from", from, "--to", c.store.Hex(), "--value", "-1"},
			{"--rpc", url, "--block", "latest", "--from", from},
			{"--rpc", url, "--block", "pending", "--from", from, "--to", c.store.Hex()},
		} {
			if code, _, stderr := afrOut(append([]string{"simulate"}, args...)...); code != exitUsage || !strings.Contains(stderr, "hint: afr help simulate") {
				t.Errorf("%q: exit %d, %q", args, code, stderr)
			}
		}
		code, _, stderr := afrOut("simulate", "--rpc", url, "--block", "999999", "--from", from, "--to", c.store.Hex())
		if code != exitError || !strings.Contains(stderr, "not found") {
			t.Errorf("unknown block: exit %d, %q", code, stderr)
		}
		code, _, stderr = afrOut("simulate", "--rpc", closedURL(t), "--block", "latest", "--from", from, "--to", common.Address{}.Hex())
		if code != exitError || !strings.Contains(stderr, "hint: is the node at") {
			t.Errorf("unreachable endpoint: exit %d, %q", code, stderr)
		}
	})
}
