package tracesim

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/evm"
)

// poolAnswers stands in front of a real anvil and answers
// eth_getTransactionByHash as anvil does for a transaction it has just
// mined but not yet dropped from its pool: no block. With noReceipts it
// also withholds receipts, as for a transaction that is really pending.
func poolAnswers(t *testing.T, upstream string, noReceipts bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		resp, err := http.Post(upstream, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var reqs []struct{ Method string }
		var answers []map[string]json.RawMessage
		if json.Unmarshal(body, &reqs) == nil && json.Unmarshal(out, &answers) == nil && len(reqs) == len(answers) {
			for i, req := range reqs {
				switch {
				case req.Method == "eth_getTransactionByHash":
					var tx map[string]any
					if json.Unmarshal(answers[i]["result"], &tx) == nil && tx != nil {
						tx["blockNumber"], tx["blockHash"], tx["transactionIndex"] = nil, nil, nil
						answers[i]["result"], _ = json.Marshal(tx)
					}
				case req.Method == "eth_getTransactionReceipt" && noReceipts:
					answers[i]["result"] = json.RawMessage("null")
				}
			}
			out, _ = json.Marshal(answers)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestReplayTxAnsweredFromPool checks that a mined transaction anvil still
// answers from its pool is replayed in the block its receipt names, and
// that one with no receipt either is reported as pending.
func TestReplayTxAnsweredFromPool(t *testing.T) {
	if testing.Short() {
		t.Skip("starts anvil")
	}
	c := startChain(t)
	accts := c.node.Accounts()
	rc := c.send(accts[0], &accts[1], nil, ether(1))
	ctx := context.Background()
	opts := &ReplayOptions{Mode: evm.Live, ChainConfig: pragueConfig(c.node.ChainID())}

	res, err := Replay(ctx, poolAnswers(t, c.node.URL(), false), rc.TxHash, opts)
	if err != nil {
		t.Fatalf("mined, answered from the pool: %v", err)
	}
	if res.Block != rc.BlockNumber.Uint64() {
		t.Errorf("replayed in block %d, the receipt says %d", res.Block, rc.BlockNumber)
	}
	if len(res.Effects.Balances) < 2 {
		t.Errorf("value transfer: %d balance changes, want sender and receiver at least", len(res.Effects.Balances))
	}

	_, err = Replay(ctx, poolAnswers(t, c.node.URL(), true), rc.TxHash, opts)
	if err == nil || !strings.Contains(err.Error(), "is pending") {
		t.Errorf("no block and no receipt: %v, want a pending transaction", err)
	}
}
