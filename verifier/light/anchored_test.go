package light_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/light"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// TestAnchoredTopic: the topic is the event ID in EpochAnchor's ABI.
func TestAnchoredTopic(t *testing.T) {
	if id := bindings.NewEpochAnchor().GetABI().Events["Anchored"].ID.Hex(); id != light.AnchoredTopic {
		t.Fatalf("AnchoredTopic %s, the ABI's Anchored event is %s", light.AnchoredTopic, id)
	}
}

// getLogs sends the page's request: eth_getLogs with AnchoredFilter, over
// HTTP, and returns the node's answer as the page receives it.
func getLogs(t *testing.T, url string, contract, operator common.Address) []byte {
	t.Helper()
	filter, err := light.AnchoredFilter(contract.Hex(), operator.Hex())
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[%s]}`, filter)
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("eth_getLogs: HTTP %d, %v: %s", resp.StatusCode, err, answer)
	}
	return answer
}

// TestAnchorsFromLogsMatchesChainAnchors: on a real chain with two
// operators anchoring, the page's decoding of the node's raw eth_getLogs
// answer gives exactly the anchors afr verify reads through go-ethereum's
// ABI decoder (onchain.ChainAnchors, chain.FilterAnchored) — the same
// logs, decoded by both.
func TestAnchorsFromLogsMatchesChainAnchors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := backend.NewEmbedded(backend.EmbeddedOptions{HTTP: "127.0.0.1:0", BlockPeriod: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := e.Client()
	dep, err := chain.Deploy(ctx, c, e.Keys()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	ea := bindings.NewEpochAnchor()
	ops := e.Keys()[1:3]
	for i, op := range ops {
		var prev [32]byte
		for epoch := range uint64(3 + i) {
			root := format.Digest{byte(i + 1), byte(epoch + 1), 0xAF}
			if _, err := chain.Transact(ctx, c, op, &dep.EpochAnchor, nil, ea.PackAnchor(epoch, root, prev)); err != nil {
				t.Fatal(err)
			}
			prev = root
		}
	}
	for i, key := range ops {
		op := chain.Address(key)
		want, err := onchain.ChainAnchors{Client: c, Contract: dep.EpochAnchor, Operator: op}.Anchors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 3+i {
			t.Fatalf("operator %d: %d anchors on chain, want %d", i, len(want), 3+i)
		}
		answer := getLogs(t, e.URL(), dep.EpochAnchor, op)
		out, err := light.AnchorsFromLogs(answer, dep.EpochAnchor.Hex(), strings.ToLower(op.Hex()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := verifier.ParseAnchors([]byte(out))
		if err != nil {
			t.Fatalf("AnchorsFromLogs wrote no anchors file: %v\n%s", err, out)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if !bytes.Equal(wj, gj) {
			t.Fatalf("operator %d:\npage  %s\nchain %s", i, gj, wj)
		}
		// The bare result array decodes the same.
		var resp struct{ Result json.RawMessage }
		if err := json.Unmarshal(answer, &resp); err != nil {
			t.Fatal(err)
		}
		if bare, err := light.AnchorsFromLogs(resp.Result, dep.EpochAnchor.Hex(), op.Hex()); err != nil || bare != out {
			t.Fatalf("bare result: %v\n%s\nwant %s", err, bare, out)
		}
	}
	// A node answering with another operator's events does not filter as
	// asked: an error, not anchors.
	other := getLogs(t, e.URL(), dep.EpochAnchor, chain.Address(ops[1]))
	if _, err := light.AnchorsFromLogs(other, dep.EpochAnchor.Hex(), chain.Address(ops[0]).Hex()); err == nil || !strings.Contains(err.Error(), "another operator") {
		t.Fatalf("another operator's events: %v", err)
	}
	if _, err := light.AnchorsFromLogs(other, chain.Address(ops[0]).Hex(), chain.Address(ops[1]).Hex()); err == nil || !strings.Contains(err.Error(), "does not filter") {
		t.Fatalf("another contract's events: %v", err)
	}
}

// TestAnchorsFromLogsInput: answers that are not logs of Anchored events
// are errors naming what is wrong.
func TestAnchorsFromLogsInput(t *testing.T) {
	const contract, operator = "0x5FbDB2315678afecb367f032d93F642f64180aa3", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	opTopic := "0x00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8"
	log := func(epochTopic, data string, removed bool) string {
		return fmt.Sprintf(`{"address":%q,"topics":[%q,%q,%q],"data":%q,"blockNumber":"0x2","transactionHash":"0x01","removed":%v}`,
			contract, light.AnchoredTopic, opTopic, epochTopic, data, removed)
	}
	epoch1 := "0x" + strings.Repeat("0", 63) + "1"
	data := "0x" + strings.Repeat("11", 32) + strings.Repeat("22", 32)
	for name, c := range map[string]struct{ answer, contract, operator, want string }{
		"rpc error":        {`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"query returned more than 10000 results"}}`, contract, operator, "more than 10000"},
		"not json-rpc":     {`<html>`, contract, operator, "not JSON-RPC"},
		"no result":        {`{"jsonrpc":"2.0","id":1}`, contract, operator, "neither result nor error"},
		"bad operator":     {`[]`, contract, "0x1234", "operator address"},
		"bad contract":     {`[]`, "5FbDB2315678afecb367f032d93F642f64180aa3", operator, "no 0x prefix"},
		"short data":       {"[" + log(epoch1, data[:66], false) + "]", contract, operator, "32 bytes, want 64"},
		"epoch over 2^64":  {"[" + log("0x01"+epoch1[4:], data, false) + "]", contract, operator, "not a uint64"},
		"removed and kept": {"[" + log(epoch1, "0x", true) + "," + log(epoch1, data, false) + "]", contract, operator, ""},
	} {
		out, err := light.AnchorsFromLogs([]byte(c.answer), c.contract, c.operator)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.want == "":
			as, err := verifier.ParseAnchors([]byte(out))
			if err != nil || len(as) != 1 || as[0].Epoch != 1 || as[0].Root != (format.Digest(bytes.Repeat([]byte{0x11}, 32))) ||
				as[0].PrevRoot != format.Digest(bytes.Repeat([]byte{0x22}, 32)) || as[0].Source != "chain tx 0x01 block 2" {
				t.Errorf("%s: %v %+v", name, err, as)
			}
		case err == nil || !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}
