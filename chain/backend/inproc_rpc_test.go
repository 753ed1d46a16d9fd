package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
)

// served is a backend whose Client is an ethclient dialed to its URL, so a
// script sent through it goes over HTTP JSON-RPC.
type served struct {
	backend.Backend
	c *ethclient.Client
}

func (s served) Client() chain.Client { return s.c }

// serveInProcess starts an in-process chain serving JSON-RPC on loopback.
func serveInProcess(t *testing.T) (*backend.InProcess, string) {
	t.Helper()
	c := startInProcess(t)
	if c.URL() != "" {
		t.Fatalf("URL before ServeRPC = %q, want none", c.URL())
	}
	url, err := c.ServeRPC()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || c.URL() != url {
		t.Fatalf("ServeRPC = %q, URL = %q; want the same loopback URL", url, c.URL())
	}
	if again, err := c.ServeRPC(); err != nil || again != url {
		t.Fatalf("ServeRPC again = %q, %v; want %q", again, err, url)
	}
	return c, url
}

func dialRPC(t *testing.T, url string) *rpc.Client {
	t.Helper()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestInProcessRPCMatchesEmbedded is the differential test of the served
// chain: the script of TestInProcessMatchesEmbedded sent over HTTP through
// ethclient (eth_sendRawTransaction, eth_estimateGas, eth_call with a
// revert, eth_getLogs, historical reads, headers whose hash ethclient
// recomputes) gives the embedded chain's facts; then every answer of the
// eth_* methods for the blocks, transactions, receipts, logs, fee history
// and state it left is the embedded chain's JSON byte for byte, once what
// legitimately differs is masked: the state root (the in-process chain's
// state omits the consensus client's system calls), PREVRANDAO (mixHash:
// keccak256 of the number, not random) and so every block hash (named
// "block-N" on both sides wherever it appears: blocks, parent hashes,
// transactions, receipts, logs). Not compared: "pending", which on the
// embedded chain is the empty block its miner prepares and on the
// in-process chain the head (it seals every transaction when sent), and
// the gas price oracle's suggestions.
func TestInProcessRPCMatchesEmbedded(t *testing.T) {
	emb, err := embedded.New(backend.EmbeddedOptions{Keys: 1, BlockPeriod: -1, GenesisTime: genesis, HTTP: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emb.Close() })
	want := script(t, emb)
	c, url := serveInProcess(t)
	ec, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	got := script(t, served{c, ec})
	if len(got) != len(want) {
		t.Fatalf("%d facts on inproc over RPC, %d on embedded", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("fact %d:\ninproc   %+v\nembedded %+v", i, got[i], want[i])
		}
	}
	wantJSON, gotJSON := answers(t, dialRPC(t, emb.URL())), answers(t, dialRPC(t, url))
	if len(gotJSON) != len(wantJSON) {
		t.Fatalf("%d answers on inproc, %d on embedded", len(gotJSON), len(wantJSON))
	}
	for i := range wantJSON {
		if gotJSON[i] != wantJSON[i] {
			t.Errorf("answer %d:\ninproc   %s\nembedded %s", i, gotJSON[i], wantJSON[i])
		}
	}
}

// masked are the fields whose values legitimately differ between the
// chains (see TestInProcessRPCMatchesEmbedded).
var masked = regexp.MustCompile(`"(stateRoot|mixHash|extraData|size)":"0x[0-9a-f]*"`)

// answers asks c for everything about the chain's blocks and returns the
// raw JSON answers, masked.
func answers(t *testing.T, c *rpc.Client) []string {
	t.Helper()
	ctx := context.Background()
	var head hexutil.Uint64
	if err := c.CallContext(ctx, &head, "eth_blockNumber"); err != nil {
		t.Fatal(err)
	}
	var out []string
	var hashes []string
	ask := func(method string, args ...any) json.RawMessage {
		var raw json.RawMessage
		if err := c.CallContext(ctx, &raw, method, args...); err != nil {
			t.Fatalf("%s%v: %v", method, args, err)
		}
		out = append(out, method+" "+string(raw))
		return raw
	}
	key := chain.Address(backend.DevKey(0))
	var anchor common.Address
	for n := range uint64(head) + 1 {
		num := hexutil.Uint64(n)
		var blk struct {
			Hash         common.Hash `json:"hash"`
			Transactions []struct {
				Hash common.Hash     `json:"hash"`
				To   *common.Address `json:"to"`
			} `json:"transactions"`
		}
		if err := json.Unmarshal(ask("eth_getBlockByNumber", num, true), &blk); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, strings.ToLower(blk.Hash.Hex()))
		ask("eth_getBlockByNumber", num, false)
		ask("eth_getBlockByHash", blk.Hash, false)
		ask("eth_getBlockReceipts", num)
		for _, tx := range blk.Transactions {
			ask("eth_getTransactionByHash", tx.Hash)
			rc := ask("eth_getTransactionReceipt", tx.Hash)
			var r struct {
				ContractAddress *common.Address `json:"contractAddress"`
			}
			if err := json.Unmarshal(rc, &r); err != nil {
				t.Fatal(err)
			}
			if r.ContractAddress != nil && anchor == (common.Address{}) {
				anchor = *r.ContractAddress
			}
		}
		ask("eth_getBalance", key, num)
		ask("eth_getTransactionCount", key, num)
		ask("eth_getCode", anchor, num)
		ask("eth_getStorageAt", anchor, "0x0", num)
	}
	ask("eth_getLogs", map[string]any{"fromBlock": "earliest", "toBlock": "latest"})
	ask("eth_getLogs", map[string]any{"fromBlock": "0x1", "toBlock": "latest", "address": anchor})
	ask("eth_feeHistory", hexutil.Uint64(head+1), "latest", []float64{10, 50, 90})
	ask("eth_feeHistory", "0x2", hexutil.Uint64(head-1), []float64{})
	ask("eth_feeHistory", "0x0", "latest", []float64{50})
	ask("eth_getBlockByNumber", hexutil.Uint64(head+1), false) // null
	ask("eth_getTransactionByHash", common.Hash{1})            // null
	ask("eth_getTransactionReceipt", common.Hash{1})           // null
	ask("eth_chainId")
	ask("net_version")
	for i, s := range out {
		s = masked.ReplaceAllString(s, `"$1":"masked"`)
		for n, h := range hashes {
			s = strings.ReplaceAll(s, h, fmt.Sprintf("block-%d", n))
		}
		out[i] = s
	}
	return out
}

