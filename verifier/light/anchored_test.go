//go:build !js

// The chain tests run natively only: go-ethereum does not build for js/wasm.
package light_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
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
func getLogs(t *testing.T, url string, contract, operator common.Address, logID format.Digest) []byte {
	t.Helper()
	filter, err := light.AnchoredFilter(contract.Hex(), operator.Hex(), logID.String())
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
// operators anchoring two logs each, the page's decoding of the node's raw
// eth_getLogs answer gives exactly the anchors afr verify reads through
// go-ethereum's ABI decoder (onchain.ChainAnchors, chain.FilterAnchored) —
// the same logs, decoded by both.
func TestAnchorsFromLogsMatchesChainAnchors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := embedded.New(backend.EmbeddedOptions{HTTP: "127.0.0.1:0", BlockPeriod: -1})
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
	logs := []format.Digest{format.LogID("light-a", format.SessionID{1}), format.LogID("light-b", format.SessionID{2})}
	for i, op := range ops {
		for j, id := range logs {
			var prev [32]byte
			for epoch := range uint64(3 + i + j) {
				root := format.Digest{byte(i + 1), byte(j + 1), byte(epoch + 1), 0xAF}
				if _, err := chain.Transact(ctx, c, op, &dep.EpochAnchor, nil, ea.PackAnchor(id, epoch, root, prev)); err != nil {
					t.Fatal(err)
				}
				prev = root
			}
		}
	}
	for i, key := range ops {
		op := chain.Address(key)
		want, err := onchain.ChainAnchors{Client: c, Contract: dep.EpochAnchor, Operator: op, LogID: logs[1]}.Anchors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 4+i {
			t.Fatalf("operator %d: %d anchors on chain, want %d", i, len(want), 4+i)
		}
		answer := getLogs(t, e.URL(), dep.EpochAnchor, op, logs[1])
		out, err := light.AnchorsFromLogs(answer, dep.EpochAnchor.Hex(), strings.ToLower(op.Hex()), logs[1].String())
		if err != nil {
			t.Fatal(err)
		}
		got, err := format.ParseAnchors([]byte(out))
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
		if bare, err := light.AnchorsFromLogs(resp.Result, dep.EpochAnchor.Hex(), op.Hex(), logs[1].String()); err != nil || bare != out {
			t.Fatalf("bare result: %v\n%s\nwant %s", err, bare, out)
		}
	}
	// A node answering with another operator's or another log's events
	// does not filter as asked: an error, not anchors.
	other := getLogs(t, e.URL(), dep.EpochAnchor, chain.Address(ops[1]), logs[1])
	if _, err := light.AnchorsFromLogs(other, dep.EpochAnchor.Hex(), chain.Address(ops[0]).Hex(), logs[1].String()); err == nil || !strings.Contains(err.Error(), "another operator") {
		t.Fatalf("another operator's events: %v", err)
	}
	if _, err := light.AnchorsFromLogs(other, dep.EpochAnchor.Hex(), chain.Address(ops[1]).Hex(), logs[0].String()); err == nil || !strings.Contains(err.Error(), "another log") {
		t.Fatalf("another log's events: %v", err)
	}
	if _, err := light.AnchorsFromLogs(other, chain.Address(ops[0]).Hex(), chain.Address(ops[1]).Hex(), logs[1].String()); err == nil || !strings.Contains(err.Error(), "does not filter") {
		t.Fatalf("another contract's events: %v", err)
	}
	// Once the operator anchors an aggregate batch (which could hold a
	// second root for an epoch of the log), the page's filter returns its
	// batch chain too and the page refuses to answer from per-log anchors
	// alone; another operator's page is unaffected.
	op := ops[0]
	entries := []format.BatchEntry{{Log: logs[1], Epoch: 1, Root: format.Digest{0xf0, 0x4c}, PrevRoot: format.Digest{1, 2, 1, 0xAF}}}
	root, err := format.BatchRoot(0, entries)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chain.Transact(ctx, c, op, &dep.EpochAnchor, nil, ea.PackAnchorBatch(0, root, [32]byte{}, format.EncodeBatchEntries(entries))); err != nil {
		t.Fatal(err)
	}
	answer := getLogs(t, e.URL(), dep.EpochAnchor, chain.Address(op), logs[1])
	if _, err := light.AnchorsFromLogs(answer, dep.EpochAnchor.Hex(), chain.Address(op).Hex(), logs[1].String()); !errors.Is(err, light.ErrBatchesUnread) {
		t.Fatalf("an operator with a batch: %v, want ErrBatchesUnread", err)
	}
	answer = getLogs(t, e.URL(), dep.EpochAnchor, chain.Address(ops[1]), logs[1])
	if _, err := light.AnchorsFromLogs(answer, dep.EpochAnchor.Hex(), chain.Address(ops[1]).Hex(), logs[1].String()); err != nil {
		t.Fatalf("an operator without batches: %v", err)
	}
}
