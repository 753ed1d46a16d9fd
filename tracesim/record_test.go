package tracesim

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/format"
)

// A re-entrant transaction's call tree nests deeper than a payload value
// may; Payload keeps it as its JSON text, so the payload still records
// (before, the recorder refused it: "nested 17 levels deep, limit 16").
func TestPayloadOfDeepCallTree(t *testing.T) {
	to := common.HexToAddress("0x7a")
	var tree *Frame
	for range 12 {
		f := &Frame{Type: "CALL", To: &to, Call: &calldata.Call{Selector: "0x3ccfd60b"}}
		if tree != nil {
			f.Calls = []*Frame{tree}
		}
		tree = f
	}
	shallow := &Frame{Type: "CALL", To: &to, Call: &calldata.Call{Selector: "0x3ccfd60b"}}
	for _, tc := range []struct {
		name   string
		calls  *Frame
		asText bool
	}{{"shallow", shallow, false}, {"12 calls deep", tree, true}} {
		r := &ReplayResult{ChainID: 1, Effects: &Effects{Status: StatusSuccess, Calls: tc.calls}}
		p := r.Payload()
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: the payload does not validate: %v", tc.name, err)
		}
		text, isText := p.Ext[ExtCalls].(string)
		if isText != tc.asText {
			t.Fatalf("%s: call tree stored as text: %v, want %v", tc.name, isText, tc.asText)
		}
		if isText {
			var back Frame
			if err := json.Unmarshal([]byte(text), &back); err != nil || back.Calls[0].Calls[0].Type != "CALL" {
				t.Fatalf("%s: the JSON text does not hold the tree: %v", tc.name, err)
			}
		}
	}
}

// An ext entry too large for a payload (a batch of thousands of transfers)
// is kept as its size and digest, so the payload still encodes.
func TestPayloadOfHugeTransfers(t *testing.T) {
	var ts []Transfer
	for i := range 20_000 {
		ts = append(ts, Transfer{Standard: "erc20", Token: common.HexToAddress("0x70"), From: common.HexToAddress("0xf0"),
			To: common.BigToAddress(big.NewInt(int64(i + 1))), Amount: calldata.NewDec(big.NewInt(int64(i))), LogIndex: i})
	}
	r := &ReplayResult{ChainID: 1, Effects: &Effects{Status: StatusSuccess, Transfers: ts}}
	p := r.Payload()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if b, err := format.EncodePayload(p); err != nil || len(b) > format.MaxPayloadSize {
		t.Fatalf("the payload does not encode within the limit: %d bytes, %v", len(b), err)
	}
	m, ok := p.Ext[ExtTransfers].(map[string]any)
	if !ok || m["json_bytes"].(uint64) <= MaxExtBytes || len(m["sha256"].([]byte)) != 32 {
		t.Fatalf("transfers ext %T %v, want a size-and-digest stand-in", p.Ext[ExtTransfers], m)
	}
}