// TestInProcessRPCErrors: the served chain answers like a go-ethereum node
// for an unknown method, bad parameters, a reverting call (code 3 with the
// revert data) and an unknown block's state; once the chain is closed, its
// URL and its in-process client refuse.
func TestInProcessRPCErrors(t *testing.T) {
	ctx := context.Background()
	c, url := serveInProcess(t)
	rc := dialRPC(t, url)
	code := func(err error) int {
		var e rpc.Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v has no JSON-RPC code", err)
		}
		return e.ErrorCode()
	}
	var raw json.RawMessage
	err := rc.CallContext(ctx, &raw, "eth_noSuchMethod")
	if err == nil || code(err) != -32601 || !strings.Contains(err.Error(), "eth_noSuchMethod") {
		t.Errorf("unknown method: %v", err)
	}
	err = rc.CallContext(ctx, &raw, "eth_getBalance", "not an address", "latest")
	if err == nil || code(err) != -32602 {
		t.Errorf("bad address: %v, want invalid params (-32602)", err)
	}
	err = rc.CallContext(ctx, &raw, "eth_getBalance", common.Address{})
	if err == nil || code(err) != -32602 || !strings.Contains(err.Error(), "missing value") {
		t.Errorf("missing block: %v, want invalid params (-32602)", err)
	}
	err = rc.CallContext(ctx, &raw, "eth_getBalance", common.Address{}, "0x99")
	if err == nil || err.Error() != "header not found" {
		t.Errorf("state at an unknown block: %v, want header not found", err)
	}
	err = rc.CallContext(ctx, &raw, "eth_sendRawTransaction", "0x01")
	if err == nil {
		t.Errorf("sending a malformed transaction: no error")
	}
	err = rc.CallContext(ctx, &raw, "eth_feeHistory", "0x1", "latest", []float64{50, 10})
	if err == nil || !strings.Contains(err.Error(), "invalid reward percentile") {
		t.Errorf("fee history with decreasing percentiles: %v", err)
	}

	addr := deployCode(t, ctx, c.Client(), c.Keys()[0], "63deadbeef5f526004601cfd") // revert(0xdeadbeef)
	err = rc.CallContext(ctx, &raw, "eth_call", map[string]any{"to": addr}, "latest")
	var de rpc.DataError
	if err == nil || code(err) != 3 || err.Error() != "execution reverted" || !errors.As(err, &de) || de.ErrorData() != "0xdeadbeef" {
		t.Errorf("reverting call: %v, want code 3, execution reverted, data 0xdeadbeef", err)
	}
	err = rc.CallContext(ctx, &raw, "eth_estimateGas", map[string]any{"to": addr})
	if err == nil || code(err) != 3 || !errors.As(err, &de) || de.ErrorData() != "0xdeadbeef" {
		t.Errorf("estimating a reverting call: %v, want code 3 with data 0xdeadbeef", err)
	}
	err = rc.CallContext(ctx, &raw, "eth_call", map[string]any{"to": addr, "data": "0x01", "input": "0x02"})
	if err == nil || !strings.Contains(err.Error(), `both "data" and "input"`) {
		t.Errorf("call with data and input: %v", err)
	}

	in, err := c.Attach()
	if err != nil {
		t.Fatal(err)
	}
	if err := in.CallContext(ctx, &raw, "eth_blockNumber"); err != nil {
		t.Fatalf("in-process client: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := in.CallContext(ctx, &raw, "eth_blockNumber"); err == nil {
		t.Error("the in-process client answers after Close")
	}
	if _, err := c.Attach(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Attach after Close: %v, want the chain is closed", err)
	}
	if err := dialRPC(t, url).CallContext(ctx, &raw, "eth_blockNumber"); err == nil {
		t.Error("the URL answers after Close")
	}
	if c.URL() != "" {
		t.Errorf("URL after Close = %q", c.URL())
	}
}

