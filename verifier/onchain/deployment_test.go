package onchain_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

func TestForDeployment(t *testing.T) {
	anchorAddr, pace, op := common.HexToAddress("0xa1"), common.HexToAddress("0xb2"), common.HexToAddress("0xc3")
	id := format.Digest{1}
	d := &chain.Deployment{EpochAnchor: anchorAddr, Block: 7, Pace: &pace}
	got := onchain.ForDeployment(nil, d, op, id, "batches.jsonl")
	want := onchain.LogAnchors{Contract: anchorAddr, Operator: op, LogID: id, FromBlock: 7, BatchesFile: "batches.jsonl"}
	if got.Anchors != want {
		t.Fatalf("Anchors = %+v, want %+v", got.Anchors, want)
	}
	if x := got.Executions; x == nil || x.Account != pace || x.FromBlock != 7 || x.Registry != nil {
		t.Fatalf("Executions = %+v, want the account %s from block 7", x, pace)
	}
	d.Pace = nil
	if x := onchain.ForDeployment(nil, d, op, id, "").Executions; x != nil {
		t.Fatalf("Executions = %+v without an account, want nil", x)
	}
}
