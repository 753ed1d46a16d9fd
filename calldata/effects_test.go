package calldata_test

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/format"
)

func TestLogEffects(t *testing.T) {
	a, b := common.HexToAddress("0xaa"), common.HexToAddress("0xbb")
	topic := common.HexToHash("0x01")
	logs := []*types.Log{
		{Address: a, Topics: []common.Hash{topic}, Data: []byte{1, 2}},
		{Address: b, Data: []byte{}}, // no topics, empty data
	}
	effects := calldata.LogEffects(7, logs)
	if len(effects) != 2 {
		t.Fatalf("%d effects, want 2", len(effects))
	}
	l0, l1 := effects[0].ChainLog, effects[1].ChainLog
	if l0 == nil || l0.ChainID != 7 || !bytes.Equal(l0.Address, a[:]) || len(l0.Topics) != 1 || !bytes.Equal(l0.Topics[0], topic[:]) || !bytes.Equal(l0.Data, []byte{1, 2}) {
		t.Errorf("first effect %+v", l0)
	}
	if l1 == nil || !bytes.Equal(l1.Address, b[:]) || l1.Topics != nil || l1.Data != nil {
		t.Errorf("second effect %+v: want no topics and nil data", l1)
	}
	// Effects encode as the recorder's payload.
	if _, err := format.Marshal(format.Payload{Effects: effects}); err != nil {
		t.Fatal(err)
	}
	if calldata.LogEffects(7, nil) != nil {
		t.Error("no logs: want nil effects")
	}
}