// TestInProcessRPCCast drives the served chain with foundry's cast: the
// block number, a transfer and a contract deployment sent with
// --private-key (cast estimates, prices with eth_feeHistory, signs, sends
// and waits), a call, and the receipt, each checked against the chain's
// own client.
func TestInProcessRPCCast(t *testing.T) {
	castBin, err := filepath.Abs("../../node_modules/.bin/cast")
	if err == nil {
		castBin, err = exec.LookPath(castBin)
	}
	if err != nil {
		t.Skip("cast is not installed (make setup installs it)")
	}
	ctx := context.Background()
	c, url := serveInProcess(t)
	cast := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(castBin, append([]string{args[0], "--rpc-url", url}, args[1:]...)...).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("cast %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
			}
			t.Fatalf("cast %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	head := func() uint64 {
		n, err := c.Client().BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := cast("block-number"); got != strconv.FormatUint(head(), 10) {
		t.Errorf("cast block-number = %s, want %d", got, head())
	}
	key := hexutil.Encode(crypto.FromECDSA(c.Keys()[0]))
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	var sent struct {
		TransactionHash common.Hash    `json:"transactionHash"`
		Status          string         `json:"status"`
		GasUsed         hexutil.Uint64 `json:"gasUsed"`
	}
	if err := json.Unmarshal([]byte(cast("send", "--json", "--private-key", key, to.Hex(), "--value", "7")), &sent); err != nil {
		t.Fatal(err)
	}
	if bal, err := c.Client().BalanceAt(ctx, to, nil); err != nil || bal.Cmp(big.NewInt(7)) != 0 {
		t.Errorf("balance after cast send --value 7: %v, %v", bal, err)
	}
	rc, err := c.Client().TransactionReceipt(ctx, sent.TransactionHash)
	if err != nil || sent.Status != "0x1" || uint64(sent.GasUsed) != rc.GasUsed || rc.GasUsed != 21_000 {
		t.Errorf("cast send: %+v; the chain's receipt %+v, %v", sent, rc, err)
	}
	// A contract that returns 42 to every call: mstore(0, 42); return(0, 32).
	runtime := "602a5f5260205ff3"
	initcode := fmt.Sprintf("0x60%02x600c60003960%02x6000f3%s", len(runtime)/2, len(runtime)/2, runtime)
	var deployed struct {
		ContractAddress common.Address `json:"contractAddress"`
		TransactionHash common.Hash    `json:"transactionHash"`
	}
	if err := json.Unmarshal([]byte(cast("send", "--json", "--private-key", key, "--create", initcode)), &deployed); err != nil {
		t.Fatal(err)
	}
	if got := cast("call", deployed.ContractAddress.Hex(), "answer()(uint256)"); got != "42" {
		t.Errorf("cast call answer() = %q, want 42", got)
	}
	var receipt struct {
		BlockNumber     hexutil.Uint64 `json:"blockNumber"`
		ContractAddress common.Address `json:"contractAddress"`
		Status          string         `json:"status"`
	}
	if err := json.Unmarshal([]byte(cast("receipt", "--json", deployed.TransactionHash.Hex())), &receipt); err != nil {
		t.Fatal(err)
	}
	if receipt.Status != "0x1" || receipt.ContractAddress != deployed.ContractAddress || uint64(receipt.BlockNumber) != head() {
		t.Errorf("cast receipt = %+v; want status 0x1, contract %s, block %d", receipt, deployed.ContractAddress, head())
	}
	if got := cast("client"); got != backend.ClientVersion {
		t.Errorf("cast client = %q, want %q", got, backend.ClientVersion)
	}
}
